"""Which work no live worker runs, said so that a person knows what to start.

A stage waits for a worker of its pool, local or remote. A task (webhook deliveries, watched
folders' polls, deleting stored PDFs, the retention sweep) runs on LOCAL workers only: a deployment
whose only workers are remote (the remote workers' NAT case) processes documents but never sends a
webhook. `unserved` names each such pool with what waits for it; `tenderflow status`, `tenderflow
doctor` and the API's `hint` say it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from tenderflow.handlers import EVERY_POOL, TASKS
from tenderflow.queue.stats import live_job_types
from tenderflow.stages.compute import POOLS
from tenderflow.stages.contract import Pool

_TASK_WORDS = {"webhook.deliver": "webhook deliveries", "watch.poll": "watched folders' polls",
               "storage.delete": "deleting stored PDFs", "documents.retention": "the retention sweep"}


@dataclass(frozen=True)
class Unserved:
    """Work no live worker runs: a pool's stages (`local` false), or tasks (`local` true; `pool` is
    the local pool that would run them, or "all" when no local worker runs at all)."""

    pool: str
    job_types: tuple[str, ...]
    local: bool

    def sentence(self) -> str:
        if not self.local:
            return (f"no live worker serves the {self.pool} pool ({', '.join(self.job_types)} wait): start one "
                    f"(`tenderflow worker --pool {self.pool}`, or a remote worker of the pool)")
        what = ", ".join(_TASK_WORDS.get(name, name) for name in self.job_types)
        whom = "no local worker runs" if self.pool == "all" else f"no local worker of the {self.pool} pool runs"
        return (f"{whom}, so {what} wait (remote workers run only OCR and extraction): start "
                f"`tenderflow worker --pool {self.pool}` on a machine that reaches the database")


def unserved(conn: psycopg.Connection[Any], *, dead_after_seconds: float, job_types: Iterable[str] | None = None,
             now: datetime | None = None) -> list[Unserved]:
    """What no live worker runs: each pool (ocr, extract) whose stages none runs, and the tasks no
    local worker runs; with `job_types`, only those of them (the types of the queued jobs, say)."""
    live = live_job_types(conn, dead_after_seconds=dead_after_seconds, now=now)
    wanted = set(job_types) if job_types is not None else None

    def waiting(names: Iterable[str]) -> tuple[str, ...]:
        return tuple(name for name in names if name not in live and (wanted is None or name in wanted))

    found = [Unserved(pool.value, stages, local=False)
             for pool in (Pool.OCR, Pool.EXTRACT) if (stages := waiting(POOLS[pool.value]))]
    tasks = waiting(task.name for task in TASKS)
    if tasks:
        # A task of every pool not run: no local worker at all; else only the extract pool's are missing.
        none_local = any(task.pool is EVERY_POOL and task.name not in live for task in TASKS)
        found.append(Unserved("all" if none_local else Pool.EXTRACT.value, tasks, local=True))
    return found
