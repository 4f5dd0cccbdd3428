"""How a value stands to its label, for the field readers of amounts and durations.

- `label_context`: the text that qualifies a label (its own cell up to it, and the end of the sentence
  before it in prose), where negative contexts such as 'bid security' or 'offer validity' are looked for;
- `in_prose`: whether a label stands inside a sentence, so that only its own sentence may hold its value;
- `right_to_left`: whether a line is Arabic or Hebrew, whose tables pdftotext prints as they look, the
  label on the RIGHT of its value ('17/11/1446        تقديم العروض'): such a line is read from right to left;
- `spans_after`: the places a label's value may stand (document.Document.spans_after), read leftwards in a
  right-to-left line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from tenderflow.extraction.offline.document import SEPARATORS, Document, LabelHit, Line, Span

SAME_SPAN_REACH: Final = 90
"""How far after its label, in the label's own cell, a value is looked for."""

_RIGHT_TO_LEFT: Final = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")
"""Letters of the scripts written right to left: Hebrew, Arabic (with its presentation forms), Syriac, Thaana."""
_LETTER: Final = re.compile(r"[^\W\d_]")


def right_to_left(text: str) -> bool:
    """Whether most letters of `text` are of a script written right to left (Arabic, Hebrew)."""
    if text.isascii():
        return False
    letters = len(_LETTER.findall(text))
    return letters > 0 and 2 * len(_RIGHT_TO_LEFT.findall(text)) > letters


def label_context(document: Document, hit: LabelHit) -> str:
    """Folded text that qualifies a label: its own cell up to the label, and in prose the end of the
    previous line ('garanzia provvisoria pari al / 2% del valore stimato')."""
    line = hit.line
    cell = line.cell_at(hit.start)
    cell_start = cell.start if cell is not None and cell.start <= hit.start else 0
    context = line.folded[max(cell_start, hit.start - 100) : hit.start]
    if len(line.cells) == 1 and hit.start - cell_start < 20:
        previous = previous_line(document, line)
        if previous is not None and len(previous.cells) == 1 and _CONTINUED.search(previous.text):
            context = previous.folded[-60:] + " " + context
    return context


_CONTINUED: Final = re.compile(r"(?:[^\W\d_](?<![^\W\d_A-Z])|[,(])\s*$")
"""A line that ends mid-sentence (a lower-case word, a comma): the next line continues it."""


def in_prose(hit: LabelHit) -> bool:
    """Whether the label stands inside a sentence ('It is also a term of the contract that …',
    'without mentioning the cost of Tender value.'): then only its own sentence may hold its value,
    not the lines below it, which belong to other sentences or list items."""
    if hit.at_line_start:
        return False
    cell = hit.line.cell_at(hit.start)
    rest = hit.line.folded[hit.end : cell.end if cell is not None else len(hit.line.folded)]
    return (rest.strip(" .") == "" and hit.line.text.rstrip().endswith(".")) or len(rest.split()) >= 3


def previous_line(document: Document, line: Line) -> Line | None:
    for other in reversed(document.lines_of(line.page)[: line.row]):
        if other.text.strip():
            return other
    return None


HOW_SCORE: Final[dict[str, float]] = {"same": 0.1, "before": 0.1, "right": 0.1, "left": 0.1, "below": 0.05, "next": 0.0}
"""How much a value's place says it is its label's: its own cell, the next cell, the cell below, the next line."""
OWN_CELL: Final = ("same", "before")
"""The places in the label's own cell: the value after the label in the text, or before it (right to left)."""


def spans_after(document: Document, hit: LabelHit, *, below: int = 3) -> Iterator[Span]:
    """The places a value of `hit`'s label may stand, nearest first (see Document.spans_after). In a
    right-to-left line, whose cells pdftotext prints as they look, the value is on the LEFT: after the rest
    of the label's own cell in the text's order (an Arabic run keeps its words in reading order), the text
    before the label in its cell ("before"), then the cells to its left, nearest first ("left"), then the
    lines below; the cells to its right hold the row's earlier label and value."""
    line = hit.line
    if not right_to_left(line.text):
        yield from document.spans_after(hit, below=below)
        return
    spans = list(document.spans_after(hit, below=below))
    yield from (span for span in spans if span.how == "same")
    cell = line.cell_at(hit.start)
    cell_start = cell.start if cell is not None and cell.start <= hit.start else hit.start
    before = line.text[cell_start : hit.start].strip(SEPARATORS + " ")
    if before:
        yield Span(before, line, "before", 0, line, line.stripped)
    for other in reversed(line.cells):
        if other.end <= cell_start:
            yield Span(other.text.strip(SEPARATORS + " ") or other.text, line, "left", 0, line, line.stripped)
    yield from (span for span in spans if span.how in ("below", "next"))
