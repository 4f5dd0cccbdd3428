"""Running the pipeline for the tenants and credits tests: real OCR job types, a metered extraction.

The OCR job types are the product's (probe, text layer, tesseract). The extraction's compute step is
replaced by one that reports a chosen LLM usage (no model is called), so a test knows exactly what a
version must be charged; its commit step is the product's (`documents.record_extraction`), which is
where the charge happens. The end-of-job hook is the product's too.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.handlers import end_of_job_hook
from tenderflow.handlers.ocr import PAGES, PLAN, PdfCache, StoredPdfs
from tenderflow.handlers.stage import Resources
from tenderflow.handlers.thumbnail import THUMBNAIL
from tenderflow.pipeline import documents
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import ClaimedJob, FunctionHandler, JobContext, JobTypes
from tenderflow.tenants import credits
from tests.pipeline_harness import drain_with


def metered_extraction(*, prompt_tokens: int, completion_tokens: int) -> FunctionHandler:
    """An `extract` handler whose compute reports this LLM usage; its commit is the product's."""

    def extract(job: ClaimedJob, context: JobContext) -> dict[str, Any]:
        return {"fields": {"title": {"value": "metered", "page": 1, "quote": "metered"}}, "flags": [],
                "backend": "metered", "model": "test-model", "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens}

    def commit(conn: psycopg.Connection[Any], job: ClaimedJob, result: dict[str, Any]) -> None:
        documents.record_extraction(conn, job, result)

    return FunctionHandler(extract, commit)


def money_job_types(
    settings: Settings, storage: ObjectStorage, *, prompt_tokens: int = 0, completion_tokens: int = 0,
) -> JobTypes:
    job_types = JobTypes()
    job_types.on_job_ended(end_of_job_hook())
    resources = Resources(settings, pdfs=StoredPdfs(storage, PdfCache(settings.data_dir / "cache")))
    for stage in (PLAN, PAGES, THUMBNAIL):
        job_types.register(stage.name, stage.job_handler(stage.build(resources)))
    job_types.register(documents.JOB_EXTRACT, metered_extraction(
        prompt_tokens=prompt_tokens, completion_tokens=completion_tokens))
    return job_types


def drain_jobs(pool: ConnectionPool, job_types: JobTypes, *, threads: int = 2, timeout: float = 120.0) -> None:
    """Run the job types until no job is queued or running (fails the test after `timeout`)."""
    drain_with(pool, job_types, threads=threads, timeout=timeout)


def assert_ledger_balanced(conn: psycopg.Connection[Any]) -> dict[str, dict[str, Any]]:
    """The invariant, for every tenant: balance = grants − charges − open reservations. Returns the
    summary by tenant."""
    summary = {row["tenant"]: row for row in credits.credit_summary(conn)}
    for tenant, row in summary.items():
        assert row["balance"] == row["ledger_balance"], (tenant, row)
        assert row["unlimited"] or row["balance"] >= 0, (tenant, row)
    return summary


def document_state(conn: psycopg.Connection[Any], document_id: int, version: int = 1) -> tuple[str, str | None]:
    row = conn.execute("SELECT state::text, error FROM document_versions WHERE document_id = %s AND version = %s",
                       (document_id, version)).fetchone()
    assert row is not None
    return row[0], row[1]


def ledger_kinds(conn: psycopg.Connection[Any], document_id: int, version: int = 1) -> dict[str, int]:
    """{kind: total amount} of one version's ledger entries."""
    rows = conn.execute(
        "SELECT kind::text, sum(amount)::bigint FROM credit_entries WHERE document_id = %s AND version = %s "
        "GROUP BY kind", (document_id, version)).fetchall()
    return {kind: int(amount) for kind, amount in rows}
