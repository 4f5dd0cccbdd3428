"""Exports (issue 13): a row per document with page references (CSV, XLSX), every field with its page
and quote (JSON Lines), from the CLI and the API; a tenant exports only its own documents."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from openpyxl import load_workbook
from psycopg_pool import ConnectionPool
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.config import Settings
from tenderflow.pipeline.export import HEADER, _cell
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import upload_file
from tenderflow.tenants.keys import create_api_key
from tests.api_harness import RunningApi, api_settings, bearer, serve_in_thread, tenant_with_key
from tests.pipeline_harness import drain
from tests.tender_fixtures import TENDER_PAGE, text_pdf

FORMULA = ["=HYPERLINK(\"http://evil.example\",\"click\")", "Tender for cleaning of the town hall"]


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return api_settings(database_url, tmp_path)


@pytest.fixture
def exported(conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings,
             tmp_path: Path) -> dict[str, int]:
    storage = open_storage(settings.resolved_storage_url)
    tenant_with_key(conn, "acme")
    tenant_with_key(conn, "globex")
    ids = {}
    for name, tenant, pages in (("notice", "acme", [TENDER_PAGE]), ("formula", "acme", [FORMULA]),
                                ("other", "globex", [TENDER_PAGE, ["Annex"]])):
        outcome = upload_file(conn, storage, text_pdf(tmp_path / f"{name}.pdf", pages), tenant=tenant,
                              max_bytes=10**7)
        assert outcome.document_id is not None
        ids[name] = outcome.document_id
    drain(pool, settings, storage)
    return ids


def test_csv_has_a_row_per_document_with_the_page_of_each_value(
    database_url: str, settings: Settings, exported: dict[str, int]
) -> None:
    env = {"DATABASE_URL": database_url, "TENDERFLOW_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(app, ["export", "--tenant", "acme", "--state", "done"], env=env)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert list(rows[0]) == list(HEADER)
    by_id = {int(row["document_id"]): row for row in rows}
    assert set(by_id) == {exported["notice"], exported["formula"]}  # globex's is not acme's
    notice = by_id[exported["notice"]]
    assert (notice["reference_number"], notice["reference_number_page"]) == ("EH-2026-0417", "1")
    assert notice["estimated_value"] == "1250000.00 EUR" and notice["cpv_codes"] == "90910000-9"
    assert notice["submission_deadline"].startswith("2026-03-15")
    assert notice["uploaded_at"].endswith("+00:00")
    # A value a spreadsheet would run as a formula is quoted (CSV injection).
    assert by_id[exported["formula"]]["filename"] == "formula.pdf"
    assert not any(value.startswith("=") for row in rows for value in row.values())
    assert [_cell(text) for text in ("=HYPERLINK(1)", "+1", "-2", "@x", "fine")] == [
        "'=HYPERLINK(1)", "'+1", "'-2", "'@x", "fine"]


def test_jsonl_keeps_every_field_with_its_page_and_quote(
    database_url: str, settings: Settings, exported: dict[str, int], tmp_path: Path
) -> None:
    env = {"DATABASE_URL": database_url, "TENDERFLOW_DATA_DIR": str(settings.data_dir)}
    target = tmp_path / "fields.jsonl"
    result = CliRunner().invoke(app, ["export", "--format", "jsonl", "-o", str(target)], env=env)
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [line["document_id"] for line in lines] == sorted(exported.values())  # oldest first, all tenants
    notice = lines[0]
    assert notice["fields"]["reference_number"] == {"value": "EH-2026-0417", "page": 1,
                                                    "quote": notice["fields"]["reference_number"]["quote"]}
    assert "EH-2026-0417" in notice["fields"]["reference_number"]["quote"]
    nothing = CliRunner().invoke(app, ["export", "--tenant", "nobody-here"], env=env)
    assert nothing.exit_code == 0 and nothing.stdout.splitlines() == [",".join(HEADER)]  # headers, no error
    refused = CliRunner().invoke(app, ["export", "--format", "xlsx"], env=env)
    assert refused.exit_code == 2 and "--output" in refused.output


@pytest.fixture
def api(settings: Settings) -> Iterator[RunningApi]:
    with serve_in_thread(settings) as running:
        yield running


def test_the_api_exports_a_tenants_own_documents_as_xlsx_and_csv(
    api: RunningApi, conn: psycopg.Connection[Any], exported: dict[str, int]
) -> None:
    key = create_api_key(conn, "globex", name="export").key
    workbook = api.client.get("/v1/export", params={"format": "xlsx"}, headers=bearer(key))
    assert workbook.status_code == 200, workbook.text
    assert workbook.headers["content-disposition"] == 'attachment; filename="tenderflow-export.xlsx"'
    sheet = load_workbook(io.BytesIO(workbook.content), read_only=True)["documents"]
    rows = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert rows[0] == list(HEADER)
    assert [row[0] for row in rows[1:]] == [exported["other"]]
    assert rows[1][HEADER.index("pages")] == 2
    as_csv = api.client.get("/v1/export", headers=bearer(key))
    assert as_csv.status_code == 200 and as_csv.headers["content-type"].startswith("text/csv")
    assert [int(row["document_id"]) for row in csv.DictReader(io.StringIO(as_csv.text))] == [exported["other"]]
    assert api.client.get("/v1/export", params={"format": "pdf"}, headers=bearer(key)).status_code == 422
