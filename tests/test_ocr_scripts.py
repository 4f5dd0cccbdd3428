"""Scans and text layers in the world's scripts (issue 22): CJK text layers in fonts that are not embedded,
Japanese OCR without spaces between characters, text set top to bottom, a Latin page whose capitals OSD
takes for Greek or Cyrillic, and a language pack that is listed but does not load.

Pages are drawn here (tests/pdf_fixtures.py: Adobe's CJK fonts by reference, WenQuanYi and DejaVu for
scans); OCR is the real tesseract with the packs `make test` installs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tenderflow.errors import ConfigurationError
from tenderflow.pdf import ocr, packs
from tenderflow.pdf.languages import choose_ocr_languages, missing_pack_note
from tenderflow.pdf.ocr import OcrOptions, read_pages
from tenderflow.pdf.textlayer import extract_text_layer, text_layer_is_usable
from tests.support import pdf_fixtures as fixtures

OPTIONS = OcrOptions(timeout_seconds=120, memory_bytes=2 * 1024**3)

# Written for these tests, not taken from a real tender.
JAPANESE = ("一般競争入札公告", "件名　市役所庁舎の清掃業務委託", "入札書の提出期限　令和8年4月2日",
            "午後5時まで。郵送は認めません。", "某市総務部契約課")
CHINESE = ("招标公告", "项目名称：某市第一中学教学楼维修", "投标截止时间：2026年3月15日9时30分",
           "采购人：某市教育局", "联系电话：0571-12345678")
TRADITIONAL = ("投標須知", "本案採購標的為資訊設備", "投標廠商應於截止時間前", "將投標文件送達本機關，逾期不予受理。",
               "開標時間：民國一一五年三月十五日")
KOREAN = ("입찰공고 제2026-15호", "공사명: 시청 청사 보수공사", "입찰서 제출 마감: 2026. 4. 2. 10:00",
          "추정가격: 1,250,000,000원", "계약담당: 재무과")
RUSSIAN = ("Извещение о проведении", "электронного аукциона", "Заказчик: Администрация", "Срок подачи заявок:",
           "15.03.2026 09:00")
GREEK = ("Διακήρυξη ανοικτού", "διαγωνισμού για την", "προμήθεια υλικών", "Προθεσμία υποβολής:",
         "15/03/2026")
CAPITALS = ("TARIM VE ORMAN BAKANLIGI ENSTITU", "KIMYASAL VE SARF MALZEMELERIN", "TEKNIK SARTNAMESIDIR SIRA NO",
            "BIRIMI MIKTARI ACIKLAMA TESLIM", "YERI MUDURLUGU ANTALYA MERKEZ")


def test_cjk_text_in_fonts_that_are_not_embedded_is_a_text_layer(tmp_path: Path) -> None:
    """Many Asian public PDFs only name Adobe's CJK fonts: with poppler-data their text is read exactly."""
    path = fixtures.scripts_pdf(tmp_path / "cjk.pdf", [("ja", JAPANESE), ("zh", CHINESE), ("ko", KOREAN)])
    layers = extract_text_layer(path, 1, 3, timeout_seconds=60, memory_bytes=1024**3)
    assert "入札書の提出期限" in layers[0] and "投标截止时间" in layers[1] and "추정가격" in layers[2]
    assert all(text_layer_is_usable(text) for text in layers)


def test_a_document_in_three_scripts_is_read_page_by_page_from_its_text_layer(tmp_path: Path) -> None:
    path = fixtures.scripts_pdf(tmp_path / "mixed.pdf", [("ja", JAPANESE), ("cyrl", RUSSIAN), ("cyrl", GREEK)])
    choice = choose_ocr_languages(path, OPTIONS)
    assert choice.source == "text_layer" and choice.language in ("jpn", "rus", "ell")
    pages = read_pages(path, [1, 2, 3], replace(OPTIONS, languages=choice.languages))
    assert [page.source for page in pages] == ["text_layer"] * 3
    assert "入札書の提出期限" in pages[0].text and "Заказчик" in pages[1].text and "Προθεσμία" in pages[2].text


def test_japanese_ocr_keeps_no_spaces_between_characters(tmp_path: Path) -> None:
    path = fixtures.scanned_pdf(tmp_path / "koukoku.pdf", [fixtures.script_image(JAPANESE, font=fixtures.CJK_FONT)])
    choice = choose_ocr_languages(path, OPTIONS)
    assert (choice.language, choice.source) == ("jpn", "first_pass")
    [page] = read_pages(path, [1], replace(OPTIONS, languages=choice.languages))
    assert "一般競争入札公告" in page.text and "8年4月2日" in page.text, page.text


def test_japanese_set_top_to_bottom_is_read_by_the_vertical_model(tmp_path: Path) -> None:
    image = fixtures.script_image(JAPANESE, font=fixtures.CJK_FONT, vertical=True)
    path = fixtures.scanned_pdf(tmp_path / "tategaki.pdf", [image])
    choice = choose_ocr_languages(path, OPTIONS)
    assert choice.language == "jpn", choice  # OSD names no script it can read: the vertical model does
    [page] = read_pages(path, [1], replace(OPTIONS, languages=choice.languages))
    assert "一般競争入札公告" in page.text and "総務部契約課" in page.text, page.text
    assert page.rotation == 0 and page.confidence is not None and page.confidence >= ocr.MIN_UPRIGHT_CONFIDENCE


def test_a_latin_page_whose_capitals_osd_takes_for_another_script_is_read_as_latin(tmp_path: Path) -> None:
    """OSD names Greek (or Cyrillic) for a page of Latin capitals; read in that script it is garbage that
    identifies as Greek: the page is read as Latin too, and the surer reading wins."""
    path = fixtures.scanned_pdf(tmp_path / "sartname.pdf", [fixtures.text_image(CAPITALS)])
    choice = choose_ocr_languages(path, OPTIONS)
    assert choice.script == "Latin" and choice.language not in ("ell", "grc", "rus"), choice
    [page] = read_pages(path, [1], replace(OPTIONS, languages=choice.languages))
    assert "KIMYASAL VE SARF" in page.text


def test_a_pack_that_does_not_load_is_named_and_the_pages_are_read_with_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = Path("/usr/share/tesseract-ocr/5/tessdata")
    tessdata = tmp_path / "tessdata"
    tessdata.mkdir()
    for pack in ("eng", "osd"):
        (tessdata / f"{pack}.traineddata").symlink_to(system / f"{pack}.traineddata")
    (tessdata / "jpn.traineddata").write_bytes((system / "jpn.traineddata").read_bytes()[:2048])  # damaged
    monkeypatch.setenv("TESSDATA_PREFIX", str(tessdata))
    packs.installed_languages.cache_clear()  # both are asked once per process: ask this tessdata
    packs.pack_loads.cache_clear()
    try:
        assert "jpn" in packs.installed_languages() and not packs.pack_loads("jpn")
        path = fixtures.scanned_pdf(tmp_path / "koukoku.pdf", [fixtures.script_image(JAPANESE, font=fixtures.CJK_FONT)])
        choice = choose_ocr_languages(path, OPTIONS, installed=frozenset({"eng", "jpn"}))
        assert choice.languages == "eng" and choice.source == "fallback"
        note = missing_pack_note(choice.language, choice.languages)
        assert choice.language == "jpn" and note is not None and "does not load" in note, (choice, note)
        [page] = read_pages(path, [1], replace(OPTIONS, languages=choice.languages))  # read, as English
        assert page.text.strip()
        with pytest.raises(ConfigurationError, match="cannot load them.*tesseract-ocr-jpn"):
            packs.check_packs_load("jpn+eng")  # what the OCR job checks before it reads with languages asked for
    finally:
        packs.installed_languages.cache_clear()
        packs.pack_loads.cache_clear()


def test_traditional_chinese_is_read_with_its_own_pack_from_a_text_layer_and_a_scan(tmp_path: Path) -> None:
    """The identifier names Simplified and Traditional Chinese alike ('zh'): Taiwan's and Hong Kong's tenders
    are told apart by their characters (text layer) or by which model reads the page surer (a scan)."""
    layered = fixtures.scripts_pdf(tmp_path / "layer.pdf", [("zh-tw", TRADITIONAL)])
    assert choose_ocr_languages(layered, OPTIONS).language == "chi_tra"
    simplified = fixtures.scripts_pdf(tmp_path / "simplified.pdf", [("zh", CHINESE)])
    assert choose_ocr_languages(simplified, OPTIONS).language == "chi_sim"
    scan = fixtures.scanned_pdf(tmp_path / "scan.pdf", [fixtures.script_image(TRADITIONAL, font=fixtures.CJK_FONT)])
    choice = choose_ocr_languages(scan, OPTIONS)
    assert choice.language == "chi_tra" and choice.languages.startswith("chi_tra"), choice


def test_a_korean_scan_is_read_in_korean(tmp_path: Path) -> None:
    """OSD names the script of a Korean page 'Korean' (Hangul with Han): it is read with kor."""
    scan = fixtures.scanned_pdf(tmp_path / "gonggo.pdf", [fixtures.script_image(KOREAN, font=fixtures.CJK_FONT)])
    choice = choose_ocr_languages(scan, OPTIONS)
    assert choice.language == "kor" and choice.languages.startswith("kor"), choice
    [page] = read_pages(scan, [1], replace(OPTIONS, languages=choice.languages))
    assert "마감" in page.text and "1,250,000,000" in page.text, page.text  # Hangul read as Hangul, not as Latin
