"""Enqueue -> start latency with idle workers, against a raw LISTEN/NOTIFY round trip, in one run.

    .venv/bin/python -m bench.queue_latency [--samples 300] [--spacing-ms 20]

    tenderflow  a worker process (`Worker`, 4 threads, NOTIFY on, polling every second as the
                backstop) sits idle; the bench enqueues one job at a time with `enqueue` on its own
                connection. Latency: from `enqueue` returning (the job is committed, and its NOTIFY
                sent) to the job's handler starting on an executor thread.
    raw         a process LISTENs on a second connection; the bench sends `pg_notify`. Latency:
                from `pg_notify` returning to the listener receiving the notification.
Both receivers are separate processes; the times are CLOCK_MONOTONIC, which all processes on a
machine share. Samples are spaced apart (so each worker is idle when its job arrives) and the two
contenders alternate in blocks so that drift in machine load hits both alike.
The last line printed is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import statistics
import time
from typing import Any

import psycopg
from psycopg import sql

from bench.scratch_database import scratch_database, server
from tenderflow.database import open_pool
from tenderflow.logs import configure_logging
from tenderflow.queue import FunctionHandler, JobSpec, JobTypes, Worker, WorkerConfig, enqueue
from tenderflow.queue.supervisor import run_worker_in_process

JOB_TYPE = "ping"
RAW_CHANNEL = "bench_raw"
BLOCK = 50  # samples per contender before switching to the other


def tenderflow_worker_process(url: str, ready: Any, answer: Any) -> None:
    """An idle tenderflow worker; each handler call notes when it started. Sends them on SIGTERM."""
    configure_logging(json=True, level="WARNING")
    started: dict[int, float] = {}

    def ping(job: Any, context: Any) -> None:
        started[job.payload["sample"]] = time.monotonic()

    job_types = JobTypes()
    job_types.register(JOB_TYPE, FunctionHandler(ping))
    pool = open_pool(url, min_size=4, max_size=10, name="bench-latency")
    worker = Worker(pool, job_types, WorkerConfig(types=[JOB_TYPE], threads=4))
    try:
        ready.set()
        run_worker_in_process(worker)
    finally:
        pool.close()
    answer.send(started)


def raw_listener_process(url: str, ready: Any, answer: Any) -> None:
    """LISTEN; note when each notification arrives, until the one saying "stop"."""
    received: dict[int, float] = {}
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(RAW_CHANNEL)))
        ready.set()
        for notify in conn.notifies():
            if notify.payload == "stop":
                break
            received[int(notify.payload)] = time.monotonic()
    answer.send(received)


def _start(target: Any, url: str) -> tuple[multiprocessing.process.BaseProcess, Any]:
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=target, args=(url, ready, send), daemon=True)
    process.start()
    if not ready.wait(60):
        raise RuntimeError(f"{target.__name__} did not start")
    return process, receive


def _wait_idle(conn: psycopg.Connection[Any]) -> None:
    """Until the tenderflow worker is registered and idle (so the first sample is not a cold start)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        row = conn.execute("SELECT count(*) FROM workers WHERE stopped_at IS NULL").fetchone()
        if row is not None and row[0] > 0:
            return
        time.sleep(0.05)
    raise RuntimeError("the tenderflow worker did not register")


def measure(url: str, samples: int, spacing: float) -> tuple[list[float], list[float], list[float]]:
    """Latencies in milliseconds: (tenderflow, raw), and how long each `enqueue` call took."""
    worker, worker_answer = _start(tenderflow_worker_process, url)
    listener, listener_answer = _start(raw_listener_process, url)
    sent_tenderflow: dict[int, float] = {}
    enqueue_calls: list[float] = []
    sent_raw: dict[int, float] = {}
    with psycopg.connect(url, autocommit=True) as conn:
        _wait_idle(conn)
        time.sleep(1.0)  # let the worker's startup (first claim, first heartbeat) pass
        for block_start in range(0, samples, BLOCK):
            for sample in range(block_start, min(block_start + BLOCK, samples)):
                called = time.monotonic()
                enqueue(conn, JobSpec(JOB_TYPE, {"sample": sample}))
                sent_tenderflow[sample] = time.monotonic()
                enqueue_calls.append((sent_tenderflow[sample] - called) * 1000)
                time.sleep(spacing)
            for sample in range(block_start, min(block_start + BLOCK, samples)):
                conn.execute("SELECT pg_notify(%s, %s)", (RAW_CHANNEL, str(sample)))
                sent_raw[sample] = time.monotonic()
                time.sleep(spacing)
        conn.execute("SELECT pg_notify(%s, 'stop')", (RAW_CHANNEL,))
        time.sleep(0.5)  # the last job's handler
    os.kill(worker.pid, signal.SIGTERM)  # type: ignore[arg-type]
    started: dict[int, float] = worker_answer.recv() if worker_answer.poll(60) else {}
    received: dict[int, float] = listener_answer.recv() if listener_answer.poll(60) else {}
    worker.join(30)
    listener.join(30)
    if len(started) != samples or len(received) != samples:
        raise RuntimeError(f"missing samples: {len(started)} jobs started, {len(received)} notifications received")
    return ([(started[i] - sent_tenderflow[i]) * 1000 for i in range(samples)],
            [(received[i] - sent_raw[i]) * 1000 for i in range(samples)], enqueue_calls)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--spacing-ms", type=float, default=20.0, help="pause after each enqueue / notify")
    args = parser.parse_args()

    load_before = os.getloadavg()[0]
    with server() as (admin_url, where), scratch_database(admin_url) as url:
        print(f"queue_latency: {args.samples} samples each, {args.spacing_ms:g} ms apart, server: {where}, "
              f"load average {load_before:.1f}", flush=True)
        tenderflow, raw, enqueue_calls = measure(url, args.samples, args.spacing_ms / 1000)

    figures = {
        "tenderflow_p50_ms": statistics.median(tenderflow), "tenderflow_p95_ms": percentile(tenderflow, 0.95),
        "raw_p50_ms": statistics.median(raw), "raw_p95_ms": percentile(raw, 0.95),
        "enqueue_call_p50_ms": statistics.median(enqueue_calls),
    }
    print(f"tenderflow enqueue -> start: p50 {figures['tenderflow_p50_ms']:.2f} ms, "
          f"p95 {figures['tenderflow_p95_ms']:.2f} ms")
    print(f"raw NOTIFY -> received:     p50 {figures['raw_p50_ms']:.2f} ms, p95 {figures['raw_p95_ms']:.2f} ms")
    print(f"tenderflow p50 - raw p50: {figures['tenderflow_p50_ms'] - figures['raw_p50_ms']:+.2f} ms (target <= +1 ms)")
    print(f"(the enqueue call itself, not counted above: p50 {figures['enqueue_call_p50_ms']:.2f} ms)")
    print(json.dumps({"bench": "queue_latency", "samples": args.samples, "spacing_ms": args.spacing_ms,
                      "server": where, "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
                      **{key: round(value, 3) for key, value in figures.items()},
                      "p50_difference_ms": round(figures["tenderflow_p50_ms"] - figures["raw_p50_ms"], 3)}))


if __name__ == "__main__":
    main()
