"""Values and tables as a person reads them (issue 12): one formatter (`tenderflow.display`) under the
CLI's tables and the dashboard, and terminal tables that fit 80 columns without cutting an id."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from rich.console import Console

from tenderflow.cli.output import header, make_table, terminal_cell
from tenderflow.display import format_number, format_size, format_value


def test_values_read_as_words_not_python_reprs() -> None:
    assert format_value({"amount": 12600000.0, "currency": "GBP"}) == "12,600,000.00 GBP"
    assert format_value({"amount": 60, "unit": "months"}) == "60 months"
    assert format_value({"amount": 1, "unit": "years"}) == "1 year"
    assert format_value({"amount": 2.5, "unit": "years"}) == "2.5 years"
    assert format_value({"name": 'Price "', "weight": 40.0}) == 'Price " (40%)'
    assert format_value(["ocr.plan", "ocr.pages", "extract"]) == "ocr.plan, ocr.pages, extract"
    assert format_value({"version": 1, "object_key": "tenants/a/pdf/x"}) == "version: 1; object_key: tenants/a/pdf/x"
    assert format_value(True) == "yes" and format_value(None) == ""
    assert format_value(datetime(2026, 12, 1, 7, 11, 38, tzinfo=timezone(timedelta(hours=1)))) == (
        "2026-12-01 06:11:38 UTC")
    assert format_value("2026-03-15T12:00") == "2026-03-15 12:00"
    assert (format_number(1.0), format_number(0.04949), format_number(40.4123)) == ("1", "0.049", "40.412")
    assert (format_size(519), format_size(75_273), format_size(12 * 1024**2)) == ("519 B", "73.5 KiB", "12.0 MiB")


def test_headers_are_words_and_terminal_cells_carry_their_units() -> None:
    assert header("size_bytes") == "size" and header("created_at") == "created"
    assert header("oldest_queued_seconds") == "oldest queued (s)"
    assert header("document_id", {"document_id": "doc"}) == "doc"
    assert terminal_cell("size_bytes", 75_273) == "73.5 KiB"
    assert terminal_cell("created_at", datetime(2026, 12, 1, 6, 11, 38, tzinfo=UTC)) == "2026-12-01 06:11 UTC"


def render(table: object, width: int) -> str:
    console = Console(width=width, record=True, force_terminal=False, color_system=None)
    console.print(table)
    return console.export_text()


def test_a_wide_table_fits_80_columns_without_cutting_an_id_and_says_what_it_left_out() -> None:
    key_id = "6ea960dfe1c24b0a9f"
    rows = [{"id": key_id, "tenant": "acme", "filename": "multipage-annex-2026.pdf", "state": "extracting",
             "pages": "3/12", "language": "fra", "created_at": datetime(2026, 12, 1, 6, 11, tzinfo=UTC),
             "finished_at": None, "error": "retry 2/5: LLM provider unreachable after 6 attempts"}]
    columns = list(rows[0])
    narrow = render(make_table("documents", rows, columns, width=80,
                               optional=["tenant", "language", "created_at", "finished_at"]), 80)
    assert max(len(line) for line in narrow.splitlines()) <= 80
    assert key_id in narrow and "multipage-annex-2026.pdf" in narrow and "extracting" in narrow
    assert "finished" in " ".join(narrow.split("not shown for want of width")[1].split())
    wide = render(make_table("documents", rows, columns, width=200, optional=["finished_at"]), 200)
    assert "not shown" not in wide and "2026-12-01 06:11 UTC" in wide and "finished" in wide
    assert "…" not in wide
