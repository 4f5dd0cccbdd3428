"""The stage contract: one typed declaration per step of the pipeline, from which everything derives.

A stage is a job type with three steps and a description of itself:

    load_input(job) -> Input                 what it reads: a local copy of the stored PDF, or the
                                             version's pages from the database (see InputKind)
    compute(job, input, context) -> Result   pure: no database, no storage; remote workers run
                                             exactly this; returns an instance of `result_model`
    commit(conn, job, result) -> None        writes through tenderflow.pipeline inside the queue's
                                             completion transaction (idempotent, unique keys)

`Stage` names the job type, the pool that runs it, the input kind (how a remote worker fetches the
same input over HTTP), the result model (what a remote worker's JSON must parse into before
`commit` sees it) and a `build(resources)` that makes the handler from settings: with stored PDFs
and a database pool for local workers, with neither for remote (compute-only) workers.

`tenderflow.handlers.STAGES` lists every stage; the local registry (`build_job_types`), the remote
compute set (`compute_handlers`), the pools (`POOLS`), the worker-token pools and the API's remote
endpoints all derive from it. Results stay models on the way from `compute` to `commit`; JSON
happens only on the HTTP wire (`Stage.parse` on the server, `model_dump` in the remote client).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import psycopg
from psycopg_pool import ConnectionPool
from pydantic import BaseModel

from tenderflow import tracing
from tenderflow.config import Settings
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import ClaimedJob, JobContext

InputT = TypeVar("InputT")
ResultT = TypeVar("ResultT", bound=BaseModel)


class Pool(enum.StrEnum):
    """The worker pools: which stages a worker started with `--pool` runs (see POOLS)."""

    OCR = "ocr"
    EXTRACT = "extract"
    ALL = "all"


class InputKind(enum.StrEnum):
    """What a stage reads, so that a remote worker can fetch the same over HTTP."""

    PDF = "pdf"  # the stored PDF (a local path to a cached copy)
    PAGES = "pages"  # the version's page texts


class PdfSource(Protocol):
    """Local copies of the PDFs of jobs (tenderflow.handlers.ocr.StoredPdfs)."""

    def local_path(self, job: ClaimedJob) -> Path: ...


@dataclass(frozen=True)
class Resources:
    """What a stage's handler is built from. A remote (compute-only) worker has settings alone."""

    settings: Settings
    pdfs: PdfSource | None = None
    pool: ConnectionPool | None = None
    storage: ObjectStorage | None = None  # for tasks that store objects themselves (a watch's uploads)


class StageHandler(Protocol[InputT, ResultT]):
    def load_input(self, job: ClaimedJob) -> InputT: ...

    def compute(self, job: ClaimedJob, input: InputT, context: JobContext) -> ResultT: ...

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: ResultT) -> None: ...

    def verify(self, job: ClaimedJob, result: ResultT) -> None:
        """Check a result computed elsewhere (a remote worker's) against what this server knows, as
        its own compute would have produced it; raises ResultRejectedError. Runs on the server,
        outside any transaction, before `commit`."""


@dataclass(frozen=True)
class Stage(Generic[InputT, ResultT]):
    """One step of the pipeline, declared once (one instance per stage module)."""

    name: str
    pool: Pool
    input_kind: InputKind
    result_model: type[ResultT]
    build: Callable[[Resources], StageHandler[InputT, ResultT]]
    fails_version: bool = True
    """Whether this stage failing for good fails the document's version (False for a stage whose
    output is an extra, such as a thumbnail: the fields are still read without it)."""

    def parse(self, data: Any) -> ResultT:
        """A result from the wire (a remote worker's JSON), as the model `commit` takes; raises
        pydantic.ValidationError when it does not fit."""
        if isinstance(data, self.result_model):
            return data
        return self.result_model.model_validate(data)

    def job_handler(self, handler: StageHandler[InputT, ResultT]) -> StageJobHandler[InputT, ResultT]:
        """`handler` as the queue runs it (run = load_input then compute; commit)."""
        return StageJobHandler(self, handler)


class StageJobHandler(Generic[InputT, ResultT]):
    """A stage's handler as a queue handler (tenderflow.queue.Handler), keeping its stage at hand
    for the API's remote endpoints and for `warm_up`."""

    def __init__(self, stage: Stage[InputT, ResultT], handler: StageHandler[InputT, ResultT]) -> None:
        self.stage = stage
        self.handler = handler

    def load_input(self, job: ClaimedJob) -> InputT:
        return self.handler.load_input(job)

    def compute(self, job: ClaimedJob, input: InputT, context: JobContext) -> ResultT:
        return self.handler.compute(job, input, context)

    def run(self, job: ClaimedJob, context: JobContext) -> ResultT:
        return self.handler.compute(job, self.handler.load_input(job), context)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: ResultT) -> None:
        # In the job's trace: the jobs its commit enqueues (the next stages) carry it on.
        with tracing.job_context(job.payload):
            self.handler.commit(conn, job, self.stage.parse(result))

    def accept_remote(self, job: ClaimedJob, data: Any) -> ResultT:
        """A remote worker's posted result as the model `commit` takes, after the same checks a
        local result passes. Raises pydantic.ValidationError (wrong shape) or ResultRejectedError."""
        result = self.stage.parse(data)
        self.handler.verify(job, result)
        return result

    def warm_up(self) -> None:
        prepare = getattr(self.handler, "warm_up", None)
        if callable(prepare):
            prepare()
