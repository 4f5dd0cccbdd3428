"""How the dashboard writes one document for people: field values and page text with quotes marked."""

from __future__ import annotations

from tenderflow.api.document_view import field_rows, marked_page_text
from tenderflow.display import format_value


def test_values_are_written_for_people() -> None:
    assert format_value({"amount": 12600000.0, "currency": "GBP"}) == "12,600,000.00 GBP"
    assert format_value({"amount": 60, "unit": "months"}) == "60 months"
    assert format_value({"amount": 1, "unit": "years"}) == "1 year"
    assert format_value({"name": "Price", "weight": 40.0}) == "Price (40%)"
    assert format_value({"name": "Quality", "weight": 12.5}) == "Quality (12.5%)"
    assert format_value({"name": "Quality", "weight": None}) == "Quality"
    assert format_value("2026-03-15T12:00") == "2026-03-15 12:00"


def test_rows_follow_the_schema_order_and_skip_empty_fields() -> None:
    leaf = {"page": 1, "quote": "q"}
    rows = field_rows({"title": {"value": "T", **leaf}, "cpv_codes": [{"value": "1", **leaf}, {"value": "2", **leaf}],
                       "buyer": {"email": {"value": "a@b.c", **leaf}, "name": None}, "award_criteria": []})
    assert [(row.field, row.value) for row in rows] == [
        ("Buyer email", "a@b.c"), ("Title", "T"), ("CPV codes", "1"), ("CPV codes", "2")]


def test_quotes_are_marked_across_line_breaks_and_hyphens_and_the_text_stays_text() -> None:
    text = "Ver-\ngabe <b>nr</b> & Frist:\n 2026-03-15"
    marked = marked_page_text(text, ["Vergabe <b>", "frist: 2026-03-15", "nowhere"])
    assert str(marked) == "<mark>Ver-\ngabe &lt;b&gt;</mark>nr&lt;/b&gt; &amp; <mark>Frist:\n 2026-03-15</mark>"
    overlapping = marked_page_text("abcdef", ["abcd", "cdef"])
    assert str(overlapping) == "<mark>abcdef</mark>"
