"""Compute-only handlers for a remote worker, built from its Settings.

The same handler classes as the server's (tenderflow.handlers), without a cache over storage and
without a database pool: a remote worker only calls `compute(job, input, context)` and hands the
result to the server, which validates it with the handler's `result_model` and runs `commit`.
OCR limits, timeouts, language detection and fallback languages, and the extraction backend (LLM
endpoint or offline rules), come from the remote machine's own settings; the languages a document's
pages are read with come from its ocr.plan (carried in each ocr.pages job's payload).
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

from tenderflow.config import Settings
from tenderflow.pipeline import documents
from tenderflow.queue import ClaimedJob, JobContext


class ComputeHandler(Protocol):
    @property
    def input_kind(self) -> str: ...

    @property
    def result_model(self) -> type[BaseModel]: ...

    def compute(self, job: ClaimedJob, input: Any, context: JobContext) -> dict[str, Any]: ...


def compute_handlers(settings: Settings, job_types: tuple[str, ...]) -> dict[str, ComputeHandler]:
    """Handlers for `job_types` (a pool's), each built only if asked for (an OCR-only machine need
    not configure an LLM)."""
    handlers: dict[str, ComputeHandler] = {}
    if documents.JOB_OCR_PLAN in job_types or documents.JOB_OCR_PAGES in job_types:
        from tenderflow.handlers.ocr import OcrPagesHandler, OcrPlanHandler, ocr_options, pdf_limits

        # batch_pages only shapes the server's commit step (how the document is split); unused here.
        handlers[documents.JOB_OCR_PLAN] = OcrPlanHandler(pdf_limits(settings), settings.ocr_batch_pages,
                                                          options=ocr_options(settings),
                                                          detect=settings.ocr_detect_languages)
        handlers[documents.JOB_OCR_PAGES] = OcrPagesHandler(ocr_options(settings))
    if documents.JOB_EXTRACT in job_types:
        from tenderflow.extraction import build_backend
        from tenderflow.handlers.extract import ExtractHandler

        handlers[documents.JOB_EXTRACT] = ExtractHandler(build_backend(settings))
    return {name: handler for name, handler in handlers.items() if name in job_types}
