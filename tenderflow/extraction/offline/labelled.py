"""Labelled values: where the value of a label stands on the page and how far it runs.

A form prints its value after the label in the same cell, in the next cell of the row, in the cell below
(or, for a tall cell, beside the label on the lines above and below it), and a long value wraps over the
lines under its first one in its own column. `value_block` reads a label's value that way and stops at
what starts another entry: a blank line, numbering, a bullet, another label, text in a column to the
left. Shared by the title, reference and place readers (titles.py, references.py, places.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.offline.document import Cell, Document, LabelHit, Line, fold, is_unspaced, label_regex
from tenderflow.extraction.offline.phrase_tables import document_scripts, find_each, script_of

# --- shared vocabulary ------------------------------------------------------------------------------------

PLACEHOLDER: Final = re.compile(
    r"^[\s.…_\-–—:*/|]*$|\.{4,}|…|_{3,}|\[\s*(?:insert|enter|add|type|name|\.)|<\s*(?:insert|enter)"
    r"|\b(?:tbd|tba|to be (?:advised|confirmed|determined|announced|notified))\b|x{3,}|\$\s*x\b",
    re.IGNORECASE,
)
"""Template text that stands where a value should be: dots, underscores, '[insert …]', 'XXX', '$ X'."""

NUMBERING: Final = re.compile(
    r"^\s*(?:\(?(?:[ivxIVX]+|\d+|[a-hA-H])(?:\.(?:\d+|[a-z]))*[.)]|\d+(?:\.\d+)+|[•·▪■\-–])\s"
    r"|^\s*\d{1,2}\s?[-–]\s"
    r"|^\s*(?:[一二三四五六七八九十]{1,3}、|[(（](?:[一二三四五六七八九十]{1,3}|\d{1,2})[)）]|[①-⑳]|\d{1,2}[．、]"
    r"|[가-하][.)]\s|第[一二三四五六七八九十\d]{1,3}[章条節节部])"
)
"""A line that starts a numbered item or a bullet: a new entry, not the continuation of a value ('1 - ', '二、',
'（一）', '①', '가.', '第二章' in CJK documents)."""

LABEL_LIKE: Final = re.compile(r"[:：]\s*\*?\s*$|^[^:：]{1,45}\s[:：]\s|^[^:：\d]{2,40}[:：]\s*\S")
"""A line that is itself 'Label:' or 'Label : value': the start of another field."""

_ENDS_LABEL: Final = re.compile(r"[:：*]\s*$|^[^:：]{1,45}\s[:：]\s")
"""A cell that is a label itself ('Dirección alternativa *', 'Code NUTS : FRJ12')."""

PROSE: Final = re.compile(
    r"\b(?:is|are|was|shall|will|must|may|should|est|sont|sera|doit|doivent|ist|sind|wird|werden|muss|"
    r"es|son|será|serán|debe|deberá|è|sono|sarà|deve|dovrà|jest|są|będzie|é|são|deverá|zijn|wordt|moet|"
    r"has|have|had|hat|haben|ont|hanno|invites|invite|invita|lädt|requests|seeks|wishes|defines|describes|"
    r"contains|provides|définit|précise|fixe|concerne|établit|régit|rige|establece|define|regola|disciplina|"
    r"definiert|regelt|beschreibt|enthält|określa|zawiera|dotyczy)\b"
)
"""Verbs of a sentence: a title or a place is a noun phrase, a clause that states something is prose."""

ORGANISATION: Final = re.compile(
    r"\b(?:board|council|county|municipality|ministry|department|agency|authority|university|hospital|"
    r"government|commission|corporation|limited|ltd|inc|gmbh|ag|institut[eo]?|municipalidad|ayuntamiento|"
    r"ministerio|ministere|ministero|comune|unione dei comuni|centrale unica|mairie|ville de|stadt|gemeinde|"
    r"landkreis|universitat|universidad|universita|szpital|urzad|gmina|prefecture|region|bundesamt|"
    r"verwaltung|direccion general|directorate|secretariat|vergabestelle|republic|republique|republica|"
    r"repubblica|republik|rzeczpospolita|kingdom|royaume|federal|bundesrepublik|provincia de|province of|"
    r"المملكة|وزارة|جامعة|هيئة|الهيئة|امانة|بلدية|شركة)(?!\w)",
    re.IGNORECASE,
)
"""Words of an organisation's name: a heading made of them names the buyer, not the purchase."""

SENTENCE_END: Final = re.compile(r"[^\s.]{4,}[.;]\s*$|\)[.;]\s*$")
"""A line that closes a sentence ('… électriques.'), unlike an abbreviation ('pn.', 'Nr.') that goes on."""

QUOTES: Final = "\"'“”„‟«»‘’‚ "


def labels(phrases: Sequence[str]) -> re.Pattern[str]:
    """`label_regex` over phrases whose apostrophes match any apostrophe or none ("dell'appalto",
    "dell’appalto", "d'exécution")."""
    return label_regex([phrase.replace("'", " ") for phrase in phrases])


def bare_label(label: str) -> str:
    """A label without what may stand between its words ('file  no.' → 'fileno', '공 사 명' → '공사명')."""
    return re.sub(r"[\s.,'’/_-]+", "", label)


class LabelSet:
    """One field's labels in many languages: one pattern for them all, one per script (a Latin-script document
    is searched for the Latin-script labels only), and the language of a matched label (a rule is named by its
    language: 'label ja' is the Japanese title labels, whichever of them matched)."""

    def __init__(self, *tables: Mapping[str, Sequence[str]]) -> None:
        every = [label for table in tables for group in table.values() for label in group]
        self.pattern = labels(every)
        by_script: dict[str, list[str]] = {}
        for label in every:
            by_script.setdefault(script_of(label), []).append(label)
        self._patterns = {script: labels(group) for script, group in by_script.items()}
        self._languages = {
            bare_label(fold(label)): language
            for table in tables
            for language, group in table.items()
            for label in group
        }

    def patterns(self, document: Document) -> list[re.Pattern[str]]:
        """The patterns of the labels in the scripts `document` is written in."""
        return [self._patterns[script] for script in document_scripts(document) if script in self._patterns]

    def language(self, matched: str) -> str:
        """The language of a label as `document.find` matched it (folded, as printed between its words)."""
        return self._languages.get(bare_label(matched), "?")


def lines_after(document: Document, line: Line, *, limit: int) -> Iterator[Line]:
    """The lines after `line` on its page, blank ones included, at most `limit`."""
    page = document.lines_of(line.page)
    yield from page[line.row + 1 : line.row + 1 + limit]


def lines_before(document: Document, line: Line, *, limit: int) -> Iterator[Line]:
    """The lines before `line` on its page, nearest first, blank ones included, at most `limit`."""
    page = document.lines_of(line.page)
    start = max(0, line.row - limit)
    yield from reversed(page[start : line.row])


def is_blank(line: Line) -> bool:
    return not line.text.strip()


def join_wrapped(fragments: Sequence[str]) -> str:
    """Wrapped lines as one text: words hyphenated at a line end are rejoined ('Visualisie-' + 'rungen'), and
    a script written without spaces runs on without one ('…2026 年度短' + '信息业务服务项目')."""
    text = ""
    for fragment in fragments:
        fragment = fragment.strip()
        if not text:
            text = fragment
        elif fragment and is_unspaced(text[-1]) and is_unspaced(fragment[0]):
            text = text + fragment
        elif re.search(r"[^\W\d_]-$", text) and fragment[:1].islower():
            text = text[:-1] + fragment
        elif re.search(r"\w-$", text):
            text = text + fragment
        else:
            text = f"{text} {fragment}"
    return text


@dataclass(frozen=True)
class Block:
    """A value that may wrap over several lines: the text read on each line and those lines."""

    fragments: tuple[str, ...]
    lines: tuple[Line, ...]
    spread: bool = False  # the value's lines enclose other text (its label): the quote keeps the columns

    @property
    def text(self) -> str:
        return join_wrapped(self.fragments)

    @property
    def page(self) -> int:
        return self.lines[0].page

    @property
    def quote(self) -> str:
        if self.spread:
            return "\n".join(line.text.rstrip() for line in self.lines).strip()
        return "\n".join(line.stripped for line in self.lines)

    def with_fragments(self, fragments: Sequence[str]) -> Block:
        return Block(tuple(fragments), self.lines[: len(fragments)], self.spread)


_RIGHT_TO_LEFT: Final = re.compile(r"[\u0590-\u08ff]")
"""Hebrew and Arabic letters: labels printed right to left, their value on their left."""


def _aligned(hit: LabelHit) -> LabelHit:
    """The hit with positions in the line's printed text: folding turns 'ß' into 'ss', so positions in
    the folded line run ahead of the text on a line such as 'Maßnahme: …'."""
    text = hit.line.text
    if len(hit.line.folded) == len(text):
        return hit
    to_text: list[int] = []
    for index, character in enumerate(text):
        to_text.extend([index] * len(fold(character)))
    if len(to_text) != len(hit.line.folded):
        return hit
    to_text.append(len(text))
    end = to_text[hit.end - 1] + 1 if hit.end > 0 else 0
    return LabelHit(hit.line, to_text[hit.start], end, hit.label)


_OTHER_SCRIPT_LABEL: Final = re.compile(r"\s*/\s*(?:[^\x00-\x7f\s:：][^\s:：/]*\s?)+")
"""The other half of a bilingual label: 'Bid Number/बिड संख्या', 'Item Category/मद केटेगरी'."""


def find_labels(document: Document, pattern: re.Pattern[str] | LabelSet) -> Iterator[LabelHit]:
    """Every occurrence of a label, with positions in the printed text, the other-script half of a
    bilingual label counted as part of it, and so the rest of a label that enumerates ('Место поставки
    товара, выполнения работы или оказания услуги': the place of delivery, of the works or the services)."""
    patterns = pattern.patterns(document) if isinstance(pattern, LabelSet) else [pattern]
    for hit in find_each(document, patterns):
        hit = _aligned(hit)
        other = _OTHER_SCRIPT_LABEL.match(hit.line.text, hit.end)
        if other is not None:
            hit = LabelHit(hit.line, hit.start, other.end(), hit.label)
        cell = cell_of_label(hit)
        if _ENUMERATED_TAIL.fullmatch(hit.line.text[hit.end : cell.end]):
            hit = LabelHit(hit.line, hit.start, cell.end, hit.label)
        yield hit


_ENUMERATED_TAIL: Final = re.compile(r",\s*[^\W\d_][^\W\d_ ]*(?:\s[^\W\d_]+){0,3}")
"""What may follow a label in its own cell as more of the label: a comma and a few words without digits
(the label's enumeration, wrapped on the next line), not a value after a colon."""


def cell_of_label(hit: LabelHit) -> Cell:
    cell = hit.line.cell_at(hit.start)
    return cell if cell is not None else Cell(hit.start, len(hit.line.text), hit.line.text[hit.start :])


NUMBERING_CELL: Final = re.compile(
    r"[(（]?(?:(?:\d{1,3}|[ivxlIVXL]{1,4})(?:[.．](?:\d{1,3}|[a-h]))*|[a-hA-H]|[가-하]|[一二三四五六七八九十]{1,3})"
    r"[.．)）、]?"
    r"|[①-⑳]|[(（](?:\d{1,3}|[一二三四五六七八九十]{1,3})[)）]"
)
"""An item's number standing alone: '1.2.', '(3)', 'iv)', 'IV.1.1.b)', '나.', '二、', '（一）', '①', full-width
digits too."""

_ENTRY_PREFIX: Final = re.compile(
    rf"(?:(?:{NUMBERING_CELL.pattern}|[•*·\-–—:|\[(]+)\s*){{0,3}}"
    r"|[^\x00-\x7f\s]+(?:\s+[^\x00-\x7f\s]+)*\s*/?"
)
"""What may stand before a label that opens an entry: numbering in any of its forms ('1.2.', '나.', '二、',
'（一）'), bullets, brackets, decoration ('-: NAME OF WORK :-'), the other-script half of a bilingual label
('व तु  ण /Item Category')."""


def label_starts_entry(hit: LabelHit) -> bool:
    """The label opens its line or its layout cell (a form entry), rather than sitting inside a sentence."""
    if hit.at_line_start or _ENTRY_PREFIX.fullmatch(hit.line.text[: hit.start].strip()):
        return True
    cell = cell_of_label(hit)
    before = hit.line.text[cell.start : hit.start]
    return _ENTRY_PREFIX.fullmatch(before.strip()) is not None


def separated(hit: LabelHit) -> bool:
    """Nothing but a separator follows the label in its cell ('Objet du marché : …', 'Objeto *'), as in a
    form; 'Objeto y necesidad del contrato' is a heading or a sentence that uses the label's words. In a
    script written without spaces a space sets a label off ('เรื่อง ประกวดราคาจ้าง…', '件名 …')."""
    after = hit.line.text[hit.end : cell_of_label(hit).end]
    if not after.strip() or re.match(r"\s*[:：*=\-–—]", after) is not None:
        return True
    return hit.end > hit.start and is_unspaced(hit.line.text[hit.end - 1]) and after[:1].isspace()


_RULE_LINE: Final = re.compile(r"\s*[-–—=_*~.·•]{3,}\s*")


def continues(previous: str, line: Line, anchor: Cell, *, same_line: bool, value: ValueLayout) -> str | None:
    """The text of `line` that continues a value whose last fragment was `previous`, or None.

    A value wraps onto the next line in its own column: a line that is blank, that starts a numbered
    item, a bullet or another label, or that has text in a column left of the value (a new row of a
    form) ends it, and so does a fragment that closed a sentence.
    """
    if is_blank(line) or SENTENCE_END.search(previous) or previous.rstrip().endswith(":"):
        return None
    if _RULE_LINE.fullmatch(line.text):
        return None  # a rule drawn under a heading ('------', '======')
    text = line.stripped
    folded = line.folded.strip()
    allowed = value.allowed is not None and value.allowed.match(folded) is not None
    if not allowed and (NUMBERING.match(line.text) or LABEL_LIKE.search(text)):
        return None
    if not allowed and any(pattern.match(folded) for pattern in value.stops):
        return None
    if same_line:
        return text if len(line.cells) == 1 else None
    if any(cell.end < anchor.start - 2 for cell in line.cells):
        return None
    overlapping = [cell for cell in line.cells if cell.overlaps(anchor)]
    return overlapping[0].text if overlapping else None


@dataclass(frozen=True)
class ValueLayout:
    """How a field's values wrap: how many lines at most, which lines end them (other labels), which
    labelled lines still belong to them (a place block's 'Town:' / 'Country:' lines)."""

    max_lines: int
    stops: tuple[re.Pattern[str], ...]
    allowed: re.Pattern[str] | None = None


def _entry_cells(line: Line) -> list[Cell]:
    """A row's cells but an item number standing in a cell of its own ('2   項目地點   位於…')."""
    return [cell for cell in line.cells if NUMBERING_CELL.fullmatch(cell.text) is None]


def value_block(document: Document, hit: LabelHit, value: ValueLayout) -> Block | None:
    """The value a label introduces: after it in its cell, else in the next cell of its row, else in
    the first non-blank line below (the cell under the label, or the whole line when it has one cell);
    continued over the lines it wraps onto."""
    line = hit.line
    label_cell = cell_of_label(hit)
    rest = line.text[hit.end : label_cell.end]
    stripped_rest = rest.lstrip(" \t:：.-–—=>|*_")
    same_line = False
    right = [cell for cell in line.cells if cell.start >= label_cell.end]
    if stripped_rest.strip():
        first = stripped_rest.strip()
        anchor = Cell(label_cell.end - len(stripped_rest), label_cell.end, first)
        value_line = line
        same_line = len(line.cells) == 1
    elif right and not _ENDS_LABEL.search(right[0].text) and len(_entry_cells(line)) < 3:
        anchor = right[0]
        first = right[0].text.lstrip(" \t:：")
        value_line = line
    elif (left := left_cell(hit)) is not None:
        anchor = left
        first = left.text.strip(" \t:：")
        value_line = line
    elif (centered := _centered_value(document, hit, value)) is not None:
        return centered
    else:
        below = next((other for other in lines_after(document, line, limit=3) if not is_blank(other)), None)
        if below is None:
            return None
        column = Cell(hit.start, label_cell.end, label_cell.text)
        under = [cell for cell in below.cells if cell.overlaps(column)]
        if under:
            anchor = under[0]
        elif len(below.cells) == 1:
            anchor = below.cells[0]
        else:
            return None
        if _next_item(line, below):
            return None
        folded = fold(anchor.text).strip()
        allowed = value.allowed is not None and value.allowed.match(folded) is not None
        if not allowed and (
            _ENDS_LABEL.search(anchor.text)
            or _ENDS_LABEL.search(below.stripped)
            or any(pattern.match(folded) for pattern in value.stops)
        ):
            return None
        first = anchor.text
        value_line = below
    above = _column_above(document, line, anchor) if value_line is line and anchor.start >= label_cell.end else None
    fragments = [text for _, text in above or []] + [first]
    lines = [other for other, _ in above or []] + [value_line]
    _extend(document, fragments, lines, anchor, same_line=same_line, value=value)
    if above:
        page = document.lines_of(line.page)
        return Block(tuple(fragments), tuple(page[lines[0].row : lines[-1].row + 1]), spread=True)
    return Block(tuple(fragments), tuple(lines))


def _next_item(line: Line, below: Line) -> bool:
    """Whether `below` is the next entry of the list `line` belongs to ('5 Place of works' / '6 Bill of
    quantities' in a table of contents), not the value of the label on `line`."""
    number = re.match(r"\s*(\d{1,3})\b", line.text)
    following = re.match(r"\s*(\d{1,3})\b", below.text)
    return number is not None and following is not None and int(following.group(1)) == int(number.group(1)) + 1


def _extend(
    document: Document, fragments: list[str], lines: list[Line], anchor: Cell, *, same_line: bool, value: ValueLayout
) -> None:
    """Add to a value the lines it wraps onto below its last line."""
    for other in lines_after(document, lines[-1], limit=value.max_lines - len(fragments)):
        following = continues(fragments[-1], other, anchor, same_line=same_line, value=value)
        if following is None:
            break
        fragments.append(following)
        lines.append(other)


def _other_script(text: str) -> bool:
    """Text without Latin letters: the Hindi or Arabic half of a bilingual label."""
    return re.search(r"[A-Za-z]", text) is None


def _column_above(document: Document, line: Line, anchor: Cell) -> list[tuple[Line, str]] | None:
    """The lines right above a label's row that belong to its value: a form that centres a label on a value
    of several lines ('MAPLITHO PAPER …' / 'PAPER 80 GSM …' / 'Item Category   SIZE. 297X100MTS …'). Only
    when that block is fenced off by a blank line, so no other row's value is taken; None otherwise."""
    found: list[tuple[Line, str]] = []
    for other in lines_before(document, line, limit=6):
        if is_blank(other):
            return list(reversed(found))
        at = [cell for cell in other.cells if abs(cell.start - anchor.start) <= 3]
        left = [cell for cell in other.cells if cell.end < anchor.start - 2]
        if at and not left:
            found.append((other, at[0].text))
        elif not (left and not at and all(_other_script(cell.text) for cell in left)):
            return None
    return None


def _centered_value(document: Document, hit: LabelHit, value: ValueLayout) -> Block | None:
    """The value of a label alone on its row whose value lies in the column to its right, on the lines
    above and below it (a label centred on a value of several lines)."""
    label_cell = cell_of_label(hit)
    neighbours = [*lines_before(document, hit.line, limit=2), *lines_after(document, hit.line, limit=1)]
    right = [
        cell
        for other in neighbours
        if not any(cell.end < label_cell.end and not _other_script(cell.text) for cell in other.cells)
        for cell in other.cells
        if cell.start >= label_cell.end + 2
    ]
    if not right:
        return None
    anchor = right[0]
    above = _column_above(document, hit.line, anchor)
    if above is None:
        return None
    fragments = [text for _, text in above]
    lines = [other for other, _ in above]
    below: list[str] = []
    below_lines: list[Line] = []
    for other in lines_after(document, hit.line, limit=value.max_lines):
        cells = [cell for cell in other.cells if abs(cell.start - anchor.start) <= 3]
        if is_blank(other) or not cells or len(other.cells) != 1:
            break
        below.append(cells[0].text)
        below_lines.append(other)
    if not fragments and not below:
        return None
    first = (lines + below_lines)[0]
    last = (lines + below_lines)[-1]
    page = document.lines_of(hit.line.page)
    return Block(tuple(fragments + below), tuple(page[first.row : last.row + 1]), spread=True)


def page_weight(page: int) -> float:
    """What the page adds to a candidate: the first pages say what the tender is."""
    if page == 1:
        return 0.1
    if page <= 3:
        return 0.05
    if page <= 5:
        return 0.0
    return -0.1


def left_cell(hit: LabelHit) -> Cell | None:
    """For a right-to-left label ('رقم المنافسة'), the cell printed left of it, where its value stands
    when nothing follows the label."""
    if not _RIGHT_TO_LEFT.search(hit.label):
        return None
    label_cell = cell_of_label(hit)
    if hit.line.text[hit.end : label_cell.end].strip(" \t:：.-–—"):
        return None
    before = [cell for cell in hit.line.cells if cell.end <= label_cell.start]
    return before[-1] if before else None


def first_right_cell(hit: LabelHit) -> str | None:
    label_cell = cell_of_label(hit)
    for cell in hit.line.cells:
        if cell.start >= label_cell.end:
            return cell.text.strip(" \t:：.-–—=>|*_").strip() or cell.text
    return None



def next_nonblank(document: Document, line: Line, *, downwards: bool) -> Line | None:
    """The first non-blank line within five lines after (or before) `line`."""
    neighbours = lines_after(document, line, limit=5) if downwards else lines_before(document, line, limit=5)
    return next((other for other in neighbours if not is_blank(other)), None)



_LOT_HEADING: Final = re.compile(r"\b(?:lot|los|lotto|lote|pakiet|perceel)\s*(?:n[°o]?|nr|no)?\.?\s*:?\s*\d")

def run_on_value(document: Document, hit: LabelHit) -> bool:
    """A value printed right after its label with a single space, as OCR prints a form's columns
    ('Work Description Fourier Transform …', 'Location Department of Textile'): on an OCR page only, the
    label opening its line, the value starting with a capital or a digit."""
    after = hit.line.text[hit.end :].lstrip()
    if not (hit.at_line_start and after and (after[0].isupper() or after[0].isdigit())):
        return False
    return not any("   " in line.text.strip() for line in document.lines_of(hit.line.page))


def in_lot_section(document: Document, line: Line) -> bool:
    """A label just under 'Lot No 2' gives a lot's title or place, not the tender's."""
    return any(_LOT_HEADING.search(other.folded) for other in lines_before(document, line, limit=3))


_NEXT_SECTION: Final = re.compile(r"\s*\d{1,2}\s?[-–.)]\s")
_SECTION_LINES: Final = 8
_SECTION_PAGES: Final = 3


def under_section(document: Document, section: re.Pattern[str], label: re.Pattern[str]) -> Iterator[tuple[Line, str]]:
    """The value of a sub-label (matched on folded text at a line's start) in a numbered section of a form
    whose heading `section` matches, as Turkey's EKAP notices print them ('2 - İhale konusu hizmet alımının'
    / 'a) Adı : Temizlik hizmeti alımı'): the same sub-label means another thing in another section ('3 -
    İhalenin' / 'a) Yapılacağı yer' is where the bids are opened)."""
    first_page = document.page_numbers[0] if document.page_numbers else 1
    for line in document.lines:
        if line.page - first_page >= _SECTION_PAGES:
            return
        if not section.match(line.folded):
            continue
        for other in lines_after(document, line, limit=_SECTION_LINES):
            if _NEXT_SECTION.match(other.text):
                break
            match = label.match(other.folded)
            if match is not None and len(other.folded) == len(other.text):
                yield other, other.text[match.end() :].strip()
