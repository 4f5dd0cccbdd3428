"""The remote worker engine in this process (a thread), against the real API over HTTP, running the
real OCR handlers: lost leases stop a job, failures are reported with their reason, stops hand back."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tenderflow.api.worker_tokens import create_token
from tenderflow.config import Settings
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.queue import cancel, jobs
from tenderflow.remote.worker import RemoteWorker, build_remote_worker
from tests.conftest import wait_until
from tests.support.api_harness import RunningApi, api_settings, serve_in_thread
from tests.support.openai_server import rate_limited, run_openai_server
from tests.support.tender_fixtures import TENDER_PAGE, numbered_pages, scanned_pdf, text_pdf

pytestmark = pytest.mark.settings(heartbeat_seconds=0.3, ocr_batch_pages=4)


@contextmanager
def running(worker: RemoteWorker) -> Iterator[list[int]]:
    exit_codes: list[int] = []
    thread = threading.Thread(target=lambda: exit_codes.append(worker.run()), daemon=True)
    thread.start()
    try:
        yield exit_codes
    finally:
        worker.request_stop()
        thread.join(30)


def remote_settings(tmp_path: Path, **overrides: Any) -> Settings:
    """The remote machine's settings: no database, no storage; its own OCR resolution."""
    values: dict[str, Any] = {"data_dir": tmp_path / "remote", "ocr_dpi": 150, "shutdown_grace_seconds": 5.0,
                              "claim_wait_seconds": 2.0, **overrides}
    return Settings(**values)


def test_a_job_cancelled_under_a_remote_worker_is_stopped_and_posts_nothing(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    storage = open_storage(settings.resolved_storage_url)
    slow = upload_file(conn, storage, scanned_pdf(tmp_path / "slow.pdf", numbered_pages(4), dpi=200),
                       UploadPolicy(max_bytes=10**7))
    token = create_token(conn, "scanner-pc", ["ocr"]).raw
    worker = build_remote_worker(remote_settings(tmp_path, ocr_dpi=300), url=api.url, token=token, pool="ocr",
                                 threads=1)
    with running(worker):
        [job_id] = wait_until(lambda: conn.execute(
            "SELECT id FROM jobs WHERE type = 'ocr.pages' AND state = 'running'").fetchone(),
            timeout=30, message="the remote worker to start reading the pages")
        started = time.monotonic()
        with conn.transaction():
            cancel(conn, job_id)
            # The plan may have cut the pages into more than one batch (commits.pages_per_batch):
            # the others are cancelled too, so that none is read.
            for (other,) in conn.execute("SELECT id FROM jobs WHERE type = 'ocr.pages' AND id <> %s"
                                         " AND state = 'queued'", (job_id,)).fetchall():
                cancel(conn, other)
        # The next heartbeat says the claim is lost; the handler stops between pages, long before
        # it would have read all four (about 3 s a page at 300 dpi).
        # Completed: the plan and the thumbnail; never the cancelled batch.
        wait_until(lambda: worker.completed == 2 and not worker.held_jobs(), timeout=20,
                   message="the worker to drop the cancelled job")
        assert time.monotonic() - started < 6.0
    assert jobs.get(conn, job_id)["state"] == "cancelled"
    assert conn.execute("SELECT count(*) FROM pages WHERE document_id = %s", (slow.document_id,)).fetchone() == (0,)


def test_a_bad_pdf_fails_for_good_with_its_reason_and_a_stop_hands_leases_back(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    storage = open_storage(settings.resolved_storage_url)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n" + b"this is not really a PDF\n" * 50)
    bad = upload_file(conn, storage, broken, UploadPolicy(max_bytes=10**7))
    token = create_token(conn, "scanner-pc", ["ocr"]).raw
    worker = build_remote_worker(remote_settings(tmp_path, shutdown_grace_seconds=0.0), url=api.url, token=token,
                                 pool="ocr", threads=1)
    with running(worker) as exit_codes:
        failed = wait_until(lambda: conn.execute(
            "SELECT state::text, last_error FROM jobs WHERE type = 'ocr.plan' AND state = 'failed'").fetchone(),
            timeout=30, message="the plan job to fail")
        version = conn.execute("SELECT state::text, error FROM document_versions WHERE document_id = %s",
                               (bad.document_id,)).fetchone()
        upload_file(conn, storage, scanned_pdf(tmp_path / "long.pdf", numbered_pages(4), dpi=200),
                    UploadPolicy(max_bytes=10**7))
        wait_until(lambda: conn.execute("SELECT 1 FROM jobs WHERE type = 'ocr.pages' AND state = 'running'"
                                        ).fetchone(), timeout=30, message="a pages job to start")
    assert exit_codes == [0]
    assert failed[1] and "PDF" in failed[1]
    assert version is not None and version[0] == "failed" and version[1] == failed[1]
    # Stopped in the middle of a job with no grace left: its lease was handed back, not left to expire.
    handed_back = conn.execute("SELECT state::text, attempts, max_attempts, last_error FROM jobs "
                               "WHERE type = 'ocr.pages' ORDER BY attempts DESC, id LIMIT 1").fetchone()
    assert handed_back is not None and handed_back[:3] == ("queued", 1, settings.max_attempts + 1)
    assert "released by worker" in handed_back[3]
    assert conn.execute("SELECT stopped_at IS NOT NULL FROM workers").fetchall() == [(True,)]


def test_a_result_too_large_to_post_fails_its_job_for_good_at_once(
    conn: psycopg.Connection[Any], database_url: str, tmp_path: Path
) -> None:
    """A 413 on a result is final for the job: the worker reports it as a permanent failure instead
    of leaving the claim to expire and the next worker to compute the same too-large result."""
    settings = api_settings(database_url, tmp_path, heartbeat_seconds=0.3, max_result_bytes=2_000)
    with serve_in_thread(settings) as api:
        storage = open_storage(settings.resolved_storage_url)
        text = text_pdf(tmp_path / "long.pdf", [TENDER_PAGE] * 4)
        uploaded = upload_file(conn, storage, text, UploadPolicy(max_bytes=10**7))
        token = create_token(conn, "scanner-pc", ["ocr"]).raw
        worker = build_remote_worker(remote_settings(tmp_path), url=api.url, token=token, pool="ocr", threads=1)
        with running(worker):
            row = wait_until(lambda: (job := conn.execute(
                "SELECT state::text, attempts, last_error FROM jobs WHERE type = 'ocr.plan'").fetchone())
                and job[0] == "failed" and job, timeout=20, message="the plan failed")
        assert row[1] == 1 and "the result is too large to post" in row[2]
        state = conn.execute("SELECT state::text FROM document_versions WHERE document_id = %s",
                             (uploaded.document_id,)).fetchone()
        assert state == ("failed",)


def test_an_llm_asking_to_wait_longer_than_a_day_gets_its_job_retried_not_abandoned(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Found by the chaos run (its huge_retry_after fault): an LLM's 429 with a Retry-After of 1e17 s
    (review D1's R8) made the remote worker's failure report itself invalid (the protocol carries at
    most a day), so the job was abandoned to its lease: an attempt lost, a lease's wait, and no
    reason recorded. The report now carries the longest wait the protocol allows; the server caps it."""
    storage = open_storage(settings.resolved_storage_url)
    upload_file(conn, storage, text_pdf(tmp_path / "tender.pdf", [TENDER_PAGE]), UploadPolicy(max_bytes=10**7))
    token = create_token(conn, "llm-box", ["all"]).raw
    with run_openai_server(lambda _request: rate_limited(retry_after="100000000000000000")) as llm:
        machine = remote_settings(tmp_path, llm_base_url=llm.base_url, llm_model="test-model", llm_max_retries=0,
                                  extraction="openai")
        worker = build_remote_worker(machine, url=api.url, token=token, pool="all", threads=1)
        with running(worker):
            # well within the lease (30 s): an abandoned job would show nothing until it expired
            job = wait_until(lambda: conn.execute(
                "SELECT attempts, last_error, extract(epoch FROM run_after - now()) FROM jobs"
                " WHERE type = 'extract' AND last_error IS NOT NULL").fetchone(),
                timeout=20, message="the extraction's failure to be reported")
    assert job[0] == 1 and "the LLM endpoint is unavailable after 1 attempt(s): HTTP 429" in job[1], job
    assert job[2] <= settings.backoff_cap_seconds, job  # the server's cap, not the LLM's 1e17 s


def quick_retries(worker: RemoteWorker) -> RemoteWorker:
    """The worker's backoff, in hundredths of a second (the tries are what is counted, not the time)."""
    from dataclasses import replace

    worker.config = replace(worker.config, retry_base_seconds=0.01, retry_cap_seconds=0.02)
    return worker


def test_a_remote_worker_that_never_reaches_its_server_says_so_and_exits_1(tmp_path: Path) -> None:
    """The review's wrong --remote URL retried for ever, silently (warnings only)."""
    from structlog.testing import capture_logs

    from tests.support.api_harness import free_port

    url = f"http://127.0.0.1:{free_port()}"
    worker = quick_retries(build_remote_worker(remote_settings(tmp_path), url=url, token="tfw_x", pool="ocr",
                                               threads=1))
    with capture_logs() as logs, running(worker) as exit_codes:
        wait_until(lambda: exit_codes, message="the worker gives up")  # not retrying for ever
    assert exit_codes == [1]
    [stopping] = [line for line in logs if line["event"] == "remote.stopping"]
    assert stopping["reason"].startswith(f"cannot reach the server at {url} (5 tries)")
    assert "check the --remote URL" in stopping["reason"]
    assert not any(line["event"] == "remote.release_failed" for line in logs)  # nothing held, nothing to give back


def test_a_remote_worker_that_loses_its_server_says_so_once_and_keeps_trying(
        settings: Settings, conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    from structlog.testing import capture_logs

    token = create_token(conn, "scanner", ["ocr"]).raw
    with capture_logs() as logs:
        with serve_in_thread(settings) as api:
            worker = quick_retries(build_remote_worker(remote_settings(tmp_path, claim_wait_seconds=0.2), url=api.url,
                                                       token=token, pool="ocr", threads=1))
            exit_codes: list[int] = []
            thread = threading.Thread(target=lambda: exit_codes.append(worker.run()), daemon=True)
            thread.start()
            wait_until(lambda: conn.execute("SELECT 1 FROM workers WHERE kind = 'remote'").fetchone(),
                       message="the worker reached the server")
        try:
            wait_until(lambda: any(line["event"] == "remote.server_unreachable" for line in logs),
                       message="the worker says it lost the server")
            assert thread.is_alive() and exit_codes == []  # still trying: a restart is ridden out
        finally:
            worker.request_stop()
            thread.join(30)
    assert sum(line["event"] == "remote.server_unreachable" for line in logs) == 1
