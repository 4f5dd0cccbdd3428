"""The task contract: a job type that is not a stage of a document's pipeline, declared once like one.

A stage (stage.py) reads a document's PDF or pages, computes purely, and may run on a remote worker.
A task does what only a machine inside the service can: send a webhook from the operator's network
with the endpoint's secret, read a watched folder. So a task runs on local workers only (remote
workers never see its jobs: `POOLS` stays the stages'), its handler is a plain queue handler
(`run` may read and write; `commit` writes in the completion transaction), and it may declare:

    ended             its end-of-job hook (the queue runs it when one of its jobs fails or is cancelled)
    schedule_payload  that operators may put it on a recurring schedule, with a payload of this model
                      (`tenderflow schedules add`, PUT /v1/schedules/{name})

`tenderflow.handlers.TASKS` lists every task; the local pools (`LOCAL_POOLS`), the registry
(`build_job_types`) and the schedulable job types derive from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from pydantic import BaseModel

from tenderflow.handlers.stage import Pool, Resources
from tenderflow.queue import EndedJob, Handler

EndedHook = Callable[[psycopg.Connection[Any], Sequence[EndedJob]], None]


@dataclass(frozen=True)
class Task:
    """One job type outside the document pipeline, declared once (one instance per task module)."""

    name: str
    pool: Pool
    build: Callable[[Resources], Handler]
    """The handler, from settings, the database pool and the storage (a task always has them)."""
    ended: EndedHook | None = None
    schedule_payload: type[BaseModel] | None = None
    schedule_max_attempts: int = 1
    """Attempts of a scheduled run: one, since the next run comes anyway."""
