"""text_layer_is_usable keeps real text in every shape we meet and refuses each kind of garbage."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tenderflow.pdf.textlayer import extract_text_layer, text_layer_is_usable, tidy_text_layer
from tests.support import pdf_fixtures as fixtures

ENGLISH = (
    "The municipal water board invites sealed bids for the renewal of the drinking water pipeline in "
    "Harbour Street. Offers must reach the office before noon on the closing date; late offers are "
    "returned unopened. The tender documents can be collected from the procurement office."
)
GERMAN = (
    "Die Stadtwerke schreiben hiermit die Erneuerung der Trinkwasserleitung in der Hauptstraße "
    "öffentlich aus. Angebote sind bis zum 15. März 2024 in einem verschlossenen Umschlag einzureichen. "
    "Nebenangebote sind nicht zugelassen."
)
FRENCH = (
    "La commune lance un appel d'offres pour la rénovation de l'éclairage public. Les candidats doivent "
    "déposer leur offre avant le 30 avril 2024 à midi. Les variantes ne sont pas autorisées."
)
PRICE_TABLE = """Pos. Menge Einheit Bezeichnung            EP EUR      GP EUR
1.1   120  m    PE-HD Rohr DN 150       45,20      5.424,00
1.2    14  Stk  Schieber DN 150        310,00      4.340,00
1.3     3  Stk  Hydrant UF DN 80       890,00      2.670,00
1.4   240  m²   Asphalt Oberbau         38,50      9.240,00
      Summe netto                                 21.674,00
      MwSt 19 %                                    4.118,06"""
TABLE_OF_CONTENTS = (
    "Table of Contents\nHeading......................................1\n"
    "Annex A Technical specification..........3\nAnnex B Price schedule....................4\n"
)


def _shift(text: str) -> str:
    return "".join(chr(fixtures.glyph_id_shift(ord(c))) if ord(c) < 128 else c for c in text)


@pytest.mark.parametrize(
    "text",
    [
        ENGLISH,
        GERMAN,
        FRENCH,
        PRICE_TABLE,
        TABLE_OF_CONTENTS,
        ENGLISH.upper(),
        "\uf0b7 " + ENGLISH.replace(". ", ".\n\uf0b7 "),  # Symbol-font bullets come out as private use
    ],
    ids=["english", "german", "french", "price-table", "toc", "capitals", "wingdings-bullets"],
)
def test_real_text_is_usable(text: str) -> None:
    assert text_layer_is_usable(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n   \n",
        "Page 3 of 12",  # a scan whose only text is a stamped page number
        "".join(chr(0xE000 + ord(c)) if not c.isspace() else c for c in ENGLISH),  # private-use glyphs
        "".join(chr(ord(c) % 31 + 1) if not c.isspace() else c for c in ENGLISH),  # control codes
        "\ufffd\ufffd \ufffd\ufffd\ufffd " * 30,  # replacement characters
        _shift(ENGLISH),  # glyph ids leaked as characters: "7KH PXQLFLSDO ZDWHU ..."
        " ".join(["xkqv zptr wmbn qlrs bcdfg hjklm"] * 10),  # keyboard nonsense, no vowels
        " ".join(["QxRt vKzW pLmN jHgF"] * 12),  # mixed-case nonsense
    ],
    ids=["empty", "whitespace", "page-number", "private-use", "controls", "replacement", "glyph-ids",
         "no-vowels", "mixed-case"],
)
def test_garbage_and_near_empty_text_is_not_usable(text: str) -> None:
    assert not text_layer_is_usable(text)


def test_extract_text_layer_splits_pages(tmp_path: Path) -> None:
    path = fixtures.born_digital_pdf(tmp_path / "two.pdf", [["first page words"], ["second page words"]])
    texts = extract_text_layer(path, 1, 2, timeout_seconds=30, memory_bytes=1024**3)
    assert [text.strip() for text in texts] == ["first page words", "second page words"]
    assert extract_text_layer(path, 2, 2, timeout_seconds=30, memory_bytes=1024**3)[0].strip() == "second page words"


def test_form_feeds_inside_a_page_do_not_shift_the_pages(tmp_path: Path) -> None:
    # A ToUnicode map may send a glyph to text holding a form feed, the character pdftotext ends
    # each page with: the page count (pdfinfo's) tells the two apart.
    path = fixtures.form_feed_text_pdf(tmp_path / "ff.pdf", [["Annex one, first page"], ["Annex two, last page"]])
    raw = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout
    assert raw.count("\f") > 2  # the fixture really puts form feeds inside the pages
    texts = extract_text_layer(path, 1, 2, timeout_seconds=30, memory_bytes=1024**3)
    assert len(texts) == 2
    assert "one" in texts[0] and "first" in texts[0] and "two" not in texts[0]
    assert "two" in texts[1] and "last" in texts[1] and "\f" not in texts[1]


def test_tidy_text_layer_drops_padding_and_keeps_indentation() -> None:
    padded = "\n\n  Lot 1     Works   \n\n   Value: EUR 10  \n\n\n"
    assert tidy_text_layer(padded) == "  Lot 1     Works\n\n   Value: EUR 10"
    assert tidy_text_layer("   \n \n") == ""
