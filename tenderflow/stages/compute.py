"""The pure compute of every stage, the stages declared once, and what a compute-only worker derives.

Each compute is built from a machine's `Settings` alone (`from_settings`) and reads nothing but its
input: no database, no storage. Local workers run it inside the stage's handler
(tenderflow.handlers: `load_input`, `verify` and `commit` around it); remote workers run exactly
this, on the input the API sends for the stage's InputKind.

    ocr.plan    OcrPlanCompute    page count and caps, the text layer, the OCR languages
    ocr.pages   OcrPagesCompute   render and OCR a batch of pages
    thumbnail   ThumbnailCompute  a small PNG of page 1
    extract     ExtractCompute    the tender's fields from its pages' text

    STAGES            every stage, in pipeline order
    POOLS             pool name -> the stages its workers run ("all": every stage); what remote
                      workers and worker tokens see
    stage_named       the stage of a job type
    compute_handlers  the compute-only handlers of a pool's stages, from a machine's settings

Adding a stage: its compute and its `Stage` here, one entry in STAGES, its result model
(results.py); its handler in tenderflow.handlers (one entry in STAGE_HANDLERS), the SQL its commit
writes, and whoever enqueues it (a commit step in tenderflow.pipeline). Pools, worker tokens, the
remote endpoints and the remote worker follow.
"""

from __future__ import annotations

import base64
import functools
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from tenderflow.config import Settings
from tenderflow.errors import PermanentError
from tenderflow.extraction import ExtractionBackend, extract_fields
from tenderflow.extraction.country import prepare
from tenderflow.pdf import languages, tools
from tenderflow.pdf.languages import LanguageChoice, detect_languages, fixed_choice
from tenderflow.pdf.ocr import OcrOptions, read_pages
from tenderflow.pdf.packs import check_packs_load
from tenderflow.pdf.probe import PdfLimits, probe_pdf
from tenderflow.pdf.textlayer import extract_text_layer, text_layer_is_usable, tidy_text_layer
from tenderflow.pdf.thumbnail import render_thumbnail
from tenderflow.pdf.tools import ToolTimeoutError
from tenderflow.queue.jobs import ClaimedJob
from tenderflow.queue.registry import JobContext
from tenderflow.stages.contract import (
    JOB_EXTRACT,
    JOB_OCR_PAGES,
    JOB_OCR_PLAN,
    JOB_THUMBNAIL,
    ComputeHandler,
    InputKind,
    PageInput,
    Pool,
    Stage,
)
from tenderflow.stages.results import (
    ExtractResult,
    LanguagesRecord,
    OcrPagesResult,
    OcrPlanResult,
    PageRecord,
    ThumbnailResult,
)


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


class OcrPlanCompute:
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
        self, limits: PdfLimits, *, options: OcrOptions | None = None, detect: bool = True,
        model_cache: Path | None = None,
    ) -> None:
        self.limits = limits
        self.options = options or OcrOptions(
            dpi=limits.dpi, timeout_seconds=limits.timeout_seconds, memory_bytes=limits.memory_bytes,
            max_page_pixels=limits.max_page_pixels,
        )
        self.detect = detect
        self.model_cache = model_cache

    @classmethod
    def from_settings(cls, settings: Settings) -> OcrPlanCompute:
        return cls(pdf_limits(settings), options=ocr_options(settings), detect=settings.ocr_detect_languages,
                   model_cache=settings.model_cache_dir)

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


class OcrPagesCompute:
    """ocr.pages: render and OCR a batch of pages."""

    def __init__(self, options: OcrOptions) -> None:
        self.options = options

    @classmethod
    def from_settings(cls, settings: Settings) -> OcrPagesCompute:
        return cls(ocr_options(settings))

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

    def compute(self, job: ClaimedJob, pdf: Path, context: JobContext) -> OcrPagesResult:
        # One read_pages call for the batch: one pdfinfo and one pdftotext run per batch, not per page;
        # a cancelled or reclaimed job still stops between pages (context.check raises).
        options = self.options_for(job)
        check_packs_load(options.languages)  # a damaged pack is named, not skipped by tesseract with a warning
        read = read_pages(pdf, batch_pages(job), options, before_each_page=context.check)
        return OcrPagesResult(pages=[PageRecord(**asdict(page)) for page in read])


class ThumbnailCompute:
    """thumbnail: a small picture of a version's first page, for the dashboard and the API."""

    def __init__(self, limits: PdfLimits) -> None:
        self.limits = limits

    @classmethod
    def from_settings(cls, settings: Settings) -> ThumbnailCompute:
        return cls(pdf_limits(settings))

    def compute(self, job: ClaimedJob, pdf: Path, context: JobContext) -> ThumbnailResult:
        picture = render_thumbnail(pdf, page=1, timeout_seconds=self.limits.timeout_seconds,
                                   memory_bytes=self.limits.memory_bytes)
        return ThumbnailResult(page=picture.page, png_base64=base64.b64encode(picture.png).decode(),
                               width=picture.width, height=picture.height)


_WARM_UP_PAGE = ("Invitation for bids. Reference: AB-2026/001. Closing date: 15 March 2026 at 12:00.\n"
                 "Estimated value: EUR 1 000 000. Contact: procurement@example.org, +44 20 7946 0000.")


class ExtractCompute:
    """extract: the configured backend (the offline rules, an OpenAI-compatible LLM, or both) over
    the pages' text, validated, with the buyer placed in a country (tenderflow.extraction)."""

    def __init__(self, backend: ExtractionBackend | Callable[[], ExtractionBackend],
                 model_cache: Path | None = None) -> None:
        """`backend`, or how to build it at the first extraction: an LLM backend's client takes ~0.5 s
        of CPU to import, a third of a worker's start, which a worker need not pay before it claims
        (the chaos run's restarted workers were killed before they ever got ready). `model_cache`:
        where the language identifier's decoded model is kept (as for OCR's detection)."""
        self.model_cache = model_cache
        self._backend = None if callable(backend) else backend
        self._build = backend if callable(backend) else None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> ExtractCompute:
        from tenderflow.extraction import build_backend

        if settings.uses_llm:
            return cls(functools.partial(build_backend, settings), settings.model_cache_dir)
        return cls(build_backend(settings), settings.model_cache_dir)

    @property
    def backend(self) -> ExtractionBackend:
        if self._backend is None:
            with self._lock:
                if self._backend is None:
                    assert self._build is not None
                    self._backend = self._build()
        return self._backend

    def warm_up(self) -> None:
        """Before the first claim: one extraction of a small page, so the backend's lazily built
        tables (month names, compiled patterns) are ready before the first document."""
        # an LLM backend (built at its first use) has nothing to prepare, and a call would cost
        if self._backend is not None and self._backend.name == "rules":
            extract_fields([PageInput(1, _WARM_UP_PAGE)], self._backend)
        prepare(self.model_cache)  # the country's tables (place names, the language model), once

    def compute(self, job: ClaimedJob, pages: list[PageInput], context: JobContext) -> ExtractResult:
        result = extract_fields(pages, self.backend, interrupt=context)
        return ExtractResult(fields=result.fields.model_dump(mode="json"), flags=result.flags,
                             backend=result.backend, model=result.model, prompt_tokens=result.prompt_tokens,
                             completion_tokens=result.completion_tokens, confidence=result.confidence,
                             rules=result.rules, country=result.country,
                             candidates={path: candidate.model_dump(mode="json")
                                         for path, candidate in result.candidates.items()},
                             found_by=result.found_by)


PLAN: Stage[Path, OcrPlanResult] = Stage(
    name=JOB_OCR_PLAN, pool=Pool.OCR, input_kind=InputKind.PDF, result_model=OcrPlanResult,
    build_compute=OcrPlanCompute.from_settings,
)
PAGES: Stage[Path, OcrPagesResult] = Stage(
    name=JOB_OCR_PAGES, pool=Pool.OCR, input_kind=InputKind.PDF, result_model=OcrPagesResult,
    build_compute=OcrPagesCompute.from_settings,
)
THUMBNAIL: Stage[Path, ThumbnailResult] = Stage(
    name=JOB_THUMBNAIL, pool=Pool.OCR, input_kind=InputKind.PDF, result_model=ThumbnailResult,
    build_compute=ThumbnailCompute.from_settings, fails_version=False,
)
EXTRACT: Stage[list[PageInput], ExtractResult] = Stage(
    name=JOB_EXTRACT, pool=Pool.EXTRACT, input_kind=InputKind.PAGES, result_model=ExtractResult,
    build_compute=ExtractCompute.from_settings,
)

STAGES: tuple[Stage[Any, Any], ...] = (PLAN, PAGES, THUMBNAIL, EXTRACT)

POOLS: Mapping[str, tuple[str, ...]] = {
    pool.value: tuple(stage.name for stage in STAGES if pool is Pool.ALL or stage.pool is pool) for pool in Pool
}

_BY_NAME: Mapping[str, Stage[Any, Any]] = {stage.name: stage for stage in STAGES}


def stage_named(name: str) -> Stage[Any, Any]:
    """The stage of job type `name`; raises LookupError for a job type that is no stage."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise LookupError(f"job type {name!r} is not a stage of the pipeline") from None


def compute_handlers(settings: Settings, job_types: Iterable[str]) -> dict[str, ComputeHandler[Any, Any]]:
    """Compute-only handlers (no storage, no database) for `job_types`, each built only if asked
    for (an OCR-only machine need not configure an LLM). Raises LookupError for a name that is no stage."""
    return {name: stage_named(name).compute_handler(settings) for name in job_types}
