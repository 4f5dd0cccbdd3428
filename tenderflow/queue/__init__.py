"""A generic PostgreSQL job queue. It knows nothing about documents.

    from tenderflow import queue
    queue.enqueue(conn, queue.JobSpec("ocr", {"document_id": 7}), known_types=job_types)

Everything a caller needs is re-exported here; see `jobs` for the state machine, `worker` for the
worker engine, `maintenance` for reclaim and schedules, `stats` for monitoring.
"""

from tenderflow.queue.backoff import Backoff
from tenderflow.queue.jobs import (
    ClaimedJob,
    EndedJob,
    Failure,
    JobSpec,
    JobState,
    cancel,
    cancel_many,
    claim,
    claim_named,
    complete,
    enqueue,
    enqueue_many,
    fail,
    heartbeat,
    lock_owned,
    prune,
    reclaim,
    release,
    retry,
    set_tenant_cap,
    set_tenant_priority,
)
from tenderflow.queue.maintenance import Maintenance, Reclaimer, Schedule, Scheduler, ScheduleRow
from tenderflow.queue.registry import FunctionHandler, Handler, JobContext, JobTypes
from tenderflow.queue.worker import Worker, WorkerConfig

__all__ = [
    "Backoff", "ClaimedJob", "EndedJob", "Failure", "FunctionHandler", "Handler", "JobContext",
    "JobSpec", "JobState", "JobTypes", "Maintenance", "Reclaimer", "Schedule", "ScheduleRow", "Scheduler", "Worker",
    "WorkerConfig", "cancel", "cancel_many", "claim", "claim_named", "complete", "enqueue", "enqueue_many", "fail",
    "heartbeat", "lock_owned", "prune", "reclaim", "release", "retry", "set_tenant_cap", "set_tenant_priority",
]
