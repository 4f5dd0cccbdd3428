"""No-op drain: how fast one tenderflow worker process empties a queue of 20,000 jobs, against a raw
batched `FOR UPDATE SKIP LOCKED` claim + complete loop on the same table, in the same run.

    .venv/bin/python bench/queue_drain.py [--jobs 20000] [--threads 64] [--rounds 5] [--no-others]

Each contender drains its own fresh database holding the same jobs, in its own process:
    tenderflow     a `Worker` (FunctionHandler no-op, logging at WARNING), started as the CLI starts
                   one (`run_worker_in_process`), stopped by SIGTERM once the queue is empty; every
                   job goes claim -> executor thread -> committer, as real jobs do
    raw            one connection looping: claim up to `--batch` jobs with one CTE + SKIP LOCKED
                   statement (returning what a consumer needs: id, attempts, type, payload), then
                   mark them succeeded with one guarded UPDATE; each statement its own transaction
    raw_async_claim  the raw loop again, its claim committed without waiting for the WAL flush as
                   tenderflow's is: for reference, not part of the ratio
    pgqueuer, procrastinate   the same drain with those libraries, when they are installed
                   (see other_queues.py)
Throughput is jobs / (last commit - first claim), both read from the jobs' own timestamps
(min(started_at), max(finished_at): the database clock) so that tenderflow and the raw loops are
timed by the same clock. Rounds alternate the contenders; the medians are reported.
The last line printed is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from other_queues import drain_pgqueuer, drain_procrastinate  # noqa: E402
from scratch_database import scratch_database, server  # noqa: E402

from tenderflow.database import open_pool  # noqa: E402
from tenderflow.logs import configure_logging  # noqa: E402
from tenderflow.queue import FunctionHandler, JobSpec, JobTypes, Worker, WorkerConfig, enqueue_many  # noqa: E402
from tenderflow.queue.supervisor import run_worker_in_process  # noqa: E402

JOB_TYPE = "noop"
ENQUEUE_BATCH = 1000
DRAIN_TIMEOUT_SECONDS = 300.0

# The strongest plain loop on this schema: the partial index jobs_queued_idx delivers the jobs of
# one (type, tenant) already in (priority desc, run_after) order, so each claim reads `limit` rows.
RAW_CLAIM = """
WITH next AS (
    SELECT id FROM jobs
     WHERE state = 'queued' AND type = %(type)s AND tenant = 'default' AND run_after <= now()
     ORDER BY priority DESC, run_after
     LIMIT %(limit)s
       FOR UPDATE SKIP LOCKED
)
UPDATE jobs j
   SET state = 'running', attempts = j.attempts + 1, worker_id = 'raw',
       started_at = now(), leased_until = now() + interval '30 seconds'
  FROM next
 WHERE j.id = next.id
RETURNING j.id, j.attempts, j.type, j.payload
"""

RAW_COMPLETE = """
UPDATE jobs j
   SET state = 'succeeded', leased_until = NULL, finished_at = now()
  FROM unnest(%(ids)s::bigint[], %(attempts)s::integer[]) AS held(id, attempts)
 WHERE j.id = held.id AND j.attempts = held.attempts AND j.state = 'running'
"""


@dataclass(frozen=True)
class Drain:
    jobs: int
    seconds: float

    @property
    def jobs_per_second(self) -> float:
        return self.jobs / self.seconds


# --- the contenders, each the target of its own process -------------------------------------------


def _noop(job: object, context: object) -> None:
    return None


def tenderflow_worker_process(url: str, threads: int) -> None:
    """A tenderflow worker process, as `tenderflow worker` runs one: until SIGTERM."""
    configure_logging(json=True, level="WARNING")
    job_types = JobTypes()
    job_types.register(JOB_TYPE, FunctionHandler(_noop))
    pool = open_pool(url, min_size=4, max_size=10, name="bench-worker")
    try:
        run_worker_in_process(Worker(pool, job_types, WorkerConfig(types=[JOB_TYPE], threads=threads)))
    finally:
        pool.close()


def raw_loop_process(url: str, batch: int, asynchronous_claim: bool) -> None:
    params = {"type": JOB_TYPE, "limit": batch}
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            if asynchronous_claim:  # as tenderflow claims: no wait for the claim's WAL flush
                with conn.pipeline():
                    conn.execute("SELECT set_config('synchronous_commit', 'off', true)")
                    cursor = conn.execute(RAW_CLAIM, params)
                claimed = cursor.fetchall()
            else:
                claimed = conn.execute(RAW_CLAIM, params).fetchall()
            if not claimed:
                return
            conn.execute(RAW_COMPLETE, {"ids": [row[0] for row in claimed],
                                        "attempts": [row[1] for row in claimed]})


# --- running one drain ----------------------------------------------------------------------------


def enqueue_noops(url: str, count: int) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        for start in range(0, count, ENQUEUE_BATCH):
            size = min(ENQUEUE_BATCH, count - start)
            enqueue_many(conn, [JobSpec(JOB_TYPE)] * size)
        # A steady-state queue has statistics; and a checkpoint now keeps one out of the drain.
        conn.execute("ANALYZE jobs")
        try:
            conn.execute("CHECKPOINT")
        except psycopg.errors.InsufficientPrivilege:
            pass  # not a superuser on DATABASE_URL's server: the drains take their chances


def wait_until_drained(url: str, process: multiprocessing.process.BaseProcess) -> None:
    deadline = time.monotonic() + DRAIN_TIMEOUT_SECONDS
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            busy = conn.execute(
                "SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'queued')"
                "    OR EXISTS (SELECT 1 FROM jobs WHERE state = 'running')"
            ).fetchone()
            if busy is not None and not busy[0]:
                return
            if not process.is_alive():
                raise RuntimeError(f"the drain process exited (code {process.exitcode}) before the queue was empty")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the queue was not drained within {DRAIN_TIMEOUT_SECONDS} s")
            time.sleep(0.02)


def measured(url: str, expected: int) -> Drain:
    """Every job succeeded exactly once; throughput from the first claim to the last commit."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FILTER (WHERE state = 'succeeded' AND attempts = 1), count(*),"
            "       extract(epoch FROM max(finished_at) - min(started_at))"
            "  FROM jobs"
        ).fetchone()
    assert row is not None
    succeeded, total, seconds = row
    if succeeded != expected or total != expected:
        raise RuntimeError(f"expected {expected} jobs succeeded once each; {succeeded} of {total} were")
    return Drain(expected, float(seconds))


def drain_with(target: Callable[..., None], args: tuple[object, ...], url: str, jobs: int) -> Drain:
    context = multiprocessing.get_context("spawn")
    process = context.Process(target=target, args=(url, *args), daemon=True)
    process.start()
    try:
        wait_until_drained(url, process)
    finally:
        if process.is_alive():
            os.kill(process.pid, signal.SIGTERM)  # type: ignore[arg-type]
        process.join(30)
        if process.is_alive():
            process.kill()
    return measured(url, jobs)


def drain_tenderflow(admin_url: str, jobs: int, threads: int) -> Drain:
    with scratch_database(admin_url) as url:
        enqueue_noops(url, jobs)
        return drain_with(tenderflow_worker_process, (threads,), url, jobs)


def drain_raw(admin_url: str, jobs: int, batch: int, *, asynchronous_claim: bool = False) -> Drain:
    with scratch_database(admin_url) as url:
        enqueue_noops(url, jobs)
        return drain_with(raw_loop_process, (batch, asynchronous_claim), url, jobs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--threads", type=int, default=64, help="executor threads of the tenderflow worker")
    parser.add_argument("--batch", type=int, default=None,
                        help="jobs per raw claim (default: --threads, the most one tenderflow claim takes)")
    parser.add_argument("--rounds", type=int, default=5, help="drains per contender; the median is reported")
    parser.add_argument("--other-jobs", type=int, default=5_000,
                        help="jobs for PgQueuer and Procrastinate (Procrastinate drains a few hundred a second)")
    parser.add_argument("--no-others", action="store_true", help="skip PgQueuer and Procrastinate")
    args = parser.parse_args()
    batch = args.batch or args.threads
    contenders: dict[str, Callable[[str], Drain]] = {
        "raw": lambda admin_url: drain_raw(admin_url, args.jobs, batch),
        "tenderflow": lambda admin_url: drain_tenderflow(admin_url, args.jobs, args.threads),
        "raw_async_claim": lambda admin_url: drain_raw(admin_url, args.jobs, batch, asynchronous_claim=True),
    }

    load_before = os.getloadavg()[0]
    with server() as (admin_url, where):
        print(f"queue_drain: {args.jobs} no-op jobs, server: {where}, {os.cpu_count()} cores, "
              f"load average {load_before:.1f}", flush=True)
        runs: dict[str, list[float]] = {name: [] for name in contenders}
        for round_number in range(1, args.rounds + 1):
            # Alternate the contenders so that drift (other load, autovacuum, caches) hits all alike.
            for name, drain in contenders.items():
                runs[name].append(drain(admin_url).jobs_per_second)
            print(f"  round {round_number}: " + ", ".join(f"{name} {runs[name][-1]:,.0f}" for name in contenders)
                  + " jobs/s", flush=True)
        median = {name: statistics.median(values) for name, values in runs.items()}
        ratio = median["tenderflow"] / median["raw"]
        # Each round's two drains ran back to back, under the same outside load: their ratio is the
        # steadier figure on a busy machine.
        paired_ratio = statistics.median(t / r for t, r in zip(runs["tenderflow"], runs["raw"], strict=True))
        print(f"tenderflow ({args.threads} threads, one process): {median['tenderflow']:,.0f} jobs/s (median)")
        print(f"raw SKIP LOCKED loop (batch {batch}, one process): {median['raw']:,.0f} jobs/s (median)")
        print(f"ratio tenderflow / raw: {ratio:.2f} of the medians, {paired_ratio:.2f} median of the rounds' ratios "
              f"(target >= 0.50; tenderflow target >= 10,000 jobs/s)")
        print(f"for reference, the raw loop with tenderflow's asynchronous claim commit: "
              f"{median['raw_async_claim']:,.0f} jobs/s (median)")

        others: dict[str, float | None] = {"pgqueuer": None, "procrastinate": None}
        if not args.no_others:
            for name, drain_other in (("pgqueuer", drain_pgqueuer), ("procrastinate", drain_procrastinate)):
                outcome = drain_other(admin_url, args.other_jobs)
                if isinstance(outcome, str):
                    print(f"{name}: skipped ({outcome})", flush=True)
                else:
                    others[name] = outcome
                    print(f"{name} ({args.other_jobs} jobs, one process): {outcome:,.0f} jobs/s", flush=True)

    print(json.dumps({
        "bench": "queue_drain", "jobs": args.jobs, "threads": args.threads, "raw_batch": batch,
        "rounds": args.rounds, "server": where, "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "tenderflow_jobs_per_s": round(median["tenderflow"]), "raw_jobs_per_s": round(median["raw"]),
        "ratio": round(ratio, 3), "ratio_median_of_rounds": round(paired_ratio, 3),
        "raw_async_claim_jobs_per_s": round(median["raw_async_claim"]),
        "rounds_jobs_per_s": {name: [round(value) for value in values] for name, values in runs.items()},
        "other_jobs": args.other_jobs,
        **{f"{name}_jobs_per_s": None if value is None else round(value) for name, value in others.items()},
    }))


if __name__ == "__main__":
    main()
