"""What stands around a buyer's value: its verbatim quote and whether the validator will ground it, the
lines above it, whether it sits in the buyer's block, and whether its context makes it another party's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from tenderflow.extraction.offline.contact_words import CONTACT_NEGATIVE, HEADING_NEGATIVE
from tenderflow.extraction.offline.document import SEPARATORS, Document, LabelHit, Line
from tenderflow.extraction.validation import normalize_for_matching

THRESHOLD: Final = 0.5
LETTERHEAD_LINES: Final = 12
BLOCK_LINES: Final = 8
MAX_NAME_WORDS: Final = 16


# --- small text helpers -----------------------------------------------------------------------------------


def clean_value(text: str) -> str:
    """A value without the separators and punctuation around it; brackets and quotes only when unbalanced
    ('Comune di Serino (AV)' keeps its parenthesis, '(Vergabestelle' loses it; 'ООО "АРКТИК"' keeps its
    quotes, 'Ville de Nîmes"' loses one)."""
    value = text
    for _ in range(3):
        value = value.strip(SEPARATORS + " ,;'").strip()
        while value and value[0] in "([" and value.count(value[0]) > value.count(")" if value[0] == "(" else "]"):
            value = value[1:].strip()
        while value and value[-1] in ")]" and value.count(value[-1]) > value.count("(" if value[-1] == ")" else "["):
            value = value[:-1].strip()
        value = _unquoted(value)
    return value


_QUOTE_PAIRS: Final = {'"': '"', "“": "”", "«": "»", "„": "“", "”": "”"}


def _unquoted(value: str) -> str:
    """`value` without a quote mark at either end that closes or opens nothing inside it, or without the
    pair of quotes that encloses all of it."""
    if len(value) > 1 and value[0] in _QUOTE_PAIRS and value[-1] == _QUOTE_PAIRS[value[0]]:
        symmetric = value[0] == value[-1]
        if (value.count(value[0]) == 2) if symmetric else value.count(value[0]) == value.count(value[-1]) == 1:
            return value[1:-1].strip()
    if value[:1] in _QUOTE_PAIRS:
        opening, closing = value[0], _QUOTE_PAIRS[value[0]]
        if (value.count(opening) % 2 == 1) if opening == closing else value.count(opening) > value.count(closing):
            value = value[1:].strip()
    closers = {closing: opening for opening, closing in _QUOTE_PAIRS.items()}
    if value[-1:] in closers:
        closing, opening = value[-1], closers[value[-1]]
        if (value.count(closing) % 2 == 1) if opening == closing else value.count(closing) > value.count(opening):
            value = value[:-1].strip()
    return value


def grounded(value: str, quote: str) -> bool:
    """Whether the validator will find `value` in `quote`: as one run once whitespace and hyphens are
    ignored, or word by word in order when the quote spans layout columns (see validation.py)."""
    wanted = normalize_for_matching(value)
    if not wanted:
        return False  # nothing to ground (a name refused on the way: another party's)
    if wanted in normalize_for_matching(quote):
        return True
    if not re.search(r"\s{4,}|\t", quote):
        return False
    words = iter(re.findall(r"\w+", unicodedata.normalize("NFKC", quote).casefold()))
    return all(word in words for word in re.findall(r"\w+", unicodedata.normalize("NFKC", value).casefold()))


def quote_lines(lines: Sequence[Line]) -> str:
    """The verbatim quote of one or several printed lines, as they stand on the page: one line stripped,
    several without the margin they share (a value in a form's right column keeps its place beside the
    label's wrapped lines, so the validator sees the column gap)."""
    if len(lines) == 1:
        return lines[0].stripped
    margin = min(len(line.text) - len(line.text.lstrip()) for line in lines if line.text.strip())
    return "\n".join(line.text[margin:].rstrip() for line in lines)


def placeholder(text: str) -> bool:
    """Template blanks: dots, underscores, '[insert ...]', 'xxx', '<name>'."""
    return bool(
        re.search(r"\.{4,}|_{3,}|…{2,}|\[[^\]]*\]|<[^>]*>|\bx{3,}\b|\binsert\b|\bname of\b", text, re.IGNORECASE)
    )


def previous_lines(document: Document, line: Line, count: int) -> list[Line]:
    """Up to `count` non-blank lines before `line` on its page, nearest first."""
    page = document.lines_of(line.page)
    found: list[Line] = []
    for other in reversed(page[: line.row]):
        if other.text.strip():
            found.append(other)
            if len(found) >= count:
                break
    return found


# --- contacts: shared scoring --------------------------------------------------------------------------------


def block_bonus(document: Document, line: Line, anchors: Sequence[Line]) -> float:
    """How much being at `line` says 'this is in the buyer's block': right under a buyer label or name."""
    best = 0.0
    for anchor in anchors:
        if anchor.page != line.page:
            continue
        distance = line.row - anchor.row
        if 0 <= distance <= BLOCK_LINES:
            best = max(best, 0.3 - 0.015 * distance)
    return best


@dataclass
class _Memo:
    """What the contact readers keep of the document being read: label hits and the lines they stand on."""

    hits: dict[str, tuple[LabelHit, ...]] = field(default_factory=dict)
    lines: dict[str, frozenset[int]] = field(default_factory=dict)


_MEMO: list[tuple[Document, _Memo]] = []


def _memo(document: Document) -> _Memo:
    found = next((memo for cached, memo in _MEMO if cached is document), None)
    if found is None:
        found = _Memo()
        _MEMO[:] = [(document, found)]
    return found


def label_hits(document: Document, pattern: re.Pattern[str]) -> tuple[LabelHit, ...]:
    """Every hit of a label pattern in the document, found with one scan and kept for the document being
    read: the buyer's labels, the parties' and the contact labels are asked for by several readers."""
    memo = _memo(document)
    hits = memo.hits.get(pattern.pattern)
    if hits is None:
        hits = memo.hits[pattern.pattern] = tuple(document.find(pattern))
    return hits


def labelled_lines(document: Document, pattern: re.Pattern[str]) -> frozenset[int]:
    """The indexes of the lines where `pattern` (a label pattern on folded text) matches."""
    memo = _memo(document)
    lines = memo.lines.get(pattern.pattern)
    if lines is None:
        lines = memo.lines[pattern.pattern] = frozenset(hit.line.index for hit in label_hits(document, pattern))
    return lines


def letterhead_zone(document: Document, line: Line) -> bool:
    """Whether `line` is among the first twelve or the last four printed lines of the first page (an item
    of a list that runs to the page's end is not a footer)."""
    if not document.page_numbers or line.page != document.page_numbers[0]:
        return False
    printed = [other for other in document.lines_of(line.page) if other.text.strip()]
    return line in printed[:12] or (line in printed[-4:] and not LIST_ITEM.match(line.folded))


def context_above(document: Document, line: Line, before: int = 1) -> str:
    """The folded text of `line` and the `before` non-blank lines above it (nearest last)."""
    previous = previous_lines(document, line, before)
    return " ".join(other.folded for other in reversed(previous)) + " " + line.folded


LIST_ITEM: Final = re.compile(
    r"^\s*(?:[○◦●•・※☞▶►■□◆◇→\-–*]|[①-⑳]|\(?\d{1,2}[.)）、]|\(?[a-z가-힣ア-ン][.)）]|[一二三四五六七八九十]+、)"
)
"""A line that opens an item of a list ('○ 입찰 및 계약절차 : …', '① …', '(3) 問合せ先'): the item above is
another one, not this line's heading."""


def other_party(document: Document, line: Line, start: int) -> bool:
    """A contact on `line` at column `start` belongs to somebody else (help desk, tribunal, DPO...): by
    the words before it on its line, or on the line above unless the line opens a list item of its own."""
    own = line.folded[max(0, start - 160) : start + 60]
    previous = previous_lines(document, line, 4)
    above = previous[0].folded if previous and not LIST_ITEM.match(line.folded) else ""
    context = above + " " + own
    if CONTACT_NEGATIVE.search(context) is not None:
        return True
    return any(HEADING_NEGATIVE.search(other.folded) for other in previous[1:] if not _contact_line(other))


def _contact_line(line: Line) -> bool:
    """Whether a line gives a contact of its own (a number, an e-mail): a sibling item, not a heading."""
    return "@" in line.text or len(re.findall(r"\d", line.text)) >= 7

