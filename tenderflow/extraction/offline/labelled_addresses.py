"""An address read after its label, in any script: '住所 千葉県千葉市中央区市場町１－１', '주     소 : 대구광역시
달서구 월배로 250(상인동)', '地点：嘉兴市秀洲区东升西路 1581 号秀宏大楼', 'Почтовый адрес  6850051, РФ, …, д. 21'
(a two-column form's wrapped value), 'Ταχ. Δ/νση: Κύμης & Επταλόφου', 'Adresa: Strada: Bulevardul
Bucureşti, nr. 39; Localitate: Ploiesti; Cod Postal: 100680; Tara: Romania'.

The value is the rest of the label's cell (after a colon, or after a space when the label is written in a
script without spaces), the cell on its right with its wrapped lines, or the form field's value beside a
label without a colon; it ends at the contacts or the country printed after it. It is kept when it reads
as an address in its own script (see `address_like_anywhere`).
"""

from __future__ import annotations

import re
from typing import Final

from tenderflow.extraction.offline.contact_context import clean_value, grounded, quote_lines
from tenderflow.extraction.offline.contact_words import (
    ADDRESS_SHAPE_UNSPACED,
    ADDRESS_STOP,
    ADDRESS_WORD,
    ADDRESS_WORD_WORLD,
    NOT_ADDRESS_AFTER,
    PO_BOX,
    POSTAL_LABEL,
    POSTCODE,
    STREET,
)
from tenderflow.extraction.offline.document import Document, LabelHit, Line, fold, is_unspaced
from tenderflow.extraction.offline.form_fields import field_beside, field_value

_MAX_WORDS: Final = 30
_SEPARATOR: Final = re.compile(r"(?:\s+[^\W\d_]{2,20}){0,2}\s*(?:\([^)]{0,40}\))?\s*[:：]\s*")
"""Between an address label and its value: a colon, maybe after the party it is of ('Адрес заказчика:',
'Місцезнаходження замовника:') or a parenthesis."""
_OWNER_BEFORE: Final = re.compile(r"^[\s\d.()（）、,]*[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]{1,8}$")
"""A party's name written before its address label without a space ('采购人地址：', '발주기관 주소'): the
label still opens its line."""


def address_like_anywhere(value: str, *, postal: bool) -> bool:
    """Whether a labelled value reads as a postal address: a CJK or Korean address shape, a Latin street
    or postcode with a number, an address word of its language with a number; under a postal label
    ('住所', 'Ταχ. Δ/νση', 'Почтовый адрес'), any short run of words that is not another field."""
    folded = fold(value)
    if not 2 <= len(value) <= 200 or len(folded.split()) > _MAX_WORDS or "@" in value or "http" in folded \
            or "www." in folded or re.search(r"[^\W\d_]{2,}\s*[:：]\s*$", value):
        return False
    if ADDRESS_SHAPE_UNSPACED.search(value) or STREET.search(folded) or PO_BOX.search(folded):
        return True
    has_digit = re.search(r"\d", folded) is not None
    if has_digit and (ADDRESS_WORD_WORLD.search(folded) or ADDRESS_WORD.search(folded) or POSTCODE.search(folded)):
        return True
    letters = sum(character.isalpha() for character in value)
    return postal and letters >= 4 and len(folded.split()) <= 8 and not re.search(r"[:：]", value)


def _same_cell_value(hit: LabelHit) -> tuple[int, str] | None:
    """Where the value after the label starts and its text to the end of its cell: after a colon, or
    after a space when the label is written in a script without spaces ('住所 千葉県…'); None when
    nothing follows the label on its line."""
    line = hit.line
    rest = line.text[hit.end :]
    separator = _SEPARATOR.match(rest)
    unspaced_label = is_unspaced(hit.label.strip()[-1:] or " ")
    if separator is None and not (unspaced_label and re.match(r"[ \u3000]{1,2}\S", rest)):
        return None
    start = hit.end + (separator.end() if separator is not None else len(rest) - len(rest.lstrip()))
    cell = line.cell_at(start)
    if cell is None or not line.text[start : cell.end].strip():
        return None
    return start, line.text[start : cell.end]


def _cut(text: str) -> str:
    """The address without the contacts, the country or the next field printed after it."""
    stop = ADDRESS_STOP.search(fold(text))
    return clean_value(text[: stop.start()] if stop else text)


def labelled_address(document: Document, hit: LabelHit) -> tuple[str, list[Line]] | None:
    """The address a label introduces (see the module docstring), with its lines, or None."""
    if NOT_ADDRESS_AFTER.match(hit.line.folded, hit.end):
        return None  # 'Адрес электронной почты', 'Adresa de e-mail', 'Adresa web'
    before = hit.line.folded[: hit.start]
    if not (hit.at_line_start or re.search(r"[;,|]\s*$|\s{3,}$", before) or _OWNER_BEFORE.match(before)):
        return None
    found = _same_cell_value(hit)
    if found is None:
        field = field_beside(document, hit.line, hit.end)
        if field is None:
            return None
        text, lines = field.text, list(field.lines)
    else:
        start, text = found
        lines = [hit.line]
        wrapped = field_value(document, hit.line, start)  # 'ул. Советская,' / 'д. 9'
        if wrapped is not None and len(wrapped.lines) > 1:
            text, lines = wrapped.text, list(wrapped.lines)
    value = _cut(text)
    postal = POSTAL_LABEL.fullmatch(hit.line.folded, hit.start, hit.end) is not None
    if not address_like_anywhere(value, postal=postal) or not grounded(value, quote_lines(lines)):
        return None
    return value, lines


_POSTAL_MARK: Final = re.compile(r"(?:〒|\(?우\)|우편번호\s*[:：]?)\s*[0-9０-９]{3}[-－‐ー]?[0-9０-９]{2,4}\s*")
"""A postcode with the postal mark that opens a Japanese or Korean address line ('〒330-9724 埼玉県…',
'우)39660 경상북도 …')."""


def marked_addresses(line: Line) -> list[tuple[str, int]]:
    """(value, column) of the addresses that a postal mark opens on `line`: the rest of the mark's cell,
    up to the contacts printed after it."""
    found = []
    for mark in _POSTAL_MARK.finditer(line.text):
        cell = line.cell_at(mark.start())
        end = cell.end if cell is not None else len(line.text)
        value = _cut(line.text[mark.end() : end])
        if address_like_anywhere(value, postal=True) and grounded(value, line.stripped):
            found.append((value, mark.start()))
    return found
