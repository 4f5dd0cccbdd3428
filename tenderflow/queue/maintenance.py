"""Background passes every worker process runs: reclaim expired leases, fire recurring schedules,
prune old finished jobs (hourly). Each exposes `run_once(conn)`, which tests call with an injected `now`;
the worker's maintenance thread calls them on a timer. They are safe to run in many processes at
once: reclaim uses SKIP LOCKED, schedule runs are deduped by unique key, pruning deletes by id.

Schedules are also managed here, generically (any registered job type, any payload): `Scheduler`
creates (or makes sure one exists: `ensure`), lists, pauses and resumes, retimes, removes and runs
them now. What may be scheduled by whom, with which payload, is the application's to decide
(tenderflow.handlers.schedules).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import structlog
from croniter import croniter
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from tenderflow.errors import EnqueueError, ScheduleError, ScheduleNotFoundError
from tenderflow.queue import jobs
from tenderflow.queue.registry import JobTypes

log = structlog.get_logger("tenderflow.maintenance")


class Reclaimer:
    """Expired leases: re-queue while attempts remain, else fail ('lease expired on final attempt');
    with `dead_after_seconds`, also the jobs of a local worker that died (its database session
    ended, no heartbeat for that long), without waiting for their leases (see jobs.reclaim)."""

    def __init__(self, job_types: JobTypes, *, batch_size: int = 1000, dead_after_seconds: float | None = None) -> None:
        self.job_types = job_types
        self.batch_size = batch_size
        self.dead_after_seconds = dead_after_seconds

    def run_once(self, conn: psycopg.Connection[Any], *, now: datetime | None = None) -> list[jobs.EndedJob]:
        with conn.transaction():
            moved = jobs.reclaim(conn, limit=self.batch_size, now=now, dead_after_seconds=self.dead_after_seconds)
            # Hooks (refunds) commit with the state change, or not at all.
            self.job_types.run_ended_hooks(conn, moved)
        for job in moved:
            log.warning("job.reclaimed", job_id=job.id, type=job.type, attempt=job.attempts, state=job.state.value)
        return moved


def next_run_after(*, after: datetime, interval_seconds: float | None, cron: str | None) -> datetime:
    """The first scheduled time strictly after `after`. Cron expressions are read in UTC."""
    if interval_seconds is not None:
        return after + timedelta(seconds=interval_seconds)
    if cron is None:
        raise ValueError("a schedule needs an interval or a cron expression")
    # croniter reads the expression in `after`'s zone, and timestamps from the database come in the
    # session's TimeZone: pin UTC, as `Scheduler.upsert` does for the first run.
    following: datetime = croniter(cron, after.astimezone(UTC)).get_next(datetime)
    return following


def _first_due_after(row: Mapping[str, Any], now: datetime) -> datetime:
    """Next run time after `now`, skipping the runs missed while nothing was scheduling."""
    following = next_run_after(after=row["next_run_at"], interval_seconds=row["interval_seconds"], cron=row["cron"])
    if following > now:
        return following
    if row["interval_seconds"] is not None:
        last_due: datetime = row["next_run_at"]
        missed = int((now - last_due).total_seconds() // row["interval_seconds"])
        return last_due + timedelta(seconds=(missed + 1) * row["interval_seconds"])
    return next_run_after(after=now, interval_seconds=None, cron=row["cron"])


@dataclass(frozen=True)
class Schedule:
    name: str
    type: str
    payload: Mapping[str, Any]
    interval_seconds: float | None = None
    cron: str | None = None
    tenant: str = "default"
    priority: int = 0
    max_attempts: int = 5


@dataclass(frozen=True)
class ScheduleRow:
    """A schedule as stored, with what its last run did (the state of the job it enqueued)."""

    name: str
    type: str
    payload: dict[str, Any]
    tenant: str
    priority: int
    max_attempts: int
    interval_seconds: float | None
    cron: str | None
    next_run_at: datetime
    enabled: bool
    created_at: datetime
    last_run_at: datetime | None
    last_job_id: int | None
    last_job_state: str | None
    last_job_error: str | None


def check_timing(interval_seconds: float | None, cron: str | None) -> None:
    """Raise ScheduleError unless exactly one of a positive interval and a valid cron expression is given."""
    if (interval_seconds is None) == (cron is None):
        raise ScheduleError("give exactly one of interval_seconds and cron")
    if interval_seconds is not None and not interval_seconds > 0:
        raise ScheduleError(f"an interval must be more than 0 seconds, not {interval_seconds:g}")
    if cron is not None and not croniter.is_valid(cron):
        raise ScheduleError(f"not a valid cron expression: {cron!r} (five fields: minute hour day month weekday)")


class Scheduler:
    """Recurring schedules: each due run becomes one job, keyed 'schedule:<name>:<run time>'."""

    def __init__(self, job_types: JobTypes) -> None:
        self.job_types = job_types

    def upsert(self, conn: psycopg.Connection[Any], schedule: Schedule, *, now: datetime | None = None) -> datetime:
        """Create or replace a schedule (enabled); returns its first run time. Raises ScheduleError
        (a ValueError) for an unknown job type or a bad timing."""
        return self._write(conn, schedule, now=now, query="schedule_upsert")

    def ensure(self, conn: psycopg.Connection[Any], schedule: Schedule, *, now: datetime | None = None) -> None:
        """Create the schedule unless one of its name exists (left as it is, paused or retimed by an
        operator included: a process that ensures its schedules at every start does not push their
        next runs back). Raises ScheduleError as `upsert` does."""
        self._write(conn, schedule, now=now, query="schedule_ensure")

    def _write(
        self, conn: psycopg.Connection[Any], schedule: Schedule, *, now: datetime | None, query: str
    ) -> datetime:
        if schedule.type not in self.job_types:
            raise ScheduleError(f"unknown job type {schedule.type!r}")
        check_timing(schedule.interval_seconds, schedule.cron)
        start = now or datetime.now(UTC)
        first = next_run_after(after=start, interval_seconds=schedule.interval_seconds, cron=schedule.cron)
        conn.execute(jobs.QUERIES[query], {
            "name": schedule.name, "type": schedule.type, "payload": Jsonb(json.loads(json.dumps(schedule.payload))),
            "tenant": schedule.tenant, "priority": schedule.priority, "max_attempts": schedule.max_attempts,
            "interval_seconds": schedule.interval_seconds, "cron": schedule.cron, "next_run_at": first,
        })
        return first

    def run_once(self, conn: psycopg.Connection[Any], *, now: datetime | None = None) -> list[int]:
        """Enqueue every due run; returns the job ids (existing ones for runs already enqueued)."""
        clock = now or conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]
        cursor = conn.cursor(row_factory=dict_row)
        due = cursor.execute(jobs.QUERIES["schedule_due"], {"now": clock}).fetchall()
        ids: list[int] = []
        for row in due:
            run_at: datetime = row["next_run_at"]
            try:
                with conn.transaction():
                    ids.append(jobs.enqueue(conn, jobs.JobSpec(
                        type=row["type"], payload=row["payload"], tenant=row["tenant"], priority=row["priority"],
                        max_attempts=row["max_attempts"], run_after=run_at,
                        unique_key=f"schedule:{row['name']}:{run_at.astimezone(UTC).isoformat()}",
                    ), known_types=self.job_types))
                    conn.execute(jobs.QUERIES["schedule_advance"], {
                        "name": row["name"], "seen_run_at": run_at, "next_run_at": _first_due_after(row, clock),
                        "job_id": ids[-1],
                    })
            except (EnqueueError, ValueError) as exc:  # one broken schedule must not stop the others
                log.error("schedule.broken", name=row["name"], type=row["type"], error=str(exc))
        return ids

    def list_schedules(self, conn: psycopg.Connection[Any], *, prefix: str | None = None) -> list[ScheduleRow]:
        """Every schedule, by name (only those whose name starts with `prefix`, when given)."""
        rows = conn.cursor(row_factory=dict_row).execute(jobs.QUERIES["schedule_list"], {"prefix": prefix}).fetchall()
        return [ScheduleRow(**row) for row in rows]

    def get(self, conn: psycopg.Connection[Any], name: str) -> ScheduleRow:
        """The schedule named `name`; raises ScheduleNotFoundError."""
        for row in self.list_schedules(conn, prefix=name):
            if row.name == name:
                return row
        raise ScheduleNotFoundError(f"no schedule named {name!r} (`tenderflow schedules list` shows them)")

    def remove(self, conn: psycopg.Connection[Any], name: str) -> None:
        """Delete the schedule (a run it already enqueued still runs); raises ScheduleNotFoundError."""
        if conn.execute(jobs.QUERIES["schedule_delete"], {"name": name}).fetchone() is None:
            raise ScheduleNotFoundError(f"no schedule named {name!r}")

    def change(
        self, conn: psycopg.Connection[Any], name: str, *, enabled: bool | None = None,
        interval_seconds: float | None = None, cron: str | None = None, now: datetime | None = None,
    ) -> datetime:
        """Pause (enabled=False) or resume a schedule, or give it a new interval or cron expression
        (one of them); returns its next run time, counted from `now` whenever the timing changes or
        it resumes (runs missed while paused are not caught up). Raises ScheduleNotFoundError, ScheduleError."""
        with conn.transaction():
            row = conn.cursor(row_factory=dict_row).execute(jobs.QUERIES["schedule_lock"], {"name": name}).fetchone()
            if row is None:
                raise ScheduleNotFoundError(f"no schedule named {name!r}")
            retimed = interval_seconds is not None or cron is not None
            if retimed:
                check_timing(interval_seconds, cron)
            else:
                interval_seconds, cron = row["interval_seconds"], row["cron"]
            resumed = enabled is True and not row["enabled"]
            next_run_at: datetime = row["next_run_at"]
            if retimed or resumed:
                start = now or datetime.now(UTC)
                next_run_at = next_run_after(after=start, interval_seconds=interval_seconds, cron=cron)
            conn.execute(jobs.QUERIES["schedule_set"], {
                "name": name, "enabled": row["enabled"] if enabled is None else enabled,
                "interval_seconds": interval_seconds, "cron": cron, "next_run_at": next_run_at,
            })
        return next_run_at

    def run_now(self, conn: psycopg.Connection[Any], name: str, *, now: datetime | None = None) -> int:
        """Enqueue a run of the schedule at once, paused or not, beside its timed runs (which do not
        move); returns the job's id. Raises ScheduleNotFoundError, EnqueueError."""
        with conn.transaction():
            row = conn.cursor(row_factory=dict_row).execute(jobs.QUERIES["schedule_lock"], {"name": name}).fetchone()
            if row is None:
                raise ScheduleNotFoundError(f"no schedule named {name!r}")
            clock: datetime = now or conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]
            job_id = jobs.enqueue(conn, jobs.JobSpec(
                type=row["type"], payload=row["payload"], tenant=row["tenant"], priority=row["priority"],
                max_attempts=row["max_attempts"], run_after=clock,
                unique_key=f"schedule:{name}:now:{clock.astimezone(UTC).isoformat()}",
            ), known_types=self.job_types)
            conn.execute(jobs.QUERIES["schedule_record_run"], {"name": name, "run_at": clock, "job_id": job_id})
        return job_id


class Pruner:
    """Retention: deletes finished jobs older than `retention_seconds` (in batches) and workers unseen
    for a week, at most once per `every_seconds` per process (pruning is idempotent, so several
    processes may overlap)."""

    def __init__(self, retention_seconds: float, *, every_seconds: float = 3600.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.retention_seconds = retention_seconds
        self.every_seconds = every_seconds
        self.clock = clock
        self._last_run: float | None = None

    def due(self) -> bool:
        return self._last_run is None or self.clock() - self._last_run >= self.every_seconds

    def run_once(self, conn: psycopg.Connection[Any], *, now: datetime | None = None) -> int:
        self._last_run = self.clock()
        deleted = jobs.prune(conn, retention_seconds=self.retention_seconds, now=now)
        if deleted:
            log.info("jobs.pruned", deleted=deleted, retention_seconds=self.retention_seconds)
        workers = jobs.prune_workers(conn, now=now)
        if workers:
            log.info("workers.pruned", deleted=workers)
        return deleted


class Maintenance:
    """The passes a worker's maintenance thread runs on each tick."""

    def __init__(
        self, job_types: JobTypes, *, retention_seconds: float | None = None, dead_after_seconds: float | None = None
    ) -> None:
        self.reclaimer = Reclaimer(job_types, dead_after_seconds=dead_after_seconds)
        self.scheduler = Scheduler(job_types)
        self.pruner = Pruner(retention_seconds) if retention_seconds else None

    def run_once(self, conn: psycopg.Connection[Any], *, now: datetime | None = None) -> None:
        self.reclaimer.run_once(conn, now=now)
        self.scheduler.run_once(conn, now=now)
        if self.pruner is not None and self.pruner.due():
            self.pruner.run_once(conn, now=now)
