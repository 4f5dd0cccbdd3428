"""Crash tests with real worker processes (tests/queue_worker_process.py): many processes draining
one queue exactly once, a job that SIGKILLs its worker every time, SIGTERM and double SIGINT."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from queue_worker_process import STOP_REQUESTED_MARKER, TASK_TYPE, TEST_RUNS_DDL

from tenderflow.queue import JobSpec, enqueue, enqueue_many, reclaim
from tenderflow.queue.jobs import get
from tests.conftest import wait_until

WORKER_SCRIPT = Path(__file__).with_name("queue_worker_process.py")
Conn = psycopg.Connection[Any]




class WorkerProcess:
    """One `queue_worker_process.py` process, its output captured in a file for diagnosis."""

    def __init__(self, database_url: str, output_dir: Path, *options: str) -> None:
        self.output_path = output_dir / f"worker-{time.monotonic_ns()}.log"
        self._output = self.output_path.open("wb")
        self.popen = subprocess.Popen(
            [sys.executable, str(WORKER_SCRIPT), "--database-url", database_url, *options],
            stdout=self._output, stderr=subprocess.STDOUT,
        )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def output(self) -> str:
        return self.output_path.read_text(errors="replace")

    def send(self, signum: int) -> None:
        self.popen.send_signal(signum)

    def wait_for_exit(self, timeout: float) -> int:
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"worker process {self.pid} still running {timeout:g} s later; output:\n{self.output()}")

    def wait_for_stop_request(self, timeout: float = 10.0) -> None:
        wait_until(lambda: STOP_REQUESTED_MARKER in self.output(), timeout=timeout,
                   message=f"worker process {self.pid} reports that its stop was requested")

    def kill_if_running(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(10)
        self._output.close()


@pytest.fixture
def start_worker_process(database_url: str, tmp_path: Path) -> Iterator[Callable[..., WorkerProcess]]:
    """Start worker processes on this test's database; whatever is still running at the end is killed."""
    started: list[WorkerProcess] = []

    def start(*options: str) -> WorkerProcess:
        process = WorkerProcess(database_url, tmp_path, *options)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill_if_running()


def live_worker_pids(conn: Conn) -> set[int]:
    return {pid for (pid,) in conn.execute("SELECT pid FROM workers WHERE stopped_at IS NULL").fetchall()}


def count_jobs(conn: Conn, state: str) -> int:
    row = conn.execute("SELECT count(*) FROM jobs WHERE state = %s::job_state", (state,)).fetchone()
    assert row is not None
    return int(row[0])


def job_state(conn: Conn, job_id: int) -> str:
    return str(get(conn, job_id)["state"])


def test_eight_worker_processes_run_sixteen_thousand_jobs_each_exactly_once(
    conn: Conn, start_worker_process: Callable[..., WorkerProcess]
) -> None:
    conn.execute(TEST_RUNS_DDL)
    processes = [start_worker_process("--threads", "16", "--handler", "record") for _ in range(8)]
    wait_until(lambda: live_worker_pids(conn) == {p.pid for p in processes}, timeout=60,
               message="all 8 worker processes registered")
    for batch in range(8):
        enqueue_many(conn, [JobSpec(TASK_TYPE, {"batch": batch, "n": n}) for n in range(2000)])

    wait_until(lambda: count_jobs(conn, "succeeded") == 16_000, timeout=120, interval=0.25,
               message="all 16,000 jobs succeeded")
    for process in processes:
        process.send(signal.SIGTERM)
    exit_codes = [process.wait_for_exit(30) for process in processes]

    assert exit_codes == [0] * 8
    assert conn.execute("SELECT count(*), sum(attempts) FROM jobs").fetchone() == (16_000, 16_000)
    # One committed handler write per job, made by the attempt that succeeded.
    assert conn.execute("SELECT count(*), count(DISTINCT job_id) FROM test_runs").fetchone() == (16_000, 16_000)
    unmatched = conn.execute("""
        SELECT count(*) FROM jobs j LEFT JOIN test_runs r ON r.job_id = j.id
         WHERE r.job_id IS NULL OR r.attempt <> j.attempts OR j.state <> 'succeeded'
    """).fetchone()
    assert unmatched == (0,)
    pids_that_worked = {pid for (pid,) in conn.execute("SELECT DISTINCT pid FROM test_runs").fetchall()}
    assert pids_that_worked == {p.pid for p in processes}
    assert live_worker_pids(conn) == set()  # every process marked itself stopped


def test_job_that_sigkills_its_worker_ends_failed_after_max_attempts_while_others_succeed(
    conn: Conn, start_worker_process: Callable[..., WorkerProcess]
) -> None:
    conn.execute(TEST_RUNS_DDL)
    poison_id = enqueue(conn, JobSpec(TASK_TYPE, {"kill": True}, max_attempts=3))
    # Jobs claimed beside the poison die with it and are reclaimed: give them room to retry.
    other_ids = enqueue_many(conn, [JobSpec(TASK_TYPE, {"n": n}, max_attempts=20) for n in range(40)])
    supervisor = start_worker_process(
        "--supervise", "2", "--handler", "suicide", "--threads", "2", "--lease-seconds", "1",
        "--heartbeat-seconds", "0.3", "--maintenance-seconds", "0.5", "--poll-seconds", "0.2",
    )

    wait_until(lambda: job_state(conn, poison_id) == "failed" and count_jobs(conn, "succeeded") == len(other_ids),
               timeout=120, interval=0.1, message="the poison job failed and every other job succeeded")
    supervisor.send(signal.SIGTERM)
    assert supervisor.wait_for_exit(30) == 0

    poison = get(conn, poison_id)
    assert poison["state"] == "failed"
    assert poison["attempts"] == poison["max_attempts"] == 3
    # its lease ran out, or its worker was found dead first (the worker's session gone: jobs.reclaim)
    assert "lease expired on final attempt" in poison["last_error"] or "died on final attempt" in poison["last_error"]
    # The poison killed at least one worker process and the supervisor replaced it. (Not one per
    # attempt: under load a 1 s lease can run out before the kill, and the same process may claim
    # the job again and die once for two attempts.)
    worker_pids = conn.execute("SELECT count(DISTINCT pid) FROM workers").fetchone()
    assert worker_pids is not None and worker_pids[0] >= 2 + 1
    runs = conn.execute("SELECT job_id, count(*) FROM test_runs GROUP BY job_id").fetchall()
    assert dict(runs) == {job_id: 1 for job_id in other_ids}


def test_a_sigkilled_workers_job_is_taken_back_when_its_session_ends_not_when_its_lease_does(
    conn: Conn, start_worker_process: Callable[..., WorkerProcess]
) -> None:
    """Found by the chaos run: a worker killed every 2 s left its jobs `running` until their leases
    ran out, and meanwhile they filled their tenants' caps, so the live workers had little to claim.
    PostgreSQL sees a dead process's session end at once: with its liveness lock gone and its
    heartbeat overdue, the job is reclaimed, here 60 s before its lease would have run out."""
    conn.execute(TEST_RUNS_DDL)
    worker = start_worker_process("--handler", "sleep", "--threads", "1", "--lease-seconds", "60",
                                  "--heartbeat-seconds", "0.3", "--poll-seconds", "0.1")
    job_id = enqueue(conn, JobSpec(TASK_TYPE, {"seconds": 120}))
    wait_until(lambda: job_state(conn, job_id) == "running", timeout=30, message="the job is running")
    assert reclaim(conn, dead_after_seconds=0.6) == []  # alive: its lock is held, its heartbeat fresh
    worker.send(signal.SIGKILL)
    killed = time.monotonic()
    moved = wait_until(lambda: reclaim(conn, dead_after_seconds=0.6), timeout=20, interval=0.2,
                       message="the dead worker's job is reclaimed")
    assert time.monotonic() - killed < 20 < 60  # long before its lease's 60 s
    assert [(job.id, job.state) for job in moved] == [(job_id, "queued")]
    assert "died (its database session ended" in str(get(conn, job_id)["last_error"])


def test_sigterm_lets_the_running_job_finish_within_grace_and_exits_zero(
    conn: Conn, start_worker_process: Callable[..., WorkerProcess]
) -> None:
    conn.execute(TEST_RUNS_DDL)
    worker = start_worker_process("--handler", "sleep", "--threads", "2", "--grace-seconds", "20",
                                  "--poll-seconds", "0.1")
    wait_until(lambda: worker.pid in live_worker_pids(conn), timeout=30, message="the worker registered")
    job_id = enqueue(conn, JobSpec(TASK_TYPE, {"seconds": 2}))
    wait_until(lambda: job_state(conn, job_id) == "running", timeout=10, message="the job is running")

    signalled = time.monotonic()
    worker.send(signal.SIGTERM)
    worker.wait_for_stop_request()
    # Draining: nothing new is claimed.
    late_id = enqueue(conn, JobSpec(TASK_TYPE, {"seconds": 0}))
    assert worker.wait_for_exit(20) == 0
    assert time.monotonic() - signalled < 20

    assert get(conn, job_id)["state"] == "succeeded"
    assert conn.execute("SELECT job_id, attempt FROM test_runs").fetchall() == [(job_id, 1)]
    late = get(conn, late_id)
    assert (late["state"], late["attempts"]) == ("queued", 0)
    assert live_worker_pids(conn) == set()


def start_sleeping_job_past_grace(conn: Conn, start_worker_process: Callable[..., WorkerProcess]) -> tuple[
    WorkerProcess, int
]:
    """A worker (grace 0.5 s) running a 60 s job whose handler sleeps without watching its context."""
    conn.execute(TEST_RUNS_DDL)
    worker = start_worker_process("--handler", "sleep", "--threads", "2", "--grace-seconds", "0.5",
                                  "--poll-seconds", "0.1")
    wait_until(lambda: worker.pid in live_worker_pids(conn), timeout=30, message="the worker registered")
    job_id = enqueue(conn, JobSpec(TASK_TYPE, {"seconds": 60}, max_attempts=5))
    wait_until(lambda: job_state(conn, job_id) == "running", timeout=10, message="the job is running")
    return worker, job_id


def test_sigterm_gives_back_the_lease_of_a_job_running_past_grace(
    conn: Conn, start_worker_process: Callable[..., WorkerProcess]
) -> None:
    worker, job_id = start_sleeping_job_past_grace(conn, start_worker_process)
    worker.send(signal.SIGTERM)
    wait_until(lambda: job_state(conn, job_id) == "queued", timeout=10, message="the lease was given back")
    job = get(conn, job_id)
    assert job["attempts"] == 1  # the attempt is not undone: (id, attempts) stays a unique token
    assert job["max_attempts"] == 6  # … and not held against the job
    assert job["leased_until"] is None
    assert "released" in job["last_error"]
    wait_until(lambda: worker.pid not in live_worker_pids(conn), timeout=10, message="the worker marked itself stopped")
    assert conn.execute("SELECT count(*) FROM test_runs").fetchone() == (0,)


def test_sigterm_exits_after_grace_even_while_a_handler_ignores_its_context(
    conn: Conn, start_worker_process: Callable[..., WorkerProcess]
) -> None:
    worker, job_id = start_sleeping_job_past_grace(conn, start_worker_process)
    signalled = time.monotonic()
    worker.send(signal.SIGTERM)
    # The lease is back in the queue after 0.5 s: a process that lingers for the rest of the 60 s
    # job holds CPU and memory for work another worker may already be redoing.
    assert worker.wait_for_exit(15) == 0
    assert time.monotonic() - signalled < 15
    assert job_state(conn, job_id) == "queued"


def test_second_sigint_exits_at_once_leaving_the_lease_to_expire(
    conn: Conn, start_worker_process: Callable[..., WorkerProcess]
) -> None:
    conn.execute(TEST_RUNS_DDL)
    worker = start_worker_process("--handler", "sleep", "--threads", "2", "--grace-seconds", "60",
                                  "--poll-seconds", "0.1", "--lease-seconds", "30")
    wait_until(lambda: worker.pid in live_worker_pids(conn), timeout=30, message="the worker registered")
    job_id = enqueue(conn, JobSpec(TASK_TYPE, {"seconds": 60}))
    wait_until(lambda: job_state(conn, job_id) == "running", timeout=10, message="the job is running")

    worker.send(signal.SIGINT)
    worker.wait_for_stop_request()  # the first SIGINT was handled: the worker is draining (grace 60 s)
    assert worker.popen.poll() is None
    signalled = time.monotonic()
    worker.send(signal.SIGINT)
    assert worker.wait_for_exit(10) == 130
    assert time.monotonic() - signalled < 10

    job = get(conn, job_id)
    assert (job["state"], job["attempts"]) == ("running", 1)  # not released: the lease runs out
    moved = reclaim(conn, now=job["leased_until"] + (job["leased_until"] - job["started_at"]))
    assert [(m.id, m.state) for m in moved] == [(job_id, "queued")]


def test_worker_process_refuses_to_start_while_migrations_are_pending(empty_database_url: str, tmp_path: Path) -> None:
    process = WorkerProcess(empty_database_url, tmp_path, "--handler", "noop")
    try:
        exit_code = process.wait_for_exit(30)
    finally:
        process.kill_if_running()
    assert exit_code != 0
    assert "tenderflow db migrate" in process.output()

