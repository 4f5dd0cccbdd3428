"""The Worker engine in this process: handler outcomes (retry with backoff, permanent failure, any
exception), cancel and manual retry, leases given back at shutdown, a stale claim never committed,
wake-ups by NOTIFY and by polling alone, the workers table, and the migration check at start."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from tenderflow.database import open_pool
from tenderflow.errors import (
    JobNotFoundError,
    JobStateError,
    LeaseLostError,
    MigrationError,
    PermanentError,
    RetryableError,
)
from tenderflow.migrations import ensure_migrated
from tenderflow.queue import (
    Backoff,
    ClaimedJob,
    EndedJob,
    FunctionHandler,
    JobContext,
    JobSpec,
    JobTypes,
    Reclaimer,
    Worker,
    WorkerConfig,
    cancel,
    claim,
    complete,
    enqueue,
    enqueue_many,
    retry,
)
from tenderflow.queue import jobs as jobs_module
from tenderflow.queue.jobs import get
from tenderflow.queue.stats import list_workers
from tests.conftest import wait_until
from tests.support.database import db_now

Conn = psycopg.Connection[Any]
# Jittered delay = step * (1 - 0.5 * 0.5): attempt n waits exactly 75 * 2**(n-1) seconds.
FIXED_BACKOFF = Backoff(base_seconds=100.0, cap_seconds=10_000.0, jitter_fraction=0.5, random=lambda: 0.5)




def wait_for_job(conn: Conn, job_id: int, state: str, *, attempts: int | None = None,
                 timeout: float = 15.0) -> dict[str, Any]:
    def reached() -> dict[str, Any] | None:
        row = get(conn, job_id)
        if row["state"] == state and (attempts is None or row["attempts"] == attempts):
            return row
        return None

    row: dict[str, Any] = wait_until(
        reached, timeout=timeout, message=f"job {job_id} is {state} (attempts={attempts}); now {get(conn, job_id)}")
    return row


@contextmanager
def running_worker(pool: ConnectionPool, job_types: JobTypes, *, start_check: Any = None,
                   **settings: Any) -> Iterator[Worker]:
    """A Worker running on a thread of this process; stopped (and checked to have stopped) on exit."""
    config: dict[str, Any] = {
        "types": job_types.names(), "threads": 2, "poll_seconds": 0.05, "heartbeat_seconds": 60.0,
        "lease_seconds": 30.0, "run_maintenance": False, "shutdown_grace_seconds": 10.0, "backoff": FIXED_BACKOFF,
    }
    config.update(settings)
    worker = Worker(pool, job_types, WorkerConfig(**config), start_check=start_check)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            worker.run()
        except BaseException as exc:  # re-raised in the test below
            errors.append(exc)

    thread = threading.Thread(target=run, name="test-worker", daemon=True)
    thread.start()
    try:
        yield worker
    finally:
        worker.request_stop()
        thread.join(config["shutdown_grace_seconds"] + 10)
    assert not thread.is_alive(), "the worker did not stop"
    if errors:
        raise errors[0]


def registry(**handlers: FunctionHandler) -> JobTypes:
    job_types = JobTypes()
    for name, handler in handlers.items():
        job_types.register(name, handler)
    return job_types


def raising(error: BaseException) -> FunctionHandler:
    def run(job: ClaimedJob, context: JobContext) -> None:
        raise error

    return FunctionHandler(run)


def do_nothing(job: ClaimedJob, context: JobContext) -> None:
    return None


@pytest.fixture
def results_table(conn: Conn) -> None:
    conn.execute("CREATE TABLE test_results (job_id bigint NOT NULL, attempt integer NOT NULL, result text)")


def write_result(conn: Conn, job: ClaimedJob, result: Any) -> None:
    conn.execute("INSERT INTO test_results VALUES (%s, %s, %s)", (job.id, job.attempts, result))


def result_rows(conn: Conn) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT job_id, attempt, result FROM test_results ORDER BY job_id, attempt").fetchall()


class BlockingHandler:
    """A handler whose run step says when it started and waits until released (or its claim is lost)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()
        self.contexts: list[JobContext] = []

    def run(self, job: ClaimedJob, context: JobContext) -> str:
        self.contexts.append(context)
        self.started.set()
        deadline = time.monotonic() + 30
        while not self.release.is_set() and not context.lost and time.monotonic() < deadline:
            self.release.wait(0.01)
        self.finished.set()
        return "computed"

    def commit(self, conn: Conn, job: ClaimedJob, result: Any) -> None:
        write_result(conn, job, result)

    def wait_started(self) -> None:
        assert self.started.wait(15), "the handler never started"


# --- handler outcomes ------------------------------------------------------------------------------


def test_retryable_error_requeues_job_with_run_after_in_the_backoff_window_of_each_attempt(
    pool: ConnectionPool, conn: Conn
) -> None:
    job_types = registry(busy=raising(RetryableError("service busy")))
    job_id = enqueue(conn, JobSpec("busy", max_attempts=5))
    with running_worker(pool, job_types):
        for attempt in (1, 2, 3):
            row = wait_for_job(conn, job_id, "queued", attempts=attempt)
            after = db_now(conn)
            delay = timedelta(seconds=75 * 2 ** (attempt - 1))
            assert row["started_at"] + delay <= row["run_after"] <= after + delay
            assert row["last_error"] == "service busy"
            conn.execute("UPDATE jobs SET run_after = now() WHERE id = %s", (job_id,))  # skip the wait


def test_retry_after_given_by_the_handler_is_honoured(pool: ConnectionPool, conn: Conn) -> None:
    job_types = registry(limited=raising(RetryableError("rate limited", retry_after=300)))
    job_id = enqueue(conn, JobSpec("limited"))
    with running_worker(pool, job_types):
        row = wait_for_job(conn, job_id, "queued", attempts=1)
    after = db_now(conn)
    assert row["started_at"] + timedelta(seconds=300) <= row["run_after"] <= after + timedelta(seconds=300)
    assert row["last_error"] == "rate limited"


def test_permanent_error_fails_the_job_at_once_with_its_message(pool: ConnectionPool, conn: Conn) -> None:
    job_types = registry(parse=raising(PermanentError("encrypted PDF: cannot be read")))
    job_id = enqueue(conn, JobSpec("parse", max_attempts=5))
    with running_worker(pool, job_types):
        row = wait_for_job(conn, job_id, "failed")
    assert (row["attempts"], row["max_attempts"]) == (1, 5)
    assert row["last_error"] == "encrypted PDF: cannot be read"
    assert row["finished_at"] is not None and row["leased_until"] is None


def test_unexpected_exception_retries_with_its_type_and_text_stored(pool: ConnectionPool, conn: Conn) -> None:
    def divide(job: ClaimedJob, context: JobContext) -> float:
        return 1 / 0

    job_id = enqueue(conn, JobSpec("divide", max_attempts=3))
    with running_worker(pool, registry(divide=FunctionHandler(divide))):
        row = wait_for_job(conn, job_id, "queued", attempts=1)
    assert row["last_error"] == "ZeroDivisionError: division by zero"
    assert row["run_after"] > row["started_at"]


def test_job_out_of_attempts_fails_with_the_last_error(pool: ConnectionPool, conn: Conn) -> None:
    attempts_seen: list[int] = []

    def always_busy(job: ClaimedJob, context: JobContext) -> None:
        attempts_seen.append(job.attempts)
        raise RetryableError(f"busy on attempt {job.attempts}", retry_after=0)

    job_id = enqueue(conn, JobSpec("busy", max_attempts=3))
    with running_worker(pool, registry(busy=FunctionHandler(always_busy))):
        row = wait_for_job(conn, job_id, "failed")
    assert attempts_seen == [1, 2, 3]
    assert (row["attempts"], row["last_error"]) == (3, "busy on attempt 3")


def test_worker_keeps_running_after_handlers_raise(pool: ConnectionPool, conn: Conn, results_table: None) -> None:
    def broken_commit(conn: Conn, job: ClaimedJob, result: Any) -> None:
        raise KeyError("no such column")

    job_types = registry(
        divide=raising(ZeroDivisionError("division by zero")),
        abort=raising(SystemExit(3)),
        bad_commit=FunctionHandler(do_nothing, broken_commit),
        ok=FunctionHandler(lambda job, context: "fine", write_result),
    )
    failing = enqueue_many(conn, [JobSpec("divide", max_attempts=1), JobSpec("abort", max_attempts=1),
                                  JobSpec("bad_commit", max_attempts=1)])
    with running_worker(pool, job_types, threads=1):
        for job_id in failing:
            wait_for_job(conn, job_id, "failed")
        ok_id = enqueue(conn, JobSpec("ok"))
        wait_for_job(conn, ok_id, "succeeded")
    assert get(conn, failing[2])["last_error"] == "commit step: KeyError: 'no such column'"
    assert result_rows(conn) == [(ok_id, 1, "fine")]


def test_worker_failure_runs_the_ended_hook_in_the_failing_transaction(pool: ConnectionPool, conn: Conn) -> None:
    conn.execute("CREATE TABLE test_refunds (job_id bigint PRIMARY KEY)")
    job_types = registry(parse=raising(PermanentError("not a PDF")), busy=raising(RetryableError("busy")))

    def refund(conn: Conn, ended: Sequence[EndedJob]) -> None:
        for job in ended:
            conn.execute("INSERT INTO test_refunds VALUES (%s)", (job.id,))

    job_types.on_job_ended(refund)
    failed_id, retried_id = enqueue_many(conn, [JobSpec("parse"), JobSpec("busy")])
    with running_worker(pool, job_types):
        wait_for_job(conn, failed_id, "failed")
        wait_for_job(conn, retried_id, "queued", attempts=1)
    assert conn.execute("SELECT job_id FROM test_refunds").fetchall() == [(failed_id,)]


# --- cancel and retry ------------------------------------------------------------------------------


def test_cancel_moves_a_queued_job_to_cancelled(conn: Conn) -> None:
    job_id = enqueue(conn, JobSpec("ocr"))
    ended = cancel(conn, job_id)
    assert (ended.id, ended.state) == (job_id, "cancelled")
    row = get(conn, job_id)
    assert row["state"] == "cancelled" and row["finished_at"] is not None
    assert claim(conn, worker_id="w1", types=["ocr"], limit=1, lease_seconds=30) == []


def test_cancelling_a_running_job_marks_its_context_lost_at_the_next_heartbeat_and_commits_nothing(
    pool: ConnectionPool, conn: Conn, results_table: None
) -> None:
    handler = BlockingHandler()
    job_id = enqueue(conn, JobSpec("slow"))
    with running_worker(pool, registry(slow=handler)) as worker:
        handler.wait_started()
        cancel(conn, job_id)
        [context] = handler.contexts
        assert not context.lost
        worker.heartbeat_once()
        assert context.lost
        assert "reclaimed or cancelled" in context.lost_reason
        with pytest.raises(LeaseLostError, match=f"job {job_id}"):
            context.check()
        assert handler.finished.wait(10)
    row = get(conn, job_id)
    assert (row["state"], row["attempts"]) == ("cancelled", 1)
    assert result_rows(conn) == []


@pytest.mark.parametrize("ended_state", ["succeeded", "failed", "cancelled"])
def test_cancelling_an_ended_job_raises_job_state_error(conn: Conn, ended_state: str) -> None:
    job_id = enqueue(conn, JobSpec("ocr", max_attempts=1))
    if ended_state == "cancelled":
        cancel(conn, job_id)
    else:
        [job] = claim(conn, worker_id="w1", types=["ocr"], limit=1, lease_seconds=30)
        if ended_state == "succeeded":
            complete(conn, [job])
        else:
            Reclaimer(JobTypes()).run_once(conn, now=db_now(conn) + timedelta(seconds=31))
    assert get(conn, job_id)["state"] == ended_state
    with pytest.raises(JobStateError, match=ended_state):
        cancel(conn, job_id)
    assert get(conn, job_id)["state"] == ended_state


def test_cancelling_or_retrying_an_unknown_job_raises_job_not_found(conn: Conn) -> None:
    with pytest.raises(JobNotFoundError):
        cancel(conn, 424242)
    with pytest.raises(JobNotFoundError):
        retry(conn, 424242)


def test_retrying_a_queued_job_raises_job_state_error(conn: Conn) -> None:
    job_id = enqueue(conn, JobSpec("ocr"))
    with pytest.raises(JobStateError, match="queued"):
        retry(conn, job_id)


def test_retry_of_a_failed_job_queues_it_with_more_attempts_and_it_runs_again(
    pool: ConnectionPool, conn: Conn, results_table: None
) -> None:
    def fail_first_time(job: ClaimedJob, context: JobContext) -> str:
        if job.attempts == 1:
            raise PermanentError("upstream said no")
        return "second time lucky"

    job_id = enqueue(conn, JobSpec("flaky", max_attempts=1))
    with running_worker(pool, registry(flaky=FunctionHandler(fail_first_time, write_result))):
        wait_for_job(conn, job_id, "failed")
        with conn.transaction():  # read before the worker (woken by the retry's NOTIFY) can claim it
            retry(conn, job_id, extra_attempts=2)
            row = get(conn, job_id)
        assert (row["state"], row["attempts"], row["max_attempts"], row["finished_at"]) == ("queued", 1, 3, None)
        row = wait_for_job(conn, job_id, "succeeded")
    assert row["attempts"] == 2 and row["last_error"] is None
    assert result_rows(conn) == [(job_id, 2, "second time lucky")]


# --- shutdown ----------------------------------------------------------------------------------------


def test_stop_gives_back_the_lease_of_a_job_running_past_grace(
    pool: ConnectionPool, conn: Conn, results_table: None
) -> None:
    handler = BlockingHandler()
    job_id = enqueue(conn, JobSpec("slow", max_attempts=4))
    with running_worker(pool, registry(slow=handler), shutdown_grace_seconds=0.3) as worker:
        handler.wait_started()
        worker.request_stop()
    row = get(conn, job_id)
    assert (row["state"], row["attempts"], row["max_attempts"], row["leased_until"]) == ("queued", 1, 5, None)
    assert row["last_error"].startswith("released by worker")
    assert handler.contexts[0].lost  # told to stop computing
    assert handler.finished.wait(10)
    assert result_rows(conn) == []


def test_stop_lets_a_job_finish_within_grace(pool: ConnectionPool, conn: Conn, results_table: None) -> None:
    handler = BlockingHandler()
    job_id = enqueue(conn, JobSpec("slow"))
    with running_worker(pool, registry(slow=handler), shutdown_grace_seconds=10) as worker:
        handler.wait_started()
        worker.request_stop()
        handler.release.set()
    assert get(conn, job_id)["state"] == "succeeded"
    assert result_rows(conn) == [(job_id, 1, "computed")]


def test_a_stop_during_the_listeners_claim_waits_for_it_and_leaves_no_job_running(
    pool: ConnectionPool, conn: Conn
) -> None:
    """Found by CI (a double-SIGINT test's worker exited before its second signal): the listener
    claims on a NOTIFY on its own thread; a stop that came while that claim was under way saw no
    job held, so it neither waited for nor gave back the job that claim then took: it stayed
    `running` under a stopped worker until its lease ran out."""
    ran = threading.Event()

    def note(job: ClaimedJob, context: JobContext) -> None:
        ran.set()

    blocker = psycopg.connect(conn.info.dsn, autocommit=True)
    try:
        with running_worker(pool, registry(quick=FunctionHandler(note)), poll_seconds=30.0) as worker:
            wait_until(lambda: conn.execute("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%%' "
                                            "AND datname = current_database()"
                                            ).fetchone() == (1,), message="the worker listens")
            time.sleep(0.2)  # the claimer's first claim is over: it sleeps until a wake-up
            blocker.execute("SELECT pg_advisory_lock(%s)", (jobs_module.CLAIM_LOCK_KEY,))
            job_id = enqueue(conn, JobSpec("quick"))  # its NOTIFY: the listener claims, and waits for the lock
            wait_until(lambda: conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' "
                "AND datname = current_database()"
            ).fetchone() == (1,), message="the listener's claim waits for the claim lock")
            worker.request_stop()
            threading.Timer(0.5, lambda: blocker.execute("SELECT pg_advisory_unlock_all()")).start()
        row = get(conn, job_id)
        assert row["state"] != "running", row
        assert ran.is_set() == (row["state"] == "succeeded")
    finally:
        blocker.close()


# --- a stale claim is never committed -------------------------------------------------------------


def test_worker_commits_nothing_for_a_job_reclaimed_and_claimed_by_another_worker_meanwhile(
    pool: ConnectionPool, conn: Conn, results_table: None
) -> None:
    handler = BlockingHandler()
    job_id = enqueue(conn, JobSpec("slow", max_attempts=3))
    with running_worker(pool, registry(slow=handler), lease_seconds=30, heartbeat_seconds=60):
        handler.wait_started()
        later = db_now(conn) + timedelta(seconds=31)
        [moved] = Reclaimer(JobTypes()).run_once(conn, now=later)
        assert moved.id == job_id
        [other] = claim(conn, worker_id="w2", types=["slow"], limit=1, lease_seconds=30, now=later)
        assert other.attempts == 2
        handler.release.set()  # the first worker now reaches its completion transaction
        assert handler.finished.wait(10)
    # The worker has stopped, so its commit of attempt 1 was tried (and refused) before this point.
    row = get(conn, job_id)
    assert (row["state"], row["attempts"], row["worker_id"]) == ("running", 2, "w2")
    assert result_rows(conn) == []
    assert complete(conn, [other]) == {job_id}


# --- wake-ups ------------------------------------------------------------------------------------------


def listening_sessions(conn: Conn) -> int:
    row = conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'"
    ).fetchone()
    assert row is not None
    return int(row[0])


def test_notify_wakes_an_idle_worker_long_before_its_poll_interval(pool: ConnectionPool, conn: Conn) -> None:
    started_at: list[float] = []

    def note_start(job: ClaimedJob, context: JobContext) -> None:
        started_at.append(time.monotonic())

    with running_worker(pool, registry(ping=FunctionHandler(note_start)), poll_seconds=30.0, notify=True):
        wait_until(lambda: listening_sessions(conn) == 1, message="the worker LISTENs")
        time.sleep(0.3)  # let the claim loop settle into its 30 s wait (only makes the test stricter)
        enqueued_at = time.monotonic()
        job_id = enqueue(conn, JobSpec("ping"))
        wait_for_job(conn, job_id, "succeeded", timeout=10)
    assert started_at[0] - enqueued_at < 2.0


def test_an_idle_worker_claims_the_job_a_notification_names_and_searches_on_a_batchs(
    pool: ConnectionPool, conn: Conn
) -> None:
    """An idle worker (its last claim left slots free) claims the job a notification names by its
    id: a job slipped in without a notification is not taken with it (the claim after the named
    job's commit, or the 30 s poll, would); a batch's notification names no job, and the worker's
    claim then searches and takes the slipped-in job too."""
    started: list[str] = []
    release = threading.Event()

    def note(job: ClaimedJob, context: JobContext) -> None:
        started.append(job.payload["n"])
        release.wait(10)  # nothing commits (and so wakes the claimer) until the test has looked

    def slip_in(name: str) -> int:  # queued, but no NOTIFY
        row = conn.execute("INSERT INTO jobs (type, payload) VALUES ('ping', %s) RETURNING id",
                           (psycopg.types.json.Jsonb({"n": name}),)).fetchone()
        assert row is not None
        return int(row[0])

    try:
        with running_worker(pool, registry(ping=FunctionHandler(note)), poll_seconds=30.0, threads=4):
            wait_until(lambda: listening_sessions(conn) == 1, message="the worker LISTENs")
            time.sleep(0.3)  # the claimer's first claim is over: it sleeps until a wake-up
            silent = slip_in("silent")
            named = enqueue(conn, JobSpec("ping", {"n": "named"}))
            wait_until(lambda: started == ["named"], timeout=10, message="the named job started")
            time.sleep(0.3)
            assert get(conn, silent)["state"] == "queued" and started == ["named"]
            enqueue_many(conn, [JobSpec("ping", {"n": "batch"})])
            wait_until(lambda: sorted(started) == ["batch", "named", "silent"], timeout=10,
                       message="the batch's notification: a searching claim takes the silent job too")
            release.set()
            wait_for_job(conn, named, "succeeded", timeout=10)
    finally:
        release.set()


def test_polling_alone_drains_the_queue_without_notify(pool: ConnectionPool, conn: Conn) -> None:
    with running_worker(pool, registry(ping=FunctionHandler(do_nothing)), poll_seconds=0.2, notify=False,
                        threads=4) as worker:
        wait_until(lambda: conn.execute("SELECT 1 FROM workers WHERE id = %s", (worker.id,)).fetchone(),
                   message="the worker registered")
        assert listening_sessions(conn) == 0
        enqueue_many(conn, [JobSpec("ping", {"n": n}) for n in range(200)])
        wait_until(lambda: conn.execute("SELECT count(*) FROM jobs WHERE state = 'succeeded'").fetchone() == (200,),
                   timeout=60, message="all 200 jobs succeeded")
    assert conn.execute("SELECT count(*), sum(attempts) FROM jobs").fetchone() == (200, 200)


# --- the workers table ---------------------------------------------------------------------------------


def test_running_worker_registers_heartbeats_and_is_marked_stopped_on_exit(pool: ConnectionPool, conn: Conn) -> None:
    job_types = registry(ocr=FunctionHandler(do_nothing), extract=FunctionHandler(do_nothing))

    def worker_row(worker_id: str) -> dict[str, Any] | None:
        rows = [row for row in list_workers(conn, dead_after_seconds=60) if row["id"] == worker_id]
        return rows[0] if rows else None

    with running_worker(pool, job_types, types=["ocr", "extract"], threads=3, heartbeat_seconds=0.1) as worker:
        registered = wait_until(lambda: worker_row(worker.id), message="the worker registered")
        assert (registered["host"], registered["pid"], registered["pools"], registered["threads"]) == (
            socket.gethostname(), os.getpid(), ["ocr", "extract"], 3)
        assert registered["status"] == "live" and registered["stopped_at"] is None
        wait_until(lambda: (worker_row(worker.id) or registered)["last_seen_at"] > registered["last_seen_at"],
                   message="the worker heartbeats its row")
    stopped = worker_row(worker.id)
    assert stopped is not None and stopped["status"] == "stopped" and stopped["stopped_at"] is not None


def test_worker_refuses_to_start_while_migrations_are_pending(empty_database_url: str) -> None:
    """The host's start check (the CLI passes the migrations' one) runs before the worker registers."""
    empty_pool = open_pool(empty_database_url, min_size=1, max_size=4, name="test")
    try:
        worker = Worker(empty_pool, registry(ocr=FunctionHandler(do_nothing)), WorkerConfig(types=["ocr"]),
                        start_check=ensure_migrated)
        with pytest.raises(MigrationError, match="tenderflow db migrate"):
            worker.run()
    finally:
        empty_pool.close()


# --- no error wedges a worker (review D1, D4) -------------------------------------------------------


def test_a_failure_text_with_nul_and_escapes_is_stored_cleaned_and_the_worker_goes_on(
    pool: ConnectionPool, conn: Conn
) -> None:
    job_types = registry(poison=raising(PermanentError("bad request \x00 with NUL \x1b[2J" + "x" * 5000)),
                         fine=FunctionHandler(do_nothing))
    poison_id = enqueue(conn, JobSpec("poison"))
    with running_worker(pool, job_types):
        row = wait_for_job(conn, poison_id, "failed")
        later_id = enqueue(conn, JobSpec("fine"))
        wait_for_job(conn, later_id, "succeeded")
    assert row["last_error"].startswith("bad request  with NUL [2J")
    assert len(row["last_error"]) <= 2000


def test_a_retry_after_past_the_calendar_is_capped(pool: ConnectionPool, conn: Conn) -> None:
    job_types = registry(limited=raising(RetryableError("slow down", retry_after=1e15)))
    job_id = enqueue(conn, JobSpec("limited"))
    with running_worker(pool, job_types):
        row = wait_for_job(conn, job_id, "queued", attempts=1)
    assert row["run_after"] <= db_now(conn) + timedelta(seconds=FIXED_BACKOFF.cap_seconds)


def test_an_outcome_that_cannot_be_stored_fails_that_job_alone_and_never_leaves_it_running(
    pool: ConnectionPool, conn: Conn
) -> None:
    """An end-of-job hook that breaks on one job (as a DataError from bad data would) must not keep
    the batch it came in, or the worker, retrying forever while heartbeats keep the leases alive."""
    conn.execute("CREATE TABLE test_refunds (job_id bigint PRIMARY KEY)")

    def refund(conn: Conn, ended: Sequence[EndedJob]) -> None:
        for job in ended:
            if job.payload.get("poison"):
                conn.execute("SELECT 'x'::integer")  # a deterministic DataError in the transaction
            conn.execute("INSERT INTO test_refunds VALUES (%s)", (job.id,))

    job_types = registry(parse=raising(PermanentError("not a PDF")), fine=FunctionHandler(do_nothing))
    job_types.on_job_ended(refund)
    poison_id = enqueue(conn, JobSpec("parse", payload={"poison": True}))
    others = enqueue_many(conn, [JobSpec("parse") for _ in range(5)] + [JobSpec("fine") for _ in range(5)])
    with running_worker(pool, job_types, threads=4):
        poisoned = wait_for_job(conn, poison_id, "failed")
        for job_id in others:
            wait_until(lambda job_id=job_id: get(conn, job_id)["state"] in ("failed", "succeeded"),
                       message=f"job {job_id} ended")
        after_id = enqueue(conn, JobSpec("fine"))
        wait_for_job(conn, after_id, "succeeded")
    assert "could not be stored" in poisoned["last_error"] and "InvalidTextRepresentation" in poisoned["last_error"]
    refunded = {row[0] for row in conn.execute("SELECT job_id FROM test_refunds")}
    assert refunded == set(others[:5]), "every other failed job got its hook; the poisoned one could not"
    assert conn.execute("SELECT count(*) FROM jobs WHERE state = 'running'").fetchone() == (0,)


def test_the_maintenance_and_heartbeat_threads_survive_any_exception(
    pool: ConnectionPool, conn: Conn, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = {"maintenance": 0, "heartbeat": 0}
    job_types = registry(fine=FunctionHandler(do_nothing))
    with running_worker(pool, job_types, run_maintenance=True, maintenance_seconds=0.02,
                        heartbeat_seconds=0.02) as worker:
        def broken_maintenance(conn: Conn) -> None:
            calls["maintenance"] += 1
            raise ValueError("a bug in maintenance")

        original = worker.heartbeat_once

        def broken_heartbeat() -> None:
            calls["heartbeat"] += 1
            if calls["heartbeat"] < 3:
                raise KeyError("a bug in the heartbeat")
            original()

        monkeypatch.setattr(worker.maintenance, "run_once", broken_maintenance)
        monkeypatch.setattr(worker, "heartbeat_once", broken_heartbeat)
        wait_until(lambda: calls["maintenance"] >= 3 and calls["heartbeat"] >= 4,
                   message="both loops ran again after raising")
        job_id = enqueue(conn, JobSpec("fine"))
        wait_for_job(conn, job_id, "succeeded")


def test_n2_the_claim_loop_survives_any_exception(pool: ConnectionPool, conn: Conn,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Review security-2, N2: the claim loop caught only database errors; anything else (a bug in
    reading a claimed row) ended its thread, and the worker heartbeated on without claiming."""
    job_types = registry(fine=FunctionHandler(do_nothing))
    failures = {"left": 3}
    original = jobs_module.claim

    def broken_claim(*args: Any, **kwargs: Any) -> Any:
        if failures["left"] > 0:
            failures["left"] -= 1
            raise ValueError("a bug in claiming")
        return original(*args, **kwargs)

    monkeypatch.setattr(jobs_module, "claim", broken_claim)
    # No listener: the claim loop is the only claimer, so the job runs only if the loop outlived its
    # three failures (with one, the listener's claim on the job's NOTIFY could beat the loop to it).
    with running_worker(pool, job_types, poll_seconds=0.05, notify=False):
        job_id = enqueue(conn, JobSpec("fine"))
        wait_for_job(conn, job_id, "succeeded")
    assert failures["left"] == 0


def test_run_once_claims_runs_and_commits_one_batch_in_the_calling_thread(
    pool: ConnectionPool, conn: Conn, results_table: None
) -> None:
    """The synchronous pass the harnesses drain with: no thread, no sleep, the same commit path
    (a commit step that raises sends that job alone back to wait for its retry)."""

    def broken_commit(conn: Conn, job: ClaimedJob, result: Any) -> None:
        conn.execute("SELECT 1/0")

    job_types = registry(ok=FunctionHandler(lambda job, context: f"ran {job.id}", write_result),
                         poison=FunctionHandler(do_nothing, broken_commit))
    ids = [enqueue(conn, JobSpec(type=name)) for name in ("ok", "poison", "ok")]
    worker = Worker(pool, job_types, WorkerConfig(types=["ok", "poison"], threads=2))
    assert worker.run_once() == 2
    assert [get(conn, job_id)["state"] for job_id in ids] == ["succeeded", "queued", "queued"]
    assert "division by zero" in get(conn, ids[1])["last_error"]
    assert worker.run_once() == 1 and worker.run_once() == 0  # the poisoned one waits for its backoff
    assert result_rows(conn) == [(ids[0], 1, f"ran {ids[0]}"), (ids[2], 1, f"ran {ids[2]}")]


# --- the database connection is killed under the worker (pg_terminate_backend) ----------------------


def listener_pids(conn: Conn) -> set[int]:
    return {row[0] for row in conn.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%%'")}


def test_a_listener_whose_connection_is_killed_listens_again_and_misses_no_job(
    pool: ConnectionPool, conn: Conn
) -> None:
    """pg_terminate_backend on the LISTEN connection: the listener reconnects and wakes the claimer
    (a notification sent while it was away is lost), so a job enqueued meanwhile still starts at
    once, although the worker polls only every 30 s."""
    with running_worker(pool, registry(ping=FunctionHandler(do_nothing)), poll_seconds=30.0, notify=True):
        [first] = wait_until(lambda: listener_pids(conn), message="the worker listens")
        conn.execute("SELECT pg_terminate_backend(%s)", (first,))
        enqueued_at = time.monotonic()
        job_id = enqueue(conn, JobSpec("ping"))
        wait_for_job(conn, job_id, "succeeded", timeout=10)
        assert time.monotonic() - enqueued_at < 5.0
        wait_until(lambda: listener_pids(conn) - {first}, message="a new LISTEN connection")


def test_a_commit_whose_connection_is_killed_is_retried_and_written_once(
    pool: ConnectionPool, conn: Conn, results_table: None
) -> None:
    """pg_terminate_backend on the committer's connection in the middle of its transaction: nothing
    of that transaction stays, the committer retries the batch on a new connection, every job
    succeeds and each result is written exactly once."""
    killed: list[int] = []

    def commit_killing_itself_once(conn: Conn, job: ClaimedJob, result: Any) -> None:
        write_result(conn, job, result)
        if not killed:
            killed.append(job.id)
            conn.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    job_types = registry(work=FunctionHandler(lambda job, context: f"done {job.id}", commit_killing_itself_once))
    ids = enqueue_many(conn, [JobSpec("work", {"n": n}) for n in range(6)])
    with running_worker(pool, job_types):
        for job_id in ids:
            wait_for_job(conn, job_id, "succeeded", timeout=20)
    assert killed
    assert result_rows(conn) == [(job_id, 1, f"done {job_id}") for job_id in sorted(ids)]


def test_prefetch_claims_beyond_the_threads_and_a_stop_gives_the_unstarted_jobs_back(
    pool: ConnectionPool, conn: Conn
) -> None:
    started: list[int] = []
    release = threading.Event()

    def hold(job: ClaimedJob, context: JobContext) -> None:
        started.append(job.id)
        release.wait(10)

    ids = enqueue_many(conn, [JobSpec("hold") for _ in range(4)])
    with running_worker(pool, registry(hold=FunctionHandler(hold)), threads=1, prefetch=3) as worker:
        wait_until(lambda: len(started) == 1, message="the one thread started a job")
        # One claim took all four (one thread + three prefetched): all leased, one running its handler.
        assert conn.execute("SELECT count(*) FROM jobs WHERE state = 'running'").fetchone() == (4,)
        assert worker.claimed_total == 4
        worker.request_stop()
        wait_until(lambda: conn.execute("SELECT count(*) FROM jobs WHERE state = 'queued'").fetchone() == (3,),
                   message="the three jobs never started were given back while the fourth still runs")
        release.set()
    assert started == ids[:1]
    assert get(conn, ids[0])["state"] == "succeeded"
    for job_id in ids[1:]:
        job = get(conn, job_id)
        assert job["state"] == "queued" and "released" in job["last_error"]
        assert job["max_attempts"] == 6  # the given-back claim is not held against the job


def test_a_worker_whose_connection_dies_while_it_registers_registers_on_a_fresh_one(
    pool: ConnectionPool, conn: Conn
) -> None:
    """A connection lost between the host's start check and the worker's row (a restart, or the
    pg_terminate_backend of another test on a shared server, which ended a worker thread this way)
    costs a second try on a fresh connection, not the worker."""
    checked: list[int] = []

    def start_check(check_conn: Conn) -> None:
        checked.append(check_conn.info.backend_pid)
        if len(checked) == 1:  # the first time: its session ends before the row is written
            conn.execute("SELECT pg_terminate_backend(%s, 10000)", (check_conn.info.backend_pid,))

    job_types = registry(fine=FunctionHandler(do_nothing))
    with running_worker(pool, job_types, start_check=start_check) as worker:
        wait_until(lambda: conn.execute("SELECT 1 FROM workers WHERE id = %s", (worker.id,)).fetchone(),
                   message="the worker registered")
        assert len(checked) == 2 and checked[0] != checked[1]
        wait_for_job(conn, enqueue(conn, JobSpec("fine")), "succeeded")


def test_a_worker_whose_claim_and_commit_connections_are_killed_goes_on_with_new_ones(
    pool: ConnectionPool, conn: Conn
) -> None:
    """The claimer and the committer keep their connection between uses; a server that drops them
    (a restart, pg_terminate_backend) costs a failed claim or commit, retried on a fresh one."""
    job_types = registry(fine=FunctionHandler(do_nothing))
    with running_worker(pool, job_types, threads=2):
        first = enqueue(conn, JobSpec("fine"))
        wait_for_job(conn, first, "succeeded")
        # This database's sessions only: on a shared server the other pytest-xdist worker's tests
        # have pools named `test` too (killing theirs failed a test there, once in a few CI runs).
        killed = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                              "WHERE application_name LIKE 'test:%%' AND pid <> pg_backend_pid() "
                              "AND datname = current_database()").fetchone()
        assert killed is not None and killed[0] >= 2  # at least the claimer's and the committer's
        after = enqueue_many(conn, [JobSpec("fine") for _ in range(5)])
        for job_id in after:
            wait_for_job(conn, job_id, "succeeded", attempts=1)


def test_a_job_context_wakes_a_wait_whether_the_claim_was_lost_before_or_during_it() -> None:
    """JobContext makes its Event only when a handler waits (most never do): a loss marked before the
    first wait, or while a handler waits, still ends the wait at once."""
    job = ClaimedJob(1, "t", {}, "default", 0, 1, 5, datetime.now(), "w")
    early = JobContext(job)
    early.mark_lost("reclaimed")
    started = time.monotonic()
    assert early.wait(5.0) and early.lost and time.monotonic() - started < 1.0
    with pytest.raises(LeaseLostError, match="reclaimed"):
        early.check()
    waiting = JobContext(job)
    threading.Timer(0.2, waiting.mark_lost, args=("cancelled",)).start()
    started = time.monotonic()
    assert waiting.wait(5.0) and time.monotonic() - started < 2.0
    assert not JobContext(job).wait(0.05)  # nobody marked it: the wait runs out
