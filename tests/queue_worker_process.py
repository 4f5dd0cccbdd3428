"""A real worker process for the queue's crash tests: test handlers on a real Worker.

    python tests/queue_worker_process.py --database-url URL --threads 4 --handler record
    python tests/queue_worker_process.py --database-url URL --supervise 2 --handler suicide ...

Every job type the tests enqueue (`TASK_TYPE`) runs the handler named by --handler:

    noop     does nothing
    record   inserts (job_id, attempt, pid) into `test_runs` in the commit step, so a test can check
             that each job was committed exactly once (the test creates the table)
    suicide  SIGKILLs its own process when the payload says {"kill": true}; otherwise as `record`
    sleep    sleeps payload["seconds"] with time.sleep (it does not watch its context), then as `record`

The process runs the Worker through `run_worker_in_process` (so SIGTERM/SIGINT behave as in
production) and prints `stop-requested` on stdout when a stop signal reached the Worker, so a test
can send a second SIGINT only after the first one was handled. With --supervise N it runs
`supervise` over N copies of itself instead, restarting a child that dies.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from typing import Any

import psycopg

from tenderflow.database import open_pool
from tenderflow.logs import configure_logging
from tenderflow.migrations import ensure_migrated
from tenderflow.queue import ClaimedJob, FunctionHandler, JobContext, JobTypes, Worker, WorkerConfig
from tenderflow.queue.supervisor import run_worker_in_process, supervise

TASK_TYPE = "task"
STOP_REQUESTED_MARKER = "stop-requested"
TEST_RUNS_DDL = "CREATE TABLE test_runs (job_id bigint NOT NULL, attempt integer NOT NULL, pid integer NOT NULL)"


def record_run(conn: psycopg.Connection[Any], job: ClaimedJob, result: Any) -> None:
    conn.execute(
        "INSERT INTO test_runs (job_id, attempt, pid) VALUES (%s, %s, %s)", (job.id, job.attempts, os.getpid())
    )


def do_nothing(job: ClaimedJob, context: JobContext) -> None:
    return None


def kill_own_process_if_asked(job: ClaimedJob, context: JobContext) -> None:
    if job.payload.get("kill"):
        os.kill(os.getpid(), signal.SIGKILL)


def sleep_ignoring_context(job: ClaimedJob, context: JobContext) -> None:
    time.sleep(float(job.payload.get("seconds", 0)))


HANDLERS = {
    "noop": FunctionHandler(do_nothing),
    "record": FunctionHandler(do_nothing, record_run),
    "suicide": FunctionHandler(kill_own_process_if_asked, record_run),
    "sleep": FunctionHandler(sleep_ignoring_context, record_run),
}


class StopReportingWorker(Worker):
    """A Worker that says on stdout when a stop was requested (the signal handler calls this)."""

    def request_stop(self) -> None:
        super().request_stop()
        sys.stdout.write(STOP_REQUESTED_MARKER + "\n")
        sys.stdout.flush()


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--handler", choices=sorted(HANDLERS), default="record")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--lease-seconds", type=float, default=30.0)
    parser.add_argument("--heartbeat-seconds", type=float, default=10.0)
    parser.add_argument("--maintenance-seconds", type=float, default=5.0)
    parser.add_argument("--poll-seconds", type=float, default=1.0)
    parser.add_argument("--grace-seconds", type=float, default=30.0)
    parser.add_argument("--no-notify", action="store_true", help="Polling only (no LISTEN).")
    parser.add_argument("--supervise", type=int, default=0, metavar="N",
                        help="Run N copies of this worker under tenderflow's supervisor.")
    parser.add_argument("--restart-delay-seconds", type=float, default=0.1)
    return parser.parse_args(argv)


def without_supervise_options(argv: list[str]) -> list[str]:
    """The same command line minus --supervise N (what each supervised child runs)."""
    child: list[str] = []
    skip_next = False
    for argument in argv:
        if skip_next:
            skip_next = False
        elif argument == "--supervise":
            skip_next = True
        elif not argument.startswith("--supervise="):
            child.append(argument)
    return child


def main(argv: list[str]) -> int:
    options = parse_arguments(argv)
    configure_logging(json=True, level="WARNING")
    if options.supervise:
        child_argv = [sys.executable, os.path.abspath(__file__), *without_supervise_options(argv)]
        return supervise(child_argv, options.supervise, restart_delay_seconds=options.restart_delay_seconds)
    job_types = JobTypes()
    job_types.register(TASK_TYPE, HANDLERS[options.handler])
    pool = open_pool(options.database_url, min_size=1, max_size=options.threads + 4, name="test-worker")
    try:
        worker = StopReportingWorker(pool, job_types, WorkerConfig(
            types=[TASK_TYPE],
            threads=options.threads,
            lease_seconds=options.lease_seconds,
            heartbeat_seconds=options.heartbeat_seconds,
            maintenance_seconds=options.maintenance_seconds,
            poll_seconds=options.poll_seconds,
            shutdown_grace_seconds=options.grace_seconds,
            notify=not options.no_notify,
        ), start_check=ensure_migrated)  # as `tenderflow worker` does: refuse to start while migrations are pending
        return run_worker_in_process(worker)
    finally:
        pool.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
