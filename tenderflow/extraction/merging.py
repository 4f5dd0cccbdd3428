"""Merges the answers read from consecutive chunks of one document into one set of tender fields.

A long document is read in chunks (one LLM call each), so a field may be answered by several
chunks, or by none but one. The rules, in order of the answers (= page order):

- a single-valued field takes the value citing the earliest page; on a tie, the earlier answer's;
- CPV codes are the union, by their 8 digits, in order of first appearance;
- award criteria are the union, by their name (case-, space- and hyphen-insensitive);
- lots are matched by number ("Lot 1", "1", "01" and "LOT-0001" are the same lot) and their own
  fields merged by the same rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from tenderflow.extraction.schema import (
    FIELD_PATHS,
    AwardCriterion,
    Lot,
    Sourced,
    TenderFields,
    field_value,
    fields_of,
)
from tenderflow.extraction.validation import normalize_for_matching

V = TypeVar("V")

_LOT_NUMBER_PREFIX = re.compile(r"^(?:lot|los)?(?:no|nr|n°|nº|number|nummer|numero|numéro)?[.:#]*")


def merge_answers(answers: Sequence[TenderFields]) -> TenderFields:
    """One TenderFields from the per-chunk answers, given in page order (see the module docstring)."""
    if len(answers) == 1:
        return answers[0]
    return fields_of({path: _merged(answers, path) for path in FIELD_PATHS})


def _merged(answers: Sequence[TenderFields], path: str) -> Any:
    """The answers' values at `path` as one: the lots by their number, the union of the CPV codes and of
    the award criteria, else the earliest value."""
    if path == "lots":
        return _merge_lots([lot for answer in answers for lot in answer.lots])
    values = (field_value(answer, path) for answer in answers)
    if path == "cpv_codes":
        return _cpv_union(values)
    if path == "award_criteria":
        return _criteria_union(values)
    return _earliest(values)


def lot_key(number: str) -> str:
    """What identifies a lot across chunks: 'Lot No. 01' → '1', 'LOT-0001' → '1', 'A' → 'a'."""
    compact = _LOT_NUMBER_PREFIX.sub("", normalize_for_matching(number))
    return compact.lstrip("0") or compact if compact.isdigit() else compact


def _earliest(candidates: Iterable[Sourced[V] | None]) -> Sourced[V] | None:
    present = [candidate for candidate in candidates if candidate is not None]
    # min() keeps the first of equal pages, i.e. the earlier answer's.
    return min(present, key=lambda candidate: candidate.page, default=None)


def _union(groups: Iterable[list[Sourced[V]]], key: Callable[[Sourced[V]], Any]) -> list[Sourced[V]]:
    merged: dict[Any, Sourced[V]] = {}
    for group in groups:
        for item in group:
            known = merged.get(key(item))
            if known is None or item.page < known.page:
                merged[key(item)] = item
    return list(merged.values())


def _cpv_union(groups: Iterable[list[Sourced[str]]]) -> list[Sourced[str]]:
    return _union(groups, key=lambda code: re.sub(r"\D", "", code.value)[:8] or code.value)


def _criteria_union(groups: Iterable[list[Sourced[AwardCriterion]]]) -> list[Sourced[AwardCriterion]]:
    return _union(groups, key=lambda criterion: normalize_for_matching(criterion.value.name))


def _merge_lots(lots: list[Lot]) -> list[Lot]:
    by_number: dict[str, list[Lot]] = {}
    for lot in lots:
        by_number.setdefault(lot_key(lot.number.value), []).append(lot)
    return [_merge_lot(same) for same in by_number.values()]


def _merge_lot(lots: list[Lot]) -> Lot:
    if len(lots) == 1:
        return lots[0]
    number = _earliest(lot.number for lot in lots)
    assert number is not None  # every lot has a number
    return Lot(
        number=number,
        title=_earliest(lot.title for lot in lots),
        cpv_codes=_cpv_union(lot.cpv_codes for lot in lots),
        estimated_value=_earliest(lot.estimated_value for lot in lots),
        award_criteria=_criteria_union(lot.award_criteria for lot in lots),
    )
