"""Tender fields from a document's pages: choose a backend, run it, validate what it found.

    fields, flags  =  validate_fields( backend.extract(pages) )

`build_backend(settings)` picks the OpenAI-compatible LLM backend when an endpoint or key is
configured, else the offline rules; `extract_fields(pages, backend)` runs one and validates its
answer against the page text, and places the buyer in a country and a time zone (`country.locate`,
for any backend). Pure compute: no database, safe to run in a remote worker.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from tenderflow.extraction.backend import (
    BackendReading,
    ExtractionBackend,
    ExtractionRefusedError,
    ExtractionRequestError,
    ExtractionSchemaError,
    ExtractionTruncatedError,
    ExtractionUnavailableError,
    Interrupt,
    Page,
    PageLike,
    ReadingBackend,
    Usage,
)
from tenderflow.extraction.country import locate, with_country
from tenderflow.extraction.schema import BuyerCountry, ExtractionResult, TenderFields, strict_json_schema
from tenderflow.extraction.validation import validate_fields

if TYPE_CHECKING:
    from tenderflow.config import Settings

__all__ = [
    "BuyerCountry",
    "ExtractionBackend",
    "ExtractionRefusedError",
    "ExtractionRequestError",
    "ExtractionResult",
    "ExtractionSchemaError",
    "ExtractionTruncatedError",
    "ExtractionUnavailableError",
    "Interrupt",
    "Page",
    "PageLike",
    "TenderFields",
    "Usage",
    "build_backend",
    "extract_fields",
    "returned_paths",
    "strict_json_schema",
    "validate_fields",
]


def build_backend(settings: Settings) -> ExtractionBackend:
    """The backend `settings.extraction_backend` names: "openai" (any compatible endpoint) or "rules".
    Each is imported only when it is built: the LLM client and the offline extractor's tables take
    seconds to import, which a process that never extracts (the CLI, an OCR worker) need not pay."""
    if settings.extraction_backend == "openai":
        from tenderflow.extraction.openai_backend import OpenAIBackend

        return OpenAIBackend(
            model=settings.llm_model,
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key,
            timeout_seconds=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
            chunk_chars=settings.llm_chunk_chars,
        )
    from tenderflow.extraction.offline import OfflineBackend

    return OfflineBackend()


def extract_fields(
    pages: Sequence[PageLike], backend: ExtractionBackend, *, interrupt: Interrupt | None = None
) -> ExtractionResult:
    """Fields read by `backend` from `pages`, with every value that fails validation dropped and flagged.

    Raises what the backend raises (ExtractionError subclasses that are also Retryable- or
    PermanentError, see backend.py), and LeaseLostError when `interrupt` calls the work off.
    """
    if isinstance(backend, ReadingBackend):
        reading = backend.read(pages, interrupt=interrupt)
    else:
        reading = BackendReading(*backend.extract(pages, interrupt=interrupt))
    validated, flags = validate_fields(reading.fields, pages)
    # The buyer's country (the backend's, else inferred from the document), for any backend: its
    # time zone places the deadlines; an inferred one is filled in, sourced, and validated again.
    country = locate(pages, validated)
    if country is not None and country.inferred:
        validated, more = validate_fields(with_country(validated, country), pages)
        flags += more
    kept = set(returned_paths(validated))
    return ExtractionResult(
        country=country,
        fields=validated,
        backend=backend.name,
        model=reading.usage.model,
        prompt_tokens=reading.usage.prompt_tokens,
        completion_tokens=reading.usage.completion_tokens,
        flags=flags,
        confidence={path: round(value, 3) for path, value in reading.confidence.items() if path in kept},
        rules={path: rule for path, rule in reading.rules.items() if path in kept},
        candidates=dict(reading.candidates),
    )


def returned_paths(fields: TenderFields) -> Iterator[str]:
    """The paths of the fields that hold a value ("buyer.name", "cpv_codes")."""
    for name, value in fields:
        if name == "buyer":
            yield from (f"buyer.{part}" for part, sub in value if sub is not None)
        elif value:
            yield name
