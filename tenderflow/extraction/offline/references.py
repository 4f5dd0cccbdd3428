"""The tender's reference number: the identifier a reference label introduces.

See identity.py for how it is read; an identifier must look like one (a digit, not a sentence, a date,
a year, a phone number, a time or a clause number).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.document import Document, Line, Span, fold
from tenderflow.extraction.offline.labelled import (
    PLACEHOLDER,
    find_labels,
    first_right_cell,
    is_blank,
    label_starts_entry,
    labels,
    left_cell,
    page_weight,
)
from tenderflow.extraction.schema import Sourced

# --- reference number -------------------------------------------------------------------------------------

REFERENCE_STRONG: Final = labels(
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

REFERENCE_DOCUMENT: Final = re.compile(
    r"(?<![^\W_])(?:request for (?:proposals?|quotations?|tenders?|bids?)|invitation (?:for|to) (?:bids?|tenders?)"
    r"|rfp|rfq|rft|rfb|itb|ifb|itt|eoi|porfp|rfx)\W{0,8}(?:\([^)]{0,12}\)\W{0,4})?"
    r"(?:(?:no|nr|number|num|ref)(?![^\W_])|#)"
)
"""'RFP No.', 'ITB #', 'REQUEST FOR PROPOSALS ("RFP") NO.', 'PORFP Number': the document's own number."""

REFERENCE_GENERIC: Final = labels(
    ["reference", "ref", "referencia", "riferimento", "referenz", "expediente", "referentie", "rfa", "المرجع"]
)
"""Bare 'reference' words: a reference only when they open an entry of a form or a letter head."""

REFERENCE_PUBLICATION: Final = labels(["avis n", "annonce n", "annonce no", "avis no", "notice no"])
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

ID_MARKER: Final = re.compile(
    r"^(?:[\s.:：#№°º=|*\-–—]|(?:no|nr|nro|n|num|number|numero|nummer)(?=[\s.°º:#]))*", re.IGNORECASE
)
"""What stands between a label and its identifier: 'No.', 'n°', 'Nr.', '#', ':'."""

_ID_TOKEN: Final = re.compile(r"[^\W_][\w./\-#]*")
_DATE_LIKE: Final = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|(?:19|20)\d{2}")
_CLAUSE_LIKE: Final = re.compile(r"\d{1,2}(?:\.\d{1,2})*\.?")
_PHONE_LIKE: Final = re.compile(r"\+?[\d()\s/-]{7,}")


def identifier(text: str) -> str | None:
    """The identifier at the start of `text` ('No. 2022-01 Professional …' → '2022-01'), or None.

    It may span a few tokens when each has a digit ('173087_75 112/0012'); it must have a digit, and be
    neither a date, a year, a phone number, a clause number ('13.', '4.2') nor a placeholder.
    """
    if PLACEHOLDER.search(text[:40]):
        return None
    tokens: list[str] = []
    for raw in ID_MARKER.sub("", text, count=1).split()[:5]:
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
    value = identifier(text)
    if value is None and after_colon:
        parts = _LABEL_COLON.split(text)
        if len(parts) > 1:
            value = identifier(parts[-1])
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


_REFERENCE_PROJECT: Final = labels(["project number", "project no", "project id", "numero du projet"])
"""A project's number: the tender's reference in some calls (APEC 'project number: CTI69'), but a
financing project's in others, so it weighs less than a tender's own number."""

NUMBER_LINE: Final = re.compile(r"^(?:n\s?[°º]|no\.|nr\.|numero)(?=\s?\S*\d)")
"""A cover line that is only 'N° 2024/07/CEB/TAM/P/CS': the document's number under its title."""

_PUBLICATION_SCORE: Final = 0.6
"""A published notice's number: the reference only when the buyer gives none of its own."""

_REFERENCE_LABELS: Final = (
    _ReferenceLabel(REFERENCE_STRONG, 0.8, False),
    _ReferenceLabel(REFERENCE_DOCUMENT, 0.8, False),
    _ReferenceLabel(_REFERENCE_PROJECT, 0.7, False),
    _ReferenceLabel(REFERENCE_GENERIC, 0.65, True),
    _ReferenceLabel(REFERENCE_PUBLICATION, _PUBLICATION_SCORE, True),
)
_HOW_PENALTY: Final = {"same": 0.0, "right": 0.0, "below": 0.03, "next": 0.05}


def _reference_candidates(document: Document) -> Iterator[Candidate[str]]:
    for label in _REFERENCE_LABELS:
        for hit in find_labels(document, label.pattern):
            if label.entry_only and (hit.line.page > 3 or not label_starts_entry(hit)):
                continue
            if _REFERENCE_NOT_OURS.search(fold(hit.line.text[max(0, hit.start - 20) : hit.start])):
                continue
            score_base = label.score
            if label.pattern is not REFERENCE_PUBLICATION and _NOTICE_BEFORE.search(fold(hit.line.text[: hit.start])):
                score_base = _PUBLICATION_SCORE  # 'Avis de marché n° 25-14359': the notice's number
            first_right = first_right_cell(hit)
            spans = list(document.spans_after(hit, below=2))
            left = left_cell(hit)
            if left is not None:
                spans.insert(0, Span(left.text, hit.line, "same", 0, hit.line, hit.line.stripped))
            for span in spans:
                if span.how == "right" and span.text != first_right:
                    continue
                value = _identifier_in(span.text, after_colon=span.how == "same")
                if value is None:
                    continue
                score = score_base + page_weight(span.page) - _HOW_PENALTY[span.how] * max(span.distance, 1)
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
    return [line for line in document.lines_of(document.page_numbers[0]) if not is_blank(line)][:count]


def _number_line(line: Line) -> str | None:
    """The identifier of a line that is only 'N° <identifier>', or None."""
    stripped = line.stripped
    match = NUMBER_LINE.match(fold(stripped))
    if match is None or len(fold(stripped)) != len(stripped):
        return None
    rest = stripped[match.end() :]
    value = identifier(rest)
    return value if value is not None and len(ID_MARKER.sub("", rest).strip()) <= len(value) + 1 else None


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
