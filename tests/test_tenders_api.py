"""Tenders over real HTTP, the command line and the dashboard (issue 26): a ZIP package from upload to
merged fields and a calendar event, the calendar read back with a real iCalendar parser (a moved
deadline updates the same event), tokens, another tenant's tender, and the tender-level exports (OCDS
valid against the official schema, an ocid per tender and a release per change)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import icalendar
import psycopg
import pytest
from psycopg_pool import ConnectionPool
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.config import Settings
from tenderflow.pipeline.storage import open_storage
from tests.support.api_harness import RunningApi, api_settings, bearer, serve_in_thread, tenant_with_key
from tests.support.pipeline_harness import drain
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf, zip_package
from tests.test_dashboard_pages import csrf_of, logged_in
from tests.test_export import valid_package

NO_COUNTRY = [line for line in TENDER_PAGE if not line.startswith("Country")]


def addendum(number: int, deadline: str) -> list[str]:
    return [f"ADDENDUM No. {number}", "Reference number: EH-2026-0417", f"Date of issue: 2026-02-{number + 9}",
            "The time limit for receipt of tenders is extended.", f"New time limit for receipt of tenders: {deadline}"]


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return api_settings(database_url, tmp_path)


@pytest.fixture
def api(settings: Settings) -> Iterator[RunningApi]:
    with serve_in_thread(settings) as running:
        yield running


def post_file(api: RunningApi, key: str, url: str, path: Path, media: str) -> httpx.Response:
    with path.open("rb") as handle:
        return api.client.post(url, headers=bearer(key), files={"file": (path.name, handle, media)})


def events(text: str) -> dict[str, Any]:
    calendar = icalendar.Calendar.from_ical(text)
    return {str(event["UID"]): event for event in calendar.walk("VEVENT")}


def test_a_zip_package_goes_from_the_api_to_merged_fields_and_a_calendar_event_a_moved_deadline_updates(
    api: RunningApi, conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, tmp_path: Path,
) -> None:
    key = tenant_with_key(conn, "acme")
    other = tenant_with_key(conn, "globex")
    storage = open_storage(settings.resolved_storage_url)
    created = api.client.post("/v1/tenders", headers=bearer(key), json={"name": "Office cleaning"})
    assert created.status_code == 201, created.text
    tender_id = created.json()["id"]
    package = zip_package(tmp_path / "package.zip", {
        "tender/notice.pdf": text_pdf(tmp_path / "n.pdf", [NO_COUNTRY]).read_bytes(), "tender/notes.txt": b"x"})
    assert post_file(api, other, f"/v1/tenders/{tender_id}/documents", package, "application/zip").status_code == 404
    uploaded = post_file(api, key, f"/v1/tenders/{tender_id}/documents", package, "application/zip")
    assert uploaded.status_code == 201, uploaded.text
    outcomes = {o["source"]: (o["status"], o["error"]) for o in uploaded.json()["outcomes"]}
    assert outcomes["package.zip:tender/notice.pdf"][0] == "created"
    assert outcomes["package.zip:tender/notes.txt"][0] == "rejected"
    drain(pool, settings, storage)

    tender = api.client.get(f"/v1/tenders/{tender_id}", headers=bearer(key)).json()
    assert tender["submission_deadline"] == "2026-03-15T12:00" and tender["country"] is None
    assert tender["fields"]["reference_number"]["value"] == "EH-2026-0417"
    assert tender["members"][0]["package_path"] == "tender/notice.pdf"
    assert api.client.get(f"/v1/tenders/{tender_id}", headers=bearer(other)).status_code == 404

    first = api.client.get("/v1/calendar.ics", headers=bearer(key))
    assert first.status_code == 200 and first.headers["content-type"].startswith("text/calendar")
    uid = f"tender-{tender_id}-submission@tenderflow"
    event = events(first.text)[uid]
    start = event.decoded("DTSTART")
    assert (start.isoformat(), start.tzinfo) == ("2026-03-15T12:00:00", None)  # floating: the country is unknown
    assert "DTSTART:20260315T120000\r\n" in first.text and "20260315T120000Z" not in first.text
    assert int(event["SEQUENCE"]) == 0 and "Office cleaning" in str(event["SUMMARY"])

    moved = post_file(api, key, f"/v1/tenders/{tender_id}/documents",
                      text_pdf(tmp_path / "a1.pdf", [addendum(1, "2026-03-29 12:00")]), "application/pdf")
    assert moved.status_code == 201, moved.text
    drain(pool, settings, storage)
    again = events(api.client.get("/v1/calendar.ics", headers=bearer(key)).text)
    assert list(again) == [uid]  # the same event, not a second one
    assert again[uid].decoded("DTSTART").isoformat() == "2026-03-29T12:00:00" and int(again[uid]["SEQUENCE"]) == 1
    history = api.client.get(f"/v1/tenders/{tender_id}/history", headers=bearer(key)).json()
    assert any(change["sentence"] == "submission deadline moved from 2026-03-15 12:00 to 2026-03-29 12:00 by "
                                     "addendum 1, page 1" for revision in history for change in revision["changes"])
    assert events(api.client.get("/v1/calendar.ics", headers=bearer(other)).text) == {}


def test_a_calendar_token_opens_the_feed_alone_and_a_new_one_revokes_it(
    api: RunningApi, conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, tmp_path: Path,
) -> None:
    key = tenant_with_key(conn, "acme")
    storage = open_storage(settings.resolved_storage_url)
    tender_id = api.client.post("/v1/tenders", headers=bearer(key), json={}).json()["id"]
    uploaded = post_file(api, key, f"/v1/tenders/{tender_id}/documents", text_pdf(tmp_path / "n.pdf", [TENDER_PAGE]),
                         "application/pdf")
    assert uploaded.status_code == 201
    drain(pool, settings, storage)
    made = api.client.post("/v1/calendar/token", headers=bearer(key)).json()
    assert made["url"].endswith(f"/v1/calendar.ics?token={made['token']}") and made["token"].startswith("tfc_")
    feed = httpx.get(made["url"], timeout=30)  # what a calendar app does: no header at all
    assert feed.status_code == 200
    [event] = events(feed.text).values()
    start = event.decoded("DTSTART")  # the notice says Country: NL
    assert str(start.tzinfo) == "Europe/Amsterdam" and start.isoformat() == "2026-03-15T12:00:00+01:00"
    assert "BEGIN:VTIMEZONE\r\nTZID:Europe/Amsterdam" in feed.text
    assert api.client.get("/v1/calendar.ics").status_code == 401
    # one character changed (the secret is random: replacing its last one by a fixed letter left it as it
    # was when it already ended in that letter, one run in 62)
    wrong = made["token"][:-1] + ("y" if made["token"].endswith("x") else "x")
    assert wrong != made["token"]
    assert api.client.get("/v1/calendar.ics", params={"token": wrong}).status_code == 401
    api.client.post("/v1/calendar/token", headers=bearer(key))
    assert httpx.get(made["url"], timeout=30).status_code == 401


def test_bad_packages_over_the_api_are_refused_with_the_reason_and_nothing_stored(
    api: RunningApi, conn: psycopg.Connection[Any], tmp_path: Path,
) -> None:
    key = tenant_with_key(conn, "acme")
    tender_id = api.client.post("/v1/tenders", headers=bearer(key), json={}).json()["id"]
    notice = text_pdf(tmp_path / "n.pdf", [TENDER_PAGE]).read_bytes()
    for members, reason in (({"../x.pdf": notice}, "leaves the package"), ({"a.txt": b"x"}, "holds no PDF")):
        refused = post_file(api, key, f"/v1/tenders/{tender_id}/documents",
                            zip_package(tmp_path / "bad.zip", members), "application/zip")
        assert refused.status_code == 400 and reason in refused.json()["detail"]
    text = tmp_path / "notes.txt"
    text.write_bytes(b"hello")
    assert post_file(api, key, f"/v1/tenders/{tender_id}/documents", text, "text/plain").status_code == 415
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (0,)


def test_tender_exports_give_an_ocid_per_tender_and_a_release_per_change_valid_ocds(
    api: RunningApi, conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, tmp_path: Path,
    database_url: str,
) -> None:
    key = tenant_with_key(conn, "acme")
    storage = open_storage(settings.resolved_storage_url)
    tender_id = api.client.post("/v1/tenders", headers=bearer(key), json={}).json()["id"]
    post_file(api, key, f"/v1/tenders/{tender_id}/documents", text_pdf(tmp_path / "n.pdf", [TENDER_PAGE]),
              "application/pdf")
    drain(pool, settings, storage)
    post_file(api, key, f"/v1/tenders/{tender_id}/documents",
              text_pdf(tmp_path / "a.pdf", [addendum(1, "2026-03-29 12:00")]), "application/pdf")
    drain(pool, settings, storage)
    package = valid_package(api.client.get("/v1/tenders/export", headers=bearer(key), params={"format": "ocds"}).text)
    releases = package["releases"]
    assert {release["ocid"] for release in releases} == {f"ocds-unregistered-tender-{tender_id}"}
    assert [release["tag"] for release in releases] == [["tender"], ["tenderAmendment"]]
    assert [release["tender"]["tenderPeriod"]["endDate"] for release in releases] == [
        "2026-03-15T12:00:00+01:00", "2026-03-29T12:00:00+02:00"]  # Country: NL, 12:00 in Amsterdam, its offset
    [amendment] = releases[1]["tender"]["amendments"]
    assert amendment["amendsReleaseID"] == releases[0]["id"] and "addendum 1" in amendment["description"]
    assert {d["documentType"] for d in releases[1]["tender"]["documents"]} == {"tenderNotice", "clarifications"}
    [hit] = api.client.get("/v1/tenders/search", headers=bearer(key), params={"q": "cleaning"}).json()
    assert hit["tender_id"] == tender_id and hit["submission_deadline"] == "2026-03-29T12:00"
    rows = list(csv.DictReader(io.StringIO(api.client.get("/v1/tenders/export", headers=bearer(key)).text)))
    assert [(r["tender_id"], r["submission_deadline"], r["submission_deadline_page"]) for r in rows] == [
        (str(tender_id), "2026-03-29T12:00", "1")]
    env = {"DATABASE_URL": database_url, "TENDERFLOW_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(app, ["tenders", "export", "--format", "jsonl", "--tenant", "acme"], env=env)
    assert result.exit_code == 0, result.output
    [line] = [json.loads(text) for text in result.stdout.splitlines()]
    assert line["fields"]["submission_deadline"]["history"][0]["value"] == "2026-03-15T12:00"
    assert [r["revision"] for r in line["revisions"]] == [1, 2]


def test_the_command_line_uploads_a_package_as_a_tender_and_writes_its_calendar(
    conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, tmp_path: Path, database_url: str,
) -> None:
    tenant_with_key(conn, "acme")
    env = {"DATABASE_URL": database_url, "TENDERFLOW_DATA_DIR": str(settings.data_dir),
           "TENDERFLOW_STORAGE_URL": settings.resolved_storage_url}
    package = zip_package(tmp_path / "roads.zip", {
        "notice.pdf": text_pdf(tmp_path / "n.pdf", [NO_COUNTRY]).read_bytes(),
        "addenda/addendum 1.pdf": text_pdf(tmp_path / "a.pdf", [addendum(1, "2026-03-29 12:00")]).read_bytes()})
    result = CliRunner().invoke(app, ["upload", str(package), "--tenant", "acme"], env=env)
    assert result.exit_code == 0, result.output
    tender_id = int(conn.execute("SELECT id FROM tenders").fetchone()[0])  # type: ignore[index]
    drain(pool, settings, open_storage(settings.resolved_storage_url))
    shown = CliRunner().invoke(app, ["tenders", "show", str(tender_id), "--tenant", "acme", "--json"], env=env)
    assert shown.exit_code == 0, shown.output
    tender = json.loads(shown.stdout)
    assert tender["name"] == "roads" and tender["submission_deadline"] == "2026-03-29T12:00"
    written = CliRunner().invoke(app, ["calendar", "--tenant", "acme", "-o", str(tmp_path / "d.ics")], env=env)
    assert written.exit_code == 0, written.output
    [event] = events((tmp_path / "d.ics").read_text()).values()
    assert event.decoded("DTSTART").isoformat() == "2026-03-29T12:00:00"
    refused = CliRunner().invoke(app, ["upload", str(tmp_path / "n.pdf"), "--tender", "77", "--tenant", "acme"],
                                 env=env)
    assert refused.exit_code == 1 and "no tender with id 77" in refused.output


def test_the_dashboard_shows_a_tender_its_history_and_settles_a_conflict_with_a_form(
    api: RunningApi, conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, tmp_path: Path,
) -> None:
    tenant_with_key(conn, "acme")
    storage = open_storage(settings.resolved_storage_url)
    package = zip_package(tmp_path / "p.zip", {
        "notice.pdf": text_pdf(tmp_path / "n.pdf", [TENDER_PAGE]).read_bytes(),
        "a.pdf": text_pdf(tmp_path / "a.pdf", [addendum(1, "2026-03-29 12:00")]).read_bytes(),
        "b.pdf": text_pdf(tmp_path / "b.pdf", [addendum(1, "2026-04-02 12:00")]).read_bytes()})
    with logged_in(api) as client:
        page = client.get("/dashboard/tenders")
        assert page.status_code == 200 and "script" not in page.headers["content-security-policy"]
        with package.open("rb") as handle:
            sent = client.post("/dashboard/tenders/upload", data={"csrf_token": csrf_of(page.text), "tenant": "acme"},
                               files={"file": ("p.zip", handle, "application/zip")})
        assert sent.status_code == 303, sent.text
        drain(pool, settings, storage)
        tender = client.get(sent.headers["location"])
        assert tender.status_code == 200
        assert "addenda of the same date disagree on the submission deadline" in tender.text
        assert "moved from 2026-03-15 12:00 to" in tender.text and 'id="revisions"' in tender.text
        form = {"csrf_token": csrf_of(tender.text), "field": "submission_deadline"}
        tender_id = int(sent.headers["location"].split("/")[3].split("?")[0])
        document = conn.execute("SELECT document_id FROM tender_documents td JOIN documents d ON d.id = td.document_id "
                                 "WHERE d.filename = 'b.pdf'").fetchone()
        assert document is not None
        chosen = client.post(f"/dashboard/tenders/{tender_id}/choices", data={**form, "document_id": str(document[0])})
        assert chosen.status_code == 303
        assert client.post(f"/dashboard/tenders/{tender_id}/choices",
                           data={**form, "csrf_token": "forged", "document_id": "1"}).status_code == 403
        settled = client.get(f"/dashboard/tenders/{tender_id}").text
        assert "2026-04-02 12:00" in settled and "(chosen)" in settled
        # …and the calendar event it is in the tenant's feed as (Country: NL)
        assert ("DTSTART;TZID=Europe/Amsterdam:20260402T120000</code> (Europe/Amsterdam, the buyer&#39;s "
                f"country&#39;s time) · event <code>tender-{tender_id}-submission@tenderflow</code>") in settled
