"""Word lists as patterns over folded text, in scripts written with spaces and without.

The field readers' vocabularies (date_words.py, value_words.py) are written as people write them, with their
accents; `compile_folded` folds them the way document.fold folds the page ('προσφορές' → 'προσφορεσ', 'hạn nộp'
→ 'han nop', 'الأسئلة' without its hamza). `lexicon` puts words of scripts written with spaces on word
boundaries and lets words of scripts without them (Han, kana, Hangul, Thai) match anywhere: 入札 has no
boundary inside 入札書の提出期限.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from tenderflow.extraction.offline.document import fold


def compile_folded(pattern: str) -> re.Pattern[str]:
    """A pattern matched against folded text, its non-ASCII words folded the same way: fold() drops the
    hamza of 'الأسئلة' and the tanween of 'صباحاً', the accents of 'προσφορές' and 'hạn nộp', so the pattern
    must not expect them. An apostrophe also matches the typographic one ('dell’avviso', 'd’intérêt'): fold()
    makes it the ASCII one, in the text and in the pattern."""
    return re.compile(re.sub(r"[^\x00-\x7f]+", lambda match: fold(match.group()), pattern))


def lexicon(spaced: str, unspaced: str = "") -> str:
    """One alternation: `spaced` words on word boundaries, `unspaced` (CJK, Thai) words anywhere."""
    parts = [rf"(?<![^\W_])(?:{spaced})(?![^\W_])"] if spaced else []
    if unspaced:
        parts.append(f"(?:{unspaced})")
    return "|".join(parts)


def alternation(words: Iterable[str]) -> str:
    """A non-capturing alternation of `words` as a trie ('jan|janvier|januar' → 'jan(?:|uar|vier)', longest
    first), so that the regex engine tests each shared prefix once: a pattern of several hundred month names
    in forty languages costs what one of a few dozen does."""
    trie: dict[str, Any] = {}
    for word in set(words):
        node = trie
        for character in word:
            node = node.setdefault(character, {})
        node[""] = {}
    return _branches(trie)


def _branches(node: dict[str, Any]) -> str:
    branches = [re.escape(character) + _branches(child) for character, child in sorted(node.items()) if character]
    if "" in node:
        branches.append("")  # a word may end here: tried after every longer one
    if not branches:
        return ""
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
