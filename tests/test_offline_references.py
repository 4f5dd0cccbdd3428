"""The offline reference reader in the languages and scripts beyond the Latin-script EU ones, and what is
not the tender's reference (a lot's number, a file number when the tender's own number is printed).

Each fixture is a few lines of page text written for these tests and laid out the way `pdftotext -layout`
prints such notices.
"""

from __future__ import annotations

import pytest

from tenderflow.extraction.offline import identity
from tests.support.offline_readers import kept_by, value

# the reference, as the pipeline's validation keeps it (its quote on its page, the value in its quote)
_reference = kept_by(identity.reference_number, "reference_number")


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("公告番号：第１２号\n", "第１２号"),
        ("공고번호 제2025-117호(전자입찰공고번호-차수: 20250112345-00)\n", "제2025-117호"),
        ("项目编号：ZJ-2025-0318\n", "ZJ-2025-0318"),
        ("采购编号：嘉财采〔2025〕18号\n", "嘉财采〔2025〕18号"),
        ("標案案號：114A0325\n", "114A0325"),
        ("      Номер извещения                                        0373100012325000047\n",
         "0373100012325000047"),
        ("Ідентифікатор закупівлі: UA-2025-03-14-001234-a\n", "UA-2025-03-14-001234-a"),
        ("                                                         ΑΔΑ: 6ΡΞΛ46Ψ8ΧΙ-ΤΘ3\n", "6ΡΞΛ46Ψ8ΧΙ-ΤΘ3"),
        ("Numar de referinta atribuit dosarului de autoritatea contractanta: 1234567/2021/PT-02\n",
         "1234567/2021/PT-02"),
        ("İhale Kayıt Numarası : 2025/145678\n", "2025/145678"),
        ("Số hiệu gói thầu: XL-05/2024\n", "XL-05/2024"),
        ("Číslo zakázky: VZ-2025-044\n", "VZ-2025-044"),
    ],
)
def test_reference_after_the_label_of_its_language(page: str, expected: str) -> None:
    assert value(_reference(page)) == expected


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("                              入札公告（個別編）\n島根県一般競争入札公告 土木第５５号の３\n",
         "土木第５５号の３"),
        ("                    한국수자원공사 입찰공고 제2023-0456호\n\n  [긴급] 공 사 입 찰 공 고\n", "제2023-0456호"),
    ],
)
def test_a_cjk_notices_number_after_its_name(page: str, expected: str) -> None:
    assert value(_reference(page)) == expected


def test_a_law_cited_by_number_is_no_reference() -> None:
    page = "地方自治法第２３４条第１項の規定により次のとおり公告する。\n조달청 고시 제2023-18호에 따라\n"
    assert _reference(page) is None


def test_a_package_number_under_the_title() -> None:
    page = "        Tư vấn thiết kế hệ thống thông tin\n                (Gói thầu TV-02)\n"
    assert value(_reference(page)) == "TV-02"


def test_the_tenders_own_number_outranks_the_buyers_file_number() -> None:
    page = "Aktenzeichen: ZV-2025-0012\nVergabenummer: VG-2025-17\n"
    assert value(_reference(page)) == "VG-2025-17"


def test_a_file_number_is_the_reference_when_nothing_else_is_printed() -> None:
    page = "Αριθ. Πρωτ: 4381/2016\n"
    assert value(_reference(page)) == "4381/2016"


def test_a_lots_number_is_not_the_tenders() -> None:
    page = "Lot 2 tender no.: L2-77/2025\nTender No.: T-2025-9\n"
    assert value(_reference(page)) == "T-2025-9"


def test_a_reference_under_a_lots_heading_is_the_lots() -> None:
    page = "Invitation for Bids\n\nLot No 1\nReference number: LOT-A-1/2025\nDescription: printers\n"
    assert _reference(page) is None


def test_a_hebrew_tender_number_after_its_geresh() -> None:
    assert value(_reference("                                  מכרז פומבי מס' 12/2025\n")) == "12/2025"
