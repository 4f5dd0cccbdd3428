"""The operators' dashboard over real HTTP: login, sessions, CSRF, and what the pages show."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tenderflow.api import dashboard
from tenderflow.config import Settings
from tenderflow.handlers import build_job_types
from tenderflow.pdf.thumbnail import png_size
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.pipeline.versions import VersionRef, version_state
from tenderflow.queue import Backoff, Failure, claim, fail, jobs
from tenderflow.queue.completion import FinishedAttempt, commit_attempts
from tenderflow.queue.worker import Worker
from tenderflow.tenants.tenants import create_tenant
from tests.support.api_harness import ADMIN_TOKEN, RunningApi, api_settings, bearer, serve_in_thread, tenant_with_key
from tests.support.pipeline_harness import drain, drain_in_workers, worker_config
from tests.support.tender_fixtures import TENDER_PAGE, numbered_pages, text_pdf


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
                UploadPolicy(max_bytes=10**7))
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
                                text_pdf(tmp_path / "live.pdf", [["y"]]), UploadPolicy(max_bytes=10**7)).document_id
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
    outcome = upload_file(conn, storage, text_pdf(tmp_path / "doc.pdf", numbered_pages(3)),
                          UploadPolicy(max_bytes=10**7))
    drain_in_workers(api.services.pool, settings, storage, workers=1)  # a real worker: the page lists it
    failed_document = jobs.get(conn, failed_plan_job(conn, settings, tmp_path))["payload"]["document_id"]
    with logged_in(api) as client:
        page = client.get("/dashboard").text
        for expected in ("ocr.plan", "ocr.pages", "extract", "Workers", "stopped", "Failed documents",
                         "the PDF is encrypted", "doc.pdf"):
            assert expected in page, expected
        document = client.get(f"/dashboard/documents/{outcome.document_id}").text
        assert "Page 1" in document and "Page 3" in document and "PAGE-003" in document
        assert "3 of 3 read" in document and "Reference" in document
        assert client.get("/dashboard/documents/999999").status_code == 404
        thumbnail_url = f"/dashboard/documents/{outcome.document_id}/thumbnail.png"
        assert f'src="{thumbnail_url}"' in document
        thumbnail = client.get(thumbnail_url)
        assert thumbnail.status_code == 200 and thumbnail.content.startswith(b"\x89PNG")
        assert client.get(f"/dashboard/documents/{failed_document}/thumbnail.png").status_code == 404
        assert api.client.get(thumbnail_url).status_code == 303  # the operator's only

        # Failed for its own content (encrypted): the page offers no Reprocess, and a post is refused too.
        reprocessed = client.post(f"/dashboard/documents/{failed_document}/reprocess",
                                  data={"csrf_token": csrf_of(page)})
        assert reprocessed.status_code == 409 and "failed for its own content" in reprocessed.text
        assert conn.execute("SELECT latest_version FROM documents WHERE id = %s",
                            (failed_document,)).fetchone() == (1,)


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
    metrics = api.client.get("/metrics", headers={"Authorization": "Bearer wrong"})
    assert metrics.status_code == 429 and int(metrics.headers["Retry-After"]) > 0


def test_d_n5_the_throttle_never_refuses_the_right_token_or_a_valid_session(
    api: RunningApi, conn: psycopg.Connection[Any]
) -> None:
    """Review security-2, D-N5: after 5 wrong tries from an address, the right token, a valid
    session and Prometheus' scrape all got 429 for 60 s; tenant keys sent to /metrics counted as
    guesses. Whoever shares the operator's address (a NAT, an unlisted proxy) could keep it locked out."""
    tenant_key = tenant_with_key(conn, "acme")
    for _ in range(8):
        assert api.client.get("/metrics", headers=bearer(tenant_key)).status_code == 401
    assert api.client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401, \
        "a tenant's key sent to /metrics is not a guess at the admin token"
    with logged_in(api) as operator:
        for n in range(7):
            api.client.get("/metrics", headers={"Authorization": f"Bearer guess-{n}"})
            api.client.post("/dashboard/login", data={"token": f"guess-{n}"})
        assert api.client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 429
        assert api.client.post("/dashboard/login", data={"token": "wrong"}).status_code == 429
        assert api.client.get("/metrics", headers=bearer(ADMIN_TOKEN)).status_code == 200, "Prometheus' scrape"
        assert operator.get("/v1/tenants/acme/limits").status_code == 200, "a valid session"
        assert operator.get("/dashboard").status_code == 200
        login = api.client.post("/dashboard/login", data={"token": ADMIN_TOKEN})
        assert login.status_code == 303, "the right token logs in"


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


def _row_of(page: str, field: str) -> str:
    match = re.search(rf"<tr><td>{re.escape(field)}</td>(.*?)</tr>", page, re.S)
    assert match, f"no row for {field!r}"
    return match[1]


def test_document_page_shows_fields_as_a_table_for_people_with_quotes_marked_and_escaped(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    storage = open_storage(settings.resolved_storage_url)
    outcome = upload_file(conn, storage, text_pdf(tmp_path / "avis.pdf", [TENDER_PAGE, ["Annexe"]]),
                          UploadPolicy(max_bytes=10**7))
    drain_in_workers(api.services.pool, settings, storage, workers=1)
    document_id = outcome.document_id
    # Page text as a hostile PDF could have it, and fields of every shape the schema has.
    conn.execute("UPDATE pages SET text = %s WHERE document_id = %s AND page_number = 2", (
        "Durée du marché : 60 mois <script>alert(1)</script> Critères : Prix 40 %", document_id))
    conn.execute("UPDATE extractions SET fields = %s WHERE document_id = %s", (psycopg.types.json.Jsonb({
        "buyer": {"name": {"value": "Ville d'Évreux", "page": 1, "quote": "City of Example Harbour"}},
        "reference_number": {"value": "EH-2026-0417", "page": 1, "quote": "Reference number: EH-2026-0417"},
        "estimated_value": {"value": {"amount": 12600000.0, "currency": "GBP"}, "page": 1,
                            "quote": "Estimated total value: EUR 1 250 000.00"},
        "contract_duration": {"value": {"amount": 60, "unit": "months"}, "page": 2,
                              "quote": "Durée du marché : 60 mois <script>"},
        "award_criteria": [{"value": {"name": "Prix", "weight": 40.0}, "page": 2, "quote": "Prix 40 %"}],
        "lots": [{"number": {"value": "2", "page": 1, "quote": "EH-2026"}, "cpv_codes": []}],
    }), document_id))
    with logged_in(api) as client:
        page = client.get(f"/dashboard/documents/{document_id}").text
    assert "tojson" not in page and "\\u00e9" not in page and 'class="fields"' in page
    assert "12,600,000.00 GBP" in _row_of(page, "Estimated value")
    assert ">60 months<" in _row_of(page, "Contract duration")
    assert ">Prix (40%)<" in _row_of(page, "Award criteria")
    assert "Ville d&#39;Évreux" in _row_of(page, "Buyer name")  # accents as they are, markup escaped
    assert ">EH-2026-0417<" in _row_of(page, "Reference") and 'href="#page-1"' in _row_of(page, "Reference")
    assert ">2<" in _row_of(page, "Lot 2 number")
    # The quotes are marked in the page text; the page's own markup stays text, even inside a mark.
    assert "<mark>Reference number: EH-2026-0417</mark>" in page
    assert "<mark>Durée du marché : 60 mois &lt;script&gt;</mark>alert(1)&lt;/script&gt;" in page
    assert "<script>" not in page and "<mark>Prix 40 %</mark>" in page
    assert f'src="/dashboard/documents/{document_id}/pages/2.png"' in page


def test_a_page_image_is_rendered_for_the_operator_only(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    storage = open_storage(settings.resolved_storage_url)
    document_id = upload_file(conn, storage, text_pdf(tmp_path / "doc.pdf", numbered_pages(2)),
                              UploadPolicy(max_bytes=10**7)).document_id
    image_url = f"/dashboard/documents/{document_id}/pages/2.png"
    with logged_in(api) as client:
        assert client.get(image_url).status_code == 404, "the pages are not counted before the plan"
        drain_in_workers(api.services.pool, settings, storage, workers=1)
        image = client.get(image_url)
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"
        assert max(png_size(image.content)) == 900
        assert client.get(image_url).content == image.content  # from memory the second time
        assert client.get(f"/dashboard/documents/{document_id}/pages/3.png").status_code == 404
        assert client.get(f"/dashboard/documents/{document_id}/pages/0.png").status_code == 404
    assert api.client.get(image_url).status_code == 303


def test_retry_and_reprocess_are_not_offered_for_a_documents_own_content(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    encrypted_job = failed_plan_job(conn, settings, tmp_path)
    encrypted_document = jobs.get(conn, encrypted_job)["payload"]["document_id"]
    # A plan job that ran out of attempts (an outage): the service's failure, where both can help.
    outage_document = upload_file(conn, open_storage(settings.resolved_storage_url),
                                  text_pdf(tmp_path / "outage.pdf", [["z"]]), UploadPolicy(max_bytes=10**7)).document_id
    [job] = claim(conn, worker_id="dashboard-test", types=["ocr.plan"], limit=1, lease_seconds=60)
    conn.execute("UPDATE jobs SET max_attempts = 1 WHERE id = %s", (job.id,))
    commit_attempts(conn, build_job_types(settings), [FinishedAttempt(
        job, failure=Failure(job, "storage unreachable", permanent=False, retry_seconds=0))], backoff=Backoff())
    assert jobs.get(conn, job.id)["state"] == "failed"
    with logged_in(api) as client:
        page = client.get("/dashboard").text
        encrypted_row = re.search(rf'<tr id="job-{encrypted_job}">(.*?)</tr>', page, re.S)
        outage_row = re.search(rf'<tr id="job-{job.id}">(.*?)</tr>', page, re.S)
        assert encrypted_row and outage_row
        assert "Retry" not in encrypted_row[1] and "its document's content" in encrypted_row[1]
        assert ">Retry</button>" in outage_row[1]
        assert f'action="/dashboard/documents/{encrypted_document}/reprocess"' not in page
        assert f'action="/dashboard/documents/{outage_document}/reprocess"' in page
        encrypted_page = client.get(f"/dashboard/documents/{encrypted_document}").text
        assert 'id="no-reprocess"' in encrypted_page and "/reprocess" not in encrypted_page
        outage_page = client.get(f"/dashboard/documents/{outage_document}").text
        assert f'action="/dashboard/documents/{outage_document}/reprocess"' in outage_page


def test_workers_stopped_over_an_hour_ago_are_counted_not_listed(
    api: RunningApi, conn: psycopg.Connection[Any]
) -> None:
    conn.execute("""INSERT INTO workers (id, host, pid, pools, threads, started_at, last_seen_at, stopped_at) VALUES
        ('live-one', 'h', 1, '{ocr}', 2, now(), now(), NULL),
        ('stopped-recently', 'h', 2, '{ocr}', 2, now() - interval '20 minutes', now() - interval '10 minutes',
         now() - interval '10 minutes'),
        ('stopped-long-ago', 'h', 3, '{ocr}', 2, now() - interval '3 hours', now() - interval '2 hours',
         now() - interval '2 hours'),
        ('stopped-earlier', 'h', 4, '{ocr}', 2, now() - interval '9 hours', now() - interval '8 hours',
         now() - interval '8 hours')""")
    with logged_in(api) as client:
        page = client.get("/dashboard").text
    assert "live-one" in page and "stopped-recently" in page
    assert "stopped-long-ago" not in page and "stopped-earlier" not in page
    assert "2 workers stopped more than an hour ago (and less than a day) are not shown" in page


def test_documents_are_searchable_by_name_filterable_and_paged_with_a_cursor(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.support.api_harness import tenant_with_key

    monkeypatch.setattr(dashboard, "DOCUMENTS_PER_PAGE", 2)
    tenant_with_key(conn, "acme")
    failed_plan_job(conn, settings, tmp_path)  # bad.pdf, failed (claims the only queued plan job)
    storage = open_storage(settings.resolved_storage_url)
    names = {"Tender_2026.pdf": "acme", "tender-100%.pdf": "acme", "notice.pdf": "default",
             "TENDERX2026.pdf": "default", "annex.pdf": "acme"}
    ids = {name: upload_file(conn, storage, text_pdf(tmp_path / name, [[name]]),
                             UploadPolicy(tenant=tenant, max_bytes=10**7)).document_id
           for name, tenant in names.items()}

    def listed(client: httpx.Client, url: str) -> tuple[list[int], str | None]:
        page = client.get(url)
        assert page.status_code == 200, page.text
        table = page.text.split('id="document-list"')[1].split("</table>")[0]
        following = re.search(r'href="([^"]+)" rel="next"', page.text)
        return [int(n) for n in re.findall(r'href="/dashboard/documents/(\d+)"', table)], (
            following[1].replace("&amp;", "&") if following else None)

    with logged_in(api) as client:
        seen: list[int] = []
        url: str | None = "/dashboard/documents"
        while url is not None:
            shown, url = listed(client, url)
            assert len(shown) <= 2
            seen += shown
        assert len(seen) == 6 and seen == sorted(seen, reverse=True), "every document once, newest first"
        assert listed(client, "/dashboard/documents?q=tender")[0][:2] == [ids["TENDERX2026.pdf"],
                                                                        ids["tender-100%.pdf"]]
        every_tender, _ = listed(client, "/dashboard/documents?q=tender&before=" + str(ids["tender-100%.pdf"]))
        assert every_tender == [ids["Tender_2026.pdf"]]
        assert listed(client, "/dashboard/documents?q=r_2026")[0] == [ids["Tender_2026.pdf"]], "_ is no wildcard"
        assert listed(client, "/dashboard/documents?q=100%25")[0] == [ids["tender-100%.pdf"]], "% is no wildcard"
        acme, following = listed(client, "/dashboard/documents?tenant=acme&q=")
        assert acme == [ids["annex.pdf"], ids["tender-100%.pdf"]] and following is not None
        assert "tenant=acme" in following and "before=" in following and "q=" not in following
        assert listed(client, following)[0] == [ids["Tender_2026.pdf"]]
        failed, _ = listed(client, "/dashboard/documents?state=failed")
        assert len(failed) == 1 and failed[0] not in ids.values()
        assert client.get("/dashboard/documents?state=lost").status_code == 400
        assert listed(client, "/dashboard/documents?q=nothing-like-this")[0] == []


def test_a_document_waiting_to_run_again_says_why_in_the_api_and_on_its_page(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Issue 12: a document whose plan or extraction waits to be retried showed only its state; the
    API's `retrying` and the dashboard's "Waiting to run again" say which attempt comes and why,
    the operator's locations hidden from the tenant."""
    key = tenant_with_key(conn, "acme")
    document_id = upload_file(conn, open_storage(settings.resolved_storage_url),
                              text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]),
                              UploadPolicy(tenant="acme", max_bytes=10**7)).document_id
    [job] = claim(conn, worker_id="dashboard-test", types=["ocr.plan"], limit=1, lease_seconds=60)
    fail(conn, [Failure(job, "storage unreachable: s3://tenders-prod timed out", permanent=False,
                        retry_seconds=600)])
    shown = api.client.get(f"/v1/documents/{document_id}", headers=bearer(key)).json()
    assert (shown["state"], shown["retrying"]) == ("queued", "retry 2/5: storage unreachable: <internal> timed out")
    with logged_in(api) as client:
        page = client.get(f"/dashboard/documents/{document_id}").text
    waiting = re.search(r"<dt>Waiting to run again</dt><dd[^>]*>(.*?)</dd>", page)
    assert waiting, page
    assert waiting[1] == "retry 2/5: storage unreachable: s3://tenders-prod timed out"  # the operator sees it all
    settled = upload_file(conn, open_storage(settings.resolved_storage_url),
                          text_pdf(tmp_path / "other.pdf", [TENDER_PAGE, ["Annex"]]),
                          UploadPolicy(tenant="acme", max_bytes=10**7)).document_id
    assert api.client.get(f"/v1/documents/{settled}", headers=bearer(key)).json()["retrying"] is None


def test_a_document_page_links_its_pdf_and_searchable_copy_for_the_operator_only(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """Issue 12: the dashboard showed a document's pages but no way to its PDF. It links the
    original (any state) and, once a version is finished, the searchable copy: the tenant API's
    own answers, for any tenant's document, behind the operator's login."""
    storage = open_storage(settings.resolved_storage_url)
    pdf = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE, ["Annex", "page 2"]])
    done = upload_file(conn, storage, pdf, UploadPolicy(tenant="default", max_bytes=10**7)).document_id
    drain(api.services.pool, settings, storage)
    queued = upload_file(conn, storage, text_pdf(tmp_path / "later.pdf", [TENDER_PAGE]),
                         UploadPolicy(max_bytes=10**7)).document_id
    original_url, searchable_url = f"/dashboard/documents/{done}/pdf", f"/dashboard/documents/{done}/searchable.pdf"
    with logged_in(api) as client:
        page = client.get(f"/dashboard/documents/{done}").text
        assert f'href="{original_url}"' in page and f'href="{searchable_url}"' in page
        original = client.get(original_url)
        assert original.status_code == 200 and original.headers["content-type"] == "application/pdf"
        assert original.content == pdf.read_bytes()
        assert 'filename="notice.pdf"' in original.headers["content-disposition"]
        searchable = client.get(searchable_url)
        assert searchable.status_code == 200 and searchable.content.startswith(b"%PDF-")
        assert 'filename="notice-searchable.pdf"' in searchable.headers["content-disposition"]

        waiting = client.get(f"/dashboard/documents/{queued}").text
        assert f'href="/dashboard/documents/{queued}/pdf"' in waiting and "searchable.pdf" not in waiting
        not_yet = client.get(f"/dashboard/documents/{queued}/searchable.pdf")
        assert not_yet.status_code == 409 and "no finished version yet" in not_yet.json()["detail"]
        assert client.get(f"/dashboard/documents/{queued}/pdf").status_code == 200
        assert client.get("/dashboard/documents/999999/pdf").status_code == 404
    for url in (original_url, searchable_url):
        assert api.client.get(url).status_code == 303  # no session: to the login page


def test_the_operators_api_takes_a_change_with_the_session_cookie_only_with_its_csrf_token(
    api: RunningApi, conn: psycopg.Connection[Any]
) -> None:
    """/v1/schedules and /v1/tenants/{name}/limits answer the admin token or the operator's session: a
    page of another site can make the browser send the cookie with a PATCH, not the CSRF token."""
    create_tenant(conn, "acme", credits=10)
    with logged_in(api) as client:
        token = csrf_of(client.get("/dashboard").text)
        assert client.get("/v1/tenants/acme/limits").status_code == 200  # reading needs the cookie alone
        forged = client.patch("/v1/tenants/acme/limits", json={"retention_days": 1})
        assert forged.status_code == 403 and "X-CSRF-Token" in forged.json()["detail"]
        wrong = client.patch("/v1/tenants/acme/limits", json={"retention_days": 1}, headers={"X-CSRF-Token": "x"})
        assert wrong.status_code == 403
        assert client.get("/v1/tenants/acme/limits").json()["retention_days"] == 0  # nothing changed
        changed = client.patch("/v1/tenants/acme/limits", json={"retention_days": 3}, headers={"X-CSRF-Token": token})
        assert changed.status_code == 200 and changed.json()["retention_days"] == 3
        assert client.delete("/v1/schedules/documents.retention").status_code == 403
        assert client.post("/v1/schedules/documents.retention/run").status_code == 403



def test_a_document_whose_extraction_failed_is_extracted_again_from_its_pages(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """The dashboard offered only 'Reprocess' (from OCR) for a failed document; one whose pages were
    all read and whose extraction failed (the LLM refused it) can be extracted again without reading
    them again, as `tenderflow reprocess --from extract` can. One whose pages were never read cannot."""
    storage = open_storage(settings.resolved_storage_url)
    job_types = build_job_types(settings)
    refused = upload_file(conn, storage, text_pdf(tmp_path / "refused.pdf", [TENDER_PAGE]),
                          UploadPolicy(max_bytes=10**7)).document_id
    # Its plan runs for real (its one page read from the text layer: no OCR batch), then the LLM refuses it.
    planning = build_job_types(settings, pool=api.services.pool, storage=storage, cache_dir=tmp_path / "cache")
    Worker(api.services.pool, planning, replace(worker_config(), types=("ocr.plan",))).run_once()
    [extract] = claim(conn, worker_id="dashboard-test", types=["extract"], limit=1, lease_seconds=60)
    refusal = Failure(extract, "the LLM endpoint rejected the request: HTTP 400", permanent=True, retry_seconds=0)
    commit_attempts(conn, job_types, [FinishedAttempt(extract, failure=refusal)], backoff=Backoff())
    # The other's plan fails for want of the storage: its pages never read.
    unread = upload_file(conn, storage, text_pdf(tmp_path / "unread.pdf", [["q"]]),
                         UploadPolicy(max_bytes=10**7)).document_id
    [plan] = claim(conn, worker_id="dashboard-test", types=["ocr.plan"], limit=1, lease_seconds=60)
    conn.execute("UPDATE jobs SET max_attempts = 1 WHERE id = %s", (plan.id,))
    commit_attempts(conn, job_types, [FinishedAttempt(
        plan, failure=Failure(plan, "storage unreachable", permanent=False, retry_seconds=0))], backoff=Backoff())
    assert version_state(conn, VersionRef(refused, 1)) == version_state(conn, VersionRef(unread, 1)) == "failed"
    with logged_in(api) as client:
        refused_page = client.get(f"/dashboard/documents/{refused}").text
        assert 'id="extract-again"' in refused_page and 'name="start_from" value="extract"' in refused_page
        unread_page = client.get(f"/dashboard/documents/{unread}").text
        assert 'id="extract-again"' not in unread_page
        assert f'action="/dashboard/documents/{unread}/reprocess"' in unread_page  # from OCR: offered

        token = csrf_of(refused_page)
        again = client.post(f"/dashboard/documents/{refused}/reprocess",
                            data={"csrf_token": token, "start_from": "extract"})
        assert again.status_code == 303 and "notice=reprocessing" in again.headers["location"]
        assert conn.execute("SELECT start_from, pages_version FROM document_versions WHERE document_id = %s"
                            " AND version = 2", (refused,)).fetchone() == ("extract", 1)
        assert conn.execute("SELECT count(*) FROM jobs WHERE type = 'ocr.plan' AND payload->>'document_id' = %s",
                            (str(refused),)).fetchone() == (1,)  # no page read again

        no_pages = client.post(f"/dashboard/documents/{unread}/reprocess",
                               data={"csrf_token": token, "start_from": "extract"}, follow_redirects=True)
        assert no_pages.status_code == 200 and f"Document {unread} was not extracted again" in no_pages.text
        assert conn.execute("SELECT latest_version FROM documents WHERE id = %s", (unread,)).fetchone() == (1,)
        wrong = client.post(f"/dashboard/documents/{unread}/reprocess", data={"csrf_token": token, "start_from": "x"})
        assert wrong.status_code == 422
