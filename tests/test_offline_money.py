"""The offline readers of estimated values and contract durations (offline/money.py, durations.py, currencies.py).

Fixtures are small page texts written here, laid out the way `pdftotext -layout` prints tenders:
one label per line, tables as cells separated by wide gaps.
"""

from __future__ import annotations

import pytest

from tenderflow.extraction.offline.currencies import amounts_in
from tenderflow.extraction.offline.durations import contract_duration
from tenderflow.extraction.offline.money import estimated_value
from tenderflow.extraction.schema import ContractDuration, Money
from tests.support.offline_readers import document, read


def value_of(*pages: str) -> Money | None:
    return read(estimated_value, *pages)


def duration_of(*pages: str) -> ContractDuration | None:
    return read(contract_duration, *pages)


# --- the amount parser ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("€ 622.080,00 oltre iva", 622080.0, "EUR"),
        ("10.400 EUR.", 10400.0, "EUR"),
        ("EUR 1 250 000,00", 1250000.0, "EUR"),
        ("1.000,- EUR", 1000.0, "EUR"),
        ("1,5 Mio. EUR", 1500000.0, "EUR"),
        ("2 millions d'euros", 2000000.0, "EUR"),
        ("45 000 euro(s) (H.T.)", 45000.0, "EUR"),
        ("Rs. 12.5 lakh", 1250000.0, "INR"),
        ("₹ 1,25,000/-", 125000.0, "INR"),
        ("Rs.12,50,000.00 (Rupees Twelve Lakh Fifty Thousand only)", 1250000.0, "INR"),
        ("INR 2.5 Crore", 25000000.0, "INR"),
        ("Ksh. 1,200,000", 1200000.0, "KES"),
        ("KES 4,500,000", 4500000.0, "KES"),
        ("SAR 1,000,000", 1000000.0, "SAR"),
        ("1.500.000 ريال", 1500000.0, "SAR"),
        ("US$ 2 million", 2000000.0, "USD"),
        ("$100 million", 100000000.0, "USD"),
        ("8 200,00 zł", 8200.0, "PLN"),
        ("PLN 120 000,00", 120000.0, "PLN"),
        ("CAD 50,000", 50000.0, "CAD"),
        ("AUD 1.2m", 1200000.0, "AUD"),
        ("5 000 000 FCFA", 5000000.0, "XOF"),
        ("£45,000", 45000.0, "GBP"),
        ("CHF 450'000", 450000.0, "CHF"),
    ],
)
def test_amounts_with_currency_before_or_after(text: str, amount: float, currency: str) -> None:
    found = amounts_in(text)
    assert found, text
    assert (found[0].value, found[0].currency) == (amount, currency)


@pytest.mark.parametrize(
    "text",
    ["2% del valore", "01.06.2023", "art. 60 del D.Lgs. n. 36/2023", "apartado 8 del Anexo I", "12m of cable", "Lot 2"],
)
def test_percentages_dates_references_and_metres_are_no_amounts(text: str) -> None:
    assert [amount for amount in amounts_in(text) if amount.currency] == []
    assert all(amount.value not in (2.0, 1.06, 60.0, 8.0, 2.0) for amount in amounts_in(text))


def test_an_unknown_three_letter_word_is_no_currency() -> None:
    assert amounts_in("VAT 25,000")[0].currency is None
    assert amounts_in("ALL 2,000 bidders")[0].currency is None  # Albanian lek, or just 'ALL'


# --- estimated value: labels in many languages ----------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (
            " Valor estimado del contrato 10.400 EUR.        Tipo de Contrato Suministros",
            Money(amount=10400, currency="EUR"),
        ),
        ("II.1.5) Valeur totale estimée : 1 250 000,00 EUR HT", Money(amount=1250000, currency="EUR")),
        ("Geschätzter Auftragswert:   450.000,00 EUR netto", Money(amount=450000, currency="EUR")),
        ("Importo complessivo a base di gara: € 622.080,00 oltre iva", Money(amount=622080, currency="EUR")),
        ("Wartość szacunkowa zamówienia: 1 200 000,00 zł netto", Money(amount=1200000, currency="PLN")),
        ("Estimated Bid Value     Rs. 12.5 lakh", Money(amount=1250000, currency="INR")),
        ("Geraamde waarde: € 800.000 excl. btw", Money(amount=800000, currency="EUR")),
        ("Tender Value in ₹     12,34,567", Money(amount=1234567, currency="INR")),
        ("Valeur estimée hors TVA : 2,4 millions d'euros", Money(amount=2400000, currency="EUR")),
        ("القيمة التقديرية: 1.500.000 ريال", Money(amount=1500000, currency="SAR")),
    ],
)
def test_value_after_a_label(page: str, expected: Money) -> None:
    assert value_of(page) == expected


def test_value_in_the_cell_below_a_table_header_not_the_emd_column() -> None:
    page = (
        "   Tender ID        Estimated Cost (Rs.)      EMD (Rs.)       Tender Fee (Rs.)\n"
        "   2025_PWD_001     45,60,000                 91,200          1,180\n"
    )
    assert value_of(page) == Money(amount=4560000, currency="INR")


def test_an_indian_nit_table_row() -> None:
    page = (
        "Sl.No   Name of Work           Estimated Cost (Rs.)   EMD (Rs.)   Cost of Tender Document (Rs.)   "
        "Period of Completion\n"
        "1       Construction of shed   45,60,000              91,200      1,180                           6 Months\n"
    )
    assert value_of(page) == Money(amount=4560000, currency="INR")
    assert duration_of(page) == ContractDuration(amount=6, unit="months")


def test_value_a_few_lines_below_a_heading() -> None:
    page = (
        "5.3 Estimated values\n"
        "Pursuant to FAR 8.405-3(a)(4), at the time of award, the Government estimates the total three\n"
        "year value of BPA obligations to be $100 million.\n"
    )
    found = estimated_value(document(page))
    assert found is not None
    assert found.value == Money(amount=100000000, currency="USD")
    assert found.quote == "year value of BPA obligations to be $100 million."


def test_currency_from_a_currency_label_nearby() -> None:
    page = "II.1.5) Estimated total value\n    Value excluding VAT: 1 250 000.00 Currency: EUR\n"
    assert value_of(page) == Money(amount=1250000, currency="EUR")


def test_currency_of_the_whole_document_for_an_amount_printed_without_one() -> None:
    table = "Descrizione        Importo €\nDirezione Lavori   € 148.040,99\nSicurezza   € 42.198,80\n"
    page = "      Importo a base di gara                        190.239,79\n\nCosti sicurezza € 0,00\n"
    assert value_of(table, page) == Money(amount=190239.79, currency="EUR")
    assert value_of("      Importo a base di gara                        190.239,79\n") is None


def test_a_bare_number_in_a_table_takes_the_currency_of_the_document() -> None:
    bid = "Bid Details\n  Estimated Bid Value            1500000\n\nIf the bid value is more than Rs 10 Crore, ...\n"
    assert value_of(bid) == Money(amount=1500000, currency="INR")


def test_page_numbers_and_years_in_a_table_are_no_value() -> None:
    contents = "Cláusula 6. Valor estimado        145\nCláusula 7. Presupuesto base      146\n"
    assert value_of(contents, "Importe total: 11.880,00 EUR\n") is None
    assert value_of("Estimated Bid Value            2025\n\nIf more than Rs 10 Crore\n") is None


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (
            "Proposal costs are to be presented in Singapore Dollars and should not exceed a total amount of "
            "SGD 110,000 (Singapore Dollars One Hundred and Ten Thousand).",
            Money(amount=110000, currency="SGD"),
        ),
        ("4. Budget maximum\n24.000.000. de francs CFA HT\n", Money(amount=24000000, currency="XOF")),
    ],
)
def test_a_budget_ceiling_is_the_estimated_value(page: str, expected: Money) -> None:
    assert value_of(page) == expected


def test_dollar_sign_read_by_the_country_the_document_names() -> None:
    notice = "Camrose County, Alberta\nEstimated value: $ 2,500,000\n"
    assert value_of(notice) == Money(amount=2500000, currency="CAD")
    assert value_of("Presupuesto oficial: $ 1.200.000 (pesos argentinos, ARS)") == Money(amount=1200000, currency="ARS")


# --- estimated value: what is NOT the estimated value ---------------------------------------------------


@pytest.mark.parametrize(
    "page",
    [
        "Bid security: 2% of the estimated value, i.e. EUR 12,441.60",
        "EMD / Earnest Money: estimated cost Rs. 91,200",
        "garanzia provvisoria pari al 2% del valore stimato dell'appalto, per un importo di € 12.441,60",
        "Importo giornaliero a base d'asta, per ciascuno degli automezzi: € 270,00 oltre iva",
        "Wadium: wartość szacunkowa 8 200,00 zł",
        "Tender fee (non-refundable) for the estimated value: Rs. 1,180",
        "Minimum average annual turnover of 30% of the estimated cost: Rs. 15,00,000",
        "fatturato globale minimo non inferiore al valore stimato: € 622.080,00",
        "Insurance: estimated value of at least $ 5,000,000 per occurrence",
        "PRESUPUESTO OFICIAL: $ X\nDirección General de Compras y Suministros, Santa Fe 660, Rosario.",
        "contract amendments increase the Contract value to above $25,000;",
        "Szacunkowa wartość zamówienia przekracza progi unijne: 5 382 000 EUR",
        "Estimated Cost (Rs. in Lakh)     45.60",
        "1. Forwarding letter without mentioning the cost of Tender value.\n"
        "2. Tender document cost of Rs.1180/- (Rs. One Thousand One Hundred Eighty only)",
        "Montant maximum : 45 000 euro(s) (H.T.)",
        "Valor estimado del contrato: ______ EUR",
    ],
)
def test_securities_fees_thresholds_and_placeholders_are_not_the_value(page: str) -> None:
    assert value_of(page) is None


def test_a_lot_value_loses_to_the_total() -> None:
    page = (
        "Valor estimado del contrato 10.400 EUR.\n\n\n\n\n\n\n\n\n\n\n"
        "Lote 1: Suministro de planta navideña\n"
        "Valor estimado del contrato 6.400 EUR.\n"
        "Lote 2: Servicio de decoración floral\n"
        "Valor estimado del contrato 4.000 EUR.\n"
    )
    assert value_of(page) == Money(amount=10400, currency="EUR")


def test_two_different_values_under_equal_labels_abstain() -> None:
    assert value_of("Estimated value: EUR 100,000\n\n\n\n\nEstimated value: EUR 250,000\n") is None


def test_an_amount_without_any_currency_is_not_returned() -> None:
    assert value_of("Estimated value: 250,000") is None


def test_the_budget_with_vat_loses_to_the_estimated_value() -> None:
    page = (
        "Valor estimado del contrato 10.400 EUR.\n"
        "Presupuesto base de licitación\n"
        " Importe 11.880 EUR.\n"
        " Importe (sin impuestos) 10.400 EUR.\n"
    )
    assert value_of(page) == Money(amount=10400, currency="EUR")


# --- contract duration ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("Durée de l'accord-cadre : 11 mois.", ContractDuration(amount=11, unit="months")),
        ("Vertragslaufzeit: 24 Monate ab Zuschlag", ContractDuration(amount=24, unit="months")),
        ("Plazo de ejecución: doce (12) meses", ContractDuration(amount=12, unit="months")),
        (
            "Termin realizacji zamówienia: 36 miesięcy od dnia zawarcia umowy",
            ContractDuration(amount=36, unit="months"),
        ),
        ("Durata del contratto: 540 giorni naturali e consecutivi", ContractDuration(amount=540, unit="days")),
        ("Prazo de execução: 2 anos", ContractDuration(amount=2, unit="years")),
        ("Looptijd van de overeenkomst: 4 jaar", ContractDuration(amount=4, unit="years")),
        ("مدة العقد: 12 شهراً", ContractDuration(amount=12, unit="months")),
        ("Completion Period          90 (Days)", ContractDuration(amount=90, unit="days")),
        ("II.2.7) Duration of the contract\n  Duration in months: 36", ContractDuration(amount=36, unit="months")),
        (
            "The ordering period for this BPA is from date of award to three (3) calendar years.",
            ContractDuration(amount=3, unit="years"),
        ),
        ("The rate contract will be for a period of 2 years.", ContractDuration(amount=2, unit="years")),
        (
            "4. Time Limit :\n The time limit for the work contract is 18 months from the date of commencement",
            ContractDuration(amount=18, unit="months"),
        ),
        ("مدة تنفيذ العقد هي (18) شهر تحسب بالتقويم الميلادي", ContractDuration(amount=18, unit="months")),
        (
            "8.0 COMPLETION PERIOD -\n The work shall be completed within a period of 45 DAYS from the work order",
            ContractDuration(amount=45, unit="days"),
        ),
        ("Durée : 12 mois", ContractDuration(amount=12, unit="months")),
        ("Laufzeit in Monaten: 48", ContractDuration(amount=48, unit="months")),
        ("Period Of Work(Days)        180", ContractDuration(amount=180, unit="days")),
        ("Contract Period (in months)   24", ContractDuration(amount=24, unit="months")),
    ],
)
def test_duration_after_a_label(page: str, expected: ContractDuration) -> None:
    assert duration_of(page) == expected


@pytest.mark.parametrize(
    "page",
    [
        "III.2.11) Durata offerta vincolante: 180 giorni.",
        "III.2.10) Durata del procedimento: pari a 9 mesi dalla pubblicazione del bando",
        "Délai minimum de validité des offres : 120 jours",
        "Offers shall remain valid for a period of 90 days.",
        "Warranty period: 3 years",
        "Délai de paiement : 30 jours",
        "9. Delivery within 45 days of Award.",
        "Contract period: the contractor shall keep records for a period of 6 years",
        "access to the materials commences on the date on which the Contract is made and continues for a period of "
        "three (3) years following the completion of the Services",
        "It is also a term of the contract that if the contractor does not make any demand\n"
        "for arbitration in respect of any claim(s) within 90 days of receiving intimation",
        "Durée : à compter du 1er octobre 2020 jusqu'au 31 août 2021.",
        "The duration of the Phase One work typically lasts six (6) months.",
        "Bid Validity(Days)   120",
        "Contract Period       24",
        "The contract period may be extended by 6 months",
        "Performance security shall remain valid for 60 days beyond the contract period",
        "Срок на валидност на офертите: 6 месеца\n",  # bg: the offers' validity
        "Rok važenja ponuda: 90 dana\n",  # hr
    ],
)
def test_validity_warranty_payment_delivery_and_dates_are_not_the_duration(page: str) -> None:
    assert duration_of(page) is None


def test_two_different_durations_abstain_two_near_equal_ones_do_not() -> None:
    assert duration_of("Contract period: 12 months\n\n\n\nContract period: 24 months\n") is None
    near = "Completion period: 45 days from the work order\n\n\n\nTime for completion: 06 WEEKS\n"
    assert duration_of(near) == ContractDuration(amount=45, unit="days")


def test_the_quote_is_the_line_the_duration_is_read_from() -> None:
    found = contract_duration(document("Header\n   Durée du marché : 48 mois à compter de la notification\n"))
    assert found is not None
    assert (found.page, found.quote) == (1, "Durée du marché : 48 mois à compter de la notification")


# --- TED / eForms notices in their languages: total value, not the lot's; duration in months ------------------

_TED_FORMS = {
    "en": (
        "II.1.5) Estimated total value\nValue excluding VAT: 2 500 000.00 EUR\nII.2) Description\nLot No: 1\n"
        "II.2.6) Estimated value\nValue excluding VAT: 1 000 000.00 EUR\n"
        "II.2.7) Duration of the contract, framework agreement or dynamic purchasing system\nDuration in months: 48\n"
    ),
    "fr": (
        "II.1.5) Valeur totale estimée\nValeur hors TVA : 2 500 000,00 EUR\n"
        "II.2.7) Durée du marché, de l'accord-cadre ou du système d'acquisition dynamique\nDurée en mois : 48\n"
    ),
    "de": (
        "II.1.5) Geschätzter Gesamtwert\nWert ohne MwSt.: 2 500 000.00 EUR\n"
        "II.2.7) Laufzeit des Vertrags, der Rahmenvereinbarung oder des dynamischen Beschaffungssystems\n"
        "Laufzeit in Monaten: 48\n"
    ),
    "es": (
        "II.1.5) Valor total estimado\nValor IVA excluido: 2 500 000.00 EUR\n"
        "II.2.7) Duración del contrato, acuerdo marco o sistema dinámico de adquisición\nDuración en meses: 48\n"
    ),
    "it": (
        "II.1.5) Valore totale stimato\nValore, IVA esclusa: 2 500 000.00 EUR\n"
        "II.2.7) Durata del contratto d'appalto, dell'accordo quadro o del sistema dinamico di acquisizione\n"
        "Durata in mesi: 48\n"
    ),
    "pl": (
        "II.1.5) Szacunkowa całkowita wartość\nWartość bez VAT: 2 500 000,00 PLN\n"
        "II.2.7) Okres obowiązywania zamówienia, umowy ramowej lub dynamicznego systemu zakupów\n"
        "Okres w miesiącach: 48\n"
    ),
    "pt": (
        "II.1.5) Valor total estimado\nValor sem IVA: 2 500 000.00 EUR\n"
        "II.2.7) Duração do contrato, do acordo-quadro ou do sistema de aquisição dinâmico\nDuração em meses: 48\n"
    ),
    "nl": (
        "II.1.5) Geraamde totale waarde\nWaarde zonder btw: 2 500 000.00 EUR\n"
        "II.2.7) Looptijd van de opdracht, de raamovereenkomst of het dynamisch aankoopsysteem\n"
        "Looptijd in maanden: 48\n"
    ),
    "eforms": (
        "2.1.3 Value\nEstimated value excluding VAT: 2 500 000 Euro\n5.1 Lot technical ID: LOT-0001\n"
        "Estimated value excluding VAT: 500 000 Euro\n5.1.3 Estimated duration\nDuration: 48 Months\n"
    ),
}


@pytest.mark.parametrize("language", sorted(_TED_FORMS))
def test_ted_notice_forms(language: str) -> None:
    page = _TED_FORMS[language]
    currency = "PLN" if language == "pl" else "EUR"
    assert value_of(page) == Money(amount=2500000, currency=currency)
    assert duration_of(page) == ContractDuration(amount=48, unit="months")


def test_a_heading_line_above_a_label_is_no_negative_context() -> None:
    assert duration_of("TENDER NOTICE\nThe contract period shall be two (2) years.\n") == ContractDuration(
        amount=2, unit="years"
    )


# --- grouped numbers a scan broke with a space --------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["Estimated total value: 18, 400,000.00 NOK", "Geschätzter Gesamtwert: 1.284. 500,00 EUR"]
)
def test_no_amount_from_a_part_of_a_broken_grouped_number(text: str) -> None:
    assert [amount.value for amount in amounts_in(text) if amount.value >= 100] == []
    assert value_of(text + "\n") is None


def test_an_amount_followed_by_another_number_is_still_read() -> None:
    assert [amount.value for amount in amounts_in("Wert: 1.284.500,00 EUR, 300 Tage")][:1] == [1284500.0]


# --- every script: currencies, scales, labels --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("111,617,000円（税込）", 111_617_000.0, "JPY"),
        ("１２３，４５０，０００円", 123_450_000.0, "JPY"),
        ("1億2千万円", 120_000_000.0, "JPY"),
        ("434,605,000,000원", 434_605_000_000.0, "KRW"),
        ("￦104,927,000,000", 104_927_000_000.0, "KRW"),
        ("1,234억원", 123_400_000_000.0, "KRW"),
        ("400000 元整", 400_000.0, "CNY"),
        ("248.6260万元", 2_486_260.0, "CNY"),
        ("￥2486260 元", 2_486_260.0, "CNY"),
        ("人民币2486260元", 2_486_260.0, "CNY"),
        ("494640.00 РОССИЙСКИЙ РУБЛЬ", 494_640.0, "RUB"),
        ("17 947 967.58 Российский рубль", 17_947_967.58, "RUB"),
        ("12,5 млн руб.", 12_500_000.0, "RUB"),
        ("1 500 000 ₽", 1_500_000.0, "RUB"),
        ("2 500 000 тенге", 2_500_000.0, "KZT"),
        ("1 200 000,00 грн", 1_200_000.0, "UAH"),
        ("170,97 ΕΥΡΩ", 170.97, "EUR"),
        ("183151,29 lei", 183_151.29, "RON"),
        ("1.250.000,00 TL", 1_250_000.0, "TRY"),
        ("3 tỷ đồng", 3_000_000_000.0, "VND"),
        ("1.000.000 đ", 1_000_000.0, "VND"),
        ("5 ล้านบาท", 5_000_000.0, "THB"),
        ("₪ 120,000", 120_000.0, "ILS"),
        ("1 500 000 Kč", 1_500_000.0, "CZK"),
        ("25 000 000 Ft", 25_000_000.0, "HUF"),
        ("Rp 1.500.000.000", 1_500_000_000.0, "IDR"),
    ],
)
def test_amounts_in_every_script(text: str, amount: float, currency: str) -> None:
    assert [(found.value, found.currency) for found in amounts_in(text)] == [(amount, currency)]


@pytest.mark.parametrize("text", ["20 ft container", "1,825일", "2026年", "第3条"])
def test_numbers_that_are_not_money(text: str) -> None:
    assert all(found.currency is None for found in amounts_in(text))


def test_the_yen_sign_is_read_by_the_documents_language() -> None:
    japanese = "予定価格    ￥12,000,000（税抜）\nお問い合わせください。"
    assert value_of(japanese) == Money(amount=12_000_000, currency="JPY")
    assert value_of("预算金额：￥12,000,000\n采购人：某某大学") == Money(amount=12_000_000, currency="CNY")


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("６   予定価格         111,617,000円（税込）", Money(amount=111_617_000, currency="JPY")),
        ("1.7.   추정금액 : 43,460,500,000원", Money(amount=43_460_500_000, currency="KRW")),
        ("预算金额：人民币248.6260万元", Money(amount=2_486_260, currency="CNY")),
        ("2.1 招标控制价（最高投标限价):400000 元，单价另计。", Money(amount=400_000, currency="CNY")),
        ("採購預算：新台幣 1,200,000 元", Money(amount=1_200_000, currency="TWD")),
        (
            "      Начальная (максимальная) цена\n"
            "                                                             494640.00 РОССИЙСКИЙ РУБЛЬ\n"
            "      контракта\n",
            Money(amount=494_640, currency="RUB"),
        ),
        ("Очікувана вартість предмета закупівлі: 1 200 000,00 грн", Money(amount=1_200_000, currency="UAH")),
        ("Προϋπολογισμός: 24.800,00 € πλέον ΦΠΑ", Money(amount=24_800, currency="EUR")),
        ("Valoarea estimata fara TVA : 183151,29 ; Moneda: RON", Money(amount=183_151.29, currency="RON")),
        ("Yaklaşık maliyet: 1.250.000,00 TL", Money(amount=1_250_000, currency="TRY")),
        ("Giá gói thầu: 3.500.000.000 đồng", Money(amount=3_500_000_000, currency="VND")),
        ("Nilai HPS: Rp 1.500.000.000", Money(amount=1_500_000_000, currency="IDR")),
        ("ราคากลาง 5,000,000 บาท", Money(amount=5_000_000, currency="THB")),
        ("Předpokládaná hodnota veřejné zakázky: 1 500 000 Kč bez DPH", Money(amount=1_500_000, currency="CZK")),
        ("A beszerzés becsült értéke: 25 000 000 Ft", Money(amount=25_000_000, currency="HUF")),
    ],
)
def test_estimated_value_labels_in_every_script(page: str, expected: Money) -> None:
    assert value_of(page) == expected


def test_the_net_estimate_is_the_value_beside_the_gross_one() -> None:
    """Korea's 추정금액 is 추정가격 + VAT (+ owner-supplied materials); 추정가격 is the estimated value."""
    page = "사. 추정금액 : 22,000,000,000원【(추정가격) 20,000,000,000원 + (부가가치세) 2,000,000,000원】"
    assert value_of(page) == Money(amount=20_000_000_000, currency="KRW")


@pytest.mark.parametrize(
    "page",
    [
        "入札保証金 予定価格の100分の5以上 5,000,000円",
        "１ 過去２か年度間に完成した予定価格５千万円以上の工事",
        "(예시) 추정가격 500억원 이상인 공사",
        "8.2. 입찰보증금 : 추정금액의 5% 이상 2,000,000,000원",
        "投标保证金：人民币5000元",
        "Размер обеспечения заявки: 24732.00 РОССИЙСКИЙ РУБЛЬ",
        "Valoarea garantiei de participare: 1008 RON",
        "Εγγυητική επιστολή συμμετοχής: 2.000,00 €",
        "Geçici teminat: 37.500,00 TL",
        "Bảo đảm dự thầu: 50.000.000 đồng",
    ],
)
def test_bonds_and_thresholds_are_not_the_value_in_any_script(page: str) -> None:
    assert value_of(page) is None


def test_a_trades_share_under_the_estimate_column_is_not_the_value() -> None:
    page = (
        "           업 종               추정금액(비율)\n"
        "       토 목 공 사 업         354,232,000,000원(81.5%)\n"
        "       건 축 공 사 업         75,695,000,000원(17.4%)\n"
    )
    assert value_of(page) is None


def test_an_eu_form_lot_section_value_loses_to_the_total() -> None:
    page = (
        "          II.1.5) Valoarea totala estimata:\n"
        "          Valoarea estimata fara TVA : 183151,29 ; Moneda: RON\n"
        "    II.2 Descriere\n"
        "          II.2.1 - Denumire lot\n"
        "          1 - Lot 1-Dotari\n"
        "          II.2.2 Coduri CPV\n"
        "          Cod CPV Principal: Computere personale (Rev.2)\n"
        "          II.2.3 Locul de executare\n"
        "          Cod NUTS: RO316 Prahova\n"
        "          II.2.5 Criterii de atribuire\n"
        "          Pretul cel mai scazut\n"
        "          II.2.6 Valoarea totala estimata\n"
        "          Valoarea estimata fara TVA : 100840,34; Moneda: RON\n"
    )
    assert value_of(page) == Money(amount=183_151.29, currency="RON")


def test_a_right_to_left_row_reads_its_amount_on_the_left_of_its_label() -> None:
    page = "                 1,250,000 ريال سعودي                                     القيمة التقديرية\n"
    assert value_of(page) == Money(amount=1_250_000, currency="SAR")


# --- durations in every script -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("1.4.   공사기간 : 착공일로부터 1,825일", ContractDuration(amount=1825, unit="days")),
        ("라. 용역기간 : 계약일로부터 12개월", ContractDuration(amount=12, unit="months")),
        ("３   工期        契約確定の日から 180日間", ContractDuration(amount=180, unit="days")),
        ("履行期間 契約締結日から６か月", ContractDuration(amount=6, unit="months")),
        ("2.2 服务期限：自合同签订之日起 1 年或服务金额达到预算为止", ContractDuration(amount=1, unit="years")),
        ("5    交货安装期       20 日历天内完成全部设备采购及安装调试工作。", ContractDuration(amount=20, unit="days")),
        ("Срок поставки: 30 календарных дней с даты заключения контракта", ContractDuration(amount=30, unit="days")),
        ("Строк виконання: 6 місяців", ContractDuration(amount=6, unit="months")),
        ("Διάρκεια της σύμβασης: 12 μήνες", ContractDuration(amount=12, unit="months")),
        ("Durata in luni: 4; Durata in zile : -", ContractDuration(amount=4, unit="months")),
        ("İşin süresi: 90 takvim günü", ContractDuration(amount=90, unit="days")),
        ("Thời gian thực hiện hợp đồng: 9 tháng", ContractDuration(amount=9, unit="months")),
        ("Jangka waktu pelaksanaan: 120 hari kalender", ContractDuration(amount=120, unit="days")),
        ("ระยะเวลาดำเนินการ 90 วัน", ContractDuration(amount=90, unit="days")),
        ("Doba plnění: 24 měsíců", ContractDuration(amount=24, unit="months")),
        ("A szerződés időtartama: 36 hónap", ContractDuration(amount=36, unit="months")),
        ("Avtalstid: 2 år", ContractDuration(amount=2, unit="years")),
        # a unit's singular and counted forms in the EU's languages
        ("Avtalstid: 1 vecka", ContractDuration(amount=1, unit="weeks")),
        ("Trajanje ugovora: 2 godine", ContractDuration(amount=2, unit="years")),
        ("Trajanje pogodbe: 3 leta", ContractDuration(amount=3, unit="years")),
        ("Sutarties trukmė: 45 dienos", ContractDuration(amount=45, unit="days")),
        ("Ilgums: 2 gadi", ContractDuration(amount=2, unit="years")),
        ("Lepingu kestus: 1 aasta", ContractDuration(amount=1, unit="years")),
        ("Sopimuksen kesto: 1 vuosi", ContractDuration(amount=1, unit="years")),
        ("Doba plnění: 6 týdnů", ContractDuration(amount=6, unit="weeks")),
    ],
)
def test_duration_labels_in_every_script(page: str, expected: ContractDuration) -> None:
    assert duration_of(page) == expected


@pytest.mark.parametrize(
    "page",
    [
        "３   工期        契約確定の日から令和 9年 7月23日まで",  # an end date: its era year is no number of years
        "공사기간 : 착공일로부터 2027년 3월 31일까지",
        "Thời gian thực hiện dự kiến từ tháng 04 năm 2021 đến tháng 12 năm 2021",
        "服务期限：质保期 3 年",
        "工期延误：超期 5 天内，每天扣合同金额的 0.3‰",
        "Срок исполнения контракта: 31.12.2026",
        "Срок действия гарантии: 12 месяцев",
        "Teklif geçerlilik süresi: 90 gün",
    ],
)
def test_end_dates_warranties_and_penalties_are_no_duration_in_any_script(page: str) -> None:
    assert duration_of(page) is None


def test_a_sentence_broken_after_its_number_reads_the_unit_on_the_next_line() -> None:
    page = (
        "Mốc thời gian: Thời gian thực hiện dự kiến từ tháng 04 năm 2021 đến tháng 12 năm 2021 (9\n"
        "tháng không liên tục).\n"
    )
    found = contract_duration(document(page))
    assert found is not None
    assert found.value == ContractDuration(amount=9, unit="months")
    assert found.quote.endswith("(9")


# --- bad input -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "page",
    [
        "Ã©Ã¨ Ð¿Ñ€Ð¾Ð´Ð°Ð¶ 494640.00 Ð Ð£Ð‘Ð›Ð¬ ï¿½ï¿½",
        "\ufffd\ufffd\ufffd 1,250,000 \ufffd\ufffd",
        "የጨረታው ግምታዊ ዋጋ 1,250,000 ብር",  # Amharic, a script the reader does not know
        "予定価格 ＿＿＿＿円 億万千",
    ],
)
def test_mojibake_and_unknown_scripts_give_no_value_and_no_error(page: str) -> None:
    assert value_of(page) is None
    assert duration_of(page) is None


def test_a_page_mixing_three_scripts_reads_each_label() -> None:
    page = (
        "予定価格 12,000,000円（税抜）\n"
        "Срок поставки: 30 календарных дней\n"
        "Bid security: USD 5,000\n"
    )
    assert value_of(page) == Money(amount=12_000_000, currency="JPY")
    assert duration_of(page) == ContractDuration(amount=30, unit="days")


def test_a_kazakh_portal_sum_allotted_for_the_procurement() -> None:
    assert value_of("Сумма, выделенная для закупки: 12 500 000,00 тенге") == Money(amount=12_500_000, currency="KZT")
