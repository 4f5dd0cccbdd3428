"""The buyer's phone: a number with a phone label ('Tel.', '電話', '☎', '电话', 'Телефон', 'Τηλ.', 'Nr de
telefon', 'Điện thoại', 'Telefon'...) in its cell, the cell on its left or the line above or below, or
standing alone next to the buyer's e-mail; never a fax, a PO box, a postcode, a tax or registry number,
nor another party's number (a help desk, a call centre, an audit office, an agent's block).

Numbers are read on narrowed text (full-width digits and dashes made plain: '043－223－4154'), and
phonenumbers judges whether they can be a number of the country the document's domains or script point
to ('.jp', kana → JP; Hangul → KR; '8-4212-506304' in Russian → RU; '74273741005' as '+7 …'). A
number is returned narrowed ('043-223-4154'): the validator grounds it in its full-width quote.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import phonenumbers

from tenderflow.extraction.offline.candidates import Candidate
from tenderflow.extraction.offline.contact_context import (
    block_bonus,
    context_above,
    labelled_lines,
    letterhead_zone,
    other_party,
    previous_lines,
    quote_lines,
)
from tenderflow.extraction.offline.contact_words import (
    CONTACT_POSITIVE,
    DATE_LIKE,
    FAX_LABEL,
    NOT_PHONE_BEFORE,
    PHONE,
    PHONE_LABEL,
    PROCUREMENT,
)
from tenderflow.extraction.offline.document import Document, Line, fold
from tenderflow.extraction.offline.parties import party_of

_NARROW: Final = {
    **{code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)},  # full-width ASCII forms
    0x3000: ord(" "), 0x2010: ord("-"), 0x2011: ord("-"), 0x2012: ord("-"), 0x2013: ord("-"), 0x2014: ord("-"),
    0x2015: ord("-"), 0x2212: ord("-"), 0x30FC: ord("-"), 0x301C: ord("~"),
}
"""One character for one: what a phone number printed in full-width forms is in plain ASCII."""

_RIGHT_TO_LEFT: Final = re.compile(r"[\u0590-\u05ff\u0600-\u06ff]")

_SCRIPT_REGIONS: Final = (
    (re.compile(r"[\u3040-\u30ff]"), "JP"), (re.compile(r"[\uac00-\ud7a3]"), "KR"),
    (re.compile(r"[\u4e00-\u9fff]"), "CN"), (re.compile(r"[\u0e00-\u0e7f]"), "TH"),
    (re.compile(r"[\u0590-\u05ff]"), "IL"), (re.compile(r"[\u0370-\u03ff]"), "GR"),
    (re.compile(r"[đơư]"), "VN"), (re.compile(r"[ğı]"), "TR"), (re.compile(r"[șşțţ]"), "RO"),
    (re.compile(r"[\u0400-\u04ff]"), "RU"),
)
"""A script (or letters) that points to a numbering plan when no domain of the document does; the first
that fills a fiftieth of the text wins."""


def narrow(text: str) -> str:
    """`text` with full-width digits, dashes and brackets made plain, one character for one."""
    return text if text.isascii() else text.translate(_NARROW)


def phone_region(document: Document) -> str | None:
    """The country whose numbering plan national numbers follow: from the document's e-mail and web
    domains ('.fr' → FR), else from its script; None when neither says."""
    counts: dict[str, int] = {}
    for match in re.finditer(r"[\w-]\.([a-z]{2})\b(?![.@\w])", document.folded_text):
        code = match.group(1).upper()
        if code in {"UK"}:
            code = "GB"
        if phonenumbers.country_code_for_region(code):
            counts[code] = counts.get(code, 0) + 1
    if counts:
        return max(counts, key=lambda code: counts[code])
    if re.search(r"\.(?:gov|mil|us)\b", document.folded_text):
        return "US"
    text = document.folded_text[:20000]
    for pattern, region in _SCRIPT_REGIONS:
        if len(pattern.findall(text)) * 50 >= len(text):
            return region
    return None


def _phone_number(text: str, region: str | None) -> bool:
    """Whether `text` can be a phone number (phonenumbers' length rules for the region or its +code; a
    number printed with its country code but no '+', '74273741005', read as '+7 4273741005')."""
    main = re.sub(r"\s?(?:x|ext\.?|extn\.?|poste|durchwahl|int\.)\s?\d{1,5}$|\s?\(\d{1,5}\)$", "", text)
    main = re.sub(r"/\d{3,}$", "", main)  # '6536028/6555288': the first of two lines
    digits = re.sub(r"\D", "", main)
    if not 7 <= len(digits) <= 15 or DATE_LIKE.match(text.strip()):
        return False
    for attempt in (main.replace("(0)", ""), "+" + digits):
        try:
            if phonenumbers.is_possible_number(phonenumbers.parse(attempt, region or "US")):
                return True
        except phonenumbers.NumberParseException:
            pass
        if main.lstrip().startswith(("+", "0", "(")) or not 11 <= len(digits) <= 13:
            break
    return False


def _phone_matches(document: Document, line: Line, region: str | None) -> Iterator[tuple[int, str, list[Line]]]:
    """Phone numbers on `line` (column, text as printed, lines quoted), including one that the layout
    wrapped onto the next line ('tél. : 03-27-21-87-' / '01', 'Tel. 080' / '6452208')."""
    text = line.text.rstrip()
    plain = narrow(text)
    tail = re.search(r"(?:\(?\+?\d[\d\s()./-]*)$", plain)
    wrapped: tuple[int, str, list[Line]] | None = None
    if tail is not None and len(re.sub(r"\D", "", tail.group())) >= 3 and \
            (len(re.sub(r"\D", "", tail.group())) < 8 or tail.group().endswith("-")):
        following = document.next_lines(line, 1, skip_blank=False)
        head = re.match(r"\s*(\d[\d\s./-]{0,14}\d|\d)(?![\w@])", narrow(following[0].text)) if following else None
        if head is not None:
            joined = PHONE.match(plain + " " + head.group(1), tail.start())
            if joined is not None and joined.end() > len(plain):
                number = re.sub(r"-\s+", "-", joined.group().strip(" ./-"))
                if _phone_number(number, region):
                    wrapped = (joined.start(), number, [line, following[0]])
    for match in PHONE.finditer(plain):
        if wrapped is not None and match.start() >= wrapped[0]:
            break
        number = match.group().strip(" ./-")
        if _phone_number(number, region):
            yield match.start(), number, [line]
    if wrapped is not None:
        yield wrapped


@dataclass(frozen=True)
class _Labels:
    """Where phone labels stand around a line, and whether the buyer's e-mail is near it."""

    on_line: bool
    above: bool
    below: bool
    near_email: bool
    previous: Line | None


def _labels(document: Document, line: Line, email_rows: set[int]) -> _Labels:
    labelled = labelled_lines(document, PHONE_LABEL)
    previous = previous_lines(document, line, 1)
    following = document.next_lines(line, 1)
    return _Labels(
        on_line=line.index in labelled,
        above=bool(previous) and previous[0].index in labelled,
        below=bool(following) and following[0].index in labelled,
        near_email=bool(email_rows.intersection(
            other.index for other in [line, *previous_lines(document, line, 3), *document.next_lines(line, 3)])),
        previous=previous[0] if previous else None,
    )


def _label_before(line: Line, start: int) -> str:
    """The folded text that labels a number at `start`: before it in its cell, else the cell on its left,
    else, on a right-to-left line, the cell on its right ('0547299979          الهاتف')."""
    own = line.cell_at(start)
    before = line.folded[own.start : start][-30:] if own is not None and own.start < start else ""
    if re.search(r"[^\W\d_]|[☎℡]", before):
        return before
    left = [cell for cell in line.cells if cell.end <= start]
    if left:
        return fold(left[-1].text) + before  # '电话   ：0576-…': the label in its own cell, the colon in the number's
    right = [cell for cell in line.cells if own is not None and cell.start > own.end]
    if right and _RIGHT_TO_LEFT.search(right[0].text):
        return fold(right[0].text)
    return before


def _base_score(line: Line, start: int, text: str, labels: _Labels) -> float | None:
    """The score a number earns from its label (None: no phone label for it, or a fax's, a PO box's, a
    postcode's or a registry number's)."""
    before = _label_before(line, start)
    if NOT_PHONE_BEFORE.search(line.folded[max(0, start - 20) : start]) and not PHONE_LABEL.search(before):
        return None  # a PO box, a postcode or a reference number, not a phone
    fax_near = FAX_LABEL.search(before)
    phone_near = PHONE_LABEL.search(before)
    combined = phone_near is not None and fax_near is not None and not re.search(r"\d", before[phone_near.end() :])
    if fax_near and not combined and (phone_near is None or fax_near.start() > phone_near.start()):
        return None  # a fax ('Telefon ve faks numarası : 312… - 312…' gives the phone first)
    above = labels.previous.folded if labels.previous is not None else ""
    if not phone_near and FAX_LABEL.search(above) and not PHONE_LABEL.search(above):
        return None
    only_number = re.fullmatch(r"[\s\d()+./x-]*", narrow(line.text).replace(narrow(text), "")) is not None
    if phone_near or (labels.above and (only_number or len(above.strip()) < 30)):
        return 0.45
    if labels.below:
        return 0.35
    return 0.45 if labels.near_email and only_number else None


def phone_candidates(document: Document, anchors: Sequence[Line], email: Candidate[str] | None,
                     region: str | None) -> Iterator[Candidate[str]]:
    """Phone numbers with how surely each is the buyer's (see the module docstring)."""
    email_rows: set[int] = set()  # the lines the buyer's e-mail stands on: a number three printed lines away
    if email is not None:
        wanted = email.value.casefold()
        email_rows = {line.index for line in document.lines
                      if "@" in line.text and wanted.split("@")[0] in line.text.casefold()}
    for line in document.lines:
        if not re.search(r"\d{2}", line.text):
            continue
        labels = _labels(document, line, email_rows)
        if not (labels.on_line or labels.near_email or labels.above or labels.below):
            continue
        party = party_of(document, line)
        for start, text, lines in _phone_matches(document, line, region):
            score = _base_score(line, start, text, labels)
            if score is None or party == "other" or other_party(document, line, start):
                continue
            score += max(block_bonus(document, line, anchors), 0.2 if party == "buyer" else 0.0)
            score += 0.2 if labels.near_email else 0.0
            score += 0.1 if CONTACT_POSITIVE.search(context_above(document, line, 2)) else 0.0
            score += 0.05 if PROCUREMENT.search(line.folded[max(0, start - 80) : start]) else 0.0
            score += 0.1 if letterhead_zone(document, line) else 0.0  # the buyer's own letterhead or footer
            yield Candidate(text, line.page, quote_lines(lines), score, "phone")
