"""Numbers as notices write them: '1 250 000,00', '1.250.000', '1,250,000.50', "450'000", '1,5 Mio.'.

Shared by the rules backend (to read amounts) and by validation (to check that an amount, weight or
duration is one of the numbers its quote contains).
"""

from __future__ import annotations

import re
from typing import Final

# Thousands grouped by space, no-break space, thin space, '.', ',' or an apostrophe, with an optional
# decimal part of one or two digits; or plain digits with an optional decimal part.
NUMBER: Final = r"\d{1,3}(?:[ \u00a0\u202f\u2009.,'’]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d+)?"
MULTIPLIER: Final = r"(?i:mio|millionen|millions?|mrd|milliarden?|milliards?|billions?|tsd|m|k)(?![^\W\d_])"
_MULTIPLIERS: Final = {"mio": 1e6, "million": 1e6, "millions": 1e6, "millionen": 1e6, "m": 1e6,
                       "mrd": 1e9, "milliarde": 1e9, "milliarden": 1e9, "milliard": 1e9, "milliards": 1e9,
                       "billion": 1e9, "billions": 1e9, "tsd": 1e3, "k": 1e3}  # fmt: skip
INDIAN_NUMBER: Final = r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2})?"
"""Indian grouping: '12,34,567.50' (lakh and crore places)."""
_INDIAN_MULTIPLIERS: Final = {"lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5, "crore": 1e7, "crores": 1e7,
                              "cr": 1e7}
# What validation accepts as a stated number is wider than what the label reader parses: Indian
# grouping and lakh/crore too, and a number right after a dot ('Rs.1180/-').
_NUMBER_IN_TEXT: Final = re.compile(
    rf"(?<!\d)(?<!\d[.,])(?P<number>{INDIAN_NUMBER}|{NUMBER})(?!\d)"
    rf"(?:\s?(?P<multiplier>{MULTIPLIER}|(?i:lakhs?|lacs?|crores?|cr)(?![^\W\d_])))?"
)
_GROUPING_ONLY: Final = re.compile(r"[ \u00a0\u202f\u2009'’]")


def parse_number(text: str, multiplier: str | None = None) -> float:
    """The value of a number written as NUMBER matches, times its multiplier word ('Mio', 'k', …).

    Spaces and apostrophes only ever group thousands; of '.' and ',' the last one is the decimal
    separator when one or two digits follow it, so '1.250.000' is grouped and '1.250.000,50' is not.
    A lone separator before three digits ('1.250') is read as grouping (1250).
    """
    compact = _GROUPING_ONLY.sub("", text)
    last = max(compact.rfind("."), compact.rfind(","))
    integer, fraction = compact, ""
    if last != -1 and len(compact) - last - 1 != 3:
        integer, fraction = compact[:last], compact[last + 1 :]
    value = float(f"{integer.replace('.', '').replace(',', '')}.{fraction or '0'}")
    return value * _multiplier(multiplier) if multiplier else value


def _multiplier(word: str) -> float:
    folded = word.casefold()
    return _MULTIPLIERS[folded] if folded in _MULTIPLIERS else _INDIAN_MULTIPLIERS[folded]


def numbers_in(text: str) -> list[float]:
    """Every number `text` states, each in all the readings it allows ('1.250' is 1250 or 1.25)."""
    found: list[float] = []
    for match in _NUMBER_IN_TEXT.finditer(text):
        number, multiplier = match["number"], match["multiplier"]
        found.append(parse_number(number, multiplier))
        if re.fullmatch(r"\d+[.,]\d{3}", number):
            found.append(float(number.replace(",", ".")) * (_multiplier(multiplier) if multiplier else 1))
    return found


def states_number(text: str, value: float) -> bool:
    """Whether `text` states `value`, to the cent."""
    tolerance = max(0.005, abs(value) * 1e-12)  # 1e-12: float error of "1.25 Mio." * 1e6
    return any(abs(number - value) <= tolerance for number in numbers_in(text))
