"""Remote pull workers as real processes (`python -m tenderflow worker --remote …`) against a real
API server process (`python -m tenderflow serve`), with real poppler and tesseract, over HTTP.

The worker processes get no database URL and no storage location: only the API's URL and a token.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tenderflow.api.worker_tokens import create_token, revoke_token
from tenderflow.queue import jobs
from tests.conftest import wait_until
from tests.support.api_harness import (
    REPO_ROOT,
    api_process,
    api_settings,
    bearer,
    free_port,
    tenant_with_key,
)
from tests.support.tender_fixtures import TENDER_PAGE, numbered_pages, scanned_pdf, text_pdf

pytestmark = pytest.mark.slow


def remote_worker_env(tmp_path: Path, name: str, **settings: str) -> dict[str, str]:
    """A remote machine's environment: its own data dir, and no database or storage settings."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("TENDERFLOW_", "AWS_")) and key != "DATABASE_URL"}
    env.update({"PYTHONPATH": str(REPO_ROOT), "TENDERFLOW_DATA_DIR": str(tmp_path / name),
                "TENDERFLOW_LOG_JSON": "true", "TENDERFLOW_OCR_DPI": "150", **settings})
    return env


@contextmanager
def remote_worker(
    url: str, token: str, tmp_path: Path, name: str, *, pool: str = "ocr", threads: int = 2, **settings: str
) -> Iterator[subprocess.Popen[bytes]]:
    log = (tmp_path / f"{name}.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "tenderflow", "worker", "--remote", url, "--pool", pool, "--threads", str(threads)],
        env={**remote_worker_env(tmp_path, name, **settings), "TENDERFLOW_WORKER_TOKEN": token},
        stdout=log, stderr=subprocess.STDOUT, cwd=REPO_ROOT,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        log.close()


def upload(url: str, key: str, path: Path) -> int:
    with path.open("rb") as handle:
        response = httpx.post(f"{url}/v1/documents", headers=bearer(key),
                              files={"file": (path.name, handle, "application/pdf")}, timeout=30)
    assert response.status_code == 201, response.text
    document_id: int = response.json()["id"]
    return document_id


def job_states(conn: psycopg.Connection[Any], *types: str) -> list[tuple[str, str]]:
    return conn.execute(
        "SELECT type, state::text FROM jobs WHERE type = ANY(%s) ORDER BY id", (list(types),)
    ).fetchall()


def ocr_done(conn: psycopg.Connection[Any]) -> bool:
    states = job_states(conn, "ocr.plan", "ocr.pages")
    return bool(states) and all(state == "succeeded" for _, state in states) and \
        conn.execute("SELECT count(*) FROM jobs WHERE type = 'ocr.plan'").fetchone() == (3,)


def test_a_remote_worker_process_drains_ocr_jobs_and_stops_when_its_token_is_revoked(
    database_url: str, tmp_path: Path, conn: psycopg.Connection[Any]
) -> None:
    settings = api_settings(database_url, tmp_path, ocr_batch_pages=2, heartbeat_seconds=0.5)
    key = tenant_with_key(conn, "acme")
    token = create_token(conn, "scanner-pc", ["ocr"]).raw
    with api_process(settings, tmp_path) as api, remote_worker(api.url, token, tmp_path, "pc") as worker:
        documents = [
            upload(api.url, key, text_pdf(tmp_path / "digital.pdf", numbered_pages(5))),
            upload(api.url, key, scanned_pdf(tmp_path / "scan.pdf", [TENDER_PAGE])),
            upload(api.url, key, text_pdf(tmp_path / "short.pdf", [TENDER_PAGE])),
        ]
        wait_until(lambda: ocr_done(conn), timeout=90, message="the remote worker to finish every OCR job")

        pages = conn.execute("SELECT document_id, page_number, source, text FROM pages ORDER BY 1, 2").fetchall()
        assert [(d, n) for d, n, _, _ in pages] == [(documents[0], n) for n in range(1, 6)] + [
            (documents[1], 1), (documents[2], 1)]
        by_page = {(d, n): (source, text) for d, n, source, text in pages}
        assert by_page[(documents[1], 1)][0] == "ocr" and "EH-2026-0417" in by_page[(documents[1], 1)][1]
        assert by_page[(documents[0], 5)][0] == "text_layer" and "PAGE-005" in by_page[(documents[0], 5)][1]
        # Every OCR job was claimed under the token's name; extraction waits for an extract pool.
        workers = {row[0] for row in conn.execute("SELECT DISTINCT worker_id FROM jobs WHERE type LIKE 'ocr.%'")}
        assert len(workers) == 1 and re.match(rf"remote:scanner-pc@[0-9a-z]+:{re.escape(socket_host())}", workers.pop())
        assert job_states(conn, "extract") == [("extract", "queued")] * 3
        assert conn.execute("SELECT kind FROM workers").fetchall() == [("remote",)]

        revoke_token(conn, "scanner-pc")
        assert worker.wait(15) == 3  # refused at its next call (a heartbeat), it stops
    log = (tmp_path / "pc.log").read_text()
    assert "the server refused the worker token" in log and "invalid or revoked worker token" in log


def socket_host() -> str:
    import socket

    return "".join(c if c.isalnum() or c in "-." else "-" for c in socket.gethostname())[:60]


def test_a_remote_worker_rides_out_a_server_restart_and_stops_gracefully(
    database_url: str, tmp_path: Path, conn: psycopg.Connection[Any]
) -> None:
    settings = api_settings(database_url, tmp_path, heartbeat_seconds=0.5)
    key = tenant_with_key(conn, "acme")
    token = create_token(conn, "office-pc", ["ocr", "extract"]).raw
    port = free_port()
    with api_process(settings, tmp_path, port) as api, \
            remote_worker(api.url, token, tmp_path, "pc", pool="all") as worker:
        first = upload(api.url, key, text_pdf(tmp_path / "one.pdf", [TENDER_PAGE]))
        wait_until(lambda: conn.execute("SELECT state::text FROM document_versions WHERE document_id = %s",
                                        (first,)).fetchone() == ("done",), timeout=60, message="document one")

        api.stop(signal.SIGKILL)  # the server dies; the worker keeps retrying
        from tenderflow.pipeline.storage import open_storage
        from tenderflow.pipeline.uploads import UploadPolicy, upload_file

        second = upload_file(conn, open_storage(settings.resolved_storage_url),
                             text_pdf(tmp_path / "two.pdf", numbered_pages(3)),
                             UploadPolicy(tenant="acme", max_bytes=10**7))
        wait_until(lambda: "remote.claim_failed" in (tmp_path / "pc.log").read_text(), timeout=30,
                   message="the worker to notice the server is gone")
        assert worker.poll() is None

        api.start()  # the same port, a new process
        api.wait_ready()
        wait_until(lambda: conn.execute("SELECT state::text FROM document_versions WHERE document_id = %s",
                                        (second.document_id,)).fetchone() == ("done",),
                   timeout=60, message="document two, after the restart")
        fields = httpx.get(f"{api.url}/v1/documents/{second.document_id}/fields", headers=bearer(key)).json()
        assert fields["fields"]["reference_number"]["value"] == "EH-2026-0417"

        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
        assert conn.execute("SELECT stopped_at IS NOT NULL FROM workers WHERE kind = 'remote'").fetchall() == [(True,)]


def test_a_remote_worker_killed_mid_job_has_its_job_reclaimed_and_finished_by_another(
    database_url: str, tmp_path: Path, conn: psycopg.Connection[Any]
) -> None:
    # Short leases so the dead worker's claim runs out quickly; one batch of three scanned pages
    # at 300 dpi keeps the first worker busy long enough to be killed in the middle of it.
    settings = api_settings(database_url, tmp_path, lease_seconds=3.0, heartbeat_seconds=0.5,
                            maintenance_seconds=0.5, ocr_batch_pages=3)
    key = tenant_with_key(conn, "acme")
    token = create_token(conn, "scanner-pc", ["ocr"]).raw
    slow = {"TENDERFLOW_OCR_DPI": "300"}
    with api_process(settings, tmp_path) as api:
        document_id = upload(api.url, key, scanned_pdf(tmp_path / "scan.pdf", numbered_pages(3), dpi=200))
        with remote_worker(api.url, token, tmp_path, "first", threads=1, **slow) as first:
            def pages_job_held_by_first() -> Any:
                return conn.execute(
                    "SELECT id FROM jobs WHERE type = 'ocr.pages' AND state = 'running' AND worker_id LIKE %s",
                    (f"%:{first.pid}:%",)).fetchone()

            [job_id] = wait_until(pages_job_held_by_first, timeout=60, message="the first worker to take the pages")
            wait_until(lambda: subprocess.run(["pgrep", "-P", str(first.pid)], capture_output=True).returncode == 0,
                       timeout=30, interval=0.05, message="the first worker to be running OCR")
            first.kill()  # SIGKILL, mid-job
            first.wait(10)
        assert jobs.get(conn, job_id)["state"] == "running"  # until its lease runs out

        with remote_worker(api.url, token, tmp_path, "second", threads=1) as second:
            finished = wait_until(
                lambda: conn.execute("SELECT state::text, attempts, worker_id FROM jobs WHERE id = %s AND state IN "
                                     "('succeeded', 'failed')", (job_id,)).fetchone(),
                timeout=90, message="the job to be reclaimed and finished by the second worker")
        state, attempts, worker_id = finished
        assert (state, attempts) == ("succeeded", 2) and f":{second.pid}:" in worker_id
        texts = conn.execute("SELECT page_number, text FROM pages WHERE document_id = %s ORDER BY 1",
                             (document_id,)).fetchall()
        assert [n for n, _ in texts] == [1, 2, 3] and "PAGE-003" in texts[2][1]
        # Each batch recorded once, the reclaimed one included (the plan cuts the 3 pages for the live
        # OCR threads: commits.pages_per_batch).
        batches = conn.execute("SELECT count(*) FROM ocr_batches WHERE document_id = %s", (document_id,)).fetchone()
        assert batches == conn.execute("SELECT count(*) FROM jobs WHERE type = 'ocr.pages'"
                                       " AND (payload->>'document_id')::bigint = %s", (document_id,)).fetchone()
