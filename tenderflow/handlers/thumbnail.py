"""The `thumbnail` stage: a small picture of a version's first page, for the dashboard and the API.

It was added through `STAGES` alone, as the stage contract promises (see docs/architecture.md):
this module (handler + declaration), one entry in `STAGES`, the commit's SQL and table
(`pipeline.documents.record_thumbnail`, migration 0010), and the ocr.plan commit enqueueing it.
Remote workers of the `ocr` pool run it with no further code. Its failure does not fail the
version (`fails_version=False`): the fields are read without it.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import psycopg

from tenderflow.errors import ResultRejectedError
from tenderflow.handlers.ocr import pdf_limits
from tenderflow.handlers.stage import InputKind, PdfSource, Pool, Resources, Stage
from tenderflow.pdf.probe import PdfLimits
from tenderflow.pdf.thumbnail import render_thumbnail
from tenderflow.pipeline import documents
from tenderflow.queue import ClaimedJob, JobContext
from tenderflow.stages.results import ThumbnailResult


class ThumbnailHandler:
    def __init__(self, limits: PdfLimits, pdfs: PdfSource | None = None) -> None:
        self.limits = limits
        self.pdfs = pdfs

    def load_input(self, job: ClaimedJob) -> Path:
        assert self.pdfs is not None, "a compute-only handler has no storage"
        return self.pdfs.local_path(job)

    def compute(self, job: ClaimedJob, pdf: Path, context: JobContext) -> ThumbnailResult:
        picture = render_thumbnail(pdf, page=1, timeout_seconds=self.limits.timeout_seconds,
                                   memory_bytes=self.limits.memory_bytes)
        return ThumbnailResult(page=picture.page, png_base64=base64.b64encode(picture.png).decode(),
                               width=picture.width, height=picture.height)

    def verify(self, job: ClaimedJob, result: ThumbnailResult) -> None:
        """A remote thumbnail: its model already checks that the bytes are the PNG of the size it
        says, within the size caps; it shows page 1."""
        if result.page != 1:
            raise ResultRejectedError(f"a thumbnail shows page 1, not page {result.page}")

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: ThumbnailResult) -> None:
        documents.record_thumbnail(conn, job, page=result.page, png=result.png, width=result.width,
                                   height=result.height)


def _build(resources: Resources) -> ThumbnailHandler:
    return ThumbnailHandler(pdf_limits(resources.settings), resources.pdfs)


THUMBNAIL: Stage[Path, ThumbnailResult] = Stage(
    name=documents.JOB_THUMBNAIL, pool=Pool.OCR, input_kind=InputKind.PDF, result_model=ThumbnailResult,
    build=_build, fails_version=False,
)
