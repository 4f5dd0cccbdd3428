"""What the walkthrough found missing from the tenants' API (issue 12): a tenant's own credits and
usage (`/v1/account`), documents filtered by file name and upload time, the PDF sent as the raw
body (`Content-Type: application/pdf`), and `/readyz` (the database and the storage answer)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tenderflow.config import Settings
from tenderflow.pipeline.storage import open_storage
from tests.support.api_harness import RunningApi, api_settings, bearer, serve_in_thread, tenant_with_key
from tests.support.pipeline_harness import drain
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf

pytestmark = pytest.mark.settings(max_upload_bytes=200_000, price_per_document=3, price_per_page=2)


def raw_upload(api: RunningApi, key: str, body: bytes, **headers: str) -> Any:
    return api.client.post("/v1/documents", content=body,
                           headers={**bearer(key), "Content-Type": "application/pdf", **headers})


def test_a_tenant_reads_its_own_balance_usage_prices_and_limits(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    key = tenant_with_key(conn, "acme", credits=100)
    other = tenant_with_key(conn, "globex", credits=7)
    pdf = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE, ["Annex"]])
    with pdf.open("rb") as handle:
        assert api.client.post("/v1/documents", headers=bearer(key),
                               files={"file": ("notice.pdf", handle)}).status_code == 201
    reserved = api.client.get("/v1/account", headers=bearer(key)).json()
    assert (reserved["tenant"], reserved["balance"], reserved["open_reserved"]) == ("acme", 97, 3)
    drain(api.services.pool, settings, open_storage(settings.resolved_storage_url))
    account = api.client.get("/v1/account", headers=bearer(key)).json()
    # 3 per document + 2 per page for 2 pages, the offline extractor costs no tokens.
    assert (account["balance"], account["open_reserved"], account["unlimited"]) == (93, 0, False)
    assert account["usage"] | {"since": None} == {
        "since": None, "granted": 100, "reserved": 7, "charged": 7, "refunded": 0,
        "versions_charged": 1, "versions_refunded": 0}
    assert account["prices"] == {"per_document": 3, "per_page": 2, "per_1k_llm_tokens": 1}
    assert account["limits"]["stored_bytes"] == pdf.stat().st_size
    assert account["limits"]["uploads_per_minute"] == settings.tenant_uploads_per_minute
    later = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    assert api.client.get("/v1/account", headers=bearer(key), params={"since": later}).json()["usage"][
        "charged"] == 0
    theirs = api.client.get("/v1/account", headers=bearer(other)).json()
    assert (theirs["tenant"], theirs["balance"], theirs["limits"]["stored_bytes"]) == ("globex", 7, 0)
    assert api.client.get("/v1/account").status_code == 401


def test_documents_filter_by_file_name_and_upload_time(
    api: RunningApi, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    key = tenant_with_key(conn, "acme")
    ids = {}
    for name in ("Roads-2026.pdf", "bridge_repair.pdf", "ROADS-annex.pdf"):
        pdf = text_pdf(tmp_path / name, [TENDER_PAGE, [name]])
        with pdf.open("rb") as handle:
            ids[name] = api.client.post("/v1/documents", headers=bearer(key),
                                        files={"file": (name, handle)}).json()["id"]
    conn.execute("UPDATE documents SET created_at = '2026-01-10T12:00:00Z' WHERE id = %s", [ids["Roads-2026.pdf"]])

    def listed(**params: Any) -> list[str]:
        answer = api.client.get("/v1/documents", headers=bearer(key), params=params)
        assert answer.status_code == 200, answer.text
        return [d["filename"] for d in answer.json()["documents"]]

    assert listed(filename="roads") == ["ROADS-annex.pdf", "Roads-2026.pdf"]
    assert listed(filename="_repair") == ["bridge_repair.pdf"]  # literal: '_' is no wildcard
    assert listed(filename="%") == []
    assert listed(created_before="2026-02-01") == ["Roads-2026.pdf"]  # a date alone: its midnight, UTC
    assert listed(created_after="2026-02-01T00:00:00+00:00") == ["ROADS-annex.pdf", "bridge_repair.pdf"]
    assert listed(filename="roads", created_after="2026-02-01") == ["ROADS-annex.pdf"]
    first = api.client.get("/v1/documents", headers=bearer(key), params={"filename": "r", "limit": 2}).json()
    assert [d["filename"] for d in first["documents"]] == ["ROADS-annex.pdf", "bridge_repair.pdf"]
    rest = listed(filename="r", limit=2, cursor=first["next_cursor"])
    assert rest == ["Roads-2026.pdf"]
    assert api.client.get("/v1/documents", headers=bearer(key),
                          params={"created_after": "yesterday"}).status_code == 422


def test_the_pdf_may_be_the_raw_body(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    key = tenant_with_key(conn, "acme")
    body = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]).read_bytes()
    named = raw_upload(api, key, body, **{"Content-Disposition": 'attachment; filename="avis-2026.pdf"'})
    assert named.status_code == 201, named.text
    document = api.client.get(f"/v1/documents/{named.json()['id']}", headers=bearer(key)).json()
    assert (document["filename"], document["size_bytes"]) == ("avis-2026.pdf", len(body))
    again = api.client.post("/v1/documents", content=body, params={"filename": "other.pdf"},
                            headers={**bearer(key), "Content-Type": "application/pdf"})
    assert (again.status_code, again.json()["status"]) == (200, "existing")
    second = text_pdf(tmp_path / "second.pdf", [TENDER_PAGE, ["Lot 2"]]).read_bytes()
    by_query = api.client.post("/v1/documents", content=second, params={"filename": "dir/lot2.pdf"},
                               headers={**bearer(key), "Content-Type": "application/pdf"})
    assert by_query.status_code == 201
    assert api.client.get(f"/v1/documents/{by_query.json()['id']}", headers=bearer(key)).json()[
        "filename"] == "lot2.pdf"
    unnamed = raw_upload(api, key, text_pdf(tmp_path / "third.pdf", [TENDER_PAGE, ["Lot 3"]]).read_bytes())
    assert api.client.get(f"/v1/documents/{unnamed.json()['id']}", headers=bearer(key)).json()[
        "filename"] == "upload.pdf"
    # The same refusals as a multipart upload, the same cap while reading.
    assert raw_upload(api, key, b"just text, renamed .pdf").status_code == 415
    assert raw_upload(api, key, b"").status_code == 400
    too_big = raw_upload(api, key, body + b"%" * settings.max_upload_bytes)
    assert too_big.status_code == 413 and "limit of 200,000 bytes" in too_big.json()["detail"]
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (3,)
    assert list((settings.data_dir / "spool").glob("*")) == []
    other = api.client.post("/v1/documents", content=body, headers={**bearer(key), "Content-Type": "text/plain"})
    assert other.status_code == 415 and "application/pdf" in other.json()["detail"]


def test_readyz_says_whether_the_database_and_the_storage_answer(
    database_url: str, tmp_path: Path
) -> None:
    with serve_in_thread(api_settings(database_url, tmp_path)) as api:
        ready = api.client.get("/readyz")
        assert (ready.status_code, ready.json()) == (200, {"status": "ok", "database": "ok", "storage": "ok"})
    s3_down = api_settings(database_url, tmp_path, storage_url="s3://tenderflow/documents",
                           s3_endpoint_url="http://127.0.0.1:9", s3_region="us-east-1")
    with serve_in_thread(s3_down) as api:
        down = api.client.get("/readyz")
        assert down.status_code == 503 and down.headers["retry-after"] == "5"
        assert down.json() == {"status": "unavailable", "database": "ok", "storage": "unavailable"}
        assert "127.0.0.1" not in down.text
        assert api.client.get("/healthz").status_code == 200  # alive all the same: nothing to restart


def test_the_accounts_since_without_an_offset_is_utc_whatever_the_database_zone(
    database_url: str, settings: Settings, conn: psycopg.Connection[Any]
) -> None:
    """`?since=` without an offset is UTC, as documented: the database's sessions are put 14 hours ahead
    (Pacific/Kiritimati), where the same wall time is 14 hours earlier and would count today's grant."""
    from psycopg import sql

    key = tenant_with_key(conn, "acme", credits=100)
    dbname = conn.execute("SELECT current_database()").fetchone()
    assert dbname is not None
    conn.execute(sql.SQL("ALTER DATABASE {} SET timezone TO 'Pacific/Kiritimati'").format(sql.Identifier(dbname[0])))
    in_an_hour = (datetime.now(UTC) + timedelta(hours=1)).replace(tzinfo=None).isoformat()
    an_hour_ago = (datetime.now(UTC) - timedelta(hours=1)).replace(tzinfo=None).isoformat()
    with serve_in_thread(settings) as api:
        def granted(since: str) -> int:
            answer = api.client.get("/v1/account", headers=bearer(key), params={"since": since})
            assert answer.status_code == 200, answer.text
            return int(answer.json()["usage"]["granted"])

        assert granted(in_an_hour) == 0
        assert granted(an_hour_ago) == 100
