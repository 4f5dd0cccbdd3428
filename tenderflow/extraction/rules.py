"""Offline, deterministic extraction of tender fields from typical notice wording (en, de, fr).

The default backend when no LLM is configured. It reads a document line by line and recognises
the labels of TED / eForms notices and national portals ("Time limit for receipt of tenders",
"Schlusstermin für den Eingang der Angebote", "Date limite de réception des offres", …). A label
must START a line (after optional numbering such as "II.1.5)"), so a sentence that merely mentions
"the estimated value" — a prompt-injection attempt included — is never read as one.

OCR tolerance: labels match regardless of case, doubled or missing spaces, lost accents (é/e,
ä/ae/a, ß/ss), misread section numbers ("1V.2.2)"), ':' or '.' or nothing between label and value,
and a value on the next line(s). Layout text (pdftotext -layout): a label wrapped over two lines
of a table, values in the right-hand cell, other columns after a wide gap, and titles or names
wrapped onto the next line (when the line ends with a comma or a connecting word, or the next
one starts in lower case) are read too.

Provenance: every value's quote is the line(s) it was read from, as printed (the label line, plus
the value's and wrapped lines). The first occurrence in page order wins.

Lots: a line such as "Lot No: 2", "Los 2", "Lot n° 2" opens a lot; title, CPV codes, estimated value
and award criteria found until the next lot, a section heading ("Section IV", "IV.") or a
procedure-level label belong to that lot.

The words it knows (labels, notice titles, words for codes) are in notice_words.py, the date and
money parsers in notice_values.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from tenderflow.extraction.backend import Interrupt, PageLike, Usage
from tenderflow.extraction.notice_values import fold, parse_date, parse_money
from tenderflow.extraction.notice_words import (
    CATEGORY_WORDS,
    COUNTRY_NAMES,
    DURATION_UNITS,
    LABEL_TEXTS,
    NOTICE_TYPE_TEXTS,
    PROCEDURE_WORDS,
)
from tenderflow.extraction.schema import (
    FIELD_PATHS,
    AwardCriterion,
    ContractDuration,
    Lot,
    MainCategory,
    Money,
    NoticeType,
    ProcedureType,
    Sourced,
    TenderFields,
    fields_of,
)
from tenderflow.extraction.validation import normalize_country_code

V = TypeVar("V")
C = TypeVar("C")

# --- labels -----------------------------------------------------------------------------------------

# Section numbering before a label: "II.1.5)", "1.", "5.1", "IV.2.2)", and as OCR misreads them
# ("11.1.1)", "1V.2.2)", "Vi.4.1)", "Ill.1)"), after an optional bullet.
_NUMBERING: Final = r"(?:[-•*–·]\s*)?(?:(?:(?i:[ivxl1|]{1,5})|\d{1,2})(?:[.,]\d{1,2}){0,4}(?:\)\s*|[.:]?\s+))?"
_FOLDABLE: Final = {
    "a": "[aàâáä]", "e": "[eéèêë]", "i": "[iîïí]", "o": "[oôóö]", "u": "[uùûúü]", "c": "[cç]",
    "ä": "(?:ä|ae|a)", "ö": "(?:ö|oe|o)", "ü": "(?:ü|ue|u)", "ß": "(?:ß|ss)",
    "é": "[eé]", "è": "[eè]", "ê": "[eê]", "à": "[aà]", "â": "[aâ]", "ç": "[cç]", "ô": "[oô]",
    "î": "[iî]", "û": "[uû]", "ù": "[uù]", "ï": "[iï]",
}  # fmt: skip


def _label_pattern(label: str) -> str:
    """A regex for `label` as OCR may render it: any case, spacing and accents, optional dots."""
    return "".join(_label_tokens(label))


def _any_label_regex(labels: Iterable[str]) -> re.Pattern[str]:
    """One pattern matching where any of `labels` would, for telling fast that a line starts with
    none of them (most lines of a tender): its alternatives are grouped by their first character,
    where trying each field's pattern in turn takes a match per field, and one flat alternation of
    every label a try per label."""
    groups: dict[str, set[str]] = {}
    for label in labels:
        first, *rest = _label_tokens(label)
        groups.setdefault(first, set()).add("".join(rest))
    alternatives = "|".join(f"{first}(?:{'|'.join(sorted(rests))})" for first, rests in groups.items())
    return re.compile(f"{_LABEL_START}(?:{alternatives}){_LABEL_END}", re.IGNORECASE)


def _label_tokens(label: str) -> list[str]:
    """`label`'s regex, one piece per character."""
    parts: list[str] = []
    for character in label.lower():  # not casefold(): that turns ß into ss before _FOLDABLE sees it
        if character == " ":
            parts.append(r"[\s_]*")
        elif character in "-'’":
            parts.append(r"[\s\-'’ʼ`´]*")
        elif character == ".":
            parts.append(r"\.?")
        else:
            parts.append(_FOLDABLE.get(character, re.escape(character)))
    return parts


_LABEL_START: Final = rf"^\s*+{_NUMBERING}"  # possessive: a label never starts with a space
# The label must not run on into a letter ("Land" is not "Landeshauptstadt") or an e-mail address
# ("vergabestelle@lindenau.de" is not the label "Vergabestelle").
_LABEL_END: Final = r"(?![^\W\d_]|@)"


def _label_regex(*labels: str) -> re.Pattern[str]:
    alternatives = "|".join(_label_pattern(label) for label in sorted(labels, key=len, reverse=True))
    return re.compile(f"{_LABEL_START}(?:{alternatives}){_LABEL_END}", re.IGNORECASE)


_LABELS: Final[dict[str, re.Pattern[str]]] = {key: _label_regex(*texts) for key, texts in LABEL_TEXTS.items()}
_ANY_LABEL: Final = _any_label_regex(label for texts in LABEL_TEXTS.values() for label in texts)
_LOT_FIELDS: Final = frozenset({"title", "estimated_value", "award_criteria"})
# Labels that only occur outside a lot's description: meeting one ends the current lot.
_PROCEDURE_FIELDS: Final = frozenset(
    {"procedure_type", "submission_deadline", "questions_deadline", "submission_url", "buyer.name", "buyer.email"}
)

_NOTICE_TYPES: Final[tuple[tuple[NoticeType, re.Pattern[str]], ...]] = tuple(
    (notice_type, _label_regex(*texts)) for notice_type, texts in NOTICE_TYPE_TEXTS.items()
)
_ANY_NOTICE_TYPE: Final = _any_label_regex(label for texts in NOTICE_TYPE_TEXTS.values() for label in texts)
_NOTICE_TITLE_REST_CHARS: Final = 30

_LOT_HEADER: Final = re.compile(
    rf"^\s*+{_NUMBERING}(?:lot|los)(?:[-\s]*(?:no|nr|n°|nº|n\.|number|nummer|num[eé]ro)\.?)?\s*[:.\-–]?\s*"
    r"(?P<number>(?-i:LOT)-\d{4}|\d{1,3}[a-z]?)(?![\w])\s*[:.\-–]?\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
_MAJOR_HEADING: Final = re.compile(
    r"^\W{0,3}(?:(?i:section|abschnitt|partie)\s+(?i:[ivxl1|]{1,5})\b|(?-i:[IVX]{1,4})\s*[.):]\s*[^\W\d_])"
)
_CPV_LINE: Final = re.compile(r"\bCPV\b", re.IGNORECASE)
_CPV_CODE: Final = re.compile(r"(?<![\d.,])(\d{8})(?:\s?-\s?(\d))?(?![\d])")
_CPV_CONTINUATION: Final = re.compile(r"^\s*(?:[-•*·]\s*)?\d{8}")
_EMAIL: Final = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE: Final = re.compile(r"\+?\(?\d[\d\s()./-]{5,}\d")
_URL: Final = re.compile(r"https?://[^\s<>\"')\]]+")
_SEPARATORS: Final = " \t:.;,=-–—"
# OCR debris at the end of a line ("buildings : ;", "Rohbauarbeiten \ ;").
_TRAILING_DEBRIS: Final = " \t:;|\\©®°*_~"
_OCR_SPECKS: Final = re.compile(r"\s[:;|]\s")
_VALUE_LOOKAHEAD_LINES: Final = 2
_LABEL_RUN_ON_CHARS: Final = 40
# pdftotext -layout keeps columns apart with runs of spaces; four or more separate two cells.
_COLUMN_GAP: Final = re.compile(r"\s{4,}|\t")
_CONTINUATION_MAX_LINES: Final = 2
# A value ending in one of these words (or in , - – / &) runs on in the next line.
_CONNECTORS: Final = frozenset(
    "and or of for the to in on with at by und oder für fur der die das des den dem von zur zum im am "
    "et ou de des du la le les pour en au aux sur par".split()
)
# Text fields whose value may wrap onto the next line(s).
_WRAPPING_FIELDS: Final = frozenset({"title", "buyer.name", "buyer.address", "place_of_performance"})
# The first word after a comma in a buyer's name that makes the rest a department, not the buyer:
# "Stadt Lindenau, Amt für Gebäudemanagement" is Stadt Lindenau (eForms: organisation vs. part).
_DEPARTMENT_WORDS: Final = re.compile(
    r"(?:,|\s[–—-])\s+(?:\w*(?:amt|referat|abteilung|dezernat|fachbereich|fachdienst|vergabestelle)\b|(?:procurement|"
    r"purchasing|property|facilities)\b|(?:department|dept|directorate|division|office|unit)\b|direction\b|"
    r"services?\s+(?:techniques?|des|de|du)\b|p[oô]le\b|d[ée]partement\b)",
    re.IGNORECASE,
)


# --- durations and award criteria (the words that map to codes: notice_words.py) -------------------

_DURATION: Final = re.compile(r"(?<![\d.,])(\d{1,4})(?![\d.,])\s*(?P<unit>[^\W\d_]+)?")
_CRITERION_TED: Final = re.compile(
    r"name\s*:\s*(?P<name>.+?)\s*/\s*(?:weighting|gewichtung|pond[ée]ration)\s*:\s*(?P<weight>\d+(?:[.,]\d+)?)",
    re.IGNORECASE,
)
_CRITERION: Final = re.compile(
    r"^\s*(?:\d{1,2}[.)]\s*|[-•*·]\s*)?(?P<name>[^\d:]{2,80}?)"
    r"(?:\s*(?:[-–:=(/]|weighting|gewichtung|pond[ée]ration|poids)\s*)*"
    r"(?P<weight>\d{1,3}(?:[.,]\d+)?)\s*(?:%|percent|prozent|pour\s*cent|punkte|points|pts)?\s*\)?\s*\.?$",
    re.IGNORECASE,
)
_SOLE_PRICE_CRITERION: Final = re.compile(
    r"^\s*(?:[-•*·]\s*)?(?P<name>lowest price|price only|niedrigster preis|prix le plus bas)\s*\.?$", re.IGNORECASE
)
_CRITERIA_MAX_LINES: Final = 12
_TOTAL_WORDS: Final = frozenset({"total", "gesamt", "insgesamt", "summe", "total general"})


# --- the backend ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Line:
    page: int
    text: str


@dataclass(frozen=True)
class _Hit:
    """A label found in the text: which field, and where its value may be read."""

    key: str
    label: str  # the label as printed, for units it carries ("Duration in months")
    value_text: str  # what follows the label on its line(s)
    value_column: int  # where that value starts on the line (for aligned wrapped lines)
    quote: str  # the label line(s), stripped, joined with a space
    page: int
    next_index: int  # the first line after the label line(s)


@dataclass(frozen=True)
class _Candidate:
    """Text a value may be read from, the quote that covers it, and where reading may continue."""

    text: str
    quote: str
    column: int
    next_index: int


@dataclass
class _LotDraft:
    number: Sourced[str]
    title: Sourced[str] | None = None
    cpv_codes: list[Sourced[str]] = field(default_factory=list)
    estimated_value: Sourced[Money] | None = None
    award_criteria: list[Sourced[AwardCriterion]] = field(default_factory=list)

    def build(self) -> Lot:
        return Lot(
            number=self.number,
            title=self.title,
            cpv_codes=self.cpv_codes,
            estimated_value=self.estimated_value,
            award_criteria=self.award_criteria,
        )


@dataclass
class _Draft:
    """What has been read so far; the first value of each field wins."""

    scalars: dict[str, Sourced[Any]] = field(default_factory=dict)
    cpv_codes: list[Sourced[str]] = field(default_factory=list)
    award_criteria: list[Sourced[AwardCriterion]] = field(default_factory=list)
    lots: dict[str, _LotDraft] = field(default_factory=dict)

    def offer(self, key: str, value: Sourced[Any] | None) -> None:
        if value is not None and key not in self.scalars:
            self.scalars[key] = value

    def build(self) -> TenderFields:
        lists = {"cpv_codes": self.cpv_codes, "award_criteria": self.award_criteria,
                 "lots": [lot.build() for lot in self.lots.values()]}
        return fields_of({path: lists[path] if path in lists else self.scalars.get(path) for path in FIELD_PATHS})


class RulesBackend:
    """Extraction by label matching: offline, free, deterministic; see the module docstring."""

    name = "rules"

    def extract(self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None) -> tuple[TenderFields, Usage]:
        lines = [
            _Line(page.number, text)
            for page in sorted(pages, key=lambda page: page.number)
            for text in page.text.splitlines()
        ]
        return _read(lines), Usage(model=None, calls=0)


def _read(lines: list[_Line]) -> TenderFields:
    draft = _Draft()
    current_lot: _LotDraft | None = None
    consumed = -1  # the second line of a label split over two lines is not read again
    for index, line in enumerate(lines):
        if index <= consumed:
            continue
        header = _LOT_HEADER.match(line.text)
        if header:
            current_lot = _open_lot(draft, line, header)
            continue
        if _MAJOR_HEADING.match(line.text):
            current_lot = None
        if _names_cpv(line.text):
            target = current_lot.cpv_codes if current_lot else draft.cpv_codes
            _add_cpv_codes(target, lines, index)
            continue
        notice_type = _notice_type(line)
        if notice_type is not None:
            draft.offer("notice_type", notice_type)
            continue
        hit = _label_hit(lines, index)
        if hit is None:
            continue
        consumed = hit.next_index - 1
        if hit.key in _PROCEDURE_FIELDS:
            current_lot = None
        if current_lot is not None and hit.key in _LOT_FIELDS:
            _read_lot_field(current_lot, hit, lines)
        elif hit.key == "award_criteria":
            draft.award_criteria.extend(_criteria(hit, lines))
        elif hit.key != "ignored":
            draft.offer(hit.key, _read_value(hit, lines))
    return draft.build()


def _label_hit(lines: list[_Line], index: int) -> _Hit | None:
    """The label at the start of line `index`, or of lines `index` and `index + 1` together.

    Table layouts wrap long labels: "Time limit for receipt of     10 June 2025, 12:00" over
    "tenders". The label is then read from both lines' first cells, the value from the rest.
    """
    line = lines[index]
    labelled = _best_label(line.text)
    if labelled is not None:
        key, end = labelled
        rest = line.text[end:]
        column = end + len(rest) - len(rest.lstrip(_SEPARATORS))
        return _Hit(key, line.text[:end], rest, column, line.text.strip(), line.page, index + 1)
    if index + 1 >= len(lines) or lines[index + 1].page != line.page:
        return None
    following = lines[index + 1]
    first_cell, second_cell = _CELL.search(line.text), _CELL.search(following.text)
    if first_cell is None or second_cell is None:
        return None
    joined = f"{first_cell.group()} {second_cell.group()}"
    labelled = _best_label(joined)
    if labelled is None or labelled[1] <= len(first_cell.group()) + 1:
        return None  # the label does not run on into the second line
    key, end = labelled
    first, second = _cells(line.text), _cells(following.text)
    value_text = " ".join([cell for _, cell in first[1:]] + [joined[end:]] + [cell for _, cell in second[1:]])
    column = first[1][0] if len(first) > 1 else -1
    quote = f"{line.text.strip()} {following.text.strip()}"
    return _Hit(key, joined[:end], value_text, column, quote, line.page, index + 2)


_CELL: Final = re.compile(r"\S+(?: {1,3}\S+)*")


def _cells(text: str) -> list[tuple[int, str]]:
    """The (column, text) cells of a layout line: runs of words separated by at most three spaces."""
    return [(match.start(), match.group()) for match in _CELL.finditer(text)]


def _best_label(text: str) -> tuple[str, int] | None:
    """The field whose label starts `text` (the longest label wins) and where the label ends."""
    if not _ANY_LABEL.match(text):
        return None
    best: tuple[str, int] | None = None
    for key, pattern in _LABELS.items():
        match = pattern.match(text)
        if match and (best is None or match.end() > best[1]):
            best = (key, match.end())
    return best


def _is_label_or_heading(text: str) -> bool:
    return bool(_best_label(text) or _LOT_HEADER.match(text) or _MAJOR_HEADING.match(text) or _names_cpv(text))


def _candidates(hit: _Hit, lines: list[_Line]) -> Iterator[_Candidate]:
    """Where the value may be: after the label, then on the next lines of the same page.

    Those lines must not be another label or a heading, so a label with nothing after it never
    takes the next field's value.
    """
    yield _Candidate(hit.value_text, hit.quote, hit.value_column, hit.next_index)
    quote = hit.quote
    taken = 0
    for index in range(hit.next_index, len(lines)):
        following = lines[index]
        if following.page != hit.page or taken >= _VALUE_LOOKAHEAD_LINES:
            return
        if not following.text.strip():
            continue
        if _is_label_or_heading(following.text):
            return
        taken += 1
        quote = f"{quote} {following.text.strip()}"
        indent = len(following.text) - len(following.text.lstrip())
        yield _Candidate(following.text, quote, indent, index + 1)


def _read_value(hit: _Hit, lines: list[_Line]) -> Sourced[Any] | None:
    if hit.key in _PARSERS:
        return _typed_value(hit, lines, _PARSERS[hit.key])
    if hit.key == "contract_duration":
        return _typed_value(hit, lines, _duration_parser(hit.label))
    value = _text_value(hit, lines)
    if value is not None and hit.key == "buyer.name":
        department = _DEPARTMENT_WORDS.search(value.value)
        if department and department.start() > 0:
            value = Sourced(value=value.value[: department.start()].strip(), page=value.page, quote=value.quote)
    return value


def _typed_value(hit: _Hit, lines: list[_Line], parse: Callable[[str], V | None]) -> Sourced[V] | None:
    for candidate in _candidates(hit, lines):
        value = parse(candidate.text)
        if value is not None:
            return Sourced(value=value, page=hit.page, quote=candidate.quote)
    return None


def _text_value(hit: _Hit, lines: list[_Line]) -> Sourced[str] | None:
    """A verbatim value: the first cell after the label (after ':' or '.'), else of the next line;
    for titles, names and addresses continued on the lines it wraps onto."""
    for position, candidate in enumerate(_candidates(hit, lines)):
        text = candidate.text
        # Only the start loses separators: a comma or dash at the end says the value wraps.
        value = text.lstrip(_SEPARATORS)
        colon = value.find(":")
        if position == 0 and text.lstrip()[:1] not in _SEPARATORS and 0 <= colon < _LABEL_RUN_ON_CHARS:
            # "Reference number of the file: X": the label ran on past the words we know.
            value = value[colon + 1 :].lstrip(_SEPARATORS)
        value = _first_cell(value)
        if not value:
            continue
        quote = candidate.quote
        if hit.key in _WRAPPING_FIELDS:
            value, quote = _wrapped(value, quote, lines, candidate, hit.page)
        return Sourced(value=value.rstrip(_SEPARATORS), page=hit.page, quote=quote)
    return None


def _first_cell(text: str) -> str:
    """The text up to the next layout column, without OCR debris at its end (a comma is kept: it
    says the value wraps)."""
    return _COLUMN_GAP.split(text.strip(), maxsplit=1)[0].rstrip(_TRAILING_DEBRIS)


def _continuation_cell(text: str) -> str:
    # Specks read as " : " or " ; " trail wrapped lines of scans ("buildings : ees : ;").
    return _OCR_SPECKS.split(_first_cell(text), maxsplit=1)[0].rstrip(_TRAILING_DEBRIS)


def _wrapped(value: str, quote: str, lines: list[_Line], candidate: _Candidate, page: int) -> tuple[str, str]:
    """The value with the lines it wraps onto, and the quote grown to cover them.

    A line continues the value when the value ends in a comma, a dash or a connecting word, or the
    line starts in lower case; and the line does not start right of the value's column (there it
    belongs to the next column of a two-column layout). A blank line ends the value.
    """
    for index in range(candidate.next_index, min(candidate.next_index + _CONTINUATION_MAX_LINES, len(lines))):
        following = lines[index]
        if following.page != page or not following.text.strip() or _is_label_or_heading(following.text):
            break
        indent = len(following.text) - len(following.text.lstrip())
        cell = _continuation_cell(following.text)
        if not cell or (candidate.column >= 0 and indent > candidate.column + 2) or not _runs_on(value, cell):
            break
        if value.endswith("-") and cell[:1].islower():
            value = value[:-1] + cell  # a word hyphenated at the line break
        else:
            value = f"{value} {cell}"
        quote = f"{quote} {following.text.strip()}"
    return value, quote


def _runs_on(value: str, next_cell: str) -> bool:
    last_word = value.rsplit(maxsplit=1)[-1].casefold() if value.strip() else ""
    return value[-1:] in ",-–/&" or last_word in _CONNECTORS or next_cell[:1].islower()


def _open_lot(draft: _Draft, line: _Line, header: re.Match[str]) -> _LotDraft:
    number = header["number"]
    key = number.upper() if number.upper().startswith("LOT-") else number.lstrip("0") or "0"
    lot = draft.lots.get(key)
    if lot is None:
        lot = draft.lots[key] = _LotDraft(number=Sourced(value=number, page=line.page, quote=line.text.strip()))
    title = _first_cell(_strip_title_label(header["rest"].strip(_SEPARATORS + " "))).rstrip(", ")
    if title and lot.title is None:
        lot.title = Sourced(value=title, page=line.page, quote=line.text.strip())
    return lot


def _strip_title_label(text: str) -> str:
    labelled = _LABELS["title"].match(text)
    return text[labelled.end() :].strip(_SEPARATORS) if labelled else text


def _read_lot_field(lot: _LotDraft, hit: _Hit, lines: list[_Line]) -> None:
    if hit.key == "title" and lot.title is None:
        lot.title = _text_value(hit, lines)
    elif hit.key == "estimated_value" and lot.estimated_value is None:
        lot.estimated_value = _typed_value(hit, lines, parse_money)
    elif hit.key == "award_criteria":
        lot.award_criteria.extend(_criteria(hit, lines))


def _pattern_value(pattern: re.Pattern[str]) -> Callable[[str], str | None]:
    def parse(text: str) -> str | None:
        match = pattern.search(text)
        return match.group(0).rstrip(".,;") if match else None

    return parse


def _parse_procedure(text: str) -> ProcedureType | None:
    return _first_word_match(text, PROCEDURE_WORDS)


def _parse_category(text: str) -> MainCategory | None:
    return _first_word_match(text, CATEGORY_WORDS)


def _first_word_match(text: str, table: tuple[tuple[C, tuple[str, ...]], ...]) -> C | None:
    folded = fold(text)
    for code, words in table:
        if any(word in folded for word in words):
            return code
    return None


def _parse_country(text: str) -> str | None:
    value = _first_cell(text.strip(_SEPARATORS + " "))
    if not value:
        return None
    if len(value) == 2:
        return normalize_country_code(value)
    folded = fold(value)
    for name, code in COUNTRY_NAMES.items():
        if re.search(rf"(?<![^\W\d_]){re.escape(name)}(?![^\W\d_])", folded):
            return code
    return None


def _duration_parser(label: str) -> Callable[[str], ContractDuration | None]:
    """Reads "36 months", "24 Monate", "48 mois", or a bare "36" after "Duration in months"."""
    label_unit = next((DURATION_UNITS[word] for word in fold(label).split() if word in DURATION_UNITS), None)

    def parse(text: str) -> ContractDuration | None:
        for match in _DURATION.finditer(fold(text)):
            unit = DURATION_UNITS.get(match["unit"] or "") or label_unit
            if unit is not None and int(match.group(1)) > 0:
                return ContractDuration(amount=int(match.group(1)), unit=unit)
        return None

    return parse


_PARSERS: Final[dict[str, Callable[[str], Any]]] = {
    "buyer.country": _parse_country,
    "buyer.email": _pattern_value(_EMAIL),
    "buyer.phone": _pattern_value(_PHONE),
    "procedure_type": _parse_procedure,
    "main_category": _parse_category,
    "estimated_value": parse_money,
    "submission_deadline": parse_date,
    "questions_deadline": parse_date,
    "submission_url": _pattern_value(_URL),
}


def _notice_type(line: _Line) -> Sourced[NoticeType] | None:
    """The notice type when the line is a notice's title ("Contract notice – Standard regime")."""
    if not _ANY_NOTICE_TYPE.match(line.text):
        return None
    for notice_type, pattern in _NOTICE_TYPES:
        match = pattern.match(line.text)
        if match:
            rest = line.text[match.end() :].strip()
            # A qualifier after a dash ("– Standard regime") or a short tail is a heading;
            # "Vorinformation: nein" is a form field, not the notice's type.
            if rest[:1] in ("", "–", "—", "-", "(") or (len(rest) <= _NOTICE_TITLE_REST_CHARS and rest[:1] != ":"):
                return Sourced(value=notice_type, page=line.page, quote=line.text.strip())
    return None


def _names_cpv(text: str) -> bool:
    return "cpv" in text.lower() and _CPV_LINE.search(text) is not None  # the plain test first: it is 20x faster


def _add_cpv_codes(target: list[Sourced[str]], lines: list[_Line], index: int) -> None:
    """The CPV codes on a line naming CPV and on the code-only lines right after it."""
    line = lines[index]
    block = [line]
    for following in lines[index + 1 :]:
        if following.page != line.page or not _CPV_CONTINUATION.match(following.text):
            break
        block.append(following)
    known = {code.value[:8] for code in target}
    for source in block:
        for match in _CPV_CODE.finditer(source.text):
            digits, check = match.groups()
            if digits in known:
                continue
            known.add(digits)
            code = f"{digits}-{check}" if check else digits
            target.append(Sourced(value=code, page=source.page, quote=source.text.strip()))


def _criteria(hit: _Hit, lines: list[_Line]) -> list[Sourced[AwardCriterion]]:
    """Award criteria after the label and on the lines after it, until a line that is not one."""
    found: list[Sourced[AwardCriterion]] = []
    skipped = 0
    texts = [(hit.value_text, hit.page, hit.quote)] + [
        (line.text, line.page, line.text.strip()) for line in lines[hit.next_index :]
    ]
    for position, (text, page, quote) in enumerate(texts[:_CRITERIA_MAX_LINES]):
        if position > 0:
            if not text.strip():
                continue
            if _is_label_or_heading(text):
                break
        criterion = _criterion(text.strip(_SEPARATORS + " "))
        if criterion is not None:
            found.append(Sourced(value=criterion, page=page, quote=quote))
        elif found:
            break  # the end of the list ("Total 100 %" ends it too, see _criterion)
        elif position > 0:
            skipped += 1  # an introduction or a table header ("Criterion   Weighting")
            if skipped > 2:
                break
    return found


def _criterion(text: str) -> AwardCriterion | None:
    if not text:
        return None
    ted = _CRITERION_TED.search(text)
    if ted:
        return AwardCriterion(name=ted["name"].strip(), weight=float(ted["weight"].replace(",", ".")))
    sole = _SOLE_PRICE_CRITERION.match(text)
    if sole:
        return AwardCriterion(name=sole["name"].strip(), weight=None)
    generic = _CRITERION.match(text)
    if generic:
        name = generic["name"].strip(_SEPARATORS + " (")
        if any(character.isalpha() for character in name) and fold(name) not in _TOTAL_WORDS:
            return AwardCriterion(name=name, weight=float(generic["weight"].replace(",", ".")))
    return None
