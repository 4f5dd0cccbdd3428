"""The offline extractor: reads tender fields the way an analyst does, without any model or network.

    document   = Document.of(pages)                       lines, cells, geometry (document.py)
    candidates = each field module proposes typed values with a score (dates, money, contacts,
                 identity, codes), using multilingual label lexicons, typed parsers and negative
                 contexts ("bid security" is not the estimated value, "bid opening" not the deadline)
    fields     = the best candidate per field when it is confident enough, else nothing (abstention)

Lots, award criteria and the buyer's country still come from the TED/eForms label reader in
rules.py, which knows those notice sections.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tenderflow.extraction.backend import BackendReading, Interrupt, PageLike, Usage
from tenderflow.extraction.offline import codes, contacts, dates, durations, identity, money
from tenderflow.extraction.offline.candidates import Reading, reading_field, recording
from tenderflow.extraction.offline.document import Document
from tenderflow.extraction.rules import RulesBackend
from tenderflow.extraction.schema import Sourced, TenderFields, fields_of

__all__ = ["Document", "OfflineBackend"]

FIELD_READERS: dict[str, Callable[[Document], Any]] = {
    "buyer.name": contacts.buyer_name,
    "buyer.email": contacts.buyer_email,
    "buyer.phone": contacts.buyer_phone,
    "buyer.address": contacts.buyer_address,
    "title": identity.title,
    "reference_number": identity.reference_number,
    "notice_type": codes.notice_type,
    "procedure_type": codes.procedure_type,
    "main_category": codes.main_category,
    "cpv_codes": codes.cpv_codes,
    "estimated_value": money.estimated_value,
    "submission_deadline": dates.submission_deadline,
    "questions_deadline": dates.questions_deadline,
    "place_of_performance": identity.place_of_performance,
    "contract_duration": durations.contract_duration,
    "submission_url": contacts.submission_url,
}
"""Each field's reader, by the field's path: what `read` runs, in this order."""


class OfflineBackend:
    """The default backend when no LLM is configured: offline, free, deterministic."""

    name = "rules"

    unsure_below = 0.7
    """A value returned with less confidence than this is one a second reader (an LLM, a person) should
    check: hybrid extraction asks the model about it."""

    def extract(self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None) -> tuple[TenderFields, Usage]:
        reading = self.read(pages, interrupt=interrupt)
        return reading.fields, reading.usage

    def read(self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None) -> BackendReading:
        """The fields, each value's confidence (its candidate's score, at most 1) and the rule it came
        from, and for fields left empty the best candidate that stayed below its threshold."""
        document = Document.of(pages)
        notice, _ = RulesBackend().extract(pages)
        values: dict[str, Any] = {}
        with recording() as reading:
            for path, reader in FIELD_READERS.items():
                with reading_field(path):
                    values[path] = reader(document)
        fields = fields_of({**values, "buyer.country": notice.buyer.country, "award_criteria": notice.award_criteria,
                            "lots": notice.lots})
        confidence, rules = _provenance(values, reading)
        candidates = {path: unsure.sourced() for path, (_, unsure) in reading.unsure.items() if not values.get(path)}
        return BackendReading(fields, Usage(model=None, calls=0), confidence, rules, candidates)


def _provenance(values: dict[str, Any], reading: Reading) -> tuple[dict[str, float], dict[str, str]]:
    confidence: dict[str, float] = {}
    rules: dict[str, str] = {}
    for path, value in values.items():
        first = value[0] if isinstance(value, list) and value else value
        if not isinstance(first, Sourced):
            continue
        candidate = reading.candidate_of(path, first)
        confidence[path] = min(1.0, candidate.score) if candidate is not None else 1.0
        rules[path] = candidate.rule if candidate is not None else "unrecorded"
    return confidence, rules
