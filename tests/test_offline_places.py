"""The offline place-of-performance reader in the languages and scripts beyond the Latin-script EU ones, and
what names no place (a place the buyer will designate, a digital signature's 'Location').

Each fixture is a few lines of page text written for these tests and laid out the way `pdftotext -layout`
prints such notices.
"""

from __future__ import annotations

import pytest

from tenderflow.extraction.offline import identity
from tests.support.offline_readers import kept_by, value

# the place, as the pipeline's validation keeps it (its quote on its page, the value in its quote)
_place = kept_by(identity.place_of_performance, "place_of_performance")


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("２   履行場所      世田谷区用賀２－１０－３\n３   工期        契約確定の日から令和 8年 3月31日まで\n",
         "世田谷区用賀２－１０－３"),
        (" 工事箇所       横浜市中区山下町\n 予定価格       落札決定後公表する\n", "横浜市中区山下町"),
        ("1.3.   공사현장 : 경기도 수원시 팔달구 일원\n1.4.   공사기간 : 착공일로부터 730일\n",
         "경기도 수원시 팔달구 일원"),
        ("   2     项目地点       位于杭州市西湖区\n", "杭州市西湖区"),
        ("交貨地點：臺北市信義區市府路1號\n", "臺北市信義區市府路1號"),
        ("Място на изпълнение: гр. Пловдив\n", "гр. Пловдив"),
        ("Τόπος παροχής των υπηρεσιών: Πάτρα\n", "Πάτρα"),
        ("Teslim yeri: Ankara Merkez Kampüsü\n", "Ankara Merkez Kampüsü"),
        ("Địa điểm thực hiện: Thành phố Đà Nẵng\n", "Thành phố Đà Nẵng"),
        ("Místo plnění: Brno, Kounicova 10\n", "Brno, Kounicova 10"),
    ],
)
def test_place_after_the_label_of_its_language(page: str, expected: str) -> None:
    assert value(_place(page)) == expected


def test_the_town_under_a_seap_place_block() -> None:
    page = (
        "          II.2.3 Locul de executare\n"
        "          Cod NUTS: RO111 Bihor\n"
        "          Locul principal de executare:\n"
        "          Oradea\n\n"
        "          II.2.4 Descrierea achizitiei publice\n"
    )
    assert value(_place(page)) == "Oradea"


def test_a_label_that_enumerates_over_two_lines_of_a_two_column_form() -> None:
    page = (
        "      Идентификационный код закупки                          252165000123416500100100010010000244\n\n\n"
        "                                                             Российская Федерация, г. Казань\n"
        "      Место поставки товара, выполнения                        ул. Баумана, д. 12\n"
        "      работы или оказания услуги\n\n"
        "      Предусмотрена возможность одностороннего отказа         Да\n"
    )
    assert value(_place(page)) == "Российская Федерация, г. Казань ул. Баумана, д. 12"


def test_a_place_the_buyer_will_designate_names_none() -> None:
    notice = "  2.2 服务期限：自合同签订之日起 1 年。\n\n  2.3 服务地点：招标人指定地点。\n"
    contract = "\n".join(["合同条款", *[""] * 8, "服务地点：宁波市。", ""])
    assert _place(notice, "\n", "\n", "\n", "\n", "\n", contract) is None


def test_a_place_given_by_the_draft_contract_names_none() -> None:
    page = "      Место поставки (адрес):                                 В соответствии с проектом договора\n"
    assert _place(page) is None


def test_the_location_of_a_digital_signature_is_no_place() -> None:
    page = (
        "                                 INFORMATICS Digitally signed by\n"
        "                                             Date: 2016.01.13 11:01:14\n"
        "                                             Reason:\n"
        "ΔΗΜΟΣ ΛΑΡΙΣΑΙΩΝ                              Location: Athens\n"
    )
    assert _place(page) is None


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("Udførelsessted: Aarhus Kommune, Rådhuspladsen 2\n", "Aarhus Kommune, Rådhuspladsen 2"),  # da 'ø'
        ("Miejsce świadczenia usług: Gmina Miasta Toruń\n", "Gmina Miasta Toruń"),  # pl 'ł'
        ("Miejsce swiadczenia uslug: Gmina Miasta Torun\n", "Gmina Miasta Torun"),  # the same, typed without
    ],
)
def test_a_label_with_a_stroked_letter_matches_as_printed_and_as_typed_without(page: str, expected: str) -> None:
    """fold() makes 'ł' an 'l' and 'ø' an 'o': a label of the lexicon matches whichever way it was written."""
    assert value(_place(page)) == expected
