"""Dates and amounts of money as TED/eForms notices and national portals print them (English, German,
French): the typed parsers of the label reader (tenderflow.extraction.rules), and `fold`, the form
its words are matched in.

    parse_date('15. März 2026, 12:00 Uhr') -> '2026-03-15T12:00'
    parse_money('1,5 Mio. EUR')            -> Money(amount=1500000.0, currency='EUR')
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from typing import Final

from tenderflow.extraction.amounts import MULTIPLIER, NUMBER, parse_number
from tenderflow.extraction.codelists import CURRENCY_CODES
from tenderflow.extraction.schema import Money


def fold(text: str) -> str:
    """Lower-case text without accents ('März' → 'marz', 'Février' → 'fevrier'), for word matching."""
    decomposed = unicodedata.normalize("NFKD", text.replace("ß", "ss"))
    return "".join(character for character in decomposed if not unicodedata.combining(character)).casefold()


_MONTHS: Final = {
    # English
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
    # German (folded: März → marz, Jänner → janner)
    "januar": 1, "janner": 1, "februar": 2, "feber": 2, "marz": 3, "maerz": 3, "mai": 5, "juni": 6,
    "juli": 7, "oktober": 10, "okt": 10, "dezember": 12, "dez": 12,
    # French (folded: février → fevrier, août → aout)
    "janvier": 1, "janv": 1, "fevrier": 2, "fevr": 2, "fev": 2, "mars": 3, "avril": 4, "avr": 4,
    "juin": 6, "juillet": 7, "juil": 7, "aout": 8, "septembre": 9, "octobre": 10, "novembre": 11,
    "decembre": 12,
}  # fmt: skip
_MONTH: Final = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_PATTERNS: Final = (
    ("ymd", re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")),
    ("dmy", re.compile(r"(?<![\d.])(\d{1,2})\s?[./-]\s?(\d{1,2})\s?[./-]\s?(\d{4}|\d{2})(?![\d])")),
    (
        "d_month_y",
        re.compile(
            rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th|er)?\.?\s*(?:of\s+)?({_MONTH})(?![^\W\d_])\.?,?\s*(\d{{4}})(?!\d)"
        ),
    ),
    ("month_d_y", re.compile(rf"\b({_MONTH})(?![^\W\d_])\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d)")),
)
# A time right after a date: 12:00, 12h00, 10.00 Uhr, 10 Uhr, 2 pm. A '.' separator is accepted only
# when no digit or dot follows, so the next date ("20.03.2026") is never read as a time.
_TIME: Final = re.compile(
    r"(?<![\d.,])([01]?\d|2[0-3])(?:\s?(?:[:h]|\.(?![\d.]{3}))\s?([0-5]\d)(?!\d|\.\d))?\s?(uhr|h\b|am\b|pm\b)?"
)
_TIME_WINDOW_CHARS: Final = 40


def parse_date(text: str) -> str | None:
    """The first date in `text` as ISO 8601 ('2026-03-15', or '2026-03-15T12:00' with a time).

    Reads 2026-03-15, 15.03.2026, 15/03/2026 (03/15/2026 when the middle number cannot be a
    month), 15 March 2026, 15 mars 2026, 15. März 2026, March 15, 2026, each with an optional time.
    """
    folded = fold(text)
    found: list[tuple[int, int, date]] = []
    for kind, pattern in _DATE_PATTERNS:
        for match in pattern.finditer(folded):
            parsed = _date_from(kind, match.groups())
            if parsed is not None:
                found.append((match.start(), match.end(), parsed))
                break
    if not found:
        return None
    _, end, day = min(found, key=lambda candidate: candidate[0])
    window = folded[end : end + _TIME_WINDOW_CHARS]
    next_date = min((m.start() for _, p in _DATE_PATTERNS if (m := p.search(window))), default=len(window))
    time = _time_from(window[:next_date])
    return f"{day.isoformat()}T{time}" if time else day.isoformat()


def _date_from(kind: str, groups: tuple[str, ...]) -> date | None:
    if kind == "ymd":
        year, month, day = (int(group) for group in groups)
    elif kind == "dmy":
        day, month, year = (int(group) for group in groups)
        if month > 12 >= day:  # 03/15/2026: the US order
            day, month = month, day
    elif kind == "d_month_y":
        day, month, year = int(groups[0]), _MONTHS[groups[1]], int(groups[2])
    else:
        month, day, year = _MONTHS[groups[0]], int(groups[1]), int(groups[2])
    if year < 100:
        year += 2000
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _time_from(window: str) -> str | None:
    for match in _TIME.finditer(window):
        hour_text, minute_text, suffix = match.groups()
        if minute_text is None and suffix is None:
            continue
        hour, minute = int(hour_text), int(minute_text or 0)
        if suffix == "pm" and hour < 12:
            hour += 12
        elif suffix == "am" and hour == 12:
            hour = 0
        return f"{hour:02d}:{minute:02d}"
    return None


_CURRENCY_SYMBOLS: Final = {"€": "EUR", "£": "GBP", "$": "USD", "Fr.": "CHF", "SFr.": "CHF", "Euro": "EUR"}
_CURRENCY: Final = r"(?:SFr\.|Fr\.|€|£|\$|(?i:euros?)(?![^\W\d_])|[A-Z]{3}(?![^\W\d_]))"
_MONEY: Final = re.compile(
    rf"(?P<before>{_CURRENCY})?\s?(?<![\d.,])(?P<number>{NUMBER})(?![\d])"
    rf"(?:\s?(?P<multiplier>{MULTIPLIER})\.?)?(?:,-)?\s?(?P<after>{_CURRENCY})?"
)
_CURRENCY_LABEL: Final = re.compile(r"(?i:currency|w[aä]hrung|monnaie|devise)\s*[:.]?\s*(?P<code>[A-Z]{3})\b")


def parse_money(text: str) -> Money | None:
    """The first amount with a currency in `text`: 'EUR 1 250 000,00', '1.250.000 EUR', '€1,250,000',
    "CHF 450'000", '1,5 Mio. EUR', or '1 250 000.00 … Currency: EUR' (TED's layout)."""
    uncurrencied: float | None = None
    position = 0
    while (match := _MONEY.search(text, position)) is not None:
        position = match.end()
        amount = parse_number(match["number"], match["multiplier"])
        before, after = _currency(match["before"]), _currency(match["after"])
        if after and not before and re.match(r"\s?\d", text[match.end() :]):
            position = match.start("after")  # "Lot 2 EUR 450 000": EUR belongs to the next number
            continue
        currency = before or after
        if currency:
            return Money(amount=amount, currency=currency)
        if uncurrencied is None and amount >= 1:
            uncurrencied = amount
    labelled = _CURRENCY_LABEL.search(text)
    if uncurrencied is not None and labelled and labelled["code"] in CURRENCY_CODES:
        return Money(amount=uncurrencied, currency=labelled["code"])
    return None


def _currency(token: str | None) -> str | None:
    if token is None:
        return None
    if token in _CURRENCY_SYMBOLS:
        return _CURRENCY_SYMBOLS[token]
    if token.casefold().startswith("euro"):
        return "EUR"
    return token if token in CURRENCY_CODES else None
