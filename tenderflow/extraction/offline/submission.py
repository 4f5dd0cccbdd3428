"""The submission URL: a URL whose sentence says offers are submitted there, a platform field, or a buyer
profile; never a URL for help, terms, a legal text, or only for reading documents.

A URL's sentence is read in its own column: in a two-up page or beside running text, the words of the
other column are not its context; in a two-column form, the label on its left is ('Адрес электронной
площадки в информационно-телекоммуникационной сети «Интернет»   http://www.rts-tender.ru').
Sentences end at Latin and at CJK punctuation ('。', '；'), and a URL may be printed with a full-width
colon ('http：//www.jxcqgs.cn/jxcqcg/'). A URL that is the value of a form field labelled as the
submission address ('Address for submission: https://…', the eForms BT-18 labels of contact_lexicon.py) is
read from that label alone: the fields above it are not its sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from tenderflow.extraction.offline.candidates import Candidate
from tenderflow.extraction.offline.contact_context import previous_lines
from tenderflow.extraction.offline.contact_words import (
    BUYER_PROFILE,
    SUBMIT_NEGATIVE,
    SUBMIT_PLATFORM,
    SUBMIT_POSITIVE,
    SUBMIT_SOFT_NEGATIVE,
    URL,
)
from tenderflow.extraction.offline.document import Document, Line, fold

_SENTENCE_END: Final = re.compile(r"[.!?;]\s|[。！？；]")
_RUNNING_TEXT: Final = 5
"""Words left of a URL's column from which they are another column's running text, not the URL's label."""
_FIELD_LABEL: Final = re.compile(r"\s*[^\W\d_][^.:;：]{1,80}[:：]\s*")
"""A form field's label before its value: words and a colon, no sentence end in it."""


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of `text` that holds the span start..end (a URL's own final dot does not end it)."""
    boundaries = [match.end() for match in _SENTENCE_END.finditer(text[:start])]
    begin = boundaries[-1] if boundaries else 0
    after = _SENTENCE_END.search(text[end:])
    return text[begin : end + after.start() if after else len(text)]


def _url_value(printed: str) -> str | None:
    """The URL as a value: its trailing punctuation off (a final '/' kept), a full-width colon made plain;
    None for what is too short to be a site."""
    value = printed.rstrip(".,;:)/") + ("/" if printed.rstrip(".,;:)").endswith("/") else "")
    value = value.replace("：", ":")
    return value if value.count(".") >= 1 and len(value) >= 8 else None


def _column_start(line: Line, start: int) -> int:
    """Where the URL's own column starts on its line: the start of its cell when running text of another
    column stands left of it (a two-up page), else 0 (the whole line is the URL's context)."""
    cell = line.cell_at(start)
    if cell is None or cell.start == 0 or len(line.text[: cell.start].split()) < _RUNNING_TEXT:
        return 0
    return max(cell.start - 4, 0)


def _contexts(document: Document, line: Line, start: int, end: int) -> tuple[str, str, str]:
    """The URL's sentence, the text just before it, and the two lines above: all in the URL's column."""
    column = _column_start(line, start)
    page = document.lines_of(line.page)
    paragraph: list[Line] = []  # the lines above in the same paragraph (no blank line between)
    for other in reversed(page[max(0, line.row - 2) : line.row]):
        if not other.text.strip():
            break
        paragraph.insert(0, other)
    following = [other.folded[column:].strip() for other in document.next_lines(line, 1, skip_blank=False)
                 if other.text.strip()]
    head = " ".join([*(other.folded[column:].strip() for other in paragraph), line.folded[column:start].strip()])
    tail = " ".join([line.folded[end:].strip(), *following])
    window = re.sub(r"-\s+(?=[a-z])", "", f"{head} <url> {tail}")
    url_at = window.find("<url>")
    near = " ".join([*(other.folded[column:] for other in paragraph[-1:]), line.folded[column:start]])
    wider = " ".join(other.folded[column:] for other in reversed(previous_lines(document, line, 2)))
    return _sentence_around(window, url_at, url_at + 5), near, wider


def _own_label_says_submission(line: Line, start: int, value: str) -> bool:
    """Whether the URL is the value of a field whose label, alone on its left, says offers are submitted there
    ('Address for submission: https://…', 'Adresse für die Einreichung: https://…'): the lines above are then
    other fields of the form, not the URL's sentence, and their words ('Deadline for requesting additional
    information: …') say nothing of it."""
    label = line.folded[_column_start(line, start) : start]
    return (
        _FIELD_LABEL.fullmatch(label) is not None
        and SUBMIT_POSITIVE.search(label) is not None
        and not SUBMIT_NEGATIVE.search(label)
        and not SUBMIT_NEGATIVE.search(fold(value))
    )


def _score(document: Document, line: Line, start: int, end: int, value: str) -> float | None:
    """How surely the URL at start..end of `line` is where offers are submitted, or None."""
    if _own_label_says_submission(line, start, value):
        return 0.7
    sentence, near, wider = _contexts(document, line, start, end)
    if SUBMIT_NEGATIVE.search(sentence) or SUBMIT_NEGATIVE.search(fold(value)):
        return None
    if SUBMIT_SOFT_NEGATIVE.search(sentence) and not SUBMIT_POSITIVE.search(sentence):
        return None
    host = re.sub(r"^(?:https?://)?(?:www\.)?", "", fold(value)).split("/")[0]
    named = [word for word in re.split(r"[.-]", host)[:-1] if len(word) >= 5 and word in wider]
    platform = SUBMIT_PLATFORM.search(line.folded[:start])
    if SUBMIT_POSITIVE.search(sentence):
        return 0.7
    if SUBMIT_POSITIVE.search(wider) and named:
        return 0.6  # 'Składanie ofert ... platformy MINIPORTAL.' / '(miniportal: https://miniportal...)'
    if platform is not None and re.fullmatch(r"[^.]{0,25}[:：]\s*", line.folded[platform.end() : start]):
        return 0.5  # 'e-Vergabesystem: https://...', 'Plateforme : https://...'
    if SUBMIT_PLATFORM.search(near) or BUYER_PROFILE.search(near):
        return 0.45
    return None


_WRAPPED_SCHEME: Final = re.compile(r"(https?)[:：]\s*$", re.IGNORECASE)
_SCHEMELESS: Final = re.compile(r"^\s*//([^\s<>\"'()\[\]{}（）“”‘’，。、；]+)")


def _urls(document: Document, line: Line) -> Iterator[tuple[re.Match[str], str, str]]:
    """(match on the line, URL as printed, quote) of the URLs on `line`, one whose scheme the layout left
    at the end of the line above included ('…平台（http：' / '//ggzy.example.cn/jhztb/）…')."""
    for match in URL.finditer(line.text):
        yield match, match.group(), line.stripped
    above = document.lines_of(line.page)[line.row - 1] if line.row > 0 else None
    wrapped = _SCHEMELESS.match(line.text)
    scheme = _WRAPPED_SCHEME.search(above.text) if above is not None and wrapped is not None else None
    if wrapped is not None and scheme is not None and above is not None:
        yield wrapped, f"{scheme.group(1)}://{wrapped.group(1)}", f"{above.stripped}\n{line.stripped}"


def url_candidates(document: Document) -> Iterator[Candidate[str]]:
    """URLs whose sentence says offers are submitted there (or whose host the submission sentence
    names), a platform field ('e-Vergabesystem: https://...'), below that a buyer profile; never a URL
    in a sentence about help, terms, law, forms, or only about documents and publication."""
    for line in document.lines:
        if "http" not in line.folded and "www." not in line.folded and "//" not in line.text:
            continue
        for match, printed, quote in _urls(document, line):
            value = _url_value(printed)
            score = _score(document, line, match.start(), match.end(), value) if value is not None else None
            if value is not None and score is not None:
                yield Candidate(value, line.page, quote, score, "submission url")
