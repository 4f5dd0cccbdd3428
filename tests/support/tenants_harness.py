"""Running the pipeline for the tenants and credits tests: the product's stages throughout.

Extraction runs the product's LLM backend against the local OpenAI-compatible server, which reports
the LLM usage a test chose, so a test knows exactly what a version must be charged; the charge
itself happens in the product's commit step (`commits.record_extraction`) and end-of-job hook.
"""

from __future__ import annotations

import atexit
import functools
import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.extraction.schema import TenderFields
from tenderflow.handlers import end_of_job_hook, stage_job_handler
from tenderflow.handlers.ocr import StoredPdfs
from tenderflow.handlers.resources import Resources
from tenderflow.handlers.tenders import TENDER_DOCUMENT
from tenderflow.pdf.cache import PdfCache
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import JobTypes
from tenderflow.stages.compute import EXTRACT, PAGES, PLAN, THUMBNAIL
from tenderflow.tenants import credits
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply, completion
from tests.support.pipeline_harness import drain_with

_METERED_MODEL = re.compile(r"metered-(\d+)-(\d+)")


def _metered_reply(request: RecordedRequest) -> Reply:
    """The answer of the tests' LLM: no field found, and the usage the model's name asks for."""
    asked = _METERED_MODEL.fullmatch(str(request.body.get("model", "")))
    prompt_tokens, completion_tokens = (int(asked[1]), int(asked[2])) if asked else (0, 0)
    return completion(TenderFields().model_dump(mode="json"), prompt_tokens=prompt_tokens,
                      completion_tokens=completion_tokens)


@functools.cache
def metering_llm() -> OpenAIServer:
    """One local OpenAI-compatible server for the test process (stopped at exit)."""
    server = OpenAIServer(_metered_reply)
    server.start()
    atexit.register(server.stop)
    return server


def money_job_types(
    settings: Settings, storage: ObjectStorage, *, pool: ConnectionPool | None = None, prompt_tokens: int = 0,
    completion_tokens: int = 0,
) -> JobTypes:
    """The product's stages and end-of-job hook and, given the pool, the task every finished document
    enqueues (tender.document: its tenders merged). Extraction is the product's LLM backend, talking to
    the local OpenAI-compatible server over HTTP, which reports `prompt_tokens` and `completion_tokens`
    per request (a one-page document makes one request): so a test knows exactly what the version
    must be charged. `pool` is needed for extractions to read their pages."""
    llm = settings.model_copy(update={
        "llm_base_url": metering_llm().base_url, "llm_api_key": "test", "llm_max_retries": 0, "extraction": "openai",
        "llm_model": f"metered-{prompt_tokens}-{completion_tokens}",
    })
    job_types = JobTypes()
    job_types.on_job_ended(end_of_job_hook())
    resources = Resources(llm, pdfs=StoredPdfs(storage, PdfCache(settings.data_dir / "cache")), pool=pool)
    for stage in (PLAN, PAGES, THUMBNAIL, EXTRACT):
        job_types.register(stage.name, stage_job_handler(stage, resources))
    if pool is not None:
        job_types.register(TENDER_DOCUMENT.name, TENDER_DOCUMENT.build(resources))
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


def uploads_meeting_at_the_tenant_row(
    database_url: str, tenant: str, pdfs: Sequence[Path], refusal: type[Exception],
    upload: Callable[[psycopg.Connection[Any], Path], object],
) -> list[str]:
    """`upload(connection, pdf)` for every PDF at once, each on a thread and connection of its own,
    while the tenant's row is held: every upload passes the early checks and waits at the row, then
    all are let go together (a race at the reservation or quota check, not a sequence). Each one's
    outcome in order: "created", or "refused" when it raised `refusal`."""
    outcomes = ["unfinished"] * len(pdfs)

    def run(n: int) -> None:
        with psycopg.connect(database_url, autocommit=True) as own:
            try:
                upload(own, pdfs[n])
                outcomes[n] = "created"
            except refusal:
                outcomes[n] = "refused"

    with psycopg.connect(database_url, autocommit=True) as watcher, psycopg.connect(database_url) as holder:
        holder.execute("SELECT 1 FROM tenants WHERE name = %s FOR NO KEY UPDATE", (tenant,))
        threads = [threading.Thread(target=run, args=(n,)) for n in range(len(pdfs))]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 30
        waiting = ("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                   "AND query LIKE '%FROM tenants%' AND datname = current_database()")
        while watcher.execute(waiting).fetchone() != (len(pdfs),):
            assert time.monotonic() < deadline, f"the {len(pdfs)} uploads never all waited for the tenant's row"
            time.sleep(0.02)
        holder.commit()
    for thread in threads:
        thread.join(30)
    return outcomes
