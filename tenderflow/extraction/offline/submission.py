"""The submission URL: a URL whose sentence says offers are submitted there, a platform field, or a buyer
profile; never a URL for help, terms, a legal text, or only for reading documents.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

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

# --- submission URL ------------------------------------------------------------------------------------------


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of `text` that holds the span start..end (a URL's own final dot does not end it)."""
    boundaries = [match.end() for match in re.finditer(r"[.!?;]\s", text[:start])]
    begin = boundaries[-1] if boundaries else 0
    after = re.search(r"[.!?;]\s", text[end:])
    return text[begin : end + after.start() if after else len(text)]


def url_candidates(document: Document) -> Iterator[Candidate[str]]:
    """URLs whose sentence says offers are submitted there (or whose host the submission sentence
    names), a platform field ('e-Vergabesystem: https://...'), below that a buyer profile; never a URL
    in a sentence about help, terms, law, forms, or only about documents and publication."""
    for line in document.lines:
        if "http" not in line.folded and "www." not in line.folded:
            continue
        page = document.lines_of(line.page)
        paragraph: list[Line] = []  # the lines above in the same paragraph (no blank line between)
        for other in reversed(page[max(0, line.row - 2) : line.row]):
            if not other.text.strip():
                break
            paragraph.insert(0, other)
        for match in URL.finditer(line.text):
            value = match.group().rstrip(".,;:)/") + ("/" if match.group().rstrip(".,;:)").endswith("/") else "")
            if value.count(".") < 1 or len(value) < 8:
                continue
            following = [other.folded.strip() for other in document.next_lines(line, 1, skip_blank=False)
                         if other.text.strip()]
            head = " ".join([*(other.folded.strip() for other in paragraph), line.folded[: match.start()].strip()])
            tail = " ".join([line.folded[match.end() :].strip(), *following])
            window = re.sub(r"-\s+(?=[a-z])", "", f"{head} <url> {tail}")
            url_at = window.find("<url>")
            sentence = _sentence_around(window, url_at, url_at + 5)
            near = " ".join([*(other.folded for other in paragraph[-1:]), line.folded[: match.start()]])
            if SUBMIT_NEGATIVE.search(sentence) or SUBMIT_NEGATIVE.search(fold(value)):
                continue
            if SUBMIT_SOFT_NEGATIVE.search(sentence) and not SUBMIT_POSITIVE.search(sentence):
                continue
            host = re.sub(r"^(?:https?://)?(?:www\.)?", "", fold(value)).split("/")[0]
            wider = " ".join(other.folded for other in reversed(previous_lines(document, line, 2)))
            named = [word for word in re.split(r"[.-]", host)[:-1] if len(word) >= 5 and word in wider]
            if SUBMIT_POSITIVE.search(sentence):
                score = 0.7
            elif SUBMIT_POSITIVE.search(wider) and named:
                score = 0.6  # 'Składanie ofert ... platformy MINIPORTAL.' / '(miniportal: https://miniportal...)'
            elif (platform := SUBMIT_PLATFORM.search(line.folded[: match.start()])) is not None and \
                    re.fullmatch(r"[^.]{0,25}[:：]\s*", line.folded[platform.end() : match.start()]):
                score = 0.5  # 'e-Vergabesystem: https://...', 'Plateforme : https://...'
            elif SUBMIT_PLATFORM.search(near):
                score = 0.45
            elif BUYER_PROFILE.search(near):
                score = 0.45
            else:
                continue
            yield Candidate(value, line.page, line.stripped, score, "submission url")

