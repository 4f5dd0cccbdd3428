"""Phrase tables as regexes by script: what a line holds is found whatever its scripts, in reading order."""

from __future__ import annotations

from tenderflow.extraction.backend import Page
from tenderflow.extraction.offline.document import Document, fold
from tenderflow.extraction.offline.phrase_tables import Lexicon, scripts_of

_TABLE = {
    "open": ("open procedure", "公开招标", "открытый конкурс"),
    "restricted": ("restricted procedure", "邀请招标"),
}


def test_phrases_of_several_scripts_on_one_line_come_in_reading_order() -> None:
    line = fold("邀请招标 (restricted procedure), then Открытый конкурс and 公开 招标")
    found = [(code, match.group()) for code, match in Lexicon(_TABLE).matches(line)]
    assert found == [("restricted", "邀请招标"), ("restricted", "restricted procedure"),
                     ("open", "открытыи конкурс"), ("open", "公开 招标")]


def test_a_phrase_in_a_script_without_spaces_needs_no_word_boundary() -> None:
    found = [code for code, _ in Lexicon(_TABLE).matches(fold("本项目采用公开招标方式"))]
    assert found == ["open"]


def test_a_latin_phrase_needs_its_word_boundaries() -> None:
    assert list(Lexicon(_TABLE).matches("reopen procedures")) == []


def test_a_document_is_searched_for_the_phrases_of_its_scripts() -> None:
    document = Document.of([Page(1, "Способ: Открытый конкурс\n"), Page(2, "Procedure: open procedure\n")])
    hits = [(hit.line.page, hit.label) for hit in Lexicon(_TABLE).find(document)]
    assert hits == [(1, "открытыи конкурс"), (2, "open procedure")]
    assert scripts_of(document.folded_text) == frozenset({"latin", "cyrillic"})
