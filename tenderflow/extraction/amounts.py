"""Numbers as notices write them: '1 250 000,00', '1.250.000', '1,250,000.50', "450'000", '1,5 Mio.',
'12,5 млн', '1億2千万', '434,605,000,000', '248.6260万', '159,274백만'.

Shared by the rules backend (to read amounts), by the offline extractor and by validation (to check
that an amount, weight or duration is one of the numbers its quote contains).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from tenderflow.extraction.calendars import ascii_digits

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

SCALE_WORDS: Final[dict[str, float]] = {
    # en, fr, de, es, it, pt, nl, pl, ro, hu, sv, da, fi, cs
    "mio": 1e6, "million": 1e6, "millions": 1e6, "millionen": 1e6, "millones": 1e6, "milioni": 1e6,
    "milhões": 1e6, "milhoes": 1e6, "miljoen": 1e6, "miljon": 1e6, "miljoner": 1e6, "millioner": 1e6,
    "miljoonaa": 1e6, "milioane": 1e6, "milion": 1e6, "milionů": 1e6, "millió": 1e6, "mln": 1e6, "mn": 1e6,
    "mrd": 1e9, "mld": 1e9, "milliard": 1e9, "milliards": 1e9, "milliarde": 1e9, "milliarden": 1e9,
    "miliardi": 1e9, "miliarde": 1e9, "milliárd": 1e9, "billion": 1e9, "billions": 1e9, "bn": 1e9,
    "thousand": 1e3, "tsd": 1e3, "tys": 1e3, "tis": 1e3, "ezer": 1e3,
    # India
    "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5, "crore": 1e7, "crores": 1e7, "cr": 1e7,
    # ru, uk, bg, sr, kk
    "млн": 1e6, "миллион": 1e6, "миллиона": 1e6, "миллионов": 1e6, "мільйон": 1e6, "мільйона": 1e6,
    "мільйонів": 1e6, "милион": 1e6, "милиона": 1e6, "милиони": 1e6, "млрд": 1e9, "миллиард": 1e9,
    "миллиарда": 1e9, "миллиардов": 1e9, "мільярд": 1e9, "мільярдів": 1e9, "милиард": 1e9,
    "тыс": 1e3, "тысяч": 1e3, "тысяча": 1e3, "тысячи": 1e3, "тис": 1e3, "хил": 1e3, "хиляди": 1e3,
    # el, tr, vi, id/ms, th, he, ar
    "εκατ": 1e6, "εκατομμύρια": 1e6, "εκατομμύριο": 1e6, "εκατομμυρια": 1e6, "δισ": 1e9, "χιλ": 1e3,
    "χιλιάδες": 1e3, "milyon": 1e6, "milyar": 1e9, "triệu": 1e6, "tỷ": 1e9, "tỉ": 1e9, "nghìn": 1e3,
    "ngàn": 1e3, "juta": 1e6, "miliar": 1e9, "ribu": 1e3, "bilion": 1e9,
    "ล้าน": 1e6, "พัน": 1e3, "מיליון": 1e6, "مليون": 1e6, "مليار": 1e9,
}  # fmt: skip
"""Scale words after a number, lower case as printed: '1,5 Mio.', '12 млн', '3 tỷ', '2 juta', '5 ล้าน'."""
_UNSPACED_SCALE: Final = frozenset({"ล้าน", "พัน"})
SCALE: Final = (
    "(?:(?i:"
    + "|".join(re.escape(word) for word in sorted(set(SCALE_WORDS) - _UNSPACED_SCALE, key=len, reverse=True))
    + r")(?![^\W\d_])|"
    + "|".join(sorted(_UNSPACED_SCALE, key=len, reverse=True))
    + ")"
)
"""A scale word as printed (any case), without its abbreviation dot; Thai ones glued to the currency
('5 ล้านบาท')."""

CJK_UNITS: Final[dict[str, float]] = {
    "十": 10, "拾": 10, "십": 10, "百": 100, "佰": 100, "백": 100, "千": 1e3, "仟": 1e3, "천": 1e3,
    "万": 1e4, "萬": 1e4, "만": 1e4, "億": 1e8, "亿": 1e8, "억": 1e8, "兆": 1e12, "조": 1e12,
}  # fmt: skip
"""The numeral units of Chinese, Japanese and Korean amounts. 万/億/兆 (만/억/조) open a new group of four
digits; 十/百/千 (십/백/천) multiply inside a group: 1億2千万 = 1 × 10⁸ + 2 × 10³ × 10⁴."""
_CJK_UNIT: Final = "[" + "".join(CJK_UNITS) + "]"
CJK_AMOUNT: Final = rf"(?:{NUMBER})\s?{_CJK_UNIT}(?:\s?(?:{NUMBER})?\s?{_CJK_UNIT})*"
"""An amount written with CJK units: '1億2千万', '5千万', '248.6260万', '1,049억', '159,274백만', '1조 2,345억'."""
_CJK_TOKEN: Final = re.compile(rf"(?P<number>{NUMBER})?\s?(?P<unit>{_CJK_UNIT})")
_GROUP_UNIT: Final = 1e4

# What validation accepts as a stated number is wider than what the label reader parses: Indian
# grouping and lakh/crore too, scale words of every language, CJK units, and a number right after a dot
# ('Rs.1180/-').
_NUMBER_IN_TEXT: Final = re.compile(
    rf"(?P<cjk>{CJK_AMOUNT})|(?<!\d)(?<!\d[.,])(?P<number>{INDIAN_NUMBER}|{NUMBER})(?!\d)"
    rf"(?:\s?(?P<multiplier>{MULTIPLIER}|{SCALE}))?"
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
    return value * scale_of(multiplier) if multiplier else value


def scale_of(word: str) -> float:
    """The factor of a multiplier or scale word as printed ('Mio.', 'млн', 'Lakh', 'tỷ')."""
    folded = word.casefold().rstrip(".")
    if folded in _MULTIPLIERS:
        return _MULTIPLIERS[folded]
    if folded in _INDIAN_MULTIPLIERS:
        return _INDIAN_MULTIPLIERS[folded]
    return SCALE_WORDS[folded]


def parse_cjk_amount(text: str) -> float:
    """The value of an amount written with CJK units (a CJK_AMOUNT match): '1億2千万' → 120000000.0,
    '248.6260万' → 2486260.0, '159,274백만' → 159274000000.0."""
    total = group = 0.0
    pending: float | None = None
    for token in _CJK_TOKEN.finditer(text):
        if token["number"]:
            if pending is not None:
                group += pending
            pending = parse_number(token["number"])
        unit = CJK_UNITS[token["unit"]]
        if unit < _GROUP_UNIT:
            group += (pending if pending is not None else 1.0) * unit
        else:
            group += pending or 0.0
            total += (group or 1.0) * unit
            group = 0.0
        pending = None
    return total + group + (pending or 0.0)


def numbers_in(text: str) -> list[float]:
    """Every number `text` states, each in all the readings it allows ('1.250' is 1250 or 1.25), in
    digits of any script and full-width forms ('１２３，０００円')."""
    if not text.isascii():
        text = ascii_digits(unicodedata.normalize("NFKC", text))
    found: list[float] = []
    for match in _NUMBER_IN_TEXT.finditer(text):
        if match["cjk"]:
            found.append(parse_cjk_amount(match["cjk"]))
            found.extend(parse_number(token["number"]) for token in _CJK_TOKEN.finditer(match["cjk"])
                         if token["number"])  # '248.6260万' also states 248.626
            continue
        number, multiplier = match["number"], match["multiplier"]
        found.append(parse_number(number))
        if multiplier:
            found.append(parse_number(number, multiplier))
        if re.fullmatch(r"\d+[.,]\d{3}", number):
            found.append(float(number.replace(",", ".")) * (scale_of(multiplier) if multiplier else 1))
    return found


def states_number(text: str, value: float) -> bool:
    """Whether `text` states `value`, to the cent."""
    tolerance = max(0.005, abs(value) * 1e-12)  # 1e-12: float error of "1.25 Mio." * 1e6
    return any(abs(number - value) <= tolerance for number in numbers_in(text))
