"""The document as the offline extractor reads it: pages of lines, each line cut into layout cells.

Page text comes from ``pdftotext -layout`` (text layers) or tesseract (scans), so a line keeps the
horizontal position of what is printed: table columns are runs of text separated by wide gaps.
That is the geometry the extractor uses, the way an analyst reads a form:

    Nom de l'acheteur :  Ville de Nîmes            <- value after the label, same cell
    Reference No.        KCC-RD-2025-014           <- value in the next cell of the same row
    Closing date
      15 March 2026                                <- value in the cell below (overlapping columns)

`Document.labelled(...)` finds every occurrence of a field's labels and yields the value spans that
follow each one in those three places, with the distance in lines; field modules turn spans into
typed candidates and score them (see candidates.py).

Everything here is pure and cheap: a 50-page document is a few thousand lines, each folded once.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Final

from tenderflow.extraction.backend import PageLike

_CELL_GAP: Final = re.compile(r"\S(?:.*?\S)??(?=\s{3,}|\s*$)")
"""A cell: text up to a gap of three or more spaces (pdftotext pads columns with spaces)."""

SEPARATORS: Final = " \t:：.-–—=>|*_"
"""What may stand between a label and its value: 'Reference: X', 'Reference - X', 'Reference .... X'."""


_LOOK_ALIKES: Final = {"\u2206": "δ", "\u2126": "ω", "\u2211": "σ", "\u220f": "π"}
"""Mathematical symbols that Greek text layers set in a Symbol font print for letters: ∆ (increment)
for Δ, Ω (ohm) for Ω, ∑ for Σ, ∏ for Π. (µ, the micro sign, folds to μ by itself.)"""


_STROKED: Final = {"ł": "l", "Ł": "l", "ø": "o", "Ø": "o"}
"""Letters with a stroke, which Unicode does not decompose into a letter and an accent: the Polish 'ł'
('składania' → 'skladania') and the Danish and Norwegian 'ø' ('udførelse' → 'udforelse') fold like the
accented letters beside them, so that a label written without them matches the printed word. (The
Vietnamese and Croatian 'đ' stays: Vietnamese words are written with it throughout.)"""


class _Folding(dict[int, str]):
    """str.translate's table for `fold`, filled one character at a time as characters are met."""

    def __missing__(self, code: int) -> str:
        character = chr(code)
        if character == "ß":
            folded = "ss"  # the one expansion: German labels are written 'strasse', 'massnahme'
        elif character in _LOOK_ALIKES:
            folded = _LOOK_ALIKES[character]
        elif character == "\u2019":
            folded = "'"  # the typographic apostrophe ('d’offres', 'dell’appalto') is the ASCII one
        elif character in _STROKED:
            folded = _STROKED[character]
        elif "\uac00" <= character <= "\ud7a3":
            folded = character  # a Hangul syllable stays whole (NFKD would spell it out in jamo)
        else:
            decomposed = unicodedata.normalize("NFKD", character)
            stripped = "".join(part for part in decomposed if not unicodedata.combining(part)).casefold()
            # one character for one: 'Ä' → 'a', 'Ｂ' (full width) → 'b', '１' → '1', 'ё' → 'е', 'ά' → 'α';
            # a character that would expand ('㈱' → '(株)', 'ﬁ' → 'fi') or vanish (a lone accent) stays itself
            folded = stripped if len(stripped) == 1 else character.casefold() if len(character.casefold()) == 1 \
                else character
        self[code] = folded
        return folded


_FOLDING: Final = _Folding()


def fold(text: str) -> str:
    """Lower-case text without accents ('März' → 'marz', 'Février' → 'fevrier', 'ΦΙΛΤΡΟ' → 'φιλτρο', 'Łódź' →
    'lodz'),
    full-width forms made plain ('１２月' → '12月', the ideographic space a space), the typographic
    apostrophe the ASCII one ('d’offres' → "d'offres"), one character for one everywhere but 'ß' → 'ss', so
    that positions in folded text are positions in the printed text. For matching labels and words in
    any script."""
    if text.isascii():
        return text.casefold()  # most lines: nothing to decompose
    return text.translate(_FOLDING)


def is_unspaced(character: str) -> bool:
    """A character of a script written without spaces between words (Han, kana, Hangul, Thai): a label
    in it has no word boundary to rest on."""
    return character in _UNSPACED_RANGES


class _UnspacedRanges:
    _RANGES: Final = (
        ("\u0e00", "\u0e7f"),  # Thai
        ("\u1100", "\u11ff"),  # Hangul jamo
        ("\u3040", "\u30ff"),  # hiragana, katakana
        ("\u3130", "\u318f"),  # Hangul compatibility jamo
        ("\u3400", "\u4dbf"),  # CJK extension A
        ("\u4e00", "\u9fff"),  # CJK unified ideographs
        ("\uac00", "\ud7a3"),  # Hangul syllables
        ("\uf900", "\ufaff"),  # CJK compatibility ideographs
        ("\uff66", "\uff9f"),  # half-width katakana
    )

    def __contains__(self, character: object) -> bool:
        return isinstance(character, str) and any(low <= character <= high for low, high in self._RANGES)


_UNSPACED_RANGES: Final = _UnspacedRanges()

_LETTER_SPACED: Final = re.compile(
    r"(?<![^\s])([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3])((?:[ \u3000]{1,6}"
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3](?![^\s:：.]))+)"
)
"""A label whose characters are spread to fill a table cell, as CJK forms print them: '工    事 名',
'공 사 입 찰 공 고'. Two or more single characters, each standing alone between spaces."""


def close_letter_spacing(text: str) -> str:
    """`text` with letter-spaced CJK runs written together and padded after, so that every other
    character keeps its column: '工    事 名   副知事公舎' → '工事名         副知事公舎'. Quotes stay
    grounded: validation compares page text without white space."""
    if text.isascii():
        return text

    def closed(match: re.Match[str]) -> str:
        run = match.group()
        letters = "".join(run.split())
        return letters + " " * (len(run) - len(letters))

    return _LETTER_SPACED.sub(closed, text)


@dataclass(frozen=True)
class Cell:
    """A run of text on one line between wide gaps; ``start``/``end`` are character columns."""

    start: int
    end: int
    text: str

    def overlaps(self, other: Cell, slack: int = 2) -> bool:
        return self.start <= other.end + slack and other.start <= self.end + slack


@dataclass(frozen=True)
class Line:
    """One printed line: its page, its position in the document and on its page, its text as printed."""

    page: int
    index: int  # position in Document.lines
    row: int  # position among the lines of its page (0-based, blank lines counted)
    text: str

    @cached_property
    def folded(self) -> str:
        return fold(self.text)

    @cached_property
    def cells(self) -> tuple[Cell, ...]:
        return tuple(Cell(match.start(), match.end(), match.group()) for match in _CELL_GAP.finditer(self.text))

    @property
    def stripped(self) -> str:
        return self.text.strip()

    def cell_at(self, column: int) -> Cell | None:
        """The cell that covers ``column``, or the first one starting after it."""
        for cell in self.cells:
            if cell.end > column:
                return cell
        return None


@dataclass(frozen=True)
class Span:
    """Text that follows a label: where it is and how far from the label.

    ``how`` is "same" (after the label in its own cell), "right" (a later cell of the label's row),
    "below" (a cell of a later line that overlaps the label's columns) or "next" (the next
    non-empty line, whole). ``distance`` is the number of lines between label and value (0 on the
    same line). ``quote`` is verbatim page text: the line(s) the value stands on.
    """

    text: str
    line: Line
    how: str
    distance: int
    label_line: Line
    quote: str

    @property
    def page(self) -> int:
        return self.line.page


@dataclass(frozen=True)
class LabelHit:
    """One occurrence of a label: the line, where the label's text starts and ends in it."""

    line: Line
    start: int
    end: int
    label: str

    @property
    def at_line_start(self) -> bool:
        """True when only numbering, bullets or punctuation stand before the label on its line."""
        return _ONLY_NUMBERING.fullmatch(self.line.text[: self.start]) is not None


_ONLY_NUMBERING: Final = re.compile(r"[\s\d.()\[\]ivxlIVXL•*·\-–—a-h]{0,14}[\s.):]?\s*|\s*")


_CHARACTER_CLASS: Final = re.compile(r"\[\^?\]?(?:\\.|[^\]\\])*\]")
_ESCAPE: Final = re.compile(r"\\.")


@functools.lru_cache(maxsize=4096)
def _anchored(pattern: re.Pattern[str]) -> bool:
    """Whether `pattern` uses ^ or $ outside a character class (then it means a line's ends)."""
    bare = _CHARACTER_CLASS.sub("", _ESCAPE.sub("", pattern.pattern))
    return "^" in bare or "$" in bare or bool(pattern.flags & re.MULTILINE)


# Folded text has neither the typographic apostrophe nor the ideographic space (fold makes them "'" and
# " "): left out of these classes, which the tries repeat thousands of times, they cost the regex
# compiler a seventh of what a class holding a character beyond Latin-1 does (a second less at every
# start of a process that extracts, on a 2-core machine).
_SEPARATOR: Final = r"[\s.,'/_-]*"
_CJK_SPACE: Final = r" ?"
_END: Final = ""


def label_regex(labels: Iterable[str]) -> re.Pattern[str]:
    """One pattern for a list of labels, matched against FOLDED text: words separated by any run of
    spaces or punctuation, the first and last word on word boundaries. Labels are written as plain
    lower-case phrases without accents ("date limite de reception des offres"). A label that starts or
    ends in a script written without spaces ("入札書の提出期限", "공고번호", "项目名称") has no word
    boundary at that end, and a space may stand between any two of its characters ("入札 期限").

    The labels are merged into a trie before they become a pattern ("date limite de …" and "date
    de …" share "date"), so the regex engine tests each shared prefix once instead of once per label:
    a document is searched for hundreds of labels, and a plain alternation of them costs several
    milliseconds a page. Longer continuations are tried before a label ends, so the longest label
    that matches wins, as in an alternation sorted by length."""
    spaced: dict[str, Any] = {}
    unspaced: dict[str, Any] = {}
    for label in set(labels):
        folded = fold(label)
        if not folded.strip():
            continue
        boundary = not (is_unspaced(folded.strip()[0]) or is_unspaced(folded.strip()[-1]))
        node = spaced if boundary else unspaced
        for index, word in enumerate(folded.split()):
            if index:
                node = node.setdefault(_SEPARATOR, {})
            for position, character in enumerate(word):
                if position and is_unspaced(character) and is_unspaced(word[position - 1]):
                    node = node.setdefault(_CJK_SPACE, {})
                node = node.setdefault(character, {})
        node[_END] = {}
    branches = []
    if spaced:
        branches.append(r"(?<![^\W_])" + _trie_pattern(spaced) + r"(?![^\W_])")
    if unspaced:
        branches.append(_trie_pattern(unspaced))
    return re.compile("|".join(branches) if branches else r"(?!x)x")


def _trie_pattern(node: dict[str, Any]) -> str:
    branches = [(token if token in (_SEPARATOR, _CJK_SPACE) else re.escape(token)) + _trie_pattern(child)
                for token, child in sorted(node.items()) if token != _END]
    if _END in node:
        branches.append("")  # the label may end here: tried after every longer one
    if len(branches) == 1:
        return branches[0]
    return "(?:" + "|".join(branches) + ")"


@dataclass
class Document:
    """A document's pages, as lines and cells. Build it once per extraction with `Document.of(pages)`."""

    pages: dict[int, str]
    lines: list[Line] = field(default_factory=list)
    _by_page: dict[int, list[Line]] = field(default_factory=dict)

    @classmethod
    def of(cls, pages: Sequence[PageLike]) -> Document:
        document = cls(pages={page.number: page.text for page in pages})
        for page in sorted(pages, key=lambda page: page.number):
            on_page: list[Line] = []
            for row, text in enumerate(page.text.splitlines()):
                line = Line(page=page.number, index=len(document.lines), row=row, text=close_letter_spacing(text))
                document.lines.append(line)
                on_page.append(line)
            document._by_page[page.number] = on_page
        return document

    @property
    def page_numbers(self) -> list[int]:
        return sorted(self.pages)

    def lines_of(self, page: int) -> list[Line]:
        return self._by_page.get(page, [])

    @cached_property
    def folded_text(self) -> str:
        return "\n".join(line.folded for line in self.lines)

    @cached_property
    def _line_starts(self) -> list[int]:
        """Where each line starts in `folded_text` (lines joined by one newline)."""
        starts, position = [], 0
        for line in self.lines:
            starts.append(position)
            position += len(line.folded) + 1
        return starts

    def find(self, pattern: re.Pattern[str], *, pages: Iterable[int] | None = None) -> Iterator[LabelHit]:
        """Every match of `pattern` (on folded text, line by line) as a LabelHit, in reading order.

        One scan of the whole folded text picks the lines worth searching: a match on one line is
        also a match there (a newline is a non-word character, as a line's ends are), or lies inside
        a longer match that runs over a line break, whose lines are all picked. Only those lines are
        searched one by one, so the result is exactly the line-by-line one, at a fraction of the cost
        (a document is searched for dozens of label sets). Patterns anchored with ^ or $ are
        searched line by line throughout."""
        wanted = set(pages) if pages is not None else None
        if _anchored(pattern):
            candidates: Iterable[Line] = self.lines
        else:
            starts = self._line_starts
            picked: set[int] = set()
            for match in pattern.finditer(self.folded_text):
                first = bisect.bisect_right(starts, match.start()) - 1
                last = bisect.bisect_right(starts, max(match.end() - 1, match.start())) - 1
                picked.update(range(first, last + 1))
            candidates = [self.lines[index] for index in sorted(picked)]
        for line in candidates:
            if wanted is not None and line.page not in wanted:
                continue
            if not line.text.strip():
                continue
            for match in pattern.finditer(line.folded):
                yield LabelHit(line, match.start(), match.end(), match.group())

    def next_lines(self, line: Line, count: int, *, skip_blank: bool = True) -> list[Line]:
        """Up to `count` lines after `line` on the same page (blank ones skipped unless asked)."""
        page = self.lines_of(line.page)
        found: list[Line] = []
        for other in page[line.row + 1 :]:
            if skip_blank and not other.text.strip():
                continue
            found.append(other)
            if len(found) >= count:
                break
        return found

    def spans_after(self, hit: LabelHit, *, below: int = 3) -> Iterator[Span]:
        """The places a value of `hit`'s label may stand, nearest first:

        1. the rest of the label's cell after the label and separators ("same");
        2. the next cells of the same row ("right");
        3. cells of the next `below` non-empty lines that overlap the label's columns ("below");
        4. the next non-empty line, whole ("next"), when it is not under another column.
        """
        line = hit.line
        text = line.text
        label_cell = line.cell_at(hit.start)
        cell_end = label_cell.end if label_cell is not None else len(text)
        rest = text[hit.end : cell_end]
        value = rest.lstrip(SEPARATORS + "()").rstrip()
        if value:
            yield Span(value, line, "same", 0, line, line.stripped)
        for cell in line.cells:
            if cell.start >= cell_end:
                yield Span(cell.text.strip(SEPARATORS + " ").strip() or cell.text, line, "right", 0, line,
                           line.stripped)
        for distance, other in enumerate(self.next_lines(line, below), start=1):
            anchor = Cell(hit.start, cell_end, text[hit.start : cell_end])
            overlapping = [cell for cell in other.cells if cell.overlaps(anchor)]
            for cell in overlapping:
                yield Span(cell.text, other, "below", distance, line, other.stripped)
            if distance == 1 and not overlapping and other.cells:
                yield Span(other.stripped, other, "next", distance, line, other.stripped)
