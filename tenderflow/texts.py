"""Text that comes from outside, one rule for all of it (review security-2, D-N4 and N3).

    Line                       an annotated str: one line of text with no control character
    control_character(text)    the first control character in `text`, or None
    visible(name)              a name as it is shown: without control or format characters

Every text parameter of the API (query, path, form and body fields: names, paths, filters, URLs,
descriptions) is a `Line`: NUL and the other control characters (C0, DEL, C1) are refused by its
one validator, with the error type `control_character`, which the API answers 400 (a NUL used to
reach PostgreSQL or the OS and answer 500). Free text a remote worker reports (an error, a page's
text) is not a Line: it is cleaned where it is stored.

A name shown to a person (a file name) also loses Unicode format characters (category Cf: U+202E and
the other bidirectional controls, which make 'a\u202eexe.pdf' read 'afdp.exe'; zero-width ones).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Final

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

CONTROL_CHARACTERS: Final = re.compile(r"[\x00-\x1f\x7f-\x9f]")
CONTROL_CHARACTER_ERROR: Final = "control_character"


def control_character(text: str) -> str | None:
    """The first control character of `text` (C0, DEL or C1), or None."""
    found = CONTROL_CHARACTERS.search(text)
    return found.group() if found else None


def _one_line(text: str) -> str:
    found = control_character(text)
    if found is not None:
        raise PydanticCustomError(
            CONTROL_CHARACTER_ERROR, "contains {character}, a control character: a name, path, filter or URL "
            "may hold none (NUL, tab, newline, escape…)", {"character": "NUL" if found == "\x00" else repr(found)})
    return text


Line = Annotated[str, AfterValidator(_one_line)]
"""A text parameter: one line with no control character (refused with error type `control_character`)."""


def visible(name: str) -> str:
    """`name` without control characters and Unicode format characters (Cf), as it is stored and
    shown; empty when nothing is left."""
    return "".join(char for char in name
                   if not CONTROL_CHARACTERS.match(char) and unicodedata.category(char) != "Cf")
