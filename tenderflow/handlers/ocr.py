"""OCR job types. `ocr.plan` probes the PDF (page count, caps) and splits it into page batches;
`ocr.pages` reads one batch of pages (text layer when usable, else render + tesseract).

Each handler has `load_input` (a local copy of the stored PDF), a pure `compute` step (no database,
no storage: remote workers run exactly this), and a `commit` step that writes through
tenderflow.pipeline.documents inside the queue's completion transaction.
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
from tenderflow.handlers.results import OcrPagesResult, OcrPlanResult, PageRecord
from tenderflow.pdf.ocr import OcrOptions, read_pages
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


def page_range(job: ClaimedJob) -> range:
    first, last = int(job.payload["first_page"]), int(job.payload["last_page"])
    if not 1 <= first <= last:
        raise PermanentError(f"bad page range {first}-{last} in job payload")
    return range(first, last + 1)


class OcrPlanHandler:
    """ocr.plan: page count and caps checked before any rendering; then the batches are enqueued."""

    input_kind = "pdf"
    result_model = OcrPlanResult

    def __init__(self, limits: PdfLimits, batch_pages: int, cache: PdfCache | None = None) -> None:
        self.limits = limits
        self.batch_pages = batch_pages
        self.cache = cache

    def load_input(self, job: ClaimedJob) -> Path:
        assert self.cache is not None, "a compute-only handler has no storage"
        return self.cache.local_path(job.payload["object_key"])

    def compute(self, job: ClaimedJob, pdf: Path, context: JobContext) -> dict[str, Any]:
        info = probe_pdf(pdf, self.limits)
        return OcrPlanResult(page_count=info.page_count).model_dump()

    def run(self, job: ClaimedJob, context: JobContext) -> dict[str, Any]:
        return self.compute(job, self.load_input(job), context)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: dict[str, Any]) -> None:
        plan = OcrPlanResult.model_validate(result)
        documents.record_plan(conn, job, page_count=plan.page_count, batch_pages=self.batch_pages)


class OcrPagesHandler:
    """ocr.pages: read pages first_page..last_page; the last batch to commit enqueues extraction."""

    input_kind = "pdf"
    result_model = OcrPagesResult

    def __init__(self, options: OcrOptions, cache: PdfCache | None = None) -> None:
        self.options = options
        self.cache = cache

    def load_input(self, job: ClaimedJob) -> Path:
        assert self.cache is not None, "a compute-only handler has no storage"
        return self.cache.local_path(job.payload["object_key"])

    def compute(self, job: ClaimedJob, pdf: Path, context: JobContext) -> dict[str, Any]:
        pages: list[PageRecord] = []
        for number in page_range(job):
            context.check()  # a cancelled or reclaimed job stops between pages
            pages.extend(PageRecord(**asdict(page)) for page in read_pages(pdf, [number], self.options))
        return OcrPagesResult(pages=pages).model_dump()

    def run(self, job: ClaimedJob, context: JobContext) -> dict[str, Any]:
        return self.compute(job, self.load_input(job), context)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: dict[str, Any]) -> None:
        batch = OcrPagesResult.model_validate(result)
        expected = list(page_range(job))
        if sorted(page.number for page in batch.pages) != expected:
            raise PermanentError(f"OCR result has pages {[p.number for p in batch.pages]}, expected {expected}")
        documents.record_pages(conn, job, batch.pages)
