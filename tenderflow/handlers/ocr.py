"""OCR job types. `ocr.plan` probes the PDF (page count, caps) and splits it into page batches;
`ocr.pages` reads one batch of pages (text layer when usable, else render + tesseract).

Each handler has `load_input` (a local copy of the stored PDF), a pure `compute` step (no database,
no storage: remote workers run exactly this), and a `commit` step that writes through
tenderflow.pipeline.documents inside the queue's completion transaction.
"""

from __future__ import annotations

import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import psycopg

from tenderflow.config import Settings
from tenderflow.errors import PermanentError, ResultRejectedError
from tenderflow.handlers.stage import InputKind, PdfSource, Pool, Stage
from tenderflow.pdf import languages, tools
from tenderflow.pdf.cache import PdfCache
from tenderflow.pdf.languages import LanguageChoice, detect_languages, fixed_choice
from tenderflow.pdf.ocr import OcrOptions, check_packs_load, read_pages
from tenderflow.pdf.probe import PdfLimits, probe_pdf
from tenderflow.pdf.textlayer import extract_text_layer, text_layer_is_usable, tidy_text_layer
from tenderflow.pdf.tools import ToolTimeoutError
from tenderflow.pipeline import documents
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import ClaimedJob, JobContext
from tenderflow.stages.results import LanguagesRecord, OcrPagesResult, OcrPlanResult, PageRecord


class StoredPdfs:
    """The PDFs of jobs, fetched from object storage through a PdfCache (local workers)."""

    def __init__(self, storage: ObjectStorage, cache: PdfCache) -> None:
        self.storage = storage
        self.cache = cache

    def local_path(self, job: ClaimedJob) -> Path:
        key = str(job.payload["object_key"])
        return self.cache.local_path(key, lambda target: self.storage.download_to(key, target))


def pdf_limits(settings: Settings) -> PdfLimits:
    return PdfLimits(
        max_pages=settings.max_pages, max_page_pixels=settings.max_page_pixels, dpi=settings.ocr_dpi,
        timeout_seconds=settings.tool_timeout_seconds, memory_bytes=settings.tool_memory_bytes,
    )


def ocr_options(settings: Settings) -> OcrOptions:
    return OcrOptions(
        dpi=settings.ocr_dpi, languages=settings.ocr_languages, timeout_seconds=settings.tool_timeout_seconds,
        memory_bytes=settings.tool_memory_bytes, max_page_pixels=settings.max_page_pixels,
    )


def batch_pages(job: ClaimedJob) -> list[int]:
    """The page numbers an ocr.pages job reads."""
    pages = [int(number) for number in job.payload["pages"]]
    if not pages or min(pages) < 1 or len(set(pages)) != len(pages):
        raise PermanentError(f"bad page list {pages} in job payload")
    return pages


def job_languages(job: ClaimedJob) -> tuple[str, str] | None:
    """(languages, source) an ocr.plan job's payload asks for: the upload's or the tenant's."""
    languages = job.payload.get("languages")
    if not languages:
        return None
    source = str(job.payload.get("languages_source") or "upload")
    return str(languages), source if source in ("upload", "tenant") else "upload"


class OcrPlanHandler:
    """ocr.plan: page count and caps checked before any rendering; every page's text layer read in
    one pdftotext run. Pages whose text layer is usable are stored by the plan itself; only the
    others are batched for rendering and OCR (a born-digital tender needs no ocr.pages job at all).

    The plan also chooses the languages the pages are OCRed with (see tenderflow.pdf.languages), in
    this order: the languages the job's payload carries (the upload's, else the tenant's default);
    with ``detect`` off, ``options.languages`` (TENDERFLOW_OCR_LANGUAGES); else the language detected
    from the text layer or a first pass over the first scanned page, with ``options.languages`` as
    the fallback when nothing is detected. The ocr.pages jobs carry the choice in their payload, so
    every worker, local or remote, reads the document's pages with the same languages."""

    def __init__(
        self, limits: PdfLimits, batch_pages: int, pdfs: PdfSource | None = None, *,
        options: OcrOptions | None = None, detect: bool = True, live_within_seconds: float | None = 60.0,
        model_cache: Path | None = None,
    ) -> None:
        self.limits = limits
        self.batch_pages = batch_pages
        self.live_within_seconds = live_within_seconds
        self.pdfs = pdfs
        self.options = options or OcrOptions(
            dpi=limits.dpi, timeout_seconds=limits.timeout_seconds, memory_bytes=limits.memory_bytes,
            max_page_pixels=limits.max_page_pixels,
        )
        self.detect = detect
        self.model_cache = model_cache

    def warm_up(self) -> None:
        """Before the first claim: the tool sandbox, and the language identifier's model when this
        plan detects (from its decoded copy in `model_cache`, written there by the first worker on
        the machine)."""
        tools.warm_up()
        if self.detect:
            languages.warm_up(self.model_cache)

    def choose_languages(
        self, job: ClaimedJob, pdf: Path, text_layers: dict[int, str], ocr_pages: list[int]
    ) -> LanguageChoice:
        asked = job_languages(job)
        if asked is not None:
            return fixed_choice(asked[0], "tenant" if asked[1] == "tenant" else "upload")
        if not self.detect:
            return fixed_choice(self.options.languages, "settings")
        return detect_languages(pdf, text_layers, ocr_pages, self.options, fallback=self.options.languages)

    def load_input(self, job: ClaimedJob) -> Path:
        assert self.pdfs is not None, "a compute-only handler has no storage"
        return self.pdfs.local_path(job)

    def compute(self, job: ClaimedJob, pdf: Path, context: JobContext) -> OcrPlanResult:
        info = probe_pdf(pdf, self.limits)
        started = time.monotonic()
        try:
            layers = extract_text_layer(pdf, 1, info.page_count, timeout_seconds=self.limits.timeout_seconds,
                                        memory_bytes=self.limits.memory_bytes)
        except ToolTimeoutError as error:
            raise error.as_job_error("reading the text layer") from error
        share = (time.monotonic() - started) / len(layers)
        usable = {number: text for number, text in enumerate(layers, start=1) if text_layer_is_usable(text)}
        text_pages = [PageRecord(number=number, text=tidy_text_layer(text), source="text_layer", seconds=share)
                      for number, text in usable.items()]
        ocr_pages = [number for number in range(1, info.page_count + 1) if number not in usable]
        context.check()
        try:
            choice = self.choose_languages(job, pdf, usable, ocr_pages)
        except ToolTimeoutError as error:
            raise error.as_job_error("detecting the language") from error
        return OcrPlanResult(
            page_count=info.page_count, text_pages=text_pages, ocr_pages=ocr_pages,
            languages=LanguagesRecord(**choice.as_payload()),
        )

    def verify(self, job: ClaimedJob, plan: OcrPlanResult) -> None:
        """A remote plan: its page count is the stored PDF's (probed here, caps included), it covers
        every page once, text-layer pages hold at most what a page can and ARE the stored PDF's text
        layer (read here: review security-2, N1), and the languages are the ones the job asked for
        when it asked."""
        _check_covers(plan)
        pdf = self.load_input(job)
        try:
            info = probe_pdf(pdf, self.limits)
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
            layers = extract_text_layer(pdf, 1, page_count, timeout_seconds=self.limits.timeout_seconds,
                                        memory_bytes=self.limits.memory_bytes)
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
        numbers = sorted([page.number for page in plan.text_pages] + plan.ocr_pages)
        if numbers != list(range(1, plan.page_count + 1)):
            raise PermanentError(f"OCR plan does not cover pages 1-{plan.page_count} exactly once")
        documents.record_plan(conn, job, page_count=plan.page_count, text_pages=plan.text_pages,
                              ocr_pages=plan.ocr_pages, batch_pages=self.batch_pages,
                              languages=plan.languages.model_dump() if plan.languages else None,
                              live_within_seconds=self.live_within_seconds)


class OcrPagesHandler:
    """ocr.pages: render and OCR a batch of pages; the last batch to commit enqueues extraction."""

    def __init__(self, options: OcrOptions, pdfs: PdfSource | None = None) -> None:
        self.options = options
        self.pdfs = pdfs

    def warm_up(self) -> None:
        """Before the first claim: the tool sandbox, with the OCR libraries imported."""
        tools.warm_up()

    def options_for(self, job: ClaimedJob) -> OcrOptions:
        """The worker's options with the languages the plan chose for the document (its payload's);
        a job enqueued before plans chose languages carries none and gets the worker's own. A job
        whose document is read in one wave (`look_first` in its payload) looks at each page's
        orientation before reading it."""
        options = replace(self.options, look_first=True) if job.payload.get("look_first") is True else self.options
        languages = job.payload.get("languages")
        if not languages:
            return options
        try:
            return replace(options, languages=str(languages))
        except ValueError as error:
            raise PermanentError(f"bad OCR languages {languages!r} in job payload") from error

    def load_input(self, job: ClaimedJob) -> Path:
        assert self.pdfs is not None, "a compute-only handler has no storage"
        return self.pdfs.local_path(job)

    def compute(self, job: ClaimedJob, pdf: Path, context: JobContext) -> OcrPagesResult:
        # One read_pages call for the batch: one pdfinfo and one pdftotext run per batch, not per page;
        # a cancelled or reclaimed job still stops between pages (context.check raises).
        options = self.options_for(job)
        check_packs_load(options.languages)  # a damaged pack is named, not skipped by tesseract with a warning
        read = read_pages(pdf, batch_pages(job), options, before_each_page=context.check)
        return OcrPagesResult(pages=[PageRecord(**asdict(page)) for page in read])

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
        documents.record_pages(conn, job, batch.pages)


MAX_PAGE_CHARACTERS = 200_000
"""More text than a page can print (a dense A3 page in 6 pt type holds ~40,000 characters)."""


def _check_covers(plan: OcrPlanResult) -> None:
    numbers = sorted([page.number for page in plan.text_pages] + plan.ocr_pages)
    if numbers != list(range(1, plan.page_count + 1)):
        raise ResultRejectedError(f"the plan does not cover pages 1-{plan.page_count} exactly once")


def _check_page_texts(pages: list[PageRecord]) -> None:
    for page in pages:
        if len(page.text) > MAX_PAGE_CHARACTERS:
            raise ResultRejectedError(f"page {page.number} has {len(page.text):,} characters; a page holds at "
                                      f"most {MAX_PAGE_CHARACTERS:,}")


PLAN: Stage[Path, OcrPlanResult] = Stage(
    name=documents.JOB_OCR_PLAN, pool=Pool.OCR, input_kind=InputKind.PDF, result_model=OcrPlanResult,
    build=lambda resources: OcrPlanHandler(
        pdf_limits(resources.settings), resources.settings.ocr_batch_pages, resources.pdfs,
        options=ocr_options(resources.settings), detect=resources.settings.ocr_detect_languages,
        live_within_seconds=resources.settings.worker_dead_after_seconds,
        model_cache=resources.settings.data_dir / "cache" / "models"),
)
PAGES: Stage[Path, OcrPagesResult] = Stage(
    name=documents.JOB_OCR_PAGES, pool=Pool.OCR, input_kind=InputKind.PDF, result_model=OcrPagesResult,
    build=lambda resources: OcrPagesHandler(ocr_options(resources.settings), resources.pdfs),
)
