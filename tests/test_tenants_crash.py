"""Credits survive crashes: real `tenderflow worker` processes are SIGKILLed in the middle of OCR
jobs; the jobs are reclaimed (re-run, or failed on their final attempt), and at the end every
reservation is closed — charged once for the document that got done, refunded for the one that
failed — with balance = grants − charges − open reservations all along."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.tenants.credits import Prices
from tenderflow.tenants.tenants import create_tenant
from tests.conftest import wait_until
from tests.support.tenants_harness import assert_ledger_balanced, document_state, ledger_kinds
from tests.support.tender_fixtures import TENDER_PAGE, scanned_pdf

Conn = psycopg.Connection[Any]
PRICES = Prices(price_per_document=3, price_per_page=2, price_per_1k_tokens=1)  # offline extraction: no tokens
LEASE_SECONDS = 2.0
Orphans = list[tuple[int, int, int]]  # (job id, document id, attempts) of jobs a killed worker held




class WorkerProcess:
    """`python -m tenderflow worker` in its own process group, its output kept for diagnosis."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "tenderflow", "worker", "--pool", "all", "--threads", "2"],
            env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the worker and everything it started (tesseract, pdftoppm)."""
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(10)
        self._log.close()

    def stop(self) -> int:
        self.popen.send_signal(signal.SIGTERM)
        try:
            code = self.popen.wait(30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"worker {self.popen.pid} ignored SIGTERM; output:\n{self.output()}")
        self._log.close()
        return code


@pytest.fixture
def start_worker(database_url: str, tmp_path: Path) -> Iterator[Callable[[], WorkerProcess]]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TENDERFLOW_")}
    env.update({
        "DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri(),
        "TENDERFLOW_DATA_DIR": str(tmp_path / "data"), "TENDERFLOW_LEASE_SECONDS": str(LEASE_SECONDS),
        "TENDERFLOW_HEARTBEAT_SECONDS": "0.5", "TENDERFLOW_POLL_SECONDS": "0.2",
        "TENDERFLOW_OCR_BATCH_PAGES": "1", "TENDERFLOW_OCR_DPI": "150", "TENDERFLOW_LOG_JSON": "true",
        "TENDERFLOW_SHUTDOWN_GRACE_SECONDS": "10",
    })
    started: list[WorkerProcess] = []

    def start() -> WorkerProcess:
        process = WorkerProcess(env, tmp_path / f"worker-{len(started)}.log")
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()


def page_being_read_by(conn: Conn, pid: int, document_id: int) -> int | None:
    """An ocr.pages job of the document that the worker process `pid` is running now."""
    row = conn.execute(
        "SELECT j.id FROM jobs j JOIN workers w ON w.id = j.worker_id WHERE j.type = 'ocr.pages'"
        " AND j.state = 'running' AND w.pid = %s AND (j.payload->>'document_id')::bigint = %s LIMIT 1",
        (pid, document_id)).fetchone()
    return None if row is None else int(row[0])


def jobs_left_running_by(conn: Conn, pid: int) -> Orphans:
    """(job id, document id, attempts) of the jobs a dead worker process still holds."""
    rows = conn.execute(
        "SELECT j.id, (j.payload->>'document_id')::bigint, j.attempts FROM jobs j JOIN workers w ON w.id = j.worker_id"
        " WHERE j.state = 'running' AND w.pid = %s ORDER BY j.id", (pid,)).fetchall()
    return [(int(a), int(b), int(c)) for a, b, c in rows]


def sessions_gone(conn: Conn, pid: int) -> bool:
    """Whether the server has ended every session of the worker process `pid` (named "<pool>:<pid>")."""
    return conn.execute("SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name LIKE %s",
                        (f"%:{pid}",)).fetchone() == (True,)


def kill_during_ocr_of(conn: Conn, start_worker: Callable[[], WorkerProcess], document_id: int) -> Orphans:
    """Start a worker, SIGKILL it while it reads a page of `document_id`; the jobs it left running."""
    for _ in range(3):  # a page might commit between seeing it run and the kill: then try again
        worker = start_worker()
        pid = worker.popen.pid
        wait_until(lambda: page_being_read_by(conn, pid, document_id), timeout=60,  # noqa: B023 (used at once)
                   message=f"a page of document {document_id} is being read")
        worker.kill()
        # A COMMIT the worker sent just before its death still lands: read what it left only once the
        # server has ended its sessions (named "<pool>:<pid>"), or a job seen running here may then
        # turn out succeeded at its first attempt.
        wait_until(partial(sessions_gone, conn, pid), timeout=30, message=f"the killed worker {pid}'s sessions ended")
        orphans = jobs_left_running_by(conn, worker.popen.pid)
        if any(doc == document_id for _, doc, _ in orphans):
            return orphans
    pytest.fail(f"never caught a page of document {document_id} in the middle of being read")


def test_sigkilled_workers_leave_every_reservation_charged_or_refunded(
    conn: Conn, tmp_path: Path, start_worker: Callable[[], WorkerProcess]
) -> None:
    create_tenant(conn, "acme", credits=100)
    storage = open_storage((tmp_path / "objects").as_uri())
    doomed = upload_file(conn, storage, scanned_pdf(tmp_path / "doomed.pdf", [TENDER_PAGE, TENDER_PAGE]),
                         UploadPolicy(tenant="acme", max_bytes=10**7, prices=PRICES)).document_id
    assert doomed is not None
    assert_ledger_balanced(conn)

    # 1. Killed while reading a page of `doomed`; that attempt is made its job's last, so the reap
    #    fails the job (and the version) for good and must refund it.
    orphans = kill_during_ocr_of(conn, start_worker, doomed)
    for job_id, document_id, attempts in orphans:
        if document_id == doomed:
            conn.execute("UPDATE jobs SET max_attempts = %s WHERE id = %s", (attempts, job_id))
    assert_ledger_balanced(conn)

    # Uploaded only now: had it been queued beside `doomed`, the first worker could have read all of
    # its pages before reaching one of `doomed`'s, leaving none for step 2 to catch.
    survivor = upload_file(conn, storage, scanned_pdf(tmp_path / "survivor.pdf", [TENDER_PAGE, ["Annex", "page 2"]]),
                           UploadPolicy(tenant="acme", max_bytes=10**7, prices=PRICES)).document_id
    assert survivor is not None
    assert_ledger_balanced(conn)

    # 2. Killed while reading a page of `survivor`: attempts remain, so the reap queues it again.
    survivor_orphans = kill_during_ocr_of(conn, start_worker, survivor)
    rerun = [job_id for job_id, document_id, _ in survivor_orphans if document_id == survivor]
    assert_ledger_balanced(conn)

    # 3. A worker that is left alone reclaims the expired leases and finishes everything.
    finisher = start_worker()
    wait_until(lambda: conn.execute(
        "SELECT count(*) = 0 FROM jobs WHERE state IN ('queued', 'running')").fetchone() == (True,),
        timeout=180, message="every job ended")
    assert finisher.stop() == 0

    state, error = document_state(conn, doomed)
    assert state == "failed" and error is not None and "lease expired on final attempt" in error, (state, error)
    assert document_state(conn, survivor) == ("done", None)
    # the survivor's killed attempts were reclaimed and run again
    assert conn.execute("SELECT bool_and(attempts >= 2 AND state = 'succeeded') FROM jobs WHERE id = ANY(%s)",
                        (rerun,)).fetchone() == (True,)

    reserved = 3 + 2 * 2  # per document, then two pages at the plan
    assert ledger_kinds(conn, doomed) == {"reserve": reserved, "refund": reserved}
    assert ledger_kinds(conn, survivor) == {"reserve": reserved, "charge": 3 + 2 * 2}
    summary = assert_ledger_balanced(conn)
    assert summary["acme"]["open_reserved"] == 0
    assert summary["acme"]["balance"] == 100 - 7
