"""The offline extractor's layout model: cells, label patterns, where values stand after a label."""

from __future__ import annotations

import re

from tenderflow.extraction.backend import Page
from tenderflow.extraction.offline.document import Document, fold, label_regex


def test_cells_are_runs_of_text_between_wide_gaps_one_character_ones_too() -> None:
    [line] = Document.of([Page(1, "e          informatici   Lot 2 price   €")]).lines
    assert [cell.text for cell in line.cells] == ["e", "informatici", "Lot 2 price", "€"]
    assert line.cells[1].start == 11


def test_fold_lowers_and_strips_accents_in_any_latin_language() -> None:
    assert fold("Date LIMITE de Réception") == "date limite de reception"
    assert fold("Maßnahme März Łódź") == "massnahme marz lodz"  # ł has no decomposition: folded as stroked
    assert fold("Hovedudførelsessted") == "hovedudforelsessted"  # ø likewise, one letter for one
    assert fold("Đà Nẵng") == "đa nang"  # the Vietnamese đ stays


def test_fold_makes_the_typographic_apostrophe_and_the_ideographic_space_plain_one_for_one() -> None:
    printed = "Avis d’attribution\u3000入札"
    assert fold(printed) == "avis d'attribution 入札"
    assert len(fold(printed)) == len(printed)  # positions in folded text are positions in the printed text


def test_a_label_matches_across_either_apostrophe_and_a_cjk_label_across_either_space() -> None:
    pattern = label_regex(["avis d attribution", "入札期限"])
    for printed in ("Avis d’attribution", "Avis d'attribution", "AVIS D ATTRIBUTION", "入札期限", "入札 期限",
                    "入札\u3000期限"):
        assert pattern.search(fold(printed)) is not None, printed
    assert pattern.search(fold("Avis d’attributions")) is None  # still whole words


def test_a_label_pattern_matches_whole_words_with_any_separators_and_prefers_the_longest_label() -> None:
    pattern = label_regex(["date limite", "date limite de reception des offres", "closing date", "date"])
    found = [match.group() for match in pattern.finditer(fold("Date limite de réception des offres : 3 mars"))]
    assert found == ["date limite de reception des offres"]
    assert pattern.search(fold("Closing   date: 15 March")) is not None
    assert pattern.search(fold("date-limite")) is not None  # punctuation between words
    assert pattern.search("update your records") is None  # not inside a word
    assert pattern.search("dates") is None


def test_find_gives_exactly_the_line_by_line_hits_even_for_labels_split_over_lines() -> None:
    text = "Closing\ndate: 15 March 2026\nThe closing date is the date\n____Date limite\nupdate"
    document = Document.of([Page(1, text), Page(2, "no label here"), Page(3, "DATE")])
    for pattern in (label_regex(["closing date", "date", "date limite"]), re.compile(r"^date"),
                    re.compile(r"(?<![^\W_])date(?![^\W_])")):
        expected = [(line.index, match.start(), match.end()) for line in document.lines
                    for match in pattern.finditer(line.folded) if line.text.strip()]
        got = [(hit.line.index, hit.start, hit.end) for hit in document.find(pattern)]
        assert got == expected and got


def test_values_are_offered_after_the_label_to_the_right_below_and_on_the_next_line() -> None:
    page = ("Reference:  KCC-RD-2025-014\n"
            "Closing date              Estimated value\n"
            "15 March 2026             EUR 4 850 000\n"
            "Contracting authority\n"
            "Kilbrook County Council")
    document = Document.of([Page(1, page)])
    reference = next(document.find(label_regex(["reference"])))
    assert [(span.how, span.text) for span in document.spans_after(reference)][0] == ("same", "KCC-RD-2025-014")
    closing = next(document.find(label_regex(["closing date"])))
    below = [(span.how, span.text) for span in document.spans_after(closing) if span.how == "below"]
    assert below[0] == ("below", "15 March 2026")
    value = next(document.find(label_regex(["estimated value"])))
    assert ("below", "EUR 4 850 000") in [(span.how, span.text) for span in document.spans_after(value)]
    buyer = next(document.find(label_regex(["contracting authority"])))
    spans = list(document.spans_after(buyer))
    assert any(span.text == "Kilbrook County Council" and span.quote == "Kilbrook County Council" for span in spans)


def test_fold_keeps_one_character_for_one_in_every_script() -> None:
    """Positions in folded text are positions in the printed text (issue 22): Greek and Cyrillic lose
    accents and case, full-width forms become plain, Hangul syllables stay whole, a Symbol-font ∆ is Δ."""
    for text, folded in [("ΔΉΜΟΣ Λάρισας", "δημοσ λαρισασ"), ("Ёлка ЗАКАЗЧИК", "елка заказчик"),
                         ("令和８年１２月", "令和8年12月"), ("ＡＢＣ－１２", "abc-12"),
                         ("입찰공고 제2026-15호", "입찰공고 제2026-15호"), ("∆ΗΜΟΣ", "δημοσ"),
                         ("Ngân hàng Đầu tư", "ngan hang đau tu")]:  # σ and ς fold alike
        assert fold(text) == folded
        assert len(fold(text)) == len(text)


def test_letter_spaced_cjk_labels_are_read_as_words_and_keep_the_columns_after_them() -> None:
    [line] = Document.of([Page(1, "工    事 名   副知事公舎解体工事")]).lines
    assert line.text.startswith("工事名 ") and line.text.endswith("副知事公舎解体工事")
    assert [cell.text for cell in line.cells] == ["工事名", "副知事公舎解体工事"]
    assert len(line.text) == len("工    事 名   副知事公舎解体工事")
    [korean] = Document.of([Page(1, "나. 공 사 명 : 새만금 수변도시 조성공사")]).lines
    assert "공사명" in korean.text
    [table] = Document.of([Page(1, "一    台式计算机    一百二十    台")]).lines  # single characters in columns
    assert table.text == "一    台式计算机    一百二十    台"


def test_labels_in_scripts_without_spaces_need_no_word_boundary() -> None:
    pattern = label_regex(["入札書の提出期限", "공고번호", "项目名称", "closing date"])
    assert pattern.search(fold("３　入札書の提出期限　令和8年4月2日")) is not None
    assert pattern.search(fold("（공고번호）제2026-15호")) is not None
    assert pattern.search(fold("二、项目名称：某市第一中学")) is not None
    assert pattern.search(fold("入札書の提出 期限")) is not None  # a space between two of its characters
    assert pattern.search(fold("the closing dates")) is None  # Latin labels keep their boundaries
