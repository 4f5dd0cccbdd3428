"""The `thumbnail` stage's local handler: a small picture of a version's first page, for the
dashboard and the API.

It was added through `STAGES` alone, as the stage contract promises (see docs/architecture.md):
its compute and declaration (tenderflow.stages.compute), one entry in `STAGES`, this handler and
its entry in `STAGE_HANDLERS`, the commit's SQL and table (`pipeline.commits.record_thumbnail`,
migration 0010), and the ocr.plan commit enqueueing it. Remote workers of the `ocr` pool run it with
no further code. Its failure does not fail the version (`fails_version=False`): the fields are read
without it.
"""

from __future__ import annotations

from typing import Any

import psycopg

from tenderflow.errors import ResultRejectedError
from tenderflow.handlers.resources import PdfStageHandler, Resources
from tenderflow.pipeline import commits
from tenderflow.queue import ClaimedJob
from tenderflow.stages.compute import ThumbnailCompute
from tenderflow.stages.results import ThumbnailResult


class ThumbnailHandler(PdfStageHandler[ThumbnailResult]):
    """thumbnail: its compute (ThumbnailCompute) over the stored PDF; the commit that stores it."""

    def verify(self, job: ClaimedJob, result: ThumbnailResult) -> None:
        """A remote thumbnail: its model already checks that the bytes are the PNG of the size it
        says, within the size caps; it shows page 1."""
        if result.page != 1:
            raise ResultRejectedError(f"a thumbnail shows page 1, not page {result.page}")

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: ThumbnailResult) -> None:
        commits.record_thumbnail(conn, job, page=result.page, png=result.png, width=result.width,
                                   height=result.height)


def build_thumbnail_handler(resources: Resources) -> ThumbnailHandler:
    return ThumbnailHandler(ThumbnailCompute.from_settings(resources.settings), resources.pdfs)
