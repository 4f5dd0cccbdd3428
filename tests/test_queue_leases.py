"""Leases and ownership: heartbeats, the (id, attempts, running) guard that refuses a stale worker
every write, the reclaimer racing a completion (both orders, forced with two connections), and
reclaim's outcomes and hooks."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

import psycopg
import pytest

from tenderflow.queue import (
    ClaimedJob,
    EndedJob,
    Failure,
    JobSpec,
    JobTypes,
    Reclaimer,
    claim,
    complete,
    enqueue,
    enqueue_many,
    fail,
    heartbeat,
    lock_owned,
    reclaim,
    release,
)
from tenderflow.queue.jobs import QUERIES, get, hold_liveness_lock, new_liveness_key
from tests.conftest import wait_until
from tests.support.database import db_now

Conn = psycopg.Connection[Any]
LEASE = 30.0
PAST_LEASE = timedelta(seconds=LEASE + 1)


def claim_one(conn: Conn, worker_id: str, now: datetime) -> ClaimedJob:
    [job] = claim(conn, worker_id=worker_id, types=["ocr"], limit=1, lease_seconds=LEASE, now=now)
    return job




@pytest.fixture
def results_table(conn: Conn) -> str:
    """Where the handlers in these tests write their results."""
    conn.execute("CREATE TABLE test_results (job_id bigint NOT NULL, attempt integer NOT NULL)")
    return "test_results"


def result_rows(conn: Conn) -> list[tuple[int, int]]:
    return [(job_id, attempt) for job_id, attempt in conn.execute("SELECT job_id, attempt FROM test_results")]


def claimed_by_w1(conn: Conn, max_attempts: int = 3) -> tuple[ClaimedJob, datetime]:
    """A new ocr job claimed by worker w1 at the database's now: the claim, and that now."""
    job_id = enqueue(conn, JobSpec("ocr", max_attempts=max_attempts))
    start = db_now(conn)
    job = claim_one(conn, "w1", start)
    assert job.id == job_id
    return job, start


def assert_writes_nothing(conn: Conn, job: ClaimedJob) -> None:
    """A claim that is no longer the job's: its heartbeat, results, failure and release all refused."""
    assert heartbeat(conn, [job], lease_seconds=LEASE) == set()
    assert commit_results_as_a_handler_would(conn, job) == (set(), set())
    assert fail(conn, [Failure(job, "from a claim no longer the job's", permanent=True, retry_seconds=0)]) == []
    assert release(conn, [job]) == set()


def commit_results_as_a_handler_would(conn: Conn, job: ClaimedJob) -> tuple[set[int], set[int]]:
    """A completion transaction: lock the jobs still owned, write their results, mark them succeeded.
    Returns (owned, completed)."""
    with conn.transaction():
        owned = lock_owned(conn, [job])
        if job.id in owned:
            conn.execute("INSERT INTO test_results (job_id, attempt) VALUES (%s, %s)", (job.id, job.attempts))
        completed = complete(conn, [job])
    return owned, completed


@pytest.fixture
def other_conn(database_url: str) -> Iterator[Conn]:
    """A second session; a lock wait on it fails after 2 s instead of hanging the test."""
    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute("SET lock_timeout = '2s'")
        yield connection


# --- heartbeats ---------------------------------------------------------------------------------


def test_heartbeat_renews_every_held_lease_in_one_statement(conn: Conn) -> None:
    enqueue_many(conn, [JobSpec("ocr") for _ in range(5)])
    start = db_now(conn)
    held = claim(conn, worker_id="w1", types=["ocr"], limit=5, lease_seconds=LEASE, now=start)
    later = start + timedelta(seconds=20)
    assert heartbeat(conn, held, lease_seconds=LEASE, now=later) == {job.id for job in held}
    rows = conn.execute(
        "SELECT array_agg(DISTINCT leased_until), count(DISTINCT cmin::text), count(DISTINCT xmin::text) FROM jobs"
    ).fetchall()
    assert rows == [([later + timedelta(seconds=LEASE)], 1, 1)]  # one statement renewed all five


def test_heartbeat_after_cancel_reports_the_job_as_no_longer_owned(conn: Conn) -> None:
    from tenderflow.queue import cancel

    enqueue_many(conn, [JobSpec("ocr") for _ in range(2)])
    start = db_now(conn)
    kept, cancelled = claim(conn, worker_id="w1", types=["ocr"], limit=2, lease_seconds=LEASE, now=start)
    cancel(conn, cancelled.id)
    assert heartbeat(conn, [kept, cancelled], lease_seconds=LEASE) == {kept.id}


# --- a stale worker writes nothing ------------------------------------------------------------------


def test_stale_worker_is_refused_every_write_after_its_job_was_reclaimed_and_claimed_again(
    conn: Conn, results_table: str
) -> None:
    stale, start = claimed_by_w1(conn)
    job_id = stale.id
    [requeued] = Reclaimer(JobTypes()).run_once(conn, now=start + PAST_LEASE)
    assert (requeued.id, requeued.state) == (job_id, "queued")
    current = claim_one(conn, "w2", start + PAST_LEASE)
    assert (current.id, current.attempts) == (job_id, 2)
    row_before = get(conn, job_id)

    assert_writes_nothing(conn, stale)

    assert get(conn, job_id) == row_before  # W2's claim untouched: lease, worker, attempts, state
    assert row_before["worker_id"] == "w2" and row_before["state"] == "running"
    assert result_rows(conn) == []
    assert commit_results_as_a_handler_would(conn, current) == ({job_id}, {job_id})
    assert get(conn, job_id)["state"] == "succeeded"
    assert result_rows(conn) == [(job_id, 2)]


def test_a_claim_lost_in_a_server_crash_leaves_its_worker_nothing_to_write(
    conn: Conn, results_table: str
) -> None:
    # Claims commit without waiting for their WAL flush: a server crash can undo one, putting the job
    # back with its old attempts, and the next claim then reaches the same attempts number again. The
    # worker id in the token is what still tells the two claims apart.
    lost, start = claimed_by_w1(conn)
    job_id = lost.id
    conn.execute(  # what crash recovery leaves behind when the claim's commit never reached the disk
        "UPDATE jobs SET state = 'queued', attempts = attempts - 1, worker_id = NULL, leased_until = NULL,"
        " started_at = NULL WHERE id = %s", (job_id,))
    current = claim_one(conn, "w2", start)
    assert (current.id, current.attempts) == (lost.id, lost.attempts)

    assert_writes_nothing(conn, lost)
    assert result_rows(conn) == []
    assert commit_results_as_a_handler_would(conn, current) == ({job_id}, {job_id})


# --- the reclaimer racing a completion ---------------------------------------------------------------


def test_reclaim_skips_a_job_whose_completion_holds_its_lock_and_the_job_succeeds(
    conn: Conn, other_conn: Conn, results_table: str
) -> None:
    job, start = claimed_by_w1(conn)
    job_id = job.id
    reclaimer = Reclaimer(JobTypes())

    with conn.transaction():  # the completion, lease already over by the reclaimer's clock
        assert lock_owned(conn, [job]) == {job_id}
        assert reclaimer.run_once(other_conn, now=start + PAST_LEASE) == []  # SKIP LOCKED, no wait
        conn.execute("INSERT INTO test_results (job_id, attempt) VALUES (%s, %s)", (job.id, job.attempts))
        assert complete(conn, [job]) == {job_id}

    assert reclaimer.run_once(other_conn, now=start + PAST_LEASE) == []
    assert get(conn, job_id)["state"] == "succeeded"
    assert result_rows(conn) == [(job_id, 1)]


@pytest.mark.parametrize("max_attempts", [1, 3], ids=["final-attempt", "attempts-left"])
def test_completion_after_reclaim_writes_nothing(
    conn: Conn, other_conn: Conn, results_table: str, max_attempts: int
) -> None:
    job, start = claimed_by_w1(conn, max_attempts)
    job_id = job.id
    [moved] = Reclaimer(JobTypes()).run_once(other_conn, now=start + PAST_LEASE)

    assert commit_results_as_a_handler_would(conn, job) == (set(), set())

    expected_state = "failed" if max_attempts == 1 else "queued"
    assert moved.state == expected_state
    assert (get(conn, job_id)["state"], get(conn, job_id)["attempts"]) == (expected_state, 1)
    assert result_rows(conn) == []


def test_completion_blocked_behind_an_uncommitted_reclaim_finds_the_job_gone(
    database_url: str, conn: Conn, other_conn: Conn, results_table: str
) -> None:
    job, start = claimed_by_w1(conn)
    job_id = job.id
    outcome: list[tuple[set[int], set[int]]] = []
    errors: list[BaseException] = []

    def complete_on_its_own_connection() -> None:
        try:
            with psycopg.connect(database_url, autocommit=True, application_name="test-completion") as connection:
                outcome.append(commit_results_as_a_handler_would(connection, job))
        except BaseException as exc:  # reported below
            errors.append(exc)

    completion = threading.Thread(target=complete_on_its_own_connection)
    with other_conn.transaction():
        [moved] = Reclaimer(JobTypes()).run_once(other_conn, now=start + PAST_LEASE)
        completion.start()
        wait_until(lambda: conn.execute(
            "SELECT 1 FROM pg_stat_activity WHERE application_name = 'test-completion' AND wait_event_type = 'Lock' "
            "AND datname = current_database()"
        ).fetchone(), timeout=10, message="the completion waits for the reclaim's row lock")
    completion.join(10)

    assert errors == []
    assert outcome == [(set(), set())]
    assert (moved.id, get(conn, job_id)["state"]) == (job_id, "queued")
    assert result_rows(conn) == []


# --- reclaim ----------------------------------------------------------------------------------------


def test_reclaim_requeues_an_expired_job_while_attempts_remain(conn: Conn) -> None:
    job, start = claimed_by_w1(conn)
    job_id = job.id
    reclaimed_at = start + PAST_LEASE
    moved = Reclaimer(JobTypes()).run_once(conn, now=reclaimed_at)
    assert [(job.id, job.state, job.attempts) for job in moved] == [(job_id, "queued", 1)]
    row = get(conn, job_id)
    assert (row["state"], row["leased_until"], row["finished_at"], row["run_after"]) == (
        "queued", None, None, reclaimed_at)
    assert row["last_error"] == "lease expired (worker w1 stopped heartbeating)"


def test_reclaim_fails_job_out_of_attempts(conn: Conn) -> None:
    job_id = enqueue(conn, JobSpec("ocr", max_attempts=3))
    clock = db_now(conn)
    reclaimer = Reclaimer(JobTypes())
    for attempt in (1, 2, 3):
        job = claim_one(conn, f"w{attempt}", clock)
        assert job.attempts == attempt
        clock += PAST_LEASE
        [moved] = reclaimer.run_once(conn, now=clock)
        assert moved.state == ("failed" if attempt == 3 else "queued")
    row = get(conn, job_id)
    assert (row["state"], row["attempts"], row["finished_at"]) == ("failed", 3, clock)
    assert row["last_error"].startswith("lease expired on final attempt")
    assert claim(conn, worker_id="w4", types=["ocr"], limit=1, lease_seconds=LEASE, now=clock) == []


def test_reclaim_leaves_unexpired_leases_alone(conn: Conn) -> None:
    enqueue(conn, JobSpec("ocr"))
    start = db_now(conn)
    job = claim_one(conn, "w1", start)
    assert Reclaimer(JobTypes()).run_once(conn, now=start + timedelta(seconds=LEASE - 1)) == []
    assert heartbeat(conn, [job], lease_seconds=LEASE) == {job.id}


@pytest.fixture
def refunds_table(conn: Conn) -> None:
    conn.execute("CREATE TABLE test_refunds (job_id bigint PRIMARY KEY, state text NOT NULL)")


def refund_hook(conn: Conn, ended: Sequence[EndedJob]) -> None:
    for job in ended:
        conn.execute("INSERT INTO test_refunds (job_id, state) VALUES (%s, %s)", (job.id, job.state.value))


def test_reclaim_runs_the_ended_hook_for_failed_jobs_in_its_transaction(conn: Conn, refunds_table: None) -> None:
    last_try, has_tries = enqueue_many(conn, [JobSpec("ocr", max_attempts=1), JobSpec("ocr", max_attempts=2)])
    start = db_now(conn)
    claim(conn, worker_id="w1", types=["ocr"], limit=2, lease_seconds=LEASE, now=start)
    job_types = JobTypes()
    job_types.on_job_ended(refund_hook)

    moved = Reclaimer(job_types).run_once(conn, now=start + PAST_LEASE)

    assert sorted((job.id, job.state) for job in moved) == [(last_try, "failed"), (has_tries, "queued")]
    assert conn.execute("SELECT job_id, state FROM test_refunds").fetchall() == [(last_try, "failed")]


def test_reclaim_is_rolled_back_when_the_ended_hook_raises(conn: Conn, refunds_table: None) -> None:
    job_id = enqueue(conn, JobSpec("ocr", max_attempts=1))
    start = db_now(conn)
    claim_one(conn, "w1", start)
    job_types = JobTypes()
    job_types.on_job_ended(refund_hook)

    def broken_hook(conn: Conn, ended: Sequence[EndedJob]) -> None:
        raise RuntimeError("ledger unavailable")

    job_types.on_job_ended(broken_hook)
    with pytest.raises(RuntimeError, match="ledger unavailable"):
        Reclaimer(job_types).run_once(conn, now=start + PAST_LEASE)

    row = get(conn, job_id)
    assert (row["state"], row["attempts"], row["finished_at"]) == ("running", 1, None)
    assert conn.execute("SELECT count(*) FROM test_refunds").fetchone() == (0,)


def test_a_job_given_back_at_shutdown_again_and_again_ends_failed_with_its_hooks(conn: Conn) -> None:
    """Review: a release does not count as an attempt, so a job running whenever its worker stops
    lived for ever. After MAX_RELEASES releases the next one fails it, and the end-of-job hooks run."""
    from tenderflow.queue import JobTypes
    from tenderflow.queue.jobs import MAX_RELEASES, release_ended

    job_id = enqueue(conn, JobSpec("ocr", max_attempts=2))
    hooked: list[int] = []
    job_types = JobTypes()
    job_types.on_job_ended(lambda conn, ended: hooked.extend(job.id for job in ended))
    for round_number in range(MAX_RELEASES + 1):
        [job] = claim(conn, worker_id=f"w{round_number}", types=["ocr"], limit=1, lease_seconds=LEASE)
        with conn.transaction():
            [ended] = release_ended(conn, [job])
            job_types.run_ended_hooks(conn, [ended])
        expected = "queued" if round_number < MAX_RELEASES else "failed"
        assert (ended.id, ended.state) == (job_id, expected)
    row = get(conn, job_id)
    assert row["state"] == "failed" and f"{MAX_RELEASES + 1} times" in row["last_error"]
    assert hooked == [job_id]
    assert claim(conn, worker_id="late", types=["ocr"], limit=1, lease_seconds=LEASE) == []


def register_worker(conn: Conn, worker_id: str, *, liveness_lock: int | None, last_seen: datetime) -> None:
    conn.execute(QUERIES["worker_register"], {
        "id": worker_id, "host": "h", "pid": 1, "pools": ["ocr"], "threads": 1, "kind": "local", "now": last_seen,
        "liveness_lock": liveness_lock})


def test_reclaim_takes_back_the_jobs_of_a_worker_whose_session_died_before_their_leases_end(
    conn: Conn, database_url: str
) -> None:
    """A worker's liveness lock is held by its own session while it lives (jobs.hold_liveness_lock).
    Its jobs are reclaimed early only when that lock is gone AND its heartbeat is overdue: a worker
    whose listener is only reconnecting still heartbeats; one holding its lock is alive however late
    its heartbeat; one with no lock at all (a remote worker) waits for its leases."""
    # for the first 2 x dead_after after the server started, leases alone decide (listeners reconnect)
    wait_until(lambda: conn.execute("SELECT now() - pg_postmaster_start_time() > interval '3 s'").fetchone() == (True,),
               timeout=10, message="the server has been up for 3 s")
    enqueue_many(conn, [JobSpec("ocr", {"n": n}) for n in range(4)])
    now = db_now(conn)
    keys = {name: new_liveness_key() for name in ("alive", "dead", "reconnecting")}
    register_worker(conn, "alive", liveness_lock=keys["alive"], last_seen=now - timedelta(minutes=1))
    register_worker(conn, "dead", liveness_lock=keys["dead"], last_seen=now - timedelta(minutes=1))
    register_worker(conn, "reconnecting", liveness_lock=keys["reconnecting"], last_seen=now)
    register_worker(conn, "remote", liveness_lock=None, last_seen=now - timedelta(minutes=1))
    owners = {name: claim_one(conn, name, now).id for name in ("alive", "dead", "reconnecting", "remote")}
    with psycopg.connect(database_url, autocommit=True) as session:
        assert hold_liveness_lock(session, keys["alive"])
        assert reclaim(conn, now=now) == []  # no lease is over
        moved = reclaim(conn, now=now, dead_after_seconds=1)
        assert [(job.id, job.state) for job in moved] == [(owners["dead"], "queued")]
        assert str(get(conn, owners["dead"])["last_error"]) == (
            "worker dead died (its database session ended and it stopped heartbeating)")
        backend = session.info.backend_pid
    # The client closing its connection does not wait for the server to end the session: its advisory
    # lock goes with its backend process, a moment later (a loaded CI found the lock still held).
    wait_until(lambda: conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                                    (backend,)).fetchone() == (0,), timeout=10, message="the session to end")
    # the session that held "alive"'s lock ended: that worker is dead too now
    assert [job.id for job in reclaim(conn, now=now, dead_after_seconds=1)] == [owners["alive"]]
    assert {get(conn, owners[name])["state"] for name in ("reconnecting", "remote")} == {"running"}


def test_a_worker_reads_as_live_from_its_registration_and_dead_once_the_session_holding_its_lock_ends(
    conn: Conn, database_url: str
) -> None:
    """A worker registers before its listener has taken its liveness lock: the row names no lock
    until the lock is held (hold_liveness_lock with the worker's id), so the worker is never listed
    as dead in between (a CI run caught `workers` calling a just-started worker dead)."""
    from tenderflow.queue.stats import list_workers

    def status() -> str:
        return next(row["status"] for row in list_workers(conn, dead_after_seconds=60) if row["id"] == "w")

    register_worker(conn, "w", liveness_lock=None, last_seen=db_now(conn))
    assert status() == "live"
    key = new_liveness_key()
    with psycopg.connect(database_url, autocommit=True) as session:
        assert hold_liveness_lock(session, key, "w")
        assert conn.execute("SELECT liveness_lock FROM workers WHERE id = 'w'").fetchone() == (key,)
        assert status() == "live"
        backend = session.info.backend_pid
    wait_until(lambda: conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s",
                                    (backend,)).fetchone() == (0,), timeout=10, message="the session to end")
    assert status() == "dead"  # heartbeating lately, but its process's session is gone
