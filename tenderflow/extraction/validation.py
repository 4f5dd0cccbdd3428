"""Checks every extracted value against the document and against closed code lists; drops what fails.

Applied after ANY backend, because neither an LLM nor a regex is trusted to be right:

- provenance: the cited page exists and the quote is on it (compared case-, whitespace- and
  hyphenation-insensitively, since OCR text breaks lines and words where the answer does not);
- grounding: a verbatim value (a name, a reference, an e-mail) appears inside its own quote (in a
  quote that spans layout columns, its words in order, see _words_in_order); an
  amount, weight or duration is one of the numbers the quote states ('EUR 1 250 000,00' states
  1250000.0, '1,5 Mio.' 1500000.0, '1億2千万円' 120000000.0); a date's day and year are among the
  quote's digits (of any script), its year maybe written in an era ('令和8年') or the Buddhist era
  ('พ.ศ. 2569'), or the quote writes the day as an Umm al-Qura Hijri date or in Chinese numerals;
- content: deadlines parse as ISO 8601, currencies are ISO 4217, countries ISO 3166-1 alpha-2 (the EU
  abbreviations EL and UK are rewritten to GR and GB), CPV codes are NNNNNNNN or NNNNNNNN-N.

A value that fails is dropped and a human-readable flag says which and why. A lot whose number
fails is dropped with its contents, since they can no longer be attributed.

CPV check digit: the CPV regulation (EC 213/2008) says the ninth digit "serves to verify the previous
digits" but publishes no algorithm. Checked against a few hundred codes of the published list, the
digit is (3, 7, 1, 3, 7, 1, 3, 7) · digits mod 10 for most codes, but the list itself breaks that
rule for whole branches (72212100-0, 72400000-4, 38941000-7, …, codes buyers really use). A mismatch is
therefore FLAGGED, not dropped: it still catches an OCR-garbled digit for a reviewer without deleting
correct codes. A malformed code is dropped.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from datetime import date
from typing import Final, TypeVar

from tenderflow.extraction.amounts import states_number
from tenderflow.extraction.backend import PageLike
from tenderflow.extraction.calendars import ascii_digits, calendar_years, hijri_days, kanji_days
from tenderflow.extraction.codelists import COUNTRY_CODE_ALIASES, COUNTRY_CODES, CURRENCY_CODES
from tenderflow.extraction.schema import (
    AwardCriterion,
    Buyer,
    ContractDuration,
    Lot,
    Money,
    Sourced,
    TenderFields,
    parse_iso_datetime,
)

V = TypeVar("V")

_CPV_WEIGHTS = (3, 7, 1, 3, 7, 1, 3, 7)
_CPV_FORMAT = re.compile(r"(\d{8})(?:\s*-\s*(\d))?")
_MATCH_IGNORED = re.compile(r"[\s\-\u00ad\u2010\u2011\u2012\u2013\u2014\u2212_]+")
_QUOTE_CHARACTERS = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u00ab": '"',
        "\u00bb": '"',
    }
)
_QUOTE_PREVIEW_CHARS = 60
_WORD = re.compile(r"\w+")
_COLUMN_GAP = re.compile(r"\s{4,}|\t")


def normalize_for_matching(text: str) -> str:
    """Text reduced to what survives OCR: NFKC, case-folded, straight quotes, no whitespace, no hyphens.

    Dropping all whitespace and hyphens makes "Ver-\\ngabe" (hyphenated at a line break), "Vergabe"
    and "Baden-\\nWürttemberg" vs "Baden-Württemberg" compare equal. It also makes "a b" equal "ab",
    which costs nothing for quotes of a line's length.
    """
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_QUOTE_CHARACTERS)
    return _MATCH_IGNORED.sub("", folded)


def cpv_check_digit(code: str) -> int:
    """The check digit the (3, 7, 1, …) mod 10 rule gives for the 8-digit CPV code (see module doc)."""
    if len(code) != 8 or not code.isdigit():
        raise ValueError(f"a CPV code has 8 digits, not {code!r}")
    return sum(int(digit) * weight for digit, weight in zip(code, _CPV_WEIGHTS, strict=True)) % 10


def normalize_cpv_code(text: str) -> str | None:
    """The code as NNNNNNNN-N or NNNNNNNN ('45000000 - 7' → '45000000-7'); None if malformed."""
    match = _CPV_FORMAT.fullmatch(text.strip())
    if match is None:
        return None
    digits, check = match.groups()
    return f"{digits}-{check}" if check is not None else digits


def normalize_country_code(text: str) -> str | None:
    """The ISO 3166-1 alpha-2 code for 'de', 'DE', 'EL' (→ GR), 'UK' (→ GB); None if not a code."""
    code = text.strip().upper()
    code = COUNTRY_CODE_ALIASES.get(code, code)
    return code if code in COUNTRY_CODES else None


def validate_fields(fields: TenderFields, pages: Sequence[PageLike]) -> tuple[TenderFields, list[str]]:
    """The fields with every value that fails a check removed, and one flag per removal or doubt."""
    validator = _Validator(pages)
    return validator.tender(fields), validator.flags


class _Validator:
    def __init__(self, pages: Sequence[PageLike]) -> None:
        self._texts = {page.number: page.text for page in pages}
        self._normalized: dict[int, str] = {}  # pages a quote cites, normalized on first use
        self.flags: list[str] = []

    def _page_text(self, number: int) -> str | None:
        if number not in self._normalized and number in self._texts:
            self._normalized[number] = normalize_for_matching(self._texts[number])
        return self._normalized.get(number)

    # --- the model, top-down ---------------------------------------------------------------------

    def tender(self, fields: TenderFields) -> TenderFields:
        return fields.model_copy(
            update={
                "buyer": self.buyer(fields.buyer),
                "title": self.text("title", fields.title),
                "reference_number": self.text("reference_number", fields.reference_number),
                "notice_type": self.leaf("notice_type", fields.notice_type, _accept),
                "procedure_type": self.leaf("procedure_type", fields.procedure_type, _accept),
                "main_category": self.leaf("main_category", fields.main_category, _accept),
                "cpv_codes": self.cpv_codes("cpv_codes", fields.cpv_codes),
                "estimated_value": self.leaf("estimated_value", fields.estimated_value, _check_money),
                "submission_deadline": self.leaf("submission_deadline", fields.submission_deadline, _check_date),
                "questions_deadline": self.leaf("questions_deadline", fields.questions_deadline, _check_date),
                "place_of_performance": self.text("place_of_performance", fields.place_of_performance),
                "contract_duration": self.leaf("contract_duration", fields.contract_duration, _check_duration),
                "award_criteria": self.criteria("award_criteria", fields.award_criteria),
                "lots": [
                    checked
                    for index, lot in enumerate(fields.lots)
                    if (checked := self.lot(f"lots[{index}]", lot)) is not None
                ],
                "submission_url": self.text("submission_url", fields.submission_url),
            }
        )

    def buyer(self, buyer: Buyer) -> Buyer:
        return buyer.model_copy(
            update={
                "name": self.text("buyer.name", buyer.name),
                "country": self.leaf("buyer.country", buyer.country, _check_country),
                "email": self.leaf("buyer.email", buyer.email, _check_email),
                "phone": self.text("buyer.phone", buyer.phone),
                "address": self.text("buyer.address", buyer.address),
            }
        )

    def lot(self, path: str, lot: Lot) -> Lot | None:
        number = self.text(f"{path}.number", lot.number)
        if number is None:
            self.flags.append(f"{path}: lot dropped with its contents, its number did not validate")
            return None
        return lot.model_copy(
            update={
                "number": number,
                "title": self.text(f"{path}.title", lot.title),
                "cpv_codes": self.cpv_codes(f"{path}.cpv_codes", lot.cpv_codes),
                "estimated_value": self.leaf(f"{path}.estimated_value", lot.estimated_value, _check_money),
                "award_criteria": self.criteria(f"{path}.award_criteria", lot.award_criteria),
            }
        )

    def cpv_codes(self, path: str, codes: list[Sourced[str]]) -> list[Sourced[str]]:
        kept: list[Sourced[str]] = []
        seen: set[str] = set()
        for index, code in enumerate(codes):
            checked = self.leaf(f"{path}[{index}]", code, _check_cpv)
            if checked is not None and checked.value[:8] not in seen:
                seen.add(checked.value[:8])
                kept.append(checked)
        return kept

    def criteria(self, path: str, criteria: list[Sourced[AwardCriterion]]) -> list[Sourced[AwardCriterion]]:
        return [
            checked
            for index, criterion in enumerate(criteria)
            if (checked := self.leaf(f"{path}[{index}]", criterion, _check_criterion)) is not None
        ]

    # --- one leaf --------------------------------------------------------------------------------

    def text(self, path: str, sourced: Sourced[str] | None) -> Sourced[str] | None:
        """A verbatim value: it must appear inside its own quote."""
        return self.leaf(path, sourced, _check_verbatim)

    def leaf(
        self,
        path: str,
        sourced: Sourced[V] | None,
        check: Callable[[V, str], tuple[V | None, str | None]],
    ) -> Sourced[V] | None:
        """The leaf if its provenance holds and `check(value, quote)` accepts it, else None + a flag.

        `check` returns (value to keep or None, note): a None value drops the leaf with the note as
        the reason; a kept value with a note keeps the (possibly normalized) value and flags it.
        """
        if sourced is None:
            return None
        page_text = self._page_text(sourced.page)
        quote = normalize_for_matching(sourced.quote)
        if page_text is None:
            reason = f"cites page {sourced.page}, which the document does not have"
        elif not quote:
            reason = "has an empty quote"
        elif quote not in page_text:
            reason = f"quote not found on page {sourced.page}"
        else:
            value, note = check(sourced.value, sourced.quote)
            if value is not None:
                if note:
                    self.flags.append(f"{path}: {note} (page {sourced.page})")
                return sourced if value == sourced.value else sourced.model_copy(update={"value": value})
            reason = note or "value rejected"
        self.flags.append(
            f"{path}: dropped {_preview(sourced.value)} from page {sourced.page}: {reason}; "
            f"quote {_preview(sourced.quote)}"
        )
        return None


# --- value checks: (value, quote) -> (value to keep | None, note | None) ----------------------------


def _accept(value: V, quote: str) -> tuple[V | None, str | None]:
    return value, None


def _check_verbatim(value: str, quote: str) -> tuple[str | None, str | None]:
    wanted = normalize_for_matching(value)
    if not wanted:
        return None, "empty value"
    if wanted not in normalize_for_matching(quote) and not _words_in_order(value, quote):
        return None, "value not in its quote"
    return value.strip(), None


_EMAIL: Final = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def _check_email(value: str, quote: str) -> tuple[str | None, str | None]:
    """An e-mail address in its quote; text layers whose font has no '@' glyph print the address
    with a space or nothing in its place ('commande-publique ville-nimes.fr'), which is accepted as
    the same address: both of its halves stand in the quote, side by side."""
    address = value.strip()
    if not _EMAIL.fullmatch(address):
        return None, "not an e-mail address"
    checked, problem = _check_verbatim(address, quote)
    if checked is not None:
        return checked, None
    local, domain = address.rsplit("@", 1)
    if re.search(rf"(?<![\w.-]){re.escape(local)}\s*{re.escape(domain)}(?![\w-])", quote, re.IGNORECASE):
        return address, None
    return None, problem


def _words_in_order(value: str, quote: str) -> bool:
    """Whether the value's words occur in the quote in the same order, other words between them.

    A two-column layout interleaves a wrapped name with the other column's text ("Communauté
    d'agglomération   Instance chargée … / du Pays de Vernelle   tribunal …"): the value is then
    not one run of the quote, but each of its words is, in order. Only a quote with a column gap
    (four spaces, a tab) gets this leniency: "Stadt München" is not read from "Stadt Ulm bei München".
    """
    if not _COLUMN_GAP.search(quote):
        return False
    quote_words = iter(_WORD.findall(unicodedata.normalize("NFKC", quote).casefold()))
    return all(word in quote_words for word in _WORD.findall(unicodedata.normalize("NFKC", value).casefold()))


def _check_cpv(value: str, quote: str) -> tuple[str | None, str | None]:
    code = normalize_cpv_code(value)
    if code is None:
        return None, "not a CPV code (NNNNNNNN or NNNNNNNN-N)"
    if code[:8] not in _digits(quote):
        return None, "code not in its quote"
    if len(code) == 10 and int(code[9]) != cpv_check_digit(code[:8]):
        expected = cpv_check_digit(code[:8])
        return code, f"CPV {code}: check digit differs from the usual rule ({expected}), kept"
    return code, None


def _check_date(value: str, quote: str) -> tuple[str | None, str | None]:
    try:
        parsed = parse_iso_datetime(value)
    except ValueError:
        return None, "not an ISO 8601 date or date-time"
    quote_digits = _digit_runs(ascii_digits(quote))
    year_found = (
        str(parsed.year) in quote_digits
        or f"{parsed.year % 100:02d}" in quote_digits
        or parsed.year in calendar_years(quote)  # '令和8年', 'พ.ศ. 2569': the year as the quote writes it
    )
    day_found = str(parsed.day) in quote_digits or f"{parsed.day:02d}" in quote_digits
    day = date(parsed.year, parsed.month, parsed.day)
    if not (year_found and day_found) and day not in hijri_days(quote) and day not in kanji_days(quote):
        return None, "its day and year are not in its quote"
    return value.strip(), None


def _check_money(value: Money, quote: str) -> tuple[Money | None, str | None]:
    if not math.isfinite(value.amount) or value.amount < 0:
        return None, "amount is not a non-negative number"
    currency = value.currency.strip().upper()
    if currency not in CURRENCY_CODES:
        return None, f"currency {value.currency!r} is not an ISO 4217 code"
    if not states_number(quote, value.amount):
        return None, "amount not in its quote"
    if currency != value.currency:
        return value.model_copy(update={"currency": currency}), None
    return value, None


def _check_duration(value: ContractDuration, quote: str) -> tuple[ContractDuration | None, str | None]:
    if value.amount <= 0:
        return None, "duration is not positive"
    if not states_number(quote, value.amount):
        return None, "duration not in its quote"
    return value, None


def _check_criterion(value: AwardCriterion, quote: str) -> tuple[AwardCriterion | None, str | None]:
    name, note = _check_verbatim(value.name, quote)
    if name is None:
        return None, f"criterion name {note}"
    if value.weight is not None:
        if not math.isfinite(value.weight) or value.weight < 0:
            return None, "weight is not a non-negative number"
        if not states_number(quote, value.weight):
            return None, "weight not in its quote"
    return value, None


def _check_country(value: str, quote: str) -> tuple[str | None, str | None]:
    code = normalize_country_code(value)
    if code is None:
        return None, f"{value!r} is not an ISO 3166-1 alpha-2 country code"
    if code != value.strip().upper():
        return code, f"country {value!r} rewritten to its ISO code {code}"
    return code, None


# --- helpers --------------------------------------------------------------------------------------


def _digits(text: str) -> str:
    return "".join(character for character in text if character.isdigit())


def _digit_runs(text: str) -> list[str]:
    """The digit groups of `text` with leading zeros also stripped: '15.03.2026' → 15, 03, 3, 2026."""
    runs = re.findall(r"\d+", text)
    return runs + [run.lstrip("0") for run in runs if run.startswith("0")]


def _preview(value: object) -> str:
    text = repr(value) if not isinstance(value, str) else repr(value.strip())
    return text if len(text) <= _QUOTE_PREVIEW_CHARS else text[: _QUOTE_PREVIEW_CHARS - 1] + "…'"
