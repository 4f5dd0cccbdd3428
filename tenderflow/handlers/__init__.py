"""One module per job type of the product (ocr, extract): a pure `run` step and a `commit` step.

`build_job_types` is the product's registry. Without a pool and storage it registers the types
without handlers: enough to enqueue (type checking) and to run end-of-job hooks (CLI, API).
"""

from __future__ import annotations

from collections.abc import Iterable
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
    from tenderflow.handlers.ocr import (
        OcrPagesHandler,
        OcrPlanHandler,
        PdfCache,
        StoredPdfs,
        ocr_options,
        pdf_limits,
    )

    pdfs = StoredPdfs(storage, PdfCache(cache_dir or settings.data_dir / "cache" / "pdf"))
    job_types.register(documents.JOB_OCR_PLAN, OcrPlanHandler(
        pdf_limits(settings), settings.ocr_batch_pages, pdfs, options=ocr_options(settings),
        detect=settings.ocr_detect_languages))
    job_types.register(documents.JOB_OCR_PAGES, OcrPagesHandler(ocr_options(settings), pdfs))
    job_types.register(documents.JOB_EXTRACT, ExtractHandler(build_backend(settings), pool))
    return job_types


def warm_up(handlers: Iterable[object]) -> None:
    """Let each handler that can prepare itself (`warm_up()`: load a model, build lazy tables) do it
    now, before its worker claims a job, so the first document pays nothing extra."""
    for handler in handlers:
        prepare = getattr(handler, "warm_up", None)
        if callable(prepare):
            prepare()
