"""Reads an LLM's answer text into tender fields: JSON repaired when it is close, leaves that do not
fit the schema dropped one by one, the rest kept.

    parse_answer(text)  ->  (TenderFields, notes)      or AnswerUnreadableError

A server that enforces the schema (structured outputs, a grammar) answers JSON of the right shape,
and this is a plain `model_validate`. One that only asked for JSON in the prompt, or a small model,
answers in a code fence, with prose around it, cut off at the token limit, or with a leaf of the
wrong shape. `json_repair` mends the syntax (no value is invented: it closes what was left open and
drops what is not JSON); then every leaf that does not fit the schema is removed where it stands
(a field set back to null, a list item taken out, a lot whose number does not fit dropped whole), so
one bad leaf does not throw away the rest. What was removed is said in the notes. The values kept
are then grounded like every backend's (validation.py): repair never makes a value pass that check.

An answer that is not a JSON object at all, even repaired, is unreadable: the caller asks again
once, then gives up (ExtractionSchemaError).
"""

from __future__ import annotations

import json
from typing import Any, Final

import json_repair
from pydantic import ValidationError

from tenderflow.extraction.schema import TenderFields

_PREVIEW_CHARS: Final = 200
# A leaf is dropped per round; the schema has a few dozen leaves, and a bound keeps a pathological
# answer (thousands of bad list items) from costing seconds.
_MAX_DROPS: Final = 200

_LIST_FIELDS: Final = frozenset({"cpv_codes", "award_criteria"})
_LOT_LIST_FIELDS: Final = frozenset({"cpv_codes", "award_criteria"})


class AnswerUnreadableError(ValueError):
    """The answer is not a JSON object, even after repair."""


def parse_answer(text: str, *, truncated: bool = False) -> tuple[TenderFields, list[str]]:
    """The fields the answer holds and notes on what was repaired or dropped (see the module doc).
    `truncated`: the answer was cut off at the output token limit, so the value it was writing
    when cut is dropped too (a name cut in two would still stand in its quote). Raises
    AnswerUnreadableError when no JSON object can be read from it."""
    notes: list[str] = []
    try:
        raw: Any = json.loads(text)
    except json.JSONDecodeError:
        raw = json_repair.loads(text)
        if isinstance(raw, dict) and raw and not truncated:
            notes.append("the LLM answer was not valid JSON; its syntax was repaired")
    if not isinstance(raw, dict):
        preview = json.dumps(text[:_PREVIEW_CHARS], ensure_ascii=False)
        raise AnswerUnreadableError(f"the answer is not a JSON object (it began {preview})")
    if truncated:
        cut = _drop_last(raw)
        dropped = f" ({cut}, being written when it was cut, was dropped)" if cut else ""
        notes.append(f"the LLM answer was cut off at the output token limit; the values it held before the cut "
                     f"were kept{dropped}")
    for _ in range(_MAX_DROPS):
        try:
            return TenderFields.model_validate(raw), notes
        except ValidationError as error:
            detail = error.errors()[0]
            unit = _drop(raw, tuple(detail["loc"]))
            if unit is None:
                raise AnswerUnreadableError(f"the answer does not fit the tender schema: {detail['msg']}") from error
            notes.append(f"{unit}: dropped from the LLM answer, it did not fit the schema ({detail['msg']})")
    raise AnswerUnreadableError(f"the answer has more than {_MAX_DROPS} leaves that do not fit the schema")


def _drop_last(raw: dict[str, Any]) -> str | None:
    """Removes the leaf written last (the one an answer cut off was writing) and names it."""
    if not raw:
        return None
    name = next(reversed(raw))
    node = raw[name]
    if isinstance(node, list) and node:
        node.pop()
        return f"{name}[{len(node)}]"
    if name == "buyer" and isinstance(node, dict) and node:
        inner = next(reversed(node))
        node.pop(inner)
        return f"buyer.{inner}"
    raw.pop(name)
    return name


def _drop(raw: dict[str, Any], loc: tuple[str | int, ...]) -> str | None:
    """Removes the smallest unit of `raw` that holds the error at `loc` and names it; None when
    there is none to remove (the error is at the root)."""
    if not loc:
        return None
    head = str(loc[0])
    if head == "buyer" and len(loc) >= 2 and isinstance(raw.get("buyer"), dict):
        raw["buyer"].pop(loc[1], None)
        return f"buyer.{loc[1]}"
    if head in _LIST_FIELDS and len(loc) >= 2 and isinstance(loc[1], int) and isinstance(raw.get(head), list):
        del raw[head][loc[1]]
        return f"{head}[{loc[1]}]"
    if head == "lots" and len(loc) >= 2 and isinstance(loc[1], int) and isinstance(raw.get("lots"), list):
        lot = raw["lots"][loc[1]]
        inner = _drop_in_lot(lot, loc[2:]) if isinstance(lot, dict) else None
        if inner is not None:
            return f"lots[{loc[1]}].{inner}"
        del raw["lots"][loc[1]]
        return f"lots[{loc[1]}]"
    raw.pop(head, None)
    return head


def _drop_in_lot(lot: dict[str, Any], loc: tuple[str | int, ...]) -> str | None:
    """Inside a lot: a leaf other than its number (which names the lot) is dropped alone, and so is a
    key the schema does not have."""
    if not loc or loc[0] == "number":
        return None
    name = str(loc[0])
    if name in _LOT_LIST_FIELDS and len(loc) >= 2 and isinstance(loc[1], int) and isinstance(lot.get(name), list):
        del lot[name][loc[1]]
        return f"{name}[{loc[1]}]"
    lot.pop(name, None)
    return name
