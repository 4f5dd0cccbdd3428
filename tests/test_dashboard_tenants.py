"""The dashboard's upload from the browser and its tenants' credits pages (issue 12), over real HTTP:
a PDF posted as the browser's multipart form is stored for the tenant it names (capped while read,
sniffed, CSRF-checked, the tenant's credits reserved), a refusal says why on the page; the tenants
page and a tenant's page show balances, reservations and usage that agree with the ledger."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tenderflow.config import Settings
from tenderflow.pipeline.storage import open_storage
from tenderflow.tenants.keys import create_api_key
from tenderflow.tenants.tenants import create_tenant
from tests.support.api_harness import RunningApi
from tests.support.pipeline_harness import drain
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf
from tests.test_dashboard_pages import csrf_of, logged_in

pytestmark = pytest.mark.settings(max_upload_bytes=100_000, price_per_document=2, price_per_page=1)


def form(csrf: str, tenant: str, **extra: str) -> dict[str, str]:
    return {"csrf_token": csrf, "tenant": tenant, **extra}


def test_an_operator_uploads_a_pdf_for_a_tenant_from_the_browser(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    create_tenant(conn, "acme", credits=10)
    pdf = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE, ["Annex"]])
    with logged_in(api) as client:
        page = client.get("/dashboard/documents")
        assert 'action="/dashboard/upload"' in page.text and 'enctype="multipart/form-data"' in page.text
        csrf = csrf_of(page.text)
        posted = client.post("/dashboard/upload", data=form(csrf, "acme", languages="eng"),
                             files={"file": ("avis 2026.pdf", pdf.read_bytes(), "application/pdf")})
        assert posted.status_code == 303, posted.text
        location = posted.headers["location"]
        document_id = int(re.fullmatch(r"/dashboard/documents/(\d+)\?uploaded=created", location)[1])  # type: ignore[index]
        shown = client.get(location)
        assert "Uploaded: the document is queued for OCR." in shown.text and "avis 2026.pdf" in shown.text
        row = conn.execute("SELECT tenant, filename, ocr_languages FROM documents WHERE id = %s",
                           [document_id]).fetchone()
        assert row == ("acme", "avis 2026.pdf", "eng")
        assert conn.execute("SELECT balance FROM tenants WHERE name = 'acme'").fetchone() == (8,)  # 2 reserved
        again = client.post("/dashboard/upload", data=form(csrf, "acme"),
                            files={"file": ("copy.pdf", pdf.read_bytes(), "application/pdf")})
        assert again.headers["location"] == f"/dashboard/documents/{document_id}?uploaded=existing"
        # What a browser cannot be trusted with is refused, each with its reason on the page.
        not_pdf = client.post("/dashboard/upload", data=form(csrf, "acme"),
                              files={"file": ("x.pdf", b"<html>" + b"x" * 2000, "application/pdf")})
        assert not_pdf.status_code == 415 and "Not uploaded: not a PDF" in not_pdf.text
        too_big = client.post("/dashboard/upload", data=form(csrf, "acme"),
                              files={"file": ("big.pdf", b"%PDF-1.7\n" + b"0" * 120_000, "application/pdf")})
        assert too_big.status_code == 413 and "larger than the limit of 100,000 bytes" in too_big.text
        no_tenant = client.post("/dashboard/upload", data=form(csrf, ""),
                                files={"file": ("n.pdf", text_pdf(tmp_path / "n.pdf", [["other"]]).read_bytes())})
        assert no_tenant.status_code == 400 and "choose the tenant" in no_tenant.text
        unknown = client.post("/dashboard/upload", data=form(csrf, "nobody"),
                              files={"file": ("n.pdf", (tmp_path / "n.pdf").read_bytes())})
        assert unknown.status_code == 404 and "no tenant named" in unknown.text
        no_file = client.post("/dashboard/upload", data=form(csrf, "acme"), files={"other": ("a", b"b")})
        assert no_file.status_code == 400 and "choose a PDF file" in no_file.text
        forged = client.post("/dashboard/upload", data=form("not-the-token", "acme"),
                             files={"file": ("n.pdf", (tmp_path / "n.pdf").read_bytes())})
        assert forged.status_code == 403
    anonymous = api.client.post("/dashboard/upload", data=form(csrf, "acme"),
                                files={"file": ("n.pdf", (tmp_path / "n.pdf").read_bytes())})
    assert anonymous.status_code == 303 and anonymous.headers["location"] == "/dashboard/login"
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (1,)
    assert list((settings.data_dir / "spool").glob("*")) == []


def test_the_tenants_pages_show_balances_reservations_and_usage(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    create_tenant(conn, "acme", credits=50)
    create_tenant(conn, "globex", unlimited=True)
    create_api_key(conn, "acme", name="billing app")
    with logged_in(api) as client:
        csrf = csrf_of(client.get("/dashboard/documents").text)
        client.post("/dashboard/upload", data=form(csrf, "acme"),
                    files={"file": ("a.pdf", text_pdf(tmp_path / "a.pdf", [TENDER_PAGE, ["x"], ["y"]]).read_bytes())})
        reserved = client.get("/dashboard/tenants/acme").text
        assert re.search(r"Reserved now</span><span class=\"value\">2<", reserved), "the per-document price"
        drain(api.services.pool, settings, open_storage(settings.resolved_storage_url))
        listing = client.get("/dashboard/tenants")
        assert listing.status_code == 200
        acme_row = re.search(r'<tr><td><a href="/dashboard/tenants/acme">acme</a></td>(.*?)</tr>', listing.text, re.S)
        assert acme_row is not None
        cells = re.findall(r"<td[^>]*>(.*?)</td>", acme_row[1], re.S)
        # balance 50 - (2 + 3 pages x 1), nothing reserved, 5 charged, 1 document
        assert [re.sub(r"<[^>]+>", "", c).strip() for c in cells[:4]] == ["45", "0", "5", "1"]
        assert 'href="/dashboard/tenants/globex"' in listing.text and "unlimited" in listing.text
        page = client.get("/dashboard/tenants/acme").text
        usage = re.search(r"<td>all time</td>(.*?)</tr>", page, re.S)
        assert usage is not None
        assert [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", usage[1], re.S)] == [
            "50", "5", "5", "0", "1", "0"]
        assert "billing app" in page and "tfk_" in page and page.count("<td>charge</td>") == 1
        assert 'href="/dashboard/documents?tenant=acme"' in page
        assert client.get("/dashboard/tenants/nobody").status_code == 404
