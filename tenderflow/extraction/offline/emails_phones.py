"""The buyer's e-mail and phone: every e-mail or labelled phone number of the document, scored by its
label, the buyer's block, a contact sentence and the letterhead; other parties' contacts left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import phonenumbers

from tenderflow.extraction.offline.candidates import Candidate
from tenderflow.extraction.offline.contact_context import (
    block_bonus,
    context_above,
    other_party,
    previous_lines,
    quote_lines,
)
from tenderflow.extraction.offline.contact_words import (
    CONTACT_NEGATIVE,
    CONTACT_POSITIVE,
    DATE_LIKE,
    EMAIL,
    EMAIL_LABEL,
    FAX_LABEL,
    LOST_AT,
    NOT_PHONE_BEFORE,
    PHONE,
    PHONE_LABEL,
)
from tenderflow.extraction.offline.document import Document, Line, fold

# --- e-mail ---------------------------------------------------------------------------------------------------


def email_candidates(document: Document, anchors: Sequence[Line]) -> Iterator[Candidate[str]]:
    """Every e-mail (also one split over two table lines, or whose '@' the text layer lost), scored by
    its label, the buyer's block, a contact/questions sentence and the letterhead; other parties' out."""
    for line in document.lines:
        if "@" not in line.text and not EMAIL_LABEL.search(line.folded):
            continue
        found: list[tuple[int, str, list[Line]]] = []
        for match in EMAIL.finditer(line.text):
            value = match.group().rstrip(".-")
            lines = [line]
            cell = line.cell_at(match.start())
            if cell is not None and cell.end <= match.end() + 1:
                for following in document.next_lines(line, 1):
                    below = following.cell_at(max(match.start() - 2, 0))
                    if below is not None and below.start <= match.end() and \
                            re.fullmatch(r"\.?[a-z]{2,6}(?:\.[a-z]{2,6})?", below.text.strip()):
                        joiner = "" if value.endswith(".") or below.text.strip().startswith(".") else "."
                        value = value + joiner + below.text.strip()
                        lines = [line, following]
            found.append((match.start(), value, lines))
        for match in LOST_AT.finditer(line.folded):
            local = line.text[match.start("local") : match.end("local")]
            domain = line.text[match.start("domain") : match.end("domain")]
            found.append((match.start("local"), f"{local}@{domain}", [line]))
        for start, value, lines in found:
            local = re.sub(r"[._+-]+", " ", fold(value.split("@")[0]))
            if other_party(document, line, start) or CONTACT_NEGATIVE.search(local) or re.search(r"\bhelp\b", local):
                continue
            score = 0.3
            before = line.folded[max(0, start - 40) : start]
            label_above = any(
                (EMAIL_LABEL.search(other.folded) and len(other.folded.strip()) < 40)
                or EMAIL_LABEL.search(other.folded.rstrip()[-40:]) is not None  # '... par mail à l'adresse' / 'x@y'
                for other in previous_lines(document, line, 1)
            ) and line.folded[:start].strip() == ""
            left_cell = [cell for cell in line.cells if cell.end <= start]
            label_left = bool(left_cell) and EMAIL_LABEL.search(fold(left_cell[-1].text)) is not None
            if EMAIL_LABEL.search(before) or label_above or label_left:
                score += 0.25
            score += block_bonus(document, line, anchors)
            if CONTACT_POSITIVE.search(context_above(document, line, 2)):
                score += 0.2
            if line.page == document.page_numbers[0] and line.row < 15 and \
                    len(re.findall(r"[^\W\d_]{2,}", EMAIL.sub(" ", line.folded))) <= 6:
                score += 0.2  # a letterhead's contact line, not a sentence
            yield Candidate(value, line.page, quote_lines(lines), score, "e-mail")


# --- phone ---------------------------------------------------------------------------------------------------


def phone_region(document: Document) -> str | None:
    """The country whose numbering plan national numbers follow, from the document's e-mail and web
    domains ('.fr' → FR); None when they do not say."""
    counts: dict[str, int] = {}
    for match in re.finditer(r"[\w-]\.([a-z]{2})\b(?![.@\w])", document.folded_text):
        code = match.group(1).upper()
        if code in {"UK"}:
            code = "GB"
        if phonenumbers.country_code_for_region(code):
            counts[code] = counts.get(code, 0) + 1
    if re.search(r"\.(?:gov|mil|us)\b", document.folded_text) and not counts:
        return "US"
    return max(counts, key=lambda code: counts[code]) if counts else None


def _phone_number(text: str, region: str | None) -> bool:
    """Whether `text` can be a phone number (phonenumbers' length rules for the region or its +code)."""
    main = re.sub(r"\s?(?:x|ext\.?|extn\.?|poste|durchwahl|int\.)\s?\d{1,5}$|\s?\(\d{1,5}\)$", "", text)
    main = re.sub(r"/\d{3,}$", "", main)  # '6536028/6555288': the first of two lines
    digits = re.sub(r"\D", "", main)
    if not 7 <= len(digits) <= 15 or DATE_LIKE.match(text.strip()):
        return False
    try:
        parsed = phonenumbers.parse(main.replace("(0)", ""), region or "US")
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_possible_number(parsed)


def _letterhead_zone(document: Document, line: Line) -> bool:
    """Whether `line` is among the first twelve or the last four printed lines of the first page."""
    if not document.page_numbers or line.page != document.page_numbers[0]:
        return False
    printed = [other for other in document.lines_of(line.page) if other.text.strip()]
    return line in printed[:12] or line in printed[-4:]


def _phone_matches(document: Document, line: Line, region: str | None) -> Iterator[tuple[int, str, list[Line]]]:
    """Phone numbers on `line` (column, text as printed, lines quoted), including one that the layout
    wrapped onto the next line ('tél. : 03-27-21-87-' / '01', 'Tel. 080' / '6452208')."""
    text = line.text.rstrip()
    tail = re.search(r"(?:\(?\+?\d[\d\s()./-]*)$", text)
    wrapped: tuple[int, str, list[Line]] | None = None
    if tail is not None and (len(re.sub(r"\D", "", tail.group())) < 8 or tail.group().endswith("-")):
        following = document.next_lines(line, 1, skip_blank=False)
        head = re.match(r"\s*(\d[\d\s./-]{0,14}\d|\d)(?![\w@])", following[0].text) if following else None
        if head is not None:
            joined = PHONE.match(text + " " + head.group(1), tail.start())
            if joined is not None and joined.end() > len(text):
                number = re.sub(r"-\s+", "-", joined.group().strip(" ./-"))
                if _phone_number(number, region):
                    wrapped = (joined.start(), number, [line, following[0]])
    for match in PHONE.finditer(text):
        if wrapped is not None and match.start() >= wrapped[0]:
            break
        number = match.group().strip(" ./-")
        if _phone_number(number, region):
            yield match.start(), number, [line]
    if wrapped is not None:
        yield wrapped


def phone_candidates(document: Document, anchors: Sequence[Line], email: Candidate[str] | None,
                      region: str | None) -> Iterator[Candidate[str]]:
    """Phone numbers with a phone label (same cell, cell to the left, line above or below) or standing
    alone next to the buyer's e-mail; never a fax, a PO box, a postcode or another party's number."""
    email_rows: set[tuple[int, int]] = set()
    if email is not None:
        wanted = email.value.casefold()
        email_rows = {(line.page, line.row) for line in document.lines
                      if "@" in line.text and wanted.split("@")[0] in line.text.casefold()}
    for line in document.lines:
        if not re.search(r"\d{2}", line.text):
            continue
        labelled_line = PHONE_LABEL.search(line.folded) is not None
        near_email = any(page == line.page and abs(row - line.row) <= 3 for page, row in email_rows)
        previous = previous_lines(document, line, 1)
        label_above = bool(previous) and PHONE_LABEL.search(previous[0].folded) is not None
        following = document.next_lines(line, 1)
        label_below = bool(following) and PHONE_LABEL.search(following[0].folded) is not None
        if not (labelled_line or near_email or label_above or label_below):
            continue
        for start, text, lines in _phone_matches(document, line, region):
            # The label stands before the number in its cell, or alone in the cell to its left.
            own = line.cell_at(start)
            before = line.folded[own.start : start][-30:] if own is not None and own.start < start else ""
            left = [cell for cell in line.cells if cell.end <= start]
            if not before.strip() and left:
                before = fold(left[-1].text)
            if NOT_PHONE_BEFORE.search(line.folded[max(0, start - 20) : start]) and not PHONE_LABEL.search(before):
                continue  # a PO box, a postcode or a reference number, not a phone
            fax_near = FAX_LABEL.search(before)
            phone_near = PHONE_LABEL.search(before)
            if fax_near and (phone_near is None or fax_near.start() > phone_near.start()):
                continue
            if not phone_near and previous and FAX_LABEL.search(previous[0].folded) \
                    and not PHONE_LABEL.search(previous[0].folded):
                continue
            only_number = re.fullmatch(r"[\s\d()+./x-]*", line.text.replace(text, "")) is not None
            if phone_near:
                score = 0.45
            elif label_above and (only_number or len(previous[0].folded.strip()) < 30):
                score = 0.45
            elif label_below:
                score = 0.35
            elif near_email and only_number:
                score = 0.45
            else:
                continue
            if other_party(document, line, start):
                continue
            score += block_bonus(document, line, anchors)
            if near_email:
                score += 0.2
            if CONTACT_POSITIVE.search(context_above(document, line, 2)):
                score += 0.1
            if _letterhead_zone(document, line):
                score += 0.1  # the buyer's own letterhead or footer line
            yield Candidate(text, line.page, quote_lines(lines), score, "phone")

