"""The task contract: a job type that is not a stage of a document's pipeline, declared once like one.

A stage (tenderflow.stages) reads a document's PDF or pages, computes purely, and may run on a remote worker.
A task does what only a machine inside the service can: send a webhook from the operator's network
with the endpoint's secret, read a watched folder, delete a document's stored PDF. So a task runs on
local workers only (remote workers never see its jobs: `POOLS` stays the stages'), its handler is a
plain queue handler (`run` may read and write; `commit` writes in the completion transaction), and
it declares which local workers run it and may declare:

    pool              the local pool whose workers run it (the "all" pool runs every task), or
                      EVERY_POOL: every local worker, whatever its pool — for work that must not
                      wait for one pool's workers to be running (a deleted document's PDF)
    ended             its end-of-job hook (the queue runs it when one of its jobs fails or is cancelled)
    schedule_payload  that operators may put it on a recurring schedule, with a payload of this model
                      (`tenderflow schedules add`, PUT /v1/schedules/{name})
    schedule          its own recurring schedule, which every local worker that starts makes sure
                      exists (`Scheduler.ensure`: one that exists, paused or retimed by an operator,
                      is left as it is); operators may pause, retime or run it, not remove it

`tenderflow.handlers.TASKS` lists every task; the local pools (`LOCAL_POOLS`), the registry
(`build_job_types`), the schedulable job types and the tasks' own schedules derive from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import psycopg
from pydantic import BaseModel

from tenderflow.handlers.resources import Resources
from tenderflow.queue import EndedJob, Handler, Schedule
from tenderflow.stages.contract import Pool

EndedHook = Callable[[psycopg.Connection[Any], Sequence[EndedJob]], None]

EVERY_POOL: Final = None
"""A task's `pool` when every local worker runs it, whatever its pool."""


@dataclass(frozen=True)
class Task:
    """One job type outside the document pipeline, declared once (one instance per task module)."""

    name: str
    pool: Pool | None
    """The local pool whose workers run it, or EVERY_POOL (see the module)."""
    build: Callable[[Resources], Handler]
    """The handler, from settings, the database pool and the storage (a task always has them)."""
    ended: EndedHook | None = None
    schedule_payload: type[BaseModel] | None = None
    schedule_max_attempts: int = 1
    """Attempts of a scheduled run: one, since the next run comes anyway."""
    schedule: Schedule | None = None

    def __post_init__(self) -> None:
        if self.schedule is not None and self.schedule.type != self.name:
            raise ValueError(f"task {self.name}'s own schedule runs {self.schedule.type}, not the task")

    def runs_in(self, pool: Pool) -> bool:
        """Whether a local worker of `pool` runs this task."""
        return self.pool is EVERY_POOL or pool is Pool.ALL or self.pool is pool
