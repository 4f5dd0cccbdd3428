"""The jobs of deletion, run by local workers only (they need the storage and the database; remote
workers never see them): `storage.delete` removes a deleted document's stored PDF, and
`documents.retention`, enqueued hourly by its schedule, deletes what the tenants' retention periods
say is too old. See tenderflow.pipeline.deletion.

They are not stages of the pipeline: no document version waits for them, and a remote worker could
not run them (its compute has neither storage nor database).
"""

from __future__ import annotations

from typing import Any

import psycopg
import structlog
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.handlers.ocr import PdfCache
from tenderflow.pipeline import deletion
from tenderflow.pipeline.storage import ObjectStorage, object_key
from tenderflow.queue import ClaimedJob, JobContext, Schedule, Scheduler

log = structlog.get_logger("tenderflow.deletion")

JOB_STORAGE_DELETE = deletion.JOB_STORAGE_DELETE
JOB_RETENTION = deletion.JOB_RETENTION
JOB_TYPES = (JOB_STORAGE_DELETE, JOB_RETENTION)
"""The job types every local worker runs, whatever its pool."""


class StorageDeleteHandler:
    """storage.delete: the object of a deleted document, unless a newer document refers to it."""

    def __init__(self, pool: ConnectionPool, storage: ObjectStorage, cache: PdfCache) -> None:
        self.pool = pool
        self.storage = storage
        self.cache = cache

    def run(self, job: ClaimedJob, context: JobContext) -> bool:
        tenant, sha256 = str(job.payload["tenant"]), str(job.payload["sha256"])
        with self.pool.connection() as conn:
            deleted = deletion.delete_stored_object(conn, self.storage, tenant=tenant, sha256=sha256)
        self.cache.forget(object_key(tenant, sha256))
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
        if deleted:
            log.info("documents.expired", deleted=len(deleted), documents=[d.document_id for d in deleted][:50])
        return len(deleted)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: Any) -> None:
        """Nothing: each deletion committed on its own."""


def ensure_retention_schedule(conn: psycopg.Connection[Any], scheduler: Scheduler) -> None:
    """The hourly retention schedule, created once (a worker that starts leaves one that exists
    alone, so restarts do not push its next run back)."""
    scheduler.ensure(conn, Schedule(name=deletion.RETENTION_SCHEDULE, type=deletion.JOB_RETENTION, payload={},
                                    interval_seconds=deletion.RETENTION_EVERY_SECONDS))
