"""Dates and times of day as tenders print them, in every script: the typed parsers of the deadline reader.

Dates ('21st November 2025', '21.11.2025', '15. März 2026', '15 de marzo de 2026', '15 апреля 2026 г.',
'15 Μαρτίου 2026', '15 Mart 2026', 'March 15, 2026', '2026-03-15', '2026. március 15.', '21-Nov-2025'):
month and weekday names come from CLDR through babel, so every locale in `_LOCALES` reads the same way.
Besides them:

- Chinese, Japanese and Korean year-month-day: '2026年1月23日', '2026 年 1 月 23 日', '2019년 9월 30일',
  with Japanese era years ('令和8年7月27日', '令和元年', '平成31年', 'R8.9.25') and Taiwan's '民國115年' or
  '115/03/05', also
  in Chinese numerals ('令和八年九月二十五日'); a range end that leaves out the year ('令和8年7月27日～7月28日')
  takes the start's;
- Korean (and Hungarian) dotted dates with spaces: '2025. 1. 31.';
- Vietnamese 'ngày 15 tháng 3 năm 2026'; Thai month names with Buddhist-era years ('15 มีนาคม 2569',
  'พ.ศ. 2569'); Hebrew months with their prefix ('15 במרץ 2026');
- Umm al-Qura Hijri dates ('1447/03/15 هـ'), in Arabic-Indic or any other digits.

Times: '12:00', '12h00', '12.00 Uhr', '5:00 PM', '12 heures', '1400 hrs', 'noon', and the CJK forms
'14時30分', '午後3時', '14 时 30 分', '16시 00분', '오후 4시'.

All parsers take FOLDED text (document.fold: lower case, no accents, full-width forms plain), whose
positions are those of the printed line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Final

from babel.dates import get_day_names, get_month_names

from tenderflow.extraction.calendars import (
    KANJI_DATE,
    ROC_NUMERIC_DATE,
    ascii_digits,
    buddhist_year,
    era_year,
    hijri_day,
    kanji_date,
)
from tenderflow.extraction.offline.document import fold
from tenderflow.extraction.offline.lexicon import alternation, compile_folded

# --- month and weekday names (CLDR via babel) ------------------------------------------------------

_LOCALES: Final = (
    "en", "fr", "de", "es", "it", "pt", "nl", "pl", "ro", "ca", "ar",
    "ru", "uk", "bg", "be", "sr", "sr_Latn", "mk", "kk", "ky", "uz", "el", "tr", "az", "th", "he", "id", "ms",
    "cs", "sk", "sl", "bs", "hu", "sv", "da", "nb", "fi", "et", "lv", "lt", "ga", "mt", "sq", "is", "tl", "sw",
)  # fmt: skip
"""Locales whose month names the parser reads; names two of them give different months are dropped."""
_SECONDARY_LOCALES: Final = ("hr",)
"""Locales whose month names are added only where they do not clash with the others: Croatian 'listopad' is
October, Polish and Czech 'listopad' November (a Croatian tender that writes 'listopada' is misread either way;
without these, its other months would not be read at all)."""
_WEEKDAY_LOCALES: Final = (*_LOCALES, "ja", "zh", "zh_Hant", "ko", "vi")
"""Locales whose weekday names may stand between a date and its time ('（月）', '(周五)', '(목)', 'Thứ Hai')."""

_EXTRA_MONTHS: Final = {"sept": 9, "setiembre": 9, "maerz": 3, "sepbre": 9, "xbre": 12}
"""Spellings CLDR does not list but tenders print (Latin American 'setiembre', 'Maerz' without umlaut)."""
_HEBREW_PREFIX: Final = "ב"
"""Hebrew writes 'in March' before the year: '15 במרץ 2026'."""


def _month_names(locale: str) -> dict[str, int]:
    """Folded month names of one locale (wide and abbreviated, format and stand-alone, so Polish genitive
    'listopada' and nominative 'listopad', Russian 'апреля' and 'апрель' all), without those that carry digits
    ('tháng 3', '3月', '3월': the CJK and Vietnamese patterns read them)."""
    names: dict[str, int] = {}
    for width in ("wide", "abbreviated"):
        for context in ("format", "stand-alone"):
            for number, name in get_month_names(width, context, locale).items():
                key = fold(name).strip().rstrip(".")
                if len(key) >= 3 and not any(character.isdigit() for character in key):
                    names[key] = int(number)
                    if locale == "he":
                        names[_HEBREW_PREFIX + key] = int(number)
    return names


def _month_table() -> dict[str, int]:
    """Folded month name → month number, for every locale of `_LOCALES` (see `_month_names`)."""
    found: dict[str, set[int]] = {}
    for locale in _LOCALES:
        for key, number in _month_names(locale).items():
            found.setdefault(key, set()).add(number)
    table = {name: next(iter(numbers)) for name, numbers in found.items() if len(numbers) == 1}
    for locale in _SECONDARY_LOCALES:
        for key, number in _month_names(locale).items():
            if key not in found:
                table[key] = number
    table.update(_EXTRA_MONTHS)
    return table


def weekday_words() -> set[str]:
    """Every word of every weekday name (wide, abbreviated, short) of the weekday locales, folded."""
    words: set[str] = set()
    for locale in _WEEKDAY_LOCALES:
        for width in ("wide", "abbreviated", "short"):
            for name in get_day_names(width, "format", locale).values():
                words.update(re.findall(r"[^\W\d_]+", fold(name)))
    return words


CLDR_NAMES: Final = Path(__file__).with_name("cldr_names.json")
"""`_month_table()` and `weekday_words()` as babel gives them, written by `make cldr-names`
(`write_cldr_names`): reading 50 locales' CLDR data took ~0.4 s of CPU at every worker's start (and
every CLI command that extracts). tests/test_offline_dates.py fails when the file is not what babel
gives today (a babel upgrade, a locale added); without the file they are read from babel."""


def cldr_names() -> dict[str, Any]:
    """What `CLDR_NAMES` holds: the month table (in its order) and the weekday words (sorted)."""
    return {"months": _month_table(), "weekday_words": sorted(weekday_words())}


_NAMES: Final[dict[str, Any]] = (json.loads(CLDR_NAMES.read_text(encoding="utf-8")) if CLDR_NAMES.exists()
                                 else cldr_names())
MONTHS: Final[dict[str, int]] = _NAMES["months"]
MONTH: Final = "(?:" + alternation(MONTHS) + ")"


# --- date patterns (over folded text, digits of every script made ASCII) -----------------------------

DAY: Final = r"(?:0?[1-9]|[12]\d|3[01])"
YEAR: Final = r"(?:19[89]\d|20\d\d)"
_MONTH_NUMBER: Final = r"(?:0?[1-9]|1[0-2])"
_BUDDHIST_YEAR: Final = r"(?:25[2-9]\d)"
_ERA: Final = r"(?:令和|平成|昭和|大正|民國|民国|中華民國)"
ORDINAL: Final = r"(?:st|nd|rd|th|er|eme|[oa°](?=\s)|\.?e\.?r)?"
_YEAR_MARK: Final = r"(?:(?:พ\.?\s?ศ\.?|ค\.?\s?ศ\.?)\s*)?"
"""Thai era marks before a year: พ.ศ. (Buddhist era), ค.ศ. (Christian era)."""
DMY_TEXT: Final = re.compile(
    rf"(?<![\w.,])(?P<d>{DAY}){ORDINAL}\.?[»\"”']?\s*(?:day\s+of\s+|de\s+|of\s+|[-/]\s*)?(?P<m>{MONTH})(?![^\W\d_])\.?"
    rf"(?:\s*,\s*|\s*[-/]\s*|\s+de\s+|\s+del\s+|\s*){_YEAR_MARK}(?P<y>{YEAR}|{_BUDDHIST_YEAR})(?!\d)"
)
MDY_TEXT: Final = re.compile(
    rf"(?<![^\W\d_])(?P<m>{MONTH})\.?\s*(?P<d>{DAY})(?:st|nd|rd|th)?(?!\d),?\s*(?P<y>{YEAR})(?!\d)"
)
_YMD_TEXT: Final = re.compile(
    rf"(?<![\d.,])(?P<y>{YEAR})\.?\s*(?:m\.\s*|gada\s+)?(?P<m>{MONTH})(?![^\W\d_])\.?\s*(?P<d>{DAY})(?!\d)\.?"
    r"(?:\s*d\.)?"
)
"""Year first with a month name: Hungarian '2026. március 15.', Lithuanian '2026 m. kovo 15 d.'."""
NUMERIC: Final = re.compile(
    rf"(?<![\d./-])(?P<a>\d{{1,2}})(?P<s>[./-])\s?(?P<b>\d{{1,2}})(?P=s)\s?(?P<y>{YEAR}|{_BUDDHIST_YEAR})"
    r"(?!\d|[./-]\d)"
)
_NUMERIC_DOTTED: Final = re.compile(
    rf"(?<![\d/-])(?<!\d[.,])(?P<a>\d{{1,2}})[\s.,]{{0,5}}(?P<s>[/-])[\s.,]{{0,5}}(?P<b>\d{{1,2}})[\s.,]{{0,5}}(?P=s)"
    rf"[\s.,]{{0,5}}(?P<y>{YEAR})(?!\d|[./-]\d)"
)
"""A numeric date written on a dotted line ('on ....21../02/2025'), as OCR returns a filled-in form."""
_ISO: Final = re.compile(
    rf"(?<![\d./-])(?P<y>{YEAR})(?P<s>[-/.])(?P<m>{_MONTH_NUMBER})(?P=s)(?P<d>{DAY})(?!\d|[./-]\d)"
)
_SPACED_YMD: Final = re.compile(
    rf"(?<![\d./-])(?P<y>{YEAR})\.\s{{1,2}}(?P<m>{_MONTH_NUMBER})\.\s{{1,2}}(?P<d>{DAY})(?!\d)(?:\.(?!\d))?"
)
"""Korean (and Hungarian) dotted dates with a space after each dot: '2025. 1. 31.', '2024. 8. 19'."""
_CJK_YMD: Final = re.compile(
    rf"(?:(?P<era>{_ERA})\s?(?P<ey>\d{{1,3}}|元)|(?<!\d)(?P<y>{YEAR}))\s?[年년]\s?(?P<m>{_MONTH_NUMBER})\s?[月월]"
    rf"\s?(?P<d>{DAY})(?!\d)\s?[日일号號]"
)
"""'2026年1月23日', '2026 年 01 月 23 日', '2019년 9월 30일', '令和８年７月２７日', '令和元年5月1日',
'民國115年1月2日'."""
_CJK_MD: Final = re.compile(rf"(?<![\d年년])(?P<m>{_MONTH_NUMBER})\s?[月월]\s?(?P<d>{DAY})(?!\d)\s?[日일号號]")
"""A month and day without a year ('７月２８日'): a date only after a full date on the same line."""
_ERA_NUMERIC: Final = re.compile(
    rf"(?<![\w.])(?P<era>令和|平成|昭和|r|h|s)\s?(?P<ey>\d{{1,2}}|元)\s?(?P<s>[./])\s?(?P<m>{_MONTH_NUMBER})\s?(?P=s)"
    rf"\s?(?P<d>{DAY})(?![\d./])"
)
"""A Japanese era date written with numbers only: 'R8.9.25', 'H31.4.30', '令和8.9.25' (on a line in Japanese)."""
_VIETNAMESE: Final = re.compile(
    rf"(?<![\w.,])(?:ngay\s*)?(?P<d>{DAY})\s*thang\s*(?P<m>{_MONTH_NUMBER})\s*,?\s*nam\s*(?P<y>{YEAR})(?!\d)"
)
"""'ngày 15 tháng 3 năm 2026' (folded: 'ngay 15 thang 3 nam 2026')."""
_HIJRI_YMD: Final = re.compile(
    r"(?<![\d/.-])(?P<y>1[34]\d\d)\s?(?P<s>[/.-])\s?(?P<m>\d{1,2})\s?(?P=s)\s?(?P<d>\d{1,2})(?![\d/])"
)
_HIJRI_DMY: Final = re.compile(
    r"(?<![\d/.-])(?P<d>\d{1,2})\s?(?P<s>[/.-])\s?(?P<m>\d{1,2})\s?(?P=s)\s?(?P<y>1[34]\d\d)(?!\d)"
)
_HIJRI_MARK: Final = compile_folded(r"هـ|ه(?!\w)|(?<![^\W\d_])(?:h|ah|hijri)(?![^\W\d_])|هجري")
_ARABIC: Final = re.compile(r"[\u0600-\u06ff]")
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
_KANA: Final = re.compile(r"[\u3040-\u30ff]")
_BUDDHIST_CONTEXT: Final = re.compile(r"[\u0e00-\u0e7f]|(?<![^\W\d_])(?:b\.?\s?e\.?)(?![^\W\d_])")
"""Thai script, or 'B.E.', on the line: a numeric date's 25xx year is then a Buddhist-era year."""

# --- time patterns -----------------------------------------------------------------------------------

_AMPM: Final = r"(?P<ap>[ap]\.?\s?m\b\.?|صباحا|ص(?!\w)|مساء|م(?!\w))"
"""a.m./p.m., and the Arabic صباحاً (morning) / مساءً (evening) with their one-letter forms ص / م."""
_CJK_HALF_DAY: Final = r"午前|午後|上午|下午|早上|晚上|中午|오전|오후"
_AFTERNOON: Final = frozenset({"午後", "下午", "晚上", "오후"})
_MORNING: Final = frozenset({"午前", "上午", "早上", "오전"})
_TIME: Final = compile_folded(
    r"(?<![\d.:/,])(?:"
    rf"(?:(?P<ap0>{_CJK_HALF_DAY})\s?)?(?P<h>[01]?\d|2[0-3])(?P<sep>\s?[:h]\s?|\.)(?P<mi>[0-5]\d)(?::[0-5]\d)?(?!\d)"
    rf"\s*{_AMPM}?\s*(?P<u>uhr|hrs?\b|hours|heures|horas|hs\b|h\b|noon|midday|часов|часа|ч\b\.?|val\b\.?|น\b\.?)?"
    rf"|(?:(?P<ap5>{_CJK_HALF_DAY})\s?)?(?P<h5>[01]?\d|2[0-3])\s?(?:[時时点點](?![間间])|시(?!간))"
    r"\s?(?:(?P<mi5>[0-5]?\d)\s?[分분]|(?P<half>半|반))?"
    r"|(?P<h6>[01]?\d|2[0-3])\s?giờ\s?(?:(?P<mi6>[0-5]\d)(?:\s?phút)?)?"
    r"|(?P<h2>1[0-2]|0?[1-9])\s?(?P<ap2>[ap]\.?\s?m\b\.?)"
    r"|(?P<h3>[01]?\d|2[0-3])\s?(?:uhr|heures?|hrs|hours|horas|h)(?![^\W\d_])"
    r"|(?P<h4>[01]\d|2[0-3])(?P<mi4>[0-5]\d)\s?(?:hrs|hours|h)(?![^\W\d_])"
    r"|(?P<noon>noon|midday|midi|mezzogiorno|mediodia|mittag)"
    r")"
)
_TIME_CONNECTOR: Final = compile_folded(
    r"(?:ore|um|at|alle|las|godz\.?|godziny|godzinie|by|hora|horas|a|kl\.?|klo|kello|klockan|kell|plkst\.?"
    r"|orele|ora|saat|pukul|jam|lúc|в|до|στις|hod\.?|óra|เวลา|בשעה)\s*$"
)
"""Words before a time of day that make '12.00' a time, not a number ('kl. 12.00', 'в 10.00', 'pukul 10.00')."""
_GAP_WORDS: Final = (
    frozenset(
        fold(word)
        for word in """
        at by on from to until till before latest the a las la le les el ore alle um bis spatestens do godz
        godziny godzinie godzina lokalna o r h hrs hours heures heure horas hora uhr uhrzeit time local de du del
        des et and y e i und ou hasta entro giorno dnia dniu w of not later than no prior or as om kl noon midday
        ist est edt cet cest gmt utc awst acst aest mst cst pst pdt cdt mdt eat wat cat sast bst mez mesz hs
        standard daylight eastern central pacific mountain western australia indian arabia kenya locale italiana
        ortszeit peninsular ora lt am pm m p upto up hour dia jour tag avant vor antes prima
        czas lokalny locala plaatselijke tijd lokal tid mistni miestny cas paikallinen aika helyi ido lokalno
        vrijeme lokalni vietos laikas vietejais laiks kohalik aeg местно време τοπικη
        الساعة الموافق م هـ ه يوم تمام
        в во до по час часов часа ч мин минут местному московскому времени время мск г года року р
        στις ώρα ωρα και orele la pana saat saati da de te lúc luc gio giờ vao vào truoc trước pukul jam wib wita
        wit sampai klo kello klockan kell plkst val hod hodin óra ig ob u sati hodine เวลา น นาฬิกา ถึง ภายใน
        בשעה עד שעה
        まで までに 迄 必着 前 之前 以前 止 为止 整 까지 전 이전
        """.split()
    )
    | set(_NAMES["weekday_words"])
)
"""Words that may stand between a date and its time: connectors, weekdays, time zones ('at', 'à', 'ore', 'um',
'a las', 'Friday', 'EST', 'local time', 'الساعة', 'в', 'στις', 'saat', 'lúc', '（月）', '까지'; the TED form's 'Local
time' in each EU language: 'Czas lokalny', 'Helyi idő' …)."""
_GAP_MAX: Final = 48
_ZONE: Final = re.compile(r"\([^()\d]{0,30}(?:time|heure|hora|ora|zeit|saat|времени)\)")
"""A time zone in parentheses: '16:00 (Tashkent Time), April 24, 2025', '(по местному времени)'."""


# --- parsing ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedDate:
    """A date found in one string: where (character offsets), which day, whether it was Hijri."""

    start: int
    end: int
    day: date
    hijri: bool = False


def make_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _gregorian(year: int, text: str, *, named_month: bool) -> int | None:
    """The Gregorian year of a printed four-digit year: a Buddhist-era year (25xx) with a month name or in
    Thai context ('15 มีนาคม 2569', '15/03/2569' on a Thai line) is 543 years ahead."""
    if year < 2400:
        return year
    if named_month or _BUDDHIST_CONTEXT.search(text):
        return buddhist_year(year)
    return None


def parse_dates(text: str, *, month_first: bool = False) -> list[ParsedDate]:
    """Every date written in `text` (folded, see document.fold), in order, without overlaps.

    `month_first` resolves numeric dates that read both ways (03/04/2026) the US way; a date whose
    first or second number exceeds 12 reads the only way it can.
    """
    text = ascii_digits(text)
    found = [*_named_month_dates(text), *_numeric_dates(text, month_first), *_cjk_dates(text), *_hijri_dates(text)]
    found.sort(key=lambda parsed: (parsed.start, -(parsed.end - parsed.start)))
    kept: list[ParsedDate] = []
    for parsed in found:
        if kept and parsed.start < kept[-1].end:
            continue
        kept.append(parsed)
    return _year_less_range_ends(text, kept)


def _named_month_dates(text: str) -> list[ParsedDate]:
    found: list[ParsedDate] = []
    for pattern in (DMY_TEXT, MDY_TEXT, _YMD_TEXT):
        for match in pattern.finditer(text):
            year = _gregorian(int(match["y"]), text, named_month=True)
            day = make_date(year, MONTHS[match["m"]], int(match["d"])) if year is not None else None
            if day is not None:
                found.append(ParsedDate(match.start(), match.end(), day))
    return found


def _numeric_dates(text: str, month_first: bool) -> list[ParsedDate]:
    found: list[ParsedDate] = []
    for match in (*NUMERIC.finditer(text), *_NUMERIC_DOTTED.finditer(text)):
        first, second = int(match["a"]), int(match["b"])
        year = _gregorian(int(match["y"]), text, named_month=False)
        if year is None:
            continue
        if match["s"] == "." or first > 12 or (second <= 12 and not month_first):
            day = make_date(year, second, first)
        else:
            day = make_date(year, first, second)
        if day is not None:
            found.append(ParsedDate(match.start(), match.end(), day))
    for match in (*_ISO.finditer(text), *_SPACED_YMD.finditer(text), *_VIETNAMESE.finditer(text)):
        day = make_date(int(match["y"]), int(match["m"]), int(match["d"]))
        if day is not None:
            found.append(ParsedDate(match.start(), match.end(), day))
    return found


def _cjk_dates(text: str) -> list[ParsedDate]:
    found: list[ParsedDate] = []
    if text.isascii():
        return found
    for match in (*_CJK_YMD.finditer(text), *_ERA_NUMERIC.finditer(text)):
        year = era_year(match["era"], match["ey"]) if match["era"] else int(match["y"])
        day = make_date(year, int(match["m"]), int(match["d"])) if year is not None else None
        if day is not None:
            found.append(ParsedDate(match.start(), match.end(), day))
    for match in KANJI_DATE.finditer(text):
        if (day := kanji_date(match)) is not None:
            found.append(ParsedDate(match.start(), match.end(), day))
    if _HAN.search(text) and not _KANA.search(text):
        for match in ROC_NUMERIC_DATE.finditer(text):
            year = era_year("民國", match["year"])
            day = make_date(year, int(match["month"]), int(match["day"])) if year is not None else None
            if day is not None:
                found.append(ParsedDate(match.start(), match.end(), day))
    return found


def _year_less_range_ends(text: str, kept: list[ParsedDate]) -> list[ParsedDate]:
    """The dates with the CJK month-days that follow a full date on the line ('令和8年7月27日～7月28日'):
    such a day takes the year of the date before it (the next year when its month comes earlier)."""
    if not kept or text.isascii():
        return kept
    result = list(kept)
    for match in _CJK_MD.finditer(text):
        if any(parsed.start <= match.start() < parsed.end for parsed in kept):
            continue
        before = [parsed for parsed in kept if parsed.end <= match.start()]
        if not before:
            continue
        previous = before[-1].day
        month, day_of_month = int(match["m"]), int(match["d"])
        year = previous.year + (1 if month < previous.month else 0)
        day = make_date(year, month, day_of_month)
        if day is not None:
            result.append(ParsedDate(match.start(), match.end(), day))
    result.sort(key=lambda parsed: parsed.start)
    return result


def _hijri_dates(text: str) -> list[ParsedDate]:
    found: list[ParsedDate] = []
    arabic = _ARABIC.search(text) is not None
    for pattern in (_HIJRI_YMD, _HIJRI_DMY):
        for match in pattern.finditer(text):
            marked = _HIJRI_MARK.search(text, max(0, match.start() - 8), match.end() + 8) is not None
            if not (arabic or marked):
                continue
            day = hijri_day(int(match["y"]), int(match["m"]), int(match["d"]))
            if day is not None:
                found.append(ParsedDate(match.start(), match.end(), day, hijri=True))
    return found


@dataclass(frozen=True)
class ParsedTime:
    start: int
    end: int
    hour: int
    minute: int


def _time_of(match: re.Match[str]) -> tuple[int, int] | None:
    if match["noon"]:
        return 12, 0
    if match["h4"]:
        return int(match["h4"]), int(match["mi4"])
    if match["h3"]:
        return int(match["h3"]), 0
    if match["h5"]:
        minute = int(match["mi5"]) if match["mi5"] else 30 if match["half"] else 0
        return _half_day(int(match["h5"]), minute, match["ap5"])
    if match["h6"]:
        return int(match["h6"]), int(match["mi6"] or 0)
    if match["h2"]:
        hour, ampm = int(match["h2"]), match["ap2"]
        minute = 0
    else:
        hour, minute, ampm = int(match["h"]), int(match["mi"]), match["ap"]
        connector = _TIME_CONNECTOR.search(match.string[: match.start()])
        if match["sep"] == "." and not (ampm or match["u"] or connector or match["ap0"]):
            return None
        if match["sep"].strip() == "h" and match["u"]:
            return None
        if match["ap0"]:
            return _half_day(hour, minute, match["ap0"])
    if ampm:
        if hour > 12 or hour == 0:
            return None
        hour = hour % 12 + (12 if ampm[0] in "pم" else 0)
    return hour, minute


def _half_day(hour: int, minute: int, half: str | None) -> tuple[int, int] | None:
    """A CJK time with its half of the day: '午後3時' is 15:00, '午前12時' midnight, '下午15时' 15:00."""
    if half in _AFTERNOON and hour < 12:
        return hour + 12, minute
    if half in _MORNING and hour == 12:
        return 0, minute
    return hour, minute


def parse_times(text: str) -> list[ParsedTime]:
    """Every time of day written in `text` (folded): '12:00', '12h00', '12.00 Uhr', '5:00 PM', '12 heures',
    '午後03時00分', '14 时 30 分', '16시'."""
    times: list[ParsedTime] = []
    for match in _TIME.finditer(ascii_digits(text)):
        value = _time_of(match)
        if value is not None:
            times.append(ParsedTime(match.start(), match.end(), *value))
    return times


def gap_allowed(gap: str) -> bool:
    """Whether only connectors (at, à, ore, um, a las, weekday names, time zones, punctuation) stand between
    a date and its time: 'April 1, 2019 at noon', '10 septembre 2020, à 12 heures', '12.01.2026     12:00'."""
    if any(character.isdigit() for character in gap):
        return False
    if not gap.strip():
        return True
    gap = _ZONE.sub(" ", gap)
    if len(gap) > _GAP_MAX:
        return False
    return all(word in _GAP_WORDS for word in re.findall(r"[^\W\d_]+", gap))



def write_cldr_names() -> None:
    """`make cldr-names`: write `CLDR_NAMES` from babel."""
    CLDR_NAMES.write_text(json.dumps(cldr_names(), ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
