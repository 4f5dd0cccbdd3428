"""Read a PDF's own text layer (pdftotext) and judge whether it is real text or must be OCRed instead.

A text layer is worth taking when it is there: it is exact where OCR guesses, and it costs
milliseconds where OCR costs seconds. It is worth nothing when it is empty (a scan), nearly empty (a
scan with a stamped page number), or garbage: fonts without a Unicode map come out as control
characters, private-use code points or glyph ids shifted into ASCII ("7KH PXQLFLSDO" for "The
municipal"). ``text_layer_is_usable`` tells these apart with a few cheap, language-light tests; each
threshold below says why it is where it is.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from pathlib import Path

from tenderflow.pdf.tools import ToolOutputTooLargeError, run_tool

MIN_ALPHANUMERIC = 32
"""Fewer letters and digits than this is a near-empty page: a scan whose only text is a stamped
page number, Bates number or header ("Page 3 of 12", "CONFIDENTIAL"). A real page of a tender has
hundreds. Such a page is OCRed; a born-digital page this short (a cover saying "Annex B") keeps its
own text when OCR finds nothing else on it (see ocr.read_pages)."""

MAX_BROKEN_SHARE = 0.10
"""Share of non-space characters that no real text contains: private use (U+E000…, what symbolic
fonts and unmapped CIDs come out as), U+FFFD, controls (unmapped glyph codes 1-31) and unassigned
code points. Real text has next to none; a page of Wingdings bullets reaches a few percent; a font
without a Unicode map is mostly these."""

MIN_LETTERS_FOR_FREQUENCY = 100
"""Below this many Latin letters the letter-frequency tests are too noisy to trust (±5 points)."""

LATIN_MAJORITY = 0.5
"""Share of a page's letters and digits the Latin letters must make for those tests to apply at all:
glyph ids shifted into ASCII make a page almost wholly Latin; a Russian or Japanese page is not."""

MIN_VOWEL_SHARE = 0.28
"""Vowels (with y and accented vowels) are 37-45 % of the letters of English, German, French, Polish
and Czech prose, 33 % of an abbreviation-heavy price table. Glyph ids shifted into ASCII put the
vowels on rare letters (a vowel after the shift comes from b, f, l, r): 13-23 % measured on the same
texts shifted; uniform nonsense gives 23 %."""

COMMON_LETTERS = frozenset("etaoinsrhldcu")
MIN_COMMON_LETTER_SHARE = 0.60
"""These 13 letters are 83-95 % of the letters of English, German and French text and 69-71 % of
Polish and Czech; uniform nonsense gives 50 %, which has vowels enough to pass the test above."""

MIN_WORDLIKE_SHARE = 0.50
"""Share of letter tokens that look like words (a vowel, lower/Title/UPPER case, letters only). Real
prose is above 0.85, tables full of abbreviations ("Stk", "Nr", "MwSt") above 0.6; mixed-case
garbage ("xQzR", "KpwLq") and keyboard nonsense sit far below."""

MIN_TOKENS_FOR_WORDLIKE = 5

CASELESS_LETTER_SHARE = 0.6
"""Share of letters a token of a caseless script needs to count as word-shaped: a Chinese or Japanese
clause is 80-95 % letters, the rest its commas, brackets and digits."""

_VOWELS = frozenset("aeiouyæœø")
"""Vowels by their base letter: an accented vowel (é, ą, ů, and Vietnamese ạ, ặ, ồ, ữ with their stacked
marks) counts as the vowel it is written on (see _base_letter)."""
_EDGE_PUNCTUATION = "\"'“”‘’„«»‹›()[]{}<>.,;:!?¡¿…*•·-–—/\\|"
_WORD = re.compile(r"[^\W\d_]+(?:['’.\-][^\W\d_]+)*")
_JOINERS = re.compile(r"['’.\-]")
_MAX_CONSONANT_RUN = 5  # "Angstschweiß" has 8, but such words are rare; garbage is full of them
_CONSONANT_RUN = re.compile(rf"[b-df-hj-np-tv-xz]{{{_MAX_CONSONANT_RUN + 1},}}")


def extract_text_layer(
    path: Path, first_page: int, last_page: int, *, timeout_seconds: float, memory_bytes: int
) -> list[str]:
    """The text layer of pages first_page..last_page (1-based, inclusive), one string per page.

    One pdftotext run for the whole range (``-layout`` keeps table columns apart); pages are split on
    the form feed pdftotext ends each page with. A layer that pdftotext cannot extract (it exits
    non-zero, or prints more than the output cap) comes back as empty strings: the same as no layer,
    so OCR reads those pages and its renderer reports what is wrong with them. Raises
    ToolTimeoutError.
    """
    if not 1 <= first_page <= last_page:
        raise ValueError(f"bad page range {first_page}..{last_page}")
    count = last_page - first_page + 1
    try:
        result = run_tool(
            ["pdftotext", "-f", str(first_page), "-l", str(last_page), "-layout", "-enc", "UTF-8", str(path), "-"],
            timeout_seconds=timeout_seconds,
            memory_bytes=memory_bytes,
        )
    except ToolOutputTooLargeError:
        return [""] * count  # tens of MiB of "text" on a few pages is an attack, not a text layer
    if result.returncode != 0:
        return [""] * count
    pages = result.stdout.decode("utf-8", errors="replace").split("\f")
    # count pages plus the empty tail after the last form feed; a document whose text itself holds
    # form feeds splits into more parts, and those pages are read one by one instead.
    if len(pages) == count + 1:
        return pages[:count]
    if count == 1:
        return ["\n".join(pages)]
    return [
        extract_text_layer(path, number, number, timeout_seconds=timeout_seconds, memory_bytes=memory_bytes)[0]
        for number in range(first_page, last_page + 1)
    ]


_BIDI_CONTROLS = dict.fromkeys(map(ord, "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))
"""Invisible direction marks pdftotext writes around every right-to-left run (Arabic, Hebrew): they
carry no text and cut words and numbers apart for anything that reads the page."""


def tidy_text_layer(text: str) -> str:
    """Drop the trailing spaces and blank lines pdftotext -layout pads with, and its bidirectional
    control marks; keep the indentation."""
    return "\n".join(line.rstrip() for line in text.translate(_BIDI_CONTROLS).splitlines()).strip("\n")


_ALPHANUMERIC, _BROKEN, _LATIN, _VOWEL, _COMMON = 1, 2, 4, 8, 16


@functools.cache
def _character_class(character: str) -> int:
    """What ``character`` counts as, a bit set of the flags above (0 for white space). A page has
    thousands of characters and a few dozen distinct ones; the answers are kept."""
    if character.isspace():
        return 0
    flags = _ALPHANUMERIC if character.isalnum() else 0
    category = unicodedata.category(character)
    if character == "\ufffd" or category in ("Co", "Cn", "Cs", "Cc"):
        flags |= _BROKEN
    lowered = _base_letter(character)
    if "a" <= lowered <= "z" or lowered in _VOWELS:
        flags |= _LATIN
        flags |= _VOWEL if lowered in _VOWELS else 0
        flags |= _COMMON if lowered in COMMON_LETTERS else 0
    return flags


@functools.cache
def _base_letter(character: str) -> str:
    """The lower-case letter ``character`` is written on, its accents and tone marks dropped ('Ặ' → 'a',
    'ů' → 'u'); other characters lower-cased as they are."""
    lowered = character.lower()
    if lowered.isascii() or len(lowered) != 1:
        return lowered
    base = unicodedata.normalize("NFD", lowered)[0]
    return base if base.isascii() else lowered


@functools.lru_cache(maxsize=1 << 16)
def _token_class(raw_token: str) -> tuple[bool, bool]:
    """(lettered, wordlike) for one white-space separated token: lettered when it holds two letters
    or more and no digit ("2024/15", "EN1090-2", "A4" are neither words nor evidence of garbage);
    wordlike when it is also shaped like a word. Kept per distinct token: the vocabulary of a
    document's pages repeats from page to page."""
    token = raw_token.strip(_EDGE_PUNCTUATION)
    if sum(c.isalpha() for c in token) < 2 or any(c.isdigit() for c in token):
        return False, False
    return True, _is_wordlike(token)


def _is_wordlike(token: str) -> bool:
    if not any(c.islower() or c.isupper() for c in token):
        # Han, kana, Hangul, Thai: no spaces between words, so a token is a whole clause with its own
        # punctuation ('一、招标代理机构按照…，'); it is text when letters make most of it.
        return sum(c.isalpha() for c in token) >= CASELESS_LETTER_SHARE * len(token)
    if not _WORD.fullmatch(token):
        return False
    parts = _JOINERS.split(token)
    # Case is a test only for the parts of scripts that have it ('ИНН-KZ', 'PDF-版').
    cased = [part for part in parts if any(c.islower() or c.isupper() for c in part)]
    if not all(part.islower() or part.isupper() or part.istitle() for part in cased):
        return False
    folded = "".join(_base_letter(c) for c in "".join(parts))
    if not all("a" <= c <= "z" or c in _VOWELS for c in folded):
        return True  # another script: no vowel or consonant rule to apply
    return any(c in _VOWELS for c in folded) and not _CONSONANT_RUN.search(folded)


def text_layer_is_usable(text: str) -> bool:
    """True when ``text`` (one page of a text layer) is real text worth keeping instead of OCR.

    False for empty and near-empty pages (see MIN_ALPHANUMERIC) and for garbage (see
    ``text_layer_is_clean``).
    """
    counts = _character_counts(text)
    return counts[_ALPHANUMERIC] >= MIN_ALPHANUMERIC and _is_clean(text, counts)


def alphanumeric_count(text: str) -> int:
    """Letters and digits in ``text``: the measure of how much a page says, whatever its layout."""
    return _character_counts(text)[_ALPHANUMERIC]


def text_layer_is_clean(text: str) -> bool:
    """True when nothing in ``text`` looks like what fonts without a Unicode map produce, however
    short it is: private-use/replacement/control characters, glyph ids shifted into ASCII (too few
    vowels, wrong letter frequencies), or tokens that are not word-shaped."""
    return _is_clean(text, _character_counts(text))


_VISIBLE = 32  # a key of _character_counts beside the flags: every character that is not white space
_FLAGS = (_ALPHANUMERIC, _BROKEN, _LATIN, _VOWEL, _COMMON)
_ASCII_WITHOUT = {flag: bytes(b for b in range(128) if not _character_class(chr(b)) & flag) for flag in _FLAGS}
_ASCII_WHITESPACE = bytes(b for b in range(128) if chr(b).isspace())
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+")


def _character_counts(text: str) -> dict[int, int]:
    """How many characters of ``text`` carry each flag (and _VISIBLE: how many are not white space).

    This runs on every page of every born-digital document, so it counts in C: the ASCII characters
    by deleting, per flag, the bytes without it (``bytes.translate``), the few others once per
    distinct character (``Counter``), weighted by their count."""
    ascii_bytes = text.encode("ascii", "ignore")
    counts = {flag: len(ascii_bytes.translate(None, _ASCII_WITHOUT[flag])) for flag in _FLAGS}
    counts[_VISIBLE] = len(ascii_bytes.translate(None, _ASCII_WHITESPACE))
    if text.isascii():
        return counts
    for character, count in Counter(_ASCII_RUNS.sub("", text)).items():
        flags = _character_class(character)
        if not flags and character.isspace():
            continue
        counts[_VISIBLE] += count
        for flag in _FLAGS:
            if flags & flag:
                counts[flag] += count
    return counts


def _is_clean(text: str, counts: dict[int, int]) -> bool:
    if counts[_BROKEN] > MAX_BROKEN_SHARE * counts[_VISIBLE]:
        return False
    latin = counts[_LATIN]
    # The letter-frequency tests judge Latin text; on a Cyrillic, Greek or CJK page the few Latin
    # letters are codes and abbreviations ('44-FZ', 'ИНН', 'PDF'), whose vowels prove nothing.
    if latin >= MIN_LETTERS_FOR_FREQUENCY and latin >= LATIN_MAJORITY * counts[_ALPHANUMERIC]:
        if counts[_VOWEL] < MIN_VOWEL_SHARE * latin:
            return False
        if counts[_COMMON] < MIN_COMMON_LETTER_SHARE * latin:
            return False
    lettered = wordlike = 0
    for raw_token, count in Counter(text.split()).items():
        is_lettered, is_wordlike = _token_class(raw_token)
        lettered += count if is_lettered else 0
        wordlike += count if is_wordlike else 0
    return not (lettered >= MIN_TOKENS_FOR_WORDLIKE and wordlike < MIN_WORDLIKE_SHARE * lettered)
