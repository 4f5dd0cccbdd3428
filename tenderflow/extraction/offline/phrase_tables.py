"""Phrase tables as regexes over folded text, one per script the text is written in.

A table maps a code ('open', 'contract_notice', 'works') to the phrases that stand for it, in every
language read (code_words.py). A document in one script never needs the phrases of the others, and a
regex alternation costs in proportion to its branches at every position of the text, so a lexicon keeps
one pattern per set of scripts, built when first needed: a Latin-script line is searched for the Latin
phrases only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Final

from tenderflow.extraction.offline.document import Document, LabelHit, fold, is_unspaced
from tenderflow.extraction.offline.memo import LastDocument

SEPARATOR: Final = r"(?:[\s'/_-]|,(?=\s))+"
"""What may stand between two words of a phrase on folded text: spaces, apostrophes (fold makes the
typographic one "'"), slashes, hyphens, a comma ("Design, Supply and Installation"); not a full stop:
"… remains open. Tender documents …" is no open tender."""

_UNSPACED_PAIR: Final = re.compile(
    r"([\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3])"
    r"(?=[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3])"
)
"""A character of a script written without spaces (Thai, kana, Han, Hangul) followed by another."""
_UNSPACED_GAP: Final = "\\1 ?"  # folded text: the ideographic space is a space

_SCRIPTS: Final = (
    ("cyrillic", re.compile(r"[\u0400-\u04ff]")),
    ("greek", re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]")),
    ("cjk", re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff]")),
    ("thai", re.compile(r"[\u0e00-\u0e7f]")),
    ("hebrew", re.compile(r"[\u0590-\u05ff]")),
    ("arabic", re.compile(r"[\u0600-\u06ff]")),
    ("devanagari", re.compile(r"[\u0900-\u097f]")),
)
"""The scripts besides the Latin one, each with the characters that tell it."""


def phrase(source: str) -> str:
    """A phrase written with single spaces between words as a regex over folded text: each space becomes
    any run of spaces or punctuation (also inside a group: "(?:e )?tenders" allows "e-tenders"), and a space
    may stand between two characters of a script written without spaces ('입찰공 고'); the phrase may use
    regex syntax otherwise, with no literal space."""
    return SEPARATOR.join(_UNSPACED_PAIR.sub(_UNSPACED_GAP, fold(word)) for word in source.split(" "))


def alternation(phrases: Iterable[str]) -> str:
    """Phrases (longest first, so that 'appel d offres ouvert national' wins over 'appel d offres ouvert'
    at the same position) joined into one group bounded by non-word characters; a phrase in a script
    without spaces ('入札公告', '입찰공고', '招标公告') has no word boundary to rest on and is not bounded."""
    phrases = list(phrases)
    spaced = sorted({phrase(source) for source in phrases if not _unspaced(source)}, key=len, reverse=True)
    unspaced = sorted({phrase(source) for source in phrases if _unspaced(source)}, key=len, reverse=True)
    branches = [r"(?<![^\W_])(?:" + "|".join(spaced) + r")(?![^\W_])"] if spaced else []
    if unspaced:
        branches.append("(?:" + "|".join(unspaced) + ")")
    return "(?:" + "|".join(branches) + ")" if branches else r"(?!x)x"


def _unspaced(source: str) -> bool:
    return any(is_unspaced(character) for character in source)


def scripts_of(text: str) -> frozenset[str]:
    """The scripts `text` is written in: 'latin' always (numbers, codes and Latin words stand in any
    document), and each other script one of whose characters it holds."""
    if text.isascii():
        return _LATIN_ONLY
    return frozenset(["latin", *(name for name, characters in _SCRIPTS if characters.search(text))])


_LATIN_ONLY: Final = frozenset(["latin"])


document_scripts: Final = LastDocument(lambda document: scripts_of(document.folded_text))
"""The scripts a document is written in (see `scripts_of`), read once per document."""


def script_of(source: str) -> str:
    """The script a phrase is written in: that of its first letter outside the Latin script, else Latin."""
    folded = fold(source)
    for name, characters in _SCRIPTS:
        if characters.search(folded):
            return name
    return "latin"


class Lexicon:
    """A phrase table as regexes over folded text whose named groups tell which code a match stands for, one
    regex per script (compiled once, when the module that holds the table is imported). At one position the
    codes are tried in table order: a table lists its more specific families first ('bekanntmachung vergebener
    auftrage' is an award before 'bekanntmachung' is a call)."""

    def __init__(self, table: Mapping[str, Sequence[str]]) -> None:
        self.codes: tuple[str, ...] = tuple(table)
        by_script: dict[str, dict[str, list[str]]] = {}
        for code, phrases in table.items():
            for source in phrases:
                by_script.setdefault(script_of(source), {}).setdefault(code, []).append(source)
        self.patterns: dict[str, re.Pattern[str]] = {
            script: re.compile(
                "|".join(
                    f"(?P<g{index}>{alternation(phrases[code])})"
                    for index, code in enumerate(self.codes)
                    if code in phrases
                )
            )
            for script, phrases in by_script.items()
        }

    def matches(self, text: str) -> Iterator[tuple[str, re.Match[str]]]:
        """The code and the match of each phrase in `text` (folded), in reading order."""
        found = [match for script in scripts_of(text) if script in self.patterns
                 for match in self.patterns[script].finditer(text)]
        for match in sorted(found, key=lambda match: match.start()) if len(found) > 1 else found:
            group = match.lastgroup
            if group is not None:
                yield self.codes[int(group[1:])], match

    def find(self, document: Document) -> Iterator[LabelHit]:
        """Every phrase of the scripts `document` is written in, as `Document.find` gives them (see there),
        in reading order."""
        yield from find_each(document, [self.patterns[script] for script in document_scripts(document)
                                        if script in self.patterns])


def find_each(document: Document, patterns: Sequence[re.Pattern[str]]) -> Iterator[LabelHit]:
    """`Document.find` for each pattern, the hits merged in reading order."""
    if len(patterns) == 1:
        yield from document.find(patterns[0])
        return
    hits = [hit for pattern in patterns for hit in document.find(pattern)]
    yield from sorted(hits, key=lambda hit: (hit.line.index, hit.start))
