"""The local side of the pipeline's stages, and the tasks beside it, declared once each (see
tenderflow.stages for the stages' contract and pure compute, task.py for the tasks'), and what
derives from them.

    STAGE_HANDLERS    stage name -> how a local worker builds its handler from Resources: the stage's
                      compute with load_input, verify and commit around it
    TASKS             every task (local workers only): webhook deliveries and watched folders' polls
                      (extract pool), deleting stored PDFs, the retention sweep and a finished
                      document's tenders (every pool)
    LOCAL_POOLS       pool name -> the job types a local worker of the pool runs: its stages, its
                      tasks and the tasks of every pool
    build_job_types   the local registry: every stage's and task's handler over storage and the
                      database, and the end-of-job hooks (the versions', the tasks') — or, without a
                      pool, the names and hooks alone: enough to enqueue and to run end-of-job hooks
                      from the CLI and the API

Adding a stage: its compute and its `Stage` in tenderflow.stages.compute (one entry in STAGES), its
handler in a module here (one entry in STAGE_HANDLERS), the SQL its commit writes, and whoever
enqueues it (a commit step in tenderflow.pipeline). Pools, worker tokens, the remote endpoints and
the remote worker follow. Adding a task: its handler and its `Task` in a module here, one entry in
TASKS; the local pools, the registry and its schedule follow.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.handlers.deletion import RETENTION, STORAGE_DELETE
from tenderflow.handlers.extract import build_extract_handler
from tenderflow.handlers.ocr import StoredPdfs, build_pages_handler, build_plan_handler
from tenderflow.handlers.resources import Resources
from tenderflow.handlers.task import EVERY_POOL, Task
from tenderflow.handlers.tenders import TENDER_DOCUMENT
from tenderflow.handlers.thumbnail import build_thumbnail_handler
from tenderflow.handlers.watch import WATCH_POLL
from tenderflow.handlers.webhooks import DELIVER
from tenderflow.pdf.cache import PdfCache
from tenderflow.pipeline import commits, versions
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import ClaimedJob, EndedJob, JobTypes
from tenderflow.stages.compute import EXTRACT, PAGES, PLAN, POOLS, STAGES, THUMBNAIL
from tenderflow.stages.contract import Pool, Stage, StageHandler, StageJobHandler

__all__ = [
    "EVERY_POOL", "LOCAL_POOLS", "STAGE_HANDLERS", "TASKS", "Task", "build_job_types", "end_of_job_hook",
    "stage_job_handler",
]

STAGE_HANDLERS: Mapping[str, Callable[[Resources], StageHandler[Any, Any]]] = {
    PLAN.name: build_plan_handler, PAGES.name: build_pages_handler, THUMBNAIL.name: build_thumbnail_handler,
    EXTRACT.name: build_extract_handler,
}
TASKS: tuple[Task, ...] = (DELIVER, WATCH_POLL, STORAGE_DELETE, RETENTION, TENDER_DOCUMENT)

LOCAL_POOLS: Mapping[str, tuple[str, ...]] = {
    pool.value: POOLS[pool.value] + tuple(task.name for task in TASKS if task.runs_in(pool)) for pool in Pool
}


def stage_job_handler(stage: Stage[Any, Any], resources: Resources) -> StageJobHandler[Any, Any]:
    """`stage`'s local handler over `resources`, as the queue runs it; raises LookupError for a stage
    with no entry in STAGE_HANDLERS."""
    try:
        build = STAGE_HANDLERS[stage.name]
    except KeyError:
        raise LookupError(f"stage {stage.name!r} has no local handler in STAGE_HANDLERS") from None
    return stage.job_handler(build(resources))


def _fail_versions(conn: psycopg.Connection[Any], ended: Sequence[EndedJob], *, types: frozenset[str]) -> None:
    commits.fail_versions_of_ended_jobs(conn, [job for job in ended if job.type in types])


def end_of_job_hook() -> functools.partial[None]:
    """The queue hook that fails the version of a stage that `fails_version` (and refunds it)."""
    return functools.partial(_fail_versions, types=frozenset(stage.name for stage in STAGES if stage.fails_version))


def _log_subject(job: ClaimedJob) -> dict[str, Any]:
    """What a job's log lines name: a pipeline job's document and version, a task's delivery or watch."""
    subject = versions.log_subject(job)
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
        job_types.register(stage.name, stage_job_handler(stage, resources))
    for task in tasks:
        job_types.register(task.name, task.build(resources))
    return job_types
