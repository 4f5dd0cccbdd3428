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
# Written for these tests (not copied from a real tender), in the shape pdftotext gives such pages.
CHINESE = (
    '招标公告\n'
    '一、项目名称：某市第一中学教学楼维修改造工程；项目编号：ZB-2026-015。\n'
    '二、采购人：某市教育局，地址：某市人民路十八号，联系人：王先生，电话：0571-12345678。\n'
    '三、预算金额：人民币贰佰万元整（¥2,000,000.00），最高限价同预算金额。\n'
    '四、投标截止时间：2026年3月15日9时30分，开标时间同投标截止时间。\n'
    '序号    货物名称        数量    单位    交货期\n'
    '一    台式计算机（含显示器）    一百二十    台    合同签订后三十日内\n'
    '二    激光打印机（双面）    十五    台    合同签订后三十日内\n'
    '五、投标人应当在投标截止时间前，通过电子交易平台上传加密的投标文件；逾期上传的，平台不予接收。'
)
JAPANESE = (
    '一般競争入札公告\n'
    '次のとおり一般競争入札に付します。\u3000\u3000令和8年3月10日\u3000\u3000某市長\u3000山田太郎\n'
    '１\u3000入札に付する事項\u3000件名：市役所庁舎の清掃業務委託。履行場所：某市役所本庁舎。\n'
    '２\u3000入札参加資格\u3000次の要件をすべて満たす者であること。地方自治法施行令第百六十七条の四の規定に該当しない者。\n'
    '３\u3000入札書の提出期限\u3000令和8年4月2日午後5時まで。郵送による入札は認めません。\n'
    '４\u3000開札の日時及び場所\u3000令和8年4月3日午前10時、某市役所第一会議室。\n'
    '５\u3000契約条項を示す場所\u3000某市総務部契約課（電話：０３－１２３４－５６７８）。'
)
RUSSIAN_WITH_CODES = (
    'Извещение о проведении электронного аукциона для закупки № 0123300000126000001\n'
    'Заказчик: МКУ «Управление капитального строительства», ИНН 7701234567, КПП 770101001\n'
    'Дата и время окончания срока подачи заявок: 15.03.2026 09:00 (МСК)\n'
    'Начальная (максимальная) цена контракта: 1 250 000,00 руб.\n'
    'Коды: OKPD2 KTRU NMCK RTS MSK EIS PDF XML HTTP URL GOST SNiP TKP BIK KBK OKTMO OGRN SMP SONKO\n'
    'Форматы: PDF, DOCX, XLSX, XML, JPG; подпись: CMS PKCS7 SHA-256; площадка: RTS-tender, Sberbank-AST\n'
    'Справочники: KTRU, OKPD2, OKVED2, OKTMO, OKOPF, OKFS, OKEI; протоколы: HTTPS, TLS, SMTP'
)
VIETNAMESE = (
    'Điều khoản tham chiếu cho gói thầu tư vấn hỗ trợ những doanh nghiệp nhỏ và vừa được thực hiện trong '
    'khuôn khổ dự án hỗ trợ kỹ thuật. Bên mời thầu sẽ đánh giá hồ sơ đề xuất kỹ thuật trước khi mở hồ sơ '
    'đề xuất tài chính của từng nhà thầu. Thời gian thực hiện hợp đồng dự kiến là mười hai tháng kể từ '
    'ngày ký hợp đồng; nhà thầu phải nộp báo cáo hằng quý cho chủ đầu tư và chịu trách nhiệm về chất '
    'lượng dịch vụ.'
)
KOREAN = (
    "입찰공고 제2026-15호\n1. 입찰에 부치는 사항\n가. 공사명: 시청 청사 보수공사\n"
    "나. 추정가격: 1,250,000,000원(부가가치세 별도)\n"
    "2. 입찰서 제출 마감: 2026. 4. 2. 10:00까지 국가종합전자조달시스템으로 제출하여야 합니다."
)
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
        CHINESE,  # no spaces between words: a token is a clause with its own punctuation
        JAPANESE,
        KOREAN,
        RUSSIAN_WITH_CODES,  # its few Latin letters are codes, whose vowels prove nothing
        VIETNAMESE,  # vowels under stacked tone marks are still vowels
    ],
    ids=["english", "german", "french", "price-table", "toc", "capitals", "wingdings-bullets", "chinese",
         "japanese", "korean", "russian-with-latin-codes", "vietnamese"],
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
        " ".join(["中。、，：；！？（）「」"] * 12),  # caseless-script punctuation with hardly a letter
    ],
    ids=["empty", "whitespace", "page-number", "private-use", "controls", "replacement", "glyph-ids",
         "no-vowels", "mixed-case", "cjk-punctuation"],
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


def test_tidy_text_layer_drops_the_direction_marks_around_right_to_left_runs() -> None:
    # pdftotext wraps every Arabic or Hebrew run in embedding marks: they split words and numbers apart.
    raw = "\u202b\u202a5/1/25\u202c\u202c   \u202bرقم الكراسة \u202a:2000000583\u202c\u202c\n"
    assert tidy_text_layer(raw) == "5/1/25   رقم الكراسة :2000000583"
