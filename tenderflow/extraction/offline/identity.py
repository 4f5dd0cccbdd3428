"""What the tender is: its title, its reference number and where the contract is performed.

Each field is read the way an analyst reads a tender's first pages:

- **reference number**: the identifier printed after a reference label ("Tender No.", "Vergabenummer",
  "Número de expediente", "CIG", "znak sprawy", "رقم المنافسة", ...). A value counts only when it looks
  like an identifier: it has a digit, it is not a sentence, a date, a phone number, a year or a clause
  number such as "13.";
- **title**: the text after a title label ("Objet du marché :", "Oggetto dell'appalto:", "Request Title:",
  "Maßnahme:", ...), or, on the first page, the heading that names the purchase: the rest of a line such as
  "Tender for …" / "Bando di gara procedura aperta …", or the paragraph under (or, failing that, above) a
  heading that only says what the document is ("REQUEST FOR PROPOSAL", "SPECYFIKACJA WARUNKÓW
  ZAMÓWIENIA"). Titles wrap: the value joins the wrapped lines and the quote is those lines joined with "\\n";
- **place of performance**: the place after a place label ("Place of Performance", "Lieu d'exécution",
  "Ort der Leistungserbringung", "Lugar de entrega", "Luogo di esecuzione", ...), also in the sentence form
  "Il luogo di svolgimento dell'appalto è nel Comune di …", else the NUTS code a notice gives.

Every field abstains when its evidence is weak: a label inside a sentence, a table-of-contents line, a
section heading followed by prose, a template placeholder ("....", "[insert]", "$ X") gives no value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.document import Cell, Document, LabelHit, Line, fold, label_regex
from tenderflow.extraction.schema import Sourced

# --- shared vocabulary ------------------------------------------------------------------------------------

_PLACEHOLDER: Final = re.compile(
    r"^[\s.…_\-–—:*/|]*$|\.{4,}|…|_{3,}|\[\s*(?:insert|enter|add|type|name|\.)|<\s*(?:insert|enter)"
    r"|\b(?:tbd|tba|to be (?:advised|confirmed|determined|announced|notified))\b|x{3,}|\$\s*x\b",
    re.IGNORECASE,
)
"""Template text that stands where a value should be: dots, underscores, '[insert …]', 'XXX', '$ X'."""

_NUMBERING: Final = re.compile(r"^\s*(?:\(?\d+(?:\.\d+)*[.)]|\(?[ivxIVX]+[.)]|\(?[a-hA-H]\)|[•·▪■\-–])\s")
"""A line that starts a numbered item or a bullet: a new entry, not the continuation of a value."""

_LABEL_LIKE: Final = re.compile(r":\s*\*?\s*$|^[^:]{1,45}\s:\s|^[^:\d]{2,40}:\s+\S")
"""A line that is itself 'Label:' or 'Label : value': the start of another field."""

_PROSE: Final = re.compile(
    r"\b(?:is|are|was|shall|will|must|may|should|est|sont|sera|doit|doivent|ist|sind|wird|werden|muss|"
    r"es|son|será|serán|debe|deberá|è|sono|sarà|deve|dovrà|jest|są|będzie|é|são|deverá|zijn|wordt|moet)\b",
    re.IGNORECASE,
)
"""Verbs of a sentence: a title or a place is a noun phrase, a clause that states something is prose."""

_ORGANISATION: Final = re.compile(
    r"\b(?:board|council|county|municipality|ministry|department|agency|authority|university|hospital|"
    r"government|commission|corporation|limited|ltd|inc|gmbh|ag|institut[eo]?|municipalidad|ayuntamiento|"
    r"ministerio|ministere|ministero|comune|unione dei comuni|centrale unica|mairie|ville de|stadt|gemeinde|"
    r"landkreis|universitat|universidad|universita|szpital|urzad|gmina|prefecture|region|bundesamt|"
    r"verwaltung|direccion general|directorate|secretariat|vergabestelle)\b",
    re.IGNORECASE,
)
"""Words of an organisation's name: a heading made of them names the buyer, not the purchase."""

_SENTENCE_END: Final = re.compile(r"[^\s.]{4,}[.;]\s*$|\)[.;]\s*$")
"""A line that closes a sentence ('… électriques.'), unlike an abbreviation ('pn.', 'Nr.') that goes on."""

_QUOTES: Final = "\"'“”„‟«»‘’‚ "


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
        elif re.search(r"[a-zäöüßàâçéèêëîïôûùüÿñæœąćęłńóśźż]-$", text) and fragment[:1].islower():
            text = text[:-1] + fragment
        else:
            text = f"{text} {fragment}"
    return text


@dataclass(frozen=True)
class _Block:
    """A value that may wrap over several lines: the text read on each line and those lines."""

    fragments: tuple[str, ...]
    lines: tuple[Line, ...]

    @property
    def text(self) -> str:
        return _join(self.fragments)

    @property
    def page(self) -> int:
        return self.lines[0].page

    @property
    def quote(self) -> str:
        return "\n".join(line.stripped for line in self.lines)

    def truncated(self, count: int) -> _Block:
        return _Block(self.fragments[:count], self.lines[:count])

    def with_fragments(self, fragments: Sequence[str]) -> _Block:
        return _Block(tuple(fragments), self.lines[: len(fragments)])


def _label_cell(hit: LabelHit) -> Cell:
    cell = hit.line.cell_at(hit.start)
    return cell if cell is not None else Cell(hit.start, len(hit.line.text), hit.line.text[hit.start :])


def _label_starts_entry(hit: LabelHit) -> bool:
    """The label opens its line or its layout cell (a form entry), rather than sitting inside a sentence."""
    if hit.at_line_start:
        return True
    cell = _label_cell(hit)
    before = hit.line.text[cell.start : hit.start]
    return not before.strip(" \t-–—•*·([)")


def _continues(
    previous: str, line: Line, anchor: Cell, *, same_line: bool, stops: Sequence[re.Pattern[str]]
) -> str | None:
    """The text of `line` that continues a value whose last fragment was `previous`, or None.

    A value wraps onto the next line in its own column: a line that is blank, that starts a numbered
    item, a bullet or another label, or that has text in a column left of the value (a new row of a
    form) ends it, and so does a fragment that closed a sentence.
    """
    if _is_blank(line) or _SENTENCE_END.search(previous) or previous.rstrip().endswith(":"):
        return None
    text = line.stripped
    if _NUMBERING.match(line.text) or _LABEL_LIKE.search(text):
        return None
    if any(pattern.match(line.folded.strip()) for pattern in stops):
        return None
    if same_line:
        return text if len(line.cells) == 1 else None
    if any(cell.end < anchor.start - 2 for cell in line.cells):
        return None
    overlapping = [cell for cell in line.cells if cell.overlaps(anchor)]
    return overlapping[0].text if overlapping else None


def _value_block(
    document: Document, hit: LabelHit, *, max_lines: int, stops: Sequence[re.Pattern[str]]
) -> _Block | None:
    """The value a label introduces: after it in its cell, else in the next cell of its row, else in
    the first non-blank line below (the cell under the label, or the whole line when it has one cell);
    continued over the lines it wraps onto."""
    line = hit.line
    label_cell = _label_cell(hit)
    rest = line.text[hit.end : label_cell.end]
    stripped_rest = rest.lstrip(" \t:：.-–—=>|*_")
    same_line = False
    if stripped_rest.strip():
        start = label_cell.end - len(stripped_rest)
        first = stripped_rest.strip()
        anchor = Cell(start, label_cell.end, first)
        value_line = line
        same_line = len(line.cells) == 1
    else:
        right = [cell for cell in line.cells if cell.start >= label_cell.end]
        if right:
            if _LABEL_LIKE.search(right[0].text) or right[0].text.rstrip().endswith("*"):
                return None
            anchor = right[0]
            first = right[0].text
            value_line = line
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
            if _LABEL_LIKE.search(anchor.text) or any(pattern.match(fold(anchor.text)) for pattern in stops):
                return None
            first = anchor.text
            value_line = below
    fragments = [first]
    lines = [value_line]
    for other in _lines_after(document, value_line, limit=max_lines - 1):
        following = _continues(fragments[-1], other, anchor, same_line=same_line, stops=stops)
        if following is None:
            break
        fragments.append(following)
        lines.append(other)
    return _Block(tuple(fragments), tuple(lines))


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

_REFERENCE_STRONG: Final = label_regex(
    [
        # en (incl. Indian portals: GeM 'Bid Number', CPPP 'Tender Reference Number', 'NIT No.')
        "reference number", "reference no", "ref no", "our ref", "our reference", "tender no", "tender number",
        "tender ref", "tender reference", "tender reference number", "tender id", "tender notice no",
        "e-tender no", "bid number", "bid no", "bid reference", "bid reference number", "solicitation number",
        "solicitation no", "request number", "request no", "procurement number", "procurement no",
        "procurement reference", "procurement reference number", "contract number", "contract no",
        "contract reference", "enquiry no", "inquiry no", "file no", "file number", "nit no", "bid id",
        "बिड संख्या", "बोली संख्या", "निविदा संख्या",
        # fr
        "numero de reference", "numero de reference attribue au marche", "reference du marche",
        "reference de la consultation", "reference de l'avis", "numero de la consultation", "numero de consultation",
        "numero du marche", "n° de marche", "no de marche", "marche n°", "marche no", "consultation n°",
        "n° de la consultation", "appel d'offres n°", "appel d'offres no",
        # de
        "vergabenummer", "vergabe nr", "vergabe-nr", "aktenzeichen", "geschaftszeichen", "ausschreibungsnummer",
        "ausschreibungs nr", "referenznummer", "verfahrensnummer", "vergabeverfahren nr", "kennziffer",
        "projektnummer", "projektnr", "projekt nr",
        # es
        "numero de expediente", "n° de expediente", "no de expediente", "nro de expediente", "expediente n°",
        "expediente no", "expediente nro", "expte", "numero de licitacion", "licitacion n°", "licitacion no",
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

_REFERENCE_GENERIC: Final = label_regex(
    ["reference", "ref", "referencia", "riferimento", "referenz", "expediente", "referentie", "rfa", "المرجع"]
)
"""Bare 'reference' words: a reference only when they open an entry of a form or a letter head."""

_REFERENCE_PUBLICATION: Final = label_regex(["avis n°", "avis no", "annonce no", "annonce n°", "notice no"])
"""The number of the published notice: an acceptable reference when the buyer gives none."""

_REFERENCE_NOT_OURS: Final = re.compile(
    r"(?:your|uw|ihr|ihre|votre|vos|bank|guarantee|garantie|loan|credit|grant|cuit|invoice|factura|facture|"
    r"rechnung|cpv|nuts|tax|vat|gst|pan|iban|registration)\W{0,3}$"
)
"""Words just before a reference label that make it someone else's number (the bidder's, a bank's, a loan's)."""

_ID_MARKER: Final = re.compile(r"^(?:[\s.:：#№°º=|*\-–—]|(?:no|nr|nro|n|num|number|numero|nummer)(?=[\s.°º:#]))*", re.I)
_ID_TOKEN: Final = re.compile(r"[^\W_][\w./\-#]*")
_DATE_LIKE: Final = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|\d{4}")
_CLAUSE_LIKE: Final = re.compile(r"\d{1,2}(?:\.\d{1,2})*\.?")
_PHONE_LIKE: Final = re.compile(r"\+?[\d()\s/-]{7,}")


def _identifier(text: str) -> str | None:
    """The identifier at the start of `text` ('No. 2022-01 Professional …' → '2022-01'), or None.

    It may span a few tokens when each has a digit ('173087_75 112/0012'); it must have a digit, and be
    neither a date, a year, a phone number, a clause number ('13.', '4.2') nor a placeholder.
    """
    if _PLACEHOLDER.search(text[:40]):
        return None
    rest = _ID_MARKER.sub("", text, count=1)
    tokens: list[str] = []
    for raw in rest.split()[:4]:
        token = raw.strip("\"'“”„«»()[]").rstrip(".,;:")
        if _ID_TOKEN.fullmatch(token) is None or not token:
            break
        if tokens and (not any(character.isdigit() for character in token) or raw.startswith(("(", "["))):
            break
        tokens.append(token)
        if raw.rstrip().endswith((",", ";", ")", "]")) or (raw.endswith(".") and not raw[:-1].endswith(".")):
            if len(tokens) > 0 and not re.search(r"[-/]$", token):
                break
    if not tokens:
        return None
    value = " ".join(tokens)
    if not any(character.isdigit() for character in tokens[0]) or len(value) > 45:
        return None
    if _DATE_LIKE.fullmatch(value) or _CLAUSE_LIKE.fullmatch(value):
        return None
    if value.isdigit() and len(value) < 3:
        return None
    if len(tokens) > 1 and _PHONE_LIKE.fullmatch(value):
        return None
    return value


@dataclass(frozen=True)
class _ReferenceLabel:
    pattern: re.Pattern[str]
    score: float
    entry_only: bool  # only when the label opens an entry (line or cell)


_REFERENCE_LABELS: Final = (
    _ReferenceLabel(_REFERENCE_STRONG, 0.8, False),
    _ReferenceLabel(_REFERENCE_DOCUMENT, 0.8, False),
    _ReferenceLabel(_REFERENCE_GENERIC, 0.65, True),
    _ReferenceLabel(_REFERENCE_PUBLICATION, 0.6, True),
)


def _reference_candidates(document: Document) -> Iterator[Candidate[str]]:
    for label in _REFERENCE_LABELS:
        for hit in document.find(label.pattern):
            if label.entry_only and not _label_starts_entry(hit):
                continue
            if _REFERENCE_NOT_OURS.search(hit.line.folded[max(0, hit.start - 20) : hit.start]):
                continue
            for span in document.spans_after(hit, below=2):
                if span.how == "right" and span.text != _first_right_cell(hit):
                    continue
                value = _identifier(span.text)
                if value is None:
                    continue
                score = label.score + _page_weight(span.page)
                score -= {"same": 0.0, "right": 0.0, "below": 0.03 * span.distance, "next": 0.05}[span.how]
                if re.search(r"[A-Za-z]", value) or re.search(r"[-/_.]", value):
                    score += 0.05
                yield Candidate(value, span.page, span.quote, round(score, 3), f"{hit.label} ({span.how})")
                break


def _first_right_cell(hit: LabelHit) -> str | None:
    label_cell = _label_cell(hit)
    for cell in hit.line.cells:
        if cell.start >= label_cell.end:
            return cell.text.strip(" \t:：.-–—=>|*_").strip() or cell.text
    return None


def reference_number(document: Document) -> Sourced[str] | None:
    """The tender's reference: the identifier after the best reference label, confirmed when several
    labels give the same identifier."""
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

_TITLE_STRONG: Final = label_regex(
    [
        # en (GeM: 'Item Category'; CPPP: 'Name of Work', 'Work Description')
        "tender title", "request title", "title of the tender", "title of tender", "title of the contract",
        "contract title", "project title", "title of the project", "title of project", "procurement title",
        "name of work", "name of the work", "name of works", "name of assignment", "name of the assignment",
        "name of project", "name of the project", "project name", "item category", "description of work",
        "description of the work", "work description", "subject of the tender", "subject of procurement",
        "subject of the procurement", "subject of the contract", "tender subject", "subject matter",
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

_TITLE_GENERIC: Final = label_regex(
    ["title", "subject", "objet", "objeto", "oggetto", "gegenstand", "bezeichnung", "betreff", "betrifft", "titel",
     "omschrijving", "onderwerp", "przedmiot", "titulo", "titolo", "الموضوع"]
)  # fmt: skip
"""Bare 'title'/'subject' words: the title only when they open an entry of the first pages."""

_TITLE_NOT_OURS: Final = re.compile(
    r"\b(?:name|signature|signed|position|designation|job|contact|officer|lot|los|lotto|lote|pakiet|"
    r"nom|nombre|cargo|funktion|fonction)\b"
)
"""Words on a title label's line that make it a person's title or a lot's."""

_DOC_TYPE: Final = (
    r"(?:purchase order )?request for (?:proposals?|quotations?|quotes?|tenders?|bids?|offers?|information|"
    r"expressions? of interest)|invitation (?:for|to) (?:bids?|tenders?|quotations?|tender)|"
    r"(?:open |e-?)?tender(?: document| notice| dossier| documents)?|notice inviting (?:e-?)?tenders?|"
    r"bid(?:ding)? documents?|standard bidding documents?|expression of interest|solicitation|request|"
    r"rfp|rfq|rft|itb|ifb|itt|eoi|nit|"
    r"appel d'offres(?: ouvert| restreint)?(?: national| international)?|"
    r"avis d'appel (?:public )?(?:a la concurrence|d'offres)|reglement de (?:la )?consultation|"
    r"dossier de consultation(?: des entreprises)?|cahier des (?:clauses|charges)[\w ']*|"
    r"(?:auftrags)?bekanntmachung|(?:offentliche |beschrankte )?ausschreibung|"
    r"aufforderung zur (?:abgabe eines angebot(?:e?s)?|angebotsabgabe)|angebotsaufforderung|vergabeunterlagen|"
    r"licitacion(?: publica| privada| abierta)?(?: nacional| internacional)?|anuncio de licitacion|"
    r"pliego de (?:bases y )?(?:condiciones|clausulas|prescripciones)[\w ]*?|concurso(?: publico)?|"
    r"bando(?: di gara)?|disciplinare(?: di gara)?|bando disciplinare|avviso(?: pubblico)?|"
    r"capitolato(?: speciale)?(?: d'appalto)?|lettera d'invito|"
    r"specyfikacja (?:istotnych )?warunkow zamowienia|s?i?wz|zapytanie ofertowe|ogloszenie o zamowieniu|"
    r"edital(?: de licitacao)?|termo de referencia|(?:aviso de )?licitacao|pregao(?: eletronico)?|"
    r"aanbestedingsleidraad|offerteaanvraag|aankondiging van een opdracht|"
    r"كراسة الشروط(?: والمواصفات)?|منافسة عامة"
)
_HEADING: Final = re.compile(
    rf"(?:{_DOC_TYPE})(?:\s*\([^)]{{1,15}}\))?(?:\s*(?:no|nr|n°|number|#)\.?\s*[\w./-]+)?\s*[.:]?"
)
"""A line that only says what the document is ('REQUEST FOR PROPOSALS ("RFP") NO. 2022-01')."""

_PROCEDURE: Final = (
    r"procedura (?:aperta|negoziata|ristretta)|procedimiento (?:abierto|negociado|restringido)(?: simplificado)?|"
    r"open (?:procedure|tender(?:ing)?)|procedure (?:ouverte|adaptee|restreinte)|offenes verfahren|"
    r"przetarg nieograniczony|concorrencia|open"
)
_CONNECTOR: Final = (
    r"for(?: the)?|pour(?: la| le| les| l')?|fur(?: die| den| das)?|zur|zum|para(?: la| el| los| las)?|"
    r"per(?: la| il| l'| i| le)?|na|voor(?: de| het)?|relatif a|relative a|concernant|relativo a|relativa a|"
    r"(?:que (?:ha|han) de regir )?(?:en |para )?(?:el |la )?(?:contrato|contratacion|adjudicacion) de(?:l)?"
)
_INLINE_HEADING: Final = re.compile(
    rf"(?:{_DOC_TYPE})(?:\s*\([^)]{{1,15}}\))?(?:\s+(?:{_PROCEDURE}))?\s+(?:(?:{_CONNECTOR})\s+)?(?=\S)"
)
"""A heading that goes on with the title: 'Tender for …', 'BANDO DI GARA PROCEDURA APERTA AFFIDAMENTO …'."""

_HAS_CONNECTOR: Final = re.compile(rf"(?:{_PROCEDURE}|{_CONNECTOR})\s+$")
_LEADING_CONNECTOR: Final = re.compile(rf"^(?:{_CONNECTOR})\s+", re.IGNORECASE)
_DOC_TYPE_VALUE: Final = re.compile(rf"(?:(?:{_DOC_TYPE}|{_PROCEDURE})\b[\w\s().\-/]{{0,30}})")
_PUBLICATION: Final = re.compile(r"\b(?:publicado|published|publie|veroffentlicht|pubblicato|opublikowano)\b")
_SALUTATION: Final = re.compile(r",\s*$|^(?:dear|sehr geehrte|madame|monsieur|estimad|gentil|szanown)", re.I)
_REFERENCE_CUT: Final = re.compile(
    r"(?<![^\W_])(?:reference|ref|expte|expediente|cig|cup|rfp no|rfq no|tender no|vergabenummer|znak sprawy)"
    r"(?![^\W_])"
)
"""Where a heading stops naming the purchase and starts giving its number ('… JAEN. EXPTE 10/2024')."""

_TITLE_STOPS: Final = (_TITLE_STRONG, _REFERENCE_STRONG, _REFERENCE_DOCUMENT, re.compile(rf"(?:{_DOC_TYPE})\s*$"))


def _clean_title(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip().strip(_QUOTES).rstrip(" .;:,").strip(_QUOTES)
    return text


def _acceptable_title(text: str, *, from_heading: bool) -> bool:
    """Whether `text` can be a title: a noun phrase of a few words, not a document type, a placeholder, an
    organisation (for headings), a salutation or a sentence."""
    if not 6 <= len(text) <= 400 or _PLACEHOLDER.search(text) or _SALUTATION.search(text):
        return False
    words = re.findall(r"[^\W\d_]{2,}", text)
    if len(words) < 2 and not (len(words) == 1 and len(words[0]) >= 6):
        return False
    folded = fold(text)
    if _DOC_TYPE_VALUE.fullmatch(folded) or _PROSE.search(text) or _LABEL_LIKE.search(text):
        return False
    if re.match(r"(?:and|y|et|und|e|ed|i|or|ou|oder|o|of|de|del|des|du|der)\b", folded):
        return False
    if from_heading:
        if _ORGANISATION.search(folded) or re.match(rf"(?:{_DOC_TYPE}|{_PROCEDURE})\b", folded):
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
                return block.with_fragments(kept) if kept else block.truncated(0)
        kept.append(fragment)
        words += len(folded.split())
    return block


def _title_candidate(block: _Block | None, score: float, why: str, *, from_heading: bool) -> Candidate[str] | None:
    if block is None or not block.fragments:
        return None
    if from_heading:
        block = _cut_at_reference(block)
        if not block.fragments:
            return None
    text = _clean_title(block.text)
    if not _acceptable_title(text, from_heading=from_heading):
        return None
    return Candidate(text, block.page, block.quote, round(score, 3), why)


def _labelled_titles(document: Document) -> Iterator[Candidate[str]]:
    for pattern, base in ((_TITLE_STRONG, 0.8), (_TITLE_GENERIC, 0.7)):
        for hit in document.find(pattern):
            if hit.line.page > (5 if base >= 0.8 else 3) or not _label_starts_entry(hit):
                continue
            if _TITLE_NOT_OURS.search(hit.line.folded) or _in_lot_section(document, hit.line):
                continue
            label_cell = _label_cell(hit)
            after = hit.line.text[hit.end : label_cell.end]
            if after.strip() and not re.match(r"\s*[:：*=\-–—]", after):
                continue  # 'Objeto y necesidad del contrato': the label word inside a heading or a sentence
            block = _value_block(document, hit, max_lines=5, stops=_TITLE_STOPS)
            score = base + (0.0 if hit.line.page <= 2 else -0.15)
            candidate = _title_candidate(block, score, f"label {hit.label}", from_heading=False)
            if candidate is not None:
                yield candidate


def _in_lot_section(document: Document, line: Line) -> bool:
    """A label just under 'Lot No 2' is a lot's title or place, not the tender's."""
    for other in _lines_before(document, line, limit=3):
        if re.search(r"\b(?:lot|los|lotto|lote|pakiet|perceel)\s*(?:n[°o]?|nr|no)?\.?\s*\d", other.folded):
            return True
    return False


def _paragraph(document: Document, first: Line, *, downwards: bool, limit: int = 4) -> _Block | None:
    """The single-column paragraph that starts (downwards) or ends (upwards) at `first`."""
    if len(first.cells) != 1 or _LABEL_LIKE.search(first.stripped):
        return None
    lines = [first]
    neighbours = _lines_after(document, first, limit=limit) if downwards else _lines_before(document, first, limit=limit)
    for other in neighbours:
        if _is_blank(other) or len(other.cells) != 1 or len(lines) >= limit:
            break
        folded = other.folded.strip()
        if downwards:
            if _continues(lines[-1].stripped, other, first.cells[0], same_line=True, stops=_TITLE_STOPS) is None:
                break
        elif _SENTENCE_END.search(other.stripped) or _LABEL_LIKE.search(other.stripped) or _HEADING.fullmatch(folded):
            break
        lines.append(other)
    if not downwards:
        lines.reverse()
    return _Block(tuple(line.stripped for line in lines), tuple(lines))


def _is_meta(block: _Block) -> bool:
    """A paragraph that gives the document's number or publication, between a heading and the title."""
    folded = fold(block.text)
    return bool(
        _REFERENCE_STRONG.search(folded) or _REFERENCE_DOCUMENT.search(folded) or _PUBLICATION.search(folded)
    )


def _next_paragraph_start(document: Document, line: Line, *, downwards: bool) -> Line | None:
    """The first non-blank line within four lines after (or before) `line`."""
    neighbours = _lines_after(document, line, limit=5) if downwards else _lines_before(document, line, limit=5)
    for other in neighbours:
        if not _is_blank(other):
            return other
    return None


def _heading_titles(document: Document) -> Iterator[Candidate[str]]:
    """Titles read off the first page's headings (see the module docstring)."""
    lines = [line for line in document.lines_of(document.page_numbers[0]) if not _is_blank(line)][:40] if (
        document.page_numbers
    ) else []
    for line in lines:
        folded = line.folded.strip()
        if len(line.cells) != 1:
            continue
        inline = _INLINE_HEADING.match(folded)
        if inline is not None and not _HEADING.fullmatch(folded) and _HAS_CONNECTOR.search(folded[: inline.end()]):
            offset = len(line.text) - len(line.text.lstrip())
            first = line.text[offset + inline.end() :].strip()
            block = _Block((first,), (line,))
            for other in _lines_after(document, line, limit=4):
                following = _continues(block.fragments[-1], other, line.cells[0], same_line=True, stops=_TITLE_STOPS)
                if following is None:
                    break
                block = _Block((*block.fragments, following), (*block.lines, other))
            quote_block = block
            candidate = _title_candidate(quote_block, 0.72, "heading line", from_heading=True)
            if candidate is not None:
                yield candidate
            continue
        if _HEADING.fullmatch(folded):
            yield from _around_heading(document, line)
            continue
        if _is_reference_line(line) and line in lines[:15]:
            start = _next_paragraph_start(document, line, downwards=True)
            candidate = _title_candidate(
                _paragraph(document, start, downwards=True) if start is not None else None,
                0.58, "after reference line", from_heading=True,
            )
            if candidate is not None:
                yield candidate


def _around_heading(document: Document, heading: Line) -> Iterator[Candidate[str]]:
    """The paragraph under a document-type heading (after any number/publication paragraph), else the
    paragraph just above it."""
    line: Line | None = heading
    for _ in range(3):
        assert line is not None
        start = _next_paragraph_start(document, line, downwards=True)
        if start is None or _HEADING.fullmatch(start.folded.strip()):
            break
        block = _paragraph(document, start, downwards=True)
        if block is None:
            break
        if _is_meta(block):
            line = block.lines[-1]
            continue
        first = _LEADING_CONNECTOR.sub("", block.fragments[0])
        block = _Block((first, *block.fragments[1:]), block.lines)
        candidate = _title_candidate(block, 0.66, "under heading", from_heading=True)
        if candidate is not None:
            yield candidate
            return
        break
    start = _next_paragraph_start(document, heading, downwards=False)
    if start is not None and not _HEADING.fullmatch(start.folded.strip()):
        candidate = _title_candidate(
            _paragraph(document, start, downwards=False, limit=3), 0.56, "above heading", from_heading=True
        )
        if candidate is not None:
            yield candidate


def _is_reference_line(line: Line) -> bool:
    """A line that is only a reference label and its identifier ('Projektnr. 173087')."""
    match = _REFERENCE_STRONG.match(line.folded.strip())
    if match is None:
        return False
    offset = len(line.folded) - len(line.folded.lstrip())
    rest = line.text[offset + match.end() :]
    value = _identifier(rest)
    return value is not None and len(_ID_MARKER.sub("", rest).strip()) <= len(value) + 1


def title(document: Document) -> Sourced[str] | None:
    """The tender's title: a title label's value, else the first page's heading (see module docstring)."""
    best = choose([*_labelled_titles(document), *_heading_titles(document)], 0.55)
    return best.sourced() if best is not None else None


# --- place of performance ---------------------------------------------------------------------------------

_PLACE_LABELS: Final = label_regex(
    [
        # en
        "place of performance", "place of delivery", "delivery place", "delivery location", "location of delivery",
        "place of work", "place of works", "location of work", "location of works", "location of the works",
        "site location", "project location", "project site", "site of work", "site of works", "work site",
        "place of execution", "place of service", "place of supply", "location of the project",
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
        "مكان التنفيذ", "مكان التسليم", "موقع التنفيذ", "مكان العمل",
    ]
)  # fmt: skip
"""Labels of where the contract is performed or delivered (never the bare 'place', 'lugar', 'lieu':
those are often the place of opening or submission)."""

_PLACE_SENTENCE: Final = re.compile(
    r"\s+(?:is|will be|shall be|est|sera|ist|es|sera|e|sara|jest|sera|fica|is gelegen)\s+"
    r"(?:(?:in|at|a|en|nel|nella|nei|presso|im|in der|w|em|no|na|te)\s+)?",
)
"""'<place label> è nel Comune di …': the place follows a copula in a sentence."""

_NUTS_LABEL: Final = label_regex(["code nuts", "nuts code", "codice nuts", "codigo nuts", "nuts-code", "kod nuts",
                                  "nuts", "código de subentidad territorial"])  # fmt: skip
_NUTS_CODE: Final = re.compile(r"-?\b((?:AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|"
                               r"SE|SI|SK|UK|NO|CH|IS|LI|TR|AL|ME|MK|RS)[A-Z0-9]{1,3})\b")  # fmt: skip

_PLACE_SUBLABEL: Final = re.compile(
    r"^(?:(?P<town>subentidad nacional|town|city|ville|localite|commune|ort|stadt|gemeinde|localidad|ciudad|"
    r"municipio|poblacion|comune|citta|localita|miejscowosc|cidade|municipio|plaats|gemeente|postal address|"
    r"adresse postale|direccion postal|indirizzo|adres|anschrift)"
    r"|(?P<country>pais|country|pays|land|paese|kraj|staat)"
    r"|(?P<code>codigo de subentidad territorial|nuts code|code nuts|codice nuts|kod nuts|nuts))\W+",
)
"""Sub-fields of an eForms-style 'place of performance' block: town, country, NUTS code."""

_PLACE_NOT_A_PLACE: Final = re.compile(
    r"\b(?:see|voir|siehe|vease|vedi|patrz|zie|as per|according to|conformement|gemass|segun|designated|"
    r"order level|annex|anexo|allegato|anlage|zalacznik|bijlage|schedule|eur|usd|euro|valor|value|wert|"
    r"importe|montant|importo)\b|[€$£]"
)
"""A 'place' that points elsewhere or is another field's value: not a place."""


def _place_from_block(block: _Block) -> tuple[str, _Block] | None:
    """The place a label's block states, with the lines it was read from, or None."""
    lines = list(block.lines)
    fragments = list(block.fragments)
    sub_values: dict[str, tuple[str, Line]] = {}
    for fragment, line in zip(fragments, lines, strict=True):
        match = _PLACE_SUBLABEL.match(fold(fragment).strip())
        if match is not None and match.lastgroup is not None:
            sub_values.setdefault(match.lastgroup, (fragment.strip()[match.end() :].strip(), line))
    if sub_values:
        for kind in ("town", "code", "country"):
            if kind in sub_values:
                value, line = sub_values[kind]
                if kind == "code":
                    code = _NUTS_CODE.search(value)
                    value = code.group(1) if code is not None else ""
                value = _clean_place(value)
                if value:
                    return value, _Block((value,), (line,))
        return None
    text = _clean_place(block.text)
    return (text, block) if text else None


def _clean_place(text: str) -> str:
    """The place without its trailing NUTS note ('Comune di Turi (Ba) [codice NUTS ITF48]' → 'Comune di Turi (Ba)')."""
    text = re.sub(r"\s*[\[(]\s*(?:codice |code |codigo |kod )?nuts[^\])]*[\])]", "", text, flags=re.IGNORECASE)
    text = re.split(r"\s+[-–,]?\s*(?:codice|code|c[oó]digo|kod)\s+nuts\b|\s+nuts\b", text, flags=re.IGNORECASE)[0]
    text = re.sub(r"\s+", " ", text).strip().strip(_QUOTES).rstrip(" .;:,").strip()
    if not text or _PLACEHOLDER.search(text) or not re.search(r"[^\W\d_]{2,}", text):
        return ""
    if len(text) > 160 or _PLACE_NOT_A_PLACE.search(fold(text)) or _PROSE.search(text):
        return ""
    return text


_PLACE_STOPS: Final = (_PLACE_LABELS, _TITLE_STRONG, _REFERENCE_STRONG, _NUTS_LABEL)


def _place_candidates(document: Document) -> Iterator[Candidate[str]]:
    for hit in document.find(_PLACE_LABELS):
        if _in_lot_section(document, hit.line) and hit.line.page > 3:
            continue
        sentence = _PLACE_SENTENCE.match(hit.line.folded, hit.end + _apostrophe_gap(hit))
        if sentence is not None:
            rest = hit.line.text[sentence.end() :]
            value = _clean_place(re.split(r"[.;](?:\s|$)", rest)[0])
            if value:
                yield Candidate(value, hit.line.page, hit.line.stripped, 0.75, f"sentence {hit.label}")
            continue
        if not _label_starts_entry(hit):
            continue
        label_cell = _label_cell(hit)
        after = hit.line.text[hit.end : label_cell.end]
        if after.strip() and not re.match(r"\s*[:：*=\-–—]", after):
            continue
        block = _value_block(document, hit, max_lines=4, stops=_PLACE_STOPS)
        if block is None:
            continue
        found = _place_from_block(block)
        if found is None:
            continue
        value, source = found
        score = 0.78 + _page_weight(hit.line.page) / 2
        yield Candidate(value, source.page, source.quote, round(score, 3), f"label {hit.label}")
    for hit in document.find(_NUTS_LABEL):
        rest = hit.line.text[hit.end : hit.end + 30]
        code = _NUTS_CODE.match(rest.lstrip(" \t:：.-–—=*"))
        if code is not None:
            yield Candidate(code.group(1), hit.line.page, hit.line.stripped, 0.6, "NUTS code")


def _apostrophe_gap(hit: LabelHit) -> int:
    """Characters between the label and a copula: "dell'appalto" after 'luogo di svolgimento'."""
    match = re.match(r"\s+(?:del|della|dell['’]|de la|du|des|of the|of|der|des|de)\s*\w+", hit.line.folded[hit.end :])
    return match.end() if match is not None else 0


def place_of_performance(document: Document) -> Sourced[str] | None:
    """Where the contract is performed: a place label's value (its town when the block has sub-fields),
    else a NUTS code."""
    best = choose(_place_candidates(document), 0.55)
    return best.sourced() if best is not None else None
