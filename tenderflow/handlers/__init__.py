"""The pipeline's stages and the tasks beside it, declared once each (see stage.py and task.py for
the contracts), and what derives from them.

    STAGES            every stage, in pipeline order
    TASKS             every task (local workers only): webhook deliveries and watched folders' polls
                      (extract pool), deleting stored PDFs, the retention sweep and a finished
                      document's tenders (every pool)
    POOLS             pool name -> the stages its workers run ("all": every stage); what remote
                      workers and worker tokens see
    LOCAL_POOLS       pool name -> the job types a local worker of the pool runs: its stages, its
                      tasks and the tasks of every pool
    build_job_types   the local registry: every stage's and task's handler over storage and the
                      database, and the end-of-job hooks (the versions', the tasks') — or, without a
                      pool, the names and hooks alone: enough to enqueue and to run end-of-job hooks
                      from the CLI and the API
    compute_handlers  the remote (compute-only) handlers of a pool's stages, from a machine's settings

Adding a stage: a module here with its handler and its `Stage`, one entry in STAGES, the SQL its
commit writes, and whoever enqueues it (a commit step in tenderflow.pipeline). Pools, worker tokens,
the remote endpoints and the remote worker follow. Adding a task: its handler and its `Task` in a
module here, one entry in TASKS; the local pools, the registry and its schedule follow.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.handlers.deletion import RETENTION, STORAGE_DELETE
from tenderflow.handlers.extract import EXTRACT
from tenderflow.handlers.ocr import PAGES, PLAN, StoredPdfs
from tenderflow.handlers.stage import InputKind, Pool, Resources, Stage, StageJobHandler
from tenderflow.handlers.task import EVERY_POOL, Task
from tenderflow.handlers.tenders import TENDER_DOCUMENT
from tenderflow.handlers.thumbnail import THUMBNAIL
from tenderflow.handlers.watch import WATCH_POLL
from tenderflow.handlers.webhooks import DELIVER
from tenderflow.pdf.cache import PdfCache
from tenderflow.pipeline import documents
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import ClaimedJob, EndedJob, JobTypes

__all__ = [
    "EVERY_POOL", "LOCAL_POOLS", "POOLS", "STAGES", "TASKS", "InputKind", "Pool", "Stage", "StageJobHandler",
    "Task", "build_job_types", "compute_handlers", "end_of_job_hook", "stage_named", "warm_up",
]

STAGES: tuple[Stage[Any, Any], ...] = (PLAN, PAGES, THUMBNAIL, EXTRACT)
TASKS: tuple[Task, ...] = (DELIVER, WATCH_POLL, STORAGE_DELETE, RETENTION, TENDER_DOCUMENT)

POOLS: Mapping[str, tuple[str, ...]] = {
    pool.value: tuple(stage.name for stage in STAGES if pool is Pool.ALL or stage.pool is pool) for pool in Pool
}
LOCAL_POOLS: Mapping[str, tuple[str, ...]] = {
    pool.value: POOLS[pool.value] + tuple(task.name for task in TASKS if task.runs_in(pool)) for pool in Pool
}

_BY_NAME: Mapping[str, Stage[Any, Any]] = {stage.name: stage for stage in STAGES}

def stage_named(name: str) -> Stage[Any, Any]:
    """The stage of job type `name`; raises LookupError for a job type that is no stage."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise LookupError(f"job type {name!r} is not a stage of the pipeline") from None


def _fail_versions(conn: psycopg.Connection[Any], ended: Sequence[EndedJob], *, types: frozenset[str]) -> None:
    documents.fail_versions_of_ended_jobs(conn, [job for job in ended if job.type in types])


def end_of_job_hook() -> functools.partial[None]:
    """The queue hook that fails the version of a stage that `fails_version` (and refunds it)."""
    return functools.partial(_fail_versions, types=frozenset(stage.name for stage in STAGES if stage.fails_version))


def _log_subject(job: ClaimedJob) -> dict[str, Any]:
    """What a job's log lines name: a pipeline job's document and version, a task's delivery or watch."""
    subject = documents.log_subject(job)
    for key in ("delivery_id", "watch_id"):
        if key in job.payload:
            subject[key] = job.payload[key]
    return subject


def build_job_types(
    settings: Settings, *, pool: ConnectionPool | None = None, storage: ObjectStorage | None = None,
    cache_dir: Path | None = None, stages: Iterable[Stage[Any, Any]] = STAGES, tasks: Iterable[Task] = TASKS,
) -> JobTypes:
    """The registry of `stages` and `tasks` with their handlers (when pool and storage are given)
    and the end-of-job hooks (always: cancelling a job from the CLI runs them too)."""
    job_types = JobTypes()
    job_types.on_job_ended(end_of_job_hook())
    tasks = tuple(tasks)
    for task in tasks:
        if task.ended is not None:
            job_types.on_job_ended(task.ended)
    job_types.describe_with(_log_subject)
    if pool is None or storage is None:
        for name in (*(stage.name for stage in stages), *(task.name for task in tasks)):
            job_types.register(name)
        return job_types
    pdfs = StoredPdfs(storage, PdfCache(cache_dir or settings.data_dir / "cache" / "pdf"))
    resources = Resources(settings, pdfs=pdfs, pool=pool, storage=storage)
    for stage in stages:
        job_types.register(stage.name, stage.job_handler(stage.build(resources)))
    for task in tasks:
        job_types.register(task.name, task.build(resources))
    return job_types


def compute_handlers(settings: Settings, job_types: Iterable[str]) -> dict[str, StageJobHandler[Any, Any]]:
    """Compute-only handlers (no storage, no database) for `job_types`, each built only if asked
    for (an OCR-only machine need not configure an LLM). Raises LookupError for a name that is no stage."""
    resources = Resources(settings)
    return {name: stage.job_handler(stage.build(resources))
            for name in job_types for stage in (stage_named(name),)}


def warm_up(handlers: Iterable[object]) -> None:
    """Let each handler that can prepare itself (`warm_up()`: load a model, build lazy tables) do it
    now, before its worker claims a job, so the first document pays nothing extra."""
    for handler in handlers:
        prepare = getattr(handler, "warm_up", None)
        if callable(prepare):
            prepare()
