"""Validation: every value must be quoted from its page and be a well-formed code, or it is dropped."""

from __future__ import annotations

import pytest

from tenderflow.extraction import extract_fields
from tenderflow.extraction.backend import Page, Usage
from tenderflow.extraction.schema import AwardCriterion, Buyer, ContractDuration, Lot, Money, Sourced, TenderFields
from tenderflow.extraction.validation import (
    cpv_check_digit,
    normalize_cpv_code,
    normalize_for_matching,
    validate_fields,
)

PAGES = [
    Page(1, "CONTRACT NOTICE\nOfficial name: Gemeinde Kleinstadt\nCountry: EL\nTitle: Schulbus-\nverkehr 2026/27"),
    Page(
        2,
        "Estimated total value: EUR 1 250 000,00\n"
        "Main CPV code: 60130000-8\n"
        "Additional CPV: 60140000-1, 72212100-0\n"
        "Time limit for receipt of tenders: 15.03.2026 12:00\n"
        "Duration in months: 36\n"
        "Lot No: 1 Nord\nPrice 60 %",
    ),
]


def at(page: int, quote: str, value: object) -> Sourced:  # type: ignore[type-arg]
    return Sourced(value=value, page=page, quote=quote)


def test_value_quoted_from_its_page_is_kept_without_flags() -> None:
    fields = TenderFields(
        buyer=Buyer(name=at(1, "Official name: Gemeinde Kleinstadt", "Gemeinde Kleinstadt")),
        estimated_value=at(2, "Estimated total value: EUR 1 250 000,00", Money(amount=1_250_000, currency="EUR")),
        submission_deadline=at(2, "Time limit for receipt of tenders: 15.03.2026 12:00", "2026-03-15T12:00"),
        contract_duration=at(2, "Duration in months: 36", ContractDuration(amount=36, unit="months")),
    )
    validated, flags = validate_fields(fields, PAGES)
    assert flags == []
    assert validated == fields


def test_hallucinated_quote_is_dropped_with_a_flag() -> None:
    fields = TenderFields(
        title=at(1, "Title: School bus services", "School bus services"),
        buyer=Buyer(name=at(1, "Official name: Gemeinde Kleinstadt", "Gemeinde Kleinstadt")),
    )
    validated, flags = validate_fields(fields, PAGES)
    assert validated.title is None
    assert validated.buyer.name is not None  # one bad leaf does not take others with it
    assert len(flags) == 1
    assert flags[0].startswith("title: dropped 'School bus services' from page 1: quote not found on page 1")


@pytest.mark.parametrize(
    ("page", "value", "reason"),
    [
        pytest.param(2, "Gemeinde Kleinstadt", "quote not found on page 2", id="quote_from_another_page"),
        # The quote is real, but the value was not read from it.
        pytest.param(1, "Gemeinde Grossstadt", "value not in its quote", id="value_missing_from_its_own_quote"),
    ],
)
def test_a_value_not_read_from_its_quote_on_its_page_is_dropped(page: int, value: str, reason: str) -> None:
    fields = TenderFields(buyer=Buyer(name=at(page, "Official name: Gemeinde Kleinstadt", value)))
    validated, flags = validate_fields(fields, PAGES)
    assert validated.buyer.name is None
    assert reason in flags[0]


def test_citing_a_page_the_document_lacks_is_dropped() -> None:
    validated, flags = validate_fields(TenderFields(title=at(9, "Title", "Title")), PAGES)
    assert validated.title is None
    assert "cites page 9, which the document does not have" in flags[0]


def test_quote_matches_across_ocr_hyphenation_line_breaks_case_and_spacing() -> None:
    # The page says "Title: Schulbus-\nverkehr 2026/27"; the answer quotes it as one line.
    fields = TenderFields(title=at(1, "TITLE:  Schulbusverkehr 2026/27", "Schulbusverkehr 2026/27"))
    validated, flags = validate_fields(fields, PAGES)
    assert flags == []
    assert validated.title is not None


def test_value_interleaved_with_another_layout_column_is_kept_only_in_order() -> None:
    page = Page(
        1, "Nom officiel : Communauté d'agglomération      Instance de recours :\ndu Pays de Vernelle      tribunal"
    )
    quote = "Nom officiel : Communauté d'agglomération      Instance de recours : du Pays de Vernelle      tribunal"
    kept = TenderFields(buyer=Buyer(name=at(1, quote, "Communauté d'agglomération du Pays de Vernelle")))
    assert validate_fields(kept, [page]) == (kept, [])
    shuffled = TenderFields(buyer=Buyer(name=at(1, quote, "Pays de Vernelle Communauté d'agglomération")))
    assert validate_fields(shuffled, [page])[0].buyer.name is None


def test_words_scattered_through_a_one_column_quote_do_not_make_a_value() -> None:
    page = Page(1, "Official name: Stadt Ulm bei München")
    fields = TenderFields(buyer=Buyer(name=at(1, "Official name: Stadt Ulm bei München", "Stadt München")))
    assert validate_fields(fields, [page])[0].buyer.name is None


def test_amount_whose_digits_are_not_in_the_quote_is_dropped() -> None:
    fields = TenderFields(
        estimated_value=at(2, "Estimated total value: EUR 1 250 000,00", Money(amount=1.0, currency="EUR"))
    )
    validated, flags = validate_fields(fields, PAGES)
    assert validated.estimated_value is None
    assert "amount not in its quote" in flags[0]


@pytest.mark.parametrize("currency", ["EURO", "XYZ", "€", "XXX"])
def test_currency_that_is_not_iso_4217_is_dropped(currency: str) -> None:
    quote = "Estimated total value: EUR 1 250 000,00"
    validated, flags = validate_fields(
        TenderFields(estimated_value=at(2, quote, Money(amount=1_250_000, currency=currency))), PAGES
    )
    assert validated.estimated_value is None
    assert "is not an ISO 4217 code" in flags[0]


def test_lower_case_currency_is_normalised() -> None:
    quote = "Estimated total value: EUR 1 250 000,00"
    validated, _ = validate_fields(
        TenderFields(estimated_value=at(2, quote, Money(amount=1_250_000, currency="eur"))), PAGES
    )
    assert validated.estimated_value is not None
    assert validated.estimated_value.value.currency == "EUR"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("15.03.2026", "not an ISO 8601 date"),
        ("2026-02-30", "not an ISO 8601 date"),
        ("2026-03-16T12:00", "its day and year are not in its quote"),
    ],
)
def test_deadline_that_does_not_parse_or_is_not_in_its_quote_is_dropped(value: str, reason: str) -> None:
    quote = "Time limit for receipt of tenders: 15.03.2026 12:00"
    validated, flags = validate_fields(TenderFields(submission_deadline=at(2, quote, value)), PAGES)
    assert validated.submission_deadline is None
    assert reason in flags[0]


def test_eu_country_abbreviation_is_rewritten_to_iso_with_a_flag() -> None:
    validated, flags = validate_fields(TenderFields(buyer=Buyer(country=at(1, "Country: EL", "EL"))), PAGES)
    assert validated.buyer.country is not None
    assert validated.buyer.country.value == "GR"
    assert flags == ["buyer.country: country 'EL' rewritten to its ISO code GR (page 1)"]


@pytest.mark.parametrize("country", ["Greece", "XK", "ZZ", "GRC"])
def test_country_that_is_not_iso_alpha_2_is_dropped(country: str) -> None:
    validated, flags = validate_fields(TenderFields(buyer=Buyer(country=at(1, "Country: EL", country))), PAGES)
    assert validated.buyer.country is None
    assert "is not an ISO 3166-1 alpha-2 country code" in flags[0]


def test_cpv_codes_are_checked_normalised_and_deduplicated() -> None:
    additional = "Additional CPV: 60140000-1, 72212100-0"
    fields = TenderFields(
        cpv_codes=[
            at(2, "Main CPV code: 60130000-8", "60130000 - 8"),  # spaced: normalised
            at(2, additional, "60140000-1"),
            at(2, additional, "6014000-1"),  # 7 digits: malformed
            at(2, "Main CPV code: 60130000-8", "60130000-8"),  # duplicate of the first
            at(2, additional, "72212100-0"),  # official code that breaks the usual check-digit rule
        ]
    )
    validated, flags = validate_fields(fields, PAGES)
    assert [code.value for code in validated.cpv_codes] == ["60130000-8", "60140000-1", "72212100-0"]
    assert any("cpv_codes[2]: dropped '6014000-1'" in flag and "not a CPV code" in flag for flag in flags)
    assert any("CPV 72212100-0: check digit differs from the usual rule (5), kept" in flag for flag in flags)


def test_cpv_code_with_a_garbled_digit_is_flagged() -> None:
    page = Page(1, "Main CPV code: 60180000-8")  # OCR read 3 as 8; the check digit no longer fits
    validated, flags = validate_fields(
        TenderFields(cpv_codes=[at(1, "Main CPV code: 60180000-8", "60180000-8")]), [page]
    )
    assert len(validated.cpv_codes) == 1
    assert "check digit differs from the usual rule (3)" in flags[0]


@pytest.mark.parametrize(
    ("code", "digit"),
    [("45000000", 7), ("72000000", 5), ("03113100", 7), ("18451000", 5), ("71355200", 3), ("45233140", 2),
     ("30213000", 5), ("90910000", 9), ("38412000", 6), ("31214190", 7)],
)  # fmt: skip
def test_cpv_check_digit_matches_published_codes(code: str, digit: int) -> None:
    assert cpv_check_digit(code) == digit


@pytest.mark.parametrize(
    ("text", "expected"),
    [("45000000-7", "45000000-7"), (" 45000000 -7", "45000000-7"), ("45000000", "45000000"), ("4500000-7", None),
     ("45000000-77", None), ("CPV 45000000-7", None)],
)  # fmt: skip
def test_normalize_cpv_code(text: str, expected: str | None) -> None:
    assert normalize_cpv_code(text) == expected


def test_award_criterion_name_and_weight_must_be_in_the_quote() -> None:
    lot = Lot(
        number=at(2, "Lot No: 1 Nord", "1"),
        award_criteria=[
            at(2, "Price 60 %", AwardCriterion(name="Price", weight=60)),
            at(2, "Price 60 %", AwardCriterion(name="Price", weight=80)),
            at(2, "Price 60 %", AwardCriterion(name="Quality", weight=60)),
        ],
    )
    validated, flags = validate_fields(TenderFields(lots=[lot]), PAGES)
    assert [criterion.value.weight for criterion in validated.lots[0].award_criteria] == [60]
    assert "weight not in its quote" in flags[0]
    assert "criterion name value not in its quote" in flags[1]


def test_lot_whose_number_fails_is_dropped_with_its_contents() -> None:
    lot = Lot(number=at(2, "Lot No: 7", "7"), title=at(2, "Lot No: 1 Nord", "Nord"))
    validated, flags = validate_fields(TenderFields(lots=[lot]), PAGES)
    assert validated.lots == []
    assert flags[-1] == "lots[0]: lot dropped with its contents, its number did not validate"


def test_normalize_for_matching_ignores_case_spacing_and_line_break_hyphens() -> None:
    assert normalize_for_matching("Baden-\nWürttemberg") == normalize_for_matching("BADEN WÜRTTEMBERG")
    assert normalize_for_matching("Ver-\ngabe ‘A’") == normalize_for_matching("Vergabe 'a'")
    assert normalize_for_matching("Vergabe") != normalize_for_matching("Vorgabe")


class _HallucinatingBackend:
    """A backend whose answer cites a quote that is nowhere in the document."""

    name = "fake"

    def extract(self, pages: object, *, interrupt: object = None) -> tuple[TenderFields, Usage]:
        fields = TenderFields(
            title=at(1, "Title: Schulbusverkehr 2026/27", "Schulbusverkehr 2026/27"),
            reference_number=at(1, "Reference number: GK-2026-99", "GK-2026-99"),
        )
        return fields, Usage(model="m", prompt_tokens=7, completion_tokens=3, calls=1)


def test_extract_fields_validates_any_backend_answer() -> None:
    result = extract_fields(PAGES, _HallucinatingBackend())
    assert result.fields.title is not None
    assert result.fields.reference_number is None
    assert len(result.flags) == 1 and result.flags[0].startswith("reference_number: dropped 'GK-2026-99'")
    assert (result.backend, result.model, result.prompt_tokens, result.completion_tokens) == ("fake", "m", 7, 3)


@pytest.mark.parametrize(
    ("quote", "amount"),
    [
        ("Tender Value in INR 12,34,567", 1_234_567),  # Indian grouping
        ("Estimated cost: Rs. 12.5 lakh", 1_250_000),
        ("Estimated cost: INR 3 crore", 30_000_000),
        ("Tender fee Rs.1180/- only", 1180),  # a number right after a dot
    ],
)
def test_indian_amounts_are_recognised_as_stated(quote: str, amount: float) -> None:
    page = [Page(1, quote)]
    fields = TenderFields(estimated_value=at(1, quote, Money(amount=amount, currency="INR")))
    validated, flags = validate_fields(fields, page)
    assert validated.estimated_value is not None, flags


def test_an_email_whose_at_sign_the_text_layer_lost_is_kept_but_not_a_made_up_one() -> None:
    quote = "courriel : commande-publique ville-nimes.fr"
    page = [Page(1, quote)]
    kept, _ = validate_fields(TenderFields(buyer=Buyer(email=at(1, quote, "commande-publique@ville-nimes.fr"))), page)
    assert kept.buyer.email is not None and kept.buyer.email.value == "commande-publique@ville-nimes.fr"
    for invented in ("publique@ville-nimes.fr", "commande@ville-nimes.fr", "courriel : commande"):
        dropped, flags = validate_fields(TenderFields(buyer=Buyer(email=at(1, quote, invented))), page)
        assert dropped.buyer.email is None and flags


@pytest.mark.parametrize(
    ("quote", "amount", "currency"),
    [
        ("予定価格 1億2千万円（税込）", 120_000_000, "JPY"),
        ("予定価格 ５千万円", 50_000_000, "JPY"),
        ("予定価格 １２３，４５０，０００円", 123_450_000, "JPY"),
        ("추정금액 : 434,605,000,000원", 434_605_000_000, "KRW"),
        ("추정가격 1,234억원", 123_400_000_000, "KRW"),
        ("(단위: 백만원) 12,345백만원", 12_345_000_000, "KRW"),
        ("预算金额（万元）：248.6260万元", 2_486_260, "CNY"),
        ("НМЦК 12,5 млн руб.", 12_500_000, "RUB"),
        ("Giá gói thầu: 3 tỷ đồng", 3_000_000_000, "VND"),
    ],
)
def test_amounts_with_cjk_units_and_scale_words_are_recognised_as_stated(
    quote: str, amount: float, currency: str
) -> None:
    fields = TenderFields(estimated_value=at(1, quote, Money(amount=amount, currency=currency)))
    validated, flags = validate_fields(fields, [Page(1, quote)])
    assert validated.estimated_value is not None, flags


def test_an_amount_the_cjk_quote_does_not_state_is_dropped() -> None:
    quote = "予定価格 1億2千万円"
    fields = TenderFields(estimated_value=at(1, quote, Money(amount=12_000_000, currency="JPY")))
    validated, _ = validate_fields(fields, [Page(1, quote)])
    assert validated.estimated_value is None


@pytest.mark.parametrize(
    ("quote", "value"),
    [
        ("入札書の提出期限 令和８年７月２８日（火）午後５時", "2026-07-28T17:00"),  # era year, full-width digits
        ("令和元年5月1日", "2019-05-01"),
        ("วันยื่นข้อเสนอ 15 มีนาคม พ.ศ. 2569", "2026-03-15"),  # Buddhist era
        ("วันยื่นข้อเสนอ ๑๕ มีนาคม ๒๕๖๙", "2026-03-15"),  # Thai digits
        ("입찰서 제출 마감 ２０２６년 ３월 １５일", "2026-03-15"),
    ],
)
def test_a_date_is_grounded_in_a_quote_that_writes_its_year_in_an_era(quote: str, value: str) -> None:
    fields = TenderFields(submission_deadline=at(1, quote, value))
    validated, flags = validate_fields(fields, [Page(1, quote)])
    assert validated.submission_deadline is not None, flags


def test_an_era_year_that_is_not_the_dates_year_does_not_ground_it() -> None:
    quote = "入札書の提出期限 令和８年７月２８日"
    validated, flags = validate_fields(TenderFields(submission_deadline=at(1, quote, "2027-07-28")), [Page(1, quote)])
    assert validated.submission_deadline is None
    assert "its day and year are not in its quote" in flags[0]


def test_a_japanese_era_date_in_numbers_only_grounds_its_year() -> None:
    quote = "入札書提出期限 R8.9.25 17:00"
    validated, flags = validate_fields(TenderFields(submission_deadline=at(1, quote, "2026-09-25T17:00")),
                                       [Page(1, quote)])
    assert validated.submission_deadline is not None, flags


def test_a_date_in_chinese_numerals_is_grounded_in_its_quote() -> None:
    quote = "入札書の提出期限 令和八年九月二十五日"
    validated, flags = validate_fields(TenderFields(submission_deadline=at(1, quote, "2026-09-25")), [Page(1, quote)])
    assert validated.submission_deadline is not None, flags
    wrong, _ = validate_fields(TenderFields(submission_deadline=at(1, quote, "2026-09-24")), [Page(1, quote)])
    assert wrong.submission_deadline is None


def test_a_taiwanese_date_in_republic_years_grounds_its_year() -> None:
    quote = "截止投標日期：115/03/05 17:00"
    validated, flags = validate_fields(TenderFields(submission_deadline=at(1, quote, "2026-03-05T17:00")),
                                       [Page(1, quote)])
    assert validated.submission_deadline is not None, flags
