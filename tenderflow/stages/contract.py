"""The stage contract: one typed declaration per step of the pipeline, from which everything derives.

A stage is a job type with four steps and a description of itself:

    load_input(job) -> Input                 what it reads: a local copy of the stored PDF, or the
                                             version's pages from the database (see InputKind)
    compute(job, input, context) -> Result   pure: no database, no storage; remote workers run
                                             exactly this; returns an instance of `result_model`
    verify(job, result) -> None              the server's checks of a result it did not compute
    commit(conn, job, result) -> None        writes through tenderflow.pipeline inside the queue's
                                             completion transaction (idempotent, unique keys)

`Stage` names the job type, the pool that runs it, the input kind (how a remote worker fetches the
same input over HTTP), the result model (what a remote worker's JSON must parse into before
`commit` sees it) and `build_compute(settings)`, its pure compute from a machine's settings alone.
The stages themselves are declared in tenderflow.stages.compute (STAGES), with their compute; the
other three steps are tenderflow.handlers', which build a local handler around that compute.

Results stay models on the way from `compute` to `commit`; JSON happens only on the HTTP wire
(`Stage.parse` on the server, `model_dump` in the remote client).

A remote worker holds `ComputeHandler`s (the stage and its compute), never a connection; psycopg is
imported here only for the type of the connection `commit` is given.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import psycopg
from pydantic import BaseModel

from tenderflow import tracing
from tenderflow.config import Settings

# From the queue's modules, not its package: the package brings the queue's worker engine, which
# imports the migrations, and what a remote worker imports reaches no database code (the import
# contracts remote-no-db and stages-no-db in pyproject.toml).
from tenderflow.queue.jobs import ClaimedJob
from tenderflow.queue.registry import JobContext

# The stages' job types: what the pipeline's commit steps enqueue.
JOB_OCR_PLAN = "ocr.plan"
JOB_OCR_PAGES = "ocr.pages"
JOB_EXTRACT = "extract"
JOB_THUMBNAIL = "thumbnail"

InputT = TypeVar("InputT")
ResultT = TypeVar("ResultT", bound=BaseModel)
InputT_contra = TypeVar("InputT_contra", contravariant=True)
ResultT_co = TypeVar("ResultT_co", bound=BaseModel, covariant=True)


class Pool(enum.StrEnum):
    """The worker pools: which stages a worker started with `--pool` runs (see POOLS)."""

    OCR = "ocr"
    EXTRACT = "extract"
    ALL = "all"


class InputKind(enum.StrEnum):
    """What a stage reads, so that a remote worker can fetch the same over HTTP."""

    PDF = "pdf"  # the stored PDF (a local path to a cached copy)
    PAGES = "pages"  # the version's page texts (a list of PageInput)


@dataclass(frozen=True)
class PageInput:
    """One page's text, as a stage of InputKind.PAGES reads it."""

    number: int
    text: str


class StageCompute(Protocol[InputT_contra, ResultT_co]):
    """A stage's pure compute (tenderflow.stages.compute): no database, no storage."""

    def compute(self, job: ClaimedJob, input: InputT_contra, context: JobContext) -> ResultT_co: ...


class StageHandler(Protocol[InputT, ResultT]):
    """A stage's local handler (tenderflow.handlers): its compute, and what only the server does."""

    def load_input(self, job: ClaimedJob) -> InputT: ...

    def compute(self, job: ClaimedJob, input: InputT, context: JobContext) -> ResultT: ...

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: ResultT) -> None: ...

    def verify(self, job: ClaimedJob, result: ResultT) -> None:
        """Check a result computed elsewhere (a remote worker's) against what this server knows, as
        its own compute would have produced it; raises ResultRejectedError. Runs on the server,
        outside any transaction, before `commit`."""


@dataclass(frozen=True)
class Stage(Generic[InputT, ResultT]):
    """One step of the pipeline, declared once (in tenderflow.stages.compute)."""

    name: str
    pool: Pool
    input_kind: InputKind
    result_model: type[ResultT]
    build_compute: Callable[[Settings], StageCompute[InputT, ResultT]]
    """Its pure compute, from a machine's settings alone (a remote worker has nothing else)."""
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

    def compute_handler(self, settings: Settings) -> ComputeHandler[InputT, ResultT]:
        """Its compute alone, as a remote (compute-only) worker runs it."""
        return ComputeHandler(self, self.build_compute(settings))


def _warm_up(thing: object) -> None:
    prepare = getattr(thing, "warm_up", None)
    if callable(prepare):
        prepare()


class ComputeHandler(Generic[InputT, ResultT]):
    """A stage's compute with its stage at hand (the input kind to fetch): what a remote worker runs."""

    def __init__(self, stage: Stage[InputT, ResultT], computer: StageCompute[InputT, ResultT]) -> None:
        self.stage = stage
        self.computer = computer

    def compute(self, job: ClaimedJob, input: InputT, context: JobContext) -> ResultT:
        return self.computer.compute(job, input, context)

    def warm_up(self) -> None:
        _warm_up(self.computer)


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
        _warm_up(self.handler)


def warm_up(handlers: Iterable[object]) -> None:
    """Let each handler that can prepare itself (`warm_up()`: load a model, build lazy tables) do it
    now, before its worker claims a job, so the first document pays nothing extra."""
    for handler in handlers:
        _warm_up(handler)
