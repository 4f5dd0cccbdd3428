"""The OCR stages' local handlers: `ocr.plan` probes the PDF (page count, caps) and splits it into
page batches; `ocr.pages` reads one batch of pages (text layer when usable, else render + tesseract).

Each handler has `load_input` (a local copy of the stored PDF), its stage's pure compute
(tenderflow.stages.compute: remote workers run exactly that), `verify` (the server's checks of a
remote worker's result) and a `commit` step that writes through tenderflow.pipeline.commits
inside the queue's completion transaction.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg

from tenderflow.errors import PermanentError, ResultRejectedError
from tenderflow.handlers.resources import PdfSource, PdfStageHandler, Resources
from tenderflow.pdf.cache import PdfCache
from tenderflow.pdf.probe import probe_pdf
from tenderflow.pdf.textlayer import extract_text_layer, text_layer_is_usable, tidy_text_layer
from tenderflow.pdf.tools import ToolTimeoutError
from tenderflow.pipeline import commits
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import ClaimedJob
from tenderflow.stages.compute import OcrPagesCompute, OcrPlanCompute, batch_pages, job_languages
from tenderflow.stages.results import OcrPagesResult, OcrPlanResult, PageRecord


class StoredPdfs:
    """The PDFs of jobs, fetched from object storage through a PdfCache (local workers)."""

    def __init__(self, storage: ObjectStorage, cache: PdfCache) -> None:
        self.storage = storage
        self.cache = cache

    def local_path(self, job: ClaimedJob) -> Path:
        key = str(job.payload["object_key"])
        return self.cache.local_path(key, lambda target: self.storage.download_to(key, target))


class OcrPlanHandler(PdfStageHandler[OcrPlanResult]):
    """ocr.plan: its compute (OcrPlanCompute); the checks of a remote plan against the stored PDF;
    the commit that stores the text-layer pages and enqueues the batches of the others."""

    computer: OcrPlanCompute

    def __init__(
        self, computer: OcrPlanCompute, batch_pages: int, pdfs: PdfSource | None = None, *,
        live_within_seconds: float | None = 60.0,
    ) -> None:
        super().__init__(computer, pdfs)
        self.batch_pages = batch_pages
        self.live_within_seconds = live_within_seconds

    def verify(self, job: ClaimedJob, plan: OcrPlanResult) -> None:
        """A remote plan: its page count is the stored PDF's (probed here, caps included), it covers
        every page once, text-layer pages hold at most what a page can and ARE the stored PDF's text
        layer (read here: review security-2, N1), and the languages are the ones the job asked for
        when it asked."""
        if not _covers_every_page(plan):
            raise ResultRejectedError(f"the plan does not cover pages 1-{plan.page_count} exactly once")
        pdf = self.load_input(job)
        try:
            info = probe_pdf(pdf, self.computer.limits)
        except PermanentError as error:
            raise ResultRejectedError(f"the stored PDF does not pass the plan's checks here: {error}") from error
        if info.page_count != plan.page_count:
            raise ResultRejectedError(f"the plan says {plan.page_count} pages; the stored PDF has {info.page_count}")
        _check_page_texts(plan.text_pages)
        self._check_text_layer(pdf, info.page_count, plan.text_pages)
        asked = job_languages(job)
        if asked is not None and (plan.languages is None or plan.languages.languages != asked[0]):
            raise ResultRejectedError(f"the job asked for OCR languages {asked[0]!r}; the plan chose "
                                      f"{plan.languages.languages if plan.languages else None!r}")

    def _check_text_layer(self, pdf: Path, page_count: int, pages: list[PageRecord]) -> None:
        """Each page a remote plan says it read from the text layer holds the stored PDF's own text
        layer (pdftotext here, words compared apart from spacing), a layer usable instead of OCR: a
        worker cannot put words of its own in a document by calling them its text layer."""
        if not pages:
            return
        if any(page.source != "text_layer" for page in pages):
            raise ResultRejectedError("a plan's text pages are the ones read from the text layer (source text_layer)")
        try:
            layers = extract_text_layer(pdf, 1, page_count, timeout_seconds=self.computer.limits.timeout_seconds,
                                        memory_bytes=self.computer.limits.memory_bytes)
        except ToolTimeoutError as error:
            raise error.as_job_error("reading the text layer to check a remote plan") from error
        for page in pages:
            own = tidy_text_layer(layers[page.number - 1])
            if not text_layer_is_usable(own):
                raise ResultRejectedError(f"page {page.number} has no usable text layer in the stored PDF; "
                                          "the plan says it was read from it")
            if own.split() != page.text.split():
                raise ResultRejectedError(f"page {page.number}'s text is not the stored PDF's text layer")

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, plan: OcrPlanResult) -> None:
        if not _covers_every_page(plan):
            raise PermanentError(f"OCR plan does not cover pages 1-{plan.page_count} exactly once")
        commits.record_plan(conn, job, page_count=plan.page_count, text_pages=plan.text_pages,
                              ocr_pages=plan.ocr_pages, batch_pages=self.batch_pages,
                              languages=plan.languages.model_dump() if plan.languages else None,
                              live_within_seconds=self.live_within_seconds)


class OcrPagesHandler(PdfStageHandler[OcrPagesResult]):
    """ocr.pages: its compute (OcrPagesCompute); the last batch to commit enqueues extraction."""

    def verify(self, job: ClaimedJob, batch: OcrPagesResult) -> None:
        """A remote batch: exactly the job's pages, each holding at most what a page can."""
        expected = sorted(batch_pages(job))
        if sorted(page.number for page in batch.pages) != expected:
            raise ResultRejectedError(f"the result has pages {sorted(p.number for p in batch.pages)}, "
                                      f"the job reads {expected}")
        _check_page_texts(batch.pages)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, batch: OcrPagesResult) -> None:
        expected = sorted(batch_pages(job))
        if sorted(page.number for page in batch.pages) != expected:
            raise PermanentError(f"OCR result has pages {[p.number for p in batch.pages]}, expected {expected}")
        commits.record_pages(conn, job, batch.pages)


MAX_PAGE_CHARACTERS = 200_000
"""More text than a page can print (a dense A3 page in 6 pt type holds ~40,000 characters)."""


def _covers_every_page(plan: OcrPlanResult) -> bool:
    """Whether the plan names each of pages 1 to its page count once (text layer or OCR): `verify`
    rejects a remote plan that does not, `commit` fails the job for good."""
    numbers = sorted([page.number for page in plan.text_pages] + plan.ocr_pages)
    return numbers == list(range(1, plan.page_count + 1))


def _check_page_texts(pages: list[PageRecord]) -> None:
    for page in pages:
        if len(page.text) > MAX_PAGE_CHARACTERS:
            raise ResultRejectedError(f"page {page.number} has {len(page.text):,} characters; a page holds at "
                                      f"most {MAX_PAGE_CHARACTERS:,}")


def build_plan_handler(resources: Resources) -> OcrPlanHandler:
    settings = resources.settings
    return OcrPlanHandler(OcrPlanCompute.from_settings(settings), settings.ocr_batch_pages, resources.pdfs,
                          live_within_seconds=settings.worker_dead_after_seconds)


def build_pages_handler(resources: Resources) -> OcrPagesHandler:
    return OcrPagesHandler(OcrPagesCompute.from_settings(resources.settings), resources.pdfs)
