"""Reprocessing: a new processing version of a document, from OCR or from extraction.

The previous version's pages and fields stay readable until the new version is done (readers use
`documents.current_version`, which only moves up when a version finishes). Asking again while a
version is in flight returns that version instead of starting a second one; the document row lock
makes this hold under concurrent requests. A new version reserves credits in the same transaction
(the per-document price; from extraction, also the LLM estimate of the text of the pages it reuses).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg

from tenderflow import tracing
from tenderflow.errors import JobStateError, ReprocessRefusedError
from tenderflow.pipeline import versions
from tenderflow.pipeline.storage import object_key
from tenderflow.pipeline.versions import StartPoint, VersionState
from tenderflow.queue import enqueue
from tenderflow.tenants import credits
from tenderflow.tenants.credits import DEFAULT_PRICES, Prices

START_POINTS = tuple(StartPoint)


@dataclass(frozen=True)
class ReprocessOutcome:
    document_id: int
    version: int
    created: bool  # False: a version was already in flight and is returned instead


def reprocess(
    conn: psycopg.Connection[Any],
    document_id: int,
    *,
    start_from: str = "ocr",
    tenant: str | None = None,
    priority: int = 0,
    prices: Prices = DEFAULT_PRICES,
    languages: str | None = None,
    max_attempts: int | None = None,
    force: bool = False,
) -> ReprocessOutcome:
    """Start version N+1 of the document (or return the one in flight), reserving its credits.

    A version from OCR reads its pages with the document's languages (the upload's, else the
    tenant's default, else detected); `languages` (tesseract's form, already checked: see
    tenderflow.pdf.languages.parse_languages) replaces the document's own first.

    A version from extraction reads the pages of the version readers see, or, when none is done yet,
    of the newest failed version whose pages were all read (from their text layer or by OCR).

    Raises DocumentNotFoundError (also for another tenant's document), ReprocessRefusedError when
    the newest version failed for the PDF's own content (encrypted, damaged: it would fail again;
    unless `force`), JobStateError when extraction is asked for but no version has all its pages
    yet, and InsufficientCreditsError; each with nothing written.
    """
    if start_from not in START_POINTS:
        raise ValueError(f"start_from must be one of {START_POINTS}, not {start_from!r}")
    # The root of the new version's trace (a child of the upload's when an upload reprocesses).
    with tracing.span("reprocess", {"tenderflow.document_id": document_id, "tenderflow.start_from": start_from}), \
            conn.transaction():
        document = versions.lock_document(conn, document_id, tenant=tenant)
        latest = versions.get_version(conn, versions.VersionRef(document_id, document.latest_version))
        assert latest is not None  # a document always has its latest version row
        if latest.state not in (VersionState.DONE, VersionState.FAILED):
            return ReprocessOutcome(document_id, document.latest_version, created=False)
        if start_from == "ocr" and latest.state == VersionState.FAILED and not force and versions.failed_for_content(
                conn, versions.VersionRef(document_id, document.latest_version)):
            raise ReprocessRefusedError(
                f"document {document_id} failed for its own content ({latest.error or 'the PDF was refused'}): "
                "processing it again reads the same PDF and fails the same way; upload a fixed file")
        if languages:
            versions.set_document_languages(conn, document_id, languages)
        ref = versions.VersionRef(document_id, document.latest_version + 1)
        if start_from == "extract":
            # The version readers see; before any version is done, the newest that failed after all
            # its pages were read (its extraction failed: the LLM refused it, the budget ran out), so that
            # extracting again never costs reading the pages again.
            source_version = document.current_version or versions.newest_failed_version_with_pages(conn, document_id)
            if source_version is None:
                raise JobStateError(
                    f"document {document_id} has no finished OCR to extract from; reprocess from ocr"
                )
            source = versions.get_version(conn, versions.VersionRef(document_id, source_version))
            assert source is not None
            versions.insert_version(conn, ref, start_from="extract", pages_version=source.pages_version,
                                     page_count=source.page_count, batch_count=source.batch_count)
            credits.reserve_accepted(conn, document.tenant, document_id=ref.document_id, version=ref.version,
                                     prices=prices, reused_page_chars=versions.page_lengths(conn, ref),
                                     what=f"reprocessing document {document_id}")
            enqueue(conn, versions.extract_spec(ref, tenant=document.tenant, priority=priority,
                                                 max_attempts=max_attempts))
        else:
            versions.insert_version(conn, ref)
            credits.reserve_accepted(conn, document.tenant, document_id=ref.document_id, version=ref.version,
                                     prices=prices, what=f"reprocessing document {document_id}")
            ocr_languages, source_of_languages = versions.requested_languages(conn, document_id)
            enqueue(conn, versions.ocr_plan_spec(ref, tenant=document.tenant, priority=priority,
                                                  object_key=object_key(document.tenant, document.sha256),
                                                  languages=ocr_languages, languages_source=source_of_languages,
                                                  max_attempts=max_attempts))
        versions.set_latest_version(conn, ref)
    return ReprocessOutcome(document_id, ref.version, created=True)
