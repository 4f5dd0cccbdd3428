"""Answer keys: what a tender document states, field by field, written by a person who read it.

The format (also in docs/evaluation.md): a JSON object whose keys are PDF file names; keys that
start with "_" (`_conventions`, `_notes`) are comments. Each document maps a field name to

- ``null``: the document does not state it; any value returned for it is *spurious*;
- ``{"value": …, "page": N, "quote": "…", "alt": [...], "optional": true}``: the expected value, the
  1-based page and verbatim quote it stands on (documentation for the reader; scoring uses the
  value), other acceptable values, and whether an analyst could make the call either way
  (a match counts, a different value is wrong, absence is no miss).

A field a document's entry leaves out is not scored for that document, so a key may cover a few
fields. Values: strings for names, codes and ISO 8601 dates; ``{"amount", "currency"}`` for
estimated_value; ``{"amount", "unit"}`` for contract_duration; a list of strings for cpv_codes.

`load_key` checks all of it before anything runs and raises KeyFileError naming the file, the
document and the field at fault.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Final

from tenderflow.errors import TenderflowError

FIELDS: Final = (
    "buyer.name", "buyer.email", "buyer.phone", "buyer.address", "title", "reference_number",
    "notice_type", "procedure_type", "main_category", "cpv_codes", "estimated_value",
    "submission_deadline", "questions_deadline", "place_of_performance", "contract_duration",
    "submission_url",
)  # fmt: skip
"""The scored fields, named as in TenderFields (buyer's fields with a dot)."""

_ENTRY_KEYS: Final = frozenset({"value", "page", "quote", "alt", "optional"})


class KeyFileError(TenderflowError):
    """The answer key cannot be used: not JSON, not the documented shape, an unknown field, a
    document that is not in the PDF folder. The message names the problem and where it is."""

    http_status: ClassVar[int] = 400


@dataclass(frozen=True)
class Expected:
    """What the key says of one field of one document; ``values`` is None when the document does not
    state it, else the value first and then its alternatives."""

    values: tuple[Any, ...] | None
    optional: bool = False
    page: int | None = None
    quote: str | None = None

    @property
    def required(self) -> bool:
        return self.values is not None and not self.optional


@dataclass(frozen=True)
class KeyDocument:
    name: str
    pdf: Path
    fields: dict[str, Expected] = field(default_factory=dict)
    notes: str | None = None


def load_key(path: Path, pdf_dir: Path | None = None, only: Collection[str] = ()) -> list[KeyDocument]:
    """The documents of the key at `path` (only those named in `only`, when given), each with its PDF
    found in `pdf_dir` (default: the key's folder). Raises KeyFileError for anything that would make
    a score wrong or impossible: the whole key is checked, but only the PDFs of the documents
    scored need be there."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise KeyFileError(f"{path}: no such answer key") from error
    except (OSError, UnicodeDecodeError) as error:
        raise KeyFileError(f"{path}: cannot be read ({error})") from error
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise KeyFileError(f"{path}: not valid JSON ({where}: {error.msg})") from error
    if not isinstance(raw, dict):
        raise KeyFileError(f"{path}: an answer key is a JSON object of file name -> fields, not {type(raw).__name__}")
    folder = pdf_dir if pdf_dir is not None else path.parent
    if not folder.is_dir():
        raise KeyFileError(f"{folder}: the PDF folder does not exist")
    documents: list[KeyDocument] = []
    missing: list[str] = []
    for name, entry in raw.items():
        if name.startswith("_"):
            continue
        where = f"{path}: document {name!r}"
        if not isinstance(entry, dict):
            raise KeyFileError(f"{where}: expected an object of field -> value, got {type(entry).__name__}")
        pdf = folder / name
        if "/" in name or "\\" in name or name in ("", ".", ".."):
            raise KeyFileError(f"{where}: a document is named by its file name in the PDF folder")
        if not pdf.is_file() and (not only or name in only):
            missing.append(name)
        fields: dict[str, Expected] = {}
        notes = entry.get("_notes")
        for field_name, value in entry.items():
            if field_name.startswith("_"):
                continue
            if field_name not in FIELDS:
                raise KeyFileError(f"{where}: unknown field {field_name!r}; the fields are: {', '.join(FIELDS)}")
            fields[field_name] = _expected(value, f"{where}, field {field_name!r}", field_name)
        documents.append(KeyDocument(name, pdf, fields, notes if isinstance(notes, str) else None))
    if only:
        unknown = sorted(set(only) - {document.name for document in documents})
        if unknown:
            raise KeyFileError(f"{path}: no document named {', '.join(unknown)} in the key")
        documents = [document for document in documents if document.name in only]
    if missing:
        raise KeyFileError(f"{path}: no PDF in {folder} for {', '.join(sorted(missing))}")
    if not documents:
        raise KeyFileError(f"{path}: the key names no document")
    return documents


def _expected(value: Any, where: str, field_name: str) -> Expected:
    if value is None:
        return Expected(values=None)
    if not isinstance(value, dict) or "value" not in value:
        raise KeyFileError(f"{where}: expected null or an object with a \"value\"")
    unknown = set(value) - _ENTRY_KEYS
    if unknown:
        raise KeyFileError(f"{where}: unknown entry key(s) {sorted(unknown)}; allowed: {sorted(_ENTRY_KEYS)}")
    alternatives = value.get("alt") or []
    if not isinstance(alternatives, list):
        raise KeyFileError(f"{where}: \"alt\" must be a list of acceptable values")
    values = (value["value"], *alternatives)
    for candidate in values:
        problem = _shape_problem(field_name, candidate)
        if problem:
            raise KeyFileError(f"{where}: {problem}")
    page = value.get("page")
    if page is not None and (not isinstance(page, int) or isinstance(page, bool) or page < 1):
        raise KeyFileError(f"{where}: \"page\" must be a 1-based page number or null")
    quote = value.get("quote")
    if quote is not None and not isinstance(quote, str):
        raise KeyFileError(f"{where}: \"quote\" must be text or null")
    optional = value.get("optional", False)
    if not isinstance(optional, bool):
        raise KeyFileError(f"{where}: \"optional\" must be true or false")
    return Expected(values=values, optional=optional, page=page, quote=quote)


def _shape_problem(field_name: str, value: Any) -> str | None:
    if field_name == "cpv_codes":
        if not isinstance(value, list) or not value or not all(isinstance(code, str) for code in value):
            return "cpv_codes values are non-empty lists of code strings"
    elif field_name == "estimated_value":
        if not isinstance(value, dict) or not isinstance(value.get("amount"), int | float):
            return "estimated_value values are {\"amount\": number, \"currency\": code}"
    elif field_name == "contract_duration":
        if (not isinstance(value, dict) or not isinstance(value.get("amount"), int | float)
                or value.get("unit") not in ("days", "weeks", "months", "years")):
            return "contract_duration values are {\"amount\": number, \"unit\": days|weeks|months|years}"
    elif not isinstance(value, str) or not value.strip():
        return f"{field_name} values are non-empty strings"
    return None
