"""The offline title reader in the languages and scripts beyond the Latin-script EU ones: the labels of each
language's notices and the structures other scripts use (title_structures.py).

Each fixture is a few lines of page text written for these tests and laid out the way `pdftotext -layout`
prints such notices.
"""

from __future__ import annotations

import pytest

from tenderflow.extraction.offline import identity
from tests.support.offline_readers import document, kept_by, value

# the title, as the pipeline's validation keeps it (its quote on its page, the value in its quote)
_title = kept_by(identity.title, "title")


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("１   件名           市立図書館空調設備改修工事\n", "市立図書館空調設備改修工事"),
        (" 工    事 名   市営住宅外壁改修工事\n 工事箇所       市内一円\n", "市営住宅外壁改修工事"),
        ("1.2.   공 사 명 : 시청 별관 리모델링 공사\n1.3.   공사현장 : 시청 일원\n", "시청 별관 리모델링 공사"),
        ("나. 용역명 : 하천 정비 기본계획 수립 용역\n다. 과업기간 : 착수일부터 240일\n",
         "하천 정비 기본계획 수립 용역"),
        ("   二、招标项目：市民中心智能化改造项目\n   三、招标内容及需求\n", "市民中心智能化改造项目"),
        ("   1     项目名称       城区道路照明维护服务项目\n   2     项目地点       城区\n",
         "城区道路照明维护服务项目"),
        ("標案名稱：市立圖書館資訊設備採購案\n", "市立圖書館資訊設備採購案"),
        ("      Наименование объекта закупки          Поставка канцелярских товаров\n",
         "Поставка канцелярских товаров"),
        ("Предмет на поръчката: Доставка на хранителни продукти\n", "Доставка на хранителни продукти"),
        ("Θέμα: Προμήθεια γραφικής ύλης για τις ανάγκες του Δήμου\n",
         "Προμήθεια γραφικής ύλης για τις ανάγκες του Δήμου"),
        ("    II.1.1 Titlu:\n    Servicii de curatenie pentru sediul institutiei\n",
         "Servicii de curatenie pentru sediul institutiei"),
        ("İşin Adı : Okul binası çatı onarımı\n", "Okul binası çatı onarımı"),
        ("Tên gói thầu: Cung cấp thiết bị văn phòng cho trụ sở\n", "Cung cấp thiết bị văn phòng cho trụ sở"),
    ],
)
def test_title_after_the_label_of_its_language(page: str, expected: str) -> None:
    assert value(_title(page)) == expected


def test_title_in_a_tall_cell_beside_its_label() -> None:
    # the label is printed at the foot of a cell two lines high: the value stands on the line above
    page = (
        "一般競争入札公告\n\n"
        "              旧第二庁舎解体工事【総合評価方式】\n"
        "１   件名\n\n"
        "２   履行場所      本町２－３\n"
    )
    assert value(_title(page)) == "旧第二庁舎解体工事【総合評価方式】"


def test_a_two_column_form_value_wrapped_around_its_label() -> None:
    page = (
        "      Номер извещения                                        0373100012325000047\n\n\n"
        "                                                             Выполнение работ по ремонту кровли\n"
        "      Наименование объекта закупки\n"
        "                                                             здания школы № 5\n\n\n"
        "      Способ определения поставщика                          Электронный аукцион\n"
    )
    assert value(_title(page)) == "Выполнение работ по ремонту кровли здания школы № 5"


def test_a_quoted_name_after_the_word_for_what_is_bought() -> None:
    page = (
        "                                   ΑΠΟΦΑΣΙΖΕΙ\n"
        "  Α] Κατακυρώνει την ανάθεση του έργου: «ΚΑΘΑΡΙΣΜΟΣ ΚΤΙΡΙΩΝ ΤΟΥ\n"
        "ΔΗΜΟΥ ΠΑΤΡΕΩΝ» στην εταιρεία με την επωνυμία ΑΛΦΑ Ε.Π.Ε.\n"
    )
    assert value(_title(page)) == "ΚΑΘΑΡΙΣΜΟΣ ΚΤΙΡΙΩΝ ΤΟΥ ΔΗΜΟΥ ΠΑΤΡΕΩΝ"


def test_a_quoted_law_is_no_title() -> None:
    page = "Έχοντας υπόψη:\n1] Τις διατάξεις του Ν. 2286/95 «Προμήθειες του Δημοσίου τομέα»\n"
    assert _title(page) is None


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("          城市公园绿化养护服务项目      招标文件\n\n\n          某某招标代理有限公司\n",
         "城市公园绿化养护服务项目"),
        ("T.C.\nİL MİLLİ EĞİTİM MÜDÜRLÜĞÜ\n\n2025 YILI KIRTASİYE MALZEMESİ TEKNİK ŞARTNAMESİ\n\n"
         "1- Kağıt A4 olacaktır.\n", "2025 YILI KIRTASİYE MALZEMESİ"),
    ],
)
def test_the_subject_a_head_final_language_prints_before_the_documents_name(page: str, expected: str) -> None:
    assert value(_title(page)) == expected


def test_the_project_name_of_chinas_model_first_clause() -> None:
    page = (
        "                     第一章       招标公告\n"
        "  1．招标条件\n"
        "  本招标项目市第一医院门诊楼改造工程已由市发展和改革委员会批准建设，项目业主为市第一医院。\n"
    )
    assert value(_title(page)) == "市第一医院门诊楼改造工程"


def test_a_cover_title_wrapped_in_a_script_without_spaces_runs_on_without_one() -> None:
    page = (
        "市交通投资集团有限公司 2026 年度办公\n     用品采购项目\n\n\n\n"
        "          招标文件\n\n招标人：市交通投资集团有限公司\n"
    )
    assert value(_title(page)) == "市交通投资集团有限公司 2026 年度办公用品采购项目"


def test_the_paragraph_above_a_line_that_only_gives_the_number() -> None:
    page = (
        "                              ĐIỀU KHOẢN THAM CHIẾU\n\n"
        "                 Tư vấn thiết kế hệ thống thông tin quản lý\n"
        "                           cho các chi nhánh ngân hàng\n"
        "                                (Gói thầu TV-02)\n\n"
        "I. BỐI CẢNH\n"
    )
    assert value(_title(page)) == "Tư vấn thiết kế hệ thống thông tin quản lý cho các chi nhánh ngân hàng"


def test_a_digital_signature_stamp_is_no_title() -> None:
    page = (
        "                                                         ΑΔΑ: 6ΡΞΛ46Ψ8ΧΙ-ΤΘ3\n"
        "                                 INFORMATICS Digitally signed by\n"
        "                                             INFORMATICS\n"
        "                                             Reason:\n"
    )
    assert _title(page) is None


def test_a_sentence_in_a_script_without_spaces_is_no_title() -> None:
    page = "一般競争入札公告\n次のとおり一般競争入札に付します。\n令和 7年 4月 1日\n"
    assert _title(page) is None


def test_a_value_over_the_debris_of_a_broken_layout_yields_to_a_whole_one() -> None:
    # the text layer dropped a character of the cover's title onto the next line; the notice repeats it whole
    cover = "◦ 공 사 명   스마트 수변도시 단계 조성공사\n               :                         1\n"
    notice = "\n".join(["공 사 입 찰 공 고", *[""] * 3, "나. 공 사 명 : 스마트 수변도시 1단계 조성공사", ""])
    found = _title(cover, "목 차\n", notice)
    assert found is not None and (found.value, found.page) == ("스마트 수변도시 1단계 조성공사", 3)


@pytest.mark.parametrize("part", ["GENERAL INFORMATION", "INTRODUCTION", "Bid Data Sheet", "Terms and Conditions"])
def test_the_heading_of_a_part_of_the_document_is_no_title(part: str) -> None:
    page = f"              REQUEST FOR PROPOSALS\n\n              {part}\n\nThe Ministry invites sealed proposals.\n"
    assert _title(page) is None


_EKAP = (
    "                          İHALE İLANI\n"
    "İhale Kayıt Numarası : 2025/345678\n"
    "1 - İdarenin\n"
    "a) Adı : İlçe Belediye Başkanlığı\n"
    "2 - İhale konusu hizmet alımının\n"
    "a) Adı : Park ve bahçelerin bakım hizmeti alımı\n"
    "b) Yapılacağı yer : İlçe merkezindeki parklar\n"
    "3 - İhalenin\n"
    "a) Yapılacağı yer : Belediye encümen salonu\n"
)


def test_the_name_in_the_subject_section_of_a_turkish_notice() -> None:
    assert value(_title(_EKAP)) == "Park ve bahçelerin bakım hizmeti alımı"
    place = identity.place_of_performance(document(_EKAP))
    assert place is not None and place.value == "İlçe merkezindeki parklar"


def test_a_label_in_a_script_without_spaces_set_off_by_a_space() -> None:
    page = "ประกาศเทศบาลตำบลหนองบัว\nเรื่อง ประกวดราคาจ้างก่อสร้างถนนคอนกรีต\n------------------------------\n"
    assert value(_title(page)) == "ประกวดราคาจ้างก่อสร้างถนนคอนกรีต"


def test_a_lots_name_is_no_title() -> None:
    page = "INVITATION FOR BIDS\nBid Reference: MOH/ICB/2025/07\nLot 1: Laboratory reagents\nLot 2: Hospital beds\n"
    assert _title(page) is None
