"""The `watch.poll` task: one pass over a watched folder or S3 prefix (tenderflow.pipeline.watches).

A watch's recurring schedule ('watch:<id>') enqueues one poll job per run; the job uploads the new
files it finds, as `tenderflow upload` would, recording each decision as it goes. Its commit writes
the watch's last poll (when, what it did); a poll that fails (the folder is not mounted here, the
bucket cannot be listed) ends failed after its one attempt and its hook writes the reason on the
watch: the next scheduled run tries again. Operators may schedule polls themselves too
(`tenderflow schedules add NAME --type watch.poll --payload '{"watch_id": 3}'`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tenderflow.config import Settings
from tenderflow.errors import PermanentError
from tenderflow.handlers.resources import Resources
from tenderflow.handlers.task import Task
from tenderflow.pipeline import watches
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.pipeline.uploads import UploadPolicy
from tenderflow.queue import ClaimedJob, EndedJob, JobContext
from tenderflow.stages.contract import Pool


class WatchPollPayload(BaseModel):
    """A watch.poll job's payload: which watch to poll."""

    model_config = ConfigDict(extra="forbid")
    watch_id: int = Field(gt=0)


def poll_options(settings: Settings) -> watches.PollOptions:
    return watches.PollOptions(
        spool_dir=settings.data_dir / "spool" / "watch", upload=UploadPolicy.from_settings(settings),
        files_per_poll=settings.watch_files_per_poll, s3_endpoint_url=settings.s3_endpoint_url,
        s3_region=settings.s3_region)


class WatchPollHandler:
    def __init__(self, settings: Settings, pool: ConnectionPool, storage: ObjectStorage) -> None:
        self.options = poll_options(settings)
        self.pool = pool
        self.storage = storage

    def run(self, job: ClaimedJob, context: JobContext) -> watches.PollSummary:
        # The payload may carry more than the schedule gave it (a trace's traceparent): read its own key.
        try:
            watch_id = WatchPollPayload(watch_id=job.payload.get("watch_id")).watch_id
        except ValidationError as exc:
            raise PermanentError(f"a watch.poll job needs a watch_id in its payload: {exc.errors()[0]['msg']}") from exc
        with self.pool.connection() as conn:
            return watches.poll(conn, self.storage, watch_id, self.options, check=context.check)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: watches.PollSummary) -> None:
        watches.record_poll(conn, result)


def record_failed_polls(conn: psycopg.Connection[Any], ended: Sequence[EndedJob]) -> None:
    """Queue hook: a poll that failed writes its reason on its watch (shown by `watches list`)."""
    for job in ended:
        if job.type == watches.JOB_WATCH_POLL and job.state.value == "failed" and "watch_id" in job.payload:
            watches.record_poll_failure(conn, int(job.payload["watch_id"]), job.error or "the poll failed")


def _build(resources: Resources) -> WatchPollHandler:
    assert resources.pool is not None and resources.storage is not None, "a task runs on a local worker"
    return WatchPollHandler(resources.settings, resources.pool, resources.storage)


WATCH_POLL = Task(name=watches.JOB_WATCH_POLL, pool=Pool.EXTRACT, build=_build, ended=record_failed_polls,
                  schedule_payload=WatchPollPayload)
