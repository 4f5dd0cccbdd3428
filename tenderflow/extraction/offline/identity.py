"""What the tender is: its title, its reference number and where the contract is performed.

Each field is read the way an analyst reads a tender's first pages:

- **reference number**: the identifier printed after a reference label ("Tender No.", "Vergabenummer",
  "Número de expediente", "CIG", "znak sprawy", "Bid Number/बिड संख्या", "رقم المنافسة", ...), a cover line
  that is only "N° <identifier>", or an unlabelled code on the cover that names a procurement document
  ("ADB/RFP/RDNG/2025/001"). A value counts only when it looks like an identifier: it has a digit, and is
  not a sentence, a date, a year, a phone number, a time or a clause number such as "13.";
- **title**: the text after a title label ("Objet du marché :", "Oggetto dell'appalto:", "Contract Title:",
  "Maßnahme:", GeM's "Item Category" / "BOQ Title", ...), or, on the first page, the heading that names the
  purchase: the rest of a line such as "Tender for …" / "Bando di gara procedura aperta …", or the paragraph
  under (past number, publication, procedure and contract-type lines) or, failing that, above a heading
  that only says what the document is ("REQUEST FOR PROPOSAL", "SPECYFIKACJA WARUNKÓW ZAMÓWIENIA"). Titles
  wrap: the value joins the wrapped lines and the quote is those lines joined with "\n";
- **place of performance**: the place after a place label ("Place of Performance", "Lieu d'exécution",
  "Ort der Leistungserbringung", "Lugar de entrega", "Luogo di esecuzione", "مكان تنفيذ الأعمال", ...), the
  town of an eForms place block, the sentence form "Il luogo di svolgimento dell'appalto è nel Comune di …",
  else a NUTS code, a delivery sentence ("Las entregas se realizarán en …"), the first address of a
  consignee table (GeM), or the place a title ends with ("… Works at NCPB GCP Depot").

Every field abstains when its evidence is weak: a label inside a sentence, a table-of-contents line, a
section heading followed by prose, a table's header row, a template placeholder ("....", "[insert]", "$ X")
gives no value. Label positions are mapped back to the printed text ('ß' folds to two letters) and a
bilingual label's other-script half counts as part of the label.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.document import Cell, Document, LabelHit, Line, Span, fold, label_regex
from tenderflow.extraction.schema import Sourced

# --- shared vocabulary ------------------------------------------------------------------------------------

_PLACEHOLDER: Final = re.compile(
    r"^[\s.…_\-–—:*/|]*$|\.{4,}|…|_{3,}|\[\s*(?:insert|enter|add|type|name|\.)|<\s*(?:insert|enter)"
    r"|\b(?:tbd|tba|to be (?:advised|confirmed|determined|announced|notified))\b|x{3,}|\$\s*x\b",
    re.IGNORECASE,
)
"""Template text that stands where a value should be: dots, underscores, '[insert …]', 'XXX', '$ X'."""

_NUMBERING: Final = re.compile(
    r"^\s*(?:\(?(?:[ivxIVX]+|\d+|[a-hA-H])(?:\.(?:\d+|[a-z]))*[.)]|\d+(?:\.\d+)+|[•·▪■\-–])\s"
)
"""A line that starts a numbered item or a bullet: a new entry, not the continuation of a value."""

_LABEL_LIKE: Final = re.compile(r":\s*\*?\s*$|^[^:]{1,45}\s:\s|^[^:\d]{2,40}:\s+\S")
"""A line that is itself 'Label:' or 'Label : value': the start of another field."""

_ENDS_LABEL: Final = re.compile(r"[:*]\s*$|^[^:]{1,45}\s:\s")
"""A cell that is a label itself ('Dirección alternativa *', 'Code NUTS : FRJ12')."""

_PROSE: Final = re.compile(
    r"\b(?:is|are|was|shall|will|must|may|should|est|sont|sera|doit|doivent|ist|sind|wird|werden|muss|"
    r"es|son|será|serán|debe|deberá|è|sono|sarà|deve|dovrà|jest|są|będzie|é|são|deverá|zijn|wordt|moet|"
    r"has|have|had|hat|haben|ont|hanno|invites|invite|invita|lädt|requests|seeks|wishes|defines|describes|"
    r"contains|provides|définit|précise|fixe|concerne|établit|régit|rige|establece|define|regola|disciplina|"
    r"definiert|regelt|beschreibt|enthält|określa|zawiera|dotyczy)\b"
)
"""Verbs of a sentence: a title or a place is a noun phrase, a clause that states something is prose."""

_ORGANISATION: Final = re.compile(
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

_SENTENCE_END: Final = re.compile(r"[^\s.]{4,}[.;]\s*$|\)[.;]\s*$")
"""A line that closes a sentence ('… électriques.'), unlike an abbreviation ('pn.', 'Nr.') that goes on."""

_QUOTES: Final = "\"'“”„‟«»‘’‚ "


def _labels(phrases: Sequence[str]) -> re.Pattern[str]:
    """`label_regex` over phrases whose apostrophes match any apostrophe or none ("dell'appalto",
    "dell’appalto", "d'exécution")."""
    return label_regex([phrase.replace("'", " ") for phrase in phrases])


def _lines_after(document: Document, line: Line, *, limit: int) -> Iterator[Line]:
    """The lines after `line` on its page, blank ones included, at most `limit`."""
    page = document.lines_of(line.page)
    yield from page[line.row + 1 : line.row + 1 + limit]


def _lines_before(document: Document, line: Line, *, limit: int) -> Iterator[Line]:
    """The lines before `line` on its page, nearest first, blank ones included, at most `limit`."""
    page = document.lines_of(line.page)
    start = max(0, line.row - limit)
    yield from reversed(page[start : line.row])


def _is_blank(line: Line) -> bool:
    return not line.text.strip()


def _join(fragments: Sequence[str]) -> str:
    """Wrapped lines as one text: words hyphenated at a line end are rejoined ('Visualisie-' + 'rungen')."""
    text = ""
    for fragment in fragments:
        fragment = fragment.strip()
        if not text:
            text = fragment
        elif re.search(r"[^\W\d_]-$", text) and fragment[:1].islower():
            text = text[:-1] + fragment
        elif re.search(r"\w-$", text):
            text = text + fragment
        else:
            text = f"{text} {fragment}"
    return text


@dataclass(frozen=True)
class _Block:
    """A value that may wrap over several lines: the text read on each line and those lines."""

    fragments: tuple[str, ...]
    lines: tuple[Line, ...]
    spread: bool = False  # the value's lines enclose other text (its label): the quote keeps the columns

    @property
    def text(self) -> str:
        return _join(self.fragments)

    @property
    def page(self) -> int:
        return self.lines[0].page

    @property
    def quote(self) -> str:
        if self.spread:
            return "\n".join(line.text.rstrip() for line in self.lines).strip()
        return "\n".join(line.stripped for line in self.lines)

    def with_fragments(self, fragments: Sequence[str]) -> _Block:
        return _Block(tuple(fragments), self.lines[: len(fragments)], self.spread)


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


def _find(document: Document, pattern: re.Pattern[str]) -> Iterator[LabelHit]:
    """Every occurrence of a label, with positions in the printed text, the other-script half of a
    bilingual label counted as part of it."""
    for hit in document.find(pattern):
        hit = _aligned(hit)
        other = _OTHER_SCRIPT_LABEL.match(hit.line.text, hit.end)
        if other is not None:
            hit = LabelHit(hit.line, hit.start, other.end(), hit.label)
        yield hit


def _label_cell(hit: LabelHit) -> Cell:
    cell = hit.line.cell_at(hit.start)
    return cell if cell is not None else Cell(hit.start, len(hit.line.text), hit.line.text[hit.start :])


_ENTRY_PREFIX: Final = re.compile(
    r"(?:(?:\(?(?:\d+(?:\.\d+)*[.):]?|(?:[ivxlIVXL]{1,4}|[a-hA-H])[.):])|[•*·\-–—:|]+)\s*){0,3}|[^\x00-\x7f\s]+(?:\s+[^\x00-\x7f\s]+)*\s*/?"
)
"""What may stand before a label that opens an entry: numbering, bullets, decoration ('-: NAME OF WORK :-'),
the other-script half of a bilingual label ('व तु  ण /Item Category')."""


def _label_starts_entry(hit: LabelHit) -> bool:
    """The label opens its line or its layout cell (a form entry), rather than sitting inside a sentence."""
    if hit.at_line_start or _ENTRY_PREFIX.fullmatch(hit.line.text[: hit.start].strip()):
        return True
    cell = _label_cell(hit)
    before = hit.line.text[cell.start : hit.start]
    return _ENTRY_PREFIX.fullmatch(before.strip()) is not None


def _separated(hit: LabelHit) -> bool:
    """Nothing but a separator follows the label in its cell ('Objet du marché : …', 'Objeto *'), as in a
    form; 'Objeto y necesidad del contrato' is a heading or a sentence that uses the label's words."""
    after = hit.line.text[hit.end : _label_cell(hit).end]
    return not after.strip() or re.match(r"\s*[:：*=\-–—]", after) is not None


def _continues(previous: str, line: Line, anchor: Cell, *, same_line: bool, value: _Field) -> str | None:
    """The text of `line` that continues a value whose last fragment was `previous`, or None.

    A value wraps onto the next line in its own column: a line that is blank, that starts a numbered
    item, a bullet or another label, or that has text in a column left of the value (a new row of a
    form) ends it, and so does a fragment that closed a sentence.
    """
    if _is_blank(line) or _SENTENCE_END.search(previous) or previous.rstrip().endswith(":"):
        return None
    text = line.stripped
    folded = line.folded.strip()
    allowed = value.allowed is not None and value.allowed.match(folded) is not None
    if not allowed and (_NUMBERING.match(line.text) or _LABEL_LIKE.search(text)):
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
class _Field:
    """How a field's values wrap: how many lines at most, which lines end them (other labels), which
    labelled lines still belong to them (a place block's 'Town:' / 'Country:' lines)."""

    max_lines: int
    stops: tuple[re.Pattern[str], ...]
    allowed: re.Pattern[str] | None = None


def _value_block(document: Document, hit: LabelHit, value: _Field) -> _Block | None:
    """The value a label introduces: after it in its cell, else in the next cell of its row, else in
    the first non-blank line below (the cell under the label, or the whole line when it has one cell);
    continued over the lines it wraps onto."""
    line = hit.line
    label_cell = _label_cell(hit)
    rest = line.text[hit.end : label_cell.end]
    stripped_rest = rest.lstrip(" \t:：.-–—=>|*_")
    same_line = False
    right = [cell for cell in line.cells if cell.start >= label_cell.end]
    if stripped_rest.strip():
        first = stripped_rest.strip()
        anchor = Cell(label_cell.end - len(stripped_rest), label_cell.end, first)
        value_line = line
        same_line = len(line.cells) == 1
    elif right and not _ENDS_LABEL.search(right[0].text) and len(line.cells) < 3:
        anchor = right[0]
        first = right[0].text
        value_line = line
    elif (left := _left_cell(hit)) is not None:
        anchor = left
        first = left.text.strip(" \t:：")
        value_line = line
    elif (centered := _centered_value(document, hit, value)) is not None:
        return centered
    else:
        below = next((other for other in _lines_after(document, line, limit=3) if not _is_blank(other)), None)
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
        if not allowed and (_ENDS_LABEL.search(anchor.text) or any(pattern.match(folded) for pattern in value.stops)):
            return None
        first = anchor.text
        value_line = below
    above = _column_above(document, line, anchor) if value_line is line and anchor.start >= label_cell.end else None
    fragments = [text for _, text in above or []] + [first]
    lines = [other for other, _ in above or []] + [value_line]
    _extend(document, fragments, lines, anchor, same_line=same_line, value=value)
    if above:
        page = document.lines_of(line.page)
        return _Block(tuple(fragments), tuple(page[lines[0].row : lines[-1].row + 1]), spread=True)
    return _Block(tuple(fragments), tuple(lines))


def _next_item(line: Line, below: Line) -> bool:
    """Whether `below` is the next entry of the list `line` belongs to ('5 Place of works' / '6 Bill of
    quantities' in a table of contents), not the value of the label on `line`."""
    number = re.match(r"\s*(\d{1,3})\b", line.text)
    following = re.match(r"\s*(\d{1,3})\b", below.text)
    return number is not None and following is not None and int(following.group(1)) == int(number.group(1)) + 1


def _extend(
    document: Document, fragments: list[str], lines: list[Line], anchor: Cell, *, same_line: bool, value: _Field
) -> None:
    """Add to a value the lines it wraps onto below its last line."""
    for other in _lines_after(document, lines[-1], limit=value.max_lines - len(fragments)):
        following = _continues(fragments[-1], other, anchor, same_line=same_line, value=value)
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
    for other in _lines_before(document, line, limit=6):
        if _is_blank(other):
            return list(reversed(found))
        at = [cell for cell in other.cells if abs(cell.start - anchor.start) <= 3]
        left = [cell for cell in other.cells if cell.end < anchor.start - 2]
        if at and not left:
            found.append((other, at[0].text))
        elif not (left and not at and all(_other_script(cell.text) for cell in left)):
            return None
    return None


def _centered_value(document: Document, hit: LabelHit, value: _Field) -> _Block | None:
    """The value of a label alone on its row whose value lies in the column to its right, on the lines
    above and below it (a label centred on a value of several lines)."""
    label_cell = _label_cell(hit)
    neighbours = [*_lines_before(document, hit.line, limit=2), *_lines_after(document, hit.line, limit=1)]
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
    for other in _lines_after(document, hit.line, limit=value.max_lines):
        cells = [cell for cell in other.cells if abs(cell.start - anchor.start) <= 3]
        if _is_blank(other) or not cells or len(other.cells) != 1:
            break
        below.append(cells[0].text)
        below_lines.append(other)
    if not fragments and not below:
        return None
    first = (lines + below_lines)[0]
    last = (lines + below_lines)[-1]
    page = document.lines_of(hit.line.page)
    return _Block(tuple(fragments + below), tuple(page[first.row : last.row + 1]), spread=True)


def _page_weight(page: int) -> float:
    """What the page adds to a candidate: the first pages say what the tender is."""
    if page == 1:
        return 0.1
    if page <= 3:
        return 0.05
    if page <= 5:
        return 0.0
    return -0.1


# --- reference number -------------------------------------------------------------------------------------

_REFERENCE_STRONG: Final = _labels(
    [
        # en (incl. Indian portals: GeM 'Bid Number', CPPP 'Tender Reference Number', 'NIT No.')
        "reference number", "reference no", "ref no", "our ref", "our reference", "tender no", "tender number",
        "tender ref", "tender reference", "tender reference number", "tender id", "tender notice no",
        "e-tender no", "bid number", "bid no", "bid reference", "bid reference number", "solicitation number",
        "solicitation no", "request number", "request no", "procurement number", "procurement no",
        "procurement reference", "procurement reference number", "contract number", "contract no",
        "contract reference", "enquiry no", "inquiry no", "file no", "file number", "nit no", "bid id",
        "internal identifier", "identifiant interne", "interne kennung", "identificador interno",
        "identificativo interno", "identyfikator wewnetrzny", "intern kenmerk", "identificador interno do processo",
        "बिड संख्या", "बोली संख्या", "निविदा संख्या",
        # fr
        "numero de reference", "numero de reference attribue au marche", "reference du marche",
        "reference de la consultation", "reference de l'avis", "numero de la consultation", "numero de consultation",
        "numero du marche", "n° de marche", "no de marche", "marche n", "marche no", "consultation n",
        "n° de la consultation", "appel d'offres n", "appel d'offres no",
        # de
        "vergabenummer", "vergabe nr", "vergabe-nr", "aktenzeichen", "geschaftszeichen", "ausschreibungsnummer",
        "ausschreibungs nr", "referenznummer", "verfahrensnummer", "vergabeverfahren nr", "kennziffer",
        "projektnummer", "projektnr", "projekt nr",
        # es
        "numero de expediente", "n° de expediente", "no de expediente", "nro de expediente", "expediente n",
        "expediente no", "expediente nro", "expte", "numero de licitacion", "licitacion n", "licitacion no",
        "numero de proceso", "numero de procedimiento",
        # it
        "cig", "codice identificativo gara", "codice identificativo di gara", "numero di gara", "numero gara",
        "n gara", "codice gara", "id gara", "codice procedura", "numero di riferimento",
        # pl
        "znak sprawy", "numer sprawy", "nr sprawy", "numer postepowania", "nr postepowania", "numer referencyjny",
        "oznaczenie sprawy", "znak postepowania",
        # pt
        "processo n", "processo no", "numero do processo", "n do processo", "edital n", "edital no",
        "pregao eletronico n", "pregao eletronico no", "numero de referencia",
        # nl
        "referentienummer", "aanbestedingsnummer", "zaaknummer", "dossiernummer", "projectnummer", "kenmerk",
        # ar
        "رقم المنافسة", "الرقم المرجعي", "رقم المناقصة", "رقم العطاء", "رقم الكراسة",
    ]
)  # fmt: skip
"""Labels that name the tender's own identifier."""

_REFERENCE_DOCUMENT: Final = re.compile(
    r"(?<![^\W_])(?:request for (?:proposals?|quotations?|tenders?|bids?)|invitation (?:for|to) (?:bids?|tenders?)"
    r"|rfp|rfq|rft|rfb|itb|ifb|itt|eoi|porfp|rfx)\W{0,8}(?:\([^)]{0,12}\)\W{0,4})?"
    r"(?:(?:no|nr|number|num|ref)(?![^\W_])|#)"
)
"""'RFP No.', 'ITB #', 'REQUEST FOR PROPOSALS ("RFP") NO.', 'PORFP Number': the document's own number."""

_REFERENCE_GENERIC: Final = _labels(
    ["reference", "ref", "referencia", "riferimento", "referenz", "expediente", "referentie", "rfa", "المرجع"]
)
"""Bare 'reference' words: a reference only when they open an entry of a form or a letter head."""

_REFERENCE_PUBLICATION: Final = _labels(["avis n", "annonce n", "annonce no", "avis no", "notice no"])
"""The number of the published notice: an acceptable reference when the buyer gives none."""

_NOTICE_BEFORE: Final = re.compile(
    r"(?<![^\W_])(?:avis|annonce|notice|bekanntmachung|auftragsbekanntmachung|anuncio|avviso|bando|ogloszenie"
    r"|aankondiging|aviso|publication|publicacion|pubblicazione|veroffentlichung)"
    r"(?:\s+(?:de|d|du|des|of|the|di|del|della|van|o|do|da))*[\s'’]*$"
)
"""What makes a reference label the published notice's number: 'Avis de marché n°', 'Avviso di gara n.',
'Notice of contract no.': the gazette's number for the notice, not the buyer's reference for the tender."""

_REFERENCE_NOT_OURS: Final = re.compile(
    r"\b(?:your|uw|ihr|ihre|votre|vos|su|bank|guarantee|garantie|loan|credit|grant|cuit|invoice|factura|facture|"
    r"rechnung|cpv|nuts|tax|vat|gst|pan|iban|registration|phone|telephone|fax)\W{0,3}$"
)
"""Words just before a reference label that make it someone else's number (the bidder's, a bank's, a loan's)."""

_ID_MARKER: Final = re.compile(
    r"^(?:[\s.:：#№°º=|*\-–—]|(?:no|nr|nro|n|num|number|numero|nummer)(?=[\s.°º:#]))*", re.IGNORECASE
)
"""What stands between a label and its identifier: 'No.', 'n°', 'Nr.', '#', ':'."""

_ID_TOKEN: Final = re.compile(r"[^\W_][\w./\-#]*")
_DATE_LIKE: Final = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|(?:19|20)\d{2}")
_CLAUSE_LIKE: Final = re.compile(r"\d{1,2}(?:\.\d{1,2})*\.?")
_PHONE_LIKE: Final = re.compile(r"\+?[\d()\s/-]{7,}")


def _identifier(text: str) -> str | None:
    """The identifier at the start of `text` ('No. 2022-01 Professional …' → '2022-01'), or None.

    It may span a few tokens when each has a digit ('173087_75 112/0012'); it must have a digit, and be
    neither a date, a year, a phone number, a clause number ('13.', '4.2') nor a placeholder.
    """
    if _PLACEHOLDER.search(text[:40]):
        return None
    tokens: list[str] = []
    for raw in _ID_MARKER.sub("", text, count=1).split()[:5]:
        token = raw.strip("\"'“”„«»()[]").rstrip(".,;:")
        if not token or _ID_TOKEN.fullmatch(token) is None:
            break
        wrapped = bool(tokens) and tokens[-1].endswith(("-", "/"))  # 'NCPB/ GCP DEPOT/13/2021-2022'
        if tokens and not wrapped and (not _has_digit(token) or raw.startswith(("(", "["))):
            break
        tokens.append(token)
        if raw.endswith((",", ";", ".", ")", "]")):
            break
    while tokens and not _has_digit(tokens[-1]):
        tokens.pop()
    if not tokens:
        return None
    value = " ".join(tokens)
    first = tokens[0]
    code_like = first.isupper() and re.search(r"[-/]", first) is not None  # 'NCPB/GCP DEPOT/13/2021-2022'
    if not (_has_digit(first) or (code_like and len(tokens) > 1)) or len(value) > 45 or "//" in value:
        return None
    if _DATE_LIKE.fullmatch(value) or _CLAUSE_LIKE.fullmatch(value) or (value.isdigit() and len(value) < 3):
        return None
    if len(tokens) > 1 and _PHONE_LIKE.fullmatch(value):
        return None
    return value


def _has_digit(text: str) -> bool:
    return any(character.isdigit() for character in text)


_LABEL_COLON: Final = re.compile(r"(?<!\d)\s?[:：]|[:：](?!\d)")
"""A colon that ends a label, not one inside a time ('10:00')."""

_DESIGNATION: Final = re.compile(r"(?:[A-Z]{2,6}\.?\s?(?:No|Nr|N°|Ref)\.?)\s?")
"""What a buyer prints as part of its number: 'ICB No:007/G/2024', kept with the number."""


def _identifier_in(text: str, *, after_colon: bool) -> str | None:
    """The identifier a span gives: at its start, or, on the label's own line, after its last colon
    ('… par le pouvoir adjudicateur / l'entité adjudicatrice : 20F015PA.')."""
    value = _identifier(text)
    if value is None and after_colon:
        parts = _LABEL_COLON.split(text)
        if len(parts) > 1:
            value = _identifier(parts[-1])
            head = text[: len(text) - len(parts[-1])]
            designation = _DESIGNATION.fullmatch(head.strip().rstrip(":："))
            if value is not None and designation is not None and text.strip().startswith(head.strip()):
                value = f"{head.strip()}{parts[-1][: len(parts[-1]) - len(parts[-1].lstrip())]}{value}"
    return value


@dataclass(frozen=True)
class _ReferenceLabel:
    pattern: re.Pattern[str]
    score: float
    entry_only: bool  # only when the label opens an entry (line or cell) on the first pages


_REFERENCE_PROJECT: Final = _labels(["project number", "project no", "project id", "numero du projet"])
"""A project's number: the tender's reference in some calls (APEC 'project number: CTI69'), but a
financing project's in others, so it weighs less than a tender's own number."""

_NUMBER_LINE: Final = re.compile(r"^(?:n\s?[°º]|no\.|nr\.|numero)(?=\s?\S*\d)")
"""A cover line that is only 'N° 2024/07/CEB/TAM/P/CS': the document's number under its title."""

_PUBLICATION_SCORE: Final = 0.6
"""A published notice's number: the reference only when the buyer gives none of its own."""

_REFERENCE_LABELS: Final = (
    _ReferenceLabel(_REFERENCE_STRONG, 0.8, False),
    _ReferenceLabel(_REFERENCE_DOCUMENT, 0.8, False),
    _ReferenceLabel(_REFERENCE_PROJECT, 0.7, False),
    _ReferenceLabel(_REFERENCE_GENERIC, 0.65, True),
    _ReferenceLabel(_REFERENCE_PUBLICATION, _PUBLICATION_SCORE, True),
)
_HOW_PENALTY: Final = {"same": 0.0, "right": 0.0, "below": 0.03, "next": 0.05}


def _reference_candidates(document: Document) -> Iterator[Candidate[str]]:
    for label in _REFERENCE_LABELS:
        for hit in _find(document, label.pattern):
            if label.entry_only and (hit.line.page > 3 or not _label_starts_entry(hit)):
                continue
            if _REFERENCE_NOT_OURS.search(fold(hit.line.text[max(0, hit.start - 20) : hit.start])):
                continue
            score_base = label.score
            if label.pattern is not _REFERENCE_PUBLICATION and _NOTICE_BEFORE.search(fold(hit.line.text[: hit.start])):
                score_base = _PUBLICATION_SCORE  # 'Avis de marché n° 25-14359': the notice's number
            first_right = _first_right_cell(hit)
            spans = list(document.spans_after(hit, below=2))
            left = _left_cell(hit)
            if left is not None:
                spans.insert(0, Span(left.text, hit.line, "same", 0, hit.line, hit.line.stripped))
            for span in spans:
                if span.how == "right" and span.text != first_right:
                    continue
                value = _identifier_in(span.text, after_colon=span.how == "same")
                if value is None:
                    continue
                score = score_base + _page_weight(span.page) - _HOW_PENALTY[span.how] * max(span.distance, 1)
                if re.search(r"[^\W\d_]", value) or re.search(r"[-/_.]", value):
                    score += 0.05
                if " " in value:
                    score -= 0.03  # an identifier broken by spaces is more often misread (OCR) or cut
                yield Candidate(value, span.page, span.quote, round(score, 3), f"{hit.label} ({span.how})")
                break
    for line in _first_lines(document):
        value = _number_line(line)
        if value is not None:
            yield Candidate(value, line.page, line.stripped, 0.75, "number line")
        for match in _EMBEDDED_REFERENCE.finditer(line.text):
            code = match.group()
            if _PROCUREMENT_CODE.search(code) and _has_digit(code) and "//" not in code:
                yield Candidate(code, line.page, line.stripped, 0.62, "coded identifier")


_EMBEDDED_REFERENCE: Final = re.compile(r"(?<![\w/-])[A-Z][A-Z0-9]*(?:[/-][A-Z0-9]+){2,}(?=[^\w/]|$)")
"""A structured code on the cover ('ADB/RFP/RDNG/2025/001', 'PSGCT/CPPP/2025-26/03')."""

_PROCUREMENT_CODE: Final = re.compile(
    r"(?<![A-Z])(?:RFP|RFQ|RFB|RFT|ITB|IFB|ICB|NCB|EOI|AMI|DAO|ITT|NIT|CPPP|TENDER|BID|AOI|AON|DPAO)(?![A-Z])"
)
"""A segment that names a procurement document: a code with one is the tender's number, unlabelled."""


def _first_lines(document: Document, count: int = 40) -> list[Line]:
    """The first non-blank lines of the first page: the cover."""
    if not document.page_numbers:
        return []
    return [line for line in document.lines_of(document.page_numbers[0]) if not _is_blank(line)][:count]


def _number_line(line: Line) -> str | None:
    """The identifier of a line that is only 'N° <identifier>', or None."""
    stripped = line.stripped
    match = _NUMBER_LINE.match(fold(stripped))
    if match is None or len(fold(stripped)) != len(stripped):
        return None
    rest = stripped[match.end() :]
    value = _identifier(rest)
    return value if value is not None and len(_ID_MARKER.sub("", rest).strip()) <= len(value) + 1 else None


def _left_cell(hit: LabelHit) -> Cell | None:
    """For a right-to-left label ('رقم المنافسة'), the cell printed left of it, where its value stands
    when nothing follows the label."""
    if not _RIGHT_TO_LEFT.search(hit.label):
        return None
    label_cell = _label_cell(hit)
    if hit.line.text[hit.end : label_cell.end].strip(" \t:：.-–—"):
        return None
    before = [cell for cell in hit.line.cells if cell.end <= label_cell.start]
    return before[-1] if before else None


def _first_right_cell(hit: LabelHit) -> str | None:
    label_cell = _label_cell(hit)
    for cell in hit.line.cells:
        if cell.start >= label_cell.end:
            return cell.text.strip(" \t:：.-–—=>|*_").strip() or cell.text
    return None


def reference_number(document: Document) -> Sourced[str] | None:
    """The tender's reference: the identifier after the best reference label, a little more believed
    when several labels give the same identifier."""
    candidates = list(_reference_candidates(document))
    support: dict[str, int] = {}
    for candidate in candidates:
        key = _alphanumeric(candidate.value)
        support[key] = support.get(key, 0) + 1
    boosted = [
        Candidate(c.value, c.page, c.quote, c.score + 0.03 * min(support[_alphanumeric(c.value)] - 1, 3), c.why)
        for c in candidates
    ]
    best = choose(boosted, 0.6)
    return best.sourced() if best is not None else None


def _alphanumeric(text: str) -> str:
    return "".join(character for character in text.casefold() if character.isalnum())


# --- title ------------------------------------------------------------------------------------------------

_TITLE_STRONG: Final = _labels(
    [
        # en (GeM: 'Item Category'; CPPP: 'Name of Work', 'Work Description')
        "tender title", "request title", "title of the tender", "title of tender", "title of the contract",
        "contract title", "procurement title", "boq title",
        "name of work", "name of the work", "name of works", "name of assignment", "name of the assignment",
        "item category", "description of work",
        "description of the work", "work description", "subject of the tender", "subject of procurement",
        "subject of the procurement", "subject of the contract", "tender subject", "subject matter",
        "rfp title", "rfq title", "itb title", "bid title", "solicitation title", "tender name", "name of tender",
        "name of the tender", "name of the contract", "contract name",
        # fr
        "objet du marche", "objet de la consultation", "objet de l'accord cadre", "objet de l'appel d'offres",
        "objet de l'avis", "intitule du marche", "intitule de la consultation", "intitule",
        # de
        "bezeichnung des auftrags", "auftragsgegenstand", "gegenstand der ausschreibung", "gegenstand des auftrags",
        "gegenstand der leistung", "leistungsbezeichnung", "bezeichnung der leistung", "kurzbezeichnung",
        "massnahme", "baumassnahme", "bezeichnung der massnahme",
        # es
        "objeto del contrato", "objeto de la contratacion", "objeto de la licitacion", "titulo del contrato",
        "denominacion del contrato", "objeto del pliego",
        # it
        "oggetto dell'appalto", "oggetto della gara", "oggetto del contratto", "oggetto della procedura",
        "denominazione dell'appalto", "titolo dell'appalto",
        # pl
        "nazwa zamowienia", "przedmiot zamowienia", "nazwa nadana zamowieniu", "nazwa postepowania",
        # pt
        "objeto da licitacao", "objeto do contrato", "objeto do edital",
        # nl
        "naam van de opdracht", "titel van de opdracht", "omschrijving van de opdracht",
        # ar
        "اسم المنافسة", "عنوان المنافسة", "موضوع المنافسة",
    ]
)  # fmt: skip
"""Labels whose value is the tender's title."""

_TITLE_PROJECT: Final = _labels(
    ["project title", "title of the project", "title of project", "name of project", "name of the project",
     "project name"]
)  # fmt: skip
"""The project's name: the title of some calls, the financing project of others ('Project: Bukhara Region Water
Supply and Sewerage Project' above 'Contract Title: …'), so it weighs less than a contract's title."""

_TITLE_GENERIC: Final = _labels(
    ["title", "subject", "sub", "objet", "objeto", "oggetto", "gegenstand", "bezeichnung", "betreff", "betrifft",
     "titel", "omschrijving", "onderwerp", "przedmiot", "titulo", "titolo", "الموضوع"]
)  # fmt: skip
"""Bare 'title'/'subject' words ('Sub:' in Indian letters): the title only when they open an entry of the
first pages."""

_TITLE_NOT_OURS: Final = re.compile(
    r"\b(?:name|signature|signed|position|designation|job|contact|officer|nom|nombre|cargo|funktion|fonction|"
    r"telephone|phone|e-?mail)\b"
)
"""Words around a bare 'Title:' that make it a person's title (a signature or contact block)."""

_LOT_WORDS: Final = re.compile(r"\b(?:lot|los|lotto|lote|pakiet|perceel)\b")
_LOT_HEADING: Final = re.compile(r"\b(?:lot|los|lotto|lote|pakiet|perceel)\s*(?:n[°o]?|nr|no)?\.?\s*:?\s*\d")
_JOB_TITLE: Final = re.compile(
    r"\b(?:manager|officer|director|head|coordinator|chief|president|engineer|secretary|mr|mrs|ms|dr)\b", re.I
)

_DOC_TYPE: Final = (
    r"request for (?:proposals?|quotations?|quotes?|tenders?|bids?|offers?|information|"
    r"expressions? of interest)|invitation (?:for|to) (?:bids?|tenders?|quotations?|tender)|"
    r"(?:open |e-?)?tender(?: document| notice| dossier| documents)?|notice inviting (?:e-?)?tenders?|"
    r"bid(?:ding)? documents?|standard bidding documents?|expression of interest|solicitation|request|"
    r"(?:specific |general )?procurement notice|contract notice|invitation to bid|"
    r"(?:national|international) competitive bidding|"
    r"(?:technical|financial|price|commercial) (?:bid|proposal|offer)|tender documents?|"
    r"rfp|rfq|rft|itb|ifb|itt|eoi|nit|"
    r"appel d['’ ]?offres(?: public| ouvert| restreint)*(?: national| international)?|avis de marche|"
    r"(?:avis (?:de sollicitation |d['’ ]?appel )?(?:de |a )?|appel a |sollicitation de )"
    r"manifestations? d['’ ]?interet|"
    r"avis d['’ ]?appel (?:public )?(?:a la concurrence|d['’ ]?offres)|reglement de (?:la )?consultation|"
    r"dossier de consultation(?: des entreprises)?|cahier des (?:clauses|charges)[\w '’]*|"
    r"(?:auftrags)?bekanntmachung|(?:offentliche |beschrankte )?ausschreibung|"
    r"aufforderung zur (?:abgabe eines angebot(?:e?s)?|angebotsabgabe)|angebotsaufforderung|vergabeunterlagen|"
    r"licitacion(?: publica| privada| abierta)?(?: nacional| internacional)?|anuncio de licitacion|"
    r"pliego de (?:bases y )?(?:condiciones|clausulas|prescripciones)[\w ]*?|concurso(?: publico)?|"
    r"bando(?: di gara)?|disciplinare(?: di gara)?|bando disciplinare|avviso(?: pubblico)?|"
    r"capitolato(?: speciale)?(?: d['’ ]?appalto)?|lettera d['’ ]?invito|"
    r"specyfikacja (?:istotnych )?warunkow zamowienia|s?i?wz|zapytanie ofertowe|ogloszenie o zamowieniu|"
    r"edital(?: de licitacao)?|termo de referencia|(?:aviso de )?licitacao|pregao(?: eletronico)?|"
    r"aanbestedingsleidraad|offerteaanvraag|aankondiging van een opdracht|"
    r"كراسة الشروط(?: والمواصفات)?|منافسة عامة"
)
"""What a document calls itself on its cover, in folded text."""

_HEADING: Final = re.compile(
    rf"(?:{_DOC_TYPE})(?:\s*\([^)]{{1,15}}\))?"
    r"(?:\s*(?:no|nr|n°|number|#)\.?\s*[\w./-]*\d[\w./-]*|\s+[-–—]\s+[\w./-]*\d[\w./-]*)?\s*[.:]?"
)
"""A line that only says what the document is ('REQUEST FOR PROPOSALS ("RFP") NO. 2022-01', 'Contract notice –
ABC-2025/01')."""

_PROCEDURE: Final = (
    r"procedura (?:aperta|negoziata|ristretta)|procedimiento (?:abierto|negociado|restringido)(?: simplificado)?|"
    r"open (?:procedure|tender(?:ing)?)|procedure (?:ouverte|adaptee|restreinte)|appel d['’ ]?offres ouvert|"
    r"offenes verfahren|nichtoffenes verfahren|verhandlungsverfahren|verhandlungsvergabe|freihandige vergabe|"
    r"(?:offentliche|beschrankte) ausschreibung|przetarg nieograniczony|concorrencia|pregao"
)
"""Procedure names that a cover heading may carry before the title."""

_CONNECTOR: Final = (
    r"for(?: the)?|pour(?: la| le| les| l['’ ]?)?|fur(?: die| den| das)?|zur|zum|para(?: la| el| los| las)?|"
    r"per(?: la| il| l['’ ]?| i| le)?|voor(?: de| het)?|relatif a|relative a|concernant|relativo a|relativa a|"
    r"(?:que (?:ha|han) de regir )?(?:en |para )?(?:el |la )?(?:contrato|contratacion|adjudicacion) de(?:l)?"
)
"""Words that lead from a document type to what is bought: 'Tender FOR …', '… EN EL CONTRATO DE …'."""

_INLINE_HEADING: Final = re.compile(
    rf"(?:{_DOC_TYPE})(?:\s*\([^)]{{1,15}}\))?"
    r"(?:\s+(?:national|international|public|publique|publico|ouvert|open|restricted|restreint|nacional|"
    r"internacional|e-?tender|online))*"
    r"(?:\s*(?:no|nr|n°|number|#)\.?\s*:?\s*[\w./-]*\d[\w./-]*)?"
    rf"(?:\s+(?P<procedure>{_PROCEDURE})|\s*[-–—]?\s+(?P<connector>{_CONNECTOR}))\s+(?=\S)"
)
"""A heading that goes on with the title: 'Tender for …', 'BANDO DI GARA PROCEDURA APERTA AFFIDAMENTO …'."""

_LEADING_CONNECTOR: Final = re.compile(rf"^(?:{_CONNECTOR}|na)\s+", re.IGNORECASE)
_DOC_TYPE_VALUE: Final = re.compile(
    rf"(?:{_DOC_TYPE}|{_PROCEDURE})(?:\s*\([^)]{{1,15}}\))?(?:\s*(?:no|nr|n°|number|#)?\.?\s*[\w./-]*\d[\w./-]*)?"
)
"""A 'title' that only names the document type or the procedure ('Request for Quotation (RFQ)')."""

_STARTS_WITH_TYPE: Final = re.compile(rf"(?:{_DOC_TYPE}|{_PROCEDURE})\b")

_CONTRACT_TYPE: Final = re.compile(
    r"\(?(?:goods|works|services|plant|supplies|consulting services|non-consulting services|fournitures|travaux|"
    r"prestations intellectuelles|servicios|suministros|obras|forniture|lavori|servizi|dostawy|uslugi|"
    r"roboty budowlane|(?:liefer|dienstleistungs|bau)(?:auftrag|leistungen)?(?:\s*-?\s*/\s*\w+)?)\)?\.?"
    r"|\([^)]*(?:envelope|stage|enveloppe|etape)[^)]*\)|[^\w]*(?:design|supply|installation|and|,|\s)+[^\w]*"
)
"""A cover line that only gives the kind of contract or the bidding process ('Goods', '(Two-Envelope
Bidding Process)', 'Liefer- / Dienstleistungsauftrag'): to be passed over on the way to the title."""
_LEGAL: Final = re.compile(
    r"\b(?:postepowani\w*|podstepowani\w*|procedur[ae]|procedimiento|verfahren|prowadzone|ustaw\w*|dz\.u|"
    r"d\.lgs|decreto|ley|loi|gesetz|pursuant|conformement|ai sensi|gemass|segun)\b"
)
"""A cover paragraph about the procedure or its legal basis, not the purchase."""

_NOT_A_SUBJECT: Final = re.compile(
    r"(?:table of )?contents|index|indice|sommaire|inhaltsverzeichnis|spis tresci|annex|annexe|appendix|anexo|"
    r"allegato|anlage|zalacznik|bijlage|form|forms|formulaire|formular|formulario|declaration|affidavit|"
    r"acknowledge?ment|certification|instructions|general conditions|conditions generales|part|section|volume|"
    r"chapter|capitulo|titulo|chapitre|kapitel|capitolo|rozdzial|glossary|definitions|article|articulo|"
    r"artikel|articolo|artykul|clause|clausula|klausel|paragraph|drawings?|specifications?|technical specifications?|"
    r"bill of quantities|boq|price schedule|schedule of requirements|checklist|questionnaire|confidential|"
    r"(?:le|la|el|il|lo|der|die|das|this|ce|cette|niniejsz\w*)\s+(?:present\w*|vorliegend\w*|document\w*)"
)
"""Words that open the heading of a part of the document, not the name of what is bought."""

_DATE: Final = re.compile(
    r"\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b|\b\d{1,2}(?:st|nd|rd|th|er)?[\s-]+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|"
    r"janv|fevr|mars|avr|mai|juin|juil|aout|sept|okt|dez|ene|abr|ago|dic|genn|febb|magg|giu|lug|ott)\w*\.?,?[\s-]+\d{4}\b"
)
"""A date in a cover line: 'Date: 27 March, 2025', '22/12/2023': no title."""

_PUBLICATION: Final = re.compile(r"\b(?:publicado|published|publie|veroffentlicht|pubblicato|opublikowano)\b")
_SALUTATION: Final = re.compile(r",\s*$|^(?:dear|sehr geehrte|madame|monsieur|estimad|gentil|szanown)", re.I)
_REFERENCE_CUT: Final = re.compile(
    r"(?<![^\W_])(?:reference|ref|expte|expediente|cig|cup|rfp no|rfq no|tender no|vergabenummer|znak sprawy)"
    r"(?![^\W_])"
)
"""Where a heading stops naming the purchase and starts giving its number ('… JAEN. EXPTE 10/2024')."""

_TITLE_FIELD: Final = _Field(
    5, (_TITLE_STRONG, _REFERENCE_STRONG, _REFERENCE_DOCUMENT, re.compile(rf"(?:{_DOC_TYPE})\s*$"))
)


def _clean_title(text: str) -> str:
    """The title without quotes, final punctuation or a leading connector ('na zakup …' → 'zakup …')."""
    text = re.sub(r"\s+", " ", text).strip().strip(_QUOTES)
    text = _OCR_DEBRIS.sub("", text)
    return _LEADING_CONNECTOR.sub("", text).rstrip(" .;:,").strip(_QUOTES)


_OCR_DEBRIS: Final = re.compile(r"(?:[\s.;:,]+[\\|~^_=<>{}¦©®°]+)+[\s.;:,]*$")
"""Specks a scan's OCR reads after the last word ('… Rohbauarbeiten \\ ;', '… services |'): no title ends so."""


_OPEN_END: Final = re.compile(
    r"(?<![^\W_])(?:to|for|of|the|and|or|with|by|de|du|des|la|le|les|der|die|das|den|dem|fur|zur|zum|und|et|y|di|"
    r"del|della|dei|per|para|pour|van|voor|het|dla|oraz|na|do|da|dos)\W*$"
)
"""A phrase that ends with a linking word or an article is unfinished."""


def _acceptable_title(text: str, *, from_heading: bool) -> bool:
    """Whether `text` can be a title: a noun phrase of a few words, not a document type, a placeholder, a
    salutation or a sentence; for a heading also not an organisation's name, an address or a legal basis."""
    if not 6 <= len(text) <= 400 or _PLACEHOLDER.search(text) or _SALUTATION.search(text):
        return False
    words = re.findall(r"[^\W\d_]{2,}", text)
    if len(words) < 2 and not (len(words) == 1 and len(words[0]) >= 6):
        return False
    folded = fold(text)
    if _DOC_TYPE_VALUE.fullmatch(folded) or _PROSE.search(text) or text.endswith(":"):
        return False
    if re.match(r"(?:and|y|et|und|e|ed|i|or|ou|oder|o|of|de|del|des|du|der|at|in|on|to|by|with|au|zu|bei)\b", folded):
        return False
    if _OPEN_END.search(folded):
        return False  # 'Invitation to', 'Supply of': cut where the phrase goes on (a wrap or a line OCR lost)
    if from_heading:
        if _ORGANISATION.search(" ".join(folded.split()[:4])) or _STARTS_WITH_TYPE.match(folded):
            return False
        if re.match(rf"(?:{_NOT_A_SUBJECT.pattern})\b", folded):
            return False
        if (
            "§" in text
            or "http" in folded
            or "www." in folded
            or "@" in text
            or _PUBLICATION.search(folded)
            or (re.search(r"\.(?:pdf|docx?|xlsx?|zip)\b", folded))
        ):
            return False
        if _DATE.search(folded):
            return False
        if _LEGAL.search(folded):
            return False
        if sum(character.isdigit() for character in text) > len(text) / 3:
            return False
    return True


def _cut_at_reference(block: _Block) -> _Block:
    """The block up to a reference label that follows at least three words of title."""
    kept: list[str] = []
    words = 0
    for fragment in block.fragments:
        folded = fold(fragment)
        for match in _REFERENCE_CUT.finditer(folded):
            if words + len(folded[: match.start()].split()) >= 3:
                head = fragment[: match.start()].rstrip(" .,;:-–—")
                if head:
                    kept.append(head)
                return block.with_fragments(kept)
        kept.append(fragment)
        words += len(folded.split())
    return block


_ANOTHER_LABEL: Final = re.compile(r"[^\W\d_]{3,}\s?[:：]\s*$")
_LABEL_WORDS: Final = 7
"""A value's first line of a few words that ends like a label ('… dieser Bekanntmachung:') is another field's
label; a longer one is a value with a speck of a scan after it."""


def _title_candidate(block: _Block | None, score: float, why: str, *, from_heading: bool) -> Candidate[str] | None:
    if block is None:
        return None
    if from_heading:
        block = _cut_at_reference(block)
    if not block.fragments or (
        _ANOTHER_LABEL.search(block.fragments[0]) and len(block.fragments[0].split()) <= _LABEL_WORDS
    ):
        return None  # 'Title: Date of dispatch of this notice:': a scan ran two columns together
    text = _clean_title(block.text)
    if not _acceptable_title(text, from_heading=from_heading):
        return None
    return Candidate(text, block.page, block.quote, round(score, 3), why)


def _labelled_titles(document: Document) -> Iterator[Candidate[str]]:
    for pattern, base, last_page in ((_TITLE_STRONG, 0.8, 5), (_TITLE_PROJECT, 0.68, 3), (_TITLE_GENERIC, 0.7, 3)):
        for hit in _find(document, pattern):
            if hit.line.page > last_page or not _label_starts_entry(hit):
                continue
            if not _separated(hit) and not (pattern is _TITLE_STRONG and _run_on_value(document, hit)):
                continue
            if hit.label == "sub" and not re.match(r"\s*[:.]\s", hit.line.text[hit.end :]):
                continue  # 'Sub: …', not 'Sub-total'
            before = fold(hit.line.text[: hit.start])
            if _LOT_WORDS.search(before) or _in_lot_section(document, hit.line):
                continue
            if pattern is _TITLE_GENERIC and (
                _TITLE_NOT_OURS.search(before)
                or any(_TITLE_NOT_OURS.search(line.folded) for line in _lines_before(document, hit.line, limit=2))
            ):
                continue
            block = _value_block(document, hit, _TITLE_FIELD)
            if block is not None and not _separated(hit):
                block = block.with_fragments(block.fragments[:1])  # OCR run-on: its wrapping cannot be told
            if pattern is not _TITLE_STRONG and block is not None and _JOB_TITLE.search(block.text):
                continue
            score = base + (0.0 if hit.line.page <= 2 else -0.15) + (0.05 if hit.label == "boq title" else 0.0)
            candidate = _title_candidate(block, score, f"label {hit.label}", from_heading=False)
            if candidate is not None:
                yield candidate


def _run_on_value(document: Document, hit: LabelHit) -> bool:
    """A value printed right after its label with a single space, as OCR prints a form's columns
    ('Work Description Fourier Transform …', 'Location Department of Textile'): on an OCR page only, the
    label opening its line, the value starting with a capital or a digit."""
    after = hit.line.text[hit.end :].lstrip()
    if not (hit.at_line_start and after and (after[0].isupper() or after[0].isdigit())):
        return False
    return not any("   " in line.text.strip() for line in document.lines_of(hit.line.page))


def _in_lot_section(document: Document, line: Line) -> bool:
    """A label just under 'Lot No 2' gives a lot's title or place, not the tender's."""
    return any(_LOT_HEADING.search(other.folded) for other in _lines_before(document, line, limit=3))


def _paragraph(document: Document, first: Line, *, downwards: bool, limit: int = 4) -> _Block | None:
    """The single-column paragraph that starts (downwards) or ends (upwards) at `first`."""
    if len(first.cells) != 1 or _LABEL_LIKE.search(first.stripped) or _NUMBERING.match(first.text):
        return None
    lines = [first]
    if downwards:
        for other in _lines_after(document, first, limit=limit - 1):
            if _continues(lines[-1].stripped, other, first.cells[0], same_line=True, value=_TITLE_FIELD) is None:
                break
            if _new_block(lines, other):
                break
            lines.append(other)
    else:
        for other in _lines_before(document, first, limit=limit - 1):
            if _is_blank(other) or len(other.cells) != 1 or _SENTENCE_END.search(other.stripped):
                break
            if _LABEL_LIKE.search(other.stripped) or _HEADING.fullmatch(other.folded.strip()):
                break
            lines.append(other)
        lines.reverse()
    return _Block(tuple(line.stripped for line in lines), tuple(lines))


def _new_block(lines: Sequence[Line], following: Line) -> bool:
    """Whether `following` starts a new block rather than continuing the paragraph of `lines`: the last
    line stopped short (the next word would have fitted on it) and `following` is much wider than any line
    of the paragraph, as body text under a heading set in a larger font ('… for' / '… schools' / 'Framework
    agreement for laptops, interactive displays, network equipment and support')."""
    widest = max(len(line.stripped) for line in lines)
    words = following.stripped.split()
    if not words:
        return False
    short = len(lines[-1].stripped) + 1 + len(words[0]) <= widest
    return short and len(following.stripped) > _WIDER * widest


_WIDER: Final = 1.3


def _is_meta(line: Line) -> bool:
    """A line that gives the document's number or publication, between a cover heading and the title."""
    folded = line.folded
    if _REFERENCE_STRONG.search(folded) or _REFERENCE_DOCUMENT.search(folded) or _PUBLICATION.search(folded):
        return True
    start = folded.strip()
    return bool(
        _REFERENCE_PUBLICATION.match(start)
        or _REFERENCE_GENERIC.match(start)
        or _NUMBER_LINE.match(start)
        or _DATE.search(start)
    )


def _next_nonblank(document: Document, line: Line, *, downwards: bool) -> Line | None:
    """The first non-blank line within five lines after (or before) `line`."""
    neighbours = _lines_after(document, line, limit=5) if downwards else _lines_before(document, line, limit=5)
    return next((other for other in neighbours if not _is_blank(other)), None)


def _heading_titles(document: Document) -> Iterator[Candidate[str]]:
    """Titles read off the first page's headings (see the module docstring)."""
    if not document.page_numbers:
        return
    lines = [line for line in document.lines_of(document.page_numbers[0]) if not _is_blank(line)][:40]
    for position, line in enumerate(lines):
        if len(line.cells) != 1:
            continue
        folded = _SPECKS.sub("", line.folded.strip())
        previous = next(_lines_before(document, line, limit=1), None)
        if previous is not None and _goes_on(previous):
            continue  # the line goes on with the sentence of the line before
        if _HEADING.fullmatch(folded) and not (line.stripped.endswith(".") and not line.stripped.isupper()):
            yield from _around_heading(document, line)
            continue
        inline = _INLINE_HEADING.match(folded)
        opens = previous is None or _is_blank(previous)  # a heading, not a sentence's next line
        if inline is not None and opens:
            offset = len(line.text) - len(line.text.lstrip())
            block = _Block((line.text[offset + inline.end() :].strip(),), (line,))
            for other in _lines_after(document, line, limit=4):
                following = _continues(block.fragments[-1], other, line.cells[0], same_line=True, value=_TITLE_FIELD)
                if following is None:
                    break
                block = _Block((*block.fragments, following), (*block.lines, other))
            candidate = _title_candidate(block, 0.72, "heading line", from_heading=True)
            if candidate is not None:
                yield candidate
            continue
        if position < 15 and _is_reference_line(line):
            start = _next_nonblank(document, line, downwards=True)
            paragraph = _paragraph(document, start, downwards=True) if start is not None else None
            candidate = _title_candidate(paragraph, 0.58, "after reference line", from_heading=True)
            if candidate is not None:
                yield candidate


_SPECKS: Final = re.compile(r"(?:\s+[^\w\s()\[\]\"”»]{1,2})+$")
"""Punctuation standing alone at a line's end ('Contract notice – X/01 ;'): what a scan adds, not the text."""


def _goes_on(line: Line) -> bool:
    """Whether a sentence runs on past `line`: it ends with a comma or a word in lower case."""
    words = line.stripped.split()
    return bool(words) and (words[-1].endswith(",") or words[-1][0].islower())


def _around_heading(document: Document, heading: Line) -> Iterator[Candidate[str]]:
    """The paragraph under a document-type heading (past further headings and the lines that give the
    document's number or publication), else the paragraph just above the heading."""
    line = heading
    for _ in range(5):
        start = _next_nonblank(document, line, downwards=True)
        if start is None:
            break
        folded = start.folded.strip()
        if _TITLE_STRONG.match(folded) or _TITLE_GENERIC.match(folded):
            break  # a title label: its value is read as such
        if (
            _HEADING.fullmatch(folded)
            or _is_meta(start)
            or _CONTRACT_TYPE.fullmatch(folded)
            or (_STARTS_WITH_TYPE.match(folded) and len(start.cells) == 1)
        ):
            line = start
            while (following := next(_lines_after(document, line, limit=1), None)) is not None and (
                following.stripped[:1].islower()
            ):
                line = following  # the rest of the number's or publication's sentence
            continue
        block = _paragraph(document, start, downwards=True)
        if block is not None:
            candidate = _title_candidate(block, 0.66, "under heading", from_heading=True)
            if candidate is not None:
                yield candidate
                return
        break
    start = _next_nonblank(document, heading, downwards=False)
    if start is None or _HEADING.fullmatch(start.folded.strip()):
        return
    block = _paragraph(document, start, downwards=False, limit=3)
    if block is not None and re.match(r"[\W_]*[^\W_]", block.fragments[0]) and not block.fragments[0][:1].islower():
        candidate = _title_candidate(block, 0.56, "above heading", from_heading=True)
        if candidate is not None:
            yield candidate


def _is_reference_line(line: Line) -> bool:
    """A line that is only a reference label and its identifier ('Projektnr. 173087')."""
    stripped = line.stripped
    match = _REFERENCE_STRONG.match(fold(stripped))
    if match is None or len(fold(stripped)) != len(stripped):
        return False
    rest = stripped[match.end() :]
    value = _identifier(rest)
    if value is None:
        return False
    after = _ID_MARKER.sub("", rest).strip()[len(value) :].strip(" .,:;-–—")
    return not after or re.fullmatch(_CONNECTOR, fold(after)) is not None  # 'TENDER NO. X FOR' + the title


def title(document: Document) -> Sourced[str] | None:
    """The tender's title: a title label's value, else the first page's heading (see module docstring)."""
    best = choose([*_labelled_titles(document), *_heading_titles(document)], 0.55)
    return best.sourced() if best is not None else None


# --- place of performance ---------------------------------------------------------------------------------

_PLACE_LABELS: Final = _labels(
    [
        # en
        "place of performance", "place of delivery", "delivery place", "delivery location", "location of delivery",
        "place of work", "place of works", "location of work", "location of works", "location of the works",
        "site location", "project location", "project site", "site of work", "site of works", "work site",
        "place of execution", "place of service", "place of supply", "location of the project", "location",
        "delivery address", "consignee address", "main site or place of performance",
        # fr
        "lieu d'execution", "lieu de livraison", "lieu d'execution des prestations", "lieu principal d'execution",
        "lieu d'execution et de livraison", "lieu de realisation", "lieu des travaux", "lieu de prestation",
        # de
        "erfullungsort", "ausfuhrungsort", "leistungsort", "liefer leistungsort", "lieferort", "lieferanschrift",
        "ort der leistungserbringung", "ort der leistung", "ort der ausfuhrung", "ort der lieferung",
        "ausfuhrungsort der leistung", "lieferung an",
        # es
        "lugar de ejecucion", "lugar de entrega", "lugar de prestacion", "lugar de ejecucion del contrato",
        "lugar de prestacion del servicio", "lugar de las obras",
        # it
        "luogo di esecuzione", "luogo di consegna", "luogo di svolgimento", "luogo principale di esecuzione",
        "luogo di esecuzione del contratto", "luogo di esecuzione dei lavori", "luogo di prestazione",
        # pl
        "miejsce realizacji", "miejsce dostawy", "miejsce wykonania", "miejsce realizacji zamowienia",
        "miejsce wykonania zamowienia", "miejsce swiadczenia uslug",
        # pt
        "local de execucao", "local de entrega", "local da obra", "local de prestacao",
        # nl
        "plaats van uitvoering", "leveringsplaats", "plaats van levering", "uitvoeringsplaats",
        # ar
        "مكان التنفيذ", "مكان تنفيذ الأعمال", "مكان تنفيذ الاعمال", "موقع التنفيذ", "موقع تنفيذ الأعمال", "مكان العمل",
    ]
)  # fmt: skip
"""Labels of where the contract is performed or delivered (never the bare 'place', 'lugar', 'lieu':
those are often the place of opening or submission)."""

_PLACE_SENTENCE: Final = re.compile(
    r"\s+(?:is|will be|shall be|est|sera|ist|liegt in|es|e|sara|jest|fica|ligt in)\s+"
    r"(?:(?:in|at|a|en|nel|nella|nei|presso|im|in der|w|em|no|na|te)\s+)?"
)
"""'<place label> è nel Comune di …' (folded): the place follows a copula in a sentence."""

_OF_THE: Final = re.compile(r"\s+(?:dell['’]|della|del|de la|du|des|of the|of|der|de)\s*\w+")
"""What may stand between a place label and its copula: 'luogo di svolgimento DELL'APPALTO è …'."""

_NUTS_LABEL: Final = _labels(
    ["code nuts", "nuts code", "codice nuts", "codigo nuts", "nuts-code", "kod nuts", "nuts",
     "codigo de subentidad territorial"]
)  # fmt: skip
_NUTS_CODE: Final = re.compile(
    r"-?\b((?:AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|UK|NO|CH|IS|LI|"
    r"TR|AL|ME|MK|RS)[A-Z0-9]{1,3})\b"
)
"""A NUTS code of an EU/EEA/candidate country ('FRE11', 'ITF48', 'DE212')."""

_PLACE_SUBLABEL: Final = re.compile(
    r"(?:(?P<town>subentidad nacional|town|city|ville|localite|commune|ort|stadt|gemeinde|localidad|ciudad|"
    r"municipio|poblacion|comune|citta|localita|miejscowosc|cidade|plaats|gemeente)"
    r"|(?P<address>postal address|address|adresse postale|adresse|direccion postal|direccion|indirizzo|adres|"
    r"anschrift|endereco)"
    r"|(?P<code>codigo de subentidad territorial|nuts code|code nuts|codice nuts|kod nuts|nuts|"
    r"country subdivision|subdivision pays|unterteilung des landes|subdivision del pais|suddivisione paese)"
    r"|(?P<country>pais|country|pays|land|paese|kraj|staat))\b[\s:：.\-–]*"
)
"""Sub-fields of an eForms-style place block ('Town: …', 'Subentidad Nacional …', 'País …', 'NUTS code: …')."""

_PLACE_NOT_A_PLACE: Final = re.compile(
    r"\b(?:see|voir|siehe|vease|vedi|patrz|zie|as per|according to|conformement|gemass|segun|designated|"
    r"order level|annex|anexo|allegato|anlage|zalacznik|bijlage|schedule|eur|usd|euro|valor|value|wert|"
    r"importe|montant|importo)\b|[€$£]"
)
"""A 'place' that points elsewhere or is another field's value: not a place."""

_DELIVERY_SENTENCE: Final = re.compile(
    r"\b(?:deliver(?:y|ies)|the goods|the equipment|the works|the services)\s+(?:shall|will|must|are to)\s+be\s+"
    r"(?:made|effected|delivered|performed|carried out|executed|provided|installed|rendered)\s+(?:at|to|in)\s+"
    r"|\bentregas?\s+(?:se\s+)?(?:realizaran?|efectuaran?|haran?|deberan? (?:realizarse|efectuarse))\s+en\s+"
    r"|\blivraisons?\s+(?:sera|seront|doit etre|doivent etre|s'effectuera|s'effectueront)\s+"
    r"(?:(?:effectuee|realisee|faite)s?\s+)?(?:a|au|aux|dans|sur)\s+"
    r"|\bconsegna\s+(?:dovra avvenire|avverra|sara effettuata|dovra essere effettuata)\s+(?:presso|a|in|nel|nella)\s+"
    r"|\bdostaw[ay]\s+(?:zostanie zrealizowana|nastapi|odbedzie sie)\s+(?:do|w)\s+"
    r"|\bentrega\s+(?:sera|devera ser)\s+(?:feita|realizada|efetuada)\s+(?:em|no|na)\s+"
    r"|\blevering\s+(?:vindt plaats|geschiedt)\s+(?:te|in|op|bij)\s+"
)
"""'Deliveries shall be made at …', 'Las entregas se realizarán en …' (folded). Not German: every noun is
capitalised there, so a capital letter does not tell a place ('Die Lieferung erfolgt in zwei Losen')."""

_DELIVERY_WORDS: Final = (
    "deliver", "entrega", "livraison", "consegna", "dostaw", "levering",
    "the goods", "the equipment", "the works", "the services",
)  # fmt: skip
"""A cheap filter: only lines with one of these words are matched against the delivery sentence."""

_NOT_A_DELIVERY_PLACE: Final = re.compile(
    r"\b(?:plazo|within|dentro|days?|dias|jours|tage|giorni|dni|dagen|weeks?|semanas|months?|meses|mois|monate|"
    r"mesi|hours|horas|dates?|fecha|accordance|conformidad|conformite|conformita|compliance|manner|forma|form|way|"
    r"modo|weise|basis|base|time|tiempo|temps|zeit|tempo|schedule|cronograma|installments?|cuotas|partial|parcial|"
    r"lots?|lotes?|batches|tranches?)\b"
)
"""Words of when or how a delivery is made, not where."""

_ROLES: Final = frozenset(
    "purchaser buyer employer consignee client owner contractor supplier department entity authority agency "
    "municipality county city state government procuring contracting site premises project works place destination "
    "delivery point comprador contratante entidad municipalidad organismo acheteur pouvoir adjudicateur auftraggeber "
    "auftragnehmer stazione appaltante zamawiajacy zamawiajacego opdrachtgever the el la le les der die das".split()
)
"""Capitalised words that name a party or a generic place: 'the Purchaser's premises' names no place."""


def _names_a_place(text: str) -> bool:
    """Whether a delivery sentence's object names a place: a capitalised word other than a party or 'Site'."""
    for word in re.findall(r"[^\W\d_][^\W_']*", text):
        if word[0].isupper() and len(word) >= 3 and fold(word) not in _ROLES:
            return True
    return False


def _delivery_sentences(document: Document) -> Iterator[Candidate[str]]:
    """Places stated in a sentence about where the goods are delivered or the work is done."""
    for line in document.lines:
        if not any(word in line.folded for word in _DELIVERY_WORDS):
            continue
        lines = [line]
        following = _next_nonblank(document, line, downwards=True)
        if following is not None and not _SENTENCE_END.search(line.text) and following.row == line.row + 1:
            lines.append(following)
        text = " ".join(other.stripped for other in lines)
        folded = fold(text)
        match = _DELIVERY_SENTENCE.search(folded) if len(folded) == len(text) else None
        if match is None or match.start() >= len(line.stripped):
            continue
        value = _clean_place(re.split(r"[.;:](?:\s|$)|,\s+(?:and|y|et|und|e)\s", text[match.end() :])[0])
        if not value or len(value) > 100 or _NOT_A_DELIVERY_PLACE.search(fold(value)) or not _names_a_place(value):
            continue
        used = lines if match.end() + len(value) > len(line.stripped) else lines[:1]
        yield Candidate(value, line.page, "\n".join(other.stripped for other in used), 0.62, "delivery sentence")


_PLACE_FIELD: Final = _Field(4, (_PLACE_LABELS, _TITLE_STRONG, _REFERENCE_STRONG, _NUTS_LABEL), _PLACE_SUBLABEL)


_SCOPE_ONLY: Final = re.compile(r"داخل المملكة|inside the kingdom|within the kingdom|in the kingdom")
"""A place block that opens with the scope ('داخل المملكة', within the Kingdom) and names the region below."""


_ADDRESS_HEADER: Final = _labels(["address", "delivery address", "consignee address"])
_CONSIGNEE: Final = re.compile(r"\bconsignees?\b")


def _consignee_address(document: Document) -> Candidate[str] | None:
    """The delivery address in the first row of a consignee table ('Consignee | Address | Quantity', as
    Indian GeM bids print it): the goods are delivered there."""
    for hit in _find(document, _ADDRESS_HEADER):
        nearby = [hit.line, *_lines_before(document, hit.line, limit=2), *_lines_after(document, hit.line, limit=2)]
        if not any(_CONSIGNEE.search(line.folded) for line in nearby):
            continue
        column = _label_cell(hit)
        fragments: list[str] = []
        lines: list[Line] = []
        for other in _lines_after(document, hit.line, limit=14):
            if _is_blank(other):
                if fragments:
                    break
                continue
            cells = [cell for cell in other.cells if cell.overlaps(column)]
            if cells:
                if not fragments:
                    column = Cell(min(column.start, cells[0].start), max(column.end, cells[0].end), column.text)
                fragments.append(cells[0].text)
                lines.append(other)
        value = _clean_place(_join(fragments), longest=250)
        if value:
            page = document.lines_of(hit.line.page)
            block = _Block((value,), tuple(page[lines[0].row : lines[-1].row + 1]), spread=True)
            return Candidate(value, block.page, block.quote, 0.7, "consignee address")
        return None
    return None


_NOT_THE_SITE: Final = re.compile(r"\b(?:opening|submission|meeting|pre-?bid|conference|map|office|box|visit)\b")
"""A 'Location' of something else than the work: the bid opening, a meeting, a map."""


def _clean_place(text: str, *, longest: int = 160) -> str:
    """The place without its NUTS note ('Comune di Turi (Ba) [codice NUTS ITF48]' → 'Comune di Turi (Ba)'),
    or "" when it is no place: empty, a placeholder, a pointer to an annex, an amount or a sentence."""
    text = re.sub(r"\s*[\[(]\s*(?:codice |code |c[oó]digo |kod )?nuts[^\])]*[\])]", "", text, flags=re.IGNORECASE)
    if not _NUTS_FIRST.match(text):  # 'Code NUTS FRC13 Vernon' is a place as printed, not a label to cut
        text = re.split(r"\s+[-–,]?\s*(?:codice|code|c[oó]digo|kod)\s+nuts\b|\s+nuts\b", text, flags=re.IGNORECASE)[0]
    text = re.split(r"\s+(?:pin ?code|postcode|post code|pre bid)\b", text, flags=re.IGNORECASE)[0]
    text = re.sub(r"\s+", " ", text).strip().strip(_QUOTES).rstrip(" .;:,|").strip()
    text = re.sub(r"^[^\sA-Za-z0-9]\s+(?=\S{2})", "", text)  # a bullet that OCR read as a letter ('ه منطقة …')
    if not text or _PLACEHOLDER.search(text) or not re.search(r"[^\W\d_]{2,}", text):
        return ""
    if len(text) > longest or _PLACE_NOT_A_PLACE.search(fold(text)) or _PROSE.search(text):
        return ""
    if _ONLY_LABEL_WORDS.fullmatch(fold(text)):
        return ""  # 'Code', 'Town', 'NUTS code': a sub-field's label, not a place
    return text


_NUTS_FIRST: Final = re.compile(r"\s*(?:(?:codice|code|c[oó]digo|kod)\s+nuts|nuts)\b", re.IGNORECASE)
"""A place that opens with its NUTS label ('Code NUTS FRC13 …', 'NUTS code IE052 …')."""

_ONLY_LABEL_WORDS: Final = re.compile(
    rf"(?:(?:{_PLACE_SUBLABEL.pattern})|code|codice|codigo|kod|nuts|place|lieu|ort|lugar|luogo|miejsce|local"
    r"|plaats|location|site|region|region code|[\W\d_])+"
)
"""Text made only of the words of place labels and sub-labels: what is left of a label, never a place."""


def _place_from_block(block: _Block) -> tuple[str, _Block] | None:
    """The place a label's block states, with the lines it was read from: the town when the block is made
    of sub-fields (else its address, NUTS code or country), else the block's text."""
    found: dict[str, tuple[str, Line]] = {}
    labelled = 0
    colon = False
    for fragment, line in zip(block.fragments, block.lines, strict=True):
        match = _PLACE_SUBLABEL.match(fold(fragment).strip())
        if match is not None and match.lastgroup is not None:
            labelled += 1
            found.setdefault(match.lastgroup, (fragment.strip()[match.end() :], line))
            colon = ":" in match.group()
    if not (labelled >= 2 or (labelled == 1 and colon)):
        text = _clean_place(block.text)
        return (text, block) if text else None
    for kind in ("town", "address", "code", "country"):
        if kind not in found:
            continue
        value, line = found[kind]
        if kind == "code":
            code = _NUTS_CODE.search(value)
            value = code.group(1) if code is not None else ""
        value = _clean_place(value)
        if value:
            return value, _Block((value,), (line,))
    return None


def _place_candidates(document: Document) -> Iterator[Candidate[str]]:
    for hit in _find(document, _PLACE_LABELS):
        if _in_lot_section(document, hit.line) and hit.line.page > 3:
            continue
        tail = hit.line.text[hit.end :]
        between = _OF_THE.match(fold(tail))
        sentence = _PLACE_SENTENCE.match(fold(tail), between.end() if between is not None else 0)
        if sentence is not None:
            value = _clean_place(re.split(r"[.;](?:\s|$)", tail[sentence.end() :])[0])
            if value:
                yield Candidate(value, hit.line.page, hit.line.stripped, 0.75, f"sentence {hit.label}")
            continue
        if not _label_starts_entry(hit) or not (_separated(hit) or _run_on_value(document, hit)):
            continue
        if hit.label == "location" and (
            hit.line.page > 2 or _NOT_THE_SITE.search(fold(hit.line.text[hit.start : hit.end + 20]))
        ):
            continue
        block = _value_block(document, hit, _PLACE_FIELD)
        if block is not None and not _separated(hit):
            block = block.with_fragments(block.fragments[:1])  # OCR run-on: its wrapping cannot be told
        if block is not None and _SCOPE_ONLY.fullmatch(fold(block.text).strip()):
            following = _next_nonblank(document, block.lines[-1], downwards=True)
            block = _Block((following.stripped,), (following,)) if following is not None else None
        found = _place_from_block(block) if block is not None else None
        if found is not None:
            value, source = found
            score = 0.78 + _page_weight(hit.line.page) / 2
            yield Candidate(value, source.page, source.quote, round(score, 3), f"label {hit.label}")
    for hit in _find(document, _NUTS_LABEL):
        code = _NUTS_CODE.match(hit.line.text[hit.end : hit.end + 30].lstrip(" \t:：.-–—=*"))
        if code is not None:
            yield Candidate(code.group(1), hit.line.page, hit.line.stripped, 0.6, "NUTS code")
    yield from _delivery_sentences(document)
    consignee = _consignee_address(document)
    if consignee is not None:
        yield consignee
    named = _place_in_title(document)
    if named is not None:
        yield named


_TITLE_PLACE: Final = re.compile(r"\s(?:at|AT|At|presso|PRESSO|à|À)\s+(?P<place>[^,;:()]+?)\s*$")
"""A title that ends by naming where the work is done: '… Associated Works AT NCPB GCP DEPOT'."""


def _place_in_title(document: Document) -> Candidate[str] | None:
    """The place a title ends with ('Supply of Tarpaulins at NCPB Head Office'): the weakest evidence."""
    found = title(document)
    if found is None:
        return None
    match = _TITLE_PLACE.search(found.value)
    if match is None:
        return None
    value = _clean_place(match.group("place"))
    if not value or not _names_a_place(value) or len(value.split()) > 8:
        return None
    return Candidate(value, found.page, found.quote, 0.56, "place named in the title")


def place_of_performance(document: Document) -> Sourced[str] | None:
    """Where the contract is performed: a place label's value (its town when the block has sub-fields),
    else a NUTS code, else the place a delivery sentence names."""
    best = choose(_place_candidates(document), 0.55)
    return best.sourced() if best is not None else None
