"""The tender's reference number: the identifier a reference label introduces.

See identity.py for how it is read; an identifier must look like one (a digit, not a sentence, a date,
a year, a phone number, a time or a clause number).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.offline import identity_labels as words
from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.document import Document, LabelHit, Line, Span, fold
from tenderflow.extraction.offline.labelled import (
    PLACEHOLDER,
    LabelSet,
    find_labels,
    first_right_cell,
    is_blank,
    label_starts_entry,
    labels,
    left_cell,
    lines_before,
    page_weight,
)
from tenderflow.extraction.schema import Sourced

# --- reference number -------------------------------------------------------------------------------------

_OWN: Final = LabelSet(words.REFERENCE_LABELS, words.REFERENCE_TED_LABELS, words.REFERENCE_EFORMS_LABELS)
_FILE: Final = LabelSet(words.REFERENCE_FILE_LABELS)
REFERENCE_STRONG: Final = LabelSet(
    words.REFERENCE_LABELS, words.REFERENCE_TED_LABELS, words.REFERENCE_EFORMS_LABELS, words.REFERENCE_FILE_LABELS
).pattern
"""Labels that name the tender's own identifier."""

REFERENCE_DOCUMENT: Final = re.compile(
    r"(?<![^\W_])(?:request for (?:proposals?|quotations?|tenders?|bids?)|invitation (?:for|to) (?:bids?|tenders?)"
    r"|rfp|rfq|rft|rfb|itb|ifb|itt|eoi|porfp|rfx)\W{0,8}(?:\([^)]{0,12}\)\W{0,4})?"
    r"(?:(?:no|nr|number|num|ref)(?![^\W_])|#)"
)
"""'RFP No.', 'ITB #', 'REQUEST FOR PROPOSALS ("RFP") NO.', 'PORFP Number': the document's own number."""

_GENERIC: Final = LabelSet(words.REFERENCE_GENERIC_LABELS)
REFERENCE_GENERIC: Final = _GENERIC.pattern
"""Bare 'reference' words: a reference only when they open an entry of a form or a letter head."""

REFERENCE_PUBLICATION: Final = labels(list(words.REFERENCE_PUBLICATION_LABELS))
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
    r"rechnung|cpv|nuts|tax|vat|gst|pan|iban|registration|phone|telephone|fax|lot|los|lotto|lote|lotul|pakiet|"
    r"perceel|лот|лота|παρτιδα|partie)\W{0,3}(?:\d{1,3}\W{0,3})?$"
)
"""Words just before a reference label that make it someone else's number (the bidder's, a bank's, a loan's,
a lot's: 'Lot 2 reference: …')."""

_LOT_HEADING_LINE: Final = re.compile(
    r"\s*(?:lot|los|lotto|lote|lotul|pakiet|perceel|лот|παρτιδα|partie)\s*(?:n[°o]?|nr|no|№)?\.?\s*\d{1,3}\s*"
    r"(?:[:.\-–—].*)?"
)
"""A lot's heading line: 'Lot No 1', 'LOT 2: Printers' (not a line that mentions a lot: 'Lot 2 reference: …')."""


def _under_lot_heading(document: Document, line: Line) -> bool:
    """Whether `line` is one of the first lines under a lot's heading: what it labels is the lot's."""
    return any(_LOT_HEADING_LINE.fullmatch(other.folded) for other in lines_before(document, line, limit=3))


_FILE_SCORE: Final = 0.72
"""A file or registry number: below a tender's own number (0.8), above a published notice's (0.6)."""

ID_MARKER: Final = re.compile(
    r"^(?:[\s.:：#№°º=|*\-–—'׳]|(?:no|nr|nro|n|num|number|numero|nummer)(?=[\s.°º:#]))*", re.IGNORECASE
)
"""What stands between a label and its identifier: 'No.', 'n°', 'Nr.', '#', ':', the geresh of Hebrew's 'מס׳'."""

_ID_TOKEN: Final = re.compile(r"[^\W_][\w./\-#]*")
_DATE_LIKE: Final = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|(?:19|20)\d{2}")
_CLAUSE_LIKE: Final = re.compile(r"\d{1,2}(?:\.\d{1,2})*\.?")
_PHONE_LIKE: Final = re.compile(r"\+?[\d()\s/-]{7,}")


OFFICIAL_NUMBER: Final = re.compile(
    r"[\u3400-\u4dbf\u4e00-\u9fff\u30a0-\u30ff]{0,8}第\s?[0-9０-９]+\s?号(?:の\s?[0-9０-９]+)?"
    r"|[\u4e00-\u9fff]{1,10}\s?[〔［\[【(（]\s?[0-9０-９]{4}\s?[〕］\]】)）]\s?(?:第\s?)?[0-9０-９]+\s?号"
    r"|제\s?[0-9０-９][0-9０-９\-－]*\s?호"
)
"""A Japanese, Chinese or Korean document number, in the form an office numbers what it issues: '建不第104号の80',
'教施第386号', '嘉财采〔2024〕12号', '제2024-244호'."""


def identifier(text: str) -> str | None:
    """The identifier at the start of `text` ('No. 2022-01 Professional …' → '2022-01'), or None.

    It may span a few tokens when each has a digit ('173087_75 112/0012'); it must have a digit, and be
    neither a date, a year, a phone number, a clause number ('13.', '4.2') nor a placeholder. A CJK document
    number ('제2024-244호(전자입찰…)') is taken whole, up to its last character.
    """
    if PLACEHOLDER.search(text[:40]):
        return None
    official = OFFICIAL_NUMBER.match(ID_MARKER.sub("", text, count=1))
    if official is not None:
        return official.group()
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


def identifier_after(line: Line, label: re.Pattern[str]) -> tuple[str, str] | None:
    """The text after `label` at the start of `line` (matched on its folded text, only where folding keeps
    the line's length) and the identifier it starts with, or None."""
    stripped = line.stripped
    match = label.match(fold(stripped))
    if match is None or len(fold(stripped)) != len(stripped):
        return None
    rest = stripped[match.end() :]
    value = identifier(rest)
    return None if value is None else (rest, value)


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
    rule: str  # the rule's name, followed by the label's language ('reference label ru')
    labels: LabelSet | re.Pattern[str]
    score: float
    entry_only: bool  # only when the label opens an entry (line or cell) on the first pages



    def name(self, hit: LabelHit) -> str:
        language = self.labels.language(hit.label) if isinstance(self.labels, LabelSet) else ""
        return f"{self.rule} {language}".strip()


_PROJECT: Final = LabelSet(words.REFERENCE_PROJECT_LABELS)
"""A project's number: the tender's reference in some calls (APEC 'project number: CTI69'), but a
financing project's in others, so it weighs less than a tender's own number."""

NUMBER_LINE: Final = re.compile(r"^(?:n\s?[°º]|no\.|nr\.|numero)(?=\s?\S*\d)")
"""A cover line that is only 'N° 2024/07/CEB/TAM/P/CS': the document's number under its title."""

_PUBLICATION_SCORE: Final = 0.6
"""A published notice's number: the reference only when the buyer gives none of its own."""

_REFERENCE_LABELS: Final = (
    _ReferenceLabel("reference label", _OWN, 0.8, False),
    _ReferenceLabel("document number", REFERENCE_DOCUMENT, 0.8, False),
    _ReferenceLabel("file number", _FILE, _FILE_SCORE, False),
    _ReferenceLabel("project number", _PROJECT, 0.7, False),
    _ReferenceLabel("bare label", _GENERIC, 0.65, True),
    _ReferenceLabel("notice number", REFERENCE_PUBLICATION, _PUBLICATION_SCORE, True),
)
_HOW_PENALTY: Final = {"same": 0.0, "right": 0.0, "below": 0.03, "next": 0.05}


def _reference_candidates(document: Document) -> Iterator[Candidate[str]]:
    for label in _REFERENCE_LABELS:
        for hit in find_labels(document, label.labels):
            if label.entry_only and (hit.line.page > 3 or not label_starts_entry(hit)):
                continue
            if _REFERENCE_NOT_OURS.search(fold(hit.line.text[max(0, hit.start - 20) : hit.start])):
                continue
            if _under_lot_heading(document, hit.line):
                continue  # a lot's own number, under 'Lot 2'
            score = label.score
            if label.labels is not REFERENCE_PUBLICATION and _NOTICE_BEFORE.search(fold(hit.line.text[: hit.start])):
                score = _PUBLICATION_SCORE  # 'Avis de marché n° 25-14359': the notice's number
            candidate = _labelled_identifier(document, hit, score, label.name(hit))
            if candidate is not None:
                yield candidate
    yield from _cover_identifiers(document)


def _labelled_identifier(document: Document, hit: LabelHit, base: float, rule: str) -> Candidate[str] | None:
    """The identifier in the first of a label's value places that holds one."""
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
        score = base + page_weight(span.page) - _HOW_PENALTY[span.how] * max(span.distance, 1)
        if re.search(r"[^\W\d_]", value) or re.search(r"[-/_.]", value):
            score += 0.05
        if " " in value:
            score -= 0.03  # an identifier broken by spaces is more often misread (OCR) or cut
        return Candidate(value, span.page, span.quote, round(score, 3), f"{rule}, {hit.label}; {span.how}")
    return None


def _cover_identifiers(document: Document) -> Iterator[Candidate[str]]:
    """Identifiers the cover prints without a label: a line that is only 'N° …', a CJK notice's number after
    its name, a code naming a procurement document."""
    for line in _first_lines(document):
        value = _number_line(line)
        if value is not None:
            yield Candidate(value, line.page, line.stripped, 0.75, "number line")
        numbered = _NUMBERED_NOTICE.search(line.text)
        if numbered is not None:
            yield Candidate(numbered.group("number"), line.page, line.stripped, 0.78, "number after the notice's name")
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


_NUMBERED_NOTICE: Final = re.compile(
    r"(?:公告|公示|공고)[\s\u3000]*(?P<number>" + OFFICIAL_NUMBER.pattern + ")"
)
"""A CJK notice's name followed by its number: '千葉県一般競争入札公告 建不第104号の80', '입찰공고 제2019-00468호'."""


def _first_lines(document: Document, count: int = 40) -> list[Line]:
    """The first non-blank lines of the first page: the cover."""
    if not document.page_numbers:
        return []
    return [line for line in document.lines_of(document.page_numbers[0]) if not is_blank(line)][:count]


def _number_line(line: Line) -> str | None:
    """The identifier of a line that is only 'N° <identifier>', or None."""
    found = identifier_after(line, NUMBER_LINE)
    if found is None:
        return None
    rest, value = found
    return value if len(ID_MARKER.sub("", rest).strip()) <= len(value) + 1 else None


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
