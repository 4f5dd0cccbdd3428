"""What a member document is to its tender: its kind, its number and its date, read from what it says.

Kinds, in their order of precedence for the fields they state (migration 0080):

    addendum       an addendum, corrigendum, amendment, Berichtigung, rectificatif, Изменения, 更正, 정정
    notice         the contract notice, or the request / invitation to tender itself
    specification  specifications, terms of reference, the tender documents
    form           forms, annexes, price schedules
    other          anything else (a cover letter)

A document's kind is decided by the first of these that says something (`classify`):

1. a person's choice (`tender_documents.kind_override`);
2. the extractor's `notice_type` 'corrigendum' (the offline extractor reads it from the title lines);
3. the title lines of page 1 (its first non-blank lines, the word near the start of a short line, so
   'any addendum issued will be published' in a sentence is no title);
4. the file name ('Addendum 2.pdf', 'Annex 3 - price form.xlsx' in a package);
5. the extractor's other notice types (a contract, prior information or award notice);
6. other.

Its number ('Addendum No. 2', 'Berichtigung Nr. 1', 'Изменения № 3') and its date of issue ('Date of
issue: 19 August 2025', 'Datum: 10.06.2022', 'от 06.04.2026') order the addenda among themselves
(`Member.order_key`); two addenda that neither tells apart (same number or none, same date or none)
are of the same date, and where they disagree the tender shows a conflict.

Pure: no database; what the merge (tenderflow.tenders.merging) reads.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from tenderflow.tenders.references import fold


class Kind(enum.StrEnum):
    """A member document's kind (migration 0080's CHECK lists the same names)."""

    ADDENDUM = "addendum"
    NOTICE = "notice"
    SPECIFICATION = "specification"
    FORM = "form"
    OTHER = "other"


KIND_RANK: dict[Kind, int] = {Kind.NOTICE: 0, Kind.SPECIFICATION: 1, Kind.FORM: 2, Kind.OTHER: 3}
"""Precedence of the kinds that are not addenda, for a field two of them state: lower wins."""

TITLE_LINES = 15
"""Non-blank lines of page 1 read as its title region."""
_TITLE_START = 12
"""A kind word counts in a title line when it starts within this many characters of the line, or
anywhere in a line of at most _SHORT_LINE characters…"""
_SHORT_LINE = 60
_LONGEST_WORD = 40
"""Longer than any word of _WORDS, folded."""
_IN_A_SENTENCE = re.compile(r"(?:any|all|each|every|an|no|of|the|this|jede[rsn]?|alle|tout|tous|toute|les|des|"
                            r"cualquier|todas|los|las|ogni|tutti)\s+$")
"""… unless a determiner leads to it: 'any addendum issued', 'all forms' are sentences, not titles."""

_WORDS: dict[Kind, tuple[str, ...]] = {
    Kind.ADDENDUM: (
        "addendum", "addenda", "corrigendum", "corrigenda", "amendment", "erratum", "errata", "clarification no",
        "berichtigung", "anderungsbekanntmachung", "anderung der bekanntmachung", "anderungsmitteilung",
        "rectificatif", "avis rectificatif", "avis modificatif", "modificatif", "rectification",
        "rectificacion", "fe de erratas", "correccion de errores", "enmienda", "adenda", "anuncio de modificacion",
        "rettifica", "avviso di rettifica", "errata corrige", "sprostowanie", "zmiana tresci", "zmiana ogloszenia",
        "rectificatie", "erata", "rectificare", "zeyilname", "duzeltme ilani", "διορθωτικο",
        "изменения", "изменение", "об изменении", "更正", "变更公告", "澄清公告", "訂正", "変更公告", "정정",
        "변경공고",
    ),
    Kind.NOTICE: (
        "contract notice", "tender notice", "notice of tender", "invitation to tender", "invitation for bids",
        "invitation for tenders", "invitation to bid", "request for tender", "request for proposal",
        "request for quotation", "request for offer", "prior information notice", "procurement notice",
        "auftragsbekanntmachung", "bekanntmachung", "ausschreibung", "angebotsaufforderung",
        "avis de marche", "avis d'appel public", "avis d'appel a la concurrence", "anuncio de licitacion",
        "bando di gara", "avviso di gara", "ogloszenie o zamowieniu", "aankondiging van een opdracht",
        "извещение о проведении", "извещение", "招标公告", "采购公告", "入札公告", "공고", "ihale ilani",
        "προκηρυξη", "anunt de participare", "aviso de licitacao", "edital",
    ),
    Kind.SPECIFICATION: (
        "technical specification", "specifications", "specification", "terms of reference", "statement of work",
        "scope of work", "tender documents", "bidding documents", "tender dossier", "conditions of tender",
        "leistungsbeschreibung", "leistungsverzeichnis", "vergabeunterlagen", "cahier des charges",
        "cahier des clauses", "cctp", "ccap", "reglement de consultation", "pliego de prescripciones",
        "pliego de clausulas", "capitolato", "disciplinare di gara", "specyfikacja", "bestek",
        "техническое задание", "документация", "招标文件", "采购文件", "仕様書", "과업지시서", "규격서", "sartname",
        "τεχνικες προδιαγραφες", "caiet de sarcini", "documentatia de atribuire",
    ),
    Kind.FORM: (
        "form", "forms", "annex", "annexe", "appendix", "attachment", "price schedule", "bill of quantities",
        "declaration", "formulaire", "bordereau des prix", "dpgf", "anlage", "formblatt", "vordruck",
        "anexo", "formulario", "allegato", "modulo", "zalacznik", "formularz", "bijlage", "приложение", "форма",
        "附件", "様式", "別紙", "서식", "별지", "παραρτημα", "anexa", "formular", "espd", "dume", "deuc", "jedz",
    ),
}
_ORDER = (Kind.ADDENDUM, Kind.NOTICE, Kind.SPECIFICATION, Kind.FORM)
"""Which kind a title line is when it names two: 'Addendum to the contract notice' is an addendum, 'DE
Formular — Auftragsbekanntmachung' a notice, 'Annex 3 – Technical specification' a specification."""

_NOTICE_TYPES = {"corrigendum": Kind.ADDENDUM, "contract_notice": Kind.NOTICE,
                 "prior_information_notice": Kind.NOTICE, "contract_award_notice": Kind.NOTICE}

_NUMBER = re.compile(
    r"(?:addendum|corrigendum|amendment|erratum|berichtigung|rectificatif|adenda|enmienda|rettifica|"
    r"sprostowanie|изменения|изменение|anderung|clarification)"
    r"\s*(?:no\.?|nr\.?|n°|nº|n\.|number|num\.?|#|№|n)?\s*[:.]?\s*(\d{1,3})\b")
_ISSUE = re.compile(
    r"(?<![^\W\d_])(?:date of issue|issue date|date issued|issued on|issued|dated|date of addendum|date|datum|vom|"
    r"date d'envoi|date de publication|date d'emission|fecha de publicacion|fecha|data|дата|от|"
    r"発行日|日付|公告日期|발행일|작성일|tarih)\b\s*[:.]?")


@dataclass(frozen=True)
class KindReading:
    """A document's kind, what decided it (override, notice_type, title, filename, none) and the words."""

    kind: Kind
    source: str
    evidence: str


@lru_cache(maxsize=1)
def _patterns() -> dict[Kind, re.Pattern[str]]:
    compiled = {}
    for kind, words in _WORDS.items():
        # Letters on either side make another word ('form' in 'information'); CJK has no spaces to look
        # for (and folding takes Hangul apart into its letters, so that is asked of the word as written).
        folded = sorted({(fold(word), _is_cjk(word)) for word in words}, key=lambda item: -len(item[0]))
        spaced = "|".join(re.escape(word) for word, cjk in folded if not cjk)
        cjk = "|".join(re.escape(word) for word, cjk in folded if cjk)
        compiled[kind] = re.compile(rf"(?<![^\W\d_])(?:{spaced})(?![^\W\d_])" + (f"|{cjk}" if cjk else ""))
    return compiled


def _is_cjk(word: str) -> bool:
    return any("\u3000" <= character <= "\u9fff" or "\uac00" <= character <= "\ud7af" for character in word)


def title_lines(first_page: str) -> list[str]:
    """The title region of page 1: its first TITLE_LINES non-blank lines, their space collapsed."""
    lines = []
    for raw in first_page.splitlines():
        line = " ".join(raw.split())
        if line:
            lines.append(line)
            if len(lines) == TITLE_LINES:
                break
    return lines


def _title_kind(lines: Iterable[str]) -> KindReading | None:
    """The kind the title lines name: an addendum when any of them says so (a print form's 'Печатная
    форма' header comes before 'Изменения извещения…'), else what the first one that names a kind
    names (_ORDER when it names two)."""
    lines = list(lines)
    first: KindReading | None = None
    for line in lines:
        reading = _line_kind(line)
        if reading is not None and reading.kind == Kind.ADDENDUM:
            return reading
        first = first or reading
    return first


def _line_kind(line: str) -> KindReading | None:
    """The kind one title line names, if it is title-like where it names it (_ORDER when it names two)."""
    patterns = _patterns()
    folded = fold(line)
    # A long line counts only a word near its start: the rest of it need not be searched.
    window = folded if len(folded) <= _SHORT_LINE else folded[:_TITLE_START + _LONGEST_WORD + 1]
    found: list[Kind] = []
    for kind in _ORDER:
        match = patterns[kind].search(window)
        if match is None or _IN_A_SENTENCE.search(folded[:match.start()]):
            continue
        if match.start() < _TITLE_START or len(folded) <= _SHORT_LINE:
            found.append(kind)
    if not found:
        return None
    return KindReading(min(found, key=_ORDER.index), "title", line[:200])


def _filename_kind(filename: str) -> KindReading | None:
    stem = re.sub(r"\.[A-Za-z0-9]{1,5}$", "", filename.replace("\\", "/").rsplit("/", 1)[-1])
    reading = _title_kind([re.sub(r"[_\-.]+", " ", stem)])
    return None if reading is None else KindReading(reading.kind, "filename", filename[:200])


def classify(
    *, notice_type: str | None, first_page: str, filename: str, override: str | None = None,
) -> KindReading:
    """The document's kind from what it says (see the module's docstring for the order)."""
    if override:
        return KindReading(Kind(override), "override", "set by hand")
    if notice_type == "corrigendum":
        return KindReading(Kind.ADDENDUM, "notice_type", "notice type: corrigendum")
    reading = _title_kind(title_lines(first_page)) or _filename_kind(filename)
    if reading is not None:
        return reading
    if notice_type in _NOTICE_TYPES:
        return KindReading(_NOTICE_TYPES[notice_type], "notice_type", f"notice type: {notice_type}")
    return KindReading(Kind.OTHER, "none", "")


def addendum_number(first_page: str, filename: str = "") -> int | None:
    """The number an addendum gives itself in its title lines (or file name): 'Addendum No. 2' → 2."""
    for text in (*title_lines(first_page), filename.replace("_", " ")):
        match = _NUMBER.search(fold(text))
        if match is not None:
            return int(match[1])
    return None


def issue_date(first_page: str) -> date | None:
    """The date the document was issued on, when a title line labels one ('Date of issue: 19 August
    2025', 'Datum: 10.06.2022', 'от 06.04.2026'): the first date after the label on that line."""
    from tenderflow.extraction.offline.dates import parse_dates  # babel's tables: only when a page is read
    for line in title_lines(first_page):
        folded = fold(line)
        for label in _ISSUE.finditer(folded):
            dates = [parsed for parsed in parse_dates(folded[label.end():label.end() + 60])
                     if parsed.start < 25]
            if dates:
                return dates[0].day
    return None
