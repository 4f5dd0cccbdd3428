"""A commit step that records a failed attempt (AttemptFailedError): its writes stand and the job is
retried after the delay it asked for, or failed at once (with its end-of-job hooks) when permanent;
any other error of a commit step still rolls its writes back. Generic queue behaviour, tested with
plain handlers (webhook deliveries are its first user)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow.errors import AttemptFailedError
from tenderflow.queue import (
    Backoff,
    ClaimedJob,
    EndedJob,
    FunctionHandler,
    JobContext,
    JobSpec,
    JobTypes,
    Worker,
    WorkerConfig,
    enqueue,
)
from tenderflow.queue.jobs import get

Conn = psycopg.Connection[Any]


def make_worker(pool: ConnectionPool, fails_until: int, *, permanent: bool = False,
                ended: list[EndedJob] | None = None) -> Worker:
    def run(job: ClaimedJob, context: JobContext) -> int:
        return job.attempts

    def commit(conn: Conn, job: ClaimedJob, attempt: int) -> None:
        conn.execute("INSERT INTO attempt_notes (job_id, attempt) VALUES (%s, %s)", (job.id, attempt))
        if attempt < fails_until:
            raise AttemptFailedError(f"receiver said no on attempt {attempt}", retry_after=0.0, permanent=permanent)

    job_types = JobTypes()
    job_types.register("noted", FunctionHandler(run, commit))
    if ended is not None:
        job_types.on_job_ended(lambda conn, jobs: ended.extend(jobs))
    return Worker(pool, job_types, WorkerConfig(types=["noted"], threads=1, notify=False, run_maintenance=False,
                                                backoff=Backoff(base_seconds=600.0, random=lambda: 0.0)))


def test_a_recorded_failure_keeps_its_record_and_the_job_retries_when_asked(conn: Conn, pool: ConnectionPool) -> None:
    conn.execute("CREATE TABLE attempt_notes (job_id bigint, attempt integer)")
    job_id = enqueue(conn, JobSpec("noted"), known_types=["noted"])
    worker = make_worker(pool, fails_until=3)
    for _ in range(3):
        assert worker.run_once() == 1
    row = get(conn, job_id)
    assert (row["state"], row["attempts"]) == ("succeeded", 3)
    notes = conn.execute("SELECT attempt FROM attempt_notes WHERE job_id = %s ORDER BY attempt", (job_id,)).fetchall()
    assert notes == [(1,), (2,), (3,)], "every failed attempt's record was kept"


def test_the_retry_waits_what_the_commit_step_asked_not_the_workers_backoff(conn: Conn, pool: ConnectionPool) -> None:
    conn.execute("CREATE TABLE attempt_notes (job_id bigint, attempt integer)")
    job_id = enqueue(conn, JobSpec("noted"), known_types=["noted"])
    assert make_worker(pool, fails_until=2).run_once() == 1
    row = get(conn, job_id)
    assert row["state"] == "queued" and row["last_error"] == "receiver said no on attempt 1"
    waited = conn.execute("SELECT run_after - now() FROM jobs WHERE id = %s", (job_id,)).fetchone()
    assert waited is not None and waited[0] < timedelta(seconds=60), "retry_after=0, not the 600 s backoff"


def test_a_permanent_recorded_failure_fails_the_job_at_once_with_its_hooks(conn: Conn, pool: ConnectionPool) -> None:
    conn.execute("CREATE TABLE attempt_notes (job_id bigint, attempt integer)")
    ended: list[EndedJob] = []
    job_id = enqueue(conn, JobSpec("noted", max_attempts=5), known_types=["noted"])
    assert make_worker(pool, fails_until=9, permanent=True, ended=ended).run_once() == 1
    row = get(conn, job_id)
    assert (row["state"], row["attempts"], row["last_error"]) == ("failed", 1, "receiver said no on attempt 1")
    assert [(job.id, job.state.value) for job in ended] == [(job_id, "failed")]
    assert conn.execute("SELECT count(*) FROM attempt_notes").fetchone() == (1,)


def test_any_other_commit_error_still_rolls_its_writes_back(conn: Conn, pool: ConnectionPool) -> None:
    conn.execute("CREATE TABLE attempt_notes (job_id bigint, attempt integer)")

    def commit(conn: Conn, job: ClaimedJob, result: Any) -> None:
        conn.execute("INSERT INTO attempt_notes (job_id, attempt) VALUES (%s, %s)", (job.id, job.attempts))
        raise ValueError("a bug")

    job_types = JobTypes()
    job_types.register("buggy", FunctionHandler(lambda job, context: None, commit))
    job_id = enqueue(conn, JobSpec("buggy"), known_types=["buggy"])
    Worker(pool, job_types, WorkerConfig(types=["buggy"], threads=1, notify=False, run_maintenance=False)).run_once()
    assert get(conn, job_id)["state"] == "queued"
    assert conn.execute("SELECT count(*) FROM attempt_notes").fetchone() == (0,)
