"""What the handlers of stages and tasks are built from: a machine's settings, and on a local worker
the stored PDFs, the database pool and the object storage.

A stage's handler (tenderflow.handlers.STAGE_HANDLERS) wraps its stage's pure compute, which is built
from the settings alone (tenderflow.stages.compute), with what only a machine inside the service
does: `load_input`, `verify` and `commit`. A task's handler (tenderflow.handlers.task) is built from
the same resources. The stages that read the stored PDF build theirs on `PdfStageHandler`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from psycopg_pool import ConnectionPool
from pydantic import BaseModel

from tenderflow.config import Settings
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import ClaimedJob, JobContext
from tenderflow.stages.contract import StageCompute, warm_up

ResultT = TypeVar("ResultT", bound=BaseModel)


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


class PdfStageHandler(Generic[ResultT]):
    """What the handlers of the stages that read the stored PDF (ocr.plan, ocr.pages, thumbnail)
    share: the stage's compute over a local copy of the job's PDF, and its warm-up. Each adds its
    own `verify` and `commit` (and may narrow `computer` to its compute's class)."""

    def __init__(self, computer: StageCompute[Path, ResultT], pdfs: PdfSource | None = None) -> None:
        self.computer = computer
        self.pdfs = pdfs

    def warm_up(self) -> None:
        warm_up([self.computer])

    def load_input(self, job: ClaimedJob) -> Path:
        assert self.pdfs is not None, "no stored PDFs to read"
        return self.pdfs.local_path(job)

    def compute(self, job: ClaimedJob, pdf: Path, context: JobContext) -> ResultT:
        return self.computer.compute(job, pdf, context)
