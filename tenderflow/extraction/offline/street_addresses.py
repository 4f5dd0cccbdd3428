"""Postal addresses as Western forms print them: a street with its house number followed by its postcode
and town (on its line or the next ones, a form's separate town and postcode fields included), a block of
short lines, an address sentence ('... postal address is 1521 Cadastral Zone A0, ..., Abuja.'), the
address after the buyer's name in a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tenderflow.extraction.offline.buyer_words import TITLE_WORDS
from tenderflow.extraction.offline.candidates import Candidate
from tenderflow.extraction.offline.contact_context import (
    clean_value,
    context_above,
    grounded,
    placeholder,
    quote_lines,
)
from tenderflow.extraction.offline.contact_words import (
    ADDRESS_FIELD,
    ADDRESS_STOP,
    ADDRESS_WORD,
    NOT_ADDRESS_CONTEXT,
    PO_BOX,
    POSTCODE,
    ROLE_LINE,
    STOP_BLOCK,
    STREET,
    VERB,
)
from tenderflow.extraction.offline.document import Cell, Document, Line, fold


def address_at(document: Document, line: Line, start: int) -> tuple[str, list[Line]] | None:
    """The address that starts at column `start` of `line`: the street, then its postcode and town on
    the same line or on the next lines (a form's separate 'PLZ' and 'Ort' fields included)."""
    text = line.text[start:]
    stop = ADDRESS_STOP.search(fold(text))
    raw = (text[: stop.start()] if stop else text).rstrip()
    street = clean_value(raw).rstrip(" -–,") + ("-" if re.search(r"[^\W\d_]-$", raw) else "")
    if not street or PO_BOX.search(fold(street)):
        return None
    parts = [street]
    lines = [line]
    postcode_seen = POSTCODE.search(fold(street), 4) is not None
    town_seen = postcode_seen and re.search(r"\d[\s,()-]*[a-z]{3}|[a-z]{3}[\s,]+\(?\d", fold(street)) is not None
    town_field = False
    for following in document.next_lines(line, 3):
        if town_seen and not parts[-1].endswith("-"):
            break
        cells = [cell for cell in following.cells if not cell.text.rstrip().endswith(":")]
        if not cells:
            break
        cell = min(cells, key=lambda cell: abs(cell.start - start))
        if abs(cell.start - start) > 40 and len(following.cells) > 1:
            break
        value_text = following.text[cell.start :]
        field = ADDRESS_FIELD.match(fold(value_text))
        if field is not None:
            value_text = value_text[field.end() :]
        stop = ADDRESS_STOP.search(fold(value_text))
        piece = clean_value(value_text[: stop.start()] if stop else value_text)
        folded_piece = fold(piece)
        if not piece or PO_BOX.search(folded_piece) or "@" in piece or len(piece.split()) > 7:
            break
        postcode = POSTCODE.search(folded_piece)
        if postcode_seen:
            if parts[-1].endswith("-"):
                piece = piece.split(",")[0]
            elif postcode is not None or not re.fullmatch(r"[^\d]{2,40}", piece):
                break
            town_seen = True  # 'Ort: Dessau-Roßlau' after 'PLZ: 06844'
        elif postcode is not None and postcode.start() <= 30:
            postcode_seen = True
            town_seen = town_field or re.search(r"[a-z]{3}", folded_piece.replace(postcode.group(), " ")) is not None
        elif field is not None and not town_field and re.fullmatch(r"[^\d]{2,40}", piece):
            town_field = True  # 'Town: Ostheim' before 'Postal code: 12345'
        elif parts[-1].endswith("-") or re.search(r"\b(?:room|suite|floor|etage|piso|stock|bldg|building)\b",
                                                 folded_piece):
            pass  # 'Pointe-' / 'à-Pitre Cedex'; 'Room 109'
        else:
            break
        if parts[-1].endswith("-"):
            parts[-1] += piece
        else:
            parts.append(piece)
        lines.append(following)
    if not postcode_seen:
        return None
    value = " ".join(parts)
    while len(parts) > 1 and not grounded(value, quote_lines(lines)):
        # Form fields one per line ('Town: Ostheim' / 'Postal code: 12345') are not one run of text: keep
        # what the quote grounds, the street at least.
        parts.pop()
        lines.pop()
        value = " ".join(parts)
    if len(value) > 160 or not grounded(value, quote_lines(lines)):
        return None
    return value, lines


def street_in(line: Line) -> Iterator[int]:
    """Columns where a street with its number starts on `line`, cell by cell."""
    for cell in line.cells:
        if cell.text.rstrip().endswith(":") and len(cell.text) < 40:
            continue  # a label cell ('Straße, Hausnummer:')
        match = STREET.search(fold(cell.text))
        if match is not None:
            yield cell.start + match.start()


def address_like(folded: str) -> bool:
    """Whether joined block text reads as a postal address: a PO box, or a number and a postcode or
    street-ish word."""
    if PO_BOX.search(folded):
        return True
    if not re.search(r"\d", folded):
        return False
    words = set(ADDRESS_WORD.findall(folded))
    return POSTCODE.search(folded) is not None and bool(words) or len(words) >= 2 or STREET.search(folded) is not None


def address_block(document: Document, first: Line | None, after: Line, column: tuple[int, int] | None,
                   skip: str = "") -> tuple[str, list[Line]] | None:
    """An address printed as a block of short lines: `first` (already cut, may be None) then the lines
    below `after`, each one cell (or the cell under `column`), until a contact line, a long line, a
    blank gap or six lines; leading person or role lines and the buyer's own name are left out."""
    texts: list[str] = []
    lines: list[Line] = []
    if first is not None:
        texts.append(first.stripped if column is None else first.text[column[0] :].strip())
        lines.append(first)
    blank = 0
    for line in document.lines_of(after.page)[after.row + 1 :]:
        if len(lines) >= 6:
            break
        if not line.text.strip():
            blank += 1
            if blank > 1 or not lines:
                if lines:
                    break
                continue
            continue
        blank = 0
        cells = line.cells
        if column is not None and len(cells) > 1:
            cells = tuple(cell for cell in cells if cell.overlaps(Cell(column[0], column[1], ""), slack=4))
        if len(cells) != 1:
            break
        text = cells[0].text.strip()
        folded = fold(text)
        if STOP_BLOCK.search(folded) or len(text.split()) > 12 or placeholder(text) or \
                NOT_ADDRESS_CONTEXT.search(folded) or VERB.search(folded) or TITLE_WORDS.search(folded) or \
                (lines and re.match(r"^[^:]{2,30}[:：]\s", text) and not ROLE_LINE.match(folded)):
            break  # a contact line, a sentence, another party, or a form's next field
        if not texts and (ROLE_LINE.match(folded) or (skip and folded.strip(" ,.") == skip)):
            continue
        texts.append(text)
        lines.append(line)
    if not texts:
        return None
    value = clean_value(" ".join(texts))
    if not address_like(fold(value)) or len(value) > 200 or not grounded(value, quote_lines(lines)):
        return None
    return value, lines


def address_sentence(document: Document, line: Line, start: int) -> tuple[str, list[Line]] | None:
    """'... postal address is 1521 Cadastral Zone A0, Off Memorial Close, Beside / Silverbird Galleria,
    Central Business District, Abuja.': the rest of the sentence, over up to three lines."""
    texts = [line.text[start:].strip()]
    lines = [line]
    for following in document.next_lines(line, 2):
        if re.search(r"[.;]\s*$|[.;]\s", texts[-1]):
            break
        texts.append(following.stripped)
        lines.append(following)
    joined = " ".join(texts)
    end = re.search(r"[.;](?:\s|$)", joined)
    value = clean_value(joined[: end.start()] if end else joined)
    if len(value.split()) > 25 or "@" in value or not address_like(fold(value)) and \
            not (re.search(r"\d", value) and value.count(",") >= 2):
        return None
    return (value, lines) if grounded(value, quote_lines(lines)) else None


def address_after_name(document: Document, line: Line, start: int) -> Iterator[Candidate[str]]:
    """The address that follows the buyer's name in a sentence, up to its postcode."""
    following = document.next_lines(line, 1)
    joined = line.text[start:].rstrip() + (" " + following[0].stripped if following else "")
    postcode = next((match for match in POSTCODE.finditer(fold(joined)) if len(match.group()) >= 5), None)
    if postcode is None or postcode.end() > 160:
        return
    value = clean_value(joined[: postcode.end()])
    lines = [line, *following] if postcode.end() > len(line.text[start:].rstrip()) else [line]
    if len(value.split()) <= 20 and address_like(fold(value)) and grounded(value, quote_lines(lines)) \
            and not NOT_ADDRESS_CONTEXT.search(context_above(document, line, 1)):
        yield Candidate(value, line.page, quote_lines(lines), 0.6, "address after the name")

