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
    FUNCTION_END,
    FUNCTION_START,
    HEADING_REST,
    NAME_SUBLABEL,
    NAME_WORD_BEFORE,
    NEGATIVE_BEFORE_LABEL,
    ORG_WORDS,
    OTHER_FIELD_BEFORE,
    PARENT_ORG,
    PERSON,
    PERSON_PRONE,
    SECTION_HEADING,
    SECTION_PREFIX,
    TITLE_WORDS,
    WEAK_LABELS,
    WEAK_ORG,
    label_key,
)
from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.contact_context import (
    LETTERHEAD_LINES,
    MAX_NAME_WORDS,
    THRESHOLD,
    clean_value,
    grounded,
    placeholder,
    previous_lines,
    quote_lines,
)
from tenderflow.extraction.offline.contact_words import POSTCODE, STREET, STREET_WORD
from tenderflow.extraction.offline.document import SEPARATORS, Cell, Document, LabelHit, Line, Span, fold

# --- the buyer's name -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Buyer:
    """What the name search found: the chosen name, and the lines where the buyer's block starts
    (its label lines and the lines naming it), used to prefer the buyer's own contacts."""

    name: Candidate[str] | None
    anchors: tuple[Line, ...]


def _looks_like_name(value: str, *, strict: bool) -> bool:
    """Whether a label's value can be an organisation's name: short, mostly letters, no contact data,
    not another label; `strict` (running text) also wants an organisation word."""
    if not 2 <= len(value) <= 160 or placeholder(value):
        return False
    folded = fold(value)
    words = folded.split()
    if len(words) > MAX_NAME_WORDS or "@" in value or "http" in folded or "www." in folded:
        return False
    if re.search(r"[\u0600-\u06ff]", value) and re.search(r"[a-zA-Z]", value):
        return False  # Arabic and Latin letters mixed: an OCR misreading ('جامعة pl القرى')
    letters = sum(character.isalpha() for character in value)
    digits = sum(character.isdigit() for character in value)
    if letters < 3 or digits > max(4, letters // 3):
        return False
    if BUYER_LABEL.search(folded) and not ORG_WORDS.search(BUYER_LABEL.sub(" ", folded)):
        return False
    if re.match(r"^(?:(?:\d+|[ivx]+|[a-h])[.)])+\s", folded) or (len(words) == 1 and digits):
        return False  # a numbered heading ('2. Angaben zum Verfahren'), a reference ('MA20CWTC01')
    if re.match(r"^(?:(?:see|voir|siehe|vedi|ver|wie|cf|as|same|idem|n/?a|none|nil|keine|aucun|tbd)\b|\W)", folded):
        return False  # 'Wie Hauptauftraggeber siehe a)', 'see above', 'N/A'
    if re.search(r"\b(?:denominazione|indirizz|punti di contatto|names? and address|nom et adresse|"
                 r"dati|contact point|address|adresse|anschrift)", folded):
        return False
    if len(words) <= 2 and NAME_SUBLABEL.match(folded + ": x"):
        return False  # 'Name', 'Official name': a field's label, not its value
    if len(words) == 1 and len(folded) < 12 and ORG_WORDS.fullmatch(folded.strip("() ")):
        return False  # 'County', 'the Department': a role, not a name
    if PERSON.match(folded):
        return False  # 'M. le maire', 'Mrs Jane Doe': a person, not the organisation
    has_org = ORG_WORDS.search(folded) is not None
    if STREET.search(folded) and (not has_org or STREET.match(folded)):
        return False  # 'Olshausenstraße 62' is where the buyer is, not who
    if strict and not has_org:
        return False
    if not has_org:
        # A name without an organisation word must at least look like one: capitalised words, no verb-ish
        # sentence ('shall', 'will', ...), not too long.
        if len(words) > 10 or re.search(r"\b(?:shall|will|must|may|should|is|are|be|the following)\b", folded):
            return False
        if not value[:1].isupper() and not value[:1].isdigit():
            return False
    return True


_NAME_CUT: Final = re.compile(
    r"\s+[-–—]\s+(?=(?:" + STREET_WORD + r")\b|\d)"
    r"|,\s*(?=(?:" + STREET_WORD + r")\b\.?\s|\d{2,}|(?:tel|tél|phone|fax|c\.?f|p\.?\s?iva|vat|siret|nip|e-?mail"
    r"|pec|courriel)\b|http|www)"
    r"|\s+\|\s+|\s+\(?(?:tel|tél|phone|fax)\b|\s+[-–]\s+\d[\d.]+$|\s*\*+\s*$"
    r"|(?<=\S)\s+(?:[^\s:：]+\s+)?[^\s:：]+\s*[:：]"
)


_GENITIVE_BEFORE: Final = re.compile(
    r"(?<![^\W_])(?:der|des|of the|of|de la|de l'|du|della|dello|dell'|del|dei|degli|delle|van de|van het|van)\s*$"
)
"""An article or preposition of possession before an organisation word: the line names something of it."""


def _proper_name(value: str) -> bool:
    """Whether every word of a name read from a sentence is capitalised but its small linking words
    ('Comune di Serino', not 'Government are not lost')."""
    for word in re.findall(r"[^\W\d_][\w'’-]*", value):
        if not word[0].islower() or len(word) <= 3 or FUNCTION_END.fullmatch(fold(word)):
            continue
        return False
    return True


def _strong_org(folded: str) -> bool:
    """Whether a folded line names an organisation on its own: an organisation word that is not also
    a title word, or one followed by what it is of ('Department of Health', 'Office de ...')."""
    for match in ORG_WORDS.finditer(folded):
        if not WEAK_ORG.fullmatch(match.group()):
            return True
        if re.match(r"\s+(?:of|de|du|des|di|del|della|für|fur|van)\s", folded[match.end() :]):
            return True
    return False


def _cut_name(text: str) -> str:
    """The name alone: without the address, phone or codes that follow it on the same line."""
    folded = fold(text)
    match = _NAME_CUT.search(folded)
    value = text[: match.start()] if match else text
    return clean_value(value).rstrip(" .-–")


def _continued(document: Document, line: Line, value: str, column: int) -> tuple[str, list[Line]]:
    """A name wrapped on the next line ('... Department of the' / 'Premier and Cabinet', 'Communauté
    d'agglomération' / 'du Pays de …'): after a linking word, or onto a line that opens with one."""
    ends_open = FUNCTION_END.search(fold(value)) is not None
    for following in document.next_lines(line, 1):
        if following.row != line.row + 1 and not ends_open:
            break
        cell = following.cell_at(max(column - 2, 0))
        if cell is None or cell.start > column + 20:
            break
        if not ends_open and not (abs(cell.start - column) <= 3 and cell.text[:1].islower()
                                  and FUNCTION_START.match(fold(cell.text)) and ":" not in cell.text):
            break
        addition = _cut_name(cell.text)
        if addition and len(addition.split()) <= 8:
            return f"{value} {addition}", [line, following]
    return value, [line]


def _label_names(document: Document) -> Iterator[tuple[Candidate[str] | None, Line]]:
    """Names read after a buyer label (same cell, right, below, next line, a 'Name:' field under a
    heading, or a sentence 'the contracting authority is X'), with the label's line; a label that
    heads a field without a readable name still marks where the buyer's block starts (None)."""
    for hit in document.find(BUYER_LABEL):
        before = hit.line.folded[: hit.start]
        if NEGATIVE_BEFORE_LABEL.search(before) and not NAME_WORD_BEFORE.search(before[-40:]):
            continue
        if OTHER_FIELD_BEFORE.search(before[-60:]):
            continue
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
        if how == "sentence":
            score = min(score, 0.66)
        yield Candidate(value, lines[0].page, quote_lines(lines), score, f"label {hit.label!r} ({how})"), hit.line


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
                if _looks_like_name(value, strict=True) and (pattern is _INVITATION_AR or _proper_name(value)):
                    yield Candidate(value, line.page, line.stripped, 0.6, "invitation")


def _name_after(document: Document, hit: LabelHit, structured: bool, *,
                strict: bool) -> tuple[str, list[Line], str] | None:
    """The first plausible name among the places a label's value may stand."""
    line = hit.line
    rest = line.text[hit.end :]
    if not structured:
        copula = COPULA.match(fold(rest))
        if copula is not None:
            value = _cut_name(rest[copula.end() :])
            if _looks_like_name(value, strict=True) and _proper_name(value):
                return value, [line], "sentence"
        elif hit.at_line_start:
            # OCR loses the column gap of a form row ('Organisation Chain National Project ...||PSG COLLEGE'):
            # a capitalised organisation right after a line-starting label is still its value.
            value = _cut_name(rest.split("||")[-1])
            if _looks_like_name(value, strict=True) and _proper_name(value) and value[:1].isupper():
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
        text = text.split("||")[-1]  # 'Ministry X||Department Y||PSG College': the chain's last link
        value = _cut_name(text)
        if span.how == "same":
            copula = COPULA.match(fold(value))
            named = _cut_name(value[copula.end() :]) if copula is not None and copula.end() > 0 else ""
            if named and _looks_like_name(named, strict=True) and _proper_name(named):
                return named, [span.line], "sentence"
        if _looks_like_name(value, strict=strict or (section and span.how in ("right", "next"))):
            if column < 0:
                column = span.line.text.find(text.strip()[:10]) if text.strip() else 0
            full, lines = _continued(document, span.line, value, max(column, 0))
            if grounded(full, quote_lines(lines)):
                return full, lines, span.how
    for following in document.next_lines(line, 3):
        sublabel = NAME_SUBLABEL.match(following.folded)
        if sublabel is not None:
            value = _cut_name(_cell_from(following, sublabel.start("value")))
            if _looks_like_name(value, strict=True):
                full, lines = _continued(document, following, value, _column_of(following, sublabel.start("value")))
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
    first = _cut_name(block[0].text.strip())
    value, lines = _continued(document, block[0], first, column)
    if _looks_like_name(value, strict=True) and grounded(value, quote_lines(lines)):
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
        if _looks_like_name(value, strict=True) and len(value.split()) <= 8:
            yield Candidate(value, line.page, line.stripped, 0.65, "definition")


_DEFINED_ACRONYM: Final = re.compile(
    r"(?P<name>[A-ZÀ-ÖØ-Ý][^\s.;:,()]*(?:\s+(?:[A-ZÀ-ÖØ-Ý][^\s.;:,()]*|of|for|and|de|du|des|la|le|et|d[’']\S+|"
    r"l[’']\S+|y|del|della|di|und|für|van|&)){1,9})\s+\((?P<acronym>[A-Z]{2,6})\)"
)


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
        for match in _DEFINED_ACRONYM.finditer(joined):
            name = clean_value(re.sub(r"^(?:la|le|les|l[’']|the|el|il|der|die|das)\s+", "", match.group("name"),
                                 flags=re.IGNORECASE))
            if match.group("acronym") not in found and _looks_like_name(name, strict=True):
                quoted = [line] if match.end() <= len(line.stripped) else [line, page[position + 1]]
                found[match.group("acronym")] = (f"{name} ({match.group('acronym')})", quoted)
    if not found:
        return
    text = "\n".join(line.text for line in document.lines)
    counts = {acronym: len(re.findall(rf"\b{acronym}\b", text)) for acronym in found}
    best = max(counts, key=lambda acronym: counts[acronym])
    runner_up = max((count for acronym, count in counts.items() if acronym != best), default=0)
    value, quoted = found[best]
    if counts[best] >= 5 and counts[best] >= 2 * runner_up and grounded(value, quote_lines(quoted)):
        yield Candidate(value, quoted[0].page, quote_lines(quoted), 0.5, "defined acronym")


def _letterhead_names(document: Document) -> Iterator[Candidate[str]]:
    """An organisation named at the top of the first page with text, or in a letter's return-address
    line ('Umweltbundesamt | Postfach 1406 | 06813 Dessau-Roßlau')."""
    for page in document.page_numbers[:2]:
        lines = [line for line in document.lines_of(page) if line.text.strip()]
        if len(lines) < 2:
            continue
        top = lines[:LETTERHEAD_LINES]
        for position, line in enumerate(top):
            above = document.lines_of(page)[line.row - 1] if line.row > 0 else None
            if above is not None and above.text.strip() and TITLE_WORDS.search(above.folded):
                continue  # the second line of a title ('... SERVIZIO TRASPORTO' / 'ALUNNI COMUNE DI TURI')
            parts = [part.strip() for part in line.text.split("|")]
            if len(parts) >= 3 and POSTCODE.search(fold(parts[-1])) and not parts[0][:1].isdigit():
                value = _cut_name(parts[0])
                if _looks_like_name(value, strict=True):
                    yield Candidate(value, page, line.stripped, 0.6, "return address")
                continue
            for cell in line.cells:
                value = _cut_name(cell.text)
                folded = fold(value)
                if not _looks_like_name(value, strict=True) or TITLE_WORDS.search(folded) or not _strong_org(folded):
                    continue
                if all(_GENITIVE_BEFORE.search(folded[: match.start()]) for match in ORG_WORDS.finditer(folded)):
                    continue  # 'Reinigung der Schulgebäude der Stadt': something of the city, not the city
                if len(value.split()) > 12 or re.search(r"[.:;!?]\s", value) or "," in value[:3] or \
                        re.search(r"\d{4}", value) or not _proper_name(value):
                    continue
                full, quoted = _continued(document, line, value, cell.start)
                if full == value and position + 1 < len(top):
                    following = top[position + 1].cell_at(max(cell.start - 2, 0))
                    if following is not None and following.text[:1].islower() and \
                            (FUNCTION_END.fullmatch(fold(following.text.split()[0])) or
                             following.text.split()[0].endswith(".")) and \
                            not ORG_WORDS.search(fold(following.text)) and len(following.text.split()) <= 8 \
                            and not re.search(r"\d", following.text):
                        full, quoted = f"{value} {following.text.strip()}", [line, top[position + 1]]
                score = 0.55
                if PARENT_ORG.match(folded) and position + 1 < len(top):
                    score = 0.45
                if grounded(full, quote_lines(quoted)):
                    yield Candidate(full, page, quote_lines(quoted), score, "letterhead")
        return


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
    candidates.extend(_letterhead_names(document))
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

