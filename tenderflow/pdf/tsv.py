"""Tesseract's TSV read back: the page's text (its words joined as printed, specks of dust left
out), the mean word confidence, the words with their boxes for a searchable PDF, and whether the
lines run vertically. `tenderflow.pdf.ocr` writes the TSV; this reads it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple


def text_from_tsv(tsv: str) -> tuple[str, float | None]:
    """Text and mean word confidence from tesseract's TSV.

    Words are joined by spaces within a line, lines by newlines within a paragraph, paragraphs by a
    blank line, the layout tesseract's own text output has. Specks (`_is_speck`: a box a fraction of
    the page's letters in both directions, read with little confidence) are left out of the text: a
    scan's dust read as '2' or 'i 5' at the end of a line became part of the reference or title
    there. Confidence is the mean over recognized words (conf >= 0), specks included, None when there
    are none (a blank page).
    """
    words = _tsv_words(tsv)
    letter_height = _letter_height(words)
    paragraphs: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    for word in words:
        if not _is_speck(word, letter_height):
            paragraphs.setdefault(word.paragraph, {}).setdefault(word.line, []).append(word.text)
    confidences = [word.confidence for word in words if word.confidence >= 0]
    text = "\n\n".join("\n".join(_joined(line) for line in lines.values()) for lines in paragraphs.values())
    mean = round(sum(confidences) / len(confidences), 1) if confidences else None
    return text, mean


class _Word(NamedTuple):
    paragraph: tuple[str, str, str]  # page, block, paragraph
    line: str
    text: str
    confidence: float
    left: int
    top: int
    width: int
    height: int


def _tsv_words(tsv: str) -> list[_Word]:
    """The words (level 5 rows with text) of tesseract's TSV, in its order."""
    words = []
    for row in tsv.splitlines()[1:]:
        # level, page, block, paragraph, line, word, left, top, width, height, conf, text
        fields = row.split("\t", 11)
        if len(fields) != 12 or fields[0] != "5" or not fields[11].strip():
            continue
        try:
            left, top, width, height = (int(value) for value in fields[6:10])
            words.append(_Word((fields[1], fields[2], fields[3]), fields[4], fields[11].strip(), float(fields[10]),
                               left, top, width, height))
        except ValueError:
            continue
    return words


SPECK_SIZE = 0.25
"""A box whose width and height are both under this share of the page's letter height is a speck
when read with little confidence (`SPECK_CONFIDENCE`): dust, a stain's edge, a staple hole. A full
stop or a hyphen standing alone is as small in one direction at most, or read with confidence."""
SPECK_CONFIDENCE = 70.0


def _letter_height(words: Sequence[_Word]) -> float | None:
    """The median height of the page's words of three letters or more read with confidence: the size of
    its print, whatever the resolution of the render."""
    heights = sorted(word.height for word in words
                     if word.confidence >= SPECK_CONFIDENCE and sum(c.isalnum() for c in word.text) >= 3)
    return float(heights[len(heights) // 2]) if heights else None


def _is_speck(word: _Word, letter_height: float | None) -> bool:
    if letter_height is None or len(word.text) > 2 or word.confidence >= SPECK_CONFIDENCE:
        return False
    if _WITHOUT_SPACES.search(word.text):  # '、', '。': small by design in the scripts written without spaces
        return False
    return max(word.width, word.height) < SPECK_SIZE * letter_height


_WITHOUT_SPACES = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
                             r"\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]")
"""Han, kana, Thai and CJK punctuation: scripts printed without spaces between words, which tesseract
reads as one 'word' per character or two ('一 般 競 争 入 札 公告')."""


def _joined(words: Sequence[str]) -> str:
    """A line's words joined as printed: by a space, except where a character of a script written without
    spaces meets another or a digit ('一般競争入札公告', '令和8年4月2日'). Hangul is written with spaces
    between words: kept."""
    text = ""
    for word in words:
        if text and not _closed_up(text[-1], word[0]):
            text += " "
        text += word
    return text


def _closed_up(before: str, after: str) -> bool:
    """Whether no space stands between these two characters in print (see _joined)."""
    unspaced = [_WITHOUT_SPACES.match(character) is not None for character in (before, after)]
    return any(unspaced) and all(flag or character.isdigit() for flag, character in zip(unspaced, (before, after),
                                                                                         strict=True))


def lines_run_vertically(tsv: str) -> bool:
    """True when most of what tesseract read (by characters) sits on lines taller than they are
    wide: a page fed in sideways whose lines layout analysis took for vertical text."""
    vertical = horizontal = 0
    lines: dict[tuple[str, ...], list[int]] = {}
    for word in _tsv_words(tsv):
        left, top, right, bottom = word.left, word.top, word.left + word.width, word.top + word.height
        box = lines.setdefault((*word.paragraph, word.line), [left, top, right, bottom, 0])
        box[:4] = [min(box[0], left), min(box[1], top), max(box[2], right), max(box[3], bottom)]
        box[4] += len(word.text)
    for left, top, right, bottom, characters in lines.values():
        if characters < 3:
            continue  # "1", "a)": no shape to go by
        if bottom - top > right - left:
            vertical += characters
        else:
            horizontal += characters
    return vertical > horizontal


def page_layout(tsv: str, *, turned: int) -> dict[str, Any] | None:
    """The words of tesseract's TSV with their boxes, and the size of the image it read (its page row),
    as ``PageText.layout``; None when the TSV has no page row."""
    size: tuple[int, int] | None = None
    for row in tsv.splitlines()[1:]:
        fields = row.split("\t", 11)
        if len(fields) == 12 and fields[0] == "1" and fields[8].isdigit() and fields[9].isdigit():
            size = (int(fields[8]), int(fields[9]))
            break
    if size is None:
        return None
    words = _tsv_words(tsv)
    letter_height = _letter_height(words)
    return {"width": size[0], "height": size[1], "turned": turned, "words": [
        [word.left, word.top, word.width, word.height, word.text] for word in words
        if not _is_speck(word, letter_height)]}
