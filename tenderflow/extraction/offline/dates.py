"""Deadlines: submission_deadline and questions_deadline, read the way an analyst reads them.

Two steps, as everywhere in the offline extractor:

1. Every date the document prints, with the time printed next to it (date_mentions.py, which reads dates
   and times in every script with date_parsing.py: '21.11.2025 12:00', '15. März 2026', '令和8年9月25日
   午前9時30分', '2025. 2. 7. 10:00', '2026年1月23日14时30分', '15 апреля 2026 г.', Umm al-Qura Hijri
   '1447/03/15 هـ', Thai Buddhist-era years …).
2. Each date is classified by the clause that leads to it: the text before it on its line and on
   up to three lines above (same column, same sentence, not past another date), plus a short tail.
   The nearest TOPIC word decides what the date is about (offers/bids/proposals/заявки/入札/입찰/投标
   → submission; questions/clarifications/質問/질의/澄清/разъяснения → questions; opening, pre-bid meeting,
   offer validity, publication, award, bid bond, answers, start → neither), and a DEADLINE CUE (deadline,
   closing, due, no later than, Frist, plazo, 期限, 締切, 截止, 마감, окончание, προθεσμία, termen limita …)
   must be present: the vocabularies of every language are in date_words.py. Nearest-topic-wins is what
   makes 'Deadline for receipt of written questions' a questions deadline, 'Plazo de Mantenimiento de la
   Oferta' an offer validity, 'PORFP Issue Date: 05/24/2024  PROPOSAL DUE 06/10/2024' two different dates,
   and 投标保证金截止时间 a bid bond's deadline.

Layouts an analyst reads without thinking are read too: a label on the line above or wrapped around
its value in a table row (also centred in its row: 'Дата и время окончания подачи' / value / 'заявок'),
a date-first schedule ('10 March 2026   Questions due'), a stage schedule without deadline words
('تقديم العروض 17/11/1446', 'Submission of proposals   15 March 2026'), a right-to-left table as a text
layer prints it, the label right of its date ('17/11/1446        تقديم العروض'), a period whose END is the
time limit ('2025. 1. 31. 00:00 ~ 2025. 2. 7. 10:00', '令和8年7月27日（月）～令和8年7月28日（火）', 'с … по',
'…から 令和8年9月25日 まで'), an 'until' written after its date ('まで', '까지', '前'), a notice table whose
'CLOSING DATE' column stacks '25th' / 'November,' / '2021', a date broken over two lines, a date filled in
on an OCR'd dotted line. Laws and documents cited with their date ('ustawa z dnia 11 marca 2004', 'رقم
(م/128) وتاريخ …', 'Tender No. 12 dated …', '№ 123 от'), and the print date of a running header or footer,
are no deadlines.

A clause or column saying the date was amended ('revised closing date', 'date limite reportée au',
'extended from … to …', a 'Revised' column) outweighs the original one; when no clause is convincing
the field stays empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Final

from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.date_mentions import (
    Mention,
    cell_at,
    cells,
    columns_overlap,
    mentions,
    next_nonblank,
    previous_nonblank,
)
from tenderflow.extraction.offline.date_parsing import parse_dates, parse_times
from tenderflow.extraction.offline.date_words import (
    ACTION,
    AMENDED,
    CHANGED_TO,
    CITATION,
    CLOSING_CUE,
    DEADLINE_LABEL,
    JOINED,
    NEG,
    NEW_HEADER,
    OPENING,
    ORIGINAL,
    QUE,
    RANGE_FROM,
    RANGE_TO,
    REFERENCE_DATED,
    SAME_DAY,
    STRONG_CUE,
    SUB,
    TAIL_CUE,
    TOPIC,
    WEAK_CUE,
)
from tenderflow.extraction.offline.document import Cell, Document, Line, fold
from tenderflow.extraction.offline.label_values import right_to_left
from tenderflow.extraction.schema import Sourced

__all__ = ["parse_dates", "parse_times", "questions_deadline", "submission_deadline"]


_ACTION_LABEL: Final = 60
_CITATION_REACH: Final = 40
_CHANGE_CLAUSE: Final = 60
_HEADER_LINES: Final = 6
_HEADER_CHARS: Final = 40
_MODIFIER_GAP: Final = 25
_WORD: Final = re.compile(r"[^\W\d_]")
_SENTENCE_END: Final = re.compile(r"(?<=[^\W\d_]{2}[.!?;])\s+(?=[A-ZÀ-ÖØ-Þ0-9(•●▪■-])|(?<=[。！？；])")

_CLAUSE_LINES: Final = 3
_CLAUSE_CHARS: Final = 260
_TAIL_CHARS: Final = 70
_THRESHOLD: Final = 0.55
_SUPPORT: Final = 0.03

_LABEL_ROWS: Final = 16
_LABEL_DISTANCE: Final = 1


# --- clauses: what a date is about --------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """What the clause before a date says: the nearest topic, its distance, the cues, amendments."""

    topic: str | None
    topic_lines: int  # lines between the topic word and the date (0: same line)
    topic_chars: int  # characters between the topic word and the date
    strong_cue: bool
    weak_cue: bool
    closing_only: bool
    deadline_only: bool
    action: bool
    amended: bool
    original: bool
    label_line: Line
    clause: str = ""
    label_distance: int = 0  # rows between a table's column header and the date, when the header is the label
    range_start: bool = False  # the start of a period whose end is printed after it: no time limit


def _wrapped_label(
    document: Document, line: Line, label: Cell, dated: set[int], *, upwards: bool = True
) -> list[tuple[Line, str]]:
    """The whole label of a table row whose label cell wraps over several lines around the value's line
    ('Termine perentorio per la creazione degli archivi' / 'informatici …, firma   19.01.2026' /
    'digitale, caricamento ed invio'): the overlapping cells above up to the one that starts the label
    (capitalised; not when the value's row starts the label: `upwards` False), and those below that
    continue it (lower case, alone on their line), never crossing a line with a date."""
    pieces: list[tuple[Line, str]] = [(line, label.text)]
    current = line
    for _ in range(2 if upwards else 0):
        above = previous_nonblank(document, current)
        if above is None or above.row != current.row - 1 or above.index in dated:
            break
        texts = [other.text for other in cells(above.text) if other.overlaps(label)]
        if not texts:
            break
        pieces.insert(0, (above, "   ".join(texts)))
        if not texts[0][:1].islower():
            break
        current = above
    current = line
    for _ in range(2):
        below = next_nonblank(document, current)
        if below is None or below.row != current.row + 1 or below.index in dated:
            break
        texts = [other.text for other in cells(below.text) if other.overlaps(label)]
        if not texts or not texts[0][:1].islower():
            break
        if not upwards and len(cells(below.text)) != len(texts):
            break  # another column goes on beside it: a new row, not the label's last words
        pieces.append((below, "   ".join(texts)))
        current = below
    return pieces if len(pieces) > 1 else []


@dataclass(frozen=True)
class _Dated:
    """Where the document's dates are: the lines that have one, and per line the columns they start at."""

    lines: set[int]
    starts: dict[int, list[int]]


def _label_on_the_right(mention: Mention, dated: _Dated) -> str | None:
    """In a right-to-left line as a text layer prints it, the label on the right of its date up to the next
    date ('17/11/1446        تقديم العروض'), when it names something; None for other lines, and for the
    lines OCR returns in reading order ('تقديم العروض 17/11/1446'), which read as left-to-right ones do."""
    line = mention.line
    if not right_to_left(line.text):
        return None
    following = [start for start in dated.starts.get(line.index, []) if start >= mention.end]
    right = line.text[mention.end : min(following, default=len(line.text))]
    folded = fold(right)
    return right if TOPIC.search(folded) or STRONG_CUE.search(folded) or ACTION.search(folded) else None


def _own_text(line: Line, mention: Mention, previous_end: dict[int, int], dated: _Dated) -> tuple[str, bool]:
    """The text before `mention` on its line in reading order, and whether the line has no other date before
    it: left of the date back to the previous date, or the label right of it in a right-to-left line (see
    `_label_on_the_right`). The words of a period's start that lead to its end date ('入札参加資格確認結果通知日から
    令和8年9月25日まで') are not its label and are left out."""
    if line is mention.line and (right := _label_on_the_right(mention, dated)) is not None:
        return right, True
    own_start = previous_end.get(line.index, 0)
    own = line.text[own_start : mention.start if line is mention.line else len(line.text)]
    if (start := RANGE_FROM.search(fold(own))) is not None:
        own = own[: start.start()]
    return own, not own_start


def _clause(
    document: Document, mention: Mention, previous_end: dict[int, int], dated: _Dated
) -> list[tuple[Line, str]]:
    """The text leading to `mention`, farthest first: (line, text) pieces from up to three lines above in
    the same column (or, for a value in the first column, the label beside it), then the start of the
    mention's own line (its end, in a right-to-left line); never past another date."""
    line = mention.first if mention.first is not mention.line else mention.line
    own, alone = _own_text(line, mention, previous_end, dated)
    pieces: list[tuple[Line, str]] = [(line, own)]
    if not alone:
        return pieces
    if TOPIC.search(fold(own)):
        start = _label_start_above(document, line, own, dated.lines)
        return [start, *pieces] if start is not None else pieces
    if line is mention.line and (end := _label_end_below(document, line, own, dated.lines)) is not None:
        return [*pieces, end]
    cell = cell_at(line.text, mention.start) if line is mention.line else cell_at(line.text, 0)
    if cell is None:
        return pieces
    first_cell = not line.text[: cell.start].strip()
    left = [other for other in cells(line.text) if other.end <= cell.start]
    if left and left[-1].text[:1].islower():
        return _wrapped_label(document, line, left[-1], dated.lines) or pieces
    if left and not TOPIC.search(fold(left[-1].text)):
        # 'Time limit for receipt of   10 June 2025' / 'tenders': a label cell that goes on below the value's row
        wrapped = _wrapped_label(document, line, left[-1], dated.lines, upwards=False)
        if wrapped:
            return wrapped
    pieces = _climb(document, line, cell, previous_end, first_cell=first_cell, pieces=pieces)
    if first_cell and line is mention.line and not own.strip():
        if (rest := _label_rest_below(document, line, cell.start, dated.lines)) is not None:
            pieces.append(rest)
    return pieces


def _climb(
    document: Document,
    line: Line,
    cell: Cell,
    previous_end: dict[int, int],
    *,
    first_cell: bool,
    pieces: list[tuple[Line, str]],
) -> list[tuple[Line, str]]:
    """`pieces` with, before them, the text of up to three lines above in the date's column, and for a date
    in the first column the label column beside it (left of it; right of it in a right-to-left line)."""
    column_start, column_end = cell.start, cell.end
    current = line
    for _ in range(_CLAUSE_LINES):
        above = previous_nonblank(document, current)
        if above is None or current.row - above.row > 3:
            break
        if above.index in previous_end:
            # a line with a date of its own: what follows that date is its label in a date-first schedule
            # ('10 March 2026   Questions due'), never the label of the date below
            break
        rtl = right_to_left(above.text)
        texts = [
            other.text
            for other in cells(above.text)
            if columns_overlap(column_start, column_end, other.start, other.end)
            or (first_cell and (other.end <= column_start or (rtl and other.start >= column_end)))
        ]
        if not texts:
            break
        pieces.insert(0, (above, "   ".join(reversed(texts) if rtl else texts)))
        current = above
    return pieces


def _label_rest_below(document: Document, line: Line, column: int, dated: set[int]) -> tuple[Line, str] | None:
    """The end of a label printed around its value, the value centred in the row ('Дата и время окончания
    подачи' / '09.04.2026 00:00' / 'заявок', '投标人要求澄清招标文件' / '2026年01月18日16时00分' / '的截止时间'): the
    line right below, with text only in the label column left of the value and no digits, that goes on with
    a lower-case word or ends the row (a blank line follows)."""
    below = next_nonblank(document, line)
    if below is None or below.row != line.row + 1 or below.index in dated:
        return None
    below_cells = cells(below.text)
    if not below_cells or below_cells[-1].end > column or any(character.isdigit() for character in below.text):
        return None
    text = below.stripped
    following = next_nonblank(document, below)
    row_ends = following is None or following.row > below.row + 1
    if text[:1].islower() or (not text[:1].isupper() and row_ends):
        return below, text
    return None


def _label_start_above(document: Document, line: Line, own: str, dated: set[int]) -> tuple[Line, str] | None:
    """The first line of a label that wraps onto the value's line ('Schlusstermin für den Eingang der' /
    'Angebote: 02.04.2025'): when the label's end on the value's line names the topic but no cue, the line
    right above, in the same column, without a date and not closing a sentence, is the label's start."""
    folded = fold(own)
    if len(own.strip()) > _WRAP_OWN_CHARS or STRONG_CUE.search(folded) or WEAK_CUE.search(folded):
        return None
    above = previous_nonblank(document, line)
    if above is None or above.row != line.row - 1 or above.index in dated:
        return None
    above_cells = cells(above.text)
    indent = len(line.text) - len(line.text.lstrip())
    if len(above_cells) != 1 or abs(above_cells[0].start - indent) > 1 or re.search(r"[.!?;:]\s*$", above.text):
        return None
    return above, above_cells[0].text


_WRAP_OWN_CHARS: Final = 40


def _label_end_below(document: Document, line: Line, own: str, dated: set[int]) -> tuple[Line, str] | None:
    """The last words of a label cut after a linking word before its value ('Time limit for receipt of
    10 June 2025' / 'tenders:', as a scan's OCR prints a form row without its column gap): a short line in
    lower case, without digits, right below."""
    if not _OPEN_LABEL_END.search(fold(own)) or len(own.strip()) > _CLAUSE_CHARS:
        return None
    below = next_nonblank(document, line)
    if below is None or below.row - line.row > 2 or below.index in dated:
        return None
    text = below.stripped
    if not text[:1].islower() or len(text.split()) > 4 or any(character.isdigit() for character in text):
        return None
    return below, text


_OPEN_LABEL_END: Final = re.compile(
    r"(?<![^\W_])(?:of|for|the|de|des|du|la|le|les|der|die|das|den|dem|fur|zur|zum|di|del|della|dei|delle|per"
    r"|para|pour|van|voor|het|na|do|dla)\W*$"
)
"""A label that ends with a linking word or an article goes on after the value."""


def _column_header(document: Document, mention: Mention) -> str:
    """The folded header of the table column a date stands in, when the date starts its own cell: the first
    cell without digits above it in the same column ('Original' / 'Revised' columns of an addendum)."""
    cell = cell_at(mention.line.text, mention.start)
    if cell is None or abs(cell.start - mention.start) > 1:
        return ""
    current = mention.line
    for _ in range(_HEADER_LINES):
        above = previous_nonblank(document, current)
        if above is None:
            break
        overlapping = " ".join(other.text for other in cells(above.text) if other.overlaps(cell))
        if overlapping and not any(character.isdigit() for character in overlapping):
            return fold(overlapping) if len(overlapping) <= _HEADER_CHARS else ""
        current = above
    return ""


def _column_label(document: Document, mention: Mention) -> str:
    """The folded header of the table column a date stands in, when it names a deadline: a notice table
    whose 'CLOSING DATE' column lists one date per tender. Climbs over the rows above (their dates and
    descriptions) to the first cell in the date's column that holds a deadline cue or a topic."""
    cell = cell_at(mention.line.text, mention.start)
    if cell is None or len(cell.text) > _HEADER_CHARS:
        return ""
    current = mention.line
    for _ in range(_LABEL_ROWS):
        above = previous_nonblank(document, current)
        if above is None:
            break
        for other in cells(above.text):
            if not other.overlaps(cell) or any(character.isdigit() for character in other.text):
                continue
            if len(other.text) > _HEADER_CHARS:
                return ""  # running text above: this is no table column
            folded = fold(other.text)
            if STRONG_CUE.search(folded) or CLOSING_CUE.search(folded) or TOPIC.search(folded):
                return folded
        current = above
    return ""


def _classify(clause: str) -> tuple[str | None, int]:
    """The topic of a clause and where its deciding word ends: the nearest topic word before the date,
    except that a negative word modifying it makes it negative ('validité des offres', 'opening of bids',
    'związany ofertą') and that questions about the offers stay questions ('questions regarding the
    tender', 'Auskünfte über … diese Angebotsaufforderung', but not 'Question responses')."""
    matches = list(TOPIC.finditer(clause))
    if not matches:
        return None, -1
    nearest = max(matches, key=lambda match: (match.end(), match.end() - match.start()))
    topic = nearest.lastgroup
    if topic == NEG and OPENING.fullmatch(nearest.group()):
        earlier = [match for match in matches if match.end() <= nearest.start()]
        if earlier and earlier[-1].lastgroup == SUB and JOINED.fullmatch(clause[earlier[-1].end() : nearest.start()]):
            return SUB, nearest.end()  # '投标截止时间及开标时间', '入札・開札日時': the deadline is also the opening
    if topic != NEG:
        for match in matches:
            if match.lastgroup == NEG and 0 <= nearest.start() - match.end() <= _MODIFIER_GAP:
                return NEG, nearest.end()
    if topic == SUB:
        for match in matches:
            if (
                match.lastgroup == QUE
                and match.end() < nearest.start()
                and _WORD.search(clause[match.end() : nearest.start()])
            ):
                return QUE, nearest.end()
    return topic, nearest.end()


def _tail(mention: Mention, previous_end: dict[int, int], dated: _Dated) -> str:
    """The folded text right after `mention` in reading order (left of it, when its label is on its right in a
    right-to-left line), up to the next date."""
    if _label_on_the_right(mention, dated) is not None:
        return mention.line.folded[previous_end.get(mention.line.index, 0) : mention.start][-_TAIL_CHARS:]
    tail_text = mention.last.folded[mention.end if mention.last is mention.line else 0 :][:_TAIL_CHARS]
    next_dates = parse_dates(tail_text)
    return tail_text[: next_dates[0].start] if next_dates else tail_text


def _read(document: Document, mention: Mention, previous_end: dict[int, int], dated: _Dated) -> Reading:
    """What the clause leading to `mention` (and a short tail after it) says about it."""
    pieces = _clause(document, mention, previous_end, dated)
    joined = ""
    starts: list[tuple[int, Line]] = []
    for line, text in pieces:
        starts.append((len(joined), line))
        joined += text + "\n"
    boundaries = list(_SENTENCE_END.finditer(joined))
    cut = boundaries[-1].end() if boundaries else 0
    cut = max(cut, len(joined) - _CLAUSE_CHARS)
    clause = fold(joined[cut:])
    tail_text = _tail(mention, previous_end, dated)
    topic, topic_end = _classify(clause)
    if CITATION.search(clause[-_CITATION_REACH:]) or REFERENCE_DATED.search(clause):
        topic, topic_end = NEG, len(clause)
    distance = 0
    continues_range = len(pieces) == 1 and RANGE_TO.fullmatch(clause) is not None  # '令和8年7月27日（月）～' before it
    if topic is None and not continues_range and not (
        STRONG_CUE.search(clause) or STRONG_CUE.search(tail_text) or ACTION.search(clause)
    ):
        label = _column_label(document, mention)
        if label:
            clause = label + "\n"
            topic, topic_end = _classify(clause)
            distance = _LABEL_DISTANCE
    label_line = mention.line
    topic_lines = 0
    if topic is not None and not distance:  # a column header's line is too far to quote
        absolute = cut + topic_end - 1
        for index, (start, line) in enumerate(starts):
            if start <= absolute:
                label_line = line
                topic_lines = len(starts) - 1 - index
    elif topic is None:
        tail_topic, _ = _classify(tail_text)
        if tail_topic != NEG:
            topic, topic_end = tail_topic, len(clause)
    closing = CLOSING_CUE.search(clause) is not None or CLOSING_CUE.search(tail_text) is not None
    header = _column_header(document, mention)
    return Reading(
        topic=topic,
        topic_lines=topic_lines,
        topic_chars=len(clause) - topic_end if topic is not None else len(clause),
        strong_cue=STRONG_CUE.search(clause) is not None or STRONG_CUE.search(tail_text) is not None,
        weak_cue=WEAK_CUE.search(clause) is not None or TAIL_CUE.match(tail_text) is not None,
        closing_only=closing and topic is None,
        deadline_only=topic is None and DEADLINE_LABEL.search(clause) is not None,
        action=len(clause.strip()) <= _ACTION_LABEL and ACTION.search(clause) is not None,
        amended=AMENDED.search(clause) is not None or NEW_HEADER.search(header) is not None,
        original=ORIGINAL.search(clause) is not None or ORIGINAL.search(header) is not None,
        label_line=label_line,
        clause=clause,
        label_distance=distance,
    )


def _score(reading: Reading, wanted: str) -> float:
    """How much the clause says the date is the `wanted` deadline (0 when it does not)."""
    if reading.range_start:
        return 0.0
    if reading.topic == wanted and (reading.strong_cue or reading.weak_cue):
        score = 0.8 if reading.strong_cue else 0.62
    elif reading.topic == wanted and reading.action:
        score = 0.6
    elif wanted == SUB and reading.closing_only:
        score = 0.7
    elif wanted == SUB and reading.deadline_only:
        score = 0.6
    elif wanted == SUB and reading.topic is None and reading.strong_cue:
        score = 0.5
    else:
        return 0.0
    score -= 0.05 * reading.topic_lines
    if reading.label_distance:
        score -= 0.1
    if reading.topic_chars > 120:
        score -= 0.1
    if reading.amended:
        score += 0.15
    if reading.original:
        score -= 0.3
    return score


def _quote(document: Document, first: Line, last: Line) -> str:
    lines = [line for line in document.lines[first.index : last.index + 1] if line.text.strip()]
    return "\n".join(line.stripped for line in lines)


_last_read: Final[list[tuple[Document, list[tuple[Mention, Reading]]]]] = []
"""The readings of the last document read: both deadlines are chosen from the same readings."""


def _readings(document: Document) -> list[tuple[Mention, Reading]]:
    """Every date of the document with what its clause says, in reading order (kept for the last document,
    since submission_deadline and questions_deadline are called one after the other).

    'The closing date has been extended from 10 March 2026 to 20 March 2026': the second date's clause is
    only 'to', so it takes the first one's reading, amended, and the first one becomes the original."""
    if _last_read and _last_read[0][0] is document:
        return _last_read[0][1]
    found = mentions(document)
    dated = _Dated({mention.line.index for mention in found}, {})
    for mention in found:
        dated.starts.setdefault(mention.line.index, []).append(mention.start)
    previous_end: dict[int, int] = {}
    readings: list[tuple[Mention, Reading]] = []
    for mention in found:
        reading = _read(document, mention, previous_end, dated)
        previous_end[mention.line.index] = mention.end
        if mention.last is not mention.line:
            previous_end[mention.last.index] = 0
        if readings and reading.topic is None and not reading.closing_only:
            earlier_mention, earlier = readings[-1]
            near = (
                earlier_mention.line.page == mention.line.page and mention.line.index - earlier_mention.last.index <= 1
            )
            if near and earlier_mention.day == mention.day and SAME_DAY.fullmatch(reading.clause):
                # the same day written twice ('1447/03/15 هـ الموافق 2025/09/07 م', '15 września / 15.09.2021')
                reading = replace(earlier, amended=earlier.amended or reading.amended)
            elif near and (
                (earlier.amended and CHANGED_TO.fullmatch(reading.clause))
                or (reading.amended and len(reading.clause) <= _CHANGE_CLAUSE)
            ):
                # 'extended from 10 March 2026 to 20 March 2026', 'initialement fixée au 10 mars, est reportée au 24'
                readings[-1] = (earlier_mention, replace(earlier, original=True))
                reading = replace(earlier, amended=True, original=False)
            elif near and RANGE_TO.fullmatch(reading.clause):
                # a period, '2025. 1. 31. 00:00 ~ 2025. 2. 7. 10:00', 'с 30.03.2026 по 15.04.2026': its end is the
                # time limit its label names, its start none
                readings[-1] = (earlier_mention, replace(earlier, range_start=True))
                reading = replace(earlier, range_start=False)
        readings.append((mention, reading))
    _last_read[:] = [(document, readings)]
    return readings


def _candidates(document: Document, wanted: str) -> Iterator[Candidate[str]]:
    for mention, reading in _readings(document):
        score = _score(reading, wanted)
        if score <= 0:
            continue
        if mention.time is not None:
            score += 0.03
        first = reading.label_line if reading.label_line.index < mention.first.index else mention.first
        if mention.first.index - first.index > 2:
            first = mention.first
        yield Candidate(
            mention.value,
            mention.line.page,
            _quote(document, first, mention.last),
            score,
            f"{wanted} topic={reading.topic} lines={reading.topic_lines}",
        )


def _best(document: Document, wanted: str) -> Sourced[str] | None:
    """The best candidate; a day several labels agree on gains a little (the GSA-style list of parts all due
    the same day), never enough to lift a weak reading over the threshold on its own."""
    candidates = list(_candidates(document, wanted))
    support: dict[str, int] = {}
    for candidate in candidates:
        support[candidate.value[:10]] = support.get(candidate.value[:10], 0) + 1
    boosted = [
        replace(candidate, score=candidate.score + _SUPPORT * min(support[candidate.value[:10]] - 1, 3))
        for candidate in candidates
    ]
    chosen = choose(boosted, _THRESHOLD)
    return chosen.sourced() if chosen is not None else None


def submission_deadline(document: Document) -> Sourced[str] | None:
    """The time limit for receipt of tenders/bids/proposals/requests to participate, as printed."""
    return _best(document, SUB)


def questions_deadline(document: Document) -> Sourced[str] | None:
    """The last date for questions/clarification requests, as printed."""
    return _best(document, QUE)
