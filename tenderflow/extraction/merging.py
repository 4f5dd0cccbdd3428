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

from tenderflow.extraction.schema import AwardCriterion, Buyer, Lot, Sourced, TenderFields
from tenderflow.extraction.validation import normalize_for_matching

V = TypeVar("V")

_LOT_NUMBER_PREFIX = re.compile(r"^(?:lot|los)?(?:no|nr|n°|nº|number|nummer|numero|numéro)?[.:#]*")


def merge_answers(answers: Sequence[TenderFields]) -> TenderFields:
    """One TenderFields from the per-chunk answers, given in page order (see the module docstring)."""
    if len(answers) == 1:
        return answers[0]
    return TenderFields(
        buyer=Buyer(
            name=_earliest(answer.buyer.name for answer in answers),
            country=_earliest(answer.buyer.country for answer in answers),
            email=_earliest(answer.buyer.email for answer in answers),
            phone=_earliest(answer.buyer.phone for answer in answers),
            address=_earliest(answer.buyer.address for answer in answers),
        ),
        title=_earliest(answer.title for answer in answers),
        reference_number=_earliest(answer.reference_number for answer in answers),
        notice_type=_earliest(answer.notice_type for answer in answers),
        procedure_type=_earliest(answer.procedure_type for answer in answers),
        main_category=_earliest(answer.main_category for answer in answers),
        cpv_codes=_cpv_union(answer.cpv_codes for answer in answers),
        estimated_value=_earliest(answer.estimated_value for answer in answers),
        submission_deadline=_earliest(answer.submission_deadline for answer in answers),
        questions_deadline=_earliest(answer.questions_deadline for answer in answers),
        place_of_performance=_earliest(answer.place_of_performance for answer in answers),
        contract_duration=_earliest(answer.contract_duration for answer in answers),
        award_criteria=_criteria_union(answer.award_criteria for answer in answers),
        lots=_merge_lots([lot for answer in answers for lot in answer.lots]),
        submission_url=_earliest(answer.submission_url for answer in answers),
    )


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
