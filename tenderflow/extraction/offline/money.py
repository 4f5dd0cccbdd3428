"""The estimated value of the contract, read the way an analyst reads it.

Find a label that NAMES the value ("valor estimado del contrato", "importo a base di gara", "Estimated Bid
Value", a budget ceiling such as "should not exceed a total amount of" / "Budget maximum"), then read the amount
that follows it (same cell, the cell to the right, the cell below, the next line; only its own sentence when the
label stands inside prose). Tenders are full of other amounts that sit next to similar words: the bid security,
the tender fee, a turnover or experience threshold, insurance limits, a daily rate. Those are recognised by
NEGATIVE contexts around the label and the value, and such a candidate is dropped, not down-weighted: a wrong
value costs a bidder more than a missing one.

An amount without a currency takes the currency a label states ('Estimated cost (Rs.)', 'Currency: EUR' nearby)
or, with less confidence, the currency nearly all the document's amounts are in (currencies.py reads amounts).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.currencies import (
    CURRENCY_LABEL,
    CURRENCY_SIGN,
    MULTIPLIER,
    Amount,
    Currencies,
    amounts_in,
    token_currency,
)
from tenderflow.extraction.offline.document import Document, LabelHit, Line, Span, fold, label_regex
from tenderflow.extraction.offline.label_values import (
    HOW_SCORE,
    OWN_CELL,
    SAME_SPAN_REACH,
    in_prose,
    label_context,
    spans_after,
)
from tenderflow.extraction.offline.value_words import (
    CEILING_VALUE_LABELS,
    EU_FORM_LOT_SECTION,
    IN_MULTIPLES,
    LOT_HEADING,
    NET_VALUE_LABELS,
    STRONG_VALUE_LABELS,
    THRESHOLD_AFTER,
    VALUE_NEGATIVE,
    VAT_INCLUDED,
    WEAK_VALUE_LABELS,
)
from tenderflow.extraction.schema import Money, Sourced

_STRONG_VALUE: Final = label_regex(STRONG_VALUE_LABELS)
_NET_VALUE: Final = label_regex(NET_VALUE_LABELS)
_CEILING_VALUE: Final = label_regex(CEILING_VALUE_LABELS)
_STRONG: Final = "strong"
_NET: Final = "net"
_CEILING: Final = "ceiling"
_WEAK: Final = "weak"
_VALUE_BASE_SCORE: Final[dict[str, float]] = {_STRONG: 0.6, _NET: 0.7, _CEILING: 0.5, _WEAK: 0.4}
_WEAK_VALUE: Final = label_regex(WEAK_VALUE_LABELS)

_LABEL_CURRENCY: Final = re.compile(rf"(?<![^\W\d_]){CURRENCY_SIGN}(?![^\W\d_])")
_LABEL_CURRENCY_REACH: Final = 25
_SCALE_WORD: Final = re.compile(rf"(?<![^\W\d_]){MULTIPLIER}")
_PLACEHOLDER: Final = re.compile(
    rf"\W*(?:{CURRENCY_SIGN})?\s*(?:x+|_+|\.{{2,}}|…+|\[[^\]]*\]|-+|n/?a|tbd|\*+|0+(?:[.,]0+)?)\W*", re.IGNORECASE
)
"""A template's empty value: '$ X', '____', '……', '[insert amount]', 'N/A', '0,00'."""
_BARE_AMOUNT_CELL: Final = 30
_BARE_NUMBER: Final = re.compile(r"\s*\d{3,12}(?:[.,]\d{1,2})?\s*")
"""A table cell holding only a number ('1500000'): a value, not a year or a clause number in prose."""


def _page_or_year(value: float) -> bool:
    """A bare number a table of contents or a date column prints: a page number or a year."""
    return value < 1000 or 1900 <= value <= 2100


_VALUE_THRESHOLD: Final = 0.6
_MIN_AMOUNT: Final = 100.0
_SENTENCE_END: Final = re.compile(r"(?<=[^\W\d_]{3})[.;]\s+(?=[A-ZÀ-Ý])|;")


def estimated_value(document: Document) -> Sourced[Money] | None:
    """The estimated value of the whole procurement, read after an estimated-value label; None unless
    one amount stands out (a lot's value, a security or a fee is not it)."""
    currencies = Currencies(document)
    candidates = [
        *_value_candidates(document, document.find(_STRONG_VALUE), kind=_STRONG, currencies=currencies),
        *_value_candidates(document, document.find(_NET_VALUE), kind=_NET, currencies=currencies),
        *_value_candidates(document, document.find(_CEILING_VALUE), kind=_CEILING, currencies=currencies),
        *_value_candidates(document, document.find(_WEAK_VALUE), kind=_WEAK, currencies=currencies),
    ]
    best = choose(candidates, _VALUE_THRESHOLD)
    if best is None:
        return None
    rivals = [
        candidate for candidate in candidates
        if candidate.score >= best.score - 0.05 and not _same_amount(candidate.value, best.value)
    ]  # fmt: skip
    return None if rivals else best.sourced()


def _same_amount(first: Money, second: Money) -> bool:
    return first.currency == second.currency and abs(first.amount - second.amount) <= 0.005 * max(first.amount, 1)


def _value_candidates(
    document: Document, hits: Iterator[LabelHit], *, kind: str, currencies: Currencies
) -> Iterator[Candidate[Money]]:
    """Amounts after value labels of one kind: the nearest span with an amount, unless a negative
    context (before the label, or between it and the amount) says it is something else."""
    for hit in hits:
        context = label_context(document, hit)
        if VALUE_NEGATIVE.search(context):
            continue
        prose = in_prose(hit)
        for span in spans_after(document, hit):
            if (kind not in (_STRONG, _NET) and span.distance > 1) or (prose and span.how not in OWN_CELL):
                break
            text = span.text
            if span.how in OWN_CELL:
                text = _SENTENCE_END.split(text[:SAME_SPAN_REACH], maxsplit=1)[0]
            if span.distance == 0 and _PLACEHOLDER.fullmatch(text):
                break  # 'PRESUPUESTO OFICIAL: $ X': a template, no value
            amounts = [amount for amount in amounts_in(text, currencies) if amount.value >= _MIN_AMOUNT]
            if not amounts:
                continue
            amount = next((amount for amount in amounts if amount.currency), amounts[0])
            if VALUE_NEGATIVE.search(fold(text[: amount.start])) or THRESHOLD_AFTER.match(fold(text[amount.end :])):
                break  # a bond, a fee, a trade's share between label and amount; '5千万円以上': a threshold
            candidate = _value_candidate(document, hit, span, text, amount, kind=kind, currencies=currencies)
            if candidate is not None:
                yield candidate
                break


def _value_candidate(
    document: Document,
    hit: LabelHit,
    span: Span,
    text: str,
    amount: Amount,
    *,
    kind: str,
    currencies: Currencies,
) -> Candidate[Money] | None:
    """The candidate for `amount`, scored by label kind, place and how its currency is known; None
    when its currency is unknown or the label counts in multiples ('Rs. in lakh')."""
    score = _VALUE_BASE_SCORE[kind]
    why = [f"label {hit.label!r}", span.how]
    currency = amount.currency
    if _label_multiplier(hit) and not amount.scaled:
        return None  # 'Estimated Cost (Rs. in lakh)   45.60': the amount is not the number printed
    if currency is None and (labelled := CURRENCY_LABEL.search(span.line.text)) is not None:
        currency = currencies.resolve(token_currency(labelled["token"]))  # '1 250 000.00 Currency: EUR'
    if currency is None:
        if span.how != "same" and len(span.text) > _BARE_AMOUNT_CELL:
            return None  # a bare number inside other text below the label: an address, a count, …
        currency = _label_currency(document, hit, currencies)
        if currency is not None:
            why.append("currency from label")
        elif (
            kind == _STRONG
            and (amount.grouped or (_BARE_NUMBER.fullmatch(text) and not _page_or_year(amount.value)))
            and (currency := currencies.dominant()) is not None
        ):
            score -= 0.1
            why.append("document's currency")
        else:
            return None
    else:
        score += 0.1
    score += HOW_SCORE[span.how] - 0.05 * max(0, span.distance - 1)
    if _under_lot_heading(document, hit.line):
        score -= 0.15
        why.append("lot")
    if VAT_INCLUDED.search(fold(text[amount.end : amount.end + 40])):
        score -= 0.1
        why.append("VAT included")
    return Candidate(
        Money(amount=amount.value, currency=currency), span.page, span.quote, round(score, 3), "; ".join(why)
    )


def _label_currency(document: Document, hit: LabelHit, currencies: Currencies) -> str | None:
    """The currency a label states ('Estimated cost (Rs.)', 'Tender value in ₹', 'Importo €') or a
    'Currency: EUR' label within three lines of it."""
    cell = hit.line.cell_at(hit.start)
    after_label = hit.line.text[hit.end : cell.end if cell is not None else len(hit.line.text)]
    for token in _LABEL_CURRENCY.finditer(after_label[:_LABEL_CURRENCY_REACH]):
        if (currency := currencies.resolve(token_currency(token.group()))) is not None:
            return currency
    page = document.lines_of(hit.line.page)
    for line in page[max(0, hit.line.row - 3) : hit.line.row + 4]:
        if (labelled := CURRENCY_LABEL.search(line.text)) is not None:
            if (currency := currencies.resolve(token_currency(labelled["token"]))) is not None:
                return currency
    return None


def _label_multiplier(hit: LabelHit) -> bool:
    """Whether the label announces a unit of account: '(Rs. in lakh)', '(€ million)', "(in '000)"."""
    cell = hit.line.cell_at(hit.start)
    after_label = hit.line.folded[hit.end : cell.end if cell is not None else len(hit.line.folded)]
    reach = after_label[:_LABEL_CURRENCY_REACH]
    return IN_MULTIPLES.search(reach) is not None or _SCALE_WORD.search(reach) is not None


def _under_lot_heading(document: Document, line: Line) -> bool:
    """Whether a 'Lot 2' / 'Lote 1:' / '第1包' heading stands within the 8 lines above, or the value is in
    the lot section of an EU standard form (II.2.x, on its line or the three above): the value is a lot's."""
    page = document.lines_of(line.page)
    above = page[max(0, line.row - 8) : line.row + 1]
    if any(LOT_HEADING.match(other.folded) for other in above):
        return True
    nonblank = [other for other in above if other.text.strip()][-4:]
    return any(EU_FORM_LOT_SECTION.match(other.text) for other in nonblank)
