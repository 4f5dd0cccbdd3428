"""The buyer's e-mail: every e-mail of the document (also one split over two table lines, or whose '@' the
text layer lost), scored by its label ('E-mail', 'メール', '邮箱', 'Адрес электронной почты', 'e-posta'...),
the buyer's block, a contact or questions sentence and the letterhead; another party's out (a help desk,
a review body, an agent's or a supervisor's block)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

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
from tenderflow.extraction.offline.contact_words import CONTACT_NEGATIVE, CONTACT_POSITIVE, EMAIL, EMAIL_LABEL, LOST_AT
from tenderflow.extraction.offline.document import Document, Line, fold
from tenderflow.extraction.offline.parties import party_of


def _emails_on(document: Document, line: Line) -> Iterator[tuple[int, str, list[Line]]]:
    """(column, address, lines quoted) of the e-mails on `line`, with a domain the table wrapped onto
    the next line ('x@ville-' / 'nimes.fr') and an address whose '@' the text layer lost."""
    for match in EMAIL.finditer(line.text):
        value = match.group().rstrip(".-_")
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
        yield match.start(), value, lines
    for lost in LOST_AT.finditer(line.folded):
        local = line.text[lost.start("local") : lost.end("local")]
        domain = line.text[lost.start("domain") : lost.end("domain")]
        yield lost.start("local"), f"{local}@{domain}", [line]


def _labelled(document: Document, line: Line, start: int) -> bool:
    """Whether an e-mail label stands before the address, alone on the line above it, or in the cell on
    its left."""
    if EMAIL_LABEL.search(line.folded[max(0, start - 40) : start]):
        return True
    label_above = any(
        (EMAIL_LABEL.search(other.folded) and len(other.folded.strip()) < 40)
        or EMAIL_LABEL.search(other.folded.rstrip()[-40:]) is not None  # '... par mail à l'adresse' / 'x@y'
        for other in previous_lines(document, line, 1)
    ) and line.folded[:start].strip() == ""
    left_cell = [cell for cell in line.cells if cell.end <= start]
    return label_above or (bool(left_cell) and EMAIL_LABEL.search(fold(left_cell[-1].text)) is not None)


def _score(document: Document, line: Line, start: int, value: str, anchors: Sequence[Line]) -> float | None:
    """How surely the e-mail at `start` of `line` is the buyer's, or None when it is another party's."""
    local = re.sub(r"[._+-]+", " ", fold(value.split("@")[0]))
    party = party_of(document, line)
    if party == "other" or other_party(document, line, start) or CONTACT_NEGATIVE.search(local) \
            or re.search(r"\bhelp\b", local):
        return None
    score = 0.3 + (0.25 if _labelled(document, line, start) else 0.0)
    score += max(block_bonus(document, line, anchors), 0.2 if party == "buyer" else 0.0)
    if CONTACT_POSITIVE.search(context_above(document, line, 2)):
        score += 0.2
    if line.page == document.page_numbers[0] and line.row < 15 and \
            len(re.findall(r"[^\W\d_]{2,}", EMAIL.sub(" ", line.folded))) <= 6:
        score += 0.2  # a letterhead's contact line, not a sentence
    elif letterhead_zone(document, line):
        score += 0.1  # the first page's footer
    return score


def email_candidates(document: Document, anchors: Sequence[Line]) -> Iterator[Candidate[str]]:
    """Every e-mail of the document with how surely it is the buyer's (see the module docstring)."""
    labelled = labelled_lines(document, EMAIL_LABEL)
    for line in document.lines:
        if "@" not in line.text and line.index not in labelled:
            continue
        for start, value, lines in _emails_on(document, line):
            score = _score(document, line, start, value, anchors)
            if score is not None:
                yield Candidate(value, line.page, quote_lines(lines), score, "e-mail")
