"""Deleting documents: on request (`tenderflow documents delete`, `DELETE /v1/documents/{id}`) or once
their tenant's retention period has passed (the `documents.retention` schedule).

A deletion is one transaction (`delete_document`):

    1. the document's queued and running pipeline jobs are cancelled (a running job's worker finds
       out at its next heartbeat; whatever it still commits is refused: the job is no longer its);
    2. the document row is locked: a commit step of its jobs that is under way finishes first (each
       holds the row share-locked, `versions.hold_document`), and one that comes after finds the
       document gone and writes nothing; jobs enqueued meanwhile are cancelled too;
    3. every version that had not finished is refunded in full (the ledger keeps all its entries:
       it has no foreign key to documents, it is the accounts);
    4. the deletion is recorded (document_deletions: id, tenant, content hash, size, why, when);
    5. the document row is deleted, and with it its versions, pages, OCR batches, extractions,
       thumbnails, prices and search entries (cascading foreign keys);
    6. a `storage.delete` job is enqueued for the stored PDF.

The storage part is a job so that a crash loses nothing: the job deletes the object under the
object's lock (the one uploads hold), unless a document refers to the same object by then — the
same tenant uploading the same bytes again, which gives a new document with the same key — and
records which it did. The storage sweep would also delete the object once it is an hour old.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row

from tenderflow.errors import DocumentNotFoundError, JobStateError
from tenderflow.pipeline.storage import ObjectStorage, derived_prefix, object_key
from tenderflow.pipeline.uploads import object_in_use, object_locked
from tenderflow.pipeline.versions import VERSION_JOB_TYPES
from tenderflow.pipeline.watches import forget_document
from tenderflow.queue import JobSpec, enqueue
from tenderflow.queue import jobs as queue_jobs
from tenderflow.sqlfiles import NamedQueries
from tenderflow.stages.contract import JOB_THUMBNAIL
from tenderflow.tenants import credits

QUERIES = NamedQueries("tenderflow.pipeline", "deletion.sql")

JOB_STORAGE_DELETE = "storage.delete"
JOB_RETENTION = "documents.retention"
RETENTION_SCHEDULE = "documents.retention"
RETENTION_EVERY_SECONDS = 3600.0
_PIPELINE_JOB_TYPES = [*VERSION_JOB_TYPES, JOB_THUMBNAIL]
_RETENTION_BATCH = 100


@dataclass(frozen=True)
class Deletion:
    """What one deletion did."""

    document_id: int
    tenant: str
    reason: str
    deleted_at: datetime
    jobs_cancelled: int
    refunded: int
    """Credits given back for the versions it stopped before they finished."""


def _cancel_jobs(conn: psycopg.Connection[Any], document_id: int, *, tenant: str | None, states: list[str]) -> int:
    ids = [int(row[0]) for row in conn.execute(QUERIES["jobs_of_document"], {
        "document_id": document_id, "tenant": tenant, "states": states, "types": _PIPELINE_JOB_TYPES}).fetchall()]
    cancelled = 0
    for job_id in ids:
        # No end-of-job hooks: they would fail and refund versions (and tell webhooks a document
        # failed) that are about to be deleted; the deletion refunds them itself.
        try:
            queue_jobs.cancel(conn, job_id)
            cancelled += 1
        except JobStateError:
            continue  # it ended meanwhile
    return cancelled


def delete_document(
    conn: psycopg.Connection[Any], document_id: int, *, tenant: str | None = None, reason: str = "request"
) -> Deletion:
    """Delete the document (a tenant's own only: another's is not found) with everything it has,
    refund its unfinished versions and enqueue the deletion of its stored object; see the module.
    Raises DocumentNotFoundError."""
    with conn.transaction():
        # Running jobs first, before the document's lock: their commits take the jobs' locks and
        # then the document's, and this takes them in the same order.
        cancelled = _cancel_jobs(conn, document_id, tenant=tenant, states=["queued", "running"])
        row = conn.cursor(row_factory=dict_row).execute(
            QUERIES["document_lock_for_deletion"], {"id": document_id, "tenant": tenant}).fetchone()
        if row is None:
            raise DocumentNotFoundError(f"no document with id {document_id}")
        # What a commit that held the document until now enqueued (never running yet).
        cancelled += _cancel_jobs(conn, document_id, tenant=row["tenant"], states=["queued"])
        refunded = 0
        for (version,) in conn.execute(QUERIES["versions_unfinished"], {"document_id": document_id}).fetchall():
            refunded += credits.refund_version(conn, document_id=document_id, version=int(version),
                                               reason="the document was deleted") or 0
        recorded = conn.execute(QUERIES["deletion_record"], {
            "document_id": document_id, "tenant": row["tenant"], "sha256": row["sha256"],
            "size_bytes": row["size_bytes"], "uploaded_at": row["created_at"], "reason": reason,
        }).fetchone()
        assert recorded is not None
        forget_document(conn, document_id)
        conn.execute(QUERIES["document_delete"], {"id": document_id})
        enqueue(conn, JobSpec(
            type=JOB_STORAGE_DELETE, tenant=row["tenant"],
            payload={"document_id": document_id, "tenant": row["tenant"], "sha256": row["sha256"]},
            unique_key=f"{JOB_STORAGE_DELETE}:{document_id}"))
    return Deletion(document_id=document_id, tenant=str(row["tenant"]), reason=reason, deleted_at=recorded[0],
                    jobs_cancelled=cancelled, refunded=refunded)


def delete_stored_object(conn: psycopg.Connection[Any], storage: ObjectStorage, *, tenant: str, sha256: str) -> bool:
    """The storage part of a deletion: under the object's lock (an upload takes it when it records
    itself in `object_uploads` and in its transaction), delete the tenant's object with this content
    hash unless a document refers to it again or an upload under way is storing it. Returns whether
    it was deleted (False: kept for the document, or the upload, that refers to it). `conn` must be
    autocommit and outside a transaction (the lock is the session's). Deleting an object that is
    gone already is no error. Raises StorageError."""
    with object_locked(conn, tenant, sha256):
        if object_in_use(conn, tenant, sha256):
            return False
        storage.delete(object_key(tenant, sha256))
        for derived in list(storage.list_objects(derived_prefix(tenant, sha256))):
            storage.delete(derived.key)  # its searchable copies go with it
        return True


def record_object_done(conn: psycopg.Connection[Any], document_id: int, *, kept: bool) -> None:
    """storage.delete commit: the deletion's object is gone (or `kept`, for a newer document)."""
    conn.execute(QUERIES["deletion_object_done"], {"document_id": document_id, "kept": kept})


@dataclass(frozen=True)
class Expired:
    document_id: int
    tenant: str
    uploaded_at: datetime


def expired_documents(
    conn: psycopg.Connection[Any], *, default_days: int, now: datetime | None = None, limit: int = _RETENTION_BATCH
) -> list[Expired]:
    """Documents older than their tenant's retention period (its own, else `default_days`; 0: kept
    for ever), oldest first."""
    rows = conn.execute(QUERIES["documents_expired"], {
        "default_days": default_days, "now": now, "limit": limit}).fetchall()
    return [Expired(int(row[0]), str(row[1]), row[2]) for row in rows]


def expire_documents(
    conn: psycopg.Connection[Any], *, default_days: int, now: datetime | None = None,
    batch: int = _RETENTION_BATCH,
) -> list[Deletion]:
    """Delete every document older than its tenant's retention period (each in its own transaction:
    a failure part way keeps what was done), a batch at a time. `conn` outside a transaction."""
    deleted: list[Deletion] = []
    while expired := expired_documents(conn, default_days=default_days, now=now, limit=batch):
        for document in expired:
            try:
                deleted.append(delete_document(conn, document.document_id, reason="retention"))
            except DocumentNotFoundError:
                continue  # deleted meanwhile by someone else
        if len(expired) < batch:
            break
    return deleted


def deletions(conn: psycopg.Connection[Any], *, tenant: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """The latest deletions, newest first (what `tenderflow documents deleted` lists)."""
    return conn.cursor(row_factory=dict_row).execute(
        QUERIES["deletions_list"], {"tenant": tenant, "limit": limit}).fetchall()
