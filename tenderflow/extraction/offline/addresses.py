"""The buyer's postal address, where a notice prints it, strongest first:

- in the buyer's block: a street address on the lines under its label or name, or a block of short
  lines under it;
- after an address label, in any script (labelled_addresses.py), or under an address heading ('The
  address(es) referred to above is (are):');
- after the buyer's name in a sentence ('… nộp trực tiếp tại văn phòng: …, Ngân hàng …, tầng 15, Tòa tháp
  BIDV, 35 Hàng Vôi, Hà Nội.');
- on a Japanese or Korean line that a postal mark opens ('〒330-9724 埼玉県…', '우)39660 경상북도 …');
- in the first page's letterhead or footer, a PO box there only as a last resort.

Another party's address is refused: one in an agent's, a supervisor's or a designer's block (parties.py),
a review body's, a meeting place, a delivery point or the works site (NOT_ADDRESS_CONTEXT).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from tenderflow.extraction.offline.buyer_words import NEGATIVE_BEFORE_LABEL
from tenderflow.extraction.offline.candidates import Candidate
from tenderflow.extraction.offline.contact_context import (
    BLOCK_LINES,
    block_bonus,
    clean_value,
    context_above,
    grounded,
    label_hits,
    letterhead_zone,
    other_party,
    quote_lines,
)
from tenderflow.extraction.offline.contact_words import (
    ADDRESS_HEADING,
    ADDRESS_LABEL,
    ADDRESS_STOP,
    ADDRESS_WORD,
    NOT_ADDRESS_CONTEXT,
    PLACE_LABEL,
    PO_BOX,
)
from tenderflow.extraction.offline.document import Document, LabelHit, Line, fold
from tenderflow.extraction.offline.labelled_addresses import address_like_anywhere, labelled_address, marked_addresses
from tenderflow.extraction.offline.parties import party_of
from tenderflow.extraction.offline.street_addresses import (
    address_after_name,
    address_at,
    address_block,
    address_sentence,
    street_in,
)


@dataclass
class _AddressSearch:
    """One document's address candidates; `seen` keeps a street from being proposed twice."""

    document: Document
    anchors: Sequence[Line]
    name: str
    seen: set[tuple[int, int]] = field(default_factory=set)

    def usable(self, line: Line, start: int) -> bool:
        """Not another party's address, nor a meeting place, a site or a delivery point."""
        return party_of(self.document, line) != "other" and not other_party(self.document, line, start) \
            and not NOT_ADDRESS_CONTEXT.search(context_above(self.document, line, 1))

    def from_line(self, line: Line, score: float, why: str) -> Iterator[Candidate[str]]:
        """The street addresses that start on `line`."""
        for start in street_in(line):
            if (line.index, start) in self.seen:
                continue
            self.seen.add((line.index, start))
            if not self.usable(line, start):
                continue
            found = address_at(self.document, line, start)
            if found is not None:
                value, lines = found
                yield Candidate(value, line.page, quote_lines(lines), score, why)

    def block(self, first: Line | None, after: Line, column: tuple[int, int] | None, score: float,
              why: str) -> Iterator[Candidate[str]]:
        """The address block below `after` (see address_block); a street beats a PO box alone."""
        if not self.usable(after, 0):
            return
        found = address_block(self.document, first, after, column, skip=self.name)
        if found is not None:
            value, lines = found
            if not PO_BOX.search(fold(value)) or ADDRESS_WORD.search(PO_BOX.sub(" ", fold(value))):
                score += 0.03  # a street address beats a PO box alone
            yield Candidate(value, lines[0].page, quote_lines(lines), score, why)

    def buyer_blocks(self) -> Iterator[Candidate[str]]:
        """Street addresses on the lines under the buyer's label or name, and the block under it."""
        blocked: set[str] = set()
        for anchor in self.anchors:
            for distance, line in enumerate([anchor, *self.document.next_lines(anchor, BLOCK_LINES)]):
                yield from self.from_line(line, 0.75 - 0.02 * distance, "buyer block")
            if anchor.folded.strip() in blocked:
                continue  # a running page header names the buyer on every page: its first block is enough
            blocked.add(anchor.folded.strip())
            cell = anchor.cells[-1] if anchor.cells else None
            column = (cell.start, cell.end) if cell is not None and len(anchor.cells) > 1 else None
            yield from self.block(None, anchor, column, 0.62, "block under the buyer")

    def after_name(self) -> Iterator[Candidate[str]]:
        """The address after the buyer's name in a sentence: up to its postcode, or to the sentence's end."""
        name = re.sub(r"\s*\([^)]*\)$", "", self.name)  # 'Ngân hàng … Việt Nam (BIDV)' is printed without it
        for line in self.document.lines if name else ():
            at = line.folded.find(name)
            tail = re.match(r"\s*,\s*", line.folded[at + len(name) :]) if at >= 0 else None
            if tail is None or not self.usable(line, at):
                continue
            found = list(address_after_name(self.document, line, at + len(name) + tail.end()))
            yield from found or self.to_sentence_end(line, at + len(name) + tail.end())

    def to_sentence_end(self, line: Line, start: int) -> Iterator[Candidate[str]]:
        """An address without a postcode after the buyer's name: the rest of its sentence, on its line and
        the next one, when it reads as an address ('tầng 15, Tòa tháp BIDV, 35 Hàng Vôi, Hà Nội.')."""
        following = self.document.next_lines(line, 1)
        lines = [line, *following]
        joined = " ".join([line.text[start:].strip(), *(other.stripped for other in following)])
        end = re.search(r"[.;。](?:\s|$)", joined)
        if end is None:
            return
        value = clean_value(joined[: end.start()])
        if end.start() <= len(line.text[start:].strip()):
            lines = [line]
        if len(value.split()) <= 15 and re.search(r"\d", value) and \
                address_like_anywhere(value, postal=False) and grounded(value, quote_lines(lines)):
            yield Candidate(value, line.page, quote_lines(lines), 0.58, "address after the name")

    def labelled(self) -> Iterator[Candidate[str]]:
        """Addresses under an address label or heading (Western streets and blocks, any script's label)."""
        for hit in label_hits(self.document, ADDRESS_LABEL):
            party = party_of(self.document, hit.line)
            if party == "other" or (PLACE_LABEL.fullmatch(hit.line.folded, hit.start, hit.end) and party != "buyer"):
                continue  # another party's address; a 'place' outside the buyer's block
            bonus = max(0.5 * block_bonus(self.document, hit.line, self.anchors), 0.1 if party == "buyer" else 0.0)
            found = labelled_address(self.document, hit)
            if found is not None and self.usable(hit.line, hit.start):
                value, lines = found
                yield Candidate(value, hit.line.page, quote_lines(lines), 0.6 + bonus, "address label")
            yield from self.western_label(hit, bonus)

    def western_label(self, hit: LabelHit, bonus: float) -> Iterator[Candidate[str]]:
        """A street near an address label, the block under an address heading or after the label (credited to
        'address label', as the value read after the label in any script), an address sentence."""
        before = hit.line.folded[: hit.start]
        if NEGATIVE_BEFORE_LABEL.search(before) and not hit.at_line_start and not re.search(r"\s{3,}$", before):
            return
        for span in self.document.spans_after(hit, below=2):
            if span.distance > 2:
                break
            yield from self.from_line(span.line, 0.6 + bonus, "address label")
        rest = hit.line.text[hit.end :]
        copula = re.match(r"^\s*(?:\(es\))?\s*(?:is|are|:|：)\s*(?:\(are\))?\s*[:：]?\s*", fold(rest))
        if ADDRESS_HEADING.search(hit.line.folded[hit.start :]):
            yield from self.block(None, hit.line, None, 0.6 + bonus, "address heading")
        elif copula is not None and rest[copula.end() :].strip():
            start = hit.end + copula.end()
            cell = hit.line.cell_at(start)
            if re.search(r"\b(?:is|are)\b", copula.group()):
                found = address_sentence(self.document, hit.line, start)
                if found is not None and self.usable(hit.line, hit.start):
                    yield Candidate(found[0], hit.line.page, quote_lines(found[1]), 0.6 + bonus, "address sentence")
            elif cell is not None:
                yield from self.block(hit.line, hit.line, (start, cell.end), 0.6 + bonus, "address label")
        elif (right := [cell for cell in hit.line.cells if cell.start > hit.end]):
            yield from self.block(hit.line, hit.line, (right[0].start, right[0].end), 0.6 + bonus, "address label")

    def postal_marks(self) -> Iterator[Candidate[str]]:
        """Japanese and Korean address lines that a postal mark opens ('〒330-9724 埼玉県…', '우)39660 …'): the
        mark is the address's label (the same rule as 'address label')."""
        for line in self.document.lines:
            if "〒" not in line.text and "우" not in line.text:
                continue
            for value, start in marked_addresses(line):
                if self.usable(line, start):
                    party = party_of(self.document, line)
                    bonus = max(0.5 * block_bonus(self.document, line, self.anchors), 0.1 if party == "buyer" else 0.0)
                    yield Candidate(value, line.page, line.stripped, 0.56 + bonus, "address label")

    def letterhead(self) -> Iterator[Candidate[str]]:
        """Street addresses in the first page's letterhead and footer; a PO box there as a last resort."""
        first = self.document.page_numbers[0] if self.document.page_numbers else None
        if first is None:
            return
        lines = [line for line in self.document.lines_of(first) if line.text.strip()]
        for line in [*lines[:12], *(line for line in lines[12:][-4:] if letterhead_zone(self.document, line))]:
            yield from self.from_line(line, 0.55, "letterhead")
            if line in lines[:12]:
                yield from self.po_boxes(line)

    def po_boxes(self, line: Line) -> Iterator[Candidate[str]]:
        """A letterhead's PO box: its block of lines, or the box alone when OCR joined the columns."""
        for cell in line.cells:
            box = PO_BOX.search(fold(cell.text))
            if box is None:
                continue
            if not cell.text[: box.start()].strip():
                yield from self.block(line, line, (cell.start, cell.end), 0.52, "letterhead PO box")
                continue
            # OCR joins the letterhead's columns: 'Telephone: +254 ... P.O. Box 30586-00100'
            text = cell.text[box.start() :]
            stop = ADDRESS_STOP.search(fold(text))
            value = clean_value(text[: stop.start()] if stop else text)
            if grounded(value, line.stripped):
                yield Candidate(value, line.page, line.stripped, 0.51, "letterhead PO box")


def address_candidates(document: Document, anchors: Sequence[Line], name: str) -> Iterator[Candidate[str]]:
    """Every address the document gives for its buyer, with how surely it is the buyer's (see the module
    docstring); `name` is the buyer's name, folded."""
    search = _AddressSearch(document, anchors, name)
    yield from search.buyer_blocks()
    yield from search.after_name()
    yield from search.labelled()
    yield from search.postal_marks()
    yield from search.letterhead()
