"""The PDFs a document gives back: the original as uploaded, and a searchable copy.

The searchable copy of a version is the original with an invisible text layer on its OCRed pages
(``tenderflow.pdf.searchable``), from the word boxes its OCR kept (``pages.layout``). It is made on
first demand, stored by reference under ``tenants/<tenant>/searchable/…`` (content hash and the
version whose pages it carries; the storage sweep leaves such keys alone) and recorded on the version
(``document_versions.searchable_key``), so later requests read it back. A document whose every page
had a text layer is its own searchable copy.

Used by the API (``GET /v1/documents/{id}/pdf``, ``/searchable.pdf``) and ``tenderflow download``.
"""

from __future__ import annotations

import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from tenderflow.config import Settings
from tenderflow.database import Database, borrowed
from tenderflow.errors import RetryableError, TenderflowError
from tenderflow.pdf.searchable import PageWords, make_searchable
from tenderflow.pipeline.reads import get_document, readable_version
from tenderflow.pipeline.storage import ObjectStorage, object_key, searchable_key
from tenderflow.pipeline.versions import VersionRef, get_version
from tenderflow.sqlfiles import NamedQueries

QUERIES = NamedQueries("tenderflow.pipeline", "pdfs.sql")


class NotReadableYetError(TenderflowError):
    """The document has no finished version to make a PDF of (409; still processing, or failed)."""

    http_status = 409

    def __init__(self, message: str, *, processing: bool) -> None:
        super().__init__(message)
        self.processing = processing


class WordsNotKeptError(TenderflowError):
    """The version was OCRed before word positions were kept: it must be read again (409)."""

    http_status = 409


@dataclass(frozen=True)
class StoredPdf:
    key: str
    filename: str
    """A name to save it under: the upload's file name (searchable: with "-searchable" before .pdf)."""


def _download_name(row: dict[str, Any], searchable: bool) -> str:
    name = Path(str(row.get("filename") or f"document-{row['id']}.pdf")).name
    stem = name[:-4] if name.lower().endswith(".pdf") else name
    return f"{stem}-searchable.pdf" if searchable else f"{stem}.pdf"


def original_pdf(conn: psycopg.Connection[Any], document_id: int, *, tenant: str | None) -> StoredPdf:
    """The uploaded PDF of the document (any state). DocumentNotFoundError for another tenant's."""
    row = get_document(conn, document_id, tenant=tenant)
    return StoredPdf(object_key(str(row["tenant"]), str(row["sha256"])), _download_name(row, False))


def searchable_pdf(
    database: Database, storage: ObjectStorage, settings: Settings, document_id: int, *, tenant: str | None,
    build_slots: threading.Semaphore | None = None,
) -> StoredPdf:
    """The searchable copy of the document's newest finished version, made and stored now if it was
    not yet. `database`: the API passes its pool, and no connection is held while the copy is made
    (downloaded, built in the sandbox, stored: review security-2, D-N2); with `build_slots`, a build
    waits for none: all taken raises RetryableError (503, try again). Raises DocumentNotFoundError
    (another tenant's), NotReadableYetError (no finished version: still processing, or failed),
    WordsNotKeptError (OCRed before word boxes were kept), and what making it raises (PermanentError
    for a PDF pypdf cannot read, the sandbox's errors)."""
    with borrowed(database) as conn:
        row = get_document(conn, document_id, tenant=tenant)
        version = readable_version(row)
        if version is None:
            raise NotReadableYetError(f"document {document_id} has no finished version yet (state: {row['state']})",
                                      processing=row["state"] != "failed")
        found = get_version(conn, VersionRef(document_id, version))
        pages_version = found.pages_version if found is not None else version
        ref = {"document_id": document_id, "version": pages_version}
        kept = conn.execute(QUERIES["version_searchable_get"], ref).fetchone()
        layouts = None if kept is not None and kept[0] else conn.execute(
            QUERIES["page_layouts_of_version"], ref).fetchall()
    original = object_key(str(row["tenant"]), str(row["sha256"]))
    name = _download_name(row, True)
    if kept is not None and kept[0] and storage.exists(str(kept[0])):
        return StoredPdf(str(kept[0]), name)
    if layouts is None:  # recorded, but its object is gone: make it again
        with borrowed(database) as conn:
            layouts = conn.execute(QUERIES["page_layouts_of_version"], ref).fetchall()
    missing = [int(number) for number, layout in layouts if layout is None]
    if missing:
        raise WordsNotKeptError(
            f"document {document_id} was read before word positions were kept (pages {missing[:10]}); "
            "reprocess it to get a searchable PDF")
    if not layouts:
        key = original  # every page had its own text: the original is searchable as it is
    else:
        key = searchable_key(str(row["tenant"]), str(row["sha256"]), int(pages_version))
        if build_slots is not None and not build_slots.acquire(blocking=False):
            raise RetryableError("searchable PDFs are being made for other requests right now; try again shortly",
                                 retry_after=5)
        try:
            with tempfile.TemporaryDirectory(prefix="tenderflow-searchable-") as work:
                source, target = Path(work) / "original.pdf", Path(work) / "searchable.pdf"
                storage.download_to(original, source)
                make_searchable(source, [
                    PageWords(int(number), int(layout["width"]), int(layout["height"]), int(layout.get("turned", 0)),
                              layout.get("words", []))
                    for number, layout in layouts
                ], target, memory_bytes=settings.tool_memory_bytes, timeout_seconds=settings.tool_timeout_seconds)
                storage.put_file(key, target)
        finally:
            if build_slots is not None:
                build_slots.release()
    with borrowed(database) as conn:
        conn.execute(QUERIES["version_searchable_set"], {**ref, "key": key})
    return StoredPdf(key, name)
