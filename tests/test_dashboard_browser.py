"""The dashboard in a real headless browser: Debian's chromium (apt, installed by `make system-deps`)
driven by Playwright. Log in, see a failed job, click Retry, see it queued.

The test keeps a screenshot in its tmp dir; with TENDERFLOW_UPDATE_SCREENSHOT=1 it also writes
docs/dashboard.png (the README's picture).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import psycopg

from tenderflow.api.worker_tokens import create_token
from tenderflow.config import Settings
from tenderflow.handlers import build_job_types
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import upload_file
from tenderflow.queue import Backoff, Failure, claim, jobs
from tenderflow.queue.completion import FinishedAttempt, commit_attempts
from tenderflow.remote.client import RemoteQueueClient
from tenderflow.remote.protocol import WorkerHello
from tests.api_harness import ADMIN_TOKEN, api_settings, serve_in_thread, tenant_with_key
from tests.pipeline_harness import drain
from tests.tender_fixtures import TENDER_PAGE, numbered_pages, text_pdf

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SCREENSHOT = Path(__file__).resolve().parent.parent / "docs" / "dashboard.png"

# No skip: a missing browser is a broken setup (`make system-deps` installs it), not a passing test.


def fail_job_for_good(conn: psycopg.Connection[Any], settings: Settings, job_type: str, error: str) -> int:
    [job] = claim(conn, worker_id="browser-test", types=[job_type], limit=1, lease_seconds=60)
    commit_attempts(conn, build_job_types(settings), [
        FinishedAttempt(job, failure=Failure(job, error, permanent=True, retry_seconds=0))
    ], backoff=Backoff())
    return job.id


def test_an_operator_logs_in_sees_a_failed_job_clicks_retry_and_sees_it_queued(
    database_url: str, tmp_path: Path, conn: psycopg.Connection[Any]
) -> None:
    from playwright.sync_api import expect, sync_playwright

    settings = api_settings(database_url, tmp_path, dashboard_refresh_seconds=0)
    storage = open_storage(settings.resolved_storage_url)
    tenant_with_key(conn, "acme")
    tenant_with_key(conn, "globex")
    with serve_in_thread(settings) as api:
        for n, tenant in enumerate(("acme", "globex", "acme")):
            upload_file(conn, storage, text_pdf(tmp_path / f"tender-{n}.pdf", numbered_pages(2 + n)),
                        tenant=tenant, max_bytes=10**7)
        drain(api.services.pool, settings, storage)
        upload_file(conn, storage, text_pdf(tmp_path / "locked.pdf", [TENDER_PAGE, ["Annex"]]), tenant="globex",
                    max_bytes=10**7)
        job_id = fail_job_for_good(conn, settings, "ocr.plan", "the PDF is encrypted and needs a password")
        upload_file(conn, storage, text_pdf(tmp_path / "waiting.pdf", [["Queued tender"]]), tenant="acme",
                    max_bytes=10**7)
        # A remote worker says hello (it is registered, live, beside the local one that drained).
        scanner = RemoteQueueClient(api.url, create_token(conn, "office-scanner", ["ocr"]).raw,
                                    instance="scanner-pc:812:a1b2c3")
        scanner.heartbeat(WorkerHello(host="scanner-pc", pid=812, pool="ocr", threads=2), [])
        scanner.close()

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            try:
                page = browser.new_page(viewport={"width": 1360, "height": 1000})
                page.goto(f"{api.url}/dashboard")
                expect(page).to_have_url(f"{api.url}/dashboard/login")
                page.fill("#token", "wrong")
                page.click("button[type=submit]")
                expect(page.get_by_role("alert")).to_contain_text("not the admin token")
                page.fill("#token", ADMIN_TOKEN)
                page.click("button[type=submit]")
                expect(page).to_have_url(f"{api.url}/dashboard")

                row = page.locator(f"#job-{job_id}")
                expect(row).to_contain_text("the PDF is encrypted")
                expect(page.locator("#workers")).to_contain_text("scanner-pc:812:a1b2c3")
                screenshot = tmp_path / "dashboard.png"
                page.screenshot(path=str(screenshot), full_page=True)
                assert screenshot.read_bytes().startswith(b"\x89PNG")
                if os.environ.get("TENDERFLOW_UPDATE_SCREENSHOT") == "1":
                    SCREENSHOT.parent.mkdir(exist_ok=True)
                    shutil.copyfile(screenshot, SCREENSHOT)

                row.get_by_role("button", name="Retry").click()
                expect(page.get_by_role("status")).to_have_text(f"Job {job_id} is queued again.")
                expect(page.locator(f"#job-{job_id}")).to_have_count(0)
                assert jobs.get(conn, job_id)["state"] == "queued"

                page.click("text=Log out")
                expect(page).to_have_url(f"{api.url}/dashboard/login")
            finally:
                browser.close()


def test_the_api_docs_render_with_no_network_beyond_the_server(database_url: str, tmp_path: Path) -> None:
    """Issue 12: /docs and /redoc were blank offline (Swagger UI and ReDoc came from a CDN). Every
    request that leaves the API server is refused here, and both pages still draw the routes. (ReDoc's
    bundle asks cdn.redoc.ly for its small logo image; refused, the page does without it.)"""
    from playwright.sync_api import Route, expect, sync_playwright

    settings = api_settings(database_url, tmp_path)
    with serve_in_thread(settings) as api, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        elsewhere: list[str] = []

        def only_the_server(route: Route) -> None:
            if route.request.url.startswith(api.url):
                route.continue_()
            else:
                elsewhere.append(route.request.resource_type)
                route.abort()

        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.route("**/*", only_the_server)
            page.goto(f"{api.url}/docs")
            expect(page.locator(".swagger-ui .opblock-summary-path").first).to_be_visible(timeout=15_000)
            expect(page.locator(".swagger-ui")).to_contain_text("/v1/documents/{document_id}/fields")
            page.goto(f"{api.url}/redoc")
            expect(page.locator("body")).to_contain_text("A document's state and progress", timeout=15_000)
        finally:
            browser.close()
    assert not {"script", "stylesheet", "fetch", "xhr", "document"} & set(elsewhere), elsewhere
