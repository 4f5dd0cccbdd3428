"""Exports of the extracted fields: one row per document for spreadsheets (CSV, XLSX), or every
field with its page and quote (JSON Lines). What `tenderflow export` and `GET /v1/export` write.

A row holds the fields of the document's readable version (its newest finished one); a document
with none yet has its state and empty fields. Each field has a `…_page` column beside it, the page
its value was read on (a number). What an analyst sums or filters on has a column of its own: the
estimated value's amount (a number) and its currency, the contract duration's number and unit;
deadlines carry the offset of the buyer's time zone (CSV: RFC 3339 text; XLSX: the buyer's local
date-time, with `deadline_time_zone` saying which zone, or that it is not known); the buyer's country
says whether it was stated or inferred, and from what. Lists are joined with "; ". Documents are
read in batches, oldest first, so an export of any size streams.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from psycopg.rows import dict_row

from tenderflow.database import Database, borrowed
from tenderflow.extraction.country import DEADLINE_FIELDS, buyer_country, deadline_in_zone, placed_deadlines
from tenderflow.extraction.schema import BuyerCountry
from tenderflow.pipeline.versions import VersionState
from tenderflow.sqlfiles import NamedQueries

QUERIES = NamedQueries("tenderflow.pipeline", "export.sql")

ExportFormat = Literal["csv", "xlsx", "jsonl"]
FORMATS: tuple[ExportFormat, ...] = ("csv", "xlsx", "jsonl")
_BATCH = 500


@dataclass(frozen=True)
class ExportFilter:
    tenant: str | None = None
    state: VersionState | None = None
    since: datetime | None = None


def exported_documents(database: Database, selection: ExportFilter) -> Iterator[dict[str, Any]]:
    """The documents `selection` names, oldest first, read in batches. With a pool, each batch
    borrows a connection and gives it back before its rows are handed on: a consumer that waits (an
    HTTP client reading an export slowly) holds none (review security-2, D-N2)."""
    after = 0
    while True:
        with borrowed(database) as conn:
            rows = conn.cursor(row_factory=dict_row).execute(QUERIES["export_documents"], {
                "tenant": selection.tenant, "state": selection.state.value if selection.state else None,
                "since": selection.since, "after_id": after, "batch": _BATCH,
            }).fetchall()
        yield from rows
        if len(rows) < _BATCH:
            return
        after = rows[-1]["id"]


def _value(value: Any) -> str:
    if isinstance(value, dict):
        if "amount" in value and "unit" in value:
            return f"{value['amount']:g} {value['unit']}"
        if "name" in value:
            weight = value.get("weight")
            return f"{value['name']} ({weight:g}%)" if isinstance(weight, int | float) else str(value["name"])
        return "; ".join(f"{key}: {_value(inner)}" for key, inner in value.items() if inner is not None)
    return "" if value is None else str(value)


def _node(fields: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = fields
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _page(node: Any) -> int | str | None:
    """The page a value was read on, a number; for a list of values their distinct pages, a number
    when they share one ('1; 3' when not)."""
    if isinstance(node, list):
        pages = list(dict.fromkeys(item.get("page") for item in node if isinstance(item, dict) and item.get("page")))
        return pages[0] if len(pages) == 1 else "; ".join(str(page) for page in pages) or None
    return node.get("page") if isinstance(node, dict) and isinstance(node.get("page"), int) else None


def sourced_cells(fields: dict[str, Any], *path: str) -> tuple[str, int | str | None]:
    """(value as text, page) of one sourced field, or of a list of them joined with '; '."""
    node = _node(fields, path)
    if isinstance(node, list):
        items = [item for item in node if isinstance(item, dict) and "value" in item]
        return "; ".join(_value(item["value"]) for item in items), _page(items)
    if isinstance(node, dict) and "value" in node:
        return _value(node["value"]), _page(node)
    return "", None


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Column:
    """A column of the spreadsheet exports: its name and how a document's row fills it."""

    name: str
    read: Callable[[dict[str, Any], dict[str, Any], BuyerCountry | None], Any]


def _text_column(name: str, path: tuple[str, ...]) -> list[Column]:
    return [Column(name, lambda fields, _d, _c: sourced_cells(fields, *path)[0]),
            Column(f"{name}_page", lambda fields, _d, _c: sourced_cells(fields, *path)[1])]


def _money(fields: dict[str, Any], part: str) -> Any:
    value = _node(fields, ("estimated_value", "value"))
    if not isinstance(value, dict):
        return None
    return _number(value.get("amount")) if part == "amount" else (str(value.get("currency") or "") or None)


def _duration(fields: dict[str, Any], part: str) -> Any:
    value = _node(fields, ("contract_duration", "value"))
    if not isinstance(value, dict):
        return None
    return _number(value.get("amount")) if part == "amount" else value.get("unit")


def _deadline(fields: dict[str, Any], name: str, country: BuyerCountry | None, *, typed: bool) -> Any:
    """A deadline as text with the buyer's zone's offset (or local, without one); as a spreadsheet's
    date-time (`typed`), the buyer's local wall-clock time (a spreadsheet has no zones: the
    `deadline_time_zone` column says which)."""
    found = deadline_in_zone(_node(fields, (name, "value")), country.time_zone if country else None)
    if found is None:
        return None
    return found.local if typed else found.text


def _zone_column(fields: dict[str, Any], country: BuyerCountry | None) -> str | None:
    if not any(_node(fields, (name, "value")) for name in DEADLINE_FIELDS):
        return None
    if country is None or country.time_zone is None:
        return "unknown: local time as printed"
    return country.time_zone


def _evidence(country: BuyerCountry | None) -> str | None:
    if country is None:
        return None
    clues = [f"{clue.kind} {clue.value}" + (f" (p. {clue.page})" if clue.page else "")
             for clue in country.evidence if clue.kind != "stated"]
    said = "stated in the document" if not country.inferred else "inferred from: " + "; ".join(clues)
    return said


DOCUMENT_COLUMNS = ("document_id", "tenant", "filename", "state", "version", "pages", "language", "uploaded_at",
                    "finished_at")


def _columns(*, typed: bool) -> tuple[Column, ...]:
    """The spreadsheet columns: the document's, then each field with the page it was read on beside
    it; money and durations as a number and a unit, deadlines as dates (`typed`) or RFC 3339 text."""
    document = (
        Column("document_id", lambda _f, d, _c: d["id"]), Column("tenant", lambda _f, d, _c: d["tenant"]),
        Column("filename", lambda _f, d, _c: d["filename"]), Column("state", lambda _f, d, _c: d["state"]),
        Column("version", lambda _f, d, _c: d["current_version"]), Column("pages", lambda _f, d, _c: d["page_count"]),
        Column("language", lambda _f, d, _c: d["language"]), Column("uploaded_at", lambda _f, d, _c: d["created_at"]),
        Column("finished_at", lambda _f, d, _c: d["finished_at"]),
    )
    return (
        *document,
        *_text_column("title", ("title",)), *_text_column("reference_number", ("reference_number",)),
        *_text_column("buyer_name", ("buyer", "name")),
        *_text_column("buyer_country", ("buyer", "country")),
        Column("buyer_country_evidence", lambda _f, _d, c: _evidence(c)),
        *_text_column("buyer_email", ("buyer", "email")), *_text_column("buyer_phone", ("buyer", "phone")),
        *_text_column("buyer_address", ("buyer", "address")), *_text_column("notice_type", ("notice_type",)),
        *_text_column("procedure_type", ("procedure_type",)), *_text_column("main_category", ("main_category",)),
        *_text_column("cpv_codes", ("cpv_codes",)),
        Column("estimated_value", lambda f, _d, _c: _money(f, "amount")),
        Column("estimated_value_currency", lambda f, _d, _c: _money(f, "currency")),
        Column("estimated_value_page", lambda f, _d, _c: sourced_cells(f, "estimated_value")[1]),
        Column("submission_deadline", lambda f, _d, c: _deadline(f, "submission_deadline", c, typed=typed)),
        Column("submission_deadline_page", lambda f, _d, _c: sourced_cells(f, "submission_deadline")[1]),
        Column("questions_deadline", lambda f, _d, c: _deadline(f, "questions_deadline", c, typed=typed)),
        Column("questions_deadline_page", lambda f, _d, _c: sourced_cells(f, "questions_deadline")[1]),
        Column("deadline_time_zone", lambda f, _d, c: _zone_column(f, c)),
        *_text_column("place_of_performance", ("place_of_performance",)),
        Column("contract_duration", lambda f, _d, _c: _duration(f, "amount")),
        Column("contract_duration_unit", lambda f, _d, _c: _duration(f, "unit")),
        Column("contract_duration_page", lambda f, _d, _c: sourced_cells(f, "contract_duration")[1]),
        *_text_column("award_criteria", ("award_criteria",)), *_text_column("submission_url", ("submission_url",)),
    )


FIELD_COLUMNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("title", ("title",)), ("reference_number", ("reference_number",)), ("buyer_name", ("buyer", "name")),
    ("buyer_country", ("buyer", "country")), ("buyer_email", ("buyer", "email")),
    ("buyer_phone", ("buyer", "phone")), ("buyer_address", ("buyer", "address")),
    ("notice_type", ("notice_type",)), ("procedure_type", ("procedure_type",)),
    ("main_category", ("main_category",)), ("cpv_codes", ("cpv_codes",)),
    ("estimated_value", ("estimated_value",)), ("submission_deadline", ("submission_deadline",)),
    ("questions_deadline", ("questions_deadline",)), ("place_of_performance", ("place_of_performance",)),
    ("contract_duration", ("contract_duration",)), ("award_criteria", ("award_criteria",)),
    ("submission_url", ("submission_url",)),
)
"""Each field by its column name and its path in the fields: what a tender's row gives (value, page and
the document it came from; tenderflow.tenders.export)."""

TEXT_COLUMNS = _columns(typed=False)
TYPED_COLUMNS = _columns(typed=True)
HEADER: tuple[str, ...] = tuple(column.name for column in TEXT_COLUMNS)


def spreadsheet_row(document: dict[str, Any], *, typed: bool = False) -> list[Any]:
    """One document as a row under HEADER: numbers as numbers; deadlines as RFC 3339 text, or as
    the buyer's local date-times when `typed` (XLSX)."""
    fields = document["fields"] or {}
    country = buyer_country(document.get("country"), fields) if document["fields"] else None
    return [column.read(fields, document, country) for column in (TYPED_COLUMNS if typed else TEXT_COLUMNS)]


def json_line(document: dict[str, Any]) -> str:
    """One document with every field as extracted: value, page and quote; the buyer's country with
    its evidence, and the deadlines placed in its time zone."""
    country = buyer_country(document.get("country"), document["fields"]) if document["fields"] else None
    return json.dumps({
        "document_id": document["id"], "tenant": document["tenant"], "filename": document["filename"],
        "sha256": document["sha256"], "state": document["state"], "version": document["current_version"],
        "pages": document["page_count"], "language": document["language"],
        "uploaded_at": document["created_at"].isoformat(),
        "finished_at": document["finished_at"].isoformat() if document["finished_at"] else None,
        "backend": document["backend"], "model": document["model"],
        "fields": document["fields"], "flags": document["flags"] or [],
        "country": country.model_dump(mode="json") if country else None,
        "deadlines": {name: placed.model_dump(mode="json")
                      for name, placed in placed_deadlines(document["fields"], country).items()},
    }, ensure_ascii=False)


def spreadsheet_cell(value: Any, *, dates: bool = False) -> Any:
    """A value fit for a spreadsheet cell: times in UTC (a datetime when the format has them, else
    ISO 8601 text), and text that a spreadsheet would take for a formula quoted."""
    if isinstance(value, datetime):
        utc = value.astimezone(UTC) if value.tzinfo is not None else value
        return utc.replace(tzinfo=None) if dates else utc.isoformat()
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value  # a spreadsheet would run a tenant's text as a formula
    return value


Row = Callable[[dict[str, Any]], list[Any]]
"""How a record becomes a row under its header (documents: `spreadsheet_row`; tenders: theirs)."""


def write_csv(documents: Iterator[dict[str, Any]], write: Callable[[str], Any], *,
              header: Sequence[str] = HEADER, row: Row = spreadsheet_row) -> int:
    """CSV of `documents` (or of other records, with their `header` and `row`: tenders')."""
    buffer = io.StringIO()
    out = csv.writer(buffer)
    out.writerow(header)
    count = 0
    for document in documents:
        out.writerow(["" if value is None else spreadsheet_cell(value) for value in row(document)])
        count += 1
        if buffer.tell() > 65536:
            write(buffer.getvalue())
            buffer.seek(0)
            buffer.truncate()
    write(buffer.getvalue())
    return count


def write_jsonl(documents: Iterator[dict[str, Any]], write: Callable[[str], Any], *,
                line: Callable[[dict[str, Any]], str] = json_line) -> int:
    count = 0
    for document in documents:
        write(line(document) + "\n")
        count += 1
    return count


_WIDTH_SAMPLE = 200
"""Rows read before the XLSX's column widths are set (write-only sheets stream: widths come first)."""


def _typed_row(document: dict[str, Any]) -> list[Any]:
    return spreadsheet_row(document, typed=True)


def write_xlsx(documents: Iterator[dict[str, Any]], target: Any, *, header: Sequence[str] = HEADER,
               row: Row = _typed_row, sheet_name: str = "documents") -> int:
    """An XLSX workbook an analyst can sum and filter (openpyxl, write-only: rows stream to `target`,
    a path or a binary file): numbers as numbers, dates and times as dates, the header row frozen,
    an autofilter over every column, and column widths fitted to the header and the first rows.
    Documents by default; other records (tenders) with their `header`, `row` and `sheet_name`."""
    from itertools import chain, islice

    from openpyxl import Workbook
    from openpyxl.utils import get_column_letter

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(sheet_name)
    sheet.freeze_panes = "A2"
    first = [[spreadsheet_cell(value, dates=True) for value in row(document)]
             for document in islice(documents, _WIDTH_SAMPLE)]
    for index, name in enumerate(header, start=1):
        widest = max([len(name), *(_shown_width(row[index - 1]) for row in first)])
        sheet.column_dimensions[get_column_letter(index)].width = min(widest + 2, 60)
    sheet.append(list(header))
    count = 0
    rest = ([spreadsheet_cell(value, dates=True) for value in row(document)] for document in documents)
    for cells in chain(first, rest):
        sheet.append(cells)
        count += 1
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(header))}{count + 1}"
    workbook.save(target)
    return count


def _shown_width(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, datetime):
        return 16  # yyyy-mm-dd hh:mm
    return len(str(value))
