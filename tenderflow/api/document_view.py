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
from dataclasses import dataclass, replace
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
    path: str = ""  # the field's path in the schema, "buyer.email" (lots and criteria: their list's path)
    confidence: float | None = None  # how sure the extractor was (0..1), when it said


def _label(key: str) -> str:
    return _LABELS.get(key, key.replace("_", " ").capitalize())


def _is_sourced(node: Any) -> bool:
    return isinstance(node, dict) and {"value", "page", "quote"} <= node.keys()


def _ordered(node: dict[str, Any], model: type[BaseModel] | None) -> list[str]:
    known = list(model.model_fields) if model is not None else []
    return [key for key in known if key in node] + sorted(key for key in node if key not in known)


def _rows(node: Any, label: str, model: type[BaseModel] | None, path: str) -> Iterator[FieldRow]:
    if node is None or node == [] or node == {}:
        return
    if _is_sourced(node):
        yield FieldRow(label, format_value(node["value"]), node.get("page"), node.get("quote"), path)
    elif isinstance(node, list):
        for item in node:
            yield from _rows(item, label, model, path)
    elif isinstance(node, dict):
        for key in _ordered(node, model):
            child_model = {"buyer": Buyer}.get(key)
            child_path = f"{path}.{key}" if path else key
            if key == "lots" and isinstance(node[key], list):
                for position, lot in enumerate(node[key], start=1):
                    number = lot.get("number", {}).get("value") if isinstance(lot, dict) else None
                    yield from _rows(lot, f"Lot {number or position}", Lot, "lots")
                continue
            child_label = _label(key) if not label else f"{label} {_label(key).lower()}"
            if key == "cpv_codes" and label:
                child_label = f"{label} CPV codes"
            yield from _rows(node[key], child_label, child_model, child_path)
    else:
        yield FieldRow(label, format_value(node), None, None, path)


def field_rows(fields: dict[str, Any], provenance: dict[str, Any] | None = None) -> list[FieldRow]:
    """The extraction's leaves in the schema's order (buyer first, lots last), empty ones left out, each
    with the confidence the extraction's provenance gives its field (see migration 0057)."""
    confidence = (provenance or {}).get("confidence") or {}
    return [replace(row, confidence=confidence.get(row.path)) for row in _rows(fields, "", TenderFields, "")]


def candidate_rows(provenance: dict[str, Any] | None) -> list[FieldRow]:
    """The candidates of fields left empty: values the extractor found but was not sure enough of to
    return, shown as such ("Buyer email (candidate)")."""
    rows = []
    for path, candidate in sorted(((provenance or {}).get("candidates") or {}).items()):
        if _is_sourced(candidate):
            label = " ".join(_label(part) if not index else _label(part).lower()
                             for index, part in enumerate(path.split(".")))
            rows.append(FieldRow(f"{label} (candidate)", format_value(candidate["value"]), candidate.get("page"),
                                 candidate.get("quote"), path))
    return rows


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
