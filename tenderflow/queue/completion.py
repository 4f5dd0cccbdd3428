"""Committing finished attempts: the one place where results, follow-up jobs and a job's end state
are written — for local workers (in batches) and for remote workers' posted results alike.

One transaction per call:
    1. lock the jobs whose claim (id, attempts) is still valid and running — others are skipped
       and NOTHING is written for them (a stale worker's result is refused). When no attempt has a
       commit step to run, step 3's guarded UPDATEs are that check and that lock themselves
    2. each successful attempt's handler `commit` step, in a savepoint (one bad commit spares the rest;
       a commit step that raises AttemptFailedError keeps its writes, the record of a failed
       attempt, and its job is retried or failed as that error says)
    3. running -> succeeded for those; running -> queued/failed for failures; end-of-job hooks
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
import structlog
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool, PoolTimeout

from tenderflow.errors import AttemptFailedError, PermanentError
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
    """succeeded | retry | failed | lost (no longer owned: nothing written). `rejected`: the outcome
    could not be stored and the job was failed for good instead (see commit_alone)."""

    outcome: str
    error: str | None = None
    rejected: bool = False


LOST_AT_COMMIT = "no longer owned at commit (reclaimed or cancelled)"

log = structlog.get_logger(__name__)


def is_transient(error: BaseException) -> bool:
    """Whether the same statement may well succeed later: a lost or refused connection, a pool
    timeout, a serialization failure or deadlock (psycopg's OperationalError and InterfaceError).
    Anything else (bad data, a broken constraint, a bug) fails the same way every time."""
    return isinstance(error, psycopg.OperationalError | psycopg.InterfaceError | PoolTimeout)


def commit_alone(
    pool: ConnectionPool, job_types: JobTypes, attempt: FinishedAttempt, *, backoff: Backoff
) -> CommitOutcome:
    """Commit one attempt such that its job can never stay running because its outcome cannot be
    stored. A transient error propagates (the caller retries). Any other error fails the job for
    good with that reason, with its end-of-job hooks (refunds); if even that does not commit, the
    job is failed without them and the log says so.
    """
    try:
        with pool.connection() as conn:
            [outcome] = commit_attempts(conn, job_types, [attempt], backoff=backoff)
        return outcome
    except Exception as error:
        if is_transient(error):
            raise
        job = attempt.job
        reason = f"the job's outcome could not be stored: {type(error).__name__}: {error}"
        log.error("job.outcome_rejected", job_id=job.id, type=job.type, error=reason, exc_info=True)
    poisoned = FinishedAttempt(job, failure=jobs.Failure(job, reason, permanent=True, retry_seconds=0.0,
                                                         at_commit=True))
    try:
        with pool.connection() as conn:
            [outcome] = commit_attempts(conn, job_types, [poisoned], backoff=backoff)
        return CommitOutcome(outcome.outcome, outcome.error, rejected=outcome.outcome != "lost")
    except Exception as error:
        if is_transient(error):
            raise
        log.error("job.ended_without_hooks", job_id=job.id, type=job.type, error=reason,
                  hook_error=f"{type(error).__name__}: {error}", exc_info=True)
    with pool.connection() as conn, conn.transaction():
        ended = jobs.fail(conn, [poisoned.failure] if poisoned.failure else [])
    return CommitOutcome("failed", reason, rejected=True) if ended else CommitOutcome("lost", LOST_AT_COMMIT)


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
                recorded: AttemptFailedError | None = None
                try:
                    with conn.transaction():  # a savepoint
                        try:
                            handler.commit(conn, job, attempt.result)
                        except AttemptFailedError as exc:  # the attempt's record is written: keep it
                            recorded = exc
                except PermanentError as exc:
                    failures.append(jobs.Failure(job, str(exc), permanent=True, retry_seconds=0.0, at_commit=True))
                    outcomes.append(("failed", str(exc)))
                    continue
                except Exception as exc:  # a bug or bad result in one commit step: that job retries
                    error = f"commit step: {type(exc).__name__}: {exc}"
                    failures.append(jobs.Failure(job, error, permanent=False,
                                                 retry_seconds=backoff.delay(job.attempts), at_commit=True))
                    outcomes.append(("failed", error))
                    continue
                if recorded is not None:
                    failures.append(jobs.Failure(
                        job, str(recorded), permanent=recorded.permanent,
                        retry_seconds=(recorded.retry_after if recorded.retry_after is not None
                                       else backoff.delay(job.attempts))))
                    outcomes.append(("failed", str(recorded)))
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
