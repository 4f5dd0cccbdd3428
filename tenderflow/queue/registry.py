"""What the queue knows about job types: their names, their handlers, and end-of-job hooks; and what
any worker engine (the queue's own, a remote one) gives a running job and waits for when it stops.

A handler has two steps (see DESIGN.md, "Handlers: compute apart from commit"):

    run(job, context) -> result          pure compute, no database; may take minutes
    commit(conn, job, result) -> None    inside the completion transaction the queue opens, after
                                         the queue has locked the job and checked it still owns it:
                                         idempotent writes, follow-up enqueues. The job is marked
                                         succeeded in the same transaction.

Outcomes: return → success; raise RetryableError(retry_after=…) → retry after backoff; raise
PermanentError → failed at once; any other exception → retry, its text stored as last_error. A
commit step that raises AttemptFailedError keeps what it wrote (the record of a failed attempt) and
its job is retried (or failed, when the error is permanent) as if `run` had raised it.

Hooks registered with `on_job_ended` run inside the transaction that moves jobs to `failed` or
`cancelled` (worker failures, the reclaimer, cancel), so a side effect such as a credit refund
commits or rolls back with the state change.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import psycopg

from tenderflow.errors import LeaseLostError
from tenderflow.queue.jobs import ClaimedJob, EndedJob

_EVENTS = threading.Lock()  # guards the lazily made Event of every JobContext (rarely taken)


class JobContext:
    """Given to `run`: the claim, and a flag the heartbeat raises when the claim is lost.

    The Event a handler sleeps on (`wait`) is made only when one asks for it: most jobs never
    wait, and an Event (a Condition and its lock) cost a tenth of a short job's time in the worker."""

    __slots__ = ("job", "lost_reason", "_lost", "_event")

    def __init__(self, job: ClaimedJob) -> None:
        self.job = job
        self.lost_reason = ""
        self._lost = False
        self._event: threading.Event | None = None

    def mark_lost(self, reason: str) -> None:
        self.lost_reason = reason
        self._lost = True
        with _EVENTS:
            event = self._event
        if event is not None:
            event.set()

    @property
    def lost(self) -> bool:
        return self._lost

    def check(self) -> None:
        """Raise LeaseLostError if the job was reclaimed or cancelled; long handlers call this."""
        if self._lost:
            raise LeaseLostError(f"job {self.job.id}: {self.lost_reason}")

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking early (True) if the claim is lost."""
        with _EVENTS:
            if self._event is None:
                self._event = threading.Event()
                if self._lost:  # lost before anyone waited: mark_lost found no Event to set
                    self._event.set()
            event = self._event
        return event.wait(seconds)


def wait_for_running_jobs(running: Mapping[Any, object], lock: threading.Lock, grace_seconds: float) -> None:
    """Until `running` (guarded by `lock`) is empty or `grace_seconds` have passed: a stopping worker
    lets its jobs finish before it gives back the leases of those still running."""
    deadline = time.monotonic() + grace_seconds
    while time.monotonic() < deadline:
        with lock:
            if not running:
                return
        time.sleep(0.05)


class Handler(Protocol):
    def run(self, job: ClaimedJob, context: JobContext) -> Any: ...

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: Any) -> None: ...


class FunctionHandler:
    """A handler from a plain function `run(job, context) -> result`, with an optional commit."""

    def __init__(
        self,
        run: Callable[[ClaimedJob, JobContext], Any],
        commit: Callable[[psycopg.Connection[Any], ClaimedJob, Any], None] | None = None,
    ) -> None:
        self._run = run
        self._commit = commit

    def run(self, job: ClaimedJob, context: JobContext) -> Any:
        return self._run(job, context)

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: Any) -> None:
        if self._commit is not None:
            self._commit(conn, job, result)


EndedHook = Callable[[psycopg.Connection[Any], Sequence[EndedJob]], None]


@dataclass(frozen=True)
class JobType:
    name: str
    handler: Handler | None
    max_attempts: int | None = None


class JobTypes:
    """The registry: job type names (enqueue refuses others), their handlers and hooks."""

    def __init__(self) -> None:
        self._types: dict[str, JobType] = {}
        self._ended_hooks: list[EndedHook] = []
        self._describe: Callable[[ClaimedJob], Mapping[str, Any]] | None = None

    def describe_with(self, describe: Callable[[ClaimedJob], Mapping[str, Any]]) -> None:
        """What the jobs' log lines say about a job besides its id, type and tenant (the application's
        subject: for the pipeline, the document and version). The queue itself knows no payload."""
        self._describe = describe

    def describe(self, job: ClaimedJob) -> Mapping[str, Any]:
        if self._describe is None:
            return {}
        try:
            return self._describe(job)
        except Exception:  # a log line must never fail a job
            return {}

    def register(self, name: str, handler: Handler | None = None, *, max_attempts: int | None = None) -> None:
        if name in self._types:
            raise ValueError(f"job type {name!r} is registered twice")
        self._types[name] = JobType(name, handler, max_attempts)

    def on_job_ended(self, hook: EndedHook) -> None:
        """Run `hook(conn, jobs)` in the transaction that moves jobs to failed or cancelled."""
        self._ended_hooks.append(hook)

    def run_ended_hooks(self, conn: psycopg.Connection[Any], jobs: Sequence[EndedJob]) -> None:
        ended = [job for job in jobs if job.state in ("failed", "cancelled")]
        if ended:
            for hook in self._ended_hooks:
                hook(conn, ended)

    def handler(self, name: str) -> Handler:
        job_type = self._types.get(name)
        if job_type is None or job_type.handler is None:
            raise LookupError(f"no handler registered for job type {name!r}")
        return job_type.handler

    def __contains__(self, name: object) -> bool:
        return name in self._types

    def __iter__(self) -> Iterator[str]:
        return iter(self._types)

    def names(self) -> list[str]:
        return sorted(self._types)
