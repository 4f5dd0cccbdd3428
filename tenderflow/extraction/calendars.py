"""Calendars and digits that tenders print besides the Gregorian year in ASCII digits.

Shared by the offline date reader (to read a deadline) and by validation (to accept it as grounded in a
quote that writes its year another way):

- Japanese era years: 令和8年 is 2026, 令和元年 2019 (the first year of an era is 元年), 平成, 昭和, 大正;
  the Republic of China's 民國115年 (Taiwan) is 2026 the same way;
- Buddhist-era years (Thailand, also Laos, Cambodia, Sri Lanka): พ.ศ. 2569 is 2026 (543 years ahead);
- Umm al-Qura Hijri dates (Saudi Arabia): 1447/03/15 is 7 September 2025;
- dates in Chinese numerals, as formal Japanese and Chinese notices write them: 令和八年九月二十五日,
  二〇二六年一月二十三日;
- decimal digits of any script, one for one: Arabic-Indic ٢٠٢٦, Persian ۲۰۲۶, full-width ２０２６, Thai ๒๕๖๙,
  Devanagari २०२६ are all 2026.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from typing import Final

from hijridate import Hijri

ERA_STARTS: Final[dict[str, int]] = {
    "令和": 2019, "平成": 1989, "昭和": 1926, "大正": 1912, "明治": 1868,  # Japan: an era's first year
    "民國": 1912, "民国": 1912, "中華民國": 1912,  # the Republic of China (Taiwan): 民國1年 is 1912
}  # fmt: skip
"""The Gregorian year of each era's first year (元年)."""

ERA_INITIALS: Final[dict[str, str]] = {"R": "令和", "H": "平成", "S": "昭和"}
"""The initials Japanese forms abbreviate eras to in numeric dates: 'R8.9.25' is 令和8年9月25日."""

FIRST_YEAR: Final = "元"
"""An era's first year is written 元年, not 1年."""

BUDDHIST_ERA_OFFSET: Final = 543
BUDDHIST_YEARS: Final = range(2400, 2700)
"""Four-digit years that can only be Buddhist-era years in a tender (1857-2156 in the Gregorian calendar)."""

_ERA_YEAR: Final = re.compile(
    "(?P<era>" + "|".join(sorted(ERA_STARTS, key=len, reverse=True)) + r")\s*(?P<year>\d{1,3}|元)\s*年"
)
_ERA_INITIAL_DATE: Final = re.compile(
    r"(?<![A-Za-z])(?P<era>[RHS]|令和|平成|昭和)\s?(?P<year>\d{1,2}|元)\s?[./]\s?\d{1,2}\s?[./]\s?\d{1,2}"
)
ROC_NUMERIC_DATE: Final = re.compile(r"(?<![\d/.])(?P<year>1[01]\d)/(?P<month>\d{1,2})/(?P<day>\d{1,2})(?![\d/])")
"""Taiwan's dates in numbers, with the year of the Republic: '115/03/05' is 5 March 2026 (on a line in Chinese)."""
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
_FOUR_DIGITS: Final = re.compile(r"(?<!\d)\d{4}(?!\d)")
_HIJRI_DATE: Final = re.compile(
    r"(?<!\d)(?:(?P<y1>1[34]\d\d)\s?[/.-]\s?(?P<m1>\d{1,2})\s?[/.-]\s?(?P<d1>\d{1,2})"
    r"|(?P<d2>\d{1,2})\s?[/.-]\s?(?P<m2>\d{1,2})\s?[/.-]\s?(?P<y2>1[34]\d\d))(?!\d)"
)


class _Digits(dict[int, str]):
    """str.translate's table for `ascii_digits`, filled one character at a time as characters are met."""

    def __missing__(self, code: int) -> str:
        value = unicodedata.decimal(chr(code), None)
        digit = str(value) if value is not None else chr(code)
        self[code] = digit
        return digit


_DIGITS: Final = _Digits()


def ascii_digits(text: str) -> str:
    """`text` with every decimal digit of any script written as its ASCII digit, one character for one
    (positions do not move): '令和８年' → '令和8年', '١٤٤٧' → '1447', '๒๕๖๙' → '2569'."""
    if text.isascii():
        return text
    return text.translate(_DIGITS)


def era_year(era: str, year: str) -> int | None:
    """The Gregorian year of year `year` (digits, or 元 for the first) of `era` ('令和', '8' → 2026)."""
    start = ERA_STARTS.get(ERA_INITIALS.get(era.upper(), era))
    if start is None:
        return None
    number = 1 if year == FIRST_YEAR else int(ascii_digits(year))
    return start + number - 1 if number >= 1 else None


def buddhist_year(year: int) -> int | None:
    """The Gregorian year of a Buddhist-era year (2569 → 2026), None for a number that cannot be one."""
    return year - BUDDHIST_ERA_OFFSET if year in BUDDHIST_YEARS else None


_KANJI_DIGITS: Final = {character: value for value, character in enumerate("〇一二三四五六七八九")} | {"零": 0}
_KANJI_NUMBER: Final = "[〇零一二三四五六七八九十]"
KANJI_DATE: Final = re.compile(
    rf"(?:(?P<era>令和|平成|昭和|大正|民國|民国)\s?(?P<ey>元|{_KANJI_NUMBER}{{1,3}})|(?P<y>[〇零一二三四五六七八九]{{4}}))"
    rf"\s?年\s?(?P<m>{_KANJI_NUMBER}{{1,3}})\s?月\s?(?P<d>{_KANJI_NUMBER}{{1,3}})\s?[日号]"
)
"""A date in Chinese numerals: '令和八年九月二十五日', '二〇二六年一月二十三日', '民國一一五年三月五日'."""


def kanji_number(text: str) -> int | None:
    """The value of a number in Chinese numerals: '二十五' → 25, '十' → 10, '二〇二六' → 2026 (digit by digit
    without 十), '元' → 1 (an era's first year); None when it is none."""
    if text == FIRST_YEAR:
        return 1
    if "十" not in text:
        digits = [_KANJI_DIGITS.get(character) for character in text]
        return None if any(digit is None for digit in digits) else int("".join(str(digit) for digit in digits))
    tens, _, units = text.partition("十")
    if (tens and tens not in _KANJI_DIGITS) or (units and units not in _KANJI_DIGITS):
        return None
    return (_KANJI_DIGITS[tens] if tens else 1) * 10 + (_KANJI_DIGITS[units] if units else 0)


def kanji_date(match: re.Match[str]) -> date | None:
    """The day a KANJI_DATE match writes, None when it is no day."""
    year = kanji_number(match["ey"] or match["y"])
    month, day = kanji_number(match["m"]), kanji_number(match["d"])
    if match["era"] and year is not None:
        year = era_year(match["era"], str(year))
    if year is None or month is None or day is None:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


def kanji_days(text: str) -> set[date]:
    """The days `text` writes in Chinese numerals (see KANJI_DATE)."""
    return {day for match in KANJI_DATE.finditer(text) if (day := kanji_date(match)) is not None}


def hijri_day(year: int, month: int, day: int) -> date | None:
    """The Gregorian day of an Umm al-Qura Hijri date, None outside the calendar's range."""
    try:
        gregorian = Hijri(year, month, day).to_gregorian()
    except (ValueError, OverflowError):
        return None
    return date(gregorian.year, gregorian.month, gregorian.day)


def calendar_years(text: str) -> set[int]:
    """The Gregorian years that `text` writes in an era or the Buddhist era: '令和 8年' gives 2026, '平成
    元年' 1989, 'R8.9.25' 2026, 'พ.ศ. 2569' (or a bare 2569) 2026, '115/03/05' in Chinese text 2026."""
    text = ascii_digits(text)
    years: set[int] = set()
    for match in _ERA_YEAR.finditer(text):
        year = era_year(match["era"], match["year"])
        if year is not None:
            years.add(year)
    for match in _ERA_INITIAL_DATE.finditer(text):
        if (year := era_year(match["era"], match["year"])) is not None:
            years.add(year)
    for match in _FOUR_DIGITS.finditer(text):
        if (year := buddhist_year(int(match.group()))) is not None:
            years.add(year)
    if _HAN.search(text):
        years.update(int(match["year"]) + ERA_STARTS["民國"] - 1 for match in ROC_NUMERIC_DATE.finditer(text))
    return years


def hijri_days(text: str) -> set[date]:
    """The Gregorian days of the Umm al-Qura Hijri dates `text` writes ('1447/03/15', '15/03/1447')."""
    days: set[date] = set()
    for match in _HIJRI_DATE.finditer(ascii_digits(text)):
        year, month, day = (
            (match["y1"], match["m1"], match["d1"]) if match["y1"] else (match["y2"], match["m2"], match["d2"])
        )
        if (gregorian := hijri_day(int(year), int(month), int(day))) is not None:
            days.add(gregorian)
    return days
