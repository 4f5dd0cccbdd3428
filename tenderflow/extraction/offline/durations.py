"""Contract duration: how long the contract runs, read after a contract-period label.

A number with a unit (days, weeks, months, years) after a label that names the contract's period:
'11 mois', '24 Monate', 'doce (12) meses', '36 miesięcy', 'three (3) calendar years', '90 (Days)'. Periods
that are not the contract's (offer validity, warranty, payment term, notice period) are recognised by negative
contexts and dropped. Durations written only in words, and durations derived from a start and an end date, are
not returned: validation requires the number to be printed in the quote, and neither states it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.document import Document, LabelHit, Line, fold, label_regex
from tenderflow.extraction.offline.label_values import (
    HOW_SCORE,
    OWN_CELL,
    SAME_SPAN_REACH,
    in_prose,
    label_context,
    previous_line,
    spans_after,
)
from tenderflow.extraction.offline.labelled import NUMBERING
from tenderflow.extraction.offline.value_words import (
    CJK_DURATION_UNITS,
    CONTRACT_WORD,
    DURATION_LABELS,
    DURATION_NEGATIVE,
    DURATION_UNITS,
    DURATION_UNITS_IN_LABEL,
    GENERIC_DURATION_LABELS,
    PERIOD_OF_LABELS,
)
from tenderflow.extraction.schema import ContractDuration, DurationUnit, Sourced

_DURATION_LABEL: Final = label_regex(DURATION_LABELS)
_GENERIC_DURATION_LABEL: Final = label_regex(GENERIC_DURATION_LABELS)
_PERIOD_OF: Final = label_regex(PERIOD_OF_LABELS)

_DURATION_UNITS: Final[dict[str, DurationUnit]] = {
    fold(word): unit for unit, words in (*DURATION_UNITS, *CJK_DURATION_UNITS) for word in words.split()
} | {
    " ".join(fold(phrase).split()): unit for unit, phrases in DURATION_UNITS_IN_LABEL for phrase in phrases.split(",")
}
"""Unit words, folded as the text they are matched in ('أشهر' → 'اشهر', 'días' → 'dias'), and the 'in months' of
labels ('i manader', 'kuukausina'), their words one space apart."""
_UNIT_WORD: Final = "|".join(
    sorted((re.escape(fold(word)) for _, words in DURATION_UNITS for word in words.split()), key=len, reverse=True)
)
_UNIT_IN_LABEL: Final = "|".join(
    sorted(
        (r"\s+".join(map(re.escape, fold(phrase).split())) for _, phrases in DURATION_UNITS_IN_LABEL
         for phrase in phrases.split(",")),
        key=len,
        reverse=True,
    )
)
_CJK_UNIT_WORD: Final = "|".join(
    sorted((re.escape(word) for _, words in CJK_DURATION_UNITS for word in words.split()), key=len, reverse=True)
)
_DURATION: Final = re.compile(
    r"(?<![\d.,/])(?P<number>\d{1,3}(?:,\d{3})+|\d{1,4})(?![\d.,/]\d)\)?\s*(?:\([^()\d]{1,20}\)\s*)?-?\s*"
    r"(?:(?:calendar|working|business|consecutive|clear|natural|naturales|corridos|habiles|administrativos|"
    r"naturali|consecutivi|lavorativi|solari|kalendertage|kalendarzowych|roboczych|uteis|corridos|"
    r"de calendrier|ouvres|ouvrables|calendaires|календарных|рабочих|календарних|робочих|ημερολογιακ\w*"
    r"|εργασιμ\w*|calendaristice|lucratoare|takvim|is|kalender|kerja|kalendarnich|pracovnich|kalendarnych"
    r"|pracovnych|koledarskih|delovnih|kalendarskih|radnih|naptari|munka)\s+)*"
    rf"(?:\(?(?P<unit>{_UNIT_WORD})\)?(?![^\W\d_])|(?P<cjk_unit>{_CJK_UNIT_WORD}))"
)
_DATE_AFTER: Final = re.compile(r"\s?\d{1,2}\s?[月월]")
"""'2026年3月', '令和9年7月': a year of a date, not a number of years."""
_DATE_BEFORE: Final = re.compile(r"(?:令和|平成|昭和|大正|民國|民国|[月월]|ngay|thang|nam)\s?$")
"""An era name, a month ('7月23日'), or a Vietnamese unit written before its number ('tháng 04 năm 2021'):
the number is part of a date."""
_UNIT_BEFORE_NUMBER: Final = re.compile(r"\s?\d")
"""'tháng 3', 'năm 2026': a unit followed by a number names a month or a year of a date."""
_CONTINUED_NUMBER: Final = re.compile(r"\(?\d{1,4}\s*$")
"""A line that ends with a number ('… (9'): its unit may start the next line ('tháng không liên tục)')."""
_DURATION_UNIT_FIRST: Final = re.compile(
    rf"(?<![^\W\d_])(?:(?:in|en|w|em|in de)\s+(?P<unit>{_UNIT_WORD})|(?P<label_unit>{_UNIT_IN_LABEL}))"
    r"\s*[:.)]?\s*(?P<number>\d{1,4})(?![\d.,/]\d)"
)
"""'Duration in months: 36', 'Durée en mois : 36', 'Laufzeit in Monaten: 24', 'Löptid i månader: 36', 'Kesto
kuukausina: 36' (eForms / TED forms)."""
_BARE_DURATION: Final = re.compile(r"\W*(?:[^\W\d_]{1,10}\)\W*)?(\d{1,4})\W*")
"""A number alone after its label, maybe after the label's own '(Days)': '180', '(Days) 180'."""
_LABEL_UNIT: Final = re.compile(
    rf"\s*\(?\s*(?:(?:(?:in|en|w|em)\s+)?(?P<unit>{_UNIT_WORD})|(?P<label_unit>{_UNIT_IN_LABEL}))\b"
)
"""The unit a label announces: '(Days)', 'in months', 'en mois', 'w miesiącach'."""
_AFTER_THE_CONTRACT: Final = re.compile(
    r"[^.;]{0,40}?(?:(?:following|after|beyond|from) (?:the )?(?:completion|expiry|expiration|termination|end)|"
    r"apres (?:la fin|l.achevement|l.expiration)|nach (?:ablauf|abschluss|beendigung)|"
    r"(?:despues|tras) (?:de )?(?:la )?(?:finalizacion|terminacion)|(?:dopo|dalla) (?:la )?(?:conclusione|scadenza)|"
    r"po (?:zakonczeniu|uplywie))"
)
"""A period counted from the END of the contract (records kept, access granted, a defects period):
'continues for a period of three (3) years following the completion of the Services'."""
_MAX_DAYS: Final[dict[DurationUnit, int]] = {"days": 1, "weeks": 7, "months": 30, "years": 365}
_DURATION_THRESHOLD: Final = 0.6


def contract_duration(document: Document) -> Sourced[ContractDuration] | None:
    """How long the contract runs, read after a contract-period label; None when no label gives a
    number with a unit, or when two equally good candidates disagree."""
    candidates = [
        *_duration_candidates(document, document.find(_DURATION_LABEL), kind=_NAMED),
        *_duration_candidates(document, document.find(_GENERIC_DURATION_LABEL), kind=_GENERIC),
        *_duration_candidates(document, document.find(_PERIOD_OF), kind=_PERIOD),
    ]
    best = choose(candidates, _DURATION_THRESHOLD)
    if best is None:
        return None
    best_days = _days(best.value)
    rivals = [
        candidate for candidate in candidates
        if candidate.score >= best.score - 0.05 and abs(_days(candidate.value) - best_days) > 0.1 * best_days
    ]  # fmt: skip
    return None if rivals else best.sourced()


def _days(duration: ContractDuration) -> float:
    return duration.amount * _MAX_DAYS[duration.unit]


_NAMED: Final = "named"
_GENERIC: Final = "generic"
_PERIOD: Final = "period"
_BASE_SCORE: Final[dict[str, float]] = {_NAMED: 0.65, _GENERIC: 0.55, _PERIOD: 0.55}


def _duration_candidates(
    document: Document, hits: Iterator[LabelHit], *, kind: str
) -> Iterator[Candidate[ContractDuration]]:
    """Durations after duration labels. A generic label ('Durée', 'Duration') counts only at the
    start of a line with the value on the same line; 'for a period of' only after a contract word in
    the same sentence ('The rate contract will be for a period of 2 years')."""
    for hit in hits:
        if kind == _GENERIC and not hit.at_line_start:
            continue
        context = label_context(document, hit)
        if DURATION_NEGATIVE.search(context) or _under_a_negative_heading(document, hit):
            continue
        if kind == _PERIOD and not CONTRACT_WORD.search(context):
            continue
        prose = in_prose(hit)
        for span in spans_after(document, hit, below=2):
            if (kind != _NAMED and span.distance > 0) or (prose and span.how not in OWN_CELL):
                break
            text = fold(span.text)
            if span.how in OWN_CELL:
                text = _with_next_line(document, span.line, text[:SAME_SPAN_REACH])
            duration = _duration_in(text) or _bare_duration(hit, text)
            if duration is None:
                continue
            value, position = duration
            if DURATION_NEGATIVE.search(text[:position]) or _AFTER_THE_CONTRACT.match(
                text, position + len(str(value.amount))
            ):
                break
            score = _BASE_SCORE[kind] + HOW_SCORE[span.how] - 0.05 * max(0, span.distance - 1)
            yield Candidate(value, span.page, span.quote, round(score, 3), f"label {hit.label!r}; {span.how}")
            break


def _under_a_negative_heading(document: Document, hit: LabelHit) -> bool:
    """Whether a label that opens its line sits right under a form's heading that is about something else than
    the contract's duration: F02's 'IV.2.6) Minimum time frame during which the tenderer must maintain the
    tender' over 'Duration in months: 6', the same sub-label as the contract's under 'II.2.7) Duration of the
    contract …'."""
    if not hit.at_line_start:
        return False
    above = previous_line(document, hit.line)
    if above is None or not NUMBERING.match(above.text):
        return False
    return DURATION_NEGATIVE.search(above.folded) is not None


def _bare_duration(hit: LabelHit, text: str) -> tuple[ContractDuration, int] | None:
    """A bare number after a label that carries the unit: 'Period Of Work(Days)   180'."""
    number = _BARE_DURATION.fullmatch(text)
    if number is None:
        return None
    cell = hit.line.cell_at(hit.start)
    label_rest = hit.line.folded[hit.end : cell.end if cell is not None else len(hit.line.folded)]
    unit = _LABEL_UNIT.match(label_rest)
    if unit is None:
        return None
    return _plausible(int(number[1]), _label_unit(unit), number.start(1))


def _label_unit(match: re.Match[str]) -> DurationUnit:
    """The unit of a match of _DURATION_UNIT_FIRST or _LABEL_UNIT: a unit word after 'in', or a label's own
    'in months' ('i månader', 'kuukausina')."""
    return _DURATION_UNITS[match["unit"] or " ".join(match["label_unit"].split())]


def _duration_in(text: str) -> tuple[ContractDuration, int] | None:
    """The first duration in folded `text` ('24 monate', 'doce (12) meses', 'in months: 36', '1,825일',
    '20 日历天内') and where it starts; None if there is none or it is implausible (nothing, or over 30 years).
    The numbers of a date are no duration: '令和9年7月23日', '2026년 3월', 'tháng 04 năm 2021'."""
    first = _DURATION_UNIT_FIRST.search(text)
    if first is not None:
        return _plausible(int(first["number"]), _label_unit(first), first.start())
    for match in _DURATION.finditer(text):
        unit = match["unit"] or match["cjk_unit"]
        if _DATE_BEFORE.search(text, 0, match.start()) or (
            (match["cjk_unit"] and _DATE_AFTER.match(text, match.end()))
            or (match["unit"] and _UNIT_BEFORE_NUMBER.match(text, match.end()))
        ):
            continue
        return _plausible(int(match["number"].replace(",", "")), _DURATION_UNITS[unit], match.start())
    return None


def _with_next_line(document: Document, line: Line, text: str) -> str:
    """`text` (folded, a label's own line) and, when it ends with a number, the start of the next line, where
    a sentence broken after its number goes on with the unit ('… (9' / 'tháng không liên tục)')."""
    if not _CONTINUED_NUMBER.search(text):
        return text
    following = document.next_lines(line, 1)
    return f"{text} {following[0].folded.strip()[:_NEXT_LINE_REACH]}" if following else text


_NEXT_LINE_REACH: Final = 20


def _plausible(amount: int, unit: DurationUnit, position: int) -> tuple[ContractDuration, int] | None:
    """The duration if it is one a contract can have (more than nothing, at most 30 years)."""
    if not 0 < amount * _MAX_DAYS[unit] <= 365 * 30:
        return None
    return ContractDuration(amount=amount, unit=unit), position
