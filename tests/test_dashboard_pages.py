"""The operators' dashboard over real HTTP: login, sessions, CSRF, and what the pages show."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tenderflow.config import Settings
from tenderflow.handlers import build_job_types
from tenderflow.pipeline.documents import VersionRef, version_state
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import upload_file
from tenderflow.queue import Backoff, Failure, claim, fail, jobs
from tenderflow.queue.completion import FinishedAttempt, commit_attempts
from tests.api_harness import ADMIN_TOKEN, RunningApi, api_settings, serve_in_thread
from tests.pipeline_harness import drain_in_workers
from tests.tender_fixtures import numbered_pages, text_pdf


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return api_settings(database_url, tmp_path)


@pytest.fixture
def api(settings: Settings) -> Iterator[RunningApi]:
    with serve_in_thread(settings) as running:
        yield running


@contextmanager
def logged_in(api: RunningApi) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api.url, timeout=30) as client:
        response = client.post("/dashboard/login", data={"token": ADMIN_TOKEN})
        assert response.status_code == 303 and response.headers["location"] == "/dashboard"
        yield client


def csrf_of(page: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match, "no CSRF token in the page"
    return match[1]


def failed_plan_job(conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path) -> int:
    upload_file(conn, open_storage(settings.resolved_storage_url), text_pdf(tmp_path / "bad.pdf", [["x"]]),
                max_bytes=10**7)
    [job] = claim(conn, worker_id="dashboard-test", types=["ocr.plan"], limit=1, lease_seconds=60)
    # Through the completion transaction, so the end-of-job hooks fail the document's version too.
    commit_attempts(conn, build_job_types(settings), [
        FinishedAttempt(job, failure=Failure(job, "the PDF is encrypted", permanent=True, retry_seconds=0))
    ], backoff=Backoff())
    return job.id


def test_pages_need_a_login_with_the_admin_token(api: RunningApi) -> None:
    anonymous = api.client.get("/dashboard")
    assert anonymous.status_code == 303 and anonymous.headers["location"] == "/dashboard/login"
    wrong = api.client.post("/dashboard/login", data={"token": "guess"})
    assert wrong.status_code == 401 and "not the admin token" in wrong.text
    forged = httpx.get(f"{api.url}/dashboard", cookies={"tenderflow_session": "9999999999.nonce.deadbeef"})
    assert forged.status_code == 303
    with logged_in(api) as client:
        cookie = client.cookies.jar
        [session] = [c for c in cookie if c.name == "tenderflow_session"]
        assert session.has_nonstandard_attr("HttpOnly") and session.get_nonstandard_attr("SameSite") == "strict"
        page = client.get("/dashboard")
        assert page.status_code == 200 and "Queue health" in page.text
        client.post("/dashboard/logout", data={"csrf_token": csrf_of(page.text)})
        assert client.get("/dashboard").status_code == 303


def test_the_dashboard_is_off_without_an_admin_token(database_url: str, tmp_path: Path) -> None:
    with serve_in_thread(api_settings(database_url, tmp_path, admin_token=None)) as api:
        for path in ("/dashboard", "/dashboard/login"):
            response = api.client.get(path)
            assert response.status_code == 404 and "TENDERFLOW_ADMIN_TOKEN" in response.json()["detail"]
        metrics = api.client.get("/metrics", headers={"Authorization": "Bearer anything"})
        assert metrics.status_code == 404 and "TENDERFLOW_ADMIN_TOKEN" in metrics.json()["detail"]


def test_retry_needs_the_pages_csrf_token_and_queues_the_job(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    job_id = failed_plan_job(conn, settings, tmp_path)
    with logged_in(api) as client:
        page = client.get("/dashboard").text
        assert f'id="job-{job_id}"' in page and "the PDF is encrypted" in page
        refused = client.post(f"/dashboard/jobs/{job_id}/retry", data={"csrf_token": "forged"})
        assert refused.status_code == 403 and jobs.get(conn, job_id)["state"] == "failed"
        done = client.post(f"/dashboard/jobs/{job_id}/retry", data={"csrf_token": csrf_of(page)})
        assert done.status_code == 303 and "notice=retried" in done.headers["location"]
        assert jobs.get(conn, job_id)["state"] == "queued"
        after = client.get(done.headers["location"]).text
        assert f"Job {job_id} is queued again." in after and f'id="job-{job_id}"' not in after
    # Without a session, the form's post goes nowhere.
    anonymous = api.client.post(f"/dashboard/jobs/{job_id}/retry", data={"csrf_token": csrf_of(page)})
    assert anonymous.status_code == 303 and anonymous.headers["location"] == "/dashboard/login"


def test_retrying_a_job_of_a_failed_version_says_to_reprocess_instead(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    failed_job = failed_plan_job(conn, settings, tmp_path)
    failed_document = jobs.get(conn, failed_job)["payload"]["document_id"]
    assert version_state(conn, VersionRef(failed_document, 1)) == "failed"
    # A job failed by the queue alone, without the pipeline's end-of-job hooks: its version stays queued.
    live_document = upload_file(conn, open_storage(settings.resolved_storage_url),
                                text_pdf(tmp_path / "live.pdf", [["y"]]), max_bytes=10**7).document_id
    [live] = claim(conn, worker_id="dashboard-test", types=["ocr.plan"], limit=1, lease_seconds=60)
    fail(conn, [Failure(live, "the worker lost its disk", permanent=True, retry_seconds=0)])
    assert version_state(conn, VersionRef(live_document, 1)) == "queued"
    with logged_in(api) as client:
        token = csrf_of(client.get("/dashboard").text)

        retried = client.post(f"/dashboard/jobs/{failed_job}/retry", data={"csrf_token": token},
                              follow_redirects=True)
        assert retried.status_code == 200 and jobs.get(conn, failed_job)["state"] == "queued"
        assert f"Job {failed_job} is queued again." in retried.text
        note = re.search(r'<div class="notice" role="alert" id="failed-version">(.*?)</div>', retried.text, re.S)
        assert note, "no note on the failed version"
        assert f"document {failed_document} version 1 has already failed" in note[1]
        assert f'action="/dashboard/documents/{failed_document}/reprocess"' in note[1]
        assert f"tenderflow reprocess {failed_document} --from ocr" in note[1]

        retried = client.post(f"/dashboard/jobs/{live.id}/retry", data={"csrf_token": token},
                              follow_redirects=True)
        assert retried.status_code == 200 and jobs.get(conn, live.id)["state"] == "queued"
        assert f"Job {live.id} is queued again." in retried.text
        assert 'id="failed-version"' not in retried.text and "has already failed" not in retried.text


def test_overview_and_document_page_show_workers_states_and_pages(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    storage = open_storage(settings.resolved_storage_url)
    outcome = upload_file(conn, storage, text_pdf(tmp_path / "doc.pdf", numbered_pages(3)), max_bytes=10**7)
    drain_in_workers(api.services.pool, settings, storage, workers=1)  # a real worker: the page lists it
    failed_document = jobs.get(conn, failed_plan_job(conn, settings, tmp_path))["payload"]["document_id"]
    with logged_in(api) as client:
        page = client.get("/dashboard").text
        for expected in ("ocr.plan", "ocr.pages", "extract", "Workers", "stopped", "Failed documents",
                         "the PDF is encrypted", "doc.pdf"):
            assert expected in page, expected
        document = client.get(f"/dashboard/documents/{outcome.document_id}").text
        assert "Page 1" in document and "Page 3" in document and "PAGE-003" in document
        assert "3 of 3 read" in document and "reference_number" in document
        assert client.get("/dashboard/documents/999999").status_code == 404
        thumbnail_url = f"/dashboard/documents/{outcome.document_id}/thumbnail.png"
        assert f'src="{thumbnail_url}"' in document
        thumbnail = client.get(thumbnail_url)
        assert thumbnail.status_code == 200 and thumbnail.content.startswith(b"\x89PNG")
        assert client.get(f"/dashboard/documents/{failed_document}/thumbnail.png").status_code == 404
        assert api.client.get(thumbnail_url).status_code == 303  # the operator's only

        reprocessed = client.post(f"/dashboard/documents/{failed_document}/reprocess",
                                  data={"csrf_token": csrf_of(page)})
        assert reprocessed.status_code == 303 and "notice=reprocessing" in reprocessed.headers["location"]
        assert conn.execute("SELECT latest_version FROM documents WHERE id = %s",
                            (failed_document,)).fetchone() == (2,)


def test_a_non_ascii_session_cookie_or_csrf_token_is_refused_not_a_server_error(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Review D11: hmac.compare_digest on non-ASCII text raised TypeError, a 500."""
    forged = httpx.get(f"{api.url}/dashboard", headers={"Cookie": "tenderflow_session=1.a.\u00e9".encode()})
    assert forged.status_code == 303
    job_id = failed_plan_job(conn, settings, tmp_path)
    with logged_in(api) as client:
        refused = client.post(f"/dashboard/jobs/{job_id}/retry", data={"csrf_token": "\u00e9t\u00e9"})
        assert refused.status_code == 403 and jobs.get(conn, job_id)["state"] == "failed"


def test_a_database_restart_costs_no_failed_request(api: RunningApi, conn: psycopg.Connection[Any]) -> None:
    """Review D18: after the server dropped the pool's connections, each stale one failed a request."""
    assert api.client.get("/healthz").status_code == 200
    conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                  "WHERE pid <> pg_backend_pid() AND datname = current_database()")
    statuses = [api.client.get("/healthz").status_code for _ in range(10)]
    assert statuses == [200] * 10


def test_wrong_admin_tokens_are_throttled_per_client_for_login_and_metrics(api: RunningApi) -> None:
    """Review D8: 40 wrong logins in a row all answered 401 with no slowdown."""
    answers = [api.client.post("/dashboard/login", data={"token": f"guess-{n}"}).status_code for n in range(8)]
    assert answers[:5] == [401] * 5 and set(answers[5:]) == {429}
    refused = api.client.post("/dashboard/login", data={"token": ADMIN_TOKEN})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0, "the right token waits too"
    metrics = api.client.get("/metrics", headers={"Authorization": "Bearer wrong"})
    assert metrics.status_code == 429


def test_a_short_admin_token_is_refused_at_start(database_url: str, tmp_path: Path) -> None:
    from tenderflow.api.services import open_services
    from tenderflow.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="at least 24"):
        open_services(api_settings(database_url, tmp_path, admin_token="secret"))


def test_operator_pages_forbid_framing_scripts_and_caching(api: RunningApi) -> None:
    """Review D17: no CSP, X-Frame-Options, nosniff or no-store on the dashboard."""
    with logged_in(api) as client:
        for path in ("/dashboard", "/dashboard/login"):
            headers = client.get(path).headers
            assert "frame-ancestors 'none'" in headers["content-security-policy"]
            assert "script-src" not in headers["content-security-policy"]  # default-src 'none' covers it
            assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
            assert headers["cache-control"] == "no-store"
    assert "content-security-policy" not in api.client.get("/healthz").headers


def test_the_session_cookie_is_secure_when_the_public_url_is_https(database_url: str, tmp_path: Path) -> None:
    with serve_in_thread(api_settings(database_url, tmp_path, public_url="https://tenders.example.com")) as api:
        response = api.client.post("/dashboard/login", data={"token": ADMIN_TOKEN})
        assert response.status_code == 303 and "secure" in response.headers["set-cookie"].lower()
    with serve_in_thread(api_settings(database_url, tmp_path)) as api:
        response = api.client.post("/dashboard/login", data={"token": ADMIN_TOKEN})
        assert "secure" not in response.headers["set-cookie"].lower()


def test_logout_ends_the_session_on_the_server(api: RunningApi, conn: psycopg.Connection[Any],
                                               settings: Settings, tmp_path: Path) -> None:
    """Review D9: a cookie saved before logout kept working (reprocess included) for up to 12 h."""
    with logged_in(api) as client:
        page = client.get("/dashboard").text
        saved = dict(client.cookies)
        assert client.post("/dashboard/logout", data={"csrf_token": csrf_of(page)}).status_code == 303
    with httpx.Client(base_url=api.url, cookies=saved) as replay:
        assert replay.get("/dashboard").status_code == 303  # back to the login form
        assert replay.get("/metrics").status_code == 401
        job_id = failed_plan_job(conn, settings, tmp_path)
        retried = replay.post(f"/dashboard/jobs/{job_id}/retry", data={"csrf_token": csrf_of(page)})
        assert retried.status_code == 303 and retried.headers["location"] == "/dashboard/login"
        assert jobs.get(conn, job_id)["state"] == "failed"
