"""What a buyer's name looks like: an organisation (an organisation word, capitalised, short, no contact
data), cut from what follows it on its line, continued when the layout wraps it.
"""

from __future__ import annotations

import re
from typing import Final

from tenderflow.extraction.offline.buyer_words import (
    BUYER_LABEL,
    FUNCTION_END,
    FUNCTION_START,
    NAME_SUBLABEL,
    ORG_WORDS,
    OTHER_PARTY_LABEL,
    PERSON,
    SUBUNIT,
    WEAK_ORG,
)
from tenderflow.extraction.offline.contact_context import MAX_NAME_WORDS, clean_value, placeholder
from tenderflow.extraction.offline.contact_words import STREET, STREET_WORD
from tenderflow.extraction.offline.document import Document, Line, fold
from tenderflow.extraction.offline.form_fields import FieldValue, field_value


def looks_like_name(value: str, *, strict: bool) -> bool:
    """Whether a label's value can be an organisation's name: short, mostly letters, no contact data,
    not another label; `strict` (running text) also wants an organisation word."""
    if not 2 <= len(value) <= 160 or placeholder(value):
        return False
    folded = fold(value)
    words = folded.split()
    if len(words) > MAX_NAME_WORDS or "@" in value or "http" in folded or "www." in folded:
        return False
    if re.search(r"[\u0600-\u06ff]", value) and re.search(r"[a-zA-Z]", value):
        return False  # Arabic and Latin letters mixed: an OCR misreading ('جامعة pl القرى')
    letters = sum(character.isalpha() for character in value)
    digits = sum(character.isdigit() for character in value)
    if letters < 3 or digits > max(4, letters // 3):
        return False
    if BUYER_LABEL.search(folded) and not ORG_WORDS.search(BUYER_LABEL.sub(" ", folded)):
        return False
    if re.match(r"^(?:(?:\d+|[ivx]+|[a-h])[.)])+\s", folded) or (len(words) == 1 and digits):
        return False  # a numbered heading ('2. Angaben zum Verfahren'), a reference ('MA20CWTC01')
    if re.match(r"^(?:(?:see|voir|siehe|vedi|ver|wie|cf|as|same|idem|n/?a|none|nil|keine|aucun|tbd)\b|\W)", folded):
        return False  # 'Wie Hauptauftraggeber siehe a)', 'see above', 'N/A'
    if re.search(r"\b(?:denominazione|indirizz|punti di contatto|names? and address|nom et adresse|"
                 r"dati|contact point|address|adresse|anschrift)", folded):
        return False
    if len(words) <= 2 and NAME_SUBLABEL.match(folded + ": x"):
        return False  # 'Name', 'Official name': a field's label, not its value
    if len(words) == 1 and len(folded) < 12 and ORG_WORDS.fullmatch(folded.strip("() ")):
        return False  # 'County', 'the Department': a role, not a name
    if PERSON.match(folded):
        return False  # 'M. le maire', 'Mrs Jane Doe': a person, not the organisation
    has_org = ORG_WORDS.search(folded) is not None
    if STREET.search(folded) and (not has_org or STREET.match(folded)):
        return False  # 'Olshausenstraße 62' is where the buyer is, not who
    if strict and not has_org:
        return False
    if not has_org:
        # A name without an organisation word must at least look like one: capitalised words, no verb-ish
        # sentence ('shall', 'will', ...), not too long.
        if len(words) > 10 or re.search(r"\b(?:shall|will|must|may|should|is|are|be|the following)\b", folded):
            return False
        if not value[:1].isupper() and not value[:1].isdigit():
            return False  # a script without case needs an organisation word
    return True


NAME_CUT: Final = re.compile(
    r"\s+[-–—]\s+(?=(?:" + STREET_WORD + r")\b|\d)"
    r"|,\s*(?=(?:" + STREET_WORD + r")\b\.?\s|\d{2,}|(?:tel|tél|phone|fax|c\.?f|p\.?\s?iva|vat|siret|nip|e-?mail"
    r"|pec|courriel)\b|http|www)"
    r"|\s+\|\s+|\s+\(?(?:tel|tél|phone|fax)\b|\s+[-–]\s+\d[\d.]+$|\s*\*+\s*$"
    r"|(?<=\S)\s+(?:[^\s:：]+\s+)?[^\s:：]+\s*[:：]"
)


GENITIVE_BEFORE: Final = re.compile(
    r"(?<![^\W_])(?:der|des|of the|of|de la|de l'|du|della|dello|dell'|del|dei|degli|delle|van de|van het|van)\s*$"
)
"""An article or preposition of possession before an organisation word: the line names something of it."""


def proper_name(value: str) -> bool:
    """Whether every word of a name read from a sentence is capitalised but its small linking words
    ('Comune di Serino', not 'Government are not lost')."""
    for word in re.findall(r"[^\W\d_][\w'’-]*", value):
        if not word[0].islower() or len(word) <= 3 or FUNCTION_END.fullmatch(fold(word)):
            continue
        return False
    return True


def strong_org(folded: str) -> bool:
    """Whether a folded line names an organisation on its own: an organisation word that is not also
    a title word, or one followed by what it is of ('Department of Health', 'Office de ...')."""
    for match in ORG_WORDS.finditer(folded):
        if not WEAK_ORG.fullmatch(match.group()):
            return True
        if re.match(r"\s+(?:of|de|du|des|di|del|della|für|fur|van)\s", folded[match.end() :]):
            return True
    return False


def cut_name(text: str) -> str:
    """The name alone: without the address, phone or codes that follow it on the same line."""
    folded = fold(text)
    match = NAME_CUT.search(folded)
    value = text[: match.start()] if match else text
    return clean_value(value).rstrip(" .-–")


def continued(document: Document, line: Line, value: str, column: int) -> tuple[str, list[Line]]:
    """A name wrapped onto more lines: a two-column form's field (see form_fields), or a name continued
    after a linking word or onto a line that opens with one ('... Department of the' / 'Premier and
    Cabinet', 'Communauté d'agglomération' / 'du Pays de …')."""
    field = field_value(document, line, column)
    if field is not None and len(field.lines) > 1:
        wrapped = _wrapped(field, value)
        if wrapped is not None:
            return wrapped
    ends_open = FUNCTION_END.search(fold(value)) is not None
    for following in document.next_lines(line, 1):
        if following.row != line.row + 1 and not ends_open:
            break
        cell = following.cell_at(max(column - 2, 0))
        if cell is None or cell.start > column + 20:
            break
        if not ends_open and not (abs(cell.start - column) <= 3 and cell.text[:1].islower()
                                  and FUNCTION_START.match(fold(cell.text)) and ":" not in cell.text):
            break
        addition = cut_name(cell.text)
        if addition and len(addition.split()) <= 8:
            return f"{value} {addition}", [line, following]
    return value, [line]


def _unfinished(value: str) -> bool:
    """Whether a name stops before its end: an open quote or bracket, a trailing comma, hyphen or
    linking word ('ОБЩЕСТВО ... "АРКТИК' / 'АТОМ-СЕРВИС"')."""
    straight = value.count('"') % 2 == 1
    paired = any(value.count(opening) > value.count(closing) for opening, closing in ("«»", "“”", "()", "„“"))
    trailing = value.rstrip().endswith((",", "-", "–"))
    return straight or paired or trailing or FUNCTION_END.search(fold(value)) is not None


def _wrapped(field: FieldValue, first: str) -> tuple[str, list[Line]] | None:
    """The name a wrapped field holds: every line of a block (its role word 'Заказчик' dropped; an empty
    name when the role names another party, 'Уполномоченный орган'); under a label with a colon, the next
    lines while the name is unfinished or both lines are in capitals. None: not a wrapped name."""
    if field.block:
        text = field.text
        role = BUYER_LABEL.match(fold(text))
        if role is not None and role.end() < len(text):
            text = text[role.end() :]
        elif OTHER_PARTY_LABEL.match(fold(text)):
            return "", list(field.lines)  # the agent placing the notice ('Уполномоченный орган'): no name
        value = cut_name(text)
        return (value, list(field.lines)) if looks_like_name(value, strict=False) else None
    value, lines = first, [field.lines[0]]
    for line, part in zip(field.lines[1:], field.parts[1:], strict=True):
        if not (_unfinished(value) or (value.isupper() and part.isupper())) or ":" in part:
            break
        value, lines = cut_name(f"{value} {part}"), [*lines, line]  # its quotes balance only together
    return (value, lines) if len(lines) > 1 else None


_SUBUNIT_SEPARATOR: Final = re.compile(r"\s*(?:,|\s[-–—/|]\s|\s{3,})\s*")


def without_subunit(value: str) -> str:
    """The organisation without the department or office printed after or before it ('City of
    Springfield, Purchasing Department' → 'City of Springfield'; 'Δήμος Λαρισαίων - Διεύθυνση
    Αμαξοστασίου' → 'Δήμος Λαρισαίων'; 'Direction des achats, Ville de Lyon' → 'Ville de Lyon'), when
    what stays is an organisation itself."""
    folded = fold(value)
    for separator in _SUBUNIT_SEPARATOR.finditer(folded):
        head, tail = folded[: separator.start()], folded[separator.end() :]
        if SUBUNIT.match(tail) and ORG_WORDS.search(head) and not SUBUNIT.match(head):
            return clean_value(value[: separator.start()])
        if SUBUNIT.match(head) and ORG_WORDS.search(tail) and not SUBUNIT.match(tail):
            return clean_value(value[separator.end() :])  # 'Direction des achats, Ville de Lyon'
    return value
