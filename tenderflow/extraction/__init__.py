"""Tender fields from a document's pages: choose a backend, run it, validate what it found.

    fields, flags  =  validate_fields( backend.extract(pages) )

`build_backend(settings)` builds the backend `settings.extraction_backend` names: the offline rules
("rules"), the OpenAI-compatible LLM alone ("openai"), or both ("hybrid": the rules first, the LLM
for what they left open; the default when an LLM is configured). `extract_fields(pages, backend)`
runs one, validates its answer against the page text, and places the buyer in a country and a time
zone (`country.locate`, for any backend). Pure compute: no database, safe to run in a remote worker.
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
from tenderflow.extraction.schema import (
    BuyerCountry,
    ExtractionResult,
    FoundBy,
    TenderFields,
    filled_paths,
    strict_json_schema,
)
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
    """The backend `settings.extraction_backend` names: "openai" (any compatible endpoint), "hybrid"
    (the offline rules and that endpoint) or "rules". Each is imported only when it is built: the
    LLM client and the offline extractor's tables take seconds to import, which a process that never
    extracts (the CLI, an OCR worker) need not pay."""
    if settings.extraction_backend == "rules":
        from tenderflow.extraction.offline import OfflineBackend

        return OfflineBackend()
    from tenderflow.extraction.negotiation import OutputModes
    from tenderflow.extraction.openai_backend import OpenAIBackend

    llm = OpenAIBackend(
        model=settings.llm_model,
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key,
        timeout_seconds=settings.llm_timeout_seconds,
        max_retries=settings.llm_max_retries,
        chunk_chars=settings.llm_chunk_chars,
        max_output_tokens=settings.llm_max_output_tokens,
        output_modes=OutputModes(settings.data_dir / OUTPUT_MODES_FILE),
    )
    if settings.extraction_backend == "openai":
        return llm
    from tenderflow.extraction.hybrid import HybridBackend
    from tenderflow.extraction.offline import OfflineBackend

    return HybridBackend(OfflineBackend(), llm, excerpt_chars=settings.llm_excerpt_chars)


OUTPUT_MODES_FILE = "llm-output-modes.json"
"""Under the data directory: which structured output each LLM endpoint accepted (negotiation.py),
so a worker started later does not ask again in a format the server refuses."""


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
    usage = reading.usage
    kind: FoundBy = "offline" if backend.name == "rules" else "llm"
    return ExtractionResult(
        country=country,
        fields=validated,
        backend=backend.name,
        model=usage.model,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        # a note a hybrid backend already made (its LLM answer's own validation) is not said twice
        flags=list(dict.fromkeys([*usage.notes, *flags])),
        confidence={path: round(value, 3) for path, value in reading.confidence.items() if path in kept},
        rules={path: rule for path, rule in reading.rules.items() if path in kept},
        candidates=dict(reading.candidates),
        found_by={path: "offline" if path == "buyer.country" and country is not None and country.inferred
                  else usage.found_by.get(path, kind) for path in filled_paths(validated)},
    )


def returned_paths(fields: TenderFields) -> Iterator[str]:
    """The paths of the fields that hold a value ("buyer.name", "cpv_codes")."""
    yield from filled_paths(fields)
