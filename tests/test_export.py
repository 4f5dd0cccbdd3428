"""Exports (issue 13): a row per document with page references (CSV, XLSX), every field with its page
and quote (JSON Lines), from the CLI and the API; a tenant exports only its own documents."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import httpx
import psycopg
from openpyxl import load_workbook
from psycopg import sql
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.config import Settings
from tenderflow.pipeline.export import HEADER, spreadsheet_cell
from tenderflow.tenants.keys import create_api_key
from tests.conftest import processed_once
from tests.support.api_harness import RunningApi, bearer, serve_in_thread, tenant_with_key
from tests.support.tender_fixtures import TENDER_PAGE

FORMULA = ["=HYPERLINK(\"http://evil.example\",\"click\")", "Tender for cleaning of the town hall"]


processed_documents, exported = processed_once(
    "exported", tenants={"acme": 0, "globex": 0}, documents=(
        ("notice", "acme", [TENDER_PAGE]), ("formula", "acme", [FORMULA]),
        ("other", "globex", [TENDER_PAGE, ["Annex"]])))


def test_csv_has_a_row_per_document_with_the_page_of_each_value(
    cli_env: dict[str, str], exported: dict[str, int]
) -> None:
    result = CliRunner().invoke(app, ["export", "--tenant", "acme", "--state", "done"], env=cli_env)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert list(rows[0]) == list(HEADER)
    by_id = {int(row["document_id"]): row for row in rows}
    assert set(by_id) == {exported["notice"], exported["formula"]}  # globex's is not acme's
    notice = by_id[exported["notice"]]
    assert (notice["reference_number"], notice["reference_number_page"]) == ("EH-2026-0417", "1")
    # amount and currency apart, so a spreadsheet sums the amounts; the deadline with the buyer's offset
    assert (notice["estimated_value"], notice["estimated_value_currency"]) == ("1250000.0", "EUR")
    assert notice["cpv_codes"] == "90910000-9"
    assert notice["submission_deadline"] == "2026-03-15T12:00:00+01:00"
    assert (notice["buyer_country"], notice["deadline_time_zone"]) == ("NL", "Europe/Amsterdam")
    assert notice["buyer_country_evidence"] == "stated in the document"
    assert notice["uploaded_at"].endswith("+00:00")
    # A value a spreadsheet would run as a formula is quoted (CSV injection).
    assert by_id[exported["formula"]]["filename"] == "formula.pdf"
    assert not any(value.startswith("=") for row in rows for value in row.values())
    assert [spreadsheet_cell(text) for text in ("=HYPERLINK(1)", "+1", "-2", "@x", "fine")] == [
        "'=HYPERLINK(1)", "'+1", "'-2", "'@x", "fine"]


def test_jsonl_keeps_every_field_with_its_page_and_quote(
    cli_env: dict[str, str], exported: dict[str, int], tmp_path: Path
) -> None:
    target = tmp_path / "fields.jsonl"
    result = CliRunner().invoke(app, ["export", "--format", "jsonl", "-o", str(target)], env=cli_env)
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [line["document_id"] for line in lines] == sorted(exported.values())  # oldest first, all tenants
    notice = lines[0]
    assert notice["fields"]["reference_number"] == {"value": "EH-2026-0417", "page": 1,
                                                    "quote": notice["fields"]["reference_number"]["quote"]}
    assert "EH-2026-0417" in notice["fields"]["reference_number"]["quote"]
    nothing = CliRunner().invoke(app, ["export", "--tenant", "nobody-here"], env=cli_env)
    assert nothing.exit_code == 0 and nothing.stdout.splitlines() == [",".join(HEADER)]  # headers, no error
    refused = CliRunner().invoke(app, ["export", "--format", "xlsx"], env=cli_env)
    assert refused.exit_code == 2 and "--output" in refused.output


def api_download(api: RunningApi, conn: psycopg.Connection[Any], tenant: str, file_format: str,
                 filename: str) -> tuple[str, httpx.Response]:
    """A new API key of `tenant`, and its GET /v1/export in `file_format`: asserted a download named `filename`."""
    key = create_api_key(conn, tenant, name=file_format).key
    answer = api.client.get("/v1/export", params={"format": file_format}, headers=bearer(key))
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-disposition"] == f'attachment; filename="{filename}"'
    return key, answer


def test_the_api_exports_a_tenants_own_documents_as_xlsx_and_csv(
    api: RunningApi, conn: psycopg.Connection[Any], exported: dict[str, int]
) -> None:
    key, workbook = api_download(api, conn, "globex", "xlsx", "tenderflow-export.xlsx")
    sheet = load_workbook(io.BytesIO(workbook.content))["documents"]
    rows = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert rows[0] == list(HEADER)
    assert [row[0] for row in rows[1:]] == [exported["other"]]
    row = dict(zip(HEADER, rows[1], strict=True))
    # what an analyst sums and filters on: numbers as numbers, dates as dates, pages as numbers
    assert row["pages"] == 2 and row["reference_number_page"] == 1
    assert (row["estimated_value"], row["estimated_value_currency"]) == (1250000, "EUR")
    assert row["submission_deadline"] == datetime(2026, 3, 15, 12, 0)  # the buyer's local time …
    assert row["deadline_time_zone"] == "Europe/Amsterdam"  # … in this zone
    assert isinstance(row["uploaded_at"], datetime)
    assert sheet.freeze_panes == "A2" and sheet.auto_filter.ref == f"A1:{sheet.cell(1, len(HEADER)).column_letter}2"
    widths = {cell.value: sheet.column_dimensions[cell.column_letter].width for cell in sheet[1]}
    assert widths["title"] >= len("Cleaning services for municipal buildings") and widths["pages"] < 12
    as_csv = api.client.get("/v1/export", headers=bearer(key))
    assert as_csv.status_code == 200 and as_csv.headers["content-type"].startswith("text/csv")
    assert [int(row["document_id"]) for row in csv.DictReader(io.StringIO(as_csv.text))] == [exported["other"]]
    assert api.client.get("/v1/export", params={"format": "pdf"}, headers=bearer(key)).status_code == 422


def uploaded_at(conn: psycopg.Connection[Any], times: dict[int, str]) -> None:
    """Backdate documents: document id -> when it was uploaded."""
    for document_id, moment in times.items():
        conn.execute("UPDATE documents SET created_at = %s::timestamptz WHERE id = %s", (moment, document_id))


def test_export_since_keeps_documents_uploaded_since_then_read_as_utc(
    cli_env: dict[str, str], conn: psycopg.Connection[Any], exported: dict[str, int]
) -> None:
    uploaded_at(conn, {exported["formula"]: "2026-01-10T00:00:00Z", exported["notice"]: "2026-01-10T12:00:00Z",
                       exported["other"]: "2026-01-11T00:00:00Z"})

    def exported_ids(*options: str) -> list[int]:
        result = CliRunner().invoke(app, ["export", "--format", "jsonl", *options], env=cli_env)
        assert result.exit_code == 0, result.output
        return [json.loads(line)["document_id"] for line in result.stdout.splitlines()]

    assert exported_ids("--since", "2026-01-10T06:00:00") == [exported["notice"], exported["other"]]
    assert exported_ids("--since", "2026-01-11") == [exported["other"]]
    assert exported_ids("--since", "2026-01-10", "--tenant", "acme") == [exported["notice"], exported["formula"]]
    assert exported_ids("--since", "2026-01-12") == []
    as_csv = CliRunner().invoke(app, ["export", "--since", "2026-01-12"], env=cli_env)
    assert as_csv.exit_code == 0 and as_csv.stdout.splitlines() == [",".join(HEADER)]


def test_the_api_exports_since_a_time_read_as_utc_whatever_the_database_zone(
    database_url: str, settings: Settings, conn: psycopg.Connection[Any], exported: dict[str, int]
) -> None:
    """`?since=` without an offset is UTC, as the CLI reads it: the database's sessions are put 14 hours
    ahead (Pacific/Kiritimati) to show that the API's own zone is not what decides."""
    uploaded_at(conn, {exported["formula"]: "2026-01-10T00:00:00Z", exported["notice"]: "2026-01-10T12:00:00Z"})
    dbname = conn.execute("SELECT current_database()").fetchone()
    assert dbname is not None
    conn.execute(sql.SQL("ALTER DATABASE {} SET timezone TO 'Pacific/Kiritimati'").format(sql.Identifier(dbname[0])))
    key = create_api_key(conn, "acme", name="since").key
    with serve_in_thread(settings) as api:
        with api.services.pool.connection() as served:
            assert served.execute("SHOW timezone").fetchone() == ("Pacific/Kiritimati",)

        def exported_ids(since: str) -> list[int]:
            answer = api.client.get("/v1/export", params={"format": "jsonl", "since": since}, headers=bearer(key))
            assert answer.status_code == 200, answer.text
            assert answer.headers["content-type"].startswith("application/x-ndjson")
            return [json.loads(line)["document_id"] for line in answer.text.splitlines()]

        assert exported_ids("2026-01-10T06:00:00") == [exported["notice"]]  # 06:00 UTC, not 06:00 in Kiritimati
        assert exported_ids("2026-01-10T06:00:00Z") == [exported["notice"]]
        assert exported_ids("2026-01-10T06:00:00+08:00") == [exported["notice"], exported["formula"]]  # in id order
        assert exported_ids("2026-01-10") == [exported["notice"], exported["formula"]]
        assert api.client.get("/v1/export", params={"since": "last week"}, headers=bearer(key)).status_code == 422


def test_the_api_exports_jsonl_with_every_field_and_its_page(
    api: RunningApi, conn: psycopg.Connection[Any], exported: dict[str, int]
) -> None:
    _, answer = api_download(api, conn, "acme", "jsonl", "tenderflow-export.jsonl")
    lines = [json.loads(line) for line in answer.text.splitlines()]
    assert [line["document_id"] for line in lines] == [exported["notice"], exported["formula"]]  # acme's only
    reference = lines[0]["fields"]["reference_number"]
    assert (reference["value"], reference["page"]) == ("EH-2026-0417", 1) and "EH-2026-0417" in reference["quote"]


def test_the_api_exports_nothing_as_headers_an_empty_file_or_a_header_row(
    api: RunningApi, conn: psycopg.Connection[Any], exported: dict[str, int]
) -> None:
    """A tenant without documents, and a filter nothing matches: never an error."""
    nobody = tenant_with_key(conn, "initech")
    acme = create_api_key(conn, "acme", name="nothing").key
    for key, params in ((nobody, {}), (acme, {"state": "failed"}), (acme, {"since": "2100-01-01T00:00:00Z"})):
        as_csv = api.client.get("/v1/export", params={**params, "format": "csv"}, headers=bearer(key))
        assert as_csv.status_code == 200 and as_csv.text.splitlines() == [",".join(HEADER)]
        as_jsonl = api.client.get("/v1/export", params={**params, "format": "jsonl"}, headers=bearer(key))
        assert as_jsonl.status_code == 200 and as_jsonl.content == b""
        as_xlsx = api.client.get("/v1/export", params={**params, "format": "xlsx"}, headers=bearer(key))
        assert as_xlsx.status_code == 200, as_xlsx.text
        sheet = load_workbook(io.BytesIO(as_xlsx.content), read_only=True)["documents"]
        assert [list(row) for row in sheet.iter_rows(values_only=True)] == [list(HEADER)]


# --- OCDS ---------------------------------------------------------------------------------------
# The claim is OCDS's own: every package validates against the official 1.1.5 release package schema, its
# release schema and the lots extension (tests/data/ocds, vendored unchanged; README.md there names the
# sources). tenderflow's own schema (tenderflow/pipeline/ocds-release-package.schema.json) is checked after:
# it closes every object, so a field the exporter writes by mistake fails too.

OCDS_DATA = Path(__file__).parent / "data" / "ocds"


def merge_patch(target: Any, patch: Any) -> Any:
    """`patch` applied to `target` as an RFC 7386 JSON merge patch (how OCDS extensions patch the schema)."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


@lru_cache(maxsize=1)
def official_validator() -> Any:
    """A Draft 4 validator (OCDS 1.1 is written in draft 4) of the official release package schema, its $ref
    to the release schema resolved in a registry that holds the release schema with the lots extension
    merged in: nothing is fetched. Formats are checked (date-time, uri): without a format checker jsonschema
    treats them as notes."""
    from jsonschema import Draft4Validator, FormatChecker
    from referencing import Registry
    from referencing.jsonschema import DRAFT4

    def read(name: str) -> Any:
        return json.loads((OCDS_DATA / name).read_text("utf-8"))

    package = read("release-package-schema.json")
    release = merge_patch(read("release-schema.json"), read("ocds_lots_extension/release-schema.json"))
    assert package["id"] == "https://standard.open-contracting.org/schema/1__1__5/release-package-schema.json"
    assert package["properties"]["releases"]["items"]["$ref"] == release["id"]
    assert "Lot" in release["definitions"] and "lots" in release["definitions"]["Tender"]["properties"]
    Draft4Validator.check_schema(package)
    Draft4Validator.check_schema(release)
    checker = FormatChecker()
    assert not checker.conforms("2026-03-15T12:00", "date-time")
    assert checker.conforms("2026-03-15T11:00:00Z", "date-time")
    assert not checker.conforms("not a uri", "uri")
    assert checker.conforms("urn:uuid:0f8e2c4a-0000-4000-8000-000000000000", "uri")
    registry: Registry[Any] = Registry().with_resource(release["id"], DRAFT4.create_resource(release))
    return Draft4Validator(package, registry=registry, format_checker=checker)


def tenderflow_validator() -> Any:
    """A validator of tenderflow's own, stricter package schema, formats checked."""
    from jsonschema import Draft202012Validator, FormatChecker

    from tenderflow.pipeline.ocds import schema

    Draft202012Validator.check_schema(schema())
    return Draft202012Validator(schema(), format_checker=FormatChecker())


def _errors(validator: Any, package: Any) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(package)]


def valid_package(text: str) -> dict[str, Any]:
    """A package with releases, valid against OCDS 1.1.5 (and the lots extension) and tenderflow's schema."""
    package = json.loads(text)
    assert package["releases"], "an empty package is checked by empty_package"
    assert _errors(official_validator(), package) == []
    assert _errors(tenderflow_validator(), package) == []
    return dict(package)


def empty_package(text: str) -> dict[str, Any]:
    """A package of nothing: the official schema asks for at least one release (releases minItems 1), which
    is the one rule it breaks, by choice (an export of nothing is an empty file with headers, not an error;
    docs/export.md, "OCDS"); tenderflow's schema accepts it."""
    package = json.loads(text)
    assert package["releases"] == []
    assert [(list(error.absolute_path), error.validator) for error in official_validator().iter_errors(package)] == [
        (["releases"], "minItems")]
    assert _errors(tenderflow_validator(), package) == []
    return dict(package)


def test_ocds_export_is_a_release_package_valid_against_its_schema(
    database_url: str, settings: Settings, exported: dict[str, int], tmp_path: Path
) -> None:
    env = {"DATABASE_URL": database_url, "TENDERFLOW_DATA_DIR": str(settings.data_dir),
           "TENDERFLOW_OCDS_OCID_PREFIX": "ocds-a1b2c3", "TENDERFLOW_OCDS_PUBLISHER_NAME": "Example Bids Ltd",
           "TENDERFLOW_PUBLIC_URL": "https://tenders.example.com"}
    result = CliRunner().invoke(app, ["export", "--format", "ocds", "--tenant", "acme"], env=env)
    assert result.exit_code == 0, result.output
    package = valid_package(result.stdout)
    assert package["version"] == "1.1" and package["publisher"] == {"name": "Example Bids Ltd"}
    assert package["uri"].startswith("urn:uuid:")
    by_ocid = {release["ocid"]: release for release in package["releases"]}
    assert set(by_ocid) == {f"ocds-a1b2c3-{exported['notice']}", f"ocds-a1b2c3-{exported['formula']}"}
    notice = by_ocid[f"ocds-a1b2c3-{exported['notice']}"]
    assert notice["id"] == f"{exported['notice']}-1" and notice["tag"] == ["tender"]
    assert notice["initiationType"] == "tender" and notice["language"] == "en"
    [buyer] = notice["parties"]
    assert buyer["roles"] == ["buyer"] and buyer["name"] == "City of Example Harbour"
    assert buyer["address"]["countryName"] == "Netherlands"
    assert notice["buyer"] == {"id": buyer["id"], "name": buyer["name"]}
    tender = notice["tender"]
    assert tender["id"] == "EH-2026-0417" and tender["title"] == "Cleaning services for municipal buildings"
    assert tender["value"] == {"amount": 1250000.0, "currency": "EUR"}
    assert tender["procurementMethod"] == "open"
    assert tender["items"] == [{"id": "1", "classification": {"scheme": "CPV", "id": "90910000"}}]
    # 12:00 in the Netherlands, in March (CET, UTC+1), with its offset.
    assert tender["tenderPeriod"] == {"endDate": "2026-03-15T12:00:00+01:00"}
    [pdf] = tender["documents"]
    assert pdf["title"] == "notice.pdf"
    assert pdf["url"] == f"https://tenders.example.com/v1/documents/{exported['notice']}"

    target = tmp_path / "package.json"
    everything = CliRunner().invoke(app, ["export", "--format", "ocds", "-o", str(target)], env=env)
    assert everything.exit_code == 0 and "exported 3 release(s)" in everything.output
    assert len(valid_package(target.read_text())["releases"]) == 3  # every tenant's, to the operator

    nothing = CliRunner().invoke(app, ["export", "--format", "ocds", "--tenant", "nobody-here"], env=env)
    assert nothing.exit_code == 0, nothing.output
    assert empty_package(nothing.stdout)["version"] == "1.1"  # an empty package, not an error
    refused = CliRunner().invoke(app, ["export", "--format", "ocds"],
                                 env={**env, "TENDERFLOW_OCDS_OCID_PREFIX": "no spaces please"})
    assert refused.exit_code != 0 and "ocds_ocid_prefix" in str(refused.exception)  # a prefix is no free text


def test_the_api_exports_a_tenants_own_documents_as_an_ocds_package(
    api: RunningApi, conn: psycopg.Connection[Any], exported: dict[str, int]
) -> None:
    key, answer = api_download(api, conn, "globex", "ocds", "tenderflow-export.ocds.json")
    assert answer.headers["content-type"].startswith("application/json")
    package = valid_package(answer.text)
    assert [release["ocid"] for release in package["releases"]] == [f"ocds-unregistered-{exported['other']}"]
    failed_only = api.client.get("/v1/export", params={"format": "ocds", "state": "failed"}, headers=bearer(key))
    assert failed_only.status_code == 200 and empty_package(failed_only.text)["releases"] == []


def test_lots_award_criteria_durations_and_notice_types_become_ocds_fields() -> None:
    """Every field the exporter maps, from an extraction as the pipeline stores it."""
    from datetime import UTC, datetime

    from tenderflow.pipeline.ocds import release, write_ocds

    def sourced(value: Any) -> dict[str, Any]:
        return {"value": value, "page": 1, "quote": str(value)}

    fields = {
        "title": sourced("Winter maintenance of roads"), "reference_number": sourced("KCC/2026/7"),
        "notice_type": sourced("corrigendum"), "procedure_type": sourced("neg-wo-call"),
        "main_category": sourced("services"),
        "buyer": {"name": sourced("Kilbrook County Council"), "country": sourced("IE"),
                  "email": sourced("tenders@kilbrook.example"), "phone": sourced("+353 1 555 0100"),
                  "address": sourced("1 Main Street, Kilbrook")},
        "cpv_codes": [sourced("90620000-9"), sourced("90630000-2"), sourced("90620000-9"), sourced("not a code")],
        "estimated_value": sourced({"amount": 800000, "currency": "eur"}),
        "submission_deadline": sourced("2026-07-01"), "questions_deadline": sourced("2026-06-20T17:00:00+01:00"),
        "contract_duration": sourced({"amount": 3, "unit": "years"}),
        "award_criteria": [sourced({"name": "Price", "weight": 40}), sourced({"name": "Quality", "weight": 60})],
        "submission_url": sourced("https://etenders.example/kcc-7"),
        "lots": [{"number": sourced("1"), "title": sourced("North"), "cpv_codes": [sourced("90620000-9")],
                  "estimated_value": sourced({"amount": 500000, "currency": "EUR"}),
                  "award_criteria": [sourced({"name": "Price", "weight": None})]},
                 {"number": sourced("2"), "title": sourced("South"), "cpv_codes": [],
                  "estimated_value": sourced({"amount": 300000, "currency": "ZWG"}), "award_criteria": []},
                 {"number": sourced("1"), "title": sourced("North, read twice"), "cpv_codes": [],
                  "award_criteria": []}],
    }
    document = {"id": 7, "current_version": 2, "fields": fields, "filename": "kcc.pdf", "language": "eng",
                "created_at": datetime(2026, 5, 1, 9, tzinfo=UTC),
                "finished_at": datetime(2026, 5, 1, 9, 5, tzinfo=UTC)}
    built = release(document, prefix="ocds-xyz987")
    assert built is not None
    assert (built["ocid"], built["id"], built["tag"], built["date"]) == (
        "ocds-xyz987-7", "7-2", ["tenderAmendment"], "2026-05-01T09:05:00Z")
    tender = built["tender"]
    assert tender["procurementMethod"] == "limited"
    assert tender["items"] == [
        {"id": "1", "classification": {"scheme": "CPV", "id": "90620000"},
         "additionalClassifications": [{"scheme": "CPV", "id": "90630000"}]},
        {"id": "lot-1", "classification": {"scheme": "CPV", "id": "90620000"}, "relatedLot": "1"}]
    assert tender["lots"] == [{"id": "1", "title": "North", "value": {"amount": 500000, "currency": "EUR"}},
                              {"id": "2", "title": "South"}]  # lot 1 read twice counts once
    # ZWG (2024) is ISO 4217 but not in OCDS 1.1's closed currency codelist: the value is left out, not the package
    # broken.
    assert tender["value"] == {"amount": 800000, "currency": "EUR"}
    assert (tender["awardCriteria"], tender["awardCriteriaDetails"]) == (
        "ratedCriteria", "Price (40%); Quality (60%); Lot 1: Price")
    assert tender["tenderPeriod"] == {"endDate": "2026-07-01T23:59:59+01:00"}  # the end of the day in Ireland (IST)
    assert tender["enquiryPeriod"] == {"endDate": "2026-06-20T17:00:00+01:00"}  # its own offset
    assert tender["contractPeriod"] == {"durationInDays": 1095}
    assert (tender["submissionMethod"], tender["submissionMethodDetails"]) == (
        ["electronicSubmission"], "https://etenders.example/kcc-7")
    assert built["parties"][0]["contactPoint"] == {"email": "tenders@kilbrook.example", "telephone": "+353 1 555 0100"}
    assert "url" not in tender["documents"][0]  # no public URL configured

    price_only = release({**document, "fields": {"award_criteria": [sourced({"name": "Lowest price", "weight": 100})],
                                                 "buyer": {}, "cpv_codes": [], "lots": []}}, prefix="ocds-xyz987")
    assert price_only is not None and price_only["tender"]["awardCriteria"] == "priceOnly"
    assert "parties" not in price_only and price_only["tender"]["id"] == "7"
    assert release({**document, "current_version": None}, prefix="ocds-xyz987") is None  # nothing readable yet

    chunks: list[str] = []
    count = write_ocds(iter([document, {**document, "id": 8, "fields": None, "current_version": None}]), chunks.append,
                       prefix="ocds-xyz987", publisher="tenderflow", now=datetime(2026, 5, 2, tzinfo=UTC))
    package = valid_package("".join(chunks))
    assert count == 1 and package["publishedDate"] == "2026-05-02T00:00:00Z"


def test_an_ocds_deadline_carries_the_inferred_zones_offset_or_none_never_z() -> None:
    """The review's Guadeloupe notice: 18:00 local was written 18:00:00Z. With the country inferred
    (and its zone, America/Guadeloupe), the offset is the buyer's; with no country, the local time
    goes in `localEndDate` and no `endDate` claims an offset. Both packages are valid OCDS."""
    from datetime import UTC, datetime

    from tenderflow.extraction.country import buyer_country
    from tenderflow.pipeline.ocds import release, write_ocds

    name = "CCI des Îles de Guadeloupe"
    fields = {"buyer": {"name": {"value": name, "page": 1, "quote": name},
                        "country": {"value": "FR", "page": 1, "quote": "97159 Pointe-à-Pitre"}},
              "submission_deadline": {"value": "2020-08-26T18:00", "page": 2, "quote": "26 août 2020, à 18 heures"},
              "questions_deadline": {"value": "2020-08-20", "page": 2, "quote": "20 août 2020"}}
    country = {"code": "FR", "inferred": True, "time_zone": "America/Guadeloupe", "time_zone_from": "postcode 97159",
               "evidence": [{"kind": "postcode", "value": "97159", "country": "FR", "weight": 0.5, "page": 1,
                             "quote": "97159 Pointe-à-Pitre", "time_zone": "America/Guadeloupe"}]}
    document = {"id": 1, "current_version": 1, "fields": fields, "country": country, "filename": "boamp.pdf",
                "language": "fra", "created_at": datetime(2020, 8, 1, tzinfo=UTC), "finished_at": None}
    placed = release(document, prefix="ocds-xyz987")
    assert placed is not None
    assert placed["tender"]["tenderPeriod"] == {"endDate": "2020-08-26T18:00:00-04:00"}
    assert placed["tender"]["enquiryPeriod"] == {"endDate": "2020-08-20T23:59:59-04:00"}
    assert buyer_country(country, fields) is not None and placed["parties"][0]["address"]["countryName"] == "France"

    nowhere = {**document, "id": 2, "country": None, "fields": {**fields, "buyer": {"name": fields["buyer"]["name"]}}}
    unplaced = release(nowhere, prefix="ocds-xyz987")
    assert unplaced is not None
    assert unplaced["tender"]["tenderPeriod"] == {"localEndDate": "2020-08-26T18:00:00"}
    assert unplaced["tender"]["enquiryPeriod"] == {"localEndDate": "2020-08-20T23:59:59"}
    chunks: list[str] = []
    write_ocds(iter([document, nowhere]), chunks.append, prefix="ocds-xyz987", publisher="tenderflow")
    package = valid_package("".join(chunks))
    assert "Z" not in json.dumps([release["tender"].get("tenderPeriod") for release in package["releases"]])


def test_the_ocds_schemas_refuse_what_ocds_refuses() -> None:
    """The schemas can fail: each broken package breaks a rule of the official OCDS 1.1.5 schema (or of the lots
    extension merged into it); the last ones break only tenderflow's closed objects."""
    from datetime import UTC, datetime

    from tenderflow.pipeline.ocds import write_ocds

    chunks: list[str] = []
    document = {"id": 1, "current_version": 1, "filename": "a.pdf", "language": "fra", "created_at": datetime.now(UTC),
                "finished_at": None, "fields": {"title": {"value": "A", "page": 1, "quote": "A"},
                                                "lots": [{"number": {"value": "1", "page": 1, "quote": "1"}}]}}
    write_ocds(iter([document]), chunks.append, prefix="ocds-abc123", publisher="tenderflow")
    good = valid_package("".join(chunks))
    assert good["releases"][0]["language"] == "fr" and good["releases"][0]["tender"]["lots"] == [{"id": "1"}]
    official, strict = official_validator(), tenderflow_validator()
    refused_by_ocds = [
        lambda p: p["releases"][0].pop("ocid"),
        lambda p: p["releases"][0].update(tag=["notice"]),
        lambda p: p["releases"][0].update(date="2026-03-15 12:00"),
        lambda p: p["releases"][0].update(initiationType="award"),
        lambda p: p["releases"][0]["tender"].update(value={"amount": "12", "currency": "EUR"}),
        lambda p: p["releases"][0]["tender"].update(value={"amount": 12, "currency": "ZWG"}),
        lambda p: p["releases"][0]["tender"].update(procurementMethod="negotiated"),
        lambda p: p["releases"][0]["tender"].update(mainProcurementCategory="supplies"),
        lambda p: p["releases"][0]["tender"].update(tenderPeriod={"endDate": "2026-03-15"}),
        lambda p: p["releases"][0]["tender"]["documents"][0].update(url="not a uri"),
        lambda p: p["releases"][0]["tender"]["lots"][0].update(id=1),  # the lots extension: a lot's id is a string
        lambda p: p.update(version="1.1.5"),
        lambda p: p.pop("publisher"),
        lambda p: p.update(publishedDate="yesterday"),
    ]
    refused_by_tenderflow = [
        lambda p: p["releases"][0]["tender"].update(extra="a field tenderflow does not write"),
        lambda p: p["releases"][0]["tender"].update(items=[{"id": "1", "classification": {"scheme": "CPV",
                                                                                          "id": "9091"}}]),
        # a deadline claimed in UTC: tenderflow writes the buyer's offset, or no offset at all
        lambda p: p["releases"][0]["tender"].update(tenderPeriod={"endDate": "2026-03-15T12:00:00Z"}),
        lambda p: p["releases"][0]["tender"].update(tenderPeriod={"endDate": "2026-03-15T12:00:00+01:00",
                                                                  "localEndDate": "2026-03-15T12:00:00"}),
    ]
    for breaking in refused_by_ocds + refused_by_tenderflow:
        package = json.loads(json.dumps(good))
        breaking(package)
        assert list(strict.iter_errors(package)), f"accepted by tenderflow's schema: {package}"
        if breaking in refused_by_ocds:
            assert list(official.iter_errors(package)), f"accepted by OCDS 1.1.5: {package}"
        else:
            assert not list(official.iter_errors(package))  # OCDS leaves objects open


def test_the_vendored_ocds_schemas_are_the_standards_and_the_currency_codelist_matches() -> None:
    """tests/data/ocds holds the official 1.1.5 files unchanged; the currency codelist tenderflow writes from
    (its package schema) is the official release schema's."""
    from tenderflow.pipeline.ocds import schema

    package = json.loads((OCDS_DATA / "release-package-schema.json").read_text("utf-8"))
    release = json.loads((OCDS_DATA / "release-schema.json").read_text("utf-8"))
    assert package["required"] == ["uri", "publisher", "publishedDate", "releases", "version"]  # 1.1.5, not 1.2
    assert package["properties"]["releases"]["minItems"] == 1
    assert release["id"].endswith("/1__1__5/release-schema.json")
    assert "country" not in release["definitions"]["Address"]["properties"]  # a 1.2 field: not in 1.1.5
    official = [code for code in release["definitions"]["Value"]["properties"]["currency"]["enum"] if code]
    assert schema()["$defs"]["Value"]["properties"]["currency"]["enum"] == official
