"""Where the contract is performed: a place label's value, a NUTS code, a delivery sentence.

See identity.py for how it is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from tenderflow.extraction.offline import identity_labels as words
from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.document import Cell, Document, LabelHit, Line, fold, is_unspaced
from tenderflow.extraction.offline.labelled import (
    PLACEHOLDER,
    PROSE,
    QUOTES,
    SENTENCE_END,
    Block,
    LabelSet,
    ValueLayout,
    cell_of_label,
    find_labels,
    in_lot_section,
    is_blank,
    join_wrapped,
    label_starts_entry,
    labels,
    lines_after,
    lines_before,
    next_nonblank,
    page_weight,
    run_on_value,
    separated,
    under_section,
    value_block,
)
from tenderflow.extraction.offline.references import (
    REFERENCE_STRONG,
)
from tenderflow.extraction.offline.titles import (
    TITLE_STRONG,
    best_title,
)
from tenderflow.extraction.schema import Sourced

# --- place of performance ---------------------------------------------------------------------------------

_PLACES: Final = LabelSet(words.PLACE_LABELS, words.PLACE_FORM_LABELS, words.PLACE_EFORMS_LABELS)
_PLACE_LABELS: Final = _PLACES.pattern
"""Labels of where the contract is performed or delivered (never the bare 'place', 'lugar', 'lieu':
those are often the place of opening or submission)."""

_PLACE_SENTENCE: Final = re.compile(
    r"\s+(?:is|will be|shall be|est|sera|ist|liegt in|es|e|sara|jest|fica|ligt in)\s+"
    r"(?:(?:in|at|a|en|nel|nella|nei|presso|im|in der|w|em|no|na|te)\s+)?"
)
"""'<place label> è nel Comune di …' (folded): the place follows a copula in a sentence."""

_OF_THE: Final = re.compile(r"\s+(?:dell['’]|della|del|de la|du|des|of the|of|der|de)\s*\w+")
"""What may stand between a place label and its copula: 'luogo di svolgimento DELL'APPALTO è …'."""

_NUTS_LABEL: Final = labels(list(words.NUTS_LABELS))
_NUTS_SPACED: Final = {fold(label).replace("-", " ") for label in words.NUTS_LABELS}
_NUTS_WORDS: Final = "|".join(
    sorted((r"[\s-]+".join(map(re.escape, label.split())) for label in _NUTS_SPACED), key=len, reverse=True)
)
"""The NUTS labels of every language as alternatives for a pattern on folded text, the longest first ('nuts-kod'
before 'nuts')."""

_NUTS_TAIL: Final = r"[\s-]+(?:{})\b".format(
    "|".join(sorted((label[5:] for label in _NUTS_SPACED if label.startswith("nuts ")), key=len, reverse=True))
)
"""What follows 'NUTS' in the labels that start with it ('-code', '-kod', ' koodi'): 'NUTS-kod' is a label of
its own, not the bare 'NUTS' sub-field."""

_NUTS_CODE: Final = re.compile(
    r"-?\b((?:AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|UK|NO|CH|IS|LI|"
    r"TR|AL|ME|MK|RS)[A-Z0-9]{1,3})\b"
)
"""A NUTS code of an EU/EEA/candidate country ('FRE11', 'ITF48', 'DE212')."""


def _eforms_sublabels(kind: str) -> str:
    """The eForms sub-labels of one kind (eForms labels: BT-5131 Town, BT-5071 Country subdivision …) as
    alternatives for a pattern on folded text, each only before its colon ('By: Aarhus', 'Maa: Suomi'), the
    subdivision's '(NUTS)' between ('Maaryhmittely (NUTS): Pirkanmaa (FI197)')."""
    phrases = sorted({fold(label) for label in words.PLACE_EFORMS_SUBLABELS[kind]}, key=len, reverse=True)
    alternatives = "|".join(r"\s+".join(map(re.escape, phrase.split())) for phrase in phrases)
    return rf"(?:{alternatives})(?=(?:\s*\(nuts\))?\s*[:：])"


_PLACE_SUBLABEL: Final = re.compile(
    rf"(?:(?P<town>{_eforms_sublabels('town')}|"
    r"subentidad nacional|town|city|ville|localite|commune|ort|stadt|gemeinde|localidad|ciudad|"
    r"municipio|poblacion|comune|citta|localita|miejscowosc|cidade|plaats|gemeente)"
    rf"|(?P<address>{_eforms_sublabels('address')}|"
    r"postal address|address|adresse postale|adresse|direccion postal|direccion|indirizzo|adres|"
    r"anschrift|endereco)"
    rf"|(?P<postcode>{_eforms_sublabels('postcode')})"
    rf"|(?P<code>{_eforms_sublabels('code')}|"
    rf"codigo de subentidad territorial|nuts code|code nuts|codice nuts|kod nuts|nuts(?!{_NUTS_TAIL})|"
    r"country subdivision|subdivision pays|unterteilung des landes|subdivision del pais|suddivisione paese)"
    rf"|(?P<country>{_eforms_sublabels('country')}|pais|country|pays|land|paese|kraj|staat))\b[\s:：.\-–]*"
)
"""Sub-fields of an eForms-style place block ('Town: …', 'Subentidad Nacional …', 'País …', 'NUTS code: …'), and
those of an eForms notice in every official language (its postcode is one: the block goes on over it)."""

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
        following = next_nonblank(document, line, downwards=True)
        if following is not None and not SENTENCE_END.search(line.text) and following.row == line.row + 1:
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


_PLACE_FIELD: Final = ValueLayout(4, (_PLACE_LABELS, TITLE_STRONG, REFERENCE_STRONG, _NUTS_LABEL), _PLACE_SUBLABEL)


_SCOPE_ONLY: Final = re.compile(r"داخل المملكة|inside the kingdom|within the kingdom|in the kingdom")
"""A place block that opens with the scope ('داخل المملكة', within the Kingdom) and names the region below."""


_ADDRESS_HEADER: Final = labels(["address", "delivery address", "consignee address"])
_CONSIGNEE: Final = re.compile(r"\bconsignees?\b")


def _consignee_address(document: Document) -> Candidate[str] | None:
    """The delivery address in the first row of a consignee table ('Consignee | Address | Quantity', as
    Indian GeM bids print it): the goods are delivered there."""
    for hit in find_labels(document, _ADDRESS_HEADER):
        nearby = [hit.line, *lines_before(document, hit.line, limit=2), *lines_after(document, hit.line, limit=2)]
        if not any(_CONSIGNEE.search(line.folded) for line in nearby):
            continue
        column = cell_of_label(hit)
        fragments: list[str] = []
        lines: list[Line] = []
        for other in lines_after(document, hit.line, limit=14):
            if is_blank(other):
                if fragments:
                    break
                continue
            cells = [cell for cell in other.cells if cell.overlaps(column)]
            if cells:
                if not fragments:
                    column = Cell(min(column.start, cells[0].start), max(column.end, cells[0].end), column.text)
                fragments.append(cells[0].text)
                lines.append(other)
        value = _clean_place(join_wrapped(fragments), longest=250)
        if value:
            page = document.lines_of(hit.line.page)
            block = Block((value,), tuple(page[lines[0].row : lines[-1].row + 1]), spread=True)
            return Candidate(value, block.page, block.quote, 0.7, "consignee address")
        return None
    return None


_NOT_THE_SITE: Final = re.compile(r"\b(?:opening|submission|meeting|pre-?bid|conference|map|office|box|visit)\b")
"""A 'Location' of something else than the work: the bid opening, a meeting, a map."""

_SIGNATURE_STAMP: Final = re.compile(r"digitally signed|signed by|\breason\s*:")
"""The text of a digital signature's stamp, whose 'Location:' is where it was signed."""

_NOT_FIXED: Final = re.compile(
    r"(?<![^\W_])(?:as designated|designated by|as directed|as instructed|as per|according to|in accordance with|"
    r"see|voir|siehe|vease|vedi|patrz|zie|conformement|gemass|segun|в соответствии|согласно|відповідно|"
    r"συμφωνα|conform|gore)(?![^\W_])|指定|지정"
)
"""What a place label's value says when it names no fixed place: the buyer designates it, the contract or an
annex gives it ('招标人指定地点', 'В соответствии с проектом договора', 'as designated by the Employer')."""


def _clean_place(text: str, *, longest: int = 160) -> str:
    """The place without its NUTS note ('Comune di Turi (Ba) [codice NUTS ITF48]' → 'Comune di Turi (Ba)'),
    or "" when it is no place: empty, a placeholder, a pointer to an annex, an amount or a sentence."""
    text = re.sub(r"\s*[\[(]\s*(?:codice |code |c[oó]digo |kod )?nuts[^\])]*[\])]", "", text, flags=re.IGNORECASE)
    text = _without_nuts_note(text)
    text = re.split(r"\s+(?:pin ?code|postcode|post code|pre bid)\b", text, flags=re.IGNORECASE)[0]
    text = re.sub(r"\s+", " ", text).strip().strip(QUOTES).rstrip(" .;:,|").strip()
    text = re.sub(r"^[^\sA-Za-z0-9]\s+(?=\S{2})", "", text)  # a bullet that OCR read as a letter ('ه منطقة …')
    if any(is_unspaced(character) for character in text[:4]):
        text = _unspaced_place(text)
    if not text or PLACEHOLDER.search(text) or not re.search(r"[^\W\d_]{2,}", text):
        return ""
    if len(text) > longest or _PLACE_NOT_A_PLACE.search(fold(text)) or PROSE.search(text):
        return ""
    if _ONLY_LABEL_WORDS.fullmatch(fold(text)):
        return ""  # 'Code', 'Town', 'NUTS code': a sub-field's label, not a place
    return text


_LOCATED_AT: Final = re.compile(r"^(?:位于|位於|在|於)\s*")
"""'位于嘉兴市运河湾' (located at …): the place follows."""

_CJK_CLAUSE: Final = re.compile(r"[，；,;]|です|ます|합니다|입니다")
"""A clause of a CJK sentence: a place is a name, not a sentence."""

_UNSPACED_PLACE_CHARS: Final = 40


def _unspaced_place(text: str) -> str:
    """A place in a script without spaces up to its sentence's end ('宁波市。质量要求：…' → '宁波市'), without
    '位于' (located at); "" when it is a clause of a sentence or too long for a place's name."""
    text = _LOCATED_AT.sub("", text.split("。")[0]).strip()
    if _CJK_CLAUSE.search(text) or len(text) > _UNSPACED_PLACE_CHARS:
        return ""
    return text


_NUTS_FIRST: Final = re.compile(rf"\s*(?:{_NUTS_WORDS})(?![^\W_])")
"""A place that opens with its NUTS label ('Code NUTS FRC13 …', 'NUTS code IE052 …'), in folded text."""

_NUTS_NOTE: Final = re.compile(rf"\s+[-–,]?\s*(?:{_NUTS_WORDS})(?![^\W_])")
"""A NUTS label in any language after a place ('Maribor Šifra NUTS SI032'), in folded text."""


def _without_nuts_note(text: str) -> str:
    """The place without the NUTS label and code that follow it; a place that opens with its NUTS label ('Code
    NUTS FRC13 Vernon') is kept as printed."""
    folded = fold(re.sub("[ßẞ]", "s", text))  # one letter for one: positions in it are positions in `text`
    if _NUTS_FIRST.match(folded):
        return text
    note = _NUTS_NOTE.search(folded)
    return text[: note.start()] if note is not None else text


_ONLY_LABEL_WORDS: Final = re.compile(
    rf"(?:(?:{_PLACE_SUBLABEL.pattern})|code|codice|codigo|kod|nuts|place|lieu|ort|lugar|luogo|miejsce|local"
    r"|plaats|location|site|region|region code|[\W\d_])+"
)
"""Text made only of the words of place labels and sub-labels: what is left of a label, never a place."""


def _place_from_block(block: Block) -> tuple[str, Block] | None:
    """The place a label's block states, with the lines it was read from: the town when the block is made
    of sub-fields (else its address, NUTS code or country), else the block's text."""
    found: dict[str, tuple[str, Line]] = {}
    labelled = 0
    colon = False
    # a spread block's lines enclose its label's row: it has no sub-fields of its own
    for fragment, line in zip(block.fragments, block.lines, strict=True) if not block.spread else ():
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
            return value, Block((value,), (line,))
    return None


def _labelled_places(document: Document, unfixed: list[float]) -> Iterator[Candidate[str]]:
    """Places after a place label; the score of each label whose value says the place is not fixed ('招标人指定
    地点', 'В соответствии с проектом договора', 'as designated') is added to `unfixed`."""
    for hit in find_labels(document, _PLACES):
        if in_lot_section(document, hit.line) and hit.line.page > 3:
            continue
        tail = hit.line.text[hit.end :]
        between = _OF_THE.match(fold(tail))
        sentence = _PLACE_SENTENCE.match(fold(tail), between.end() if between is not None else 0)
        if sentence is not None:
            value = _clean_place(re.split(r"[.;](?:\s|$)", tail[sentence.end() :])[0])
            if value:
                why = f"sentence {_PLACES.language(hit.label)}, {hit.label}"
                yield Candidate(value, hit.line.page, hit.line.stripped, 0.75, why)
            continue
        if not label_starts_entry(hit) or not (separated(hit) or run_on_value(document, hit)):
            continue
        if hit.label == "location" and _not_the_site(document, hit):
            continue
        block = _place_block(document, hit)
        score = round(0.78 + page_weight(hit.line.page) / 2, 3)
        if block is not None and _NOT_FIXED.search(fold(block.text)):
            unfixed.append(score)
            continue
        found = _place_from_block(block) if block is not None else None
        if found is not None:
            value, source = found
            why = f"label {_PLACES.language(hit.label)}, {hit.label}"
            yield Candidate(value, source.page, source.quote, score, why)


def _not_the_site(document: Document, hit: LabelHit) -> bool:
    """A bare 'Location' that is not where the work is done: after page 2, of an opening or a meeting, or
    the 'Location:' of a digital signature's stamp ('Digitally signed by … Reason: … Location: Athens')."""
    if hit.line.page > 2 or _NOT_THE_SITE.search(fold(hit.line.text[hit.start : hit.end + 20])):
        return True
    return any(_SIGNATURE_STAMP.search(line.folded) for line in [hit.line, *lines_before(document, hit.line, limit=6)])


def _place_block(document: Document, hit: LabelHit) -> Block | None:
    block = value_block(document, hit, _PLACE_FIELD)
    if block is not None and not separated(hit):
        block = block.with_fragments(block.fragments[:1])  # OCR run-on: its wrapping cannot be told
    if block is not None and _SCOPE_ONLY.fullmatch(fold(block.text).strip()):
        following = next_nonblank(document, block.lines[-1], downwards=True)
        block = Block((following.stripped,), (following,)) if following is not None else None
    return block


_SUBJECT_SECTION: Final = re.compile(r"\s*\d{1,2}\s?[-–.)]\s*ihale konusu")
_WHERE_LABEL: Final = re.compile(
    r"\s*[a-h]\)\s*(?:yap[ıi]lacag[ıi] yer|teslim yeri|isin yap[ıi]lacag[ıi] yer)\s*[:：]\s*"
)


def _section_places(document: Document) -> Iterator[Candidate[str]]:
    """The place in the section of a national form on what is bought: EKAP's '2 - İhale konusu … / b) Yapılacağı
    yer :' ('3 - İhalenin / a) Yapılacağı yer' is where the bids are opened)."""
    for line, value in under_section(document, _SUBJECT_SECTION, _WHERE_LABEL):
        place = _clean_place(value)
        if place:
            yield Candidate(place, line.page, line.stripped, 0.8, "place in the subject's section")
            return


def _place_candidates(document: Document, unfixed: list[float] | None = None) -> Iterator[Candidate[str]]:
    yield from _labelled_places(document, unfixed if unfixed is not None else [])
    yield from _section_places(document)
    for hit in find_labels(document, _NUTS_LABEL):
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
    found = best_title(document)
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
    else a NUTS code, else the place a delivery sentence names. When the best place label says the place is
    not fixed ('as designated by the buyer'), weaker evidence found elsewhere (a draft contract's place, a
    NUTS code) does not stand in for it: nothing."""
    unfixed: list[float] = []
    candidates = list(_place_candidates(document, unfixed))
    floor = max(unfixed, default=0.0)
    best = choose((candidate for candidate in candidates if candidate.score > floor), 0.55)
    return best.sourced() if best is not None else None
