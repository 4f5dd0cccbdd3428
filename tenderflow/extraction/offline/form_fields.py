"""A two-column form's field: its label in the left column, its value in the right one, either of them
wrapped over several lines, as browser print forms and data sheets lay them out (Russia's EIS print forms,
registry extracts, GeM-like tables):

          Заказчик                                            <- the value's first lines stand ABOVE
          КРАЕВОЕ ГОСУДАРСТВЕННОЕ БЮДЖЕТНОЕ                      the label when it is centred against it
    Размещение осуществляет   УЧРЕЖДЕНИЕ "ХАБАРОВСКИЙ ЦЕНТР ПОМОЩИ
                              ДЕТЯМ, ОСТАВШИМСЯ БЕЗ ПОПЕЧЕНИЯ
                              РОДИТЕЛЕЙ"

    Наименование организации:  ОБЩЕСТВО С ОГРАНИЧЕННОЙ ОТВЕТСТВЕННОСТЬЮ "АРКТИК
                               АТОМ-СЕРВИС"                <- wrapped under a label with a colon
    Место нахождения:          689400, ...                 <- the next field

A field without a colon is a block of lines between blank lines (a short one: a long block is a table
whose rows are fields of their own); a field whose label ends with a colon ends where the next label
starts in the left column. Pure geometry on Document lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.offline.document import Cell, Document, Line

_SLACK: Final = 3
_MIN_COLUMN: Final = 12
"""A value column starts at least this far right: nearer, it is the page's own text column."""
_MAX_BLOCK: Final = 9
"""The most lines a field's block may have: more is a table whose rows are separate fields."""


@dataclass(frozen=True)
class FieldValue:
    """A field's value as printed: its text (wrapped lines joined by a space), its lines, and whether it
    is a block between blank lines (a label without a colon, the value possibly starting above it)."""

    text: str
    lines: tuple[Line, ...]
    parts: tuple[str, ...]
    block: bool


def _value_cell(line: Line, column: int) -> Cell | None:
    """The cell of `line` that starts in the value column (within a few characters)."""
    return next((cell for cell in line.cells if abs(cell.start - column) <= _SLACK), None)


def _left(line: Line, column: int) -> str:
    """What `line` prints left of the value column: its label, or a wrapped part of it."""
    return line.text[: max(column - _SLACK, 0)].strip()


def _block(document: Document, line: Line, column: int) -> list[Line] | None:
    """The value lines of the field around `line` when it is a short block between blank lines whose
    left column holds a label without a colon and whose right column holds nothing but the value."""
    page = document.lines_of(line.page)
    first = line.row
    while first > 0 and page[first - 1].text.strip():
        first -= 1
    last = line.row
    while last + 1 < len(page) and page[last + 1].text.strip():
        last += 1
    block = page[first : last + 1]
    labels = [_left(other, column) for other in block if _left(other, column)]
    if len(block) > _MAX_BLOCK or not labels or any(label.endswith((":", "：")) for label in labels):
        return None
    if any(_value_cell(other, column) is None and other.text[column - _SLACK :].strip() for other in block):
        return None  # something else stands in the right column: not one field
    rows = [index for index, other in enumerate(block) if _value_cell(other, column) is not None]
    return block[rows[0] : rows[-1] + 1]


def field_value(document: Document, line: Line, column: int) -> FieldValue | None:
    """The whole value of the field whose value starts at `column` of `line`, wrapped lines included:
    the block's value lines, or the lines below that continue it in its column while the label column
    stays empty. None when no value cell starts there or the value stands in the first column (then
    its lines are not told apart from the paragraph's)."""
    if column < _MIN_COLUMN or _value_cell(line, column) is None:
        return None
    block = _block(document, line, column)
    lines = block if block is not None else [line]
    if block is None and _left(line, column):
        for following in document.next_lines(line, 6, skip_blank=False):
            if not following.text.strip() or _left(following, column) or _value_cell(following, column) is None:
                break
            lines.append(following)
    parts = tuple(cell.text.strip() for other in lines if (cell := _value_cell(other, column)) is not None)
    return FieldValue(re.sub(r"\s{2,}", " ", " ".join(parts)), tuple(lines), parts, block is not None)


def field_beside(document: Document, line: Line, after: int) -> FieldValue | None:
    """The value of the field whose label ends at column `after` of `line`: in a cell right of the label
    on its line, or, for a label centred against a taller value, on the lines of its block."""
    right = [cell for cell in line.cells if cell.start > after]
    if right:
        return field_value(document, line, right[0].start)
    page = document.lines_of(line.page)
    for offset in (-1, 1, -2, 2, -3, 3):
        row = line.row + offset
        if not 0 <= row < len(page) or not page[row].text.strip():
            continue
        cells = [cell for cell in page[row].cells if cell.start > after]
        if cells and not page[row].text[: cells[0].start].strip().endswith((":", "：")):
            field = field_value(document, page[row], cells[0].start)
            if field is not None and line in field.lines:
                return field
    return None
