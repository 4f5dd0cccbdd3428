"""Committing finished attempts: the one place where results, follow-up jobs and a job's end state
are written — for local workers (in batches) and for remote workers' posted results alike.

One transaction per call:
    1. lock the jobs whose claim (id, attempts) is still valid and running — others are skipped
       and NOTHING is written for them (a stale worker's result is refused). When no attempt has a
       commit step to run, step 3's guarded UPDATEs are that check and that lock themselves
    2. each successful attempt's handler `commit` step, in a savepoint (one bad commit spares the rest)
    3. running -> succeeded for those; running -> queued/failed for failures; end-of-job hooks
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus

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


LOST_AT_COMMIT = "no longer owned at commit (reclaimed or cancelled)"


def handler_commits(handler: Handler) -> bool:
    """Whether a handler's commit step writes anything (only then does it need a savepoint)."""
    return not (isinstance(handler, FunctionHandler) and handler._commit is None)


def _runs_commit_step(job_types: JobTypes, attempt: FinishedAttempt) -> bool:
    if attempt.failure is not None:
        return False
    try:
        return handler_commits(job_types.handler(attempt.job.type))
    except LookupError:
        return True  # raised again below, for an owned job, inside the transaction


def commit_attempts(
    conn: psycopg.Connection[Any], job_types: JobTypes, attempts: Sequence[FinishedAttempt], *, backoff: Backoff
) -> list[CommitOutcome]:
    """Commit `attempts` in one transaction; returns one outcome per attempt, in order."""
    if (conn.autocommit and conn.info.transaction_status == TransactionStatus.IDLE
            and not any(attempt.failure is not None or _runs_commit_step(job_types, attempt) for attempt in attempts)):
        return _complete_plain_successes(conn, attempts)
    outcomes: list[tuple[str, str | None]] = []
    successes: list[jobs.ClaimedJob] = []
    failures: list[jobs.Failure] = []
    with conn.transaction():
        if any(_runs_commit_step(job_types, attempt) for attempt in attempts):
            owned = jobs.lock_owned(conn, [attempt.job for attempt in attempts])
        else:
            # Nothing writes before complete/fail, which check (id, attempts, running) themselves:
            # locking the rows first would cost as much again. Their answer decides "lost" below.
            owned = {attempt.job.id for attempt in attempts}
        for attempt in attempts:
            job = attempt.job
            if job.id not in owned:
                outcomes.append(("lost", LOST_AT_COMMIT))
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
        completed = jobs.complete(conn, successes)
        ended = jobs.fail(conn, failures)
        job_types.run_ended_hooks(conn, ended)
    moved = completed | {job.id for job in ended}
    requeued = {job.id for job in ended if job.state == jobs.JobState.QUEUED}
    return [_outcome(attempt.job.id, outcome, error, moved, requeued)
            for attempt, (outcome, error) in zip(attempts, outcomes, strict=True)]


def _complete_plain_successes(
    conn: psycopg.Connection[Any], attempts: Sequence[FinishedAttempt]
) -> list[CommitOutcome]:
    """Successes without a commit step: the guarded UPDATE alone is the transaction (one round trip)."""
    completed = jobs.complete(conn, [attempt.job for attempt in attempts])
    return [CommitOutcome("succeeded") if attempt.job.id in completed else CommitOutcome("lost", LOST_AT_COMMIT)
            for attempt in attempts]


def _outcome(job_id: int, outcome: str, error: str | None, moved: set[int], requeued: set[int]) -> CommitOutcome:
    if outcome != "lost" and job_id not in moved:
        return CommitOutcome("lost", LOST_AT_COMMIT)
    return CommitOutcome("retry" if outcome == "failed" and job_id in requeued else outcome, error)
