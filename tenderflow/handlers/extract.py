"""The `extract` job type: the tender's structured fields from its pages' text.

`run` reads the pages (the one database read, before any compute) and calls the configured
backend (an OpenAI-compatible LLM, or the offline rules); `commit` stores the fields and marks
the version done, in the queue's completion transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow.extraction import ExtractionBackend, extract_fields
from tenderflow.pipeline import documents
from tenderflow.queue import ClaimedJob, JobContext


@dataclass(frozen=True)
class PageInput:
    number: int
    text: str


def extract_from_pages(pages: list[PageInput], backend: ExtractionBackend) -> dict[str, Any]:
    """Pure compute: pages in, a JSON-ready extraction out (shared by local and remote workers)."""
    result = extract_fields(pages, backend)
    return result.model_dump(mode="json")


class ExtractHandler:
    def __init__(self, pool: ConnectionPool, backend: ExtractionBackend) -> None:
        self.pool = pool
        self.backend = backend

    def load_pages(self, job: ClaimedJob) -> list[PageInput]:
        with self.pool.connection() as conn:
            rows = documents.pages_for_extraction(conn, documents.VersionRef.of(job))
        return [PageInput(number, text) for number, text in rows]

    def run(self, job: ClaimedJob, context: JobContext) -> dict[str, Any]:
        return extract_from_pages(self.load_pages(job), self.backend)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: dict[str, Any]) -> None:
        documents.record_extraction(conn, job, result)
