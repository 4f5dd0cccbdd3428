"""Whose block a line stands in. Notices list their parties one under the other, each with its contacts:

    招 标 人：宁波华润兴光燃气有限公司          <- the buyer's block
    电   话：0574-27707127
    招标代理机构：宁波华欣建设项目管理有限公司     <- the agent's block: its address and phone are not the buyer's
    地   址：宁波市江北区长兴路 715 号恒凯大厦 603 室
    监管单位：宁波城建投资集团有限公司           <- the supervising body's block
    邮   箱：nbctgs-hy89284188@nbuci.com

A line belongs to the party whose label last opened a block above it (on its page, within a few lines): a
buyer label, or the label of another party (an agent, a supervisor, a designer, a bidder; see
buyer_lexicon.OTHER_PARTY_LABELS). A label opens a block when it starts its line and heads a field (a
colon, a column gap, or nothing after it).
"""

from __future__ import annotations

import re
from typing import Final, Literal

from tenderflow.extraction.offline.buyer_lexicon import HEADING_WORDS_UNSPACED
from tenderflow.extraction.offline.buyer_words import (
    BUYER_LABEL,
    HEADING_ONLY,
    NAME_SUBLABEL,
    OTHER_PARTY_LABEL,
    label_key,
    words_pattern,
)
from tenderflow.extraction.offline.contact_context import LIST_ITEM, label_hits
from tenderflow.extraction.offline.document import Document, LabelHit, Line

Party = Literal["buyer", "other"]

_PARTY_LINES: Final = 10
"""How many lines a party's block may run under its label."""
_HEADS_FIELD: Final = re.compile(
    r"\s*(?:\([^)]{0,40}\))?\s*(?:" + words_pattern(HEADING_WORDS_UNSPACED) + r")?\s*(?:[:：]|\s{2,}|$)"
    r"|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]{1,6}\s*[:：]"
)
"""What follows a party's label that opens its block: a colon, a gap, nothing, a heading word
('采购人信息'), or the field of the party it opens ('采购代理机构地址：', '招标人联系方式：')."""

_CACHE: list[tuple[Document, dict[tuple[int, int], Party]]] = []


def heads_name_field(document: Document, hit: LabelHit) -> bool:
    """Whether a buyer label that is a common word elsewhere (buyer_words.HEADING_ONLY: eForms' '1.1. Nabywca')
    heads the buyer's block here: alone on its line, with the form's name field on the next one ('Oficjalna
    nazwa: …'). Other labels always may."""
    if label_key(hit.label) not in HEADING_ONLY:
        return True
    if not hit.at_line_start or hit.line.folded[hit.end :].strip(" \t:："):
        return False
    following = document.next_lines(hit.line, 1)
    return bool(following) and NAME_SUBLABEL.match(following[0].folded) is not None


def _party_labels(document: Document) -> dict[tuple[int, int], Party]:
    """(page, row) of every line that opens a party's block, with the party (another party's label wins
    over a buyer label on the same line: '采购代理机构' names the agent)."""
    for cached, found in _CACHE:
        if cached is document:
            return found
    labels: dict[tuple[int, int], Party] = {}
    pairs: tuple[tuple[re.Pattern[str], Party], ...] = ((BUYER_LABEL, "buyer"), (OTHER_PARTY_LABEL, "other"))
    for pattern, party in pairs:
        for hit in label_hits(document, pattern):
            if hit.at_line_start and _HEADS_FIELD.match(hit.line.folded, hit.end) and heads_name_field(document, hit):
                labels[(hit.line.page, hit.line.row)] = party
    _CACHE[:] = [(document, labels)]
    return labels


def party_of(document: Document, line: Line) -> Party | None:
    """The party whose block `line` stands in, or None when no party label opens one above it, or when a
    new item of the notice's list ('（３）提出先', '4. …') starts between the label and the line."""
    labels = _party_labels(document)
    page = document.lines_of(line.page)
    items: list[int] = []  # indentation of the list items met on the way up
    for row in range(line.row, max(-1, line.row - _PARTY_LINES - 1), -1):
        party = labels.get((line.page, row))
        if party is not None:
            indent = len(page[row].text) - len(page[row].text.lstrip())
            return None if any(item <= indent for item in items) else party
        if LIST_ITEM.match(page[row].folded):
            items.append(len(page[row].text) - len(page[row].text.lstrip()))
    return None
