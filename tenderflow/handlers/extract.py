"""The `extract` job type: the tender's structured fields from its pages' text.

`load_input` reads the pages (the one database read); the pure `compute` calls the configured
backend (an OpenAI-compatible LLM, or the offline rules) — remote workers run exactly this;
`commit` stores the fields and marks the version done, in the queue's completion transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow.extraction import ExtractionBackend, extract_fields
from tenderflow.handlers.results import ExtractResult
from tenderflow.pipeline import documents
from tenderflow.queue import ClaimedJob, JobContext

_WARM_UP_PAGE = ("Invitation for bids. Reference: AB-2026/001. Closing date: 15 March 2026 at 12:00.\n"
                 "Estimated value: EUR 1 000 000. Contact: procurement@example.org, +44 20 7946 0000.")


@dataclass(frozen=True)
class PageInput:
    number: int
    text: str


class ExtractHandler:
    input_kind = "pages"
    result_model = ExtractResult

    def __init__(self, backend: ExtractionBackend, pool: ConnectionPool | None = None) -> None:
        self.backend = backend
        self.pool = pool

    def warm_up(self) -> None:
        """Before the first claim: one extraction of a small page, so the backend's lazily built
        tables (month names, compiled patterns) are ready before the first document."""
        if self.backend.name == "rules":  # an LLM backend has nothing to prepare, and costs a call
            extract_fields([PageInput(1, _WARM_UP_PAGE)], self.backend)

    def load_input(self, job: ClaimedJob) -> list[PageInput]:
        assert self.pool is not None, "a compute-only handler has no database"
        with self.pool.connection() as conn:
            rows = documents.pages_for_extraction(conn, documents.VersionRef.of(job))
        return [PageInput(number, text) for number, text in rows]

    def compute(self, job: ClaimedJob, pages: list[PageInput], context: JobContext) -> dict[str, Any]:
        result = extract_fields(pages, self.backend)
        return ExtractResult.model_validate(result.model_dump(mode="json")).model_dump(mode="json")

    def run(self, job: ClaimedJob, context: JobContext) -> dict[str, Any]:
        return self.compute(job, self.load_input(job), context)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: dict[str, Any]) -> None:
        documents.record_extraction(conn, job, ExtractResult.model_validate(result).model_dump(mode="json"))
