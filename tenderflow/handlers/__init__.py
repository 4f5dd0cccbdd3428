"""One module per job type of the product (ocr, extract): a pure `run` step and a `commit` step.

`build_job_types` is the product's registry. Without a pool and storage it registers the types
without handlers: enough to enqueue (type checking) and to run end-of-job hooks (CLI, API).
"""

from __future__ import annotations

from pathlib import Path

from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.pipeline import documents
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import JobTypes


def build_job_types(
    settings: Settings, *, pool: ConnectionPool | None = None, storage: ObjectStorage | None = None,
    cache_dir: Path | None = None,
) -> JobTypes:
    """The product's job types with their handlers (when pool and storage are given) and hooks."""
    job_types = JobTypes()
    job_types.on_job_ended(documents.fail_versions_of_ended_jobs)
    if pool is None or storage is None:
        for name in documents.PIPELINE_JOB_TYPES:
            job_types.register(name)
        return job_types

    from tenderflow.extraction import build_backend
    from tenderflow.handlers.extract import ExtractHandler
    from tenderflow.handlers.ocr import OcrPagesHandler, OcrPlanHandler, PdfCache
    from tenderflow.pdf.ocr import OcrOptions
    from tenderflow.pdf.probe import PdfLimits

    cache = PdfCache(storage, cache_dir or settings.data_dir / "cache" / "pdf")
    limits = PdfLimits(
        max_pages=settings.max_pages, max_page_pixels=settings.max_page_pixels, dpi=settings.ocr_dpi,
        timeout_seconds=settings.tool_timeout_seconds, memory_bytes=settings.tool_memory_bytes,
    )
    options = OcrOptions(
        dpi=settings.ocr_dpi, languages=settings.ocr_languages, timeout_seconds=settings.tool_timeout_seconds,
        memory_bytes=settings.tool_memory_bytes, max_page_pixels=settings.max_page_pixels,
    )
    job_types.register(documents.JOB_OCR_PLAN, OcrPlanHandler(limits, settings.ocr_batch_pages, cache))
    job_types.register(documents.JOB_OCR_PAGES, OcrPagesHandler(options, cache))
    job_types.register(documents.JOB_EXTRACT, ExtractHandler(build_backend(settings), pool))
    return job_types
