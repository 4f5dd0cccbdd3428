"""Classifications: notice type, procedure type, main category, CPV codes.

An analyst reads these four off the words a tender uses for itself, not off free text:

- the notice type from the document's own heading ("Avis d'appel public à la concurrence",
  "Auftragsbekanntmachung", "बिड दस्तावेज़ / Bid Document", "ADDENDUM", "Avis d'attribution"), read only
  in the heading region of the first page; a corrigendum, award or prior information notice must say
  so in a title line (not "8. Notice of Award", not a contents entry, not "any addendum issued …"),
  and then outranks the call it refers to; a document that names the procedure under which it
  invites offers, or sets a closing time for them, is a call for competition;
- the procedure type from the legal name of the procedure ("procedura aperta", "przetarg
  nieograniczony", "Verhandlungsvergabe mit Teilnahmewettbewerb", "licitación privada"), mapped to
  the eForms code, preferring a labelled statement ("Type de procédure : …") and the first pages,
  skipping negated mentions, lists of procedures and events ("the bid opening is open to all"),
  abstaining when two different procedures are stated with the same weight;
- the main category from an explicit statement ("Type de marché de travaux", "Tipo de Contrato
  Suministros", "appalto di servizi"), else the division of the main CPV code (45 = works,
  03-44 and 48 = goods, 50-98 = services), else the head noun of the subject in the heading region
  ("Professional Engineering Services for …", "Adquisición de Servidores …"): the first category
  word of a title-like line (short, not a sentence's continuation, not a letterhead naming an
  office) or of a sentence's purpose ("… tender for supply and delivery of …");
- CPV codes next to a CPV label ("CPV - Objet principal : 34110000", "Wspólny Słownik Zamówień CPV:
  33 10 00 00-1", a "CPV" table column), main code first; a bare NNNNNNNN-N code elsewhere only when
  no label gives one and its check digit holds.

Every value is quoted with the verbatim line it was read from. For codes the validator only checks
that the quote is on its page (a code is never verbatim), so the quote must be the line that states it.

All phrases are matched on folded text (lower case, no accents, see document.fold) by a few module-
level regexes, one per lexicon, each run once per line of the pages it concerns.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Final, TypeVar, get_args

from tenderflow.extraction.offline import code_words as words
from tenderflow.extraction.offline.candidates import Candidate, choose, chosen, doubted
from tenderflow.extraction.offline.document import Document, Line, fold, is_unspaced
from tenderflow.extraction.offline.labelled import label_starts_entry
from tenderflow.extraction.offline.phrase_tables import Lexicon, scripts_of
from tenderflow.extraction.offline.references import OFFICIAL_NUMBER
from tenderflow.extraction.offline.titles import best_title
from tenderflow.extraction.schema import MainCategory, NoticeType, ProcedureType, Sourced

C = TypeVar("C", bound=str)

# Notice types: how a document calls itself in its heading.
_NOTICE_PHRASES: Final = words.NOTICE_PHRASES
_NOTICE: Final = Lexicon(_NOTICE_PHRASES)
_NOTICE_PRIORITY: Final[dict[str, float]] = {
    # An addendum to a request names the request too; an award notice names the call it followed.
    "corrigendum": 0.15,
    "contract_award_notice": 0.1,
    "prior_information_notice": 0.05,
    "contract_notice": 0.0,
    # a technical specification or terms of reference issued with a call names the call too
    "other": -0.1,
}
_HEADING_LINES: Final = 25
"""The heading region: the first non-empty lines of the first page (of the second when the first is a
cover with hardly any text)."""

_WRAPPED_TITLE_CHARS: Final = 60
_TITLE_LINES: Final = 15
"""A corrigendum, award or prior information notice says so in its title, right under the letterhead."""
_SECTION_NUMBER: Final = re.compile(r"\s*(?:\d+(?:\.\d+)*|[ivxIVX]+|[a-hA-H])[.)]\s")
_PAGE_NUMBER_AFTER: Final = re.compile(r"\S\s{3,}\d{1,3}\s*$")

_DEADLINE_LABEL: Final = Lexicon({"deadline": words.DEADLINE_LABELS})
"""A time limit for offers: a document that sets one invites offers (a call for competition)."""

# Procedure types: the legal name of the procedure, per eForms code.
_PROCEDURE_PHRASES: Final = words.PROCEDURE_PHRASES
_PROCEDURE: Final = Lexicon(_PROCEDURE_PHRASES)
_PROCEDURE_LABEL: Final = Lexicon({"procedure": words.PROCEDURE_LABELS})
_PROCEDURE_WORD: Final = words.PROCEDURE_WORDS
_PROCEDURE_VALUE_WORD: Final = re.compile(r"(" + "|".join(_PROCEDURE_WORD) + r")(?:\s*\([^)]*\))?\W*")
"""A value that is only the procedure's word ('Open', 'offen (national)'), not a label that holds one ('Tender
Type')."""
_PROCEDURE_NOT_HERE: Final = re.compile(
    # "The bid opening / pre-bid meeting is open to all bidders": an event, not the procedure.
    r"(?<![^\W_])(?:meeting|opening|session|conference|attend\w*|visit)(?![^\W_])"
)
_NEGATIVE_BEFORE: Final = re.compile(
    # "this is not an open tender", "ricorrere alla procedura negoziata qualora…", "en cas de …"
    r"(?<![^\W_])(?:not|non|nicht|kein\w*|nie|niet|pas|ni|no|ricorrere alla|recourir a|resort to|revert to|"
    r"qualora|in caso di|en cas d|in case of|falls|sofern|si la|if the)\W*(?:\w+\W+){0,3}$"
)

# Main category: explicit statements, bare category words after a label, words of the subject.
_CATEGORY_EXPLICIT: Final = Lexicon(words.CATEGORY_STATEMENTS)
_CATEGORY_MIXED: Final = re.compile(r"(?<![^\W_])(?:liefer|bau|dienst)\s?-\s?(?:/|und|oder|,)?\s?(?:liefer|bau|dienst)")
"""German compounds sharing a tail ("Liefer- / Dienstleistungsauftrag", "Bau- und Lieferleistungen"): a
form that leaves the choice open, or a mixed contract; no evidence for one category."""
_CATEGORY_WORDS: Final = words.CATEGORY_WORDS
_CATEGORY_WORD: Final = Lexicon(_CATEGORY_WORDS)
_CATEGORY_VALUE_CHARS: Final = 60
"""A labelled category is a short value ("Goods", "Supplies - purchase"), not a sentence that mentions one."""
_CATEGORY_LABEL: Final = Lexicon({"category": words.CATEGORY_LABELS})
_SUBJECT_WORDS: Final = Lexicon(words.SUBJECT_WORDS)
_CONJUNCTION: Final = re.compile(r"[\s,/&+-]*(?:and|or|ou|et|und|oder|y|o|e|i|lub|en|of|and/or|et/ou)?[\s,/&+-]*")
_ORGANISATION: Final = re.compile(
    # A buyer's or office's name ("Public Works Department", "Servizi Sociali") is no subject.
    r"(?<![^\W_])(?:ministr\w*|minister\w*|department\w*|departement\w*|departamento|direction|direccion|"
    r"direzione|directorate|division|office|bureau|settore|ufficio|secretar\w*|agency|agence|agencia|"
    r"authority|autorite|council|amt|behorde|administration|administracion|amministrazione|administracao|"
    r"verwaltung|government|gouvernement|gobierno|governo|regierung|corporation|company|limited|ltd|board|"
    r"commission|university|universite|universidad|universita|universitat|institute|institut|bank|banque|"
    r"municipal\w*|city of|county|state of|ville de|commune|comune|ayuntamiento|municipalidad|gemeinde|stadt|"
    r"public works|travaux publics|obras publicas|lavori pubblici)"
    r"(?![^\W_])"
)
_ORGANISATION_WORDS: Final = 8
"""A letterhead line naming an organisation is short; a sentence mentioning the buyer is not skipped."""
_TITLE_WORDS: Final = 12
_PURPOSE: Final = re.compile(r"(?<![^\W_])(?:for|pour|para|per|fur|zur|zum|dla)(?:\W+\w+){0,4}\W+$")
"""In a sentence, the subject follows its purpose word: '… issues an addendum on tender for supply and',
'seeking proposals for the provision of the Services'."""
_TOC_LINE: Final = re.compile(r"\.{4,}|…{2,}|_{4,}")

# CPV codes.
_CPV_LABEL: Final = Lexicon({"cpv": words.CPV_LABELS})
_CPV_MAIN: Final = re.compile(
    r"(?<![^\W_])(?:main|principal\w*|haupt\w*|glown\w*|hoofd\w*|objet principal)(?![^\W_])"
)
_CPV_CODE: Final = re.compile(
    r"(?<![\d.,/])(\d{2}) ?(\d{2}) ?(\d{2}) ?(\d{2})(?: ?[-–] ?(\d))?(?![\d]|[.,]\d)"
)
_CPV_RANGE: Final = re.compile(
    r"\d{8}(?: ?[-–] ?\d)?\s*(?:a|to|bis|au|al|hasta|do|ate|tot|[-–])\s*\d{8}"
)
_CPV_DIVISIONS: Final = frozenset(
    "03 09 14 15 16 18 19 22 24 30 31 32 33 34 35 37 38 39 41 42 43 44 45 48 50 51 55 60 63 64 65 66 70 71 72 73 "
    "75 76 77 79 80 85 90 92 98".split()
)
_CPV_WEIGHTS: Final = (3, 7, 1, 3, 7, 1, 3, 7)
_CPV_LIST_LINES: Final = 12
"""How many lines a list of codes under one label may run (main code, then additional ones)."""

_NOTICE_TYPES: Final[dict[str, NoticeType]] = {code: code for code in get_args(NoticeType)}
_PROCEDURE_TYPES: Final[dict[str, ProcedureType]] = {code: code for code in get_args(ProcedureType)}
_CATEGORIES: Final[dict[str, MainCategory]] = {code: code for code in get_args(MainCategory)}
"""The schema's code lists, to turn a lexicon's code (a str) back into the typed value."""


# --- notice type ----------------------------------------------------------------------------------


def notice_type(document: Document) -> Sourced[NoticeType] | None:
    """What the document is: a call for competition, a corrigendum/addendum, a prior information or an
    award notice, as its heading says, or an award a decision's operative part makes; else a call for
    competition when it names the procedure under which it invites offers or sets a time limit for them
    (what the other notice families never do)."""
    candidates = [*_heading_notices(document), *_decided_awards(document)]
    best = choose(candidates, threshold=0.6)
    if best is not None:
        return best.sourced()
    procedure = procedure_type(document)
    if procedure is not None:
        return chosen(Candidate[NoticeType]("contract_notice", procedure.page, procedure.quote, 0.6,
                                            "procedure named")).sourced()
    for hit in _DEADLINE_LABEL.find(document):
        return chosen(Candidate[NoticeType]("contract_notice", hit.line.page, hit.line.stripped, 0.6,
                                            "deadline label")).sourced()
    return None


def _heading_notices(document: Document) -> Iterator[Candidate[NoticeType]]:
    """The notice families the heading region names: on a line, or wrapped over two short title lines."""
    region = _heading_region(document)
    for position, line in enumerate(region):
        if _TOC_LINE.search(line.text):
            continue
        for code, match in _NOTICE.matches(line.folded):
            heading = _names_the_line(line, match) and len(line.stripped) <= 90
            if code != "contract_notice" and not (heading and position < _TITLE_LINES and _is_title(line)):
                continue  # "any addendum issued will …", "7. Notice of Award    12" name no notice family
            score = (0.8 if heading else 0.65) + _NOTICE_PRIORITY[code] - position * 0.002
            yield Candidate(_NOTICE_TYPES[code], line.page, line.stripped, score, f"heading {code}")
    for position, (line, following) in enumerate(zip(region, region[1:], strict=False)):
        # A title wrapped over two short lines ("AVIS" / "RECTIFICATIF", "AVIS D'APPEL PUBLIC" / "A LA
        # CONCURRENCE"): a phrase that runs across the break.
        if following.page != line.page or max(len(line.stripped), len(following.stripped)) > _WRAPPED_TITLE_CHARS:
            continue
        if position >= _TITLE_LINES or not (_is_title(line) and _is_title(following)):
            continue
        for code, match in _across(_NOTICE, line, following):
            if _starts_cell(line, match.start()):
                score = 0.8 + _NOTICE_PRIORITY[code] - position * 0.002
                quote = f"{line.stripped}\n{following.stripped}"
                yield Candidate(_NOTICE_TYPES[code], line.page, quote, score, f"wrapped {code}")


def _names_the_line(line: Line, match: re.Match[str]) -> bool:
    """Whether a notice family's name is what its line (or column) is about: it opens its cell, or, in a
    language that puts the head noun last, it ends its cell ('千葉県一般競争入札公告 建不第104号の80', '[긴급]
    공사입찰공고', '2026 YILI GÜBRE TEKNİK ŞARTNAMESİ'), only a number or a bracketed note after it."""
    if _starts_cell(line, match.start()):
        return True
    printed = line.text[match.start() : match.end()]
    if not (any(is_unspaced(character) for character in printed) or _HEAD_FINAL_LETTERS.search(printed)):
        return False
    cell_end = next((cell.end for cell in line.cells if cell.start <= match.start() < cell.end), len(line.text))
    return _AFTER_HEAD_NOUN.fullmatch(line.text[match.end() : cell_end]) is not None


_HEAD_FINAL_LETTERS: Final = re.compile(r"[ışğİŞĞ]")
"""Letters of Turkish, which puts a compound's head noun last ('… teknik şartnamesi')."""

_AFTER_HEAD_NOUN: Final = re.compile(
    r"\s*(?:[(（【\[][^)）】\]]{0,20}[)）】\]])?\s*(?:" + OFFICIAL_NUMBER.pattern + r")?\s*[:：]?\s*"
)
"""What may follow a head-final notice name in its cell: a bracketed note ('（個別編）'), the notice's number."""

_DECISION: Final = re.compile(
    r"\s*(?:αποφασιζ\w*|αποφασισαν|εγκριν\w*|решил[аи]?|постановля\w*|приказываю|decide|dispune|"
    r"decides?|decided|resolves?|arrete|decide ce qui suit)\s*[:.]?\s*"
)
"""A decision's operative heading, alone on its line: 'ΑΠΟΦΑΣΙΖΕΙ', 'РЕШИЛ:', 'DECIDE:', 'ARRÊTE'."""

_AWARDS: Final = re.compile(
    r"[\W\d_a-zα-ω]{0,6}?\s*(?:κατακυρων\w*|κατακυρωση\w*|αναθετ\w*|признать победител\w*|"
    r"(?:se )?atribui\w*|attribue\w*|(?:is |are )?(?:hereby )?award\w*)(?![^\W_])"
)
"""An item of an operative part that awards the contract: 'Β] Κατακυρώνει …', '1. Признать победителем …'."""

_OPERATIVE_LINES: Final = 12


def _decided_awards(document: Document) -> Iterator[Candidate[NoticeType]]:
    """An award made by a decision (Greek Diavgeia acts, minutes, resolutions): an item of its operative
    part, under the decision's heading, that awards ('ΑΠΟΦΑΣΙΖΕΙ … Β] Κατακυρώνει …')."""
    first_page = document.page_numbers[0] if document.page_numbers else 1
    for line in document.lines:
        if line.page - first_page > 2:
            return
        if not line.text.strip() or _DECISION.fullmatch(line.folded) is None:
            continue
        for item in document.next_lines(line, _OPERATIVE_LINES):
            if _AWARDS.match(item.folded):
                yield Candidate[NoticeType]("contract_award_notice", item.page, item.stripped, 0.72, "award decided")
                return


def _across(lexicon: Lexicon, line: Line, following: Line) -> Iterator[tuple[str, re.Match[str]]]:
    """The lexicon's matches that run from the end of `line` into `following` (a phrase broken by a line
    wrap); match positions before the break are positions in `line`."""
    head = line.folded.rstrip()
    for code, match in lexicon.matches(f"{head} {following.folded.strip()}"):
        if match.start() < len(head) < match.end():
            yield code, match


def _is_title(line: Line) -> bool:
    """A line that is a document's title: no section number before it, no page number after it."""
    return _SECTION_NUMBER.match(line.text) is None and _PAGE_NUMBER_AFTER.search(line.text) is None


def _heading_region(document: Document) -> list[Line]:
    """The first non-empty lines of the first page, or of the second when the first is a bare cover."""
    pages = document.page_numbers
    region: list[Line] = []
    for page in pages[:2]:
        lines = [line for line in document.lines_of(page) if line.text.strip()]
        region.extend(lines[:_HEADING_LINES])
        if len(lines) >= 5:
            break
    return region


_HEADING_PREFIX: Final = re.compile(
    r"[\W\d_]*(?:(?!(?:section|part|chapter|annex|appendix|form|clause|article|schedule|volume|lot)\b)"
    r"[^\W\d_]+(?:\s[^\W\d_]+){0,2}\s*:\s*|[^:/]{1,40}/\s*)?[\W\d_]*"
)
"""Numbering and bullets, a 'Label:' of up to three words ('Tip anunt:', 'Type of notice:'; not a part of the
document: 'Section 7: Notice of Award' is no heading), or the other language of a bilingual label ('बिड दस्तावेज़ /')."""


def _starts_cell(line: Line, column: int) -> bool:
    """Whether only numbering, bullets or a short prefix ('hier:', 'Subject:') stand before `column` in its
    cell: the phrase is what the line (or its column) is about, not a word inside a sentence."""
    cell_start = 0
    for cell in line.cells:
        if cell.start <= column < cell.end:
            cell_start = cell.start
            break
    return _HEADING_PREFIX.fullmatch(line.folded[cell_start:column]) is not None


# --- procedure type -------------------------------------------------------------------------------


def procedure_type(document: Document) -> Sourced[ProcedureType] | None:
    """The eForms procedure code of the legal procedure the document names. A labelled statement counts
    most, then the first page, then the next few; later mentions (legal boilerplate, annex forms) do not
    decide. When two different procedures are stated with about the same weight: abstain."""
    labelled_lines = _labelled_lines(document, _PROCEDURE_LABEL)
    by_code: dict[str, list[Candidate[ProcedureType]]] = {}
    first_page = document.page_numbers[0] if document.page_numbers else 1
    named = _lines_matching([line for line in document.lines if line.page - first_page <= 5], _PROCEDURE)
    for line in document.lines:
        rank = line.page - first_page
        if (rank > 5 or line.index not in named) and line.index not in labelled_lines:
            continue
        quote = line.stripped
        found = list(_PROCEDURE.matches(line.folded))
        if not found and line.index in labelled_lines:
            found = _bare_procedure_word(line)
        following = document.next_lines(line, 1) if not found and line.text.strip() else []
        if following and _starts_lowercase(following[0].stripped):
            # a name broken where a sentence wraps: "… mediante procedura" / "aperta ai sensi …" (a new
            # line that starts upper case is another item: "… Corporation Limited" / "Tender No: 73448")
            found = list(_across(_PROCEDURE, line, following[0]))
            quote = f"{line.stripped}\n{following[0].stripped}"
        if not found:
            continue
        if len({code for code, _ in found}) > 1:
            continue  # a list of procedures ("applies only to restricted, negotiated … procedures")
        code, match = found[0]
        if _NEGATIVE_BEFORE.search(line.folded[: match.start()]) or _PROCEDURE_NOT_HERE.search(quote.casefold()):
            continue
        if line.index in labelled_lines:
            score = 0.9
        else:
            score = 0.75 if rank == 0 else 0.65 if rank <= 2 else 0.55
        by_code.setdefault(code, []).append(
            Candidate(_PROCEDURE_TYPES[code], line.page, quote, score, f"procedure {code} p{line.page}")
        )
    return _decide(by_code, threshold=0.55, margin=0.1)


def _lines_matching(lines: Sequence[Line], lexicon: Lexicon) -> set[int]:
    """The indexes of those of `lines` a phrase of `lexicon` touches (a phrase may run over a line break):
    one scan of their text picks the lines worth reading one by one."""
    text = "\n".join(line.folded for line in lines)
    found: set[int] = set()
    breaks: list[int] | None = None
    scripts = scripts_of(text)
    matches = [match for script, pattern in lexicon.patterns.items() if script in scripts
               for match in pattern.finditer(text)]
    for match in matches:
        if breaks is None:
            breaks = [index for index, character in enumerate(text) if character == "\n"]
        first = bisect.bisect_left(breaks, match.start())
        last = bisect.bisect_left(breaks, max(match.end() - 1, match.start()))
        found.update(lines[position].index for position in range(first, last + 1))
    return found


def _bare_procedure_word(line: Line) -> list[tuple[str, re.Match[str]]]:
    """A labelled value that is a single word, in its cell or after the label's colon: 'Procedure: Open',
    'Verfahrensart: offen', 'Metode Pemilihan: Tender'."""
    values = [cell.text for cell in line.cells] + [line.text.rsplit(":", 1)[-1]] if ":" in line.text else []
    for text in values or [cell.text for cell in line.cells]:
        match = _PROCEDURE_VALUE_WORD.fullmatch(fold(text).strip())
        if match is not None:
            return [(_PROCEDURE_WORD[match.group(1)], match)]
    return []


def _labelled_lines(document: Document, label: Lexicon) -> set[int]:
    """Indexes of lines that carry a label's value: the label's own line and the lines just below it. A
    label starts its line or cell ("2. a) Verfahrensart"); inside a sentence ("Interesse am
    Vergabeverfahren für …") the same words label nothing."""
    indexes: set[int] = set()
    for hit in label.find(document):
        if not (hit.at_line_start or _starts_cell(hit.line, hit.start) or label_starts_entry(hit)):
            continue
        indexes.add(hit.line.index)
        for span in document.spans_after(hit, below=2):
            indexes.add(span.line.index)
    return indexes


def _decide(by_code: dict[str, list[Candidate[C]]], *, threshold: float, margin: float) -> Sourced[C] | None:
    """The code whose best evidence (plus a little for each repetition) is strongest, unless another code
    comes within `margin` of it."""
    ranked: list[tuple[float, Candidate[C]]] = []
    for candidates in by_code.values():
        best = max(candidates, key=lambda candidate: candidate.score)
        support = min(0.05, 0.01 * (len(candidates) - 1))
        ranked.append((best.score + support, best))
    ranked.sort(key=lambda pair: pair[0], reverse=True)
    if not ranked:
        return None
    if ranked[0][0] < threshold:
        doubted(ranked[0][1], ranked[0][0] / threshold)
        return None
    if len(ranked) > 1 and ranked[1][0] >= ranked[0][0] - margin:
        return None
    return chosen(replace(ranked[0][1], score=ranked[0][0])).sourced()


# --- main category --------------------------------------------------------------------------------


def main_category(document: Document) -> Sourced[MainCategory] | None:
    """Works, goods or services: an explicit statement first, then the main CPV code's division, then the
    head noun of the subject in the heading region; conflicting evidence of equal weight abstains."""
    by_code: dict[str, list[Candidate[MainCategory]]] = {}

    def add(code: str, line: Line, score: float, why: str) -> None:
        by_code.setdefault(code, []).append(Candidate(_CATEGORIES[code], line.page, line.stripped, score, why))

    first_page = document.page_numbers[0] if document.page_numbers else 1
    labelled = _labelled_lines(document, _CATEGORY_LABEL)
    stating = _lines_matching(
        [line for line in document.lines if line.page - first_page <= 2 or line.index in labelled], _CATEGORY_EXPLICIT
    )
    for line in document.lines:
        # A statement in the notice's own fields, or on its first pages; later it is mostly boilerplate
        # ("… la compra de bienes o la contratación de servicios" in general conditions).
        if line.index not in stating or (line.page - first_page > 2 and line.index not in labelled):
            continue
        if _CATEGORY_MIXED.search(line.folded):
            continue
        stated = {code for code, _ in _CATEGORY_EXPLICIT.matches(line.folded)}
        if len(stated) == 1:
            add(stated.pop(), line, 0.9 if line.index in labelled else 0.8, "explicit")
    for hit in _CATEGORY_LABEL.find(document):
        # "Tender Category   Goods", "Type of contract: Works": a bare category word as the label's value
        if not (hit.at_line_start or _starts_cell(hit.line, hit.start)):
            continue
        for span in document.spans_after(hit, below=2):
            words = {code for code, _ in _CATEGORY_WORD.matches(fold(span.text))}
            if words and len(span.text) <= _CATEGORY_VALUE_CHARS and not _CATEGORY_MIXED.search(fold(span.text)):
                if len(words) == 1:
                    add(words.pop(), span.line, 0.85, "labelled")
                break

    region = _heading_region(document)
    for line in region[:15]:
        alone = [code for code, match in _CATEGORY_WORD.matches(line.folded) if match.group() == line.folded.strip()]
        if len(alone) == 1:
            add(alone[0], line, 0.75, "heading word")
    for line in region:
        length = len(line.stripped.split())
        if _TOC_LINE.search(line.text) or (length <= _ORGANISATION_WORDS and _ORGANISATION.search(line.folded)):
            continue
        subject = list(_SUBJECT_WORDS.matches(line.folded))
        # a title is short, starts a line of its own and is no sentence ending in a full stop
        before = _sentence_before(document, line)
        titled = length <= _TITLE_WORDS and not _starts_lowercase(line.stripped) and not line.stripped.endswith(".")
        titled = titled and not before
        if subject and not titled and not _PURPOSE.search(f"{before} {line.folded[: subject[0][1].start()]}"):
            continue  # a sentence that merely mentions an audit or a service is no subject line
        if subject:
            if not _coordinated(line.folded, subject):
                add(subject[0][0], line, 0.6, "subject")
            break

    cpv = cpv_codes(document)
    if cpv:
        division = _division_category(cpv[0].value)
        if division is not None:
            by_code.setdefault(division, []).append(
                Candidate(_CATEGORIES[division], cpv[0].page, cpv[0].quote, 0.7, "cpv division")
            )
    head = _title_head(document)
    if head is not None and (head.score > _TITLE_HEAD_FALLBACK or not by_code):
        by_code.setdefault(head.value, []).append(head)
    return _decide(by_code, threshold=0.6, margin=0.05)


_HEAD_NOUNS: Final = Lexicon(words.HEAD_NOUNS)


def _title_head(document: Document) -> Candidate[MainCategory] | None:
    """The category the tender's title names: its last head noun in a language that puts it last
    ('…解体工事', '…설계용역', '…设备采购安装项目'), else its first subject word ('Supply of …', 'Поставка …',
    'ΣΥΝΤΗΡΗΣΗ …') unless coordinated with another ('works and services')."""
    found = best_title(document)
    if found is None:
        return None
    folded = fold(found.value)
    head_final = any(is_unspaced(character) for character in found.value)
    if head_final:
        heads = list(_HEAD_NOUNS.matches(folded))
        code = heads[-1][0] if heads else None
    else:
        subject = list(_SUBJECT_WORDS.matches(folded))
        code = subject[0][0] if subject and not _coordinated(folded, subject) else None
    if code is None:
        return None
    score = 0.62 if head_final else _TITLE_HEAD_FALLBACK
    return Candidate(_CATEGORIES[code], found.page, found.quote, score, "title head noun")


_TITLE_HEAD_FALLBACK: Final = 0.6
"""A title's first subject word decides only when nothing else does: the heading region's subject line and
the explicit statements weigh more ('Supply and application of insulation' is a works contract)."""


_ABBREVIATION: Final = 5
"""A word this short before a full stop is an abbreviation ('αριθ. πρωτ.', 'No.'), not a sentence's end."""


def _sentence_before(document: Document, line: Line) -> str:
    """The folded line right above `line` when `line` goes on with its sentence (it has a few words and ends
    with a comma, a word in lower case or an abbreviation: '… συγκροτήθηκε µε τον αριθ. πρωτ.' / '166/04-02-2015
    Απόφαση …'), else "". A heading of a word or two ('Plant') is no sentence."""
    above = document.lines_of(line.page)[line.row - 1] if line.row > 0 else None
    words = above.stripped.split() if above is not None else []
    if len(words) < _SENTENCE_WORDS:
        return ""
    last = words[-1]
    bare = last.rstrip(".")
    goes_on = last.endswith(",") or (bool(bare) and bare[-1].islower() and (bare == last or len(bare) <= _ABBREVIATION))
    return above.folded if above is not None and goes_on else ""


_SENTENCE_WORDS: Final = 4


def _starts_lowercase(text: str) -> bool:
    """Whether the first letter is lower case: the line continues a sentence, it is no title."""
    return next((character.islower() for character in text if character.isalpha()), False)


def _coordinated(text: str, matches: Sequence[tuple[str, re.Match[str]]]) -> bool:
    """Whether the subject's first two category words of different kinds are coordinated ("works or
    services", "Liefer- und Dienstleistungen"): a mixed subject names no head noun."""
    for (code, match), (other, following) in zip(matches, matches[1:], strict=False):
        if code != other:
            return _CONJUNCTION.fullmatch(text[match.end() : following.start()]) is not None
    return False


def _division_category(code: str) -> str | None:
    """The category a CPV division stands for: 45 works; 03-44 and 48 goods; 50-98 services."""
    division = int(code[:2])
    if division == 45:
        return "works"
    if division <= 44 or division == 48:
        return "goods"
    if division >= 50:
        return "services"
    return None


# --- CPV codes ------------------------------------------------------------------------------------


def cpv_codes(document: Document) -> list[Sourced[str]]:
    """CPV codes stated next to a CPV label (same cell, cells to the right or below, and a list of codes
    running on under it), main code first; codes of a range ('codes 74200000-1 to 74276400-8' defining
    eligible firms) are no codes of the procedure. Without any labelled code, a bare NNNNNNNN-N whose
    check digit holds. Values are NNNNNNNN-N when the check digit is printed, else NNNNNNNN."""
    main: list[Sourced[str]] = []
    other: list[Sourced[str]] = []
    seen: set[str] = set()
    for hit in _CPV_LABEL.find(document):
        target = main if _CPV_MAIN.search(hit.line.folded) else other
        lines = _code_lines(document, hit.line, [span.line for span in document.spans_after(hit, below=4)])
        for line in lines:
            for code in _codes_in(line.text):
                if code[:8] not in seen:
                    seen.add(code[:8])
                    target.append(Sourced[str](value=code, page=line.page, quote=line.stripped))
    if main or other:
        return main + other
    found: list[Sourced[str]] = []
    for line in document.lines:
        if "-" not in line.text and "–" not in line.text:
            continue
        for code in _codes_in(line.text):
            if len(code) == 10 and code[:8] not in seen and _check_digit(code[:8]) == int(code[9]):
                seen.add(code[:8])
                found.append(Sourced[str](value=code, page=line.page, quote=line.stripped))
    return found


def _code_lines(document: Document, label_line: Line, span_lines: Sequence[Line]) -> list[Line]:
    """The lines whose codes belong to a CPV label: the first of the label's line and its value places
    that holds a code, and the lines right under it as long as each starts with a code."""
    start: Line | None = None
    for line in [label_line, *span_lines]:
        if _codes_in(line.text):
            start = line
            break
    if start is None:
        return []
    lines = [start]
    for line in document.next_lines(start, _CPV_LIST_LINES):
        first = line.cells[0].text if line.cells else ""
        if not _codes_in(first) or _CPV_CODE.match(first.lstrip("-•*·– ")) is None:
            break
        lines.append(line)
    return lines


def _codes_in(text: str) -> list[str]:
    """The CPV-shaped codes of a text: 8 digits (spaced in pairs or not) in a real CPV division, with
    the check digit when printed; codes that bound a range are left out."""
    ranged: set[str] = set()
    for match in _CPV_RANGE.finditer(text):
        ranged.update(re.findall(r"\d{8}", match.group()))
    codes: list[str] = []
    for match in _CPV_CODE.finditer(text):
        digits = "".join(match.group(1, 2, 3, 4))
        if digits[:2] not in _CPV_DIVISIONS or digits in ranged:
            continue
        check = match.group(5)
        codes.append(f"{digits}-{check}" if check is not None else digits)
    return codes


def _check_digit(digits: str) -> int:
    """The usual CPV check digit: (3, 7, 1, 3, 7, 1, 3, 7) · digits mod 10 (see validation.py)."""
    return sum(int(digit) * weight for digit, weight in zip(digits, _CPV_WEIGHTS, strict=True)) % 10
