"""The remote workers' endpoints over real HTTP: tokens, claims, the ownership guard, long-polls."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tenderflow.api.wakeups import JobWakeups
from tenderflow.api.worker_tokens import WorkerTokenError, create_token, revoke_token
from tenderflow.config import Settings
from tenderflow.errors import LeaseLostError
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.queue import jobs
from tenderflow.remote.client import (
    RemoteQueueClient,
    ResultRefusedError,
    ResultTooLargeError,
    WorkerTokenRefusedError,
)
from tenderflow.remote.protocol import RemoteJob, WorkerHello
from tenderflow.tenants.tenants import create_tenant
from tests.conftest import wait_until
from tests.support.api_harness import RunningApi, api_settings, serve_in_thread, settings_env
from tests.support.tender_fixtures import TENDER_PAGE, numbered_pages, scanned_pdf, text_pdf

# A long poll interval: a claim that returns quickly was woken by NOTIFY, not by polling.
pytestmark = pytest.mark.settings(poll_seconds=30.0, claim_wait_seconds=20.0, maintenance_seconds=600.0)


def hello(pool: str = "ocr") -> WorkerHello:
    return WorkerHello(host="scanner-pc", pid=4242, pool=pool, threads=2)


def remote_client(api: RunningApi, token: str, instance: str) -> RemoteQueueClient:
    return RemoteQueueClient(api.url, token, instance=instance)


def upload_pdf(conn: psycopg.Connection[Any], settings: Settings, path: Path) -> int:
    outcome = upload_file(conn, open_storage(settings.resolved_storage_url), path, UploadPolicy(max_bytes=10_000_000))
    assert outcome.document_id is not None
    return outcome.document_id


def scanner_with_a_job(api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
                       ) -> tuple[RemoteQueueClient, RemoteJob, int]:
    """A one-page document uploaded and its plan job claimed by the remote worker "scanner-pc" (an
    OCR token): its client, the job and the document's id."""
    token = create_token(conn, "scanner-pc", ["ocr"]).raw
    document_id = upload_pdf(conn, settings, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]))
    client = remote_client(api, token, "pc:1:aaaaaa")
    [job] = client.claim(hello(), limit=1, wait_seconds=0).jobs
    return client, job, document_id


def tenderflow(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command, in its own process (as an operator runs it)."""
    return subprocess.run([sys.executable, "-m", "tenderflow", *args], env=settings_env(settings),
                          capture_output=True, text=True, timeout=60)


def test_worker_token_commands_create_once_list_without_secret_and_revoke(
    settings: Settings, conn: psycopg.Connection[Any]
) -> None:
    created = tenderflow(settings, "worker-tokens", "create", "scanner-pc", "--pools", "ocr,extract", "--json")
    assert created.returncode == 0, created.stderr
    shown = json.loads(created.stdout)
    assert shown["pools"] == ["ocr", "extract"] and shown["token"].startswith("tfw_")
    secret = shown["token"].split("_", 2)[2]
    stored = conn.execute("SELECT secret_sha256, pools FROM worker_tokens WHERE name = 'scanner-pc'").fetchone()
    assert stored is not None and secret.encode() not in bytes(stored[0]) and stored[1] == ["ocr", "extract"]

    again = tenderflow(settings, "worker-tokens", "create", "scanner-pc")
    assert again.returncode == 1 and "already named 'scanner-pc'" in again.stderr
    with pytest.raises(WorkerTokenError, match="unknown pool 'gpu'"):
        create_token(conn, "other", ["gpu"])

    listed = tenderflow(settings, "worker-tokens", "list", "--json")
    assert listed.returncode == 0 and secret not in listed.stdout
    assert [(t["name"], t["status"]) for t in json.loads(listed.stdout)] == [("scanner-pc", "active")]

    revoked = tenderflow(settings, "worker-tokens", "revoke", "scanner-pc")
    assert revoked.returncode == 0, revoked.stderr
    listed_all = json.loads(tenderflow(settings, "worker-tokens", "list", "--all", "--json").stdout)
    assert [(t["name"], t["status"]) for t in listed_all] == [("scanner-pc", "revoked")]

    # Plain: the token alone on stdout (TOKEN=$(tenderflow worker-tokens create …)), the prose on stderr.
    plain = tenderflow(settings, "worker-tokens", "create", "office-pc", "--pools", "ocr")
    assert plain.returncode == 0, plain.stderr
    assert re.fullmatch(r"tfw_[a-z0-9]{12}_[A-Za-z0-9_\-]{43}\n", plain.stdout), plain.stdout
    assert "shown once, store it now" in plain.stderr and plain.stdout.strip() not in plain.stderr


def test_a_remote_claim_carries_the_token_registers_the_worker_and_records_use(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    token = create_token(conn, "scanner-pc", ["ocr"]).raw
    document_id = upload_pdf(conn, settings, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]))
    client = remote_client(api, token, "pc:1:aaaaaa")
    answer = client.claim(hello(), limit=4, wait_seconds=0)
    [job] = answer.jobs
    assert (job.type, job.attempt, job.input_kind, job.payload["document_id"]) == ("ocr.plan", 1, "pdf", document_id)
    assert answer.lease_seconds == settings.lease_seconds and answer.heartbeat_seconds == settings.heartbeat_seconds
    row = jobs.get(conn, job.id)
    assert row["state"] == "running" and re.fullmatch(r"remote:scanner-pc@[0-9a-z]{12}:pc:1:aaaaaa", row["worker_id"])
    worker = conn.execute("SELECT kind, host, pid, pools, threads, stopped_at FROM workers WHERE id = %s",
                          (row["worker_id"],)).fetchone()
    assert worker == ("remote", "scanner-pc", 4242, ["ocr.plan", "ocr.pages", "thumbnail"], 2, None)
    assert conn.execute("SELECT last_used_at IS NOT NULL FROM worker_tokens").fetchone() == (True,)

    pdf = tmp_path / "input.pdf"
    assert client.download_pdf(job, pdf) == (tmp_path / "t.pdf").stat().st_size
    assert pdf.read_bytes() == (tmp_path / "t.pdf").read_bytes()
    # As if the page had no usable text layer: the plan sends it to OCR.
    outcome = client.complete(job, {"page_count": 1, "ocr_pages": [1]})
    assert outcome.outcome == "succeeded"
    assert jobs.get(conn, job.id)["state"] == "succeeded"
    queued = conn.execute("SELECT type FROM jobs WHERE state = 'queued' ORDER BY type").fetchall()
    assert queued == [("ocr.pages",), ("thumbnail",)]

    stopped = client.stop([])
    assert stopped.released == []
    assert conn.execute("SELECT stopped_at IS NOT NULL FROM workers WHERE id = %s",
                        (row["worker_id"],)).fetchone() == (True,)


def test_a_result_from_a_worker_whose_lease_was_reclaimed_is_refused_and_written_nowhere(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    token = create_token(conn, "scanner-pc", ["ocr"]).raw
    upload_pdf(conn, settings, text_pdf(tmp_path / "t.pdf", numbered_pages(2)))
    stale, fresh = remote_client(api, token, "pc:1:stale0"), remote_client(api, token, "pc:2:fresh0")
    [plan] = stale.claim(hello(), limit=1, wait_seconds=0).jobs
    assert fresh.claim(hello(), limit=1, wait_seconds=0).jobs == []
    # The stale worker goes quiet; its lease runs out and the job is reclaimed and claimed again.
    conn.execute("UPDATE jobs SET leased_until = now() - interval '1 second' WHERE id = %s", (plan.id,))
    [reclaimed] = jobs.reclaim(conn)
    assert reclaimed.id == plan.id
    [again] = fresh.claim(hello(), limit=1, wait_seconds=0).jobs
    assert (again.id, again.attempt) == (plan.id, 2)

    with pytest.raises(LeaseLostError, match="not held by this worker"):
        stale.complete(plan, {"page_count": 2, "ocr_pages": [1, 2]})
    with pytest.raises(LeaseLostError):
        stale.fail(plan, "too late", permanent=True, retry_after_seconds=None)
    stale_beat = stale.heartbeat(hello(), [plan])
    assert (stale_beat.owned, stale_beat.lost) == ([], [plan.id])
    assert conn.execute("SELECT page_count, state::text FROM document_versions").fetchone() == (None, "queued")
    assert conn.execute("SELECT count(*) FROM jobs WHERE type = 'ocr.pages'").fetchone() == (0,)
    row = jobs.get(conn, plan.id)
    assert (row["state"], row["attempts"]) == ("running", 2) and row["worker_id"].endswith(":pc:2:fresh0")

    assert fresh.complete(again, {"page_count": 2, "ocr_pages": [1, 2]}).outcome == "succeeded"
    assert conn.execute("SELECT page_count, state::text FROM document_versions").fetchone() == (2, "ocr")


def test_a_claim_is_only_its_own_instances_and_tokens_are_scoped_to_pools(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    ocr_token = create_token(conn, "ocr-box", ["ocr"]).raw
    extract_token = create_token(conn, "llm-box", ["extract"]).raw
    upload_pdf(conn, settings, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]))
    owner, neighbour = remote_client(api, ocr_token, "a:1:aaaaaa"), remote_client(api, ocr_token, "b:2:bbbbbb")
    outsider = remote_client(api, extract_token, "c:3:cccccc")
    [job] = owner.claim(hello(), limit=1, wait_seconds=0).jobs

    with pytest.raises(WorkerTokenRefusedError, match="may run pools extract, not 'ocr'"):
        outsider.claim(hello("ocr"), limit=1, wait_seconds=0)
    with pytest.raises(LeaseLostError):
        neighbour.complete(job, {"page_count": 1, "ocr_pages": [1]})
    with pytest.raises(LeaseLostError):
        outsider.download_pdf(job, tmp_path / "stolen.pdf")
    assert not (tmp_path / "stolen.pdf").exists()
    assert jobs.get(conn, job.id)["state"] == "running"


def test_an_invalid_result_is_refused_with_422_and_the_attempt_retried(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    client, job, _ = scanner_with_a_job(api, conn, settings, tmp_path)
    with pytest.raises(ResultRefusedError, match="page_count"):
        client.complete(job, {"page_count": -3, "smuggled": "x"})
    row = jobs.get(conn, job.id)
    assert row["state"] == "queued" and "result refused from remote worker" in row["last_error"]
    assert conn.execute("SELECT page_count FROM document_versions").fetchone() == (None,)


def test_a_revoked_token_is_refused_at_its_next_call(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    client, job, _ = scanner_with_a_job(api, conn, settings, tmp_path)
    assert client.heartbeat(hello(), [job]).owned == [job.id]
    revoke_token(conn, "scanner-pc")
    with pytest.raises(WorkerTokenRefusedError, match="401 invalid or revoked worker token"):
        client.heartbeat(hello(), [job])
    with pytest.raises(WorkerTokenRefusedError):
        client.complete(job, {"page_count": 1, "ocr_pages": [1]})
    assert jobs.get(conn, job.id)["state"] == "running"  # untouched: its lease runs out and it is reclaimed


def test_waiting_claims_share_one_listener_and_wake_on_notify(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path, database_url: str
) -> None:
    token = create_token(conn, "scanner-pc", ["ocr"]).raw
    wait_until(api.services.wakeups.listening.is_set, timeout=10, message="the API's listener")
    results: dict[int, tuple[int, float]] = {}

    def wait_for_work(n: int) -> None:
        answer = remote_client(api, token, f"pc:{n}:waiter").claim(hello(), limit=1, wait_seconds=8)
        results[n] = (len(answer.jobs), time.monotonic())

    waiters = [threading.Thread(target=wait_for_work, args=(n,)) for n in range(6)]
    for thread in waiters:
        thread.start()
    wait_until(lambda: conn.execute("SELECT count(*) FROM workers").fetchone() == (6,), timeout=10,
               message="six registered waiters")
    time.sleep(0.5)
    # Six requests are waiting; the database sees ONE listening connection, and no waiter holds one
    # of the pool's connections.
    listening = conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%%'"
    ).fetchone()
    assert listening == (1,)
    for _ in range(5):
        stats = api.services.pool.get_stats()
        assert stats.get("pool_available", 0) == stats["pool_size"], stats
        time.sleep(0.1)

    pdfs = [text_pdf(tmp_path / f"{n}.pdf", [[f"Tender {n}"]]) for n in range(3)]
    for pdf in pdfs:
        upload_pdf(conn, settings, pdf)
    enqueued = time.monotonic()
    for thread in waiters:
        thread.join(30)
    woken = sorted(ended - enqueued for count, ended in results.values() if count == 1)
    assert len(woken) == 3, results
    # Woken by the notification: well before the 30 s polling backstop and the end of the 8 s wait.
    assert max(woken) < 2.0, woken
    assert sorted(count for count, _ in results.values()) == [0, 0, 0, 1, 1, 1]


def test_the_api_listener_ends_when_joined_at_shutdown_not_at_its_next_poll(database_url: str) -> None:
    """The API's shutdown joins its listener: woken on a channel of its own, the listener ends at once,
    though here it waits for notifications a minute at a time."""
    wakeups = JobWakeups(database_url, poll_seconds=60)
    wakeups.start()
    wait_until(wakeups.listening.is_set, timeout=10, message="the API's listener")
    wakeups.close()
    wakeups.join(10)
    assert not wakeups.listening.is_set()  # cleared as the listener's loop ends


def test_stopping_hands_leases_back_and_ends_a_waiting_claim(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    client, job, _ = scanner_with_a_job(api, conn, settings, tmp_path)
    ended: list[float] = []

    def wait_for_more() -> None:
        started = time.monotonic()
        client.claim(hello(), limit=1, wait_seconds=15)
        ended.append(time.monotonic() - started)

    waiting = threading.Thread(target=wait_for_more)
    waiting.start()
    time.sleep(1.0)
    assert client.stop([job]).released == [job.id]
    waiting.join(10)
    assert ended and ended[0] < 5.0
    row = jobs.get(conn, job.id)
    assert (row["state"], row["attempts"], row["max_attempts"]) == ("queued", 1, settings.max_attempts + 1)
    stopped = conn.execute("SELECT stopped_at IS NOT NULL FROM workers WHERE id LIKE %s", ("%pc:1:aaaaaa%",))
    assert stopped.fetchall() == [(True,)]
    # A heartbeat already on its way when the worker sent its stop arrives after it: still stopped.
    client.heartbeat(hello(), [])
    stopped = conn.execute("SELECT stopped_at IS NOT NULL FROM workers WHERE id LIKE %s", ("%pc:1:aaaaaa%",))
    assert stopped.fetchall() == [(True,)]


def test_a_failure_report_the_database_could_not_store_no_longer_wedges_the_job(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Review D1, remote path: an error text with NUL (an LLM's message passed through) made the
    server answer 500 for ever while the job stayed running. A day's Retry-After is also capped at
    the backoff cap now."""
    client, job, _ = scanner_with_a_job(api, conn, settings, tmp_path)
    answer = client.fail(job, "bad request \x00 with NUL", permanent=False, retry_after_seconds=86_400)
    assert answer.outcome == "retry"
    row = jobs.get(conn, job.id)
    assert row["state"] == "queued" and row["last_error"] == "bad request  with NUL"
    later = conn.execute("SELECT now() + make_interval(secs => %s)", (settings.backoff_cap_seconds,)).fetchone()
    assert later is not None and row["run_after"] <= later[0]


def test_the_api_maintenance_thread_survives_a_broken_schedule_and_keeps_reclaiming(
    database_url: str, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """Review D4: a schedule naming an unknown job type killed the API's maintenance thread, and after
    that nothing reclaimed an abandoned remote claim."""
    conn.execute("INSERT INTO job_schedules (name, type, interval_seconds, next_run_at) "
                 "VALUES ('broken', 'no.such.type', 3600, now())")
    with serve_in_thread(api_settings(database_url, tmp_path, maintenance_seconds=0.1)):
        time.sleep(0.5)  # a few maintenance rounds, each meeting the broken schedule
        job_id = jobs.enqueue(conn, jobs.JobSpec("ocr.plan", payload={}))
        [claimed] = jobs.claim(conn, worker_id="remote:gone:1", types=["ocr.plan"], limit=1, lease_seconds=0.2)
        assert claimed.id == job_id
        wait_until(lambda: jobs.get(conn, job_id)["state"] == "queued", timeout=10,
                   message="the abandoned claim is reclaimed")
    row = conn.execute("SELECT next_run_at <= now() FROM job_schedules WHERE name = 'broken'").fetchone()
    assert row == (True,), "the broken schedule is left as it is, for an operator to fix"


def test_a_token_recreated_under_a_revoked_ones_name_inherits_none_of_its_claims(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Review D13: claims belonged to the token's name, so its re-created namesake (even one scoped to
    other pools) could complete them."""
    old = create_token(conn, "shared", ["ocr"]).raw
    upload_pdf(conn, settings, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]))
    [plan] = remote_client(api, old, "pc:1:same00").claim(hello(), limit=1, wait_seconds=0).jobs
    revoke_token(conn, "shared")
    namesake = remote_client(api, create_token(conn, "shared", ["extract"]).raw, "pc:1:same00")
    with pytest.raises(LeaseLostError):
        namesake.complete(plan, {"page_count": 1, "ocr_pages": [1]})
    beat = namesake.heartbeat(hello("extract"), [plan])
    assert (beat.owned, beat.lost) == ([], [plan.id])
    assert jobs.get(conn, plan.id)["state"] == "running"
    assert conn.execute("SELECT page_count FROM document_versions").fetchone() == (None,)


def test_waiting_claims_cannot_take_the_threads_tenant_requests_need(
    database_url: str, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """Review D3: 110 waiting long-polls held every API thread, and a tenant's GET took 21 s. Now at
    most half the threads wait; a claim past that is told to retry later (429) at once."""
    from tests.support.api_harness import bearer, tenant_with_key

    settings = api_settings(database_url, tmp_path, api_threads=8, claim_wait_seconds=20.0, poll_seconds=30.0)
    token = create_token(conn, "busy-farm", ["ocr"]).raw
    key = tenant_with_key(conn, "acme")
    with serve_in_thread(settings) as api:
        answers: list[int] = []

        def poll(number: int) -> None:
            client = remote_client(api, token, f"farm:{number}:aaaaaa")
            try:
                client.claim(hello(), limit=1, wait_seconds=20)
                answers.append(200)
            except Exception as exc:  # the client raises on 429, which is what we count
                answers.append(429 if "429" in str(exc) else 0)

        pollers = [threading.Thread(target=poll, args=(number,), daemon=True) for number in range(12)]
        for thread in pollers:
            thread.start()
        wait_until(lambda: len(answers) >= 8, timeout=10, message="the polls past the limit are answered")
        started = time.monotonic()
        assert api.client.get("/v1/documents", headers=bearer(key)).status_code == 200
        assert time.monotonic() - started < 1.0
        assert answers.count(429) == 8, answers
        api.services.begin_shutdown()  # ends the waiting claims at once
        for thread in pollers:
            thread.join(10)


def _page_record(number: int, text: str) -> dict[str, Any]:
    return {"number": number, "text": text, "source": "text_layer", "seconds": 0.01}


def test_d2_a_forged_plan_is_refused_and_written_nowhere(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """D2: a plan claiming 3 forged pages for a 1-page PDF was committed (pages stored, 3 pages
    reserved); the server now probes the stored PDF and refuses a page count that is not its own."""
    client, job, document_id = scanner_with_a_job(api, conn, settings, tmp_path)
    forged = {"page_count": 3, "text_pages": [_page_record(n, f"forged page {n}") for n in (1, 2, 3)], "ocr_pages": []}
    with pytest.raises(ResultRefusedError, match="the plan says 3 pages; the stored PDF has 1"):
        client.complete(job, forged)
    row = jobs.get(conn, job.id)
    assert row["state"] == "queued" and "stored PDF has 1" in row["last_error"]
    assert conn.execute("SELECT count(*) FROM pages WHERE document_id = %s", (document_id,)).fetchone() == (0,)
    assert conn.execute("SELECT page_count FROM document_versions").fetchone() == (None,)


def test_d2_a_page_longer_than_a_page_can_be_is_refused(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """D2: text size caps hold for remote pages (2 MB of text for one page was accepted)."""
    client, job, document_id = scanner_with_a_job(api, conn, settings, tmp_path)
    with pytest.raises(ResultRefusedError, match="page 1 has 1,000,000 characters"):
        client.complete(job, {"page_count": 1, "text_pages": [_page_record(1, "x" * 1_000_000)]})
    assert conn.execute("SELECT count(*) FROM pages WHERE document_id = %s", (document_id,)).fetchone() == (0,)


def test_n1_text_a_remote_plan_says_came_from_the_text_layer_is_the_stored_pdfs(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Review security-2, N1: an OCR token completed a plan whose 'text layer' page held forged text;
    it was stored and served. The server now reads the stored PDF's own text layer to compare."""
    token = create_token(conn, "scanner-pc", ["ocr"]).raw
    client = remote_client(api, token, "pc:1:aaaaaa")
    text = upload_pdf(conn, settings, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]))
    [job] = client.claim(hello(), limit=1, wait_seconds=0).jobs
    forged = [_page_record(1, "Reference number: FORGED-1 forged text")]
    with pytest.raises(ResultRefusedError, match="page 1's text is not the stored PDF's text layer"):
        client.complete(job, {"page_count": 1, "text_pages": forged, "ocr_pages": []})
    assert conn.execute("SELECT count(*) FROM pages WHERE document_id = %s", (text,)).fetchone() == (0,)

    scan = upload_pdf(conn, settings, scanned_pdf(tmp_path / "s.pdf", [TENDER_PAGE]))
    [job] = [j for j in client.claim(hello(), limit=2, wait_seconds=0).jobs if j.payload["document_id"] == scan]
    with pytest.raises(ResultRefusedError, match="page 1 has no usable text layer"):
        client.complete(job, {"page_count": 1, "text_pages": [_page_record(1, "\n".join(TENDER_PAGE))],
                              "ocr_pages": []})
    assert conn.execute("SELECT count(*) FROM pages WHERE document_id = %s", (scan,)).fetchone() == (0,)


def _extract_job_of_a_real_plan(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> tuple[RemoteQueueClient, Any, int]:
    """Upload a 1-page tender, let a remote OCR worker post its honest plan (the page's text as the
    text layer reads it), and claim the extract job with an extract-scoped token."""
    ocr = remote_client(api, create_token(conn, "scanner-pc", ["ocr"]).raw, "pc:1:aaaaaa")
    document_id = upload_pdf(conn, settings, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]))
    [plan] = ocr.claim(hello(), limit=1, wait_seconds=0).jobs
    answer = ocr.complete(plan, {"page_count": 1, "text_pages": [_page_record(1, "\n".join(TENDER_PAGE))]})
    assert answer.outcome == "succeeded"
    extractor = remote_client(api, create_token(conn, "llm-box", ["extract"]).raw, "box:1:bbbbbb")
    [job] = extractor.claim(hello("extract"), limit=1, wait_seconds=0).jobs
    assert job.type == "extract"
    return extractor, job, document_id


def _fields(**values: Any) -> dict[str, Any]:
    return {"fields": values, "flags": [], "backend": "openai", "model": "m", "prompt_tokens": 900,
            "completion_tokens": 100}


def test_d2_forged_fields_and_inflated_usage_are_refused_and_honest_ones_stored(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """D2: `fields` was any dict and token counts were taken as given, so a remote worker could
    store values no page says and make a tenant pay for millions of tokens. The server now runs the
    local validation against the stored pages and bounds the usage by the text."""
    client, job, document_id = _extract_job_of_a_real_plan(api, conn, settings, tmp_path)
    not_on_page = {"value": "EH-9999-0001", "page": 1, "quote": "Reference number: EH-9999-0001"}
    with pytest.raises(ResultRefusedError, match="do not hold against the stored pages"):
        client.complete(job, _fields(reference_number=not_on_page))
    [job] = _reclaim(conn, client, job)
    with pytest.raises(ResultRefusedError, match="tender schema"):
        client.complete(job, _fields(reference_number="EH-2026-0417"))
    [job] = _reclaim(conn, client, job)
    inflated = {**_fields(), "prompt_tokens": 5_000_000}
    with pytest.raises(ResultRefusedError, match="5,000,100 tokens reported"):
        client.complete(job, inflated)
    assert conn.execute("SELECT count(*) FROM extractions WHERE document_id = %s", (document_id,)).fetchone() == (0,)

    [job] = _reclaim(conn, client, job)
    honest = {"value": "EH-2026-0417", "page": 1, "quote": "Reference number: EH-2026-0417"}
    assert client.complete(job, _fields(reference_number=honest)).outcome == "succeeded"
    stored = conn.execute("SELECT fields FROM extractions WHERE document_id = %s", (document_id,)).fetchone()
    assert stored is not None and stored[0]["reference_number"]["value"] == "EH-2026-0417"


def _reclaim(conn: psycopg.Connection[Any], client: RemoteQueueClient, job: Any) -> list[Any]:
    """The refused attempt was queued for a retry after backoff: make it due now and claim it again."""
    conn.execute("UPDATE jobs SET run_after = now() WHERE id = %s", (job.id,))
    return client.claim(hello("extract"), limit=1, wait_seconds=0).jobs


def test_a_result_body_over_the_cap_is_refused_with_413_before_it_is_read(
    conn: psycopg.Connection[Any], database_url: str, tmp_path: Path
) -> None:
    """Review (info note): the result endpoint read bodies of up to 256 MiB into memory; the cap is
    now a setting (TENDERFLOW_MAX_RESULT_BYTES) and a body over it is a 413, the claim untouched.
    The server names its cap in each claim answer, so the worker refuses an oversized result itself
    instead of having its upload cut off (a 413 sent before the body has arrived closes the
    connection under the sender, which then sees a reset rather than the answer)."""
    settings = api_settings(database_url, tmp_path, max_result_bytes=100_000)
    with serve_in_thread(settings) as api:
        token = create_token(conn, "scanner-pc", ["ocr"]).raw
        upload_pdf(conn, settings, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]))
        client = remote_client(api, token, "pc:1:aaaaaa")
        claimed = client.claim(hello(), limit=1, wait_seconds=0)
        [job] = claimed.jobs
        assert claimed.max_result_bytes == client.max_result_bytes == 100_000
        with pytest.raises(ResultTooLargeError, match="larger than this route's limit of 100,000 bytes"):
            client.complete(job, {"page_count": 1, "text_pages": [_page_record(1, "x" * 150_000)]})
        # The server's own check, for a sender that does not look: the declared length is refused
        # at once, before a byte of the body is read (none is sent here, so nothing races the answer).
        with socket.create_connection(("127.0.0.1", api.port), timeout=10) as raw:
            raw.sendall((f"POST /v1/worker/jobs/{job.id}/complete HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                         "Content-Length: 150000\r\n\r\n").encode())
            answer = raw.makefile("rb").read().decode()
        assert answer.startswith("HTTP/1.1 413"), answer
        assert "larger than this route's limit of 100,000 bytes" in answer
        assert jobs.get(conn, job.id)["state"] == "running"
        assert client.complete(job, {"page_count": 1, "ocr_pages": [1]}).outcome == "succeeded"


def test_d2_a_token_scoped_to_tenants_claims_only_their_jobs(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """D2: a token scoped to `ocr` could claim, read and rewrite any tenant's documents; a token may
    now also be scoped to tenants, and it never sees another tenant's job."""
    storage = open_storage(settings.resolved_storage_url)
    for tenant in ("alpha", "beta"):
        create_tenant(conn, tenant, unlimited=True)
    with pytest.raises(WorkerTokenError, match="no tenant named gamma"):
        create_token(conn, "nobody", ["ocr"], tenants=["gamma"])
    betas = [upload_file(conn, storage, text_pdf(tmp_path / f"b{n}.pdf", [TENDER_PAGE, [f"beta {n}"]]),
                         UploadPolicy(tenant="beta", max_bytes=10**7)).document_id for n in range(3)]
    alpha = upload_file(conn, storage, text_pdf(tmp_path / "a.pdf", [TENDER_PAGE]),
                        UploadPolicy(tenant="alpha", max_bytes=10**7)).document_id
    client = remote_client(api, create_token(conn, "alpha-box", ["ocr"], tenants=["alpha"]).raw, "a:1:aaaaaa")
    claimed = client.claim(hello(), limit=10, wait_seconds=0).jobs
    assert [(job.tenant, job.payload["document_id"]) for job in claimed] == [("alpha", alpha)]
    assert client.claim(hello(), limit=10, wait_seconds=0).jobs == []  # beta's three stay queued
    assert conn.execute("SELECT count(*) FROM jobs WHERE state = 'queued' AND payload->>'document_id' = ANY(%s)",
                        ([str(d) for d in betas],)).fetchone() == (3,)
    listed = tenderflow(settings, "worker-tokens", "list", "--json")
    assert [row["tenants"] for row in json.loads(listed.stdout)] == [["alpha"]]


def test_a_remote_extractions_confidence_and_candidates_are_checked_like_its_values(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Issue 22: a candidate is shown to people next to the fields, so a remote worker's candidate must
    quote its page as a value must; confidence is about values returned, within 0..1."""
    client, job, document_id = _extract_job_of_a_real_plan(api, conn, settings, tmp_path)
    honest = {"value": "EH-2026-0417", "page": 1, "quote": "Reference number: EH-2026-0417"}
    invented = {"value": "helpdesk@example.org", "page": 1, "quote": "Write to helpdesk@example.org"}
    with pytest.raises(ResultRefusedError, match="candidate for 'buyer.email'"):
        client.complete(job, {**_fields(reference_number=honest), "candidates": {"buyer.email": invented}})
    [job] = _reclaim(conn, client, job)
    with pytest.raises(ResultRefusedError, match="confidence 7.0 for 'reference_number'"):
        client.complete(job, {**_fields(reference_number=honest), "confidence": {"reference_number": 7.0}})
    [job] = _reclaim(conn, client, job)
    with pytest.raises(ResultRefusedError, match="confidence 0.9 for 'title'"):
        client.complete(job, {**_fields(reference_number=honest), "confidence": {"title": 0.9}})
    [job] = _reclaim(conn, client, job)
    assert client.complete(job, {**_fields(reference_number=honest),
                                 "confidence": {"reference_number": 0.9}}).outcome == "succeeded"
    stored = conn.execute("SELECT provenance FROM extractions WHERE document_id = %s", (document_id,)).fetchone()
    assert stored is not None and stored[0] == {"confidence": {"reference_number": 0.9}, "rules": {}, "candidates": {}}
