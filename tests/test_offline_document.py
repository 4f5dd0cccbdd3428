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
    assert fold("Maßnahme März Łódź") == "massnahme marz łodz"  # ł has no decomposition


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
