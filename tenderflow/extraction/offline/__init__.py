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

from collections.abc import Sequence

from tenderflow.extraction.backend import Interrupt, PageLike, Usage
from tenderflow.extraction.offline import codes, contacts, dates, identity, money
from tenderflow.extraction.offline.document import Document
from tenderflow.extraction.rules import RulesBackend
from tenderflow.extraction.schema import Buyer, TenderFields

__all__ = ["Document", "OfflineBackend"]


class OfflineBackend:
    """The default backend when no LLM is configured: offline, free, deterministic."""

    name = "rules"

    def extract(self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None) -> tuple[TenderFields, Usage]:
        document = Document.of(pages)
        notice, _ = RulesBackend().extract(pages)
        fields = TenderFields(
            buyer=Buyer(
                name=contacts.buyer_name(document),
                email=contacts.buyer_email(document),
                phone=contacts.buyer_phone(document),
                address=contacts.buyer_address(document),
                country=notice.buyer.country,
            ),
            title=identity.title(document),
            reference_number=identity.reference_number(document),
            notice_type=codes.notice_type(document),
            procedure_type=codes.procedure_type(document),
            main_category=codes.main_category(document),
            cpv_codes=codes.cpv_codes(document),
            estimated_value=money.estimated_value(document),
            submission_deadline=dates.submission_deadline(document),
            questions_deadline=dates.questions_deadline(document),
            place_of_performance=identity.place_of_performance(document),
            contract_duration=money.contract_duration(document),
            award_criteria=notice.award_criteria,
            lots=notice.lots,
            submission_url=contacts.submission_url(document),
        )
        return fields, Usage(model=None, calls=0)
