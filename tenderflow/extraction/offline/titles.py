"""The tender's title: a title label's value, else the heading of the first page that names the purchase.

See identity.py for how it is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Final

from tenderflow.extraction.offline import identity_labels as words
from tenderflow.extraction.offline import title_structures
from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.document import Document, LabelHit, Line, fold, is_unspaced
from tenderflow.extraction.offline.labelled import (
    LABEL_LIKE,
    NUMBERING,
    ORGANISATION,
    PLACEHOLDER,
    PROSE,
    QUOTES,
    SENTENCE_END,
    Block,
    LabelSet,
    ValueLayout,
    continues,
    find_labels,
    in_lot_section,
    is_blank,
    label_starts_entry,
    lines_after,
    lines_before,
    next_nonblank,
    run_on_value,
    separated,
    value_block,
)
from tenderflow.extraction.offline.memo import LastDocument
from tenderflow.extraction.offline.references import (
    ID_MARKER,
    NUMBER_LINE,
    REFERENCE_DOCUMENT,
    REFERENCE_GENERIC,
    REFERENCE_PUBLICATION,
    REFERENCE_STRONG,
    identifier_after,
)
from tenderflow.extraction.schema import Sourced

# --- title ------------------------------------------------------------------------------------------------

_TITLES: Final = LabelSet(words.TITLE_LABELS)
TITLE_STRONG: Final = _TITLES.pattern
"""Labels whose value is the tender's title."""

_PROJECT: Final = LabelSet(words.TITLE_PROJECT_LABELS)
_TITLE_PROJECT: Final = _PROJECT.pattern
"""The project's name: the title of some calls, the financing project of others ('Project: Bukhara Region Water
Supply and Sewerage Project' above 'Contract Title: …'), so it weighs less than a contract's title."""

_GENERIC: Final = LabelSet(words.TITLE_GENERIC_LABELS)
_TITLE_GENERIC: Final = _GENERIC.pattern
"""Bare 'title'/'subject' words ('Sub:' in Indian letters): the title only when they open an entry of the
first pages."""

_FORM: Final = LabelSet(words.TITLE_FORM_LABELS)
_FORM_NUMBER: Final = re.compile(r"\s*ii\s?\.\s?1\s?\.\s?1\s?[.)]?\s*")
"""The EU standard forms' title field (TED standard form labels): its label counts only after the field's
number, 'II.1.1) Nazwa:' ('Nazwa', 'Nimi' alone open the buyer's block as often)."""

# eForms labels (BT-21 Title under BG-6 Procedure)
_EFORMS: Final = LabelSet(words.TITLE_EFORMS_LABELS)
_PROCEDURE_WORDS: Final = sorted({fold(label) for group in words.PROCEDURE_EFORMS_LABELS.values() for label in group})
_PROCEDURE_HEADING: Final = re.compile(
    r"\s*\d{{1,2}}(?:\s?\.\s?\d{{1,2}})*\s?\.?\s+(?:{})\s*".format("|".join(map(re.escape, _PROCEDURE_WORDS)))
)
_SECTION_HEADING: Final = re.compile(r"\s*\d{1,2}(?:\s?\.\s?\d{1,2})*\s?\.?\s+\S")
_EFORMS_FIELDS: Final = 6
"""An eForms notice's title (BT-21): its label ('Tytuł', 'Naslov', 'Cím') counts only under the procedure's numbered
heading ('2.1. Procedura'), as the nearest heading above it, with at most a few fields between: the same word
names a lot, an organisation or an address elsewhere in the notice."""

_TITLE_NOT_OURS: Final = re.compile(
    r"\b(?:name|signature|signed|position|designation|job|contact|officer|nom|nombre|cargo|funktion|fonction|"
    r"telephone|phone|e-?mail)\b"
)
"""Words around a bare 'Title:' that make it a person's title (a signature or contact block)."""

_LOT_WORDS: Final = re.compile(r"\b(?:lot|los|lotto|lote|pakiet|perceel)\b")
_LOT_START: Final = re.compile(
    r"\s*(?:lot|los|lotto|lote|lotul|pakiet|perceel|лот|παρτιδα)\s*(?:n[°o]?|nr|no|№)?\.?\s*\d"
)
"""A line that names a lot ('Lot 1: Laboratory reagents'): a lot's name, not the tender's title."""
_JOB_TITLE: Final = re.compile(
    r"\b(?:manager|officer|director|head|coordinator|chief|president|engineer|secretary|mr|mrs|ms|dr)\b", re.I
)

_DOC_TYPE: Final = (
    r"request for (?:proposals?|quotations?|quotes?|tenders?|bids?|offers?|information|"
    r"expressions? of interest)|invitation (?:for|to) (?:bids?|tenders?|quotations?|tender)|"
    r"(?:open |e-?)?tender(?: document| notice| dossier| documents)?|notice inviting (?:e-?)?tenders?|"
    r"bid(?:ding)? documents?|standard bidding documents?|expression of interest|solicitation|request|"
    r"(?:specific |general )?procurement notice|contract notice|invitation to bid|"
    r"(?:national|international) competitive bidding|"
    r"(?:technical|financial|price|commercial) (?:bid|proposal|offer)|tender documents?|"
    r"rfp|rfq|rft|itb|ifb|itt|eoi|nit|"
    r"appel d['’ ]?offres(?: public| ouvert| restreint)*(?: national| international)?|avis de marche|"
    r"(?:avis (?:de sollicitation |d['’ ]?appel )?(?:de |a )?|appel a |sollicitation de )"
    r"manifestations? d['’ ]?interet|"
    r"avis d['’ ]?appel (?:public )?(?:a la concurrence|d['’ ]?offres)|reglement de (?:la )?consultation|"
    r"dossier de consultation(?: des entreprises)?|cahier des (?:clauses|charges)[\w '’]*|"
    r"(?:auftrags)?bekanntmachung|(?:offentliche |beschrankte )?ausschreibung|"
    r"aufforderung zur (?:abgabe eines angebot(?:e?s)?|angebotsabgabe)|angebotsaufforderung|vergabeunterlagen|"
    r"licitacion(?: publica| privada| abierta)?(?: nacional| internacional)?|anuncio de licitacion|"
    r"pliego de (?:bases y )?(?:condiciones|clausulas|prescripciones)[\w ]*?|concurso(?: publico)?|"
    r"bando(?: di gara)?|disciplinare(?: di gara)?|bando disciplinare|avviso(?: pubblico)?|"
    r"capitolato(?: speciale)?(?: d['’ ]?appalto)?|lettera d['’ ]?invito|"
    r"specyfikacja (?:istotnych )?warunkow zamowienia|s?i?wz|zapytanie ofertowe|ogloszenie o zamowieniu|"
    r"edital(?: de licitacao)?|termo de referencia|(?:aviso de )?licitacao|pregao(?: eletronico)?|"
    r"aanbestedingsleidraad|offerteaanvraag|aankondiging van een opdracht|"
    r"كراسة الشروط(?: والمواصفات)?|منافسة عامة|"
    + "|".join(fold(name) for name in words.DOCUMENT_NAMES)
)
"""What a document calls itself on its cover, in folded text."""

_HEADING: Final = re.compile(
    rf"(?:{_DOC_TYPE})(?:\s*\([^)]{{1,15}}\))?"
    r"(?:\s*(?:no|nr|n°|number|#)\.?\s*[\w./-]*\d[\w./-]*|\s+[-–—]\s+[\w./-]*\d[\w./-]*)?\s*[.:]?"
)
"""A line that only says what the document is ('REQUEST FOR PROPOSALS ("RFP") NO. 2022-01', 'Contract notice –
ABC-2025/01')."""

_PROCEDURE: Final = (
    r"procedura (?:aperta|negoziata|ristretta)|procedimiento (?:abierto|negociado|restringido)(?: simplificado)?|"
    r"open (?:procedure|tender(?:ing)?)|procedure (?:ouverte|adaptee|restreinte)|appel d['’ ]?offres ouvert|"
    r"offenes verfahren|nichtoffenes verfahren|verhandlungsverfahren|verhandlungsvergabe|freihandige vergabe|"
    r"(?:offentliche|beschrankte) ausschreibung|przetarg nieograniczony|concorrencia|pregao"
)
"""Procedure names that a cover heading may carry before the title."""

_CONNECTOR: Final = (
    r"for(?: the)?|pour(?: la| le| les| l['’ ]?)?|fur(?: die| den| das)?|zur|zum|para(?: la| el| los| las)?|"
    r"per(?: la| il| l['’ ]?| i| le)?|voor(?: de| het)?|relatif a|relative a|concernant|relativo a|relativa a|"
    r"(?:que (?:ha|han) de regir )?(?:en |para )?(?:el |la )?(?:contrato|contratacion|adjudicacion) de(?:l)?"
)
"""Words that lead from a document type to what is bought: 'Tender FOR …', '… EN EL CONTRATO DE …'."""

_INLINE_HEADING: Final = re.compile(
    rf"(?:{_DOC_TYPE})(?:\s*\([^)]{{1,15}}\))?"
    r"(?:\s+(?:national|international|public|publique|publico|ouvert|open|restricted|restreint|nacional|"
    r"internacional|e-?tender|online))*"
    r"(?:\s*(?:no|nr|n°|number|#)\.?\s*:?\s*[\w./-]*\d[\w./-]*)?"
    rf"(?:\s+(?P<procedure>{_PROCEDURE})|\s*[-–—]?\s+(?P<connector>{_CONNECTOR}))\s+(?=\S)"
)
"""A heading that goes on with the title: 'Tender for …', 'BANDO DI GARA PROCEDURA APERTA AFFIDAMENTO …'."""

_LEADING_CONNECTOR: Final = re.compile(rf"^(?:{_CONNECTOR}|na)\s+", re.IGNORECASE)
_DOC_TYPE_VALUE: Final = re.compile(
    rf"(?:{_DOC_TYPE}|{_PROCEDURE})(?:\s*\([^)]{{1,15}}\))?(?:\s*(?:no|nr|n°|number|#)?\.?\s*[\w./-]*\d[\w./-]*)?"
)
"""A 'title' that only names the document type or the procedure ('Request for Quotation (RFQ)')."""

_STARTS_WITH_TYPE: Final = re.compile(rf"(?:{_DOC_TYPE}|{_PROCEDURE})\b")

_CONTRACT_TYPE: Final = re.compile(
    r"\(?(?:goods|works|services|plant|supplies|consulting services|non-consulting services|fournitures|travaux|"
    r"prestations intellectuelles|servicios|suministros|obras|forniture|lavori|servizi|dostawy|uslugi|"
    r"roboty budowlane|(?:liefer|dienstleistungs|bau)(?:auftrag|leistungen)?(?:\s*-?\s*/\s*\w+)?)\)?\.?"
    r"|\([^)]*(?:envelope|stage|enveloppe|etape)[^)]*\)|[^\w]*(?:design|supply|installation|and|,|\s)+[^\w]*"
)
"""A cover line that only gives the kind of contract or the bidding process ('Goods', '(Two-Envelope
Bidding Process)', 'Liefer- / Dienstleistungsauftrag'): to be passed over on the way to the title."""
_LEGAL: Final = re.compile(
    r"\b(?:postepowani\w*|podstepowani\w*|procedur[ae]|procedimiento|verfahren|prowadzone|ustaw\w*|dz\.u|"
    r"d\.lgs|decreto|ley|loi|gesetz|pursuant|conformement|ai sensi|gemass|segun)\b"
)
"""A cover paragraph about the procedure or its legal basis, not the purchase."""

_NOT_A_SUBJECT: Final = re.compile(
    r"(?:table of )?contents|index|indice|sommaire|inhaltsverzeichnis|spis tresci|annex|annexe|appendix|anexo|"
    r"allegato|anlage|zalacznik|bijlage|form|forms|formulaire|formular|formulario|declaration|affidavit|"
    r"acknowledge?ment|certification|instructions|general conditions|conditions generales|part|section|volume|"
    r"chapter|capitulo|titulo|chapitre|kapitel|capitolo|rozdzial|glossary|definitions|article|articulo|"
    r"artikel|articolo|artykul|clause|clausula|klausel|paragraph|drawings?|specifications?|technical specifications?|"
    r"bill of quantities|boq|price schedule|schedule of requirements|checklist|questionnaire|confidential|"
    r"(?:le|la|el|il|lo|der|die|das|this|ce|cette|niniejsz\w*)\s+(?:present\w*|vorliegend\w*|document\w*)|"
    # the generic parts of a procedure document, in the languages of the EU forms
    r"introduction|background|preamble|general information|general provisions|overview|summary|disclaimer|"
    r"important notice|terms and conditions|(?:special |particular |general )?conditions of contract|"
    r"(?:bid|tender|bidding) data sheet|data sheet|evaluation (?:and qualification )?criteria|qualification criteria|"
    r"eligibility|scope of (?:the )?works?|scope of services|terms of reference|submission of (?:bids|tenders)|"
    r"introduccion|antecedentes|generalidades|disposiciones generales|preambule|generalites|"
    r"dispositions generales|einleitung|vorbemerkung|allgemeine (?:informationen|angaben|bestimmungen)|premessa|"
    r"informazioni generali|disposizioni generali|wprowadzenie|informacje ogolne|postanowienia ogolne|"
    r"inleiding|algemene (?:informatie|bepalingen)|introducao|disposicoes gerais|"
    r"введение|общие (?:сведения|положения)|общая информация|εισαγωγη|γενικοι οροι|introducere|"
    r"dispozitii generale|giris|genel hukumler|gioi thieu|"
    r"概要|総則|目次|개요|목차|总则|目录|说明"
)
"""Words that open the heading of a part of the document (a contents page, an annex, the introduction, the
general provisions, the data sheet), not the name of what is bought."""

_DATE: Final = re.compile(
    r"\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b|\b\d{1,2}(?:st|nd|rd|th|er)?[\s-]+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|"
    r"janv|fevr|mars|avr|mai|juin|juil|aout|sept|okt|dez|ene|abr|ago|dic|genn|febb|magg|giu|lug|ott)\w*\.?,?[\s-]+\d{4}\b"
)
"""A date in a cover line: 'Date: 27 March, 2025', '22/12/2023': no title."""

_PUBLICATION: Final = re.compile(r"\b(?:publicado|published|publie|veroffentlicht|pubblicato|opublikowano)\b")
_SALUTATION: Final = re.compile(r",\s*$|^(?:dear|sehr geehrte|madame|monsieur|estimad|gentil|szanown)", re.I)
_REFERENCE_CUT: Final = re.compile(
    r"(?<![^\W_])(?:reference|ref|expte|expediente|cig|cup|rfp no|rfq no|tender no|vergabenummer|znak sprawy)"
    r"(?![^\W_])"
)
"""Where a heading stops naming the purchase and starts giving its number ('… JAEN. EXPTE 10/2024')."""

_TITLE_FIELD: Final = ValueLayout(
    5, (TITLE_STRONG, REFERENCE_STRONG, REFERENCE_DOCUMENT, re.compile(rf"(?:{_DOC_TYPE})\s*$"))
)


def _clean_title(text: str) -> str:
    """The title without quotes, final punctuation or a leading connector ('na zakup …' → 'zakup …')."""
    text = re.sub(r"\s+", " ", text).strip().strip(QUOTES)
    text = _OCR_DEBRIS.sub("", text)
    return _LEADING_CONNECTOR.sub("", text).rstrip(" .;:,").strip(QUOTES)


_OCR_DEBRIS: Final = re.compile(r"(?:[\s.;:,]+[\\|~^_=<>{}¦©®°]+)+[\s.;:,]*$")
"""Specks a scan's OCR reads after the last word ('… Rohbauarbeiten \\ ;', '… services |'): no title ends so."""


_OPEN_END: Final = re.compile(
    r"(?<![^\W_])(?:to|for|of|the|and|or|with|by|de|du|des|la|le|les|der|die|das|den|dem|fur|zur|zum|und|et|y|di|"
    r"del|della|dei|per|para|pour|van|voor|het|dla|oraz|na|do|da|dos)\W*$"
)
"""A phrase that ends with a linking word or an article is unfinished."""


_UNSPACED_PROSE: Final = re.compile(r"。.|します|しました|です|ます|합니다|입니다|하시기|바랍니다")
"""A sentence in a script without spaces: an inner full stop, a polite verb ending."""

_SIGNATURE_STAMP: Final = re.compile(r"digitally signed|signed by|\breason\s*:", re.IGNORECASE)
"""The text of a digital signature's stamp, printed over a cover."""


def _acceptable_title(text: str, *, from_heading: bool) -> bool:
    """Whether `text` can be a title: a noun phrase of a few words, not a document type, a placeholder, a
    salutation or a sentence; for a heading also not an organisation's name, an address or a legal basis.
    A character of a script without spaces counts twice in the length: '庁舎改修工事' is a title."""
    length = len(text) + sum(is_unspaced(character) for character in text)
    if not 6 <= length <= 400 or PLACEHOLDER.search(text) or _SALUTATION.search(text):
        return False
    if _UNSPACED_PROSE.search(text) or _SIGNATURE_STAMP.search(text):
        return False
    words = re.findall(r"[^\W\d_]{2,}", text)
    if len(words) < 2 and not (len(words) == 1 and len(words[0]) >= 6):
        return False
    folded = fold(text)
    if _DOC_TYPE_VALUE.fullmatch(folded) or PROSE.search(text) or text.endswith(":"):
        return False
    if re.match(r"(?:and|y|et|und|e|ed|i|or|ou|oder|o|of|de|del|des|du|der|at|in|on|to|by|with|au|zu|bei)\b", folded):
        return False
    if _OPEN_END.search(folded):
        return False  # 'Invitation to', 'Supply of': cut where the phrase goes on (a wrap or a line OCR lost)
    if from_heading and _LOT_START.match(folded):
        return False  # 'Lot 1: Laboratory reagents': a lot's name, not the tender's
    if from_heading:
        if ORGANISATION.search(" ".join(folded.split()[:4])) or _STARTS_WITH_TYPE.match(folded):
            return False
        if re.match(rf"(?:{_NOT_A_SUBJECT.pattern})\b", folded):
            return False
        if (
            "§" in text
            or "http" in folded
            or "www." in folded
            or "@" in text
            or _PUBLICATION.search(folded)
            or (re.search(r"\.(?:pdf|docx?|xlsx?|zip)\b", folded))
        ):
            return False
        if _DATE.search(folded):
            return False
        if _LEGAL.search(folded):
            return False
        if sum(character.isdigit() for character in text) > len(text) / 3:
            return False
    return True


def _cut_at_reference(block: Block) -> Block:
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
                return block.with_fragments(kept)
        kept.append(fragment)
        words += len(folded.split())
    return block


_ANOTHER_LABEL: Final = re.compile(r"[^\W\d_]{3,}\s?[:：]\s*$")
_LABEL_WORDS: Final = 7
"""A value's first line of a few words that ends like a label ('… dieser Bekanntmachung:') is another field's
label; a longer one is a value with a speck of a scan after it."""


def _title_candidate(block: Block | None, score: float, why: str, *, from_heading: bool) -> Candidate[str] | None:
    if block is None:
        return None
    if from_heading:
        block = _cut_at_reference(block)
    if not block.fragments or (
        _ANOTHER_LABEL.search(block.fragments[0]) and len(block.fragments[0].split()) <= _LABEL_WORDS
    ):
        return None  # 'Title: Date of dispatch of this notice:': a scan ran two columns together
    text = _clean_title(block.text)
    if not _acceptable_title(text, from_heading=from_heading):
        return None
    return Candidate(text, block.page, block.quote, round(score, 3), why)


_TIERS: Final = (
    (_TITLES, 0.8, 5, "label"), (_PROJECT, 0.68, 3, "project label"), (_GENERIC, 0.7, 3, "bare label"),
    (_FORM, 0.7, 3, "form label"), (_EFORMS, 0.8, 5, "eForms label"),
)
"""Title labels by how much their value is believed, the last page they count on, and their rule's name. A
form's 'II.1.1) Nazwa' weighs what 'II.1.1) Title' has always weighed as a bare label (read first on a tie); an
eForms notice's title under its procedure's heading weighs as a title label, above a bare label elsewhere in the
notice (the French purpose's heading '2.1.1. Objet', over 'Nature du marché: Services')."""


def _labelled_titles(document: Document) -> Iterator[Candidate[str]]:
    for label_set, base, last_page, rule in _TIERS:
        for hit in find_labels(document, label_set):
            if hit.line.page > last_page or not label_starts_entry(hit) or not _title_entry(document, hit, label_set):
                continue
            block = value_block(document, hit, _TITLE_FIELD)
            if block is not None and not separated(hit):
                block = block.with_fragments(block.fragments[:1])  # OCR run-on: its wrapping cannot be told
            if label_set not in (_TITLES, _FORM, _EFORMS) and block is not None and _JOB_TITLE.search(block.text):
                continue
            score = base + (0.0 if hit.line.page <= 2 else -0.15) + (0.05 if hit.label == "boq title" else 0.0)
            if block is not None and _displaced(document, block):
                block = _before_debris(block)
                score -= 0.2
            why = f"{rule} {label_set.language(hit.label)}, {hit.label}"
            candidate = _title_candidate(block, score, why, from_heading=False)
            if candidate is not None:
                yield candidate


def _title_entry(document: Document, hit: LabelHit, label_set: LabelSet) -> bool:
    """Whether a title label opens a form's entry of the tender's own title: set off from its value (or run on
    it in an OCR line), not 'Sub-total', not under a lot's heading, not a person's title."""
    if label_set is _FORM and not _FORM_NUMBER.fullmatch(fold(hit.line.text[: hit.start])):
        return False  # 'Nazwa' without the form's 'II.1.1)': maybe the buyer's name
    if label_set is _EFORMS and not _under_procedure(document, hit):
        return False  # 'Naslov', 'Cím' outside the procedure's section: an address, a lot's title
    if not separated(hit) and not (label_set in (_TITLES, _FORM, _EFORMS) and run_on_value(document, hit)):
        return False
    if hit.label == "sub" and not re.match(r"\s*[:.]\s", hit.line.text[hit.end :]):
        return False  # 'Sub: …', not 'Sub-total'
    before = fold(hit.line.text[: hit.start])
    if _LOT_WORDS.search(before) or in_lot_section(document, hit.line):
        return False
    return label_set is not _GENERIC or not (
        _TITLE_NOT_OURS.search(before)
        or any(_TITLE_NOT_OURS.search(line.folded) for line in lines_before(document, hit.line, limit=2))
    )


def _under_procedure(document: Document, hit: LabelHit) -> bool:
    """Whether an eForms title label stands in the procedure's section: the nearest numbered heading above it
    is the procedure's ('2.1. Procedure'), not a lot's or an organisation's ('5.1. Lot: LOT-0001', '8.1. ORG-0001')."""
    if hit.line.text[: hit.start].strip():
        return False  # the fields of the notice open their lines
    for line in lines_before(document, hit.line, limit=_EFORMS_FIELDS):
        if _SECTION_HEADING.match(line.folded):
            return _PROCEDURE_HEADING.fullmatch(line.folded) is not None
    return False


_DISPLACED: Final = re.compile(r"\s*[:：]?(?:\s+\S{1,2})*\s*")
"""A line of a separator and single characters standing apart: what a broken text layer leaves under a row
whose characters it printed elsewhere ('◦ 공사명 새만금 스마트 수변도시 단계 조성공사' over ':   1')."""


def _displaced(document: Document, block: Block) -> bool:
    """Whether a line of a value or the line under it is the debris of a broken layout: the value may lack
    characters."""
    following = next(lines_after(document, block.lines[-1], limit=1), None)
    under = [following] if following is not None and not is_blank(following) else []
    return any(_DISPLACED.fullmatch(line.text) for line in [*block.lines[1:], *under])


def _before_debris(block: Block) -> Block:
    """The block without the debris lines it ran onto."""
    kept = 1
    while kept < len(block.fragments) and not _DISPLACED.fullmatch(block.lines[kept].text):
        kept += 1
    return block.with_fragments(block.fragments[:kept]) if not block.spread else block


def _paragraph(document: Document, first: Line, *, downwards: bool, limit: int = 4) -> Block | None:
    """The single-column paragraph that starts (downwards) or ends (upwards) at `first`."""
    if len(first.cells) != 1 or LABEL_LIKE.search(first.stripped) or NUMBERING.match(first.text):
        return None
    lines = [first]
    if downwards:
        for other in lines_after(document, first, limit=limit - 1):
            if continues(lines[-1].stripped, other, first.cells[0], same_line=True, value=_TITLE_FIELD) is None:
                break
            if _new_block(lines, other) or title_structures.only_a_number(other):
                break  # a wider body text, or the line that gives the tender's number under its title
            lines.append(other)
    else:
        for other in lines_before(document, first, limit=limit - 1):
            if is_blank(other) or len(other.cells) != 1 or SENTENCE_END.search(other.stripped):
                break
            if LABEL_LIKE.search(other.stripped) or _HEADING.fullmatch(other.folded.strip()):
                break
            lines.append(other)
        lines.reverse()
    return Block(tuple(line.stripped for line in lines), tuple(lines))


def _new_block(lines: Sequence[Line], following: Line) -> bool:
    """Whether `following` starts a new block rather than continuing the paragraph of `lines`: the last
    line stopped short (the next word would have fitted on it) and `following` is much wider than any line
    of the paragraph, as body text under a heading set in a larger font ('… for' / '… schools' / 'Framework
    agreement for laptops, interactive displays, network equipment and support')."""
    widest = max(len(line.stripped) for line in lines)
    words = following.stripped.split()
    if not words:
        return False
    short = len(lines[-1].stripped) + 1 + len(words[0]) <= widest
    return short and len(following.stripped) > _WIDER * widest


_WIDER: Final = 1.3


def _is_meta(line: Line) -> bool:
    """A line that gives the document's number or publication, between a cover heading and the title."""
    folded = line.folded
    if REFERENCE_STRONG.search(folded) or REFERENCE_DOCUMENT.search(folded) or _PUBLICATION.search(folded):
        return True
    start = folded.strip()
    return bool(
        REFERENCE_PUBLICATION.match(start)
        or REFERENCE_GENERIC.match(start)
        or NUMBER_LINE.match(start)
        or _DATE.search(start)
    )


def _heading_titles(document: Document) -> Iterator[Candidate[str]]:
    """Titles read off the first page's headings (see the module docstring)."""
    if not document.page_numbers:
        return
    lines = [line for line in document.lines_of(document.page_numbers[0]) if not is_blank(line)][:40]
    for position, line in enumerate(lines):
        if len(line.cells) != 1:
            continue
        folded = _SPECKS.sub("", line.folded.strip())
        previous = next(lines_before(document, line, limit=1), None)
        if previous is not None and _goes_on(previous):
            continue  # the line goes on with the sentence of the line before
        if _HEADING.fullmatch(folded) and not (line.stripped.endswith(".") and not line.stripped.isupper()):
            yield from _around_heading(document, line)
            continue
        inline = _INLINE_HEADING.match(folded)
        opens = previous is None or is_blank(previous)  # a heading, not a sentence's next line
        if inline is not None and opens:
            offset = len(line.text) - len(line.text.lstrip())
            block = Block((line.text[offset + inline.end() :].strip(),), (line,))
            for other in lines_after(document, line, limit=4):
                following = continues(block.fragments[-1], other, line.cells[0], same_line=True, value=_TITLE_FIELD)
                if following is None:
                    break
                block = Block((*block.fragments, following), (*block.lines, other))
            candidate = _title_candidate(block, 0.72, "heading line", from_heading=True)
            if candidate is not None:
                yield candidate
            continue
        if position < 15 and _is_reference_line(line):
            start = next_nonblank(document, line, downwards=True)
            paragraph = _paragraph(document, start, downwards=True) if start is not None else None
            candidate = _title_candidate(paragraph, 0.58, "after reference line", from_heading=True)
            if candidate is not None:
                yield candidate


_SPECKS: Final = re.compile(r"(?:\s+[^\w\s()\[\]\"”»]{1,2})+$")
"""Punctuation standing alone at a line's end ('Contract notice – X/01 ;'): what a scan adds, not the text."""


def _goes_on(line: Line) -> bool:
    """Whether a sentence runs on past `line`: it ends with a comma or a word in lower case."""
    words = line.stripped.split()
    return bool(words) and (words[-1].endswith(",") or words[-1][0].islower())


def _around_heading(document: Document, heading: Line) -> Iterator[Candidate[str]]:
    """The paragraph under a document-type heading (past further headings and the lines that give the
    document's number or publication), else the paragraph just above the heading."""
    line = heading
    for _ in range(5):
        start = next_nonblank(document, line, downwards=True)
        if start is None:
            break
        folded = start.folded.strip()
        if TITLE_STRONG.match(folded) or _TITLE_GENERIC.match(folded):
            break  # a title label: its value is read as such
        if (
            _HEADING.fullmatch(folded)
            or _is_meta(start)
            or _CONTRACT_TYPE.fullmatch(folded)
            or (_STARTS_WITH_TYPE.match(folded) and len(start.cells) == 1)
        ):
            line = start
            while (following := next(lines_after(document, line, limit=1), None)) is not None and (
                following.stripped[:1].islower()
            ):
                line = following  # the rest of the number's or publication's sentence
            continue
        block = _paragraph(document, start, downwards=True)
        if block is not None:
            candidate = _title_candidate(block, 0.66, "under heading", from_heading=True)
            if candidate is not None:
                yield candidate
                return
        break
    start = next_nonblank(document, heading, downwards=False)
    if start is None or _HEADING.fullmatch(start.folded.strip()):
        return
    block = _paragraph(document, start, downwards=False, limit=3)
    if block is not None and re.match(r"[\W_]*[^\W_]", block.fragments[0]) and not block.fragments[0][:1].islower():
        candidate = _title_candidate(block, 0.56, "above heading", from_heading=True)
        if candidate is not None:
            yield candidate


def _is_reference_line(line: Line) -> bool:
    """A line that is only a reference label and its identifier ('Projektnr. 173087')."""
    found = identifier_after(line, REFERENCE_STRONG)
    if found is None:
        return False
    rest, value = found
    after = ID_MARKER.sub("", rest).strip()[len(value) :].strip(" .,:;-–—")
    return not after or re.fullmatch(_CONNECTOR, fold(after)) is not None  # 'TENDER NO. X FOR' + the title


def _structured_titles(document: Document) -> Iterator[Candidate[str]]:
    """Titles read off the structures of title_structures.py."""
    for reader in (
        title_structures.quoted_titles,
        title_structures.subject_before_document_name,
        title_structures.model_sentence,
        title_structures.above_number_line,
        title_structures.section_name,
    ):
        for found in reader(document):
            candidate = _title_candidate(found.block, found.score, found.why, from_heading=True)
            if candidate is not None:
                yield candidate


_THRESHOLD: Final = 0.55


def _read_candidates(document: Document) -> list[Candidate[str]]:
    return [*_labelled_titles(document), *_heading_titles(document), *_structured_titles(document)]


_candidates: Final = LastDocument(_read_candidates)
"""The title candidates, read once per document: the title, the place a title names and the category its
head noun gives all ask for them."""


def title(document: Document) -> Sourced[str] | None:
    """The tender's title: a title label's value, else the first page's heading (see module docstring)."""
    best = choose(_candidates(document), _THRESHOLD)
    return best.sourced() if best is not None else None


def best_title(document: Document) -> Candidate[str] | None:
    """The title `title` returns, for another field's reader to read from (nothing is recorded for the
    title field: see candidates.recording)."""
    best: Candidate[str] | None = None
    for candidate in _candidates(document):
        if candidate.score >= _THRESHOLD and (best is None or candidate.score > best.score):
            best = candidate
    return best
