"""How a value stands to its label, for the field readers of amounts and durations.

- `label_context`: the text that qualifies a label (its own cell up to it, and the end of the sentence
  before it in prose), where negative contexts such as 'bid security' or 'offer validity' are looked for;
- `in_prose`: whether a label stands inside a sentence, so that only its own sentence may hold its value.
"""

from __future__ import annotations

import re
from typing import Final

from tenderflow.extraction.offline.document import Document, LabelHit, Line

SAME_SPAN_REACH: Final = 90
"""How far after its label, in the label's own cell, a value is looked for."""


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
