"""Mentions: every date a document prints, with the time printed next to it and the lines they use.

A date is read on its line (date_parsing.parse_dates) and completed the way an analyst completes it: the
time after it ('21.11.2025   12:00', '令和8年9月25日 午前09時30分'), on the next line, or before it ('2:00
p.m. on April 2, 2026', also at the end of the line above); a date broken over two lines ('22. März' /
'2023'); a date stacked in a table cell ('25th' / 'November,' / '2021'). Whether a numeric date is read
day first or month first is decided once per document (`month_first`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from typing import Final

from tenderflow.extraction.offline.date_parsing import (
    DAY,
    DMY_TEXT,
    MDY_TEXT,
    MONTH,
    MONTHS,
    NUMERIC,
    ORDINAL,
    YEAR,
    ParsedDate,
    gap_allowed,
    make_date,
    parse_dates,
    parse_times,
)
from tenderflow.extraction.offline.date_words import STRONG_CUE
from tenderflow.extraction.offline.document import Cell, Document, Line, fold

_DM_AT_END: Final = re.compile(rf"(?<![\w.,])(?P<d>{DAY}){ORDINAL}\.?\s*(?:de\s+)?(?P<m>{MONTH})\.?,?\s*(?:de\s*)?$")
_MD_AT_END: Final = re.compile(rf"(?<![^\W\d_])(?P<m>{MONTH})\.?\s*(?P<d>{DAY})(?:st|nd|rd|th)?,?\s*$")
_YEAR_AT_START: Final = re.compile(rf"^\s*(?P<y>{YEAR})(?!\d)")
_MDY_HINT: Final = re.compile(r"\bmm\s?/\s?dd\s?/\s?(?:yy)?yy\b", re.IGNORECASE)
PREFILTER: Final = re.compile(r"\d{4}|[年년]|(?<!\d)1[01]\d/\d")
"""Lines worth parsing: every date has a four-digit year (in any script's digits), or is a CJK date whose year
may be an era's ('令和8年'), or a date of Taiwan's ('115/03/05')."""
_PREFILTER_DAY: Final = re.compile(r"\d")
_STACK_START: Final = re.compile(rf"{DAY}(?:st|nd|rd|th|er)?\.?(?:\s*(?:de\s+)?{MONTH}\.?,?)?")
_STACK_ROWS: Final = 3
TIME_ROWS: Final = 2
"""How far (in rows, a blank one between allowed: OCR text has them) a time may stand from its date."""
_LETTER: Final = re.compile(r"[^\W\d_]")


@dataclass(frozen=True)
class Mention:
    """A date printed in the document with the time printed next to it (if any) and the lines they use."""

    line: Line
    start: int
    end: int  # end of the date, or of its time when the time follows it on the same line
    day: date
    time: tuple[int, int] | None
    first: Line  # the first line the date and its time use
    last: Line  # the last one

    @property
    def value(self) -> str:
        if self.time is None:
            return self.day.isoformat()
        return f"{self.day.isoformat()}T{self.time[0]:02d}:{self.time[1]:02d}"


def month_first(document: Document) -> bool:
    """Whether the document writes numeric dates month first (US style): it says mm/dd/yyyy, or more of its
    unambiguous slash dates read month first than day first, or, with no such date, more of its written-out
    dates read 'March 15, 2026' than '15 March 2026'."""
    month_first = day_first = 0
    text_month_first = text_day_first = 0
    for line in document.lines:
        if not PREFILTER.search(line.text):
            continue
        if "/" in line.text:
            if _MDY_HINT.search(line.text):
                return True
            for match in NUMERIC.finditer(line.text):
                if match["s"] == "/":
                    first, second = int(match["a"]), int(match["b"])
                    month_first += second > 12 >= first
                    day_first += first > 12 >= second
        if not month_first and not day_first and _LETTER.search(line.text):
            text_month_first += len(MDY_TEXT.findall(line.folded))
            text_day_first += len(DMY_TEXT.findall(line.folded))
    if month_first or day_first:
        return month_first > day_first
    return text_month_first > text_day_first


def previous_nonblank(document: Document, line: Line) -> Line | None:
    for other in reversed(document.lines_of(line.page)[: line.row]):
        if other.text.strip():
            return other
    return None


def next_nonblank(document: Document, line: Line) -> Line | None:
    nexts = document.next_lines(line, 1)
    return nexts[0] if nexts else None


def mentions(document: Document) -> list[Mention]:
    """Every date of the document with its time, in reading order, but those of its running headers and
    footers. Only lines with a four-digit number are folded and parsed, and lines that end with a day and
    month when the next line starts with a year."""
    month_first_order = month_first(document)
    mentions: list[Mention] = []
    lines = document.lines
    for position, line in enumerate(lines):
        if not PREFILTER.search(line.text):
            if _PREFILTER_DAY.search(line.text) and any(
                PREFILTER.search(other.text) for other in lines[position + 1 : position + 1 + _STACK_ROWS]
            ):
                broken = _split_date(document, line) or _stacked_date(document, line)
                if broken is not None:
                    mentions.append(broken)
            continue
        folded = line.folded
        dates = parse_dates(folded, month_first=month_first_order)
        for index, parsed in enumerate(dates):
            after_limit = dates[index + 1].start if index + 1 < len(dates) else len(folded)
            before_limit = dates[index - 1].end if index else 0
            mentions.append(_with_time(document, line, parsed, before_limit, after_limit))
        if not dates:
            split = _split_date(document, line)
            if split is not None:
                mentions.append(split)
    running = _running_lines(mention.line for mention in mentions)
    return [mention for mention in mentions if mention.line.index not in running]


_RUNNING_PAGES: Final = 3


def _running_lines(lines: Iterable[Line]) -> set[int]:
    """The lines that a page header or footer repeats on three pages or more, digits aside ('Sistemul
    Electronic de Achizitii Publice, 19.10.2020 15:05   Pagina 6', '08.04.2026, 21:37   Печатная форма'):
    the date a document was printed is no deadline. A repeated line that names a time limit is kept."""
    pages: dict[str, set[int]] = {}
    indices: dict[str, list[int]] = {}
    for line in lines:
        if STRONG_CUE.search(line.folded):
            continue  # 'Closing date: 15.03.2026' in every page's header is the deadline, repeated
        key = " ".join(_DIGIT_RUN.sub("#", line.folded).split())
        pages.setdefault(key, set()).add(line.page)
        indices.setdefault(key, []).append(line.index)
    return {index for key, found in pages.items() if len(found) >= _RUNNING_PAGES for index in indices[key]}


_DIGIT_RUN: Final = re.compile(r"\d+")


def _stacked_date(document: Document, line: Line) -> Mention | None:
    """A date stacked in a table cell over two or three lines ('25th' / 'November,' / '2021'): a cell that
    holds only a day, or a day and a month, completed by the cells below it in the same column."""
    for cell in cells(line.text):
        if not _STACK_START.fullmatch(fold(cell.text)):
            continue
        texts = [cell.text]
        current = line
        for _ in range(_STACK_ROWS):
            below = next_nonblank(document, current)
            if below is None or below.row - current.row > TIME_ROWS:
                break
            texts += [other.text for other in cells(below.text) if other.overlaps(cell)]
            parsed = parse_dates(fold(" ".join(texts)))
            if parsed and parsed[0].start == 0:
                return Mention(line, cell.start, cell.end, parsed[0].day, None, line, below)
            current = below
    return None


def _split_date(document: Document, line: Line) -> Mention | None:
    """A date broken across two lines: '… bis spätestens 22. März' / '2023 zu stellen'."""
    folded = line.folded.rstrip()
    match = _DM_AT_END.search(folded) or _MD_AT_END.search(folded)
    if match is None:
        return None
    following = next_nonblank(document, line)
    if following is None or following.row != line.row + 1:
        return None
    year = _YEAR_AT_START.match(following.folded)
    if year is None:
        return None
    day = make_date(int(year["y"]), MONTHS[match["m"]], int(match["d"]))
    if day is None:
        return None
    rest = following.folded[year.end() :]
    time = None
    for parsed in parse_times(rest)[:1]:
        if gap_allowed(rest[: parsed.start]):
            time = (parsed.hour, parsed.minute)
    return Mention(line, match.start(), len(folded), day, time, line, following)


def _with_time(document: Document, line: Line, parsed: ParsedDate, before_limit: int, after_limit: int) -> Mention:
    """The mention of `parsed` with the time printed after it (same line, or at the start of the next line)
    or, failing that, right before it ('2:00 p.m. on April 2, 2026', also from the end of the line above)."""
    folded = line.folded
    plain = Mention(line, parsed.start, parsed.end, parsed.day, None, line, line)
    after = folded[parsed.end : after_limit]
    times = parse_times(after)
    if times and gap_allowed(after[: times[0].start]):
        return replace(plain, end=parsed.end + times[0].end, time=(times[0].hour, times[0].minute))
    if after_limit == len(folded) and gap_allowed(after):
        following = next_nonblank(document, line)
        if following is not None and following.row - line.row <= TIME_ROWS:
            head = following.folded.lstrip()
            times = parse_times(head)
            if times and gap_allowed(head[: times[0].start]) and not parse_dates(head[: times[0].end + 6]):
                return replace(plain, time=(times[0].hour, times[0].minute), last=following)
    before = folded[before_limit : parsed.start]
    times = parse_times(before)
    if times and gap_allowed(before[times[-1].end :]):
        return replace(plain, time=(times[-1].hour, times[-1].minute))
    if before_limit == 0 and gap_allowed(before):
        previous = previous_nonblank(document, line)
        if previous is not None and line.row - previous.row <= TIME_ROWS:
            times = parse_times(previous.folded)
            tail = previous.folded[times[-1].end :] if times else ""
            if times and gap_allowed(tail + " " + before) and not parse_dates(previous.folded[times[-1].start :]):
                return replace(plain, time=(times[-1].hour, times[-1].minute), first=previous)
    return plain


# --- layout cells ---------------------------------------------------------------------------------------


_CELL: Final = re.compile(r"\S+(?:[ \t]{1,2}\S+)*")
"""A layout cell: words separated by at most two spaces. (document.Line.cells merges a one-character
cell into the next one: its lazy pattern lets 'e          informatici' be one cell.)"""


@lru_cache(maxsize=4096)
def cells(text: str) -> tuple[Cell, ...]:
    """The layout cells of a line's text (see _CELL)."""
    return tuple(Cell(match.start(), match.end(), match.group()) for match in _CELL.finditer(text))


def cell_at(text: str, column: int) -> Cell | None:
    """The cell covering `column`, or the first one after it."""
    return next((cell for cell in cells(text) if cell.end > column), None)


def columns_overlap(start: int, end: int, other_start: int, other_end: int, slack: int = 2) -> bool:
    """Whether two column ranges overlap, give or take `slack` characters of layout jitter."""
    return start <= other_end + slack and other_start <= end + slack
