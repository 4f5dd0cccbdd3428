"""Reads of documents for people and programs: one document, its pages and fields, lists, progress.

The version readers see is the newest done one (`readable_version`): a document reprocessed keeps
showing its old results until the new ones land. A tenant reads only its own documents, and its
documents' errors without the operator's paths (`tenant_visible_error`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import psycopg
from psycopg.rows import dict_row

from tenderflow.errors import DocumentNotFoundError
from tenderflow.extraction.country import buyer_country, placed_deadlines
from tenderflow.extraction.schema import BuyerCountry, PlacedDeadline
from tenderflow.pipeline.versions import StartPoint, VersionRef, VersionState, get_version
from tenderflow.sqlfiles import NamedQueries
from tenderflow.stages.contract import JOB_EXTRACT, JOB_OCR_PLAN

QUERIES = NamedQueries("tenderflow.pipeline", "reads.sql")



_INTERNAL_LOCATION = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+|(?<![\w.])(?:~|\.{1,2})?/(?:[\w.@%+-]+/)+[\w.@%+-]*")


def tenant_visible_error(error: str | None) -> str | None:
    """A document's error as its tenant sees it: the operator's paths, buckets and endpoints
    (file://…, s3://…, https://…, /var/lib/…) replaced by "<internal>" (review D14); the full text
    stays in the database and the log for the operator."""
    return None if error is None else _INTERNAL_LOCATION.sub("<internal>", error)


_RETRY_KEYS = {"plan_type": JOB_OCR_PLAN, "extract_type": JOB_EXTRACT}


def get_document(conn: psycopg.Connection[Any], document_id: int, *, tenant: str | None = None) -> dict[str, Any]:
    """The document with its latest version's state. A tenant sees only its own (else not found)."""
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["document_get"], {"id": document_id, "tenant": tenant, **_RETRY_KEYS}
    ).fetchone()
    if row is None:
        raise DocumentNotFoundError(f"no document with id {document_id}")
    return row


def readable_version(document: dict[str, Any]) -> int | None:
    """The version readers see: the newest done one (old results stay until new ones land)."""
    current = document["current_version"]
    return None if current is None else int(current)


def document_pages(conn: psycopg.Connection[Any], document_id: int, version: int) -> list[dict[str, Any]]:
    version_row = get_version(conn, VersionRef(document_id, version))
    pages_version = version_row.pages_version if version_row else version
    return conn.cursor(row_factory=dict_row).execute(
        QUERIES["pages_of_version"], {"document_id": document_id, "version": pages_version}
    ).fetchall()


def document_fields(conn: psycopg.Connection[Any], document_id: int, version: int) -> dict[str, Any] | None:
    return conn.cursor(row_factory=dict_row).execute(
        QUERIES["extraction_get"], {"document_id": document_id, "version": version}
    ).fetchone()


@dataclass(frozen=True)
class DocumentRecord:
    """A document with its latest version's state and progress (`document_get`): the language
    columns are those of the version whose pages the latest version reads; `retrying` says why its
    plan or extraction waits to run again, if it does."""

    id: int
    tenant: str
    sha256: str
    filename: str
    size_bytes: int
    storage_url: str
    latest_version: int
    current_version: int | None
    created_at: datetime
    state: VersionState
    page_count: int | None
    error: str | None
    failed_for_content: bool
    start_from: StartPoint
    finished_at: datetime | None
    pages_done: int
    requested_languages: str | None
    language: str | None
    ocr_languages: str | None
    languages_source: str | None
    language_confidence: float | None
    script: str | None
    retrying: str | None

    @classmethod
    def of(cls, row: dict[str, Any]) -> DocumentRecord:
        return cls(**{**row, "state": VersionState(row["state"]), "start_from": StartPoint(row["start_from"])})


@dataclass(frozen=True)
class StoredPage:
    """One page of a version as stored: its text, where the text came from (`text_layer`, `ocr`),
    OCR's confidence, the rotation it was read at and the seconds it took."""

    page_number: int
    text: str
    source: str
    confidence: float | None
    rotation: int
    seconds: float


@dataclass(frozen=True)
class StoredExtraction:
    """A version's extracted fields as stored, with how they were found (`provenance`: confidence,
    rules, candidates, found_by) and the evidence of the buyer's country."""

    version: int
    fields: dict[str, Any]
    flags: list[Any]
    backend: str
    model: str | None
    prompt_tokens: int
    completion_tokens: int
    created_at: datetime
    provenance: dict[str, Any]
    country: dict[str, Any] | None

    def buyer_country(self) -> BuyerCountry | None:
        """The buyer's country: stated in the fields, else the inferred one stored beside them."""
        return buyer_country(self.country, self.fields)

    def deadlines(self, country: BuyerCountry | None) -> dict[str, PlacedDeadline]:
        """The deadlines among the fields, placed in `country`'s time zone when it has one."""
        return placed_deadlines(self.fields, country)


PagesOf = Literal["readable", "latest"]
"""Whose pages a view holds: the readable version's (what a reader reads), or the latest version's
(its pages as they arrive, for an operator watching it)."""


@dataclass(frozen=True)
class DocumentView:
    """One document as every reader of one document gets it (`tenderflow show`, the API's document
    routes, the dashboard's document page, the demo): the document with its latest version's state,
    the version readers see (the newest done one, None before one is done), that version's fields,
    and the pages asked for."""

    document: DocumentRecord
    readable_version: int | None
    extraction: StoredExtraction | None
    pages: tuple[StoredPage, ...]


def read_document(
    conn: psycopg.Connection[Any], document_id: int, *, tenant: str | None = None,
    pages: PagesOf | None = "readable", fields: bool = True,
) -> DocumentView:
    """The document, with the fields of its readable version (unless not `fields`) and the pages
    `pages` names (None: none). A tenant sees only its own documents. Raises DocumentNotFoundError."""
    document = DocumentRecord.of(get_document(conn, document_id, tenant=tenant))
    version = document.current_version
    extraction = None
    if fields and version is not None:
        row = document_fields(conn, document_id, version)
        extraction = StoredExtraction(**row) if row is not None else None
    pages_of = version if pages == "readable" else document.latest_version if pages == "latest" else None
    stored = () if pages_of is None else tuple(
        StoredPage(**page) for page in document_pages(conn, document_id, pages_of))
    return DocumentView(document=document, readable_version=version, extraction=extraction, pages=stored)


def read_thumbnail(conn: psycopg.Connection[Any], document_id: int, *, tenant: str | None = None) -> bytes | None:
    """The PNG of the document's newest version that has one (a version reprocessed from extraction
    renders none: it shows its pages' version's), or None while none is made. Raises
    DocumentNotFoundError for a document that does not exist or is another tenant's."""
    get_document(conn, document_id, tenant=tenant)
    row = conn.execute(QUERIES["thumbnail_get"], {"document_id": document_id}).fetchone()
    return bytes(row[0]) if row is not None else None


def list_documents(
    conn: psycopg.Connection[Any], *, tenant: str | None = None, state: str | None = None,
    limit: int = 50, before_id: int | None = None, filename: str | None = None,
    created_after: datetime | None = None, created_before: datetime | None = None,
) -> list[dict[str, Any]]:
    """Documents newest first, `limit` of them with an id below `before_id` (the cursor); `filename`
    keeps those whose file name contains it, in any case (taken literally: `%` and `_` are no wildcards);
    `created_after` / `created_before` those uploaded from then on / before then."""
    pattern = None if not filename else re.sub(r"([\\%_])", r"\\\1", filename)
    return conn.cursor(row_factory=dict_row).execute(QUERIES["document_list"], {
        "tenant": tenant, "state": state, "limit": limit, "before_id": before_id, "filename": pattern,
        "created_after": created_after, "created_before": created_before,
    }).fetchall()


def document_counts(conn: psycopg.Connection[Any], *, tenant: str | None = None) -> dict[str, int]:
    rows = conn.execute(QUERIES["document_counts_by_state"], {"tenant": tenant}).fetchall()
    return {str(state): int(count) for state, count in rows}


@dataclass(frozen=True)
class VersionProgress:
    """Where one version stands: its state, pages read of how many, its error, and why it waits to
    run again if it does ('retry 2/5: LLM unreachable …')."""

    document_id: int
    version: int
    state: VersionState
    page_count: int | None
    pages_done: int
    error: str | None
    retrying: str | None

    @property
    def finished(self) -> bool:
        return self.state in (VersionState.DONE, VersionState.FAILED)


def versions_progress(conn: psycopg.Connection[Any], refs: Sequence[VersionRef]) -> list[VersionProgress]:
    """The progress of each of `refs` (versions that do not exist are left out)."""
    rows = conn.cursor(row_factory=dict_row).execute(QUERIES["versions_progress"], {
        "document_ids": [ref.document_id for ref in refs], "versions": [ref.version for ref in refs],
        **_RETRY_KEYS,
    }).fetchall()
    return [VersionProgress(**{**row, "state": VersionState(row["state"])}) for row in rows]


@dataclass(frozen=True)
class PipelineProgress:
    """The unfinished versions (`tenderflow status`): the first `shown` of them with their pages read
    of how many, the pages they still have to read (of those whose page count is known) and the pace
    of the last minutes, whence an estimate of when those pages will be read (extraction not counted)."""

    unfinished: int
    shown: list[dict[str, Any]]
    pages_left: int
    unplanned: int  # versions whose plan has not run: their page count is not known yet
    pages_per_minute: float | None  # None: no page stored within the window
    window_seconds: float

    @property
    def eta_seconds(self) -> float | None:
        """Seconds until the known pages left are read at the recent pace; None when nothing was read
        lately, or when no page is known to be left while some versions' page count is not known yet."""
        if not self.pages_left:
            return None if self.unplanned else 0.0
        return None if not self.pages_per_minute else 60.0 * self.pages_left / self.pages_per_minute


PACE_MIN_SECONDS = 15.0
"""The shortest span a pace is measured over: one batch of pages stored a second ago is not a
pace of thousands of pages a minute."""


def pipeline_progress(conn: psycopg.Connection[Any], *, shown: int = 10, window_seconds: float = 300.0,
                      now: datetime | None = None) -> PipelineProgress:
    """Where the unfinished versions stand and the pages stored per minute within the last
    `window_seconds` (measured from the first of them, over at least PACE_MIN_SECONDS)."""
    cursor = conn.cursor(row_factory=dict_row)
    rows = cursor.execute(QUERIES["versions_in_progress"]).fetchall()
    pace = cursor.execute(QUERIES["pages_read_lately"], {"window_seconds": window_seconds, "now": now}).fetchone()
    assert pace is not None
    pages_per_minute = (60.0 * pace["pages"] / max(pace["span_seconds"], PACE_MIN_SECONDS)
                        if pace["pages"] else None)
    return PipelineProgress(
        unfinished=len(rows), shown=rows[:shown],
        pages_left=sum(max(row["page_count"] - row["pages_done"], 0) for row in rows if row["page_count"]),
        unplanned=sum(1 for row in rows if row["page_count"] is None),
        pages_per_minute=pages_per_minute, window_seconds=window_seconds,
    )
