"""A document's processing versions: what names one, its states, its row and the document's lock.

A document (`documents`) is processed as numbered versions (`document_versions`): version 1 at the
upload, N+1 at each reprocess, readers kept on the newest done one until the next is done. A
version's states (the PostgreSQL enum `version_state`, mirrored by `VersionState`):

    queued --ocr.plan commit--> ocr --last ocr.pages commit--> extracting --extract commit--> done
    queued --ocr.plan commit, every page a usable text layer--> extracting
    any but done --a job of the version failed or was cancelled--> failed

The moves themselves are the stages' commit steps (tenderflow.pipeline.commits); here are the
version's vocabulary (`VersionRef`, `VersionState`, `StartPoint`, the job types whose failure fails
a version), the jobs that start one (`ocr_plan_spec`, `extract_spec`, `thumbnail_spec`), the rows a
new version writes (`insert_version`, `set_latest_version`) and the reads of one version the pipeline
needs (`get_version`, `pages_for_extraction`, `failed_version_of_job`). Every commit step first
share-locks its document (`hold_document`) and writes nothing when it is gone (deleted:
tenderflow.pipeline.deletion).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row

from tenderflow.errors import DocumentNotFoundError
from tenderflow.queue import ClaimedJob, EndedJob, JobSpec
from tenderflow.queue import jobs as queue_jobs
from tenderflow.sqlfiles import NamedQueries
from tenderflow.stages.contract import JOB_EXTRACT, JOB_OCR_PAGES, JOB_OCR_PLAN, JOB_THUMBNAIL

QUERIES = NamedQueries("tenderflow.pipeline", "versions.sql")

# The stages' job types (JOB_*) are what a version's jobs are; everything else about a stage (its
# pool, input, result, compute) is declared once in tenderflow.stages (STAGES), its handler in
# tenderflow.handlers.
VERSION_JOB_TYPES = (JOB_OCR_PLAN, JOB_OCR_PAGES, JOB_EXTRACT)
"""The job types whose failure fails their version (a thumbnail is an extra: its failure does not)."""

OCR_JOB_TYPES = (JOB_OCR_PLAN, JOB_OCR_PAGES)
"""The job types that read the PDF: a permanent failure of one is the document's own content's."""


class VersionState(enum.StrEnum):
    """Mirror of the PostgreSQL enum `version_state` (tests/test_migrations.py keeps the two equal)."""

    QUEUED = "queued"
    OCR = "ocr"
    EXTRACTING = "extracting"
    DONE = "done"
    FAILED = "failed"


class StartPoint(enum.StrEnum):
    """Where a new version of a document starts: read the pages again, or only extract again."""

    OCR = "ocr"
    EXTRACT = "extract"


@dataclass(frozen=True)
class VersionRef:
    """One processing run of one document, as job payloads carry it."""

    document_id: int
    version: int

    @classmethod
    def of(cls, job: ClaimedJob | EndedJob) -> VersionRef:
        return cls(int(job.payload["document_id"]), int(job.payload["version"]))

    def params(self) -> dict[str, int]:
        return {"document_id": self.document_id, "version": self.version}


def ocr_plan_spec(
    ref: VersionRef, *, tenant: str, priority: int, object_key: str, languages: str | None = None,
    languages_source: str | None = None, max_attempts: int | None = None,
) -> JobSpec:
    """The ocr.plan job of a version; `languages` (with `languages_source`: "upload" or "tenant")
    are the OCR languages asked for, None to let the plan detect them."""
    payload: dict[str, Any] = {**ref.params(), "object_key": object_key}
    if languages:
        payload.update(languages=languages, languages_source=languages_source or "upload")
    return JobSpec(
        type=JOB_OCR_PLAN, tenant=tenant, priority=priority, payload=payload, max_attempts=max_attempts,
        unique_key=f"{JOB_OCR_PLAN}:{ref.document_id}:{ref.version}",
    )


def requested_languages(conn: psycopg.Connection[Any], document_id: int) -> tuple[str | None, str | None]:
    """(languages, source) a new version of the document is OCRed with: the upload's when it named
    some ("upload"), else its tenant's default ("tenant"); (None, None): the plan detects them."""
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["document_languages"], {"id": document_id}).fetchone()
    if row is None:
        raise DocumentNotFoundError(f"no document with id {document_id}")
    if row["document_languages"]:
        return str(row["document_languages"]), "upload"
    if row["tenant_languages"]:
        return str(row["tenant_languages"]), "tenant"
    return None, None


def extract_spec(ref: VersionRef, *, tenant: str, priority: int, max_attempts: int | None = None) -> JobSpec:
    """The extract job of a version; `max_attempts` None: the queue's default (a follow-up job passes
    the attempts of the job that enqueues it, so TENDERFLOW_MAX_ATTEMPTS holds for the whole pipeline)."""
    return JobSpec(
        type=JOB_EXTRACT, tenant=tenant, priority=priority, payload=ref.params(), max_attempts=max_attempts,
        unique_key=f"{JOB_EXTRACT}:{ref.document_id}:{ref.version}",
    )


def thumbnail_spec(ref: VersionRef, job: ClaimedJob) -> JobSpec:
    """The thumbnail job of a version, enqueued by its plan (the PDF is known to open by then)."""
    return JobSpec(
        type=JOB_THUMBNAIL, tenant=job.tenant, priority=job.priority, max_attempts=job.max_attempts,
        payload={**ref.params(), "object_key": job.payload["object_key"]},
        unique_key=f"{JOB_THUMBNAIL}:{ref.document_id}:{ref.version}",
    )


@dataclass(frozen=True)
class LockedDocument:
    """A document row, locked FOR UPDATE by `lock_document` until the transaction ends."""

    id: int
    tenant: str
    sha256: str
    storage_url: str
    latest_version: int
    current_version: int | None


@dataclass(frozen=True)
class VersionRow:
    """One version row as the pipeline reads it."""

    document_id: int
    version: int
    state: VersionState
    start_from: StartPoint
    pages_version: int
    page_count: int | None
    batch_count: int | None
    error: str | None


def lock_document(conn: psycopg.Connection[Any], document_id: int, *, tenant: str | None = None) -> LockedDocument:
    """The document, locked until the transaction ends. Raises DocumentNotFoundError (also for
    another tenant's document)."""
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["document_lock"], {"id": document_id, "tenant": tenant}).fetchone()
    if row is None:
        raise DocumentNotFoundError(f"no document with id {document_id}")
    return LockedDocument(**row)


def hold_document(conn: psycopg.Connection[Any], document_id: int) -> bool:
    """A commit step's first statement: share-lock the document row until the transaction ends (a
    deletion waits for this commit), or False when the document is gone (deleted: the commit must
    write nothing). See tenderflow.pipeline.deletion."""
    return conn.execute(QUERIES["document_hold"], {"document_id": document_id}).fetchone() is not None


def get_version(conn: psycopg.Connection[Any], ref: VersionRef) -> VersionRow | None:
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["version_get"], ref.params()).fetchone()
    if row is None:
        return None
    return VersionRow(
        document_id=row["document_id"], version=row["version"], state=VersionState(row["state"]),
        start_from=StartPoint(row["start_from"]), pages_version=row["pages_version"], page_count=row["page_count"],
        batch_count=row["batch_count"], error=row["error"])


def version_state(conn: psycopg.Connection[Any], ref: VersionRef) -> VersionState | None:
    row = get_version(conn, ref)
    return None if row is None else row.state


def newest_failed_version_with_pages(conn: psycopg.Connection[Any], document_id: int) -> int | None:
    """The newest failed version of the document whose pages were all read (it failed at extraction,
    say the LLM refused it), or None: see version_newest_failed_with_pages."""
    row = conn.execute(QUERIES["version_newest_failed_with_pages"], {"document_id": document_id}).fetchone()
    return None if row is None else int(row[0])


def set_latest_version(conn: psycopg.Connection[Any], ref: VersionRef) -> None:
    conn.execute(QUERIES["document_set_latest"], {"id": ref.document_id, "version": ref.version})


def set_document_languages(conn: psycopg.Connection[Any], document_id: int, languages: str) -> None:
    """The OCR languages the document's next versions are read with (the upload's own, replaced)."""
    conn.execute(QUERIES["document_set_languages"], {"id": document_id, "ocr_languages": languages})


def insert_version(
    conn: psycopg.Connection[Any], ref: VersionRef, *, start_from: str = "ocr", pages_version: int | None = None,
    page_count: int | None = None, batch_count: int | None = None,
) -> None:
    """A new version row: queued (from OCR) or extracting (from existing pages)."""
    conn.execute(QUERIES["version_insert"], {
        **ref.params(), "start_from": start_from, "pages_version": pages_version or ref.version,
        "state": VersionState.QUEUED if start_from == StartPoint.OCR else VersionState.EXTRACTING,
        "page_count": page_count, "batch_count": batch_count,
    })


def pages_for_extraction(conn: psycopg.Connection[Any], ref: VersionRef) -> list[tuple[int, str]]:
    """(page number, text) of the pages this version's extraction reads."""
    version = get_version(conn, ref)
    if version is None:
        raise DocumentNotFoundError(f"document {ref.document_id} has no version {ref.version}")
    rows = conn.execute(QUERIES["pages_text"], {"document_id": ref.document_id, "version": version.pages_version})
    return [(int(number), str(text)) for number, text in rows.fetchall()]


def page_lengths(conn: psycopg.Connection[Any], ref: VersionRef) -> list[int]:
    """The length of each page's text the version extracts from (its pages version's), in page order."""
    return [int(length) for (length,) in conn.execute(QUERIES["page_lengths"], ref.params()).fetchall()]



def failed_for_content(conn: psycopg.Connection[Any], ref: VersionRef) -> bool:
    """Whether the version failed for the PDF's own content (migration 0012)."""
    row = conn.execute(QUERIES["version_failed_for_content"], ref.params()).fetchone()
    return bool(row and row[0])


def jobs_failed_for_content(conn: psycopg.Connection[Any], job_ids: Sequence[int]) -> set[int]:
    """Which of `job_ids` belong to a version that failed for its document's own content (encrypted,
    damaged, over the caps…): retrying them, or reprocessing the document, cannot help."""
    rows = conn.execute(QUERIES["jobs_of_versions_failed_for_content"], {
        "job_ids": list(job_ids), "types": list(VERSION_JOB_TYPES)}).fetchall()
    return {int(row[0]) for row in rows}


@dataclass(frozen=True)
class FailedVersion:
    """A failed version that a pipeline job belongs to. A failed version never moves again (its
    reservations were refunded, and the ledger closes a version once), so retrying one of its jobs
    does work nobody uses: only a new version (`tenderflow.pipeline.reprocess`) processes the
    document again."""

    ref: VersionRef
    reprocess_from: str  # where that new version should start to redo this job's work: "ocr" | "extract"


def failed_version_of_job(conn: psycopg.Connection[Any], job_id: int) -> FailedVersion | None:
    """The job's document version, when the job is a pipeline job and that version has failed;
    None otherwise. Raises JobNotFoundError."""
    job = queue_jobs.get(conn, job_id)
    if job["type"] not in (*VERSION_JOB_TYPES, JOB_THUMBNAIL):
        return None
    ref = VersionRef(int(job["payload"]["document_id"]), int(job["payload"]["version"]))
    if version_state(conn, ref) != VersionState.FAILED:
        return None
    return FailedVersion(ref, reprocess_from=StartPoint.EXTRACT if job["type"] == JOB_EXTRACT else StartPoint.OCR)


def log_subject(job: ClaimedJob) -> dict[str, Any]:
    """What a pipeline job's log lines name: its document and version (and OCR batch)."""
    payload = job.payload
    subject = {"document_id": payload.get("document_id"), "version": payload.get("version")}
    if "pages" in payload:
        subject["pages"] = payload["pages"]
    return {key: value for key, value in subject.items() if value is not None}
