"""Committing finished attempts: the one place where results, follow-up jobs and a job's end state
are written — for local workers (in batches) and for remote workers' posted results alike.

One transaction per call:
    1. lock the jobs whose claim (id, attempts) is still valid and running — others are skipped
       and NOTHING is written for them (a stale worker's result is refused)
    2. each successful attempt's handler `commit` step, in a savepoint (one bad commit spares the rest)
    3. running -> succeeded for those; running -> queued/failed for failures; end-of-job hooks
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from tenderflow.errors import PermanentError
from tenderflow.queue import jobs
from tenderflow.queue.backoff import Backoff
from tenderflow.queue.registry import FunctionHandler, Handler, JobTypes


@dataclass
class FinishedAttempt:
    """An attempt whose compute step is over: a result to commit, or a failure to record."""

    job: jobs.ClaimedJob
    result: Any = None
    failure: jobs.Failure | None = None


@dataclass(frozen=True)
class CommitOutcome:
    """succeeded | retry | failed | lost (no longer owned: nothing written)."""

    outcome: str
    error: str | None = None


def handler_commits(handler: Handler) -> bool:
    """Whether a handler's commit step writes anything (only then does it need a savepoint)."""
    return not (isinstance(handler, FunctionHandler) and handler._commit is None)


def commit_attempts(
    conn: psycopg.Connection[Any], job_types: JobTypes, attempts: Sequence[FinishedAttempt], *, backoff: Backoff
) -> list[CommitOutcome]:
    """Commit `attempts` in one transaction; returns one outcome per attempt, in order."""
    outcomes: list[tuple[str, str | None]] = []
    successes: list[jobs.ClaimedJob] = []
    failures: list[jobs.Failure] = []
    with conn.transaction():
        owned = jobs.lock_owned(conn, [attempt.job for attempt in attempts])
        for attempt in attempts:
            job = attempt.job
            if job.id not in owned:
                outcomes.append(("lost", "no longer owned at commit (reclaimed or cancelled)"))
                continue
            if attempt.failure is not None:
                failures.append(attempt.failure)
                outcomes.append(("failed", attempt.failure.error))
                continue
            handler = job_types.handler(job.type)
            if handler_commits(handler):
                try:
                    with conn.transaction():  # a savepoint
                        handler.commit(conn, job, attempt.result)
                except PermanentError as exc:
                    failures.append(jobs.Failure(job, str(exc), permanent=True, retry_seconds=0.0))
                    outcomes.append(("failed", str(exc)))
                    continue
                except Exception as exc:  # a bug or bad result in one commit step: that job retries
                    error = f"commit step: {type(exc).__name__}: {exc}"
                    failures.append(jobs.Failure(job, error, permanent=False,
                                                 retry_seconds=backoff.delay(job.attempts)))
                    outcomes.append(("failed", error))
                    continue
            successes.append(job)
            outcomes.append(("succeeded", None))
        jobs.complete(conn, successes)
        ended = jobs.fail(conn, failures)
        job_types.run_ended_hooks(conn, ended)
    requeued = {job.id for job in ended if job.state == jobs.JobState.QUEUED}
    return [
        CommitOutcome("retry" if outcome == "failed" and attempt.job.id in requeued else outcome, error)
        for attempt, (outcome, error) in zip(attempts, outcomes, strict=True)
    ]
