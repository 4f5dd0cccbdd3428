"""Exports of the extracted fields: one row per document for spreadsheets (CSV, XLSX), or every
field with its page and quote (JSON Lines). What `tenderflow export` and `GET /v1/export` write.

A row holds the fields of the document's readable version (its newest finished one); a document
with none yet has its state and empty fields. Each field has a `…_page` column beside it, the page
its value was read on. Values are written as a person reads them: money as `1250000.00 EUR`, lists
joined with "; ". Documents are read in batches, oldest first, so an export of any size streams.
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
from tenderflow.pipeline.documents import QUERIES, VersionState

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
        if "amount" in value and "currency" in value:
            return f"{float(value['amount']):.2f} {value['currency']}"
        if "amount" in value and "unit" in value:
            return f"{value['amount']:g} {value['unit']}"
        if "name" in value:
            weight = value.get("weight")
            return f"{value['name']} ({weight:g}%)" if isinstance(weight, int | float) else str(value["name"])
        return "; ".join(f"{key}: {_value(inner)}" for key, inner in value.items() if inner is not None)
    return "" if value is None else str(value)


def sourced_cells(fields: dict[str, Any], *path: str) -> tuple[str, str]:
    """(value, page) of one sourced field, or of a list of them joined."""
    node: Any = fields
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, list):
        items = [item for item in node if isinstance(item, dict) and "value" in item]
        return "; ".join(_value(item["value"]) for item in items), "; ".join(str(item.get("page")) for item in items)
    if isinstance(node, dict) and "value" in node:
        return _value(node["value"]), str(node.get("page") or "")
    return "", ""


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
DOCUMENT_COLUMNS = ("document_id", "tenant", "filename", "state", "version", "pages", "language", "uploaded_at",
                    "finished_at")
HEADER: tuple[str, ...] = DOCUMENT_COLUMNS + tuple(
    column for name, _ in FIELD_COLUMNS for column in (name, f"{name}_page"))


def spreadsheet_row(document: dict[str, Any]) -> list[Any]:
    """One document as a row under HEADER."""
    fields = document["fields"] or {}
    row: list[Any] = [document["id"], document["tenant"], document["filename"], document["state"],
                      document["current_version"], document["page_count"], document["language"],
                      document["created_at"], document["finished_at"]]
    for _, path in FIELD_COLUMNS:
        row.extend(sourced_cells(fields, *path))
    return row


def json_line(document: dict[str, Any]) -> str:
    """One document with every field as extracted: value, page and quote."""
    return json.dumps({
        "document_id": document["id"], "tenant": document["tenant"], "filename": document["filename"],
        "sha256": document["sha256"], "state": document["state"], "version": document["current_version"],
        "pages": document["page_count"], "language": document["language"],
        "uploaded_at": document["created_at"].isoformat(),
        "finished_at": document["finished_at"].isoformat() if document["finished_at"] else None,
        "backend": document["backend"], "model": document["model"],
        "fields": document["fields"], "flags": document["flags"] or [],
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


def write_csv(documents: Iterator[dict[str, Any]], write: Callable[[str], Any], *,
              header: Sequence[str] = HEADER, row: Row = spreadsheet_row) -> int:
    """CSV of `documents` (or of other records, with their `header` and `row`: tenders')."""
    buffer = io.StringIO()
    out = csv.writer(buffer)
    out.writerow(header)
    count = 0
    for document in documents:
        out.writerow([spreadsheet_cell(value) for value in row(document)])
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


def write_xlsx(documents: Iterator[dict[str, Any]], target: Any, *, header: Sequence[str] = HEADER,
               row: Row = spreadsheet_row, sheet_name: str = "documents") -> int:
    """An XLSX workbook (openpyxl, write-only: rows stream to `target`, a path or a binary file)."""
    from openpyxl import Workbook

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(sheet_name)
    sheet.append(list(header))
    count = 0
    for document in documents:
        sheet.append([spreadsheet_cell(value, dates=True) for value in row(document)])
        count += 1
    workbook.save(target)
    return count
