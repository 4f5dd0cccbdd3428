"""Recurring schedules as operators make them: which job types may be scheduled, with what payload.

The queue's `Scheduler` runs any schedule of any registered job type; this module is what the CLI
(`tenderflow schedules …`) and the operators' API (/v1/schedules) go through, so that only the tasks
that declare a `schedule_payload` can be put on a schedule, each with a payload of that model, for
a tenant that exists. Watches keep their own schedules ('watch:<id>'), made and removed with the
watch, and a task may declare its own (`Task.schedule`: the hourly documents.retention), which every
local worker makes sure exists when it starts (`ensure_task_schedules`); those may be paused,
resumed, retimed and run here, not removed or replaced.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

import psycopg
from pydantic import ValidationError

from tenderflow.errors import ScheduleError
from tenderflow.handlers import TASKS
from tenderflow.handlers.task import Task
from tenderflow.pipeline import watches
from tenderflow.queue import JobTypes, Schedule, Scheduler, ScheduleRow
from tenderflow.tenants.tenants import get_tenant

NAME: Final = re.compile(r"[a-z0-9][a-z0-9_.:-]{0,99}")
_WATCH_PREFIX: Final = watches.schedule_name(0).removesuffix("0")
SCHEDULABLE: Final[Mapping[str, Task]] = {task.name: task for task in TASKS if task.schedule_payload is not None}
TASK_SCHEDULES: Final[Mapping[str, Task]] = {task.schedule.name: task for task in TASKS if task.schedule is not None}


def ensure_task_schedules(conn: psycopg.Connection[Any], job_types: JobTypes) -> None:
    """Create each task's own schedule (of the tasks `job_types` holds) unless one of its name
    exists: one there already, paused or retimed by an operator, is left as it is, so a worker that
    starts does not push its next run back. Raises ScheduleError (a task declared with a bad timing)."""
    scheduler = Scheduler(job_types)
    for task in TASK_SCHEDULES.values():
        if task.schedule is not None and task.name in job_types:
            scheduler.ensure(conn, task.schedule)


def add_schedule(
    conn: psycopg.Connection[Any], job_types: JobTypes, *, name: str, job_type: str, payload: Mapping[str, Any],
    tenant: str = "default", interval_seconds: float | None = None, cron: str | None = None, priority: int = 0,
    now: datetime | None = None,
) -> ScheduleRow:
    """Create or replace the schedule `name`: a run of `job_type` with `payload` every
    `interval_seconds` or at the `cron` times (UTC). Raises ScheduleError (a bad name, a job type
    that cannot be scheduled, a payload its model refuses, a bad timing), TenantNotFoundError."""
    if not NAME.fullmatch(name):
        raise ScheduleError(f"{name!r} is not a schedule name: lowercase letters, digits and _ . : - "
                            "(at most 100, starting with a letter or digit)")
    if name.startswith(_WATCH_PREFIX):
        raise ScheduleError(f"schedules named {_WATCH_PREFIX}… belong to watches: `tenderflow watch` makes them")
    if name in TASK_SCHEDULES:
        raise ScheduleError(f"{name} is the {TASK_SCHEDULES[name].name} task's own schedule: pause, resume, "
                            "retime or run it, or choose another name")
    task = SCHEDULABLE.get(job_type)
    if task is None or task.schedule_payload is None:
        raise ScheduleError(f"job type {job_type!r} cannot be scheduled; these can: {', '.join(SCHEDULABLE)}")
    try:
        checked = task.schedule_payload.model_validate(dict(payload)).model_dump(mode="json")
    except ValidationError as exc:
        raise ScheduleError(f"the payload does not fit a {job_type} job: {exc.errors()[0]['msg']} "
                            f"({'.'.join(str(part) for part in exc.errors()[0]['loc'])})") from exc
    get_tenant(conn, tenant)
    scheduler = Scheduler(job_types)
    scheduler.upsert(conn, Schedule(name=name, type=job_type, payload=checked, tenant=tenant, priority=priority,
                                    max_attempts=task.schedule_max_attempts, interval_seconds=interval_seconds,
                                    cron=cron), now=now)
    return scheduler.get(conn, name)


def remove_schedule(conn: psycopg.Connection[Any], job_types: JobTypes, name: str) -> None:
    """Remove a schedule; a watch's (remove the watch) or a task's own is refused. Raises
    ScheduleNotFoundError, ScheduleError."""
    if name.startswith(_WATCH_PREFIX):
        raise ScheduleError(f"{name} is a watch's schedule: remove the watch (`tenderflow watches remove "
                            f"{name.removeprefix(_WATCH_PREFIX)}`), or pause it")
    if name in TASK_SCHEDULES:
        raise ScheduleError(f"{name} is the {TASK_SCHEDULES[name].name} task's own schedule (workers make it again "
                            "when they start): pause it instead")
    Scheduler(job_types).remove(conn, name)
