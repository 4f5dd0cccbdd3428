"""Scoring extracted fields against an answer key: lenient about form, strict about content.

Per field and document a comparison is **correct**, **wrong** (a value that does not match),
**missed** (no value where the key has a required one), **spurious** (a value where the key has
null), or nothing to count (no value where the key has null or an optional one).

    recall    = correct required values / required values
    precision = correct / (correct + wrong + spurious)
    grounded  = returned values whose quote is on the page they cite / returned values

How values match, per kind of field:
- names, titles: case-, punctuation- and whitespace-insensitive; one may contain the other, as whole
  words, when the shorter is at least 30% of the longer; places the same, without the 30% floor;
- addresses: at least half of the key's words are in the value;
- e-mails: the key's address inside the value; phones: the key's digits inside the value's;
- references: equal after removing all but letters and digits; the value may carry a prefix at most
  as long as the key;
- codes (notice type, procedure type, main category): equal;
- dates: the same day, and the same time when both give one other than midnight;
- money: amount within 0.5% and the same currency when both give one;
- durations: within 5% once converted to days;
- URLs: equal without scheme, "www." and trailing slash, or one contains the other;
- CPV codes: at least one of the key's 8-digit stems among the values'.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Final, Literal

from tenderflow.evaluation.keys import Expected

Verdict = Literal["correct", "wrong", "missed", "spurious", "absent"]
"""absent: no value, and none was required (the key has null, or an optional value)."""


@dataclass(frozen=True)
class Returned:
    """One field's value as the pipeline returned it, with its provenance (first value for lists)."""

    value: Any
    page: int | None
    quote: str | None
    grounded: bool


@dataclass(frozen=True)
class Comparison:
    field: str
    verdict: Verdict
    required: bool
    returned: Returned | None
    expected: Expected


def compare(field: str, expected: Expected, returned: Returned | None) -> Comparison:
    """The verdict for one field of one document."""
    if returned is None:
        verdict: Verdict = "missed" if expected.required else "absent"
    elif expected.values is None:
        verdict = "spurious"
    else:
        matcher = MATCHERS.get(field, _same_name)
        verdict = "correct" if any(matcher(returned.value, value) for value in expected.values) else "wrong"
    return Comparison(field, verdict, expected.required, returned, expected)


# --- normalising ----------------------------------------------------------------------------------

_NON_WORD: Final = re.compile(r"[^\w]+")


def _words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", str(text))
    folded = "".join(character for character in folded if not unicodedata.combining(character)).casefold()
    return [word for word in _NON_WORD.split(folded.replace("_", " ")) if word]


def _contains_words(longer: list[str], shorter: list[str]) -> bool:
    size = len(shorter)
    return any(longer[index : index + size] == shorter for index in range(len(longer) - size + 1))


def _name_match(value: Any, key: Any, floor: float) -> bool:
    got, want = _words(value), _words(key)
    if not got or not want:
        return False
    if got == want:
        return True
    shorter, longer = (got, want) if len(" ".join(got)) <= len(" ".join(want)) else (want, got)
    if len(" ".join(shorter)) < floor * len(" ".join(longer)):
        return False
    return _contains_words(longer, shorter)


def _same_name(value: Any, key: Any) -> bool:
    return _name_match(value, key, 0.3)


def _same_place(value: Any, key: Any) -> bool:
    return _name_match(value, key, 0.0)


def _same_address(value: Any, key: Any) -> bool:
    want = _words(key)
    got = set(_words(value))
    return bool(want) and sum(word in got for word in want) * 2 >= len(want)


def _same_email(value: Any, key: Any) -> bool:
    return str(key).strip().casefold() in str(value).casefold()


def _digits(text: Any) -> str:
    return "".join(character for character in str(text) if character.isdigit())


def _same_phone(value: Any, key: Any) -> bool:
    want = _digits(key)
    return bool(want) and want in _digits(value)


def _alphanumeric(text: Any) -> str:
    return "".join(character for character in str(text).casefold() if character.isalnum())


def _same_reference(value: Any, key: Any) -> bool:
    got, want = _alphanumeric(value), _alphanumeric(key)
    return bool(want) and got.endswith(want) and len(got) - len(want) <= len(want)


def _same_code(value: Any, key: Any) -> bool:
    return str(value).strip() == str(key).strip()


def _as_datetime(text: Any) -> datetime | None:
    raw = str(text).strip().replace(" ", "T")
    try:
        if "T" not in raw:
            return datetime.combine(date.fromisoformat(raw), datetime.min.time())
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        return None
    return parsed.replace(tzinfo=None)


def _same_date(value: Any, key: Any) -> bool:
    got, want = _as_datetime(value), _as_datetime(key)
    if got is None or want is None or got.date() != want.date():
        return False
    midnight = datetime.min.time()
    if got.time() != midnight and want.time() != midnight:
        return (got.hour, got.minute) == (want.hour, want.minute)
    return True


def _same_money(value: Any, key: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(key, dict):
        return False
    try:
        got, want = float(value["amount"]), float(key["amount"])
    except (KeyError, TypeError, ValueError):
        return False
    if abs(got - want) > 0.005 * abs(want):
        return False
    got_currency, want_currency = value.get("currency"), key.get("currency")
    return not (got_currency and want_currency and str(got_currency).upper() != str(want_currency).upper())


_DAYS_PER_UNIT: Final = {"days": 1.0, "weeks": 7.0, "months": 365.25 / 12, "years": 365.25}


def _same_duration(value: Any, key: Any) -> bool:
    if not isinstance(value, dict) or not isinstance(key, dict):
        return False
    try:
        got = float(value["amount"]) * _DAYS_PER_UNIT[value["unit"]]
        want = float(key["amount"]) * _DAYS_PER_UNIT[key["unit"]]
    except (KeyError, TypeError, ValueError):
        return False
    return abs(got - want) <= 0.05 * abs(want)


_URL_PREFIX: Final = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:www\.)?", re.IGNORECASE)


def _bare_url(text: Any) -> str:
    return _URL_PREFIX.sub("", str(text).strip()).rstrip("/").casefold()


def _same_url(value: Any, key: Any) -> bool:
    got, want = _bare_url(value), _bare_url(key)
    return bool(got and want) and (got == want or got in want or want in got)


def _same_cpv(value: Any, key: Any) -> bool:
    got = {_digits(code)[:8] for code in (value if isinstance(value, list) else [value])}
    want = {_digits(code)[:8] for code in (key if isinstance(key, list) else [key])}
    return bool(got & want - {""})


MATCHERS: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "buyer.name": _same_name,
    "title": _same_name,
    "place_of_performance": _same_place,
    "buyer.address": _same_address,
    "buyer.email": _same_email,
    "buyer.phone": _same_phone,
    "reference_number": _same_reference,
    "notice_type": _same_code,
    "procedure_type": _same_code,
    "main_category": _same_code,
    "submission_deadline": _same_date,
    "questions_deadline": _same_date,
    "estimated_value": _same_money,
    "contract_duration": _same_duration,
    "submission_url": _same_url,
    "cpv_codes": _same_cpv,
}


# --- totals -----------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Counts over any set of comparisons."""

    correct: int = 0
    correct_required: int = 0
    wrong: int = 0
    missed: int = 0
    spurious: int = 0
    required: int = 0
    returned: int = 0
    grounded: int = 0

    def add(self, comparison: Comparison) -> None:
        self.required += comparison.required
        if comparison.verdict == "correct":
            self.correct += 1
            self.correct_required += comparison.required
        elif comparison.verdict == "wrong":
            self.wrong += 1
        elif comparison.verdict == "missed":
            self.missed += 1
        elif comparison.verdict == "spurious":
            self.spurious += 1
        if comparison.returned is not None:
            self.returned += 1
            self.grounded += comparison.returned.grounded

    @classmethod
    def of(cls, comparisons: Sequence[Comparison]) -> Tally:
        tally = cls()
        for comparison in comparisons:
            tally.add(comparison)
        return tally

    @property
    def recall(self) -> float | None:
        return self.correct_required / self.required if self.required else None

    @property
    def precision(self) -> float | None:
        answered = self.correct + self.wrong + self.spurious
        return self.correct / answered if answered else None

    @property
    def grounded_share(self) -> float | None:
        return self.grounded / self.returned if self.returned else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "required": self.required, "correct": self.correct, "correct_required": self.correct_required,
            "wrong": self.wrong, "missed": self.missed, "spurious": self.spurious, "returned": self.returned,
            "grounded": self.grounded, "recall": _rounded(self.recall), "precision": _rounded(self.precision),
            "grounded_share": _rounded(self.grounded_share),
        }  # fmt: skip


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
