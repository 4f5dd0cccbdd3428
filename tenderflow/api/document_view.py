"""One document shown to a person: its fields as table rows, and page text with the quotes marked.

The fields are stored as the extraction schema's JSON (`tenderflow.extraction.schema`): every leaf a
`{value, page, quote}`. `field_rows` flattens them in the schema's order, with values written for
people by `tenderflow.display.format_value` (`12,600,000.00 GBP`, `60 months`, `Price (40%)`), the
formatter the CLI's tables use too (`tenderflow show` prints these rows). `marked_page_text` escapes a page's text
and wraps each quoted span in `<mark>`: the text is escaped piece by piece and only our own tags are
added, so nothing in a PDF becomes markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape
from pydantic import BaseModel

from tenderflow.display import format_value
from tenderflow.extraction.schema import Buyer, Lot, TenderFields

_LABELS = {
    "cpv_codes": "CPV codes", "reference_number": "Reference", "submission_url": "Submission URL",
    "estimated_value": "Estimated value", "award_criteria": "Award criteria",
}
_MATCH_IGNORED = r"[\s\-\u00ad\u2010\u2011]*"  # what validation ignores between a quote's characters


@dataclass(frozen=True)
class FieldRow:
    field: str  # for people: "Buyer email", "Lot 2 CPV codes"
    value: str
    page: int | None
    quote: str | None


def _label(key: str) -> str:
    return _LABELS.get(key, key.replace("_", " ").capitalize())


def _is_sourced(node: Any) -> bool:
    return isinstance(node, dict) and {"value", "page", "quote"} <= node.keys()


def _ordered(node: dict[str, Any], model: type[BaseModel] | None) -> list[str]:
    known = list(model.model_fields) if model is not None else []
    return [key for key in known if key in node] + sorted(key for key in node if key not in known)


def _rows(node: Any, label: str, model: type[BaseModel] | None) -> Iterator[FieldRow]:
    if node is None or node == [] or node == {}:
        return
    if _is_sourced(node):
        yield FieldRow(label, format_value(node["value"]), node.get("page"), node.get("quote"))
    elif isinstance(node, list):
        for item in node:
            yield from _rows(item, label, model)
    elif isinstance(node, dict):
        for key in _ordered(node, model):
            child_model = {"buyer": Buyer}.get(key)
            if key == "lots" and isinstance(node[key], list):
                for position, lot in enumerate(node[key], start=1):
                    number = lot.get("number", {}).get("value") if isinstance(lot, dict) else None
                    yield from _rows(lot, f"Lot {number or position}", Lot)
                continue
            child_label = _label(key) if not label else f"{label} {_label(key).lower()}"
            if key == "cpv_codes" and label:
                child_label = f"{label} CPV codes"
            yield from _rows(node[key], child_label, child_model)
    else:
        yield FieldRow(label, format_value(node), None, None)


def field_rows(fields: dict[str, Any]) -> list[FieldRow]:
    """The extraction's leaves in the schema's order (buyer first, lots last), empty ones left out."""
    return list(_rows(fields, "", TenderFields))


def _quote_pattern(quote: str) -> re.Pattern[str] | None:
    characters = [re.escape(char) for char in quote if not char.isspace() and char not in "-\u00ad\u2010\u2011"]
    return re.compile(_MATCH_IGNORED.join(characters), re.IGNORECASE) if characters else None


def quoted_spans(text: str, quotes: Iterable[str]) -> list[tuple[int, int]]:
    """Where the quotes occur in `text` (ignoring case, whitespace and hyphens, as validation does),
    overlapping spans merged, in order."""
    spans = sorted((match.start(), match.end()) for quote in set(quotes) if (pattern := _quote_pattern(quote))
                   for match in pattern.finditer(text) if match.end() > match.start())
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def marked_page_text(text: str, quotes: Iterable[str]) -> Markup:
    """The page's text, escaped, with every quoted span in `<mark>`."""
    mark = Markup("<mark>{}</mark>")
    pieces: list[Markup] = []
    position = 0
    for start, end in quoted_spans(text, quotes):
        pieces.append(escape(text[position:start]))
        pieces.append(mark.format(text[start:end]))  # format escapes its argument
        position = end
    pieces.append(escape(text[position:]))
    return Markup("").join(pieces)


def quotes_by_page(rows: Iterable[FieldRow]) -> dict[int, list[str]]:
    pages: dict[int, list[str]] = {}
    for row in rows:
        if row.page is not None and row.quote:
            pages.setdefault(int(row.page), []).append(row.quote)
    return pages
