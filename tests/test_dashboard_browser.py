"""The dashboard in a real headless browser: Debian's chromium (apt, installed by `make system-deps`)
driven by Playwright. Log in, see a failed job, click Retry, see it queued; a document page with its
fields, page pictures and marked quotes; the full-text search and its results; every page at a
phone's 390 px without sideways overflow.

The tests keep screenshots in their tmp dirs; with TENDERFLOW_UPDATE_SCREENSHOT=1 they also write
docs/dashboard.png, docs/dashboard-document.png, docs/dashboard-search.png, docs/dashboard-mobile.png and
docs/dashboard-tenant.png (the docs' pictures). An upload from the browser, and the tenants' credits
pages, are driven too.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tenderflow.api.worker_tokens import create_token
from tenderflow.config import Settings
from tenderflow.handlers import build_job_types
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.queue import Backoff, Failure, claim, jobs
from tenderflow.queue.completion import FinishedAttempt, commit_attempts
from tenderflow.remote.client import RemoteQueueClient
from tenderflow.remote.protocol import WorkerHello
from tests.support.api_harness import ADMIN_TOKEN, RunningApi, tenant_with_key
from tests.support.pipeline_harness import drain
from tests.support.tender_fixtures import TENDER_PAGE, numbered_pages, text_pdf

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
DOCS = Path(__file__).resolve().parent.parent / "docs"
SCREENSHOT = DOCS / "dashboard.png"

# No skip: a missing browser is a broken setup (`make system-deps` installs it), not a passing test.


pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One chromium for the module: launched once, not once a test."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """The module's chromium; the pages a test opens (each in a context of its own: no cookie is
    shared) are closed after it."""
    yield chromium
    for context in chromium.contexts:
        context.close()


def fail_job_for_good(conn: psycopg.Connection[Any], settings: Settings, job_type: str, error: str,
                      *, permanent: bool = True) -> int:
    """Fail the next job of `job_type` for good: permanently in its handler (the document's own
    content, for an OCR job), or on its last attempt (the service's failure: an outage)."""
    [job] = claim(conn, worker_id="browser-test", types=[job_type], limit=1, lease_seconds=60)
    if not permanent:
        conn.execute("UPDATE jobs SET max_attempts = attempts WHERE id = %s", (job.id,))
    commit_attempts(conn, build_job_types(settings), [
        FinishedAttempt(job, failure=Failure(job, error, permanent=permanent, retry_seconds=0))
    ], backoff=Backoff())
    return job.id


def keep_screenshot(screenshot: Path, name: str) -> None:
    assert screenshot.read_bytes().startswith(b"\x89PNG")
    if os.environ.get("TENDERFLOW_UPDATE_SCREENSHOT") == "1":
        DOCS.mkdir(exist_ok=True)
        shutil.copyfile(screenshot, DOCS / name)


def log_in(page: Any, url: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/dashboard/login")
    page.fill("#token", ADMIN_TOKEN)
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{url}/dashboard")


def test_an_operator_logs_in_sees_a_failed_job_clicks_retry_and_sees_it_queued(
    api: RunningApi, settings: Settings, storage: ObjectStorage, tmp_path: Path, conn: psycopg.Connection[Any],
    browser: Any,
) -> None:
    from playwright.sync_api import expect

    tenant_with_key(conn, "acme")
    tenant_with_key(conn, "globex")
    for n, tenant in enumerate(("acme", "globex", "acme")):
        upload_file(conn, storage, text_pdf(tmp_path / f"tender-{n}.pdf", numbered_pages(2 + n)),
                    UploadPolicy(tenant=tenant, max_bytes=10**7))
    drain(api.services.pool, settings, storage)
    upload_file(conn, storage, text_pdf(tmp_path / "locked.pdf", [TENDER_PAGE, ["Annex"]]),
                UploadPolicy(tenant="globex", max_bytes=10**7))
    locked_job = fail_job_for_good(conn, settings, "ocr.plan", "the PDF is encrypted and needs a password")
    upload_file(conn, storage, text_pdf(tmp_path / "unlucky.pdf", [["Tender during an outage"]]),
                UploadPolicy(tenant="acme", max_bytes=10**7))
    job_id = fail_job_for_good(conn, settings, "ocr.plan", "storage unreachable: connection refused",
                               permanent=False)
    upload_file(conn, storage, text_pdf(tmp_path / "waiting.pdf", [["Queued tender"]]),
                UploadPolicy(tenant="acme", max_bytes=10**7))
    # A remote worker says hello (it is registered, live, beside the local one that drained).
    scanner = RemoteQueueClient(api.url, create_token(conn, "office-scanner", ["ocr"]).raw,
                                instance="scanner-pc:812:a1b2c3")
    scanner.heartbeat(WorkerHello(host="scanner-pc", pid=812, pool="ocr", threads=2), [])
    scanner.close()

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
    expect(row).to_contain_text("storage unreachable")
    # The encrypted PDF's job is listed, with no Retry: only a fixed upload helps.
    expect(page.locator(f"#job-{locked_job}")).to_contain_text("the PDF is encrypted")
    expect(page.locator(f"#job-{locked_job}").get_by_role("button")).to_have_count(0)
    expect(page.locator("#workers")).to_contain_text("scanner-pc:812:a1b2c3")
    screenshot = tmp_path / "dashboard.png"
    page.screenshot(path=str(screenshot), full_page=True)
    keep_screenshot(screenshot, SCREENSHOT.name)

    row.get_by_role("button", name="Retry").click()
    expect(page.get_by_role("status")).to_have_text(f"Job {job_id} is queued again.")
    expect(page.locator(f"#job-{job_id}")).to_have_count(0)
    assert jobs.get(conn, job_id)["state"] == "queued"

    page.click("text=Log out")
    expect(page).to_have_url(f"{api.url}/dashboard/login")


# Elements that stick out of the viewport on the right, outside a sideways-scrolling box.
OVERFLOWING = """() => {
    const width = document.documentElement.clientWidth;
    const out = [];
    for (const element of document.querySelectorAll("body *")) {
        if (element.closest(".scroll")) continue;
        const box = element.getBoundingClientRect();
        if (box.width > 0 && (box.right > width + 1 || box.left < -1)) {
            const name = `${element.tagName.toLowerCase()}.${element.className}`;
            out.push(`${name} ${Math.round(box.left)}..${Math.round(box.right)}`);
        }
    }
    return {out, scrollWidth: document.documentElement.scrollWidth, width};
}"""


def test_a_document_page_and_every_page_at_390_px_wide(
    api: RunningApi, settings: Settings, storage: ObjectStorage, tmp_path: Path, conn: psycopg.Connection[Any],
    browser: Any,
) -> None:
    """The document page shows the fields as a table and each page's picture beside its text with the
    quotes marked; at a phone's 390 px nothing sticks out sideways except inside scroll boxes."""
    from playwright.sync_api import expect

    tenant_with_key(conn, "acme")
    document_id = upload_file(
        conn, storage, text_pdf(tmp_path / "cleaning-services-example-harbour-2026-with-a-long-name.pdf",
                                [TENDER_PAGE, *numbered_pages(3)[1:]]),
        UploadPolicy(tenant="acme", max_bytes=10**7)).document_id
    drain(api.services.pool, settings, storage)
    upload_file(conn, storage, text_pdf(tmp_path / "locked.pdf", [["Annex"]]), UploadPolicy(max_bytes=10**7))
    fail_job_for_good(conn, settings, "ocr.plan", "the PDF is encrypted and needs a password to be opened; "
                      "upload a copy without a password")
    page = browser.new_page(viewport={"width": 1360, "height": 1000})
    log_in(page, api.url)
    page.goto(f"{api.url}/dashboard/documents/{document_id}")
    fields = page.locator("#fields")
    expect(fields).to_contain_text("1,250,000.00 EUR")
    expect(fields).to_contain_text("EH-2026-0417")
    expect(page.locator("#page-1 mark").first).to_be_visible()
    expect(page.locator("#page-1 pre")).to_contain_text("Reference number: EH-2026-0417")
    for image in page.locator(".page-image img").all():
        image.scroll_into_view_if_needed()
        expect(image).to_have_js_property("complete", True)
        assert image.evaluate("img => img.naturalWidth") > 0, "a page picture did not load"
    page.evaluate("() => window.scrollTo(0, 0)")
    screenshot = tmp_path / "dashboard-document.png"
    page.screenshot(path=str(screenshot), full_page=True)
    keep_screenshot(screenshot, "dashboard-document.png")

    phone = browser.new_page(viewport={"width": 390, "height": 844})
    log_in(phone, api.url)
    for path in ("/dashboard", "/dashboard/documents", f"/dashboard/documents/{document_id}",
                 "/dashboard/tenants", "/dashboard/tenants/acme"):
        phone.goto(f"{api.url}{path}")
        expect(phone.locator("main")).to_be_visible()
        found = phone.evaluate(OVERFLOWING)
        assert found["out"] == [] and found["scrollWidth"] <= found["width"], (path, found)
    phone.goto(f"{api.url}/dashboard")
    screenshot = tmp_path / "dashboard-mobile.png"
    phone.screenshot(path=str(screenshot), full_page=True)
    keep_screenshot(screenshot, "dashboard-mobile.png")


def test_an_operator_uploads_from_the_browser_and_reads_the_tenants_credits(
    api: RunningApi, settings: Settings, storage: ObjectStorage, tmp_path: Path, conn: psycopg.Connection[Any],
    browser: Any,
) -> None:
    """The upload form on the documents page sends a real file picked in the browser; the document's
    page opens on it; the tenant's page shows the credits it reserved, then charged."""
    from playwright.sync_api import expect

    from tenderflow.tenants.tenants import create_tenant

    create_tenant(conn, "acme", credits=40)
    create_tenant(conn, "globex", unlimited=True)
    pdf = text_pdf(tmp_path / "harbour-cleaning-2026.pdf", [TENDER_PAGE, *numbered_pages(2)[1:]])
    page = browser.new_page(viewport={"width": 1360, "height": 900})
    log_in(page, api.url)
    page.goto(f"{api.url}/dashboard/documents")
    page.click("text=Upload a PDF")
    upload = page.locator("#upload-form")
    upload.get_by_label("Tenant").select_option("acme")
    upload.get_by_label("PDF").set_input_files(str(pdf))
    upload.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("status")).to_have_text("Uploaded: the document is queued for OCR.")
    expect(page.locator("h1")).to_contain_text("Document")
    expect(page.locator("dl.facts")).to_contain_text("harbour-cleaning-2026.pdf")
    page.goto(f"{api.url}/dashboard/tenants/acme")
    expect(page.locator(".tile").first).to_contain_text("39")  # 1 per document reserved
    drain(api.services.pool, settings, storage)
    page.goto(f"{api.url}/dashboard/tenants")
    acme = page.locator("#tenant-list tr", has_text="acme")
    expect(acme.locator("td").nth(1)).to_have_text("37")  # 1 + 2 pages charged
    expect(page.locator("#tenant-list tr", has_text="globex")).to_contain_text("unlimited")
    page.click("text=acme")
    expect(page.locator("#ledger-entries")).to_contain_text("charge")
    screenshot = tmp_path / "dashboard-tenant.png"
    page.screenshot(path=str(screenshot), full_page=True)
    keep_screenshot(screenshot, "dashboard-tenant.png")
    # A wrong file is refused on the page, with the reason, and nothing is stored.
    page.goto(f"{api.url}/dashboard/documents")
    page.click("text=Upload a PDF")
    (tmp_path / "notes.pdf").write_text("not a PDF at all, only text renamed " * 100)
    page.locator("#upload-form").get_by_label("Tenant").select_option("acme")
    page.locator("#upload-form").get_by_label("PDF").set_input_files(str(tmp_path / "notes.pdf"))
    page.locator("#upload-form").get_by_role("button", name="Upload").click()
    expect(page.get_by_role("alert")).to_contain_text("Not uploaded: not a PDF")
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (1,)


def test_the_api_docs_render_with_no_network_beyond_the_server(api: RunningApi, browser: Any) -> None:
    """Issue 12: /docs and /redoc were blank offline (Swagger UI and ReDoc came from a CDN). Every
    request that leaves the API server is refused here, and both pages still draw the routes. (ReDoc's
    bundle asks cdn.redoc.ly for its small logo image; refused, the page does without it.)"""
    from playwright.sync_api import Route, expect

    elsewhere: list[str] = []

    def only_the_server(route: Route) -> None:
        if route.request.url.startswith(api.url):
            route.continue_()
        else:
            elsewhere.append(route.request.resource_type)
            route.abort()

    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.route("**/*", only_the_server)
    page.goto(f"{api.url}/docs")
    expect(page.locator(".swagger-ui .opblock-summary-path").first).to_be_visible(timeout=15_000)
    expect(page.locator(".swagger-ui")).to_contain_text("/v1/documents/{document_id}/fields")
    page.goto(f"{api.url}/redoc")
    expect(page.locator("body")).to_contain_text("A document's state and progress", timeout=15_000)
    assert not {"script", "stylesheet", "fetch", "xhr", "document"} & set(elsewhere), elsewhere


def test_an_operator_searches_the_documents_text_and_opens_the_matching_page(
    api: RunningApi, settings: Settings, storage: ObjectStorage, tmp_path: Path, conn: psycopg.Connection[Any],
    browser: Any,
) -> None:
    """The dashboard's full-text search: results best first with their snippet's matches marked and
    the page number, each a link to that page of the document; a match in an extracted field named;
    the filters; a bad filter said on the page; the results at a phone's 390 px."""
    from playwright.sync_api import expect

    tenant_with_key(conn, "acme")
    tenant_with_key(conn, "globex")
    roads = ["Resurfacing of roads in the northern district",
             "The contractor shall resurface the carriageway of twelve municipal roads."]
    bridge = ["Maintenance of the river bridge", "Inspection of the bridge deck and the bridge railings."]
    ids = {}
    for name, tenant, pages in (("roads-2026.pdf", "acme", [TENDER_PAGE, roads]),
                                ("bridge.pdf", "globex", [bridge])):
        outcome = upload_file(conn, storage, text_pdf(tmp_path / name, pages),
                              UploadPolicy(tenant=tenant, max_bytes=10**7))
        assert outcome.document_id is not None
        ids[name] = outcome.document_id
    drain(api.services.pool, settings, storage)
    page = browser.new_page(viewport={"width": 1360, "height": 1000})
    log_in(page, api.url)
    page.click("header nav >> text=Search")
    expect(page).to_have_url(f"{api.url}/dashboard/search")
    page.fill("#text-search input[name=q]", "resurfaced roads")
    page.click("#text-search button[type=submit]")
    results = page.locator("#search-results li.search-hit")
    expect(results).to_have_count(1)
    expect(results.first.locator(".hit-link")).to_have_text("roads-2026.pdf · page 2")
    marked = [text.lower() for text in results.first.locator("mark").all_inner_texts()]
    assert "resurfacing" in marked and "roads" in marked, marked  # English stems, marked
    screenshot = tmp_path / "dashboard-search.png"
    page.screenshot(path=str(screenshot), full_page=True)
    keep_screenshot(screenshot, "dashboard-search.png")
    results.first.locator(".hit-link").click()
    expect(page).to_have_url(f"{api.url}/dashboard/documents/{ids['roads-2026.pdf']}#page-2")
    expect(page.locator("#page-2 pre")).to_contain_text("resurface the carriageway")

    page.goto(f"{api.url}/dashboard/search?q=bridge+or+roads&tenant=globex")
    expect(page.locator("#search-results .hit-link")).to_have_text(["bridge.pdf · page 1"])
    page.goto(f"{api.url}/dashboard/search?q=roads&cpv=9091")  # the notice's CPV code
    expect(page.locator("#search-results .hit-link")).to_have_text(["roads-2026.pdf · page 2"])
    page.goto(f"{api.url}/dashboard/search?q=cleaning")  # the notice's title: a field, ranked first
    expect(page.locator("#search-results .hit-link")).to_have_text(
        ["roads-2026.pdf · title, page 1", "roads-2026.pdf · page 1"])
    page.goto(f"{api.url}/dashboard/search?q=%22bridge+deck")  # an unbalanced quote is still a query
    expect(page.locator("#search-results .hit-link")).to_have_text(["bridge.pdf · page 1"])
    answer = page.goto(f"{api.url}/dashboard/search?q=roads&cpv=roads")
    assert answer is not None and answer.status == 400
    expect(page.locator("#search-error")).to_contain_text("CPV prefix")
    page.goto(f"{api.url}/dashboard/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    expect(page.locator("#text-search input[name=q]")).to_have_value("<script>alert(1)</script>")
    expect(page.locator("#search-results li.empty")).to_have_text("No page matches.")

    phone = browser.new_page(viewport={"width": 390, "height": 844})
    log_in(phone, api.url)
    phone.goto(f"{api.url}/dashboard/search?q=bridge+or+roads")
    expect(phone.locator("#search-results li.search-hit")).to_have_count(2)
    found = phone.evaluate(OVERFLOWING)
    assert found["out"] == [] and found["scrollWidth"] <= found["width"], found


LONG_TITLE = ("Rahmenvereinbarung über die Ausführung von Rohbauarbeiten, Betonarbeiten, Mauerarbeiten und "
              "Abbrucharbeiten für den Neubau des Verwaltungsgebäudes der Landesanstalt für Umwelt in Oberwalden")


@pytest.mark.settings(dashboard_refresh_seconds=0)
def test_a_long_real_title_wraps_and_keeps_the_page_and_quote_columns_on_screen(
    api: RunningApi, settings: Settings, storage: ObjectStorage, conn: psycopg.Connection[Any], tmp_path: Path,
    browser: Any,
) -> None:
    """The review: a 200-character German title on one line pushed Page and Quote (the provenance)
    off the screen at 1280 px."""
    from playwright.sync_api import expect

    tenant_with_key(conn, "acme")
    lines = [line if not line.startswith("Title:") else f"Title: {LONG_TITLE[:95]}" for line in TENDER_PAGE]
    lines.insert(lines.index(f"Title: {LONG_TITLE[:95]}") + 1, LONG_TITLE[95:])
    document_id = upload_file(conn, storage, text_pdf(tmp_path / "long.pdf", [lines]),
                              UploadPolicy(tenant="acme", max_bytes=10**7)).document_id
    drain(api.services.pool, settings, storage)
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    log_in(page, api.url)
    page.goto(f"{api.url}/dashboard/documents/{document_id}")
    title = page.locator("#fields tr", has_text="Rahmenvereinbarung")
    expect(title).to_have_count(1)
    for cell in ("td.page", "td.quote"):
        box = title.locator(cell).bounding_box()
        assert box is not None and box["x"] + box["width"] <= 1280, (cell, box)
