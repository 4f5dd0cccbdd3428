"""OCR job types. `ocr.plan` probes the PDF (page count, caps) and splits it into page batches;
`ocr.pages` reads one batch of pages (text layer when usable, else render + tesseract).

Both `run` steps are pure compute over a local copy of the PDF (no database); their `commit` steps
write through tenderflow.pipeline.documents inside the queue's completion transaction.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

import psycopg

from tenderflow.errors import PermanentError
from tenderflow.pdf.ocr import OcrOptions, PageText, read_pages
from tenderflow.pdf.probe import PdfLimits, probe_pdf
from tenderflow.pipeline import documents
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import ClaimedJob, JobContext


class PdfCache:
    """Local copies of stored PDFs, so the batches of one document download it once per worker.

    Files are named by a hash of their key; at most `max_files` are kept (least recently used go).
    """

    def __init__(self, storage: ObjectStorage, directory: Path, *, max_files: int = 32) -> None:
        self.storage = storage
        self.directory = directory
        self.max_files = max_files
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}

    def local_path(self, key: str) -> Path:
        """A local file with the object's bytes; downloads it on first use."""
        name = hashlib.sha256(key.encode()).hexdigest()[:32] + ".pdf"
        target = self.directory / name
        with self._lock:
            key_lock = self._key_locks.setdefault(name, threading.Lock())
        with key_lock:
            if target.exists():
                os.utime(target)
                return target
            self.directory.mkdir(parents=True, exist_ok=True)
            self.storage.download_to(key, target)
            self._evict(keep=target)
            return target

    def _evict(self, *, keep: Path) -> None:
        files = sorted(self.directory.glob("*.pdf"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[self.max_files:]:
            if old != keep:
                old.unlink(missing_ok=True)


class OcrPlanHandler:
    """ocr.plan: page count and caps checked before any rendering; then the batches are enqueued."""

    def __init__(self, cache: PdfCache, limits: PdfLimits, batch_pages: int) -> None:
        self.cache = cache
        self.limits = limits
        self.batch_pages = batch_pages

    def run(self, job: ClaimedJob, context: JobContext) -> dict[str, Any]:
        info = probe_pdf(self.cache.local_path(job.payload["object_key"]), self.limits)
        return {"page_count": info.page_count}

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: dict[str, Any]) -> None:
        documents.record_plan(conn, job, page_count=result["page_count"], batch_pages=self.batch_pages)


class OcrPagesHandler:
    """ocr.pages: read pages first_page..last_page; the last batch to commit enqueues extraction."""

    def __init__(self, cache: PdfCache, options: OcrOptions) -> None:
        self.cache = cache
        self.options = options

    def run(self, job: ClaimedJob, context: JobContext) -> list[PageText]:
        first, last = int(job.payload["first_page"]), int(job.payload["last_page"])
        if not 1 <= first <= last:
            raise PermanentError(f"bad page range {first}-{last} in job payload")
        path = self.cache.local_path(job.payload["object_key"])
        pages: list[PageText] = []
        for number in range(first, last + 1):
            context.check()  # a cancelled or reclaimed job stops between pages
            pages.extend(read_pages(path, [number], self.options))
        return pages

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: list[PageText]) -> None:
        documents.record_pages(conn, job, result)


def page_to_json(page: PageText) -> dict[str, Any]:
    return asdict(page)
