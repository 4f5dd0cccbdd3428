"""The buyer named at the top of its document or by its head:

- the first page's letterhead: the lowest organisation of its hierarchy, not the state above it
  ('ΕΛΛΗΝΙΚΗ ΔΗΜΟΚΡΑΤΙΑ', 'T.C.'), nor a ministry or directorate-general above another organisation
  ('TARIM VE ORMAN BAKANLIĞI' / '… Genel Müdürlüğü' / '… Enstitüsü Müdürlüğü'), nor a department below it
  ('ΔΙΕΥΘΥΝΣΗ ΑΜΑΞΟΣΤΑΣΙΟΥ'), nor a digital signature's stamp ('INFORMATICS DEVELOPMENT AGENCY');
- a letter's return-address line ('Umweltbundesamt | Postfach 1406 | 06813 Dessau-Roßlau');
- the organisation whose official signs the notice, as Japanese and Korean notices print it
  ('千葉県知事 熊谷 俊人', '世田谷区契約担当者', '대구교통공사 사장 귀하');
- the organisation printed right before the notice's own title ('千葉県一般競争入札公告 建不第104号',
  '한국도로공사 입찰공고 제2019-00468호').
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.offline.buyer_lexicon import KEEP_FIRST
from tenderflow.extraction.offline.buyer_words import (
    FUNCTION_END,
    ORG_WORDS,
    OTHER_PARTY_LABEL,
    PARENT,
    PARENT_ORG,
    SIGNATORY,
    STAMP,
    STATE_LINE,
    SUBUNIT,
    TITLE_WORDS,
)
from tenderflow.extraction.offline.candidates import Candidate
from tenderflow.extraction.offline.contact_context import LETTERHEAD_LINES, clean_value, grounded, quote_lines
from tenderflow.extraction.offline.contact_words import POSTCODE
from tenderflow.extraction.offline.document import Cell, Document, Line, fold, is_unspaced
from tenderflow.extraction.offline.name_shapes import (
    GENITIVE_BEFORE,
    continued,
    cut_name,
    looks_like_name,
    proper_name,
    strong_org,
    without_subunit,
)

_HEADING_LINES: Final = 10
_STAMP_ROWS: Final = 7


@dataclass(frozen=True)
class _Found:
    """A letterhead organisation: its value, quoted lines, position among the top lines and column."""

    value: str
    lines: list[Line]
    position: int
    column: int


def _unspaced_script(text: str) -> bool:
    """Whether most letters of `text` belong to a script without spaces (CJK, Hangul, Thai): such
    documents name their buyer by labels and signatures, their first lines are titles and addresses."""
    letters = [character for character in text if character.isalpha()]
    return bool(letters) and sum(is_unspaced(character) for character in letters) * 2 > len(letters)


def _stamp_cells(document: Document, page: int) -> set[tuple[int, int]]:
    """(row, column) of the cells that belong to a digital signature's stamp: from the cell that says
    'Digitally signed by' rightwards, on its row and the rows around it."""
    found: set[tuple[int, int]] = set()
    lines = document.lines_of(page)
    for line in lines[:40]:
        match = STAMP.search(line.folded)
        if match is None:
            continue
        cell = line.cell_at(match.start())
        left = (cell.start if cell is not None else match.start()) - 12
        for other in lines[max(0, line.row - 3) : line.row + _STAMP_ROWS]:
            found.update((other.row, stamp.start) for stamp in other.cells if stamp.start >= left)
    return found


def _top_lines(document: Document, page: int) -> list[Line]:
    """The first printed lines of a page, those holding only a signature's stamp left out."""
    stamp = _stamp_cells(document, page)
    lines = [line for line in document.lines_of(page)
             if line.text.strip() and any((line.row, cell.start) not in stamp for cell in line.cells)]
    return lines[:LETTERHEAD_LINES]


def _organisation(value: str) -> bool:
    """Whether a letterhead cell names an organisation: a strict name with a strong organisation word,
    no title word, not something OF an organisation, not a sentence, a date or a state."""
    folded = fold(value)
    if not looks_like_name(value, strict=True) or TITLE_WORDS.search(folded) or not strong_org(folded):
        return False
    if STATE_LINE.match(folded) or _unspaced_script(value):
        return False
    if all(GENITIVE_BEFORE.search(folded[: match.start()]) for match in ORG_WORDS.finditer(folded)):
        return False  # 'Reinigung der Schulgebäude der Stadt': something of the city, not the city
    return not (len(value.split()) > 12 or re.search(r"[.:;!?]\s", value) or "," in value[:3]
                or re.search(r"\d{4}", value) or not proper_name(value))


def _wrapped_letterhead(document: Document, top: list[Line], position: int, cell: Cell,
                        value: str) -> tuple[str, list[Line]]:
    """A letterhead name with its wrapped end: continued as a form's field or after a linking word, or
    onto a short lower-case line ('Communauté d'agglomération' / 'du Pays de …')."""
    line = top[position]
    full, quoted = continued(document, line, value, cell.start)
    if full == value and position + 1 < len(top):
        following = top[position + 1].cell_at(max(cell.start - 2, 0))
        if following is not None and following.text[:1].islower() and \
                (FUNCTION_END.fullmatch(fold(following.text.split()[0])) or following.text.split()[0].endswith(".")) \
                and not ORG_WORDS.search(fold(following.text)) and len(following.text.split()) <= 8 \
                and not re.search(r"\d", following.text):
            full, quoted = f"{value} {following.text.strip()}", [line, top[position + 1]]
    return without_subunit(full), quoted


def _page_organisations(document: Document, page: int, top: list[Line]) -> Iterator[_Found | Candidate[str]]:
    """The organisations of a page's top lines (a return-address line as a ready candidate)."""
    stamp = _stamp_cells(document, page)
    for position, line in enumerate(top):
        above = document.lines_of(page)[line.row - 1] if line.row > 0 else None
        if above is not None and above.text.strip() and TITLE_WORDS.search(above.folded):
            continue  # the second line of a title ('... SERVIZIO TRASPORTO' / 'ALUNNI COMUNE DI TURI')
        parts = [part.strip() for part in line.text.split("|")]
        if len(parts) >= 3 and POSTCODE.search(fold(parts[-1])) and not parts[0][:1].isdigit():
            value = cut_name(parts[0])
            if looks_like_name(value, strict=True):
                yield Candidate(value, page, line.stripped, 0.6, "return address")
            continue
        for cell in line.cells:
            value = cut_name(cell.text)
            if (line.row, cell.start) in stamp or not _organisation(value):
                continue
            full, quoted = _wrapped_letterhead(document, top, position, cell, value)
            if grounded(full, quote_lines(quoted)):
                yield _Found(full, quoted, position, cell.start)


def _rank(found: list[_Found], page: int) -> Iterator[Candidate[str]]:
    """Letterhead candidates: a parent (a government, a ministry, a directorate-general) printed above
    another organisation, or a department printed below one, is weaker than the organisation itself."""
    for index, item in enumerate(found):
        folded = fold(item.value)
        below = [other for other in found[index + 1 :] if other.position - item.position <= 3
                 and not SUBUNIT.match(fold(other.value))]
        above = [other for other in found[:index] if item.position - other.position <= 3]
        score = 0.55
        if (PARENT_ORG.match(folded) or PARENT.search(folded)) and below:
            score = 0.45
        elif SUBUNIT.match(folded) and above:
            score = 0.45
        yield Candidate(item.value, page, quote_lines(item.lines), score, "letterhead")


def letterhead_names(document: Document) -> Iterator[Candidate[str]]:
    """The organisations at the top of the first page with text (see the module docstring)."""
    for page in document.page_numbers[:2]:
        top = _top_lines(document, page)
        if len(top) < 2:
            continue
        found: list[_Found] = []
        for item in _page_organisations(document, page, top):
            if isinstance(item, Candidate):
                yield item
            else:
                found.append(item)
        yield from _rank(found, page)
        return


def _ends_in_organisation(folded: str) -> bool:
    """Whether a folded name ends with an organisation word ('千葉県', '世田谷区', '대구교통공사')."""
    return any(match.end() == len(folded) for match in ORG_WORDS.finditer(folded))


def signatory_names(document: Document) -> Iterator[Candidate[str]]:
    """The organisation of the official who signs the notice or to whom its forms are addressed: a short
    line of an organisation, a title, maybe a person's name ('千葉県知事 熊谷 俊人', '千葉県教育委員会教育長
    杉野 可愛', '世田谷区契約担当者', '대구교통공사 사장 귀하'). Strongest on the first two pages."""
    first_pages = set(document.page_numbers[:2])
    for line in document.lines:
        stripped = line.folded.strip()
        if not 3 <= len(stripped) <= 32:
            continue
        match = SIGNATORY.match(stripped)
        if match is None:
            continue
        offset = len(line.folded) - len(line.folded.lstrip())
        end = match.end("name") + (1 if match.group("title") in KEEP_FIRST else 0)
        value = clean_value(line.text[offset + match.start("name") : offset + end])
        folded = fold(value)
        if not _ends_in_organisation(folded) or re.search(r"[、。，,.()（）「」:：]", value) or \
                OTHER_PARTY_LABEL.search(folded) or not looks_like_name(value, strict=True):
            continue
        score = 0.62 if line.page in first_pages else 0.56
        yield Candidate(value, line.page, line.stripped, score, "signatory")


def heading_names(document: Document) -> Iterator[Candidate[str]]:
    """The organisation printed right before the notice's title on the first pages ('千葉県一般競争入札公告',
    '한국도로공사 입찰공고 제2019-00468호')."""
    for page in document.page_numbers[:2]:
        top = [line for line in document.lines_of(page) if line.text.strip()][:_HEADING_LINES]
        for line in top:
            for cell in line.cells:
                folded = fold(cell.text)
                title = TITLE_WORDS.search(folded)
                if title is None or not 2 <= title.start() <= 30:
                    continue
                value = clean_value(cell.text[: title.start()])
                head = fold(value)
                if _ends_in_organisation(head) and not re.search(r"\d", value) and \
                        not OTHER_PARTY_LABEL.search(head) and looks_like_name(value, strict=True):
                    yield Candidate(value, page, line.stripped, 0.58, "before the notice title")
