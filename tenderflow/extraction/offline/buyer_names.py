"""The buyer's name: read after a buyer label, from a definition or an invitation sentence, from an
acronym the first page defines, or from the first page's letterhead; with the lines where its block starts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.offline.buyer_words import (
    BUYER_LABEL,
    COPULA,
    DEFINITION,
    HEADING_REST,
    NAME_SUBLABEL,
    NAME_WORD_BEFORE,
    NEGATIVE_BEFORE_LABEL,
    ORG_WORDS,
    OTHER_FIELD_BEFORE,
    OTHER_PARTY_LABEL,
    PERSON_PRONE,
    SECTION_HEADING,
    SECTION_PREFIX,
    SUBUNIT,
    WEAK_LABELS,
    label_key,
    label_rule,
)
from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.contact_context import (
    THRESHOLD,
    clean_value,
    grounded,
    label_hits,
    previous_lines,
    quote_lines,
)
from tenderflow.extraction.offline.document import SEPARATORS, Cell, Document, LabelHit, Line, Span, fold
from tenderflow.extraction.offline.letterheads import heading_names, letterhead_names, signatory_names
from tenderflow.extraction.offline.name_shapes import (
    continued,
    cut_name,
    looks_like_name,
    proper_name,
    without_subunit,
)
from tenderflow.extraction.offline.parties import heads_name_field

# --- the buyer's name -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Buyer:
    """What the name search found: the chosen name, and the lines where the buyer's block starts
    (its label lines and the lines naming it), used to prefer the buyer's own contacts."""

    name: Candidate[str] | None
    anchors: tuple[Line, ...]


def _label_names(document: Document) -> Iterator[tuple[Candidate[str] | None, Line]]:
    """Names read after a buyer label (same cell, right, below, next line, a 'Name:' field under a
    heading, or a sentence 'the contracting authority is X'), with the label's line; a label that
    heads a field without a readable name still marks where the buyer's block starts (None)."""
    for hit in label_hits(document, BUYER_LABEL):
        if any(other.start() <= hit.start and hit.end <= other.end()
               for other in OTHER_PARTY_LABEL.finditer(hit.line.folded)):
            continue  # 'οικονομικός φορέας' (the bidder), not 'φορέας'
        before = hit.line.folded[: hit.start]
        if NEGATIVE_BEFORE_LABEL.search(before) and not NAME_WORD_BEFORE.search(before[-40:]):
            continue
        if OTHER_FIELD_BEFORE.search(before[-60:]):
            continue
        if not heads_name_field(document, hit):
            continue  # 'Koper' (a town), 'Comprador' (a role): eForms' buyer heading only over its name field
        weak = label_key(hit.label) in WEAK_LABELS
        after = hit.line.folded[hit.end :]
        if re.match(r"^\s*['’]s\b", after):
            continue  # "Employer's Liability": a possessive, not the label
        # A label heads a field when a colon follows it, when it ends a short cell of its own (a form's
        # key column, GeM's 'मंत्रालय का नाम /Ministry/State Name'), or when it starts its line or column
        # and only heading words follow; in running text it needs a sentence ('X is the ... authority').
        strict = label_key(hit.label) in PERSON_PRONE
        cell = hit.line.cell_at(hit.start)
        ends_cell = cell is not None and not hit.line.text[hit.end : cell.end].strip(SEPARATORS + " ()") and \
            len(cell.text) <= 60 and len(hit.line.cells) > 1
        heads_line = hit.at_line_start or SECTION_PREFIX.fullmatch(before.strip()) is not None \
            or re.search(r"\s{3,}$", before) is not None
        structured = ends_cell or re.match(r"^\s*(?:\([^)]{0,40}\))?\s*[*:：]", after) is not None or (
            heads_line and HEADING_REST.match(after) is not None)
        score = (0.62 if weak else 0.72) + (0.05 if structured else 0.0)
        found = _name_after(document, hit, structured, strict=strict)
        if found is None:
            yield None, hit.line
            continue
        value, lines, how = found
        value = without_subunit(value)
        if SUBUNIT.match(fold(value)):
            score -= 0.25  # 'Issued by: Purchasing Department': the organisation named elsewhere comes first
        if how == "sentence":
            score = min(score, 0.66)
        yield Candidate(value, lines[0].page, quote_lines(lines), score, f"{label_rule(hit.label)} ({how})"), hit.line


_INVITATION: Final = re.compile(
    r"(?:^\s*(?:\d{1,2}[.)]?|[a-zA-Z][.)]?|[ivx]+[.)])\s+|^\s*|[.;:,]\s+)"
    r"(?:[Tt]he\s+|[Ll]a\s+|[Ll]e\s+|[Ll][’']|[Ee]l\s+|[Ii]l\s+)?"
    r"(?P<name>[A-ZÀ-ÖØ-Ý][^\s.;:,]*(?:\s+(?:[A-ZÀ-ÖØ-Ý(“\"][^\s.;:,]*|of|for|and|de|du|des|la|le|et|d[’']\S+|"
    r"l[’']\S+|y|del|della|di|und|für|van|&))*)"
    r"\s+(?:now\s+|hereby\s+|herewith\s+)?(?:invites|seeks|is\s+seeking|wishes\s+to\s+(?:invite|procure|hire|engage)"
    r"|requests\s+(?:sealed\s+)?(?:bids|tenders|proposals|quotations)|hereby(?:\s+\w+|\s*$)|issues\s+(?:an?|the)\s+"
    r"(?:addendum|corrigendum|tender|invitation|request)|invite\s+(?:les|des|toutes)|lance\s+(?:un|le)\s+"
    r"|sollicite|se\s+propose|lädt|ladt|invita|convoca|zaprasza|nodigt)\b"
)
"""The sentence that opens an invitation: 'The African Centres for Disease Control and Prevention
(Africa CDC) now invites sealed Bids', 'The APEC Secretariat is seeking proposals', 'National
Cereals and Produce Board hereby amends' (matched on the text as printed: names are capitalised)."""

_INVITATION_AR: Final = re.compile(
    r"(?:تسعى|ترغب|تدعو|تعلن|يسر)\s+(?P<name>(?:[جو]امعة|وزارة|هيئة|الهيئة|شركة|[أا]مانة|بلدية|مؤسسة|المؤسسة|مديرية)"
    r"(?:\s+(?!متمثلة|ممثلة|في|إلى|الى|عن|على|بطرح)\S+){1,4})"
)
"""The same in Arabic, verb first: 'تسعى جامعة أم القرى متمثلة بعمادة ...' (the university seeks ...)."""


def _invitation_names(document: Document) -> Iterator[Candidate[str]]:
    """The organisation that invites, seeks or issues, named by the sentence's subject."""
    for line in document.lines:
        folded = line.folded
        if not re.search(r"invit|seek|hereby|issues|sollicit|propose|lance|ladt|convoca|zaprasza|nodigt", folded) \
                and not re.search(r"تسعى|ترغب|تدعو|تعلن|يسر", line.text):
            continue
        for pattern in (_INVITATION, _INVITATION_AR):
            for match in pattern.finditer(line.text):
                value = clean_value(match.group("name"))
                if looks_like_name(value, strict=True) and (pattern is _INVITATION_AR or proper_name(value)):
                    yield Candidate(value, line.page, line.stripped, 0.6, "invitation")


def _name_after(document: Document, hit: LabelHit, structured: bool, *,
                strict: bool) -> tuple[str, list[Line], str] | None:
    """The first plausible name among the places a label's value may stand."""
    line = hit.line
    rest = line.text[hit.end :]
    if not structured:
        copula = COPULA.match(fold(rest))
        if copula is not None:
            value = cut_name(rest[copula.end() :])
            if looks_like_name(value, strict=True) and proper_name(value):
                return value, [line], "sentence"
        elif hit.at_line_start:
            # OCR loses the column gap of a form row ('Organisation Chain National Project ...||PSG COLLEGE'):
            # a capitalised organisation right after a line-starting label is still its value.
            value = cut_name(rest.split("||")[-1])
            if looks_like_name(value, strict=True) and proper_name(value) and value[:1].isupper():
                return value, [line], "sentence"
        return None
    section = SECTION_HEADING.search(line.folded[: hit.start]) is not None
    for span in document.spans_after(hit, below=1):
        if span.how == "next" and not hit.at_line_start and span.line.cells and \
                span.line.cells[0].end < hit.start - 2:
            continue  # the next line stands under another column
        if span.how == "right" and _heads_column(document, span):
            continue  # 'Section I: Buyer    Review procedures': the next column's heading
        sublabel = NAME_SUBLABEL.match(fold(span.line.text)) if span.how != "same" else None
        text = span.text
        column = -1
        if sublabel is not None:
            text = _cell_from(span.line, sublabel.start("value"))
            column = _column_of(span.line, sublabel.start("value"))
        elif span.how in ("below", "next") and re.match(r"^\W*[^\W\d_]+(?:\s[^\W\d_]+)?\s*[:：]", span.text):
            continue  # another field's label ('Name of form: …' under an empty 'Name of department:')
        text = text.split("||")[-1]  # 'Ministry X||Department Y||PSG College': the chain's last link
        value = cut_name(text)
        if span.how == "same":
            copula = COPULA.match(fold(value))
            named = cut_name(value[copula.end() :]) if copula is not None and copula.end() > 0 else ""
            if named and looks_like_name(named, strict=True) and proper_name(named):
                return named, [span.line], "sentence"
        if looks_like_name(value, strict=strict or (section and span.how in ("right", "next"))):
            if column < 0:
                column = span.line.text.find(text.strip()[:10]) if text.strip() else 0
            full, lines = continued(document, span.line, value, max(column, 0))
            if grounded(full, quote_lines(lines)):
                return full, lines, span.how
    for following in document.next_lines(line, 3):
        sublabel = NAME_SUBLABEL.match(following.folded)
        if sublabel is not None:
            value = cut_name(_cell_from(following, sublabel.start("value")))
            if looks_like_name(value, strict=True):
                full, lines = continued(document, following, value, _column_of(following, sublabel.start("value")))
                return (full, lines, "name field") if grounded(full, quote_lines(lines)) else (value, [following],
                                                                                            "name field")
    if hit.at_line_start:
        return _name_above(document, hit)
    return None


def _cell_from(line: Line, start: int) -> str:
    """The text of `line` from `start` to the end of its layout cell: a sub-field's value without the
    other column's text ('Nom officiel : Ville de X          Instance chargée des recours :')."""
    cell = line.cell_at(start)
    return line.text[start : cell.end] if cell is not None and cell.start <= start else line.text[start:]


def _column_of(line: Line, start: int) -> int:
    """Where the layout cell holding position `start` begins: a sub-field's value wraps back to the column
    of its label ('Nom officiel : Ville de' / 'Saint-Martin'), not under the value's first word."""
    cell = line.cell_at(start)
    return cell.start if cell is not None and cell.start <= start else start


def _heads_column(document: Document, span: Span) -> bool:
    """Whether a cell right of a label heads a column of its own: the line under it, in its column, is a
    bare label ('Review procedures' over 'Body responsible for review procedures:'), so it is that
    column's heading, not the label's value."""
    below = document.next_lines(span.line, 1)
    if not below or below[0].row != span.line.row + 1:
        return False
    start = span.line.text.find(span.text)
    if start < 0:
        return False
    column = Cell(start, start + len(span.text), span.text)
    under = [cell for cell in below[0].cells if cell.overlaps(column) and cell.start >= start - 2]
    return bool(under) and re.search(r"[^\W\d_]{3}.*[:：]$", under[0].text.strip()) is not None


def _name_above(document: Document, hit: LabelHit) -> tuple[str, list[Line], str] | None:
    """A two-column form whose label is centred against a taller value: the value's first lines stand
    ABOVE the label's line, in the right column ('IPN - Leibniz-Institut ...' / 'auffordernde Stelle:')."""
    line = hit.line
    label_cell = line.cell_at(hit.start)
    if label_cell is None:
        return None
    right = [cell for cell in line.cells if cell.start > label_cell.end]
    column = right[0].start if right else label_cell.end + 3
    block: list[Line] = []
    for other in previous_lines(document, line, 4):
        if other.row != (block[-1].row if block else line.row) - 1:
            break
        if other.text[: column - 2].strip() or not other.text[column - 2 :].strip():
            break
        block.append(other)
    if not block:
        return None
    block.reverse()
    first = cut_name(block[0].text.strip())
    value, lines = continued(document, block[0], first, column)
    if looks_like_name(value, strict=True) and grounded(value, quote_lines(lines)):
        return value, lines, "above"
    return None


def _definition_names(document: Document) -> Iterator[Candidate[str]]:
    """'"Owner" is Camrose County.' in a definitions clause."""
    for line in document.lines:
        if "owner" not in line.folded and "employer" not in line.folded and "purchaser" not in line.folded \
                and "buyer" not in line.folded and "client" not in line.folded and "customer" not in line.folded \
                and "entity" not in line.folded and "authority" not in line.folded and "agency" not in line.folded:
            continue
        match = DEFINITION.search(line.folded)
        if match is None:
            continue
        value = clean_value(line.text[match.start("value") : match.end("value")])
        if looks_like_name(value, strict=True) and len(value.split()) <= 8:
            yield Candidate(value, line.page, line.stripped, 0.65, "definition")


_DEFINED_ACRONYM: Final = re.compile(
    r"(?P<name>[A-ZÀ-ÖØ-Ý][^\s.;:,()]*(?:\s+(?:[A-ZÀ-ÖØ-Ý][^\s.;:,()]*|of|for|and|de|du|des|la|le|et|d[’']\S+|"
    r"l[’']\S+|y|del|della|di|und|für|van|&)){1,9})\s+\((?P<acronym>[A-Z]{2,6})\)"
)


_ACRONYM_AFTER: Final = re.compile(r"\s+\((?P<acronym>[A-ZĐ]{2,6})\)")


def _defined_acronyms(text: str) -> Iterator[tuple[str, str, int]]:
    """(name, acronym, end) of each acronym `text` defines: after capitalised words ('Banque Ouest
    Africaine de Développement (BOAD)'), or after a name that opens with an organisation word and whose
    other words need not be capitalised ('Ngân hàng Đầu tư và Phát triển Việt Nam (BIDV)')."""
    for match in _DEFINED_ACRONYM.finditer(text):
        yield match.group("name"), match.group("acronym"), match.end()
    folded = fold(text)
    for match in _ACRONYM_AFTER.finditer(text):
        for org in ORG_WORDS.finditer(folded, max(0, match.start() - 80), match.start()):
            name = text[org.start() : match.start()]
            if (org.start() > 0 and text[org.start() - 1].isalnum()) or re.search(r"[.;:,()]", name):
                continue  # inside a word, or the name of an organisation before this one
            if name[:1].isupper() and len(name.split()) <= 12:
                yield name, match.group("acronym"), match.end()
            break


def _acronym_names(document: Document) -> Iterator[Candidate[str]]:
    """'la Banque Ouest Africaine de Développement (BOAD) est ...': an organisation that the document
    defines by an acronym on its first page and then names by it throughout (at least five times, twice
    as often as any other defined organisation): the document's own party, when nothing else says so."""
    first = document.page_numbers[0] if document.page_numbers else None
    if first is None:
        return
    found: dict[str, tuple[str, list[Line]]] = {}
    page = [line for line in document.lines_of(first) if line.text.strip()]
    for position, line in enumerate(page):
        joined = line.stripped + (" " + page[position + 1].stripped if position + 1 < len(page) else "")
        for raw, acronym, end in _defined_acronyms(joined):
            name = clean_value(re.sub(r"^(?:la|le|les|l[’']|the|el|il|der|die|das)\s+", "", raw, flags=re.IGNORECASE))
            if acronym not in found and looks_like_name(name, strict=True):
                quoted = [line] if end <= len(line.stripped) else [line, page[position + 1]]
                found[acronym] = (f"{name} ({acronym})", quoted)
    if not found:
        return
    text = "\n".join(line.text for line in document.lines)
    counts = {acronym: len(re.findall(rf"\b{acronym}\b", text)) for acronym in found}
    best = max(counts, key=lambda acronym: counts[acronym])
    runner_up = max((count for acronym, count in counts.items() if acronym != best), default=0)
    value, quoted = found[best]
    if counts[best] >= 5 and counts[best] >= 2 * runner_up and grounded(value, quote_lines(quoted)):
        yield Candidate(value, quoted[0].page, quote_lines(quoted), 0.5, "defined acronym")



_CACHE: list[tuple[Document, Buyer]] = []


def find_buyer(document: Document) -> Buyer:
    """The buyer's name and block anchors, computed once per document (the five functions share it)."""
    for cached, found in _CACHE:
        if cached is document:
            return found
    candidates: list[Candidate[str]] = []
    anchors: list[Line] = []
    for candidate, label_line in _label_names(document):
        if candidate is not None:
            candidates.append(candidate)
        anchors.append(label_line)
    candidates.extend(_definition_names(document))
    candidates.extend(_invitation_names(document))
    candidates.extend(_acronym_names(document))
    candidates.extend(letterhead_names(document))
    candidates.extend(signatory_names(document))
    candidates.extend(heading_names(document))
    best = choose(candidates, THRESHOLD)
    if best is not None:
        name = fold(best.value)
        for line in document.lines:
            stripped = line.folded.strip()
            if name in stripped and len(stripped) < len(name) + 40 and \
                    (stripped.startswith(name) or stripped.endswith(name)):
                anchors.append(line)
    found = Buyer(best, tuple(sorted(set(anchors), key=lambda line: line.index)))
    _CACHE[:] = [(document, found)]
    return found

