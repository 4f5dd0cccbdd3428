"""Webhook deliveries through the queue against plain POSTs of the same bodies, in one run.

    .venv/bin/python -m bench.webhook_delivery [--deliveries 2000] [--threads 8] [--port 23080]

    tenderflow  `--deliveries` document.done events of done documents (each with a realistic field
                set), one endpoint on a local receiver that answers 204 at once; one in-process
                Worker with `--threads` threads runs the `webhook.deliver` jobs: claim, read the
                delivery and the version's fields, render and sign the body, resolve and check the
                address, POST on a new connection, record the attempt, commit. Throughput from the
                worker's start to the last delivery of the backlog recorded; then, the worker idle,
                `--samples` events emitted one at a time: latency from each event's commit to the
                receiver's answer (NOTIFY wake-up, claim, render, POST).
    raw         the same bodies POSTed by `--threads` threads with httpx: on a new connection per
                request (as each delivery makes), and over kept-alive connections (the ceiling).

The receiver is a ThreadingHTTPServer in this process on 127.0.0.1:`--port`; the database is a
scratch one (DATABASE_URL's server, else an embedded PostgreSQL). The load average is printed with
the figures; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import psycopg
from psycopg.types.json import Jsonb

from bench.scratch_database import scratch_database, server
from tenderflow.config import Settings
from tenderflow.database import open_pool
from tenderflow.handlers.resources import Resources
from tenderflow.handlers.webhooks import DELIVER
from tenderflow.logs import configure_logging
from tenderflow.queue import JobTypes, Worker, WorkerConfig
from tenderflow.tenants.tenants import create_tenant
from tenderflow.webhooks import deliveries, endpoints
from tenderflow.webhooks.addresses import AddressPolicy

FIELDS = {
    "title": {"value": "Resurfacing of the A-road network, lots 1 to 4", "page": 1, "quote": "Resurfacing of"},
    "reference_number": {"value": "EH-2026-0417", "page": 1, "quote": "Reference number: EH-2026-0417"},
    "buyer": {"name": {"value": "Eastfield City Council", "page": 1, "quote": "Eastfield City Council"},
              "email": {"value": "procurement@eastfield.gov.uk", "page": 1, "quote": "procurement@eastfield"}},
    "submission_deadline": {"value": "2026-07-04T12:00:00", "page": 2, "quote": "no later than 12:00 on 4 July"},
    "estimated_value": {"value": {"amount": 12600000.0, "currency": "GBP"}, "page": 2, "quote": "£12,600,000"},
    "cpv_codes": [{"value": "45233140-2", "page": 1, "quote": "45233140-2"}],
    "lots": [{"number": n, "title": {"value": f"Lot {n}: district {n}", "page": 3, "quote": f"Lot {n}"}}
             for n in range(1, 5)],
}


class Receiver:
    """Answers 204 at once and counts the requests it answered."""

    def __init__(self, port: int) -> None:
        self.count = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()
                with receiver.lock:
                    receiver.count += 1

        self.url = f"http://127.0.0.1:{port}/hooks"
        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def make_documents(conn: psycopg.Connection[Any], count: int, first: int = 0) -> list[int]:
    """Done documents with a realistic field set (what a delivery reads and sends)."""
    ids = []
    with conn.transaction():
        for number in range(first, first + count):
            row = conn.execute(
                "INSERT INTO documents (tenant, sha256, filename, size_bytes, storage_url, current_version) "
                "VALUES ('acme', %s, %s, 2675, 'file:///bench', 1) RETURNING id",
                (f"{number:064x}", f"notice-{number}.pdf")).fetchone()
            assert row is not None
            conn.execute("INSERT INTO document_versions (document_id, version, pages_version, state, page_count, "
                         "finished_at) VALUES (%s, 1, 1, 'done', 3, now())", (row[0],))
            conn.execute("INSERT INTO extractions (document_id, version, fields, backend) "
                         "VALUES (%s, 1, %s, 'rules')", (row[0], Jsonb(FIELDS)))
            ids.append(int(row[0]))
    return ids


def delivered(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT count(*) FROM webhook_deliveries WHERE state = 'delivered'").fetchone()
    return int(row[0]) if row else 0


def run_tenderflow(url: str, settings: Settings, receiver: Receiver, count: int, threads: int,
                   samples: int) -> dict[str, Any]:
    """Throughput over a backlog of `count` deliveries, then, with the worker idle, the latency of
    `samples` events emitted one at a time (commit of the event -> its arrival at the receiver)."""
    pool = open_pool(url, min_size=2, max_size=threads + 6, name="bench-webhooks")
    try:
        with pool.connection() as conn:
            create_tenant(conn, "acme", unlimited=True)
            endpoints.create_endpoint(conn, "acme", receiver.url, policy=AddressPolicy.from_setting("127.0.0.0/8"))
            backlog = make_documents(conn, count)
            later = make_documents(conn, samples, first=count)
            with conn.transaction():
                for document_id in backlog:
                    deliveries.emit(conn, tenant="acme", event_type="document.done", document_id=document_id,
                                    version=1)
        job_types = JobTypes()
        job_types.register(DELIVER.name, DELIVER.build(Resources(settings, pool=pool)))
        job_types.on_job_ended(deliveries.end_deliveries_of_ended_jobs)
        worker = Worker(pool, job_types, WorkerConfig(types=[DELIVER.name], threads=threads, run_maintenance=False))
        runner = threading.Thread(target=worker.run, daemon=True)
        started = time.monotonic()
        runner.start()
        with pool.connection() as conn:
            while delivered(conn) < count:
                time.sleep(0.02)
            seconds = time.monotonic() - started
            waits = []
            for document_id in later:
                time.sleep(0.05)
                sent = time.time()
                deliveries.emit(conn, tenant="acme", event_type="document.done", document_id=document_id, version=1)
                target = count + len(waits) + 1
                while receiver.count < target:
                    time.sleep(0.0005)
                waits.append(time.time() - sent)
            failed = conn.execute("SELECT count(*) FROM webhook_attempts WHERE outcome = 'failed'").fetchone()
        worker.request_stop()
        runner.join(30)
    finally:
        pool.close()
    waits.sort()
    return {"seconds": round(seconds, 3), "per_second": round(count / seconds, 1),
            "latency_p50_ms": round(statistics.median(waits) * 1000, 1),
            "latency_p95_ms": round(waits[int(0.95 * (len(waits) - 1))] * 1000, 1),
            "failed_attempts": int(failed[0]) if failed else None}


def run_raw(url: str, bodies: list[bytes], threads: int, *, keep_alive: bool) -> dict[str, Any]:
    limits = httpx.Limits(max_keepalive_connections=threads if keep_alive else 0, max_connections=threads)
    with httpx.Client(limits=limits, trust_env=False, timeout=10) as client:
        def send(body: bytes) -> int:
            return client.post(url, content=body, headers={"Content-Type": "application/json"}).status_code

        started = time.monotonic()
        with ThreadPoolExecutor(threads) as executor:
            statuses = list(executor.map(send, bodies))
        seconds = time.monotonic() - started
    assert all(status == 204 for status in statuses)
    return {"seconds": round(seconds, 3), "per_second": round(len(bodies) / seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--samples", type=int, default=100, help="events timed one at a time, worker idle")
    parser.add_argument("--port", type=int, default=23080)
    args = parser.parse_args()
    configure_logging(json=True, level="WARNING")
    receiver = Receiver(args.port)
    endpoint_url = receiver.url
    try:
        with server() as (admin_url, where), scratch_database(admin_url) as url:
            print(f"database: {where}; {args.deliveries} deliveries, {args.threads} threads; "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
            settings = Settings(database_url=url, webhook_allow_networks="127.0.0.0/8", webhook_timeout_seconds=10)
            load_before = os.getloadavg()[0]
            ours = run_tenderflow(url, settings, receiver, args.deliveries, args.threads, args.samples)
            print(f"tenderflow: {ours['per_second']:,} deliveries/s ({ours['seconds']} s for the backlog); an idle "
                  f"worker, event committed -> received: p50 {ours['latency_p50_ms']} ms, p95 "
                  f"{ours['latency_p95_ms']} ms over {args.samples} events (load {os.getloadavg()[0]:.1f})",
                  flush=True)
            body = json.dumps({"id": "evt_bench", "type": "document.done", "data": {"fields": FIELDS}}).encode()
            fresh = run_raw(endpoint_url, [body] * args.deliveries, args.threads, keep_alive=False)
            print(f"raw httpx POST, a new connection each: {fresh['per_second']:,}/s (load "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
            kept = run_raw(endpoint_url, [body] * args.deliveries, args.threads, keep_alive=True)
            print(f"raw httpx POST, kept-alive connections: {kept['per_second']:,}/s (load "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
    finally:
        receiver.close()
    print(json.dumps({"bench": "webhook_delivery", "deliveries": args.deliveries, "threads": args.threads,
                      "tenderflow_per_second": ours["per_second"], "latency_p50_ms": ours["latency_p50_ms"],
                      "latency_p95_ms": ours["latency_p95_ms"], "failed_attempts": ours["failed_attempts"],
                      "raw_new_connection_per_second": fresh["per_second"],
                      "raw_keep_alive_per_second": kept["per_second"],
                      "ratio_to_raw_new_connection": round(ours["per_second"] / fresh["per_second"], 3),
                      "load_average": round(load_before, 1)}))


if __name__ == "__main__":
    main()
