"""The `tender.document` task: a document's version became readable, so its tenders are merged again
(or, in none, it is proposed to those that name its reference): tenderflow.tenders.records.
document_finished, in transactions of its own.

The extract stage's commit enqueues it (`records.announce_finished`) instead of merging in the
completion transaction: a batch commits many documents at once, and merging there would take their
tenders' locks in whatever order the batch holds them (two batches could wait on each other). Every
local worker runs it, whatever its pool: a tender must not wait for one pool's workers. A rerun
(the worker died after the merge) merges again, which changes nothing.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow.handlers.resources import Resources
from tenderflow.handlers.task import EVERY_POOL, Task
from tenderflow.queue import ClaimedJob, JobContext
from tenderflow.tenders import records


class TenderDocumentHandler:
    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool

    def run(self, job: ClaimedJob, context: JobContext) -> int:
        with self.pool.connection() as conn:
            return len(records.document_finished(conn, int(job.payload["document_id"])))

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: Any) -> None:
        """Nothing: `run` wrote what it merged in its own transactions."""


def _build(resources: Resources) -> TenderDocumentHandler:
    assert resources.pool is not None, "a task runs on a local worker, with the database"
    return TenderDocumentHandler(resources.pool)


TENDER_DOCUMENT = Task(name=records.JOB_TENDER_DOCUMENT, pool=EVERY_POOL, build=_build)
