"""The tasks of deletion (see task.py): `storage.delete` removes a deleted document's stored PDF, and
`documents.retention`, enqueued hourly by its own schedule, deletes what the tenants' retention
periods say is too old. See tenderflow.pipeline.deletion.

Every local worker runs both, whatever its pool (EVERY_POOL): a deletion must not wait for the
workers of one pool to be running. No document version waits for them, and a remote worker could
not run them (its compute has neither storage nor database).
"""

from __future__ import annotations

from typing import Any

import psycopg
import structlog
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.handlers.ocr import StoredPdfs
from tenderflow.handlers.resources import Resources
from tenderflow.handlers.task import EVERY_POOL, Task
from tenderflow.pipeline import deletion
from tenderflow.pipeline.storage import ObjectStorage, object_key
from tenderflow.queue import ClaimedJob, JobContext, Schedule
from tenderflow.tenders.records import refresh_stale

log = structlog.get_logger("tenderflow.deletion")


class StorageDeleteHandler:
    """storage.delete: the object of a deleted document, unless a newer document refers to it."""

    def __init__(self, pool: ConnectionPool, storage: ObjectStorage, pdfs: StoredPdfs) -> None:
        self.pool = pool
        self.storage = storage
        self.pdfs = pdfs

    def run(self, job: ClaimedJob, context: JobContext) -> bool:
        tenant, sha256 = str(job.payload["tenant"]), str(job.payload["sha256"])
        with self.pool.connection() as conn:
            deleted = deletion.delete_stored_object(conn, self.storage, tenant=tenant, sha256=sha256)
        self.pdfs.cache.forget(object_key(tenant, sha256))
        return deleted

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: Any) -> None:
        deletion.record_object_done(conn, int(job.payload["document_id"]), kept=not bool(result))


class RetentionHandler:
    """documents.retention: every document older than its tenant's retention period, deleted."""

    def __init__(self, pool: ConnectionPool, settings: Settings) -> None:
        self.pool = pool
        self.default_days = settings.document_retention_days

    def run(self, job: ClaimedJob, context: JobContext) -> int:
        with self.pool.connection() as conn:
            deleted = deletion.expire_documents(conn, default_days=self.default_days)
            refresh_stale(conn)  # their tenders, merged without them
        if deleted:
            log.info("documents.expired", deleted=len(deleted), documents=[d.document_id for d in deleted][:50])
        return len(deleted)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: Any) -> None:
        """Nothing: each deletion committed on its own."""


def _build_storage_delete(resources: Resources) -> StorageDeleteHandler:
    assert resources.pool is not None and resources.storage is not None, "a task runs on a local worker"
    assert isinstance(resources.pdfs, StoredPdfs), "a local worker reads PDFs from its storage"
    return StorageDeleteHandler(resources.pool, resources.storage, resources.pdfs)


def _build_retention(resources: Resources) -> RetentionHandler:
    assert resources.pool is not None, "a task runs on a local worker, with the database"
    return RetentionHandler(resources.pool, resources.settings)


STORAGE_DELETE = Task(name=deletion.JOB_STORAGE_DELETE, pool=EVERY_POOL, build=_build_storage_delete)
RETENTION = Task(name=deletion.JOB_RETENTION, pool=EVERY_POOL, build=_build_retention,
                 schedule=Schedule(name=deletion.RETENTION_SCHEDULE, type=deletion.JOB_RETENTION, payload={},
                                   interval_seconds=deletion.RETENTION_EVERY_SECONDS))
