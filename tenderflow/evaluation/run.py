"""Running documents through the pipeline's own reading and extraction, and scoring them.

Each PDF is read exactly as an upload is: probed against the caps (poppler), every page's text layer
read in one pdftotext run and kept where it is usable, the other pages rendered and OCRed by
tesseract (`tenderflow.pdf`), then the configured backend runs and `validate_fields` drops what is
not grounded (`tenderflow.extraction.extract_fields`). Only the database and the queue are left
out, so what is measured is what users get.

Page texts can be kept between runs (`PageCache`, keyed by the PDF's SHA-256 and the OCR options):
OCR dominates the time, and trying another backend or a rule change needs the same pages again.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tenderflow.config import Settings
from tenderflow.evaluation.keys import KeyDocument
from tenderflow.evaluation.scoring import Comparison, Returned, Tally, compare
from tenderflow.extraction import ExtractionBackend, Page, extract_fields
from tenderflow.extraction.schema import ExtractionResult, Sourced, TenderFields
from tenderflow.extraction.validation import normalize_for_matching
from tenderflow.ids import sha256_of
from tenderflow.pdf.languages import detect_languages
from tenderflow.pdf.ocr import OcrOptions, read_pages
from tenderflow.pdf.probe import PdfLimits, probe_pdf
from tenderflow.pdf.textlayer import extract_text_layer, text_layer_is_usable, tidy_text_layer

_CACHE_FORMAT = 5  # 3: CJK and Vietnamese text layers kept; 4: no bidi marks; 5: OCR told the render dpi


@dataclass(frozen=True)
class ReadPage:
    number: int
    text: str
    source: str


@dataclass
class DocumentScore:
    name: str
    pages: list[ReadPage]
    language: str | None
    ocr_languages: str
    comparisons: list[Comparison]
    flags: list[str]
    read_seconds: float
    extract_seconds: float
    extract_cpu_seconds: float
    error: str | None = None
    tally: Tally = field(default_factory=Tally)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    rules: dict[str, str] = field(default_factory=dict)
    """Field → the extractor's rule that found its returned value (backends that name them)."""
    found_by: dict[str, str] = field(default_factory=dict)

    @property
    def ocr_pages(self) -> int:
        return sum(page.source == "ocr" for page in self.pages)


class PageCache:
    """Page texts of PDFs already read, one JSON file per (PDF content, OCR options)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, pdf: Path, options: OcrOptions, detect: bool) -> Path:
        digest = sha256_of(pdf)
        settings = f"{_CACHE_FORMAT}|{'detect' if detect else 'fixed'}|{options.languages}|{options.dpi}"
        return self.directory / f"{digest}-{hashlib.sha256(settings.encode()).hexdigest()[:12]}.json"

    def get(self, pdf: Path, options: OcrOptions, detect: bool) -> ReadDocument | None:
        path = self._path(pdf, options, detect)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            pages = [ReadPage(int(page["number"]), str(page["text"]), str(page["source"])) for page in raw["pages"]]
            return ReadDocument(pages, raw["language"], str(raw["ocr_languages"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, pdf: Path, options: OcrOptions, detect: bool, read: ReadDocument) -> None:
        path = self._path(pdf, options, detect)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        raw = {"pages": [page.__dict__ for page in read.pages], "language": read.language,
               "ocr_languages": read.ocr_languages}
        temporary.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
        temporary.replace(path)


@dataclass(frozen=True)
class ReadDocument:
    pages: list[ReadPage]
    language: str | None
    ocr_languages: str


def read_document(pdf: Path, limits: PdfLimits, options: OcrOptions, *, detect: bool = True) -> ReadDocument:
    """Every page of `pdf` as an upload without asked-for languages reads it (see the module
    docstring), with the OCR languages the plan would choose: detected from the text layer or a
    first pass when `detect`, else `options.languages`. Raises what the OCR jobs raise for a PDF
    that cannot be read (PermanentError with a reason)."""
    info = probe_pdf(pdf, limits)
    layers = extract_text_layer(pdf, 1, info.page_count, timeout_seconds=limits.timeout_seconds,
                                memory_bytes=limits.memory_bytes)
    pages: dict[int, ReadPage] = {}
    for number, text in enumerate(layers, start=1):
        if text_layer_is_usable(text):
            pages[number] = ReadPage(number, tidy_text_layer(text), "text_layer")
    scanned = [number for number in range(1, info.page_count + 1) if number not in pages]
    language, languages = None, options.languages
    if detect:
        choice = detect_languages(pdf, {page.number: layers[page.number - 1] for page in pages.values()}, scanned,
                                  options, fallback=options.languages)
        language, languages = choice.language, choice.languages
    for page in read_pages(pdf, scanned, replace(options, languages=languages)) if scanned else []:
        pages[page.number] = ReadPage(page.number, page.text, page.source)
    return ReadDocument([pages[number] for number in sorted(pages)], language, languages)


def returned_values(fields: TenderFields, pages: Sequence[ReadPage]) -> dict[str, Returned | None]:
    """The scored fields of `fields` as plain values with provenance and whether the quote is on
    its page (whitespace- and Unicode-normalised)."""
    texts = {page.number: normalize_for_matching(page.text) for page in pages}

    def one(sourced: Sourced[Any] | None) -> Returned | None:
        if sourced is None:
            return None
        value = sourced.value.model_dump() if hasattr(sourced.value, "model_dump") else sourced.value
        quote = normalize_for_matching(sourced.quote)
        grounded = bool(quote) and quote in texts.get(sourced.page, "")
        return Returned(value=value, page=sourced.page, quote=sourced.quote, grounded=grounded)

    cpv: Returned | None = None
    if fields.cpv_codes:
        first = one(fields.cpv_codes[0])
        assert first is not None
        every_grounded = all(item is not None and item.grounded for item in map(one, fields.cpv_codes))
        cpv = Returned([code.value for code in fields.cpv_codes], first.page, first.quote, every_grounded)
    return {
        "buyer.name": one(fields.buyer.name),
        "buyer.email": one(fields.buyer.email),
        "buyer.phone": one(fields.buyer.phone),
        "buyer.address": one(fields.buyer.address),
        "title": one(fields.title),
        "reference_number": one(fields.reference_number),
        "notice_type": one(fields.notice_type),
        "procedure_type": one(fields.procedure_type),
        "main_category": one(fields.main_category),
        "cpv_codes": cpv,
        "estimated_value": one(fields.estimated_value),
        "submission_deadline": one(fields.submission_deadline),
        "questions_deadline": one(fields.questions_deadline),
        "place_of_performance": one(fields.place_of_performance),
        "contract_duration": one(fields.contract_duration),
        "submission_url": one(fields.submission_url),
    }


def ocr_options(settings: Settings) -> OcrOptions:
    return OcrOptions(dpi=settings.ocr_dpi, languages=settings.ocr_languages,
                      timeout_seconds=settings.tool_timeout_seconds, memory_bytes=settings.tool_memory_bytes,
                      max_page_pixels=settings.max_page_pixels)


def pdf_limits(settings: Settings) -> PdfLimits:
    return PdfLimits(max_pages=settings.max_pages, max_page_pixels=settings.max_page_pixels, dpi=settings.ocr_dpi,
                     timeout_seconds=settings.tool_timeout_seconds, memory_bytes=settings.tool_memory_bytes)


def score_document(
    document: KeyDocument,
    backend: ExtractionBackend,
    settings: Settings,
    *,
    cache: PageCache | None,
    fields: Sequence[str] | None = None,
) -> DocumentScore:
    """Read, extract and score one document of the key. A PDF that cannot be read or a backend
    that fails scores as nothing returned (every required value missed), with the reason kept."""
    options, limits = ocr_options(settings), pdf_limits(settings)
    detect = settings.ocr_detect_languages
    started = time.monotonic()
    error: str | None = None
    read = cache.get(document.pdf, options, detect) if cache is not None else None
    if read is None:
        try:
            read = read_document(document.pdf, limits, options, detect=detect)
        except Exception as exc:  # noqa: BLE001 - a document that fails is scored, not fatal
            read, error = ReadDocument([], None, options.languages), f"reading failed: {exc}"
        else:
            if cache is not None:
                cache.put(document.pdf, options, detect, read)
    pages = read.pages
    read_seconds = time.monotonic() - started

    started, cpu_started = time.monotonic(), time.process_time()
    result: ExtractionResult | None = None
    if error is None:
        try:
            result = extract_fields([Page(page.number, page.text) for page in pages], backend)
        except Exception as exc:  # noqa: BLE001 - same: scored as nothing returned, reason kept
            error = f"extraction failed: {exc}"
    extract_seconds, cpu_seconds = time.monotonic() - started, time.process_time() - cpu_started

    returned = returned_values(result.fields, pages) if result is not None else {}
    wanted = [name for name in document.fields if fields is None or name in fields]
    comparisons = [compare(name, document.fields[name], returned.get(name)) for name in wanted]
    return DocumentScore(
        name=document.name, pages=pages, language=read.language, ocr_languages=read.ocr_languages,
        comparisons=comparisons, flags=result.flags if result else [],
        read_seconds=read_seconds, extract_seconds=extract_seconds, extract_cpu_seconds=cpu_seconds,
        error=error, tally=Tally.of(comparisons),
        prompt_tokens=result.prompt_tokens if result else 0,
        completion_tokens=result.completion_tokens if result else 0,
        rules=dict(result.rules) if result else {},
        found_by=dict(result.found_by) if result else {},
    )


def score_documents(
    documents: Sequence[KeyDocument],
    backend: ExtractionBackend,
    settings: Settings,
    *,
    cache: PageCache | None,
    fields: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[DocumentScore]:
    scores = []
    for document in documents:
        if progress is not None:
            progress(document.name)
        scores.append(score_document(document, backend, settings, cache=cache, fields=fields))
    return scores
