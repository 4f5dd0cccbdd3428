"""What the handlers of stages and tasks are built from: a machine's settings, and on a local worker
the stored PDFs, the database pool and the object storage.

A stage's handler (tenderflow.handlers.STAGE_HANDLERS) wraps its stage's pure compute, which is built
from the settings alone (tenderflow.stages.compute), with what only a machine inside the service
does: `load_input`, `verify` and `commit`. A task's handler (tenderflow.handlers.task) is built from
the same resources.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import ClaimedJob


class PdfSource(Protocol):
    """Local copies of the PDFs of jobs (tenderflow.handlers.ocr.StoredPdfs)."""

    def local_path(self, job: ClaimedJob) -> Path: ...


@dataclass(frozen=True)
class Resources:
    """What a handler is built from."""

    settings: Settings
    pdfs: PdfSource | None = None
    pool: ConnectionPool | None = None
    storage: ObjectStorage | None = None  # for tasks that store objects themselves (a watch's uploads)
