"""Reference numbers, folded for matching: when two documents name the same tender.

A buyer prints its file number in many ways: 'DPC2142' and 'Request No.: DPC2142', '173087' on the
cover letter and '173087_75 112/0012' on the notice, 'KCC-RD-2025-014' and 'KCC RD 2025 014'. Two
references are the same (`same_reference`) when their letters and digits are equal, or when the
shorter one's words are a run of the longer one's words and it is distinctive enough to name a
tender on its own (at least 5 letters and digits, a digit among them, not a year alone).

`match_tokens` are what the database looks candidates up by (a GIN index over a text[]): the words
and word pairs of a reference that are distinctive. A candidate found by them is then checked with
`same_reference`.

Pure: no database.
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W_]+")
_YEAR = re.compile(r"(?:19|20)\d\d")
MIN_DISTINCT = 5


def fold(text: str) -> str:
    """Lower-case text without accents ('März' → 'marz'), as the offline extractor folds it; here so
    that a command that only touches tenders does not import the extractor's tables (babel)."""
    if text.isascii():
        return text.casefold()
    decomposed = unicodedata.normalize("NFKD", text.replace("ß", "ss"))
    return "".join(character for character in decomposed if not unicodedata.combining(character)).casefold()


def words(reference: str) -> list[str]:
    """The reference's words: runs of letters and digits, folded ('KCC-RD-2025-014' → kcc rd 2025 014)."""
    return _WORD.findall(fold(reference))


def _distinctive(token: str) -> bool:
    return len(token) >= MIN_DISTINCT and any(c.isdigit() for c in token) and not _YEAR.fullmatch(token)


def match_tokens(reference: str) -> list[str]:
    """What a reference is looked up by: the whole of it run together, each distinctive word, and each
    pair of neighbouring words run together (so 'EH-2026-0417' and 'EH-2026-0417/A1' share '20260417')."""
    found = words(reference)
    tokens = {"".join(found)} | set(found) | {a + b for a, b in zip(found, found[1:], strict=False)}
    return sorted(token for token in tokens if _distinctive(token))


def same_reference(a: str, b: str) -> bool:
    """Whether references `a` and `b` name the same tender (see the module's docstring)."""
    first, second = words(a), words(b)
    if not first or not second:
        return False
    if "".join(first) == "".join(second):
        return _distinctive("".join(first))
    shorter, longer = sorted((first, second), key=len)
    if not _distinctive("".join(shorter)):
        return False
    size = len(shorter)
    return any(longer[start:start + size] == shorter for start in range(len(longer) - size + 1))
