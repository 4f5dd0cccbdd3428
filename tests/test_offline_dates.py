"""The offline reader of deadlines (tenderflow/extraction/offline/dates.py).

Fixtures are small page texts written here, laid out the way `pdftotext -layout` prints tenders: labels
and values on one line, in table cells separated by wide gaps, or a label with its value on the next line.
"""

from __future__ import annotations

from datetime import date

import pytest

from tenderflow.extraction.backend import Page
from tenderflow.extraction.offline import date_parsing
from tenderflow.extraction.offline.dates import parse_dates, parse_times, questions_deadline, submission_deadline
from tenderflow.extraction.offline.document import fold
from tenderflow.extraction.schema import Sourced, TenderFields
from tenderflow.extraction.validation import validate_fields
from tests.support.offline_readers import document, kept_by, read, value


def submission(*pages: str) -> str | None:
    return read(submission_deadline, *pages)


def questions(*pages: str) -> str | None:
    return read(questions_deadline, *pages)


def kept_submission(*pages: str) -> str | None:
    """The submission deadline, after asserting the pipeline's validation keeps it (its quote on its page)."""
    return value(kept_by(submission_deadline, "submission_deadline")(*pages))


def dates_in(text: str, *, month_first: bool = False) -> list[date]:
    return [parsed.day for parsed in parse_dates(fold(text), month_first=month_first)]


# --- the date parser ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("21st November 2025", date(2025, 11, 21)),
        ("21st day of November, 2025", date(2025, 11, 21)),
        ("21.11.2025", date(2025, 11, 21)),
        ("21/11/2025 à 12h00", date(2025, 11, 21)),
        ("21-Nov-2025 15:00", date(2025, 11, 21)),
        ("15. März 2026", date(2026, 3, 15)),
        ("15 de marzo de 2026", date(2026, 3, 15)),
        ("15 marzo 2026", date(2026, 3, 15)),
        ("15 września 2021 r.", date(2021, 9, 15)),
        ("15 wrzesień 2021", date(2021, 9, 15)),
        ("15.09.2021 r.", date(2021, 9, 15)),
        ("March 15, 2026", date(2026, 3, 15)),
        ("Sept. 5, 2026", date(2026, 9, 5)),
        ("2026-03-15", date(2026, 3, 15)),
        ("2025/09/07 م", date(2025, 9, 7)),
        ("1.e.r septembre 2020", date(2020, 9, 1)),
        ("1er avril 2019", date(2019, 4, 1)),
        ("26 août 2020", date(2020, 8, 26)),
        ("15 maart 2026", date(2026, 3, 15)),
        ("15 de março de 2026", date(2026, 3, 15)),
        ("15 setiembre 2026", date(2026, 9, 15)),
    ],
)
def test_written_dates_in_every_common_form(text: str, expected: date) -> None:
    assert dates_in(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Japanese: era years (令和 1 = 2019, 元年 its first), full-width digits, weekday in brackets
        ("令和８年７月２７日（月）", date(2026, 7, 27)),
        ("令和 8年 9月25日 午前09時30分", date(2026, 9, 25)),
        ("令和元年5月1日", date(2019, 5, 1)),
        ("平成31年4月30日", date(2019, 4, 30)),
        ("昭和64年1月7日", date(1989, 1, 7)),
        # Chinese (Simplified and Traditional, Taiwan's 民國 years), Korean
        ("2026 年 3 月 5 日 9 时 30 分", date(2026, 3, 5)),
        ("2026年03月05日", date(2026, 3, 5)),
        ("民國115年3月5日", date(2026, 3, 5)),
        ("2026년 3월 5일", date(2026, 3, 5)),
        ("2026. 3. 5. 10:00", date(2026, 3, 5)),
        # Cyrillic (genitive month names), Greek, Turkish, Vietnamese, Thai (Buddhist era), Hebrew
        ("5 марта 2026 г.", date(2026, 3, 5)),
        ("«05» марта 2026 года", date(2026, 3, 5)),
        ("5 березня 2026 р.", date(2026, 3, 5)),
        ("5 март 2026 г.", date(2026, 3, 5)),
        ("5 наурыз 2026 ж.", date(2026, 3, 5)),
        ("5 Μαρτίου 2026", date(2026, 3, 5)),
        ("5 Mart 2026 Perşembe", date(2026, 3, 5)),
        ("ngày 5 tháng 3 năm 2026", date(2026, 3, 5)),
        ("5 มีนาคม 2569", date(2026, 3, 5)),
        ("5 มี.ค. พ.ศ. 2569", date(2026, 3, 5)),
        ("๕ มีนาคม ๒๕๖๙", date(2026, 3, 5)),
        ("5 במרץ 2026", date(2026, 3, 5)),
        # the EU languages CLDR names; year-first Hungarian and Lithuanian
        ("5. března 2026", date(2026, 3, 5)),
        ("5. marca 2026", date(2026, 3, 5)),
        ("5. marec 2026", date(2026, 3, 5)),
        ("5. ožujka 2026.", date(2026, 3, 5)),
        ("5. maaliskuuta 2026", date(2026, 3, 5)),
        ("5 mars 2026 kl. 12.00", date(2026, 3, 5)),
        ("2026. március 5.", date(2026, 3, 5)),
        ("2026 m. kovo 5 d.", date(2026, 3, 5)),
        ("5 Maret 2026", date(2026, 3, 5)),
    ],
)
def test_dates_in_every_script(text: str, expected: date) -> None:
    assert dates_in(text) == [expected]


def test_the_shipped_month_and_weekday_names_are_what_babel_gives_today() -> None:
    """The names are read from a file in the package (`make cldr-names` writes it), not from babel's
    data at every start: the file must say what babel says, in the same order."""
    import json

    shipped = json.loads(date_parsing.CLDR_NAMES.read_text(encoding="utf-8"))
    assert shipped == date_parsing.cldr_names(), "run `make cldr-names`"
    assert list(shipped["months"]) == list(date_parsing.cldr_names()["months"])
    assert date_parsing.MONTHS == shipped["months"]


def test_no_locale_makes_another_locales_month_names_ambiguous() -> None:
    """Every month name of every locale read reads as its own month: adding a locale never drops or changes
    a name of another (Croatian, whose 'listopad' is October, only adds the names nobody else uses)."""
    for locale in date_parsing._LOCALES:
        for name, number in date_parsing._month_names(locale).items():
            assert date_parsing.MONTHS[name] == number, (locale, name)
    assert date_parsing.MONTHS["listopada"] == 11  # Polish and Czech November
    assert date_parsing.MONTHS["ozujka"] == 3  # Croatian March, nobody else's


def test_a_cjk_range_end_without_its_year_takes_the_start_year() -> None:
    assert dates_in("令和８年１２月２５日（金）～１月８日（金）") == [date(2026, 12, 25), date(2027, 1, 8)]
    assert dates_in("７月２８日（火）") == []  # no year on the line: no date


def test_a_buddhist_era_year_needs_a_thai_month_or_thai_script() -> None:
    assert dates_in("ภายในวันที่ 05/03/2569") == [date(2026, 3, 5)]
    assert dates_in("Invoice 05/03/2569") == []


def test_hijri_dates_convert_to_gregorian() -> None:
    """Umm al-Qura: 15 Rabi' al-Awwal 1447 is 7 September 2025, in Western or Arabic-Indic digits."""
    assert dates_in("1447/03/15 هـ") == [date(2025, 9, 7)]
    assert dates_in("١٤٤٧/٠٣/١٥ هـ") == [date(2025, 9, 7)]
    assert dates_in("15/03/1447هـ") == [date(2025, 9, 7)]
    assert parse_dates(fold("1447/03/15 هـ"))[0].hijri
    assert not parse_dates(fold("2025/09/07"))[0].hijri


def test_a_hijri_looking_number_without_marker_is_no_date() -> None:
    assert dates_in("Section 1447/03/15 of the code") == []


def test_numeric_dates_read_day_first_unless_told_otherwise() -> None:
    assert dates_in("03/04/2026") == [date(2026, 4, 3)]
    assert dates_in("03/04/2026", month_first=True) == [date(2026, 3, 4)]
    assert dates_in("06/24/2026") == [date(2026, 6, 24)]  # only one reading exists


@pytest.mark.parametrize(
    "text",
    ["dd/mm/yyyy", "RAID 1/5/10", "v. 01072025", "31.02.2026", "Ley 9/2017", "45000000-7"],
)
def test_non_dates_are_not_read(text: str) -> None:
    assert dates_in(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12:00", (12, 0)),
        ("12h00", (12, 0)),
        ("12 h 30", (12, 30)),
        ("12.00 Uhr", (12, 0)),
        ("10 Uhr", (10, 0)),
        ("5:00 PM", (17, 0)),
        ("5 p.m.", (17, 0)),
        ("12:00 a.m.", (0, 0)),
        ("2:00:00 p.m.", (14, 0)),
        ("12 heures", (12, 0)),
        ("1500 hrs", (15, 0)),
        ("15.00 hrs IST", (15, 0)),
        ("noon", (12, 0)),
    ],
)
def test_times(text: str, expected: tuple[int, int]) -> None:
    assert [(time.hour, time.minute) for time in parse_times(fold(text))] == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("午前09時30分", (9, 30)),
        ("午後３時", (15, 0)),
        ("14 时 30 分", (14, 30)),
        ("下午3时30分", (15, 30)),
        ("16시 00분", (16, 0)),
        ("오후 4시", (16, 0)),
        ("오후 4시 반", (16, 30)),
        ("в 10.00", (10, 0)),
        ("kl. 12.00", (12, 0)),
        ("saat 10:00", (10, 0)),
        ("เวลา 10.00 น.", (10, 0)),
        ("10:00 ч.", (10, 0)),
    ],
)
def test_times_in_every_script(text: str, expected: tuple[int, int]) -> None:
    assert [(time.hour, time.minute) for time in parse_times(fold(text))] == [expected]


def test_a_dotted_date_before_a_time_leaves_the_time_whole() -> None:
    """'2026. 3. 5. 10:00': the day '5.' and the hour are not read as the time 5.10."""
    assert [(time.hour, time.minute) for time in parse_times(fold("2026. 3. 5. 10:00"))] == [(10, 0)]


def test_a_dotted_number_alone_is_no_time() -> None:
    assert parse_times("article 12.30 applies") == []


# --- submission deadline: labels and sentence forms, every language -------------------------------------


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("Date limite de réception des offres : 10 septembre 2020, à 12 heures.", "2020-09-10T12:00"),
        ("Date limite de réception des candidatures : 21/11/2025 à 12h00", "2025-11-21T12:00"),
        ("Ende der Angebotsfrist                         17.04.2026 12:00 Uhr", "2026-04-17T12:00"),
        ("    b) Fristen\n       Ablauf der Angebotsfrist\n           14.07.2022 - 11:00 Uhr\n", "2022-07-14T11:00"),
        ("Schlusstermin für den Eingang der Angebote: 15. März 2026, 10.00 Uhr", "2026-03-15T10:00"),
        ("Plazo de Presentación de Oferta\n\n Hasta el 25/11/2024 a las 14:00", "2024-11-25T14:00"),
        ("Fecha límite de presentación de ofertas: 15 de marzo de 2026, 14:00 horas", "2026-03-15T14:00"),
        ("IV.3.2) Termine per il ricevimento delle offerte: 16/10/2025, ore 12:00", "2025-10-16T12:00"),
        ("Termine ultimo per la presentazione delle offerte: 15 marzo 2026 ore 12:00", "2026-03-15T12:00"),
        ("Ofertę należy złożyć do dnia 05 listopada 2021 r. do godziny 09:00.", "2021-11-05T09:00"),
        ("Termin składania ofert: 15.09.2021 r., godz. 10:00", "2021-09-15T10:00"),
        ("Prazo de apresentação de propostas: 15/03/2026 às 10h00", "2026-03-15T10:00"),
        ("Uiterste datum voor het indienen van de inschrijvingen: 15 maart 2026 om 12:00", "2026-03-15T12:00"),
        ("Time limit for receipt of tenders: 15/03/2026 Local time: 12:00", "2026-03-15T12:00"),
        ("Closing Time:\n2:30 PM Friday 12 September 2025, Western Australia", "2025-09-12T14:30"),
        ("Tender closing date: 21st November 2025 at 10:00 am", "2025-11-21T10:00"),
        ("Last date and time of receipt of bids: 21.11.2025 at 1500 hrs", "2025-11-21T15:00"),
        ("Bid End Date/Time                       21-11-2025 15:00:00", "2025-11-21T15:00"),
        ("Bid Submission End Date     21-Nov-2025 03:00 PM", "2025-11-21T15:00"),
        ("Deadline for Sealed Proposal Submissions:\n Monday, December 5, 2022 by 2:00 p.m.", "2022-12-05T14:00"),
        ("Proposals must be received no later than 5:00 PM on March 15, 2026.", "2026-03-15T17:00"),
        ("Technical Submission Due: April 1, 2019 at noon eastern", "2019-04-01T12:00"),
        ("PORFP Issue Date:   05/24/2024      PROPOSAL DUE       06/10/2024", "2024-06-10"),
    ],
)
def test_submission_deadline_labels(page: str, expected: str) -> None:
    assert submission(page) == expected


def test_time_before_the_date_in_a_sentence_across_lines() -> None:
    page = (
        "1.3.1 Proponents shall submit their Proposal in a sealed envelope marked\n"
        "      “Request for Proposal” (the “Proposals”) on or before 2:00:00 p.m. (Mountain\n"
        "      Standard Time) on April 2, 2026, (the “RFP Closing Time”) to:\n"
    )
    found = submission_deadline(document(page))
    assert found is not None
    assert found.value == "2026-04-02T14:00"
    assert "2:00:00 p.m." in found.quote and "April 2, 2026" in found.quote


def test_wrapped_table_label_around_its_value() -> None:
    page = (
        "             TIMING GARA                                    Data          Ora\n"
        "FASE 1       Termine perentorio per la creazione degli archivi\n"
        "  e          informatici, firma                             19.01.2026    12:00\n"
        "FASE 2       digitale, caricamento ed invio.\n"
    )
    assert submission(page) == "2026-01-19T12:00"


def test_date_broken_across_two_lines() -> None:
    page = "Angebote sind bis spätestens 22. März\n2023 einzureichen.\n"
    assert submission(page) == "2023-03-22"


def test_quote_holds_the_value_and_validates() -> None:
    page = "Ablauf der Angebotsfrist\n    14.07.2022 - 11:00 Uhr\n"
    assert kept_submission(page) is not None


def test_us_documents_read_numeric_dates_month_first() -> None:
    page = "Issue date: 05/24/2024\nQuestions due: 03/04/2024 at 2:00 PM\nProposals due: 03/05/2024\n"
    assert submission(page) == "2024-03-05"
    assert questions(page) == "2024-03-04T14:00"


# --- negative contexts ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "page",
    [
        "Bid Opening Date/Time                   21-11-2025 15:30:00",
        "Ouverture des plis : 12 mars 2026 à 14 heures",
        "Apertura de ofertas: el día 27/11/2024 a las 09:00 horas",
        "Otwarcie ofert nastąpi w dniu 05 listopada 2021 r. o godzinie 09:30.",
        "Öffnung der Angebote: 15.03.2026, 11:00 Uhr",
        "A mandatory pre-bid meeting will be held on 3 March 2026 at 10:00.",
        "Ende der Zuschlags- und Bindefrist                               15.05.2026",
        "Wykonawca będzie związany ofertą przez okres 57 dni, tj. do dnia 31 grudnia 2021 r.",
        "Plazo de Mantenimiento de la Oferta: hasta el 30/06/2026",
        "Tenders must remain valid until 15 June 2026.",
        "Date d'envoi du présent avis à la publication : 10 août 2020.",
        "V.1.6) Data di invio dell’avviso: 11/09/2025",
        "Date of issue: 19 August 2025",
        "Document Download End Date     21-Nov-2025 03:00 PM",
        "Bid Submission Start Date      01-Nov-2025 10:00 AM",
        "Conditions for opening of tenders\nDate: 16/03/2026\nLocal time: 10:00",
        "Challenge Questions to be posted: March 28, 2019 at 9am eastern",
        "podatkowego zgodnie z ofertą i ustawą z dnia 11 marca 2004 r. o podatku",
        "Proveedor de Pliegos\nPlazo de Obtención de Pliegos\n Hasta el 25/11/2024 a las 14:00",
    ],
)
def test_negative_contexts_are_not_the_deadline(page: str) -> None:
    assert submission(page) is None


def test_opening_next_to_the_deadline_does_not_win() -> None:
    page = (
        "Plazo de Presentación de Oferta\n Hasta el 25/11/2024 a las 14:00\n\n"
        "Apertura de Ofertas Económicas\n El día 27/11/2024 a las 09:00 horas\n"
    )
    assert submission(page) == "2024-11-25T14:00"


def test_questions_deadline_is_not_the_submission_deadline() -> None:
    page = "IV.3.1) Termine ultimo per la richiesta di chiarimenti: 06/10/2025 ore 12:00\n"
    assert submission(page) is None
    assert questions(page) == "2025-10-06T12:00"


# --- questions deadline ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("RFQ Questions Due: March 19, 2019 at noon eastern", "2019-03-19T12:00"),
        (
            "The deadline for receipt of written questions submitted to the contact,\n"
            "Douglas Smith (ds@example.org), is Wednesday, November 30, 2022 at\n3:00 p.m.\n",
            "2022-11-30T15:00",
        ),
        ("Questions   Due   (Closing)   Date  and   Time:\n06/01/2024 at 2:00 PM EDT", "2024-01-06T14:00"),
        ("Zusätzliche Auskünfte sind\nspätestens bis zum 16.04.2026 anzufordern.", "2026-04-16"),
        ("Date limite pour les questions écrites : 5 mars 2026 à 17h00", "2026-03-05T17:00"),
        ("Plazo para solicitar aclaraciones: 10/03/2026", "2026-03-10"),
        ("Termin zadawania pytań: 10.03.2026 r.", "2026-03-10"),
        ("Clarification End Date         14-Nov-2025 05:00 PM", "2025-11-14T17:00"),
        (
            "1.3.7 No inquiry submitted to the County will be responded to after\n12:00 p.m. on March 20, 2026.",
            "2026-03-20T12:00",
        ),
    ],
)
def test_questions_deadline_labels(page: str, expected: str) -> None:
    assert questions(page) == expected


def test_answers_to_questions_are_not_the_questions_deadline() -> None:
    assert questions("Answers to questions will be published no later than 12 March 2026.") is None


def test_question_responses_are_submissions() -> None:
    """'Challenge Question responses: due …' is when responses are due, not when questions close."""
    page = "○ Challenge Question responses: due April 1, 2019 noon eastern"
    assert questions(page) is None
    assert submission(page) == "2019-04-01T12:00"


# --- addenda and abstention -----------------------------------------------------------------------------


def test_an_amended_deadline_wins_over_the_original() -> None:
    page = (
        "ADDENDUM No. 2\nOriginal closing date: 10 March 2026 at 12:00\nRevised closing date: 20 March 2026 at 12:00\n"
    )
    assert submission(page) == "2026-03-20T12:00"


def test_an_extension_from_one_date_to_another() -> None:
    page = "The closing date for tenders has been extended from 10 March 2026 to 20 March 2026.\n"
    assert submission(page) == "2026-03-20"


def test_a_letter_date_or_an_unlabelled_date_is_no_deadline() -> None:
    assert submission("Łomża, dnia 20 października 2021 r.\nSPECYFIKACJA WARUNKÓW ZAMÓWIENIA\n") is None
    assert submission("Date: March 11, 2019\nSet Aside: none\n") is None


def test_placeholders_are_no_deadline() -> None:
    assert submission("Deadline for submission of bids: [insert date] at [insert time]\n") is None
    assert submission("Closing date: dd/mm/yyyy\n") is None
    assert submission("APERTURA:\n\nPRESUPUESTO OFICIAL: $ X\n") is None


def test_a_bare_deadline_word_without_subject_is_not_enough() -> None:
    assert submission("Vertragsbeginn: 01. Juni 2023. Der Vertrag ist bis zum 31. Mai 2025 befristet.") is None


def test_sourced_value_points_to_its_page() -> None:
    found = submission_deadline(document("Cover page\n", "Closing date: 15 March 2026\n"))
    assert found == Sourced[str](value="2026-03-15", page=2, quote="Closing date: 15 March 2026")


# --- Hijri deadlines through the validator ----------------------------------------------------------------


def _validated(value: str, quote: str) -> Sourced[str] | None:
    fields, _ = validate_fields(
        TenderFields(submission_deadline=Sourced[str](value=value, page=1, quote=quote)), [Page(1, quote)]
    )
    return fields.submission_deadline


def test_a_deadline_converted_from_hijri_is_grounded_in_its_hijri_quote() -> None:
    assert _validated("2025-09-07T10:00", "آخر موعد لتقديم العروض 1447/03/15 هـ الساعة 10:00") is not None
    assert _validated("2025-09-07", "١٤٤٧/٠٣/١٥ هـ") is not None


def test_a_hijri_quote_does_not_ground_another_day() -> None:
    assert _validated("2025-09-08", "آخر موعد لتقديم العروض 1447/03/15 هـ") is None


def test_arabic_hijri_deadline_end_to_end() -> None:
    page = "آخر موعد لتقديم العروض           1447/03/15 هـ\n"
    found = submission_deadline(document(page))
    assert found is not None and found.value == "2025-09-07"
    assert _validated(found.value, found.quote) is not None


# --- notice and portal layouts --------------------------------------------------------------------------

TED_2014 = """IV.2.2)Time limit for receipt of tenders or requests to participate
Date: 15/03/2026
Local time: 12:00
IV.2.6)Minimum time frame during which the tenderer must maintain the tender
Tender must be valid until: 15/06/2026
IV.2.7)Conditions for opening of tenders
Date: 16/03/2026
Local time: 10:00
VI.5)Date of dispatch of this notice:
09/02/2026
"""

EFORMS = """5.1.12 Public procurement terms
Deadline for receipt of tenders: 15/03/2026 12:00:00 (UTC+01:00) Central European Time
Information about public opening:
Opening date: 16/03/2026 10:00:00 (UTC+01:00)
Deadline for requesting additional information: 05/03/2026 23:59:00 (UTC+01:00)
"""

CPPP = """Critical Dates
Publish Date                    14-Nov-2025 05:00 PM     Bid Opening Date             05-Dec-2025 11:00 AM
Document Download / Sale Start Date  14-Nov-2025 05:00 PM  Document Download / Sale End Date  04-Dec-2025 03:00 PM
Clarification Start Date        14-Nov-2025 05:00 PM      Clarification End Date       28-Nov-2025 05:00 PM
Bid Submission Start Date       14-Nov-2025 05:00 PM     Bid Submission End Date      04-Dec-2025 03:00 PM
"""

BID_DATA_SHEET = """ITB 22.1   For bid submission purposes only, the Purchaser's address is:
           Attention: Procurement Unit
           The deadline for bid submission is:
           Date: 21 November 2025
           Time: 14:00 hours local time
ITB 25.1   The bid opening shall take place at: Conference room
           Date: 21 November 2025
           Time: 14:30 hours
"""


@pytest.mark.parametrize(
    ("page", "deadline", "questions_until"),
    [
        (TED_2014, "2026-03-15T12:00", None),
        (EFORMS, "2026-03-15T12:00", "2026-03-05T23:59"),
        (CPPP, "2025-12-04T15:00", "2025-11-28T17:00"),
        (BID_DATA_SHEET, "2025-11-21T14:00", None),
    ],
)
def test_notice_and_portal_layouts(page: str, deadline: str, questions_until: str | None) -> None:
    assert submission(page) == deadline
    assert questions(page) == questions_until


def test_the_same_day_in_hijri_and_gregorian_keeps_the_label_and_gains_the_time() -> None:
    page = "آخر موعد لتقديم العروض    1447/03/15 هـ   الموافق 2025/09/07 م   الساعة 10:00\n"
    assert submission(page) == "2025-09-07T10:00"


def test_an_addendum_table_of_original_and_revised_dates() -> None:
    page = (
        "ADDENDUM No. 1\n"
        "Item      Original                         Revised\n"
        "Closing   15 March 2026, 12:00             29 March 2026, 12:00\n"
    )
    assert submission(page) == "2026-03-29T12:00"


def test_a_postponed_deadline_in_one_sentence() -> None:
    page = (
        "La date limite de réception des offres, initialement fixée au 10 mars 2026, "
        "est reportée au 24 mars 2026 à 12 heures.\n"
    )
    assert submission(page) == "2026-03-24T12:00"


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("Nota van Inlichtingen: vragen kunnen tot 01-03-2026 worden gesteld.", "2026-03-01"),
        ("Pedidos de esclarecimento até 05/03/2026.", "2026-03-05"),
        ("Les candidats peuvent poser des questions jusqu'au 5 mars 2026.", "2026-03-05"),
    ],
)
def test_questions_with_until_words(page: str, expected: str) -> None:
    assert questions(page) == expected


def test_arabic_questions_deadline_label() -> None:
    """'الأسئلة' is folded without its hamza: the lexicon is folded the same way."""
    assert questions("آخر موعد لاستلام الأسئلة والاستفسارات    1447/03/05 هـ") == "2025-08-28"


def test_termination_is_no_deadline_cue() -> None:
    assert submission("The offer shall be valid until termination of the contract on 15 March 2027.") is None
    assert submission("Tender termination date: 15 March 2027") is None


def test_a_date_first_schedule_reads_each_label_after_its_date() -> None:
    page = (
        "10 March 2026         Deadline for questions\n"
        "20 March 2026, 14:00  Deadline for submission of proposals\n"
        "25 March 2026         Opening of proposals\n"
    )
    assert questions(page) == "2026-03-10"
    assert submission(page) == "2026-03-20T14:00"


def test_a_schedule_table_of_activities() -> None:
    page = (
        "Activity                                   Date\n"
        "Issue of RFP                               1 March 2026\n"
        "Deadline for questions                     10 March 2026\n"
        "Site visit                                 12 March 2026\n"
        "Closing date for proposals                 20 March 2026, 14:00\n"
        "Evaluation of proposals                    1 April 2026\n"
    )
    assert questions(page) == "2026-03-10"
    assert submission(page) == "2026-03-20T14:00"


def test_written_out_dates_decide_the_order_of_ambiguous_numeric_ones() -> None:
    us = "Issued: March 2, 2026\nProposals due: 03/04/2026 at 2:00 PM\n"
    europe = "Issued: 2 March 2026\nTenders due: 03/04/2026 at 14:00\n"
    assert submission(us) == "2026-03-04T14:00"
    assert submission(europe) == "2026-04-03T14:00"


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("Tenders close at 2:00pm (AEST) on Thursday 12 March 2026.", "2026-03-12T14:00"),
        ("Las ofertas se presentarán hasta las 14:00 horas del día 15 de marzo de 2026.", "2026-03-15T14:00"),
        ("Le offerte dovranno pervenire entro e non oltre le ore 12:00 del giorno 15/03/2026.", "2026-03-15T12:00"),
        ("Les offres sont à remettre au plus tard le lundi 16 mars 2026 à 12 h.", "2026-03-16T12:00"),
        ("Bids must be received not later than 2:00 P.M. (local time) on Tuesday, March 17, 2026.", "2026-03-17T14:00"),
        ("CLOSING DATE: 25TH NOVEMBER, 2021 AT 12.00 NOON", "2021-11-25T12:00"),
        ("Closing date: Thursday 25th November 2021 12.00 noon", "2021-11-25T12:00"),
        ("Last date & time for submission of bid: 15.03.2026 upto 15:00 Hrs", "2026-03-15T15:00"),
        ("RFP Due: 3/15/2026 3:00 PM CT", "2026-03-15T15:00"),
        (
            "The deadline for submission of proposals is hereby extended to March 29, 2026 at 2:00 PM.",
            "2026-03-29T14:00",
        ),
    ],
)
def test_sentence_forms(page: str, expected: str) -> None:
    assert submission(page) == expected


def test_pre_bid_queries_are_questions_and_payment_deadlines_are_nothing() -> None:
    assert questions("Pre-bid queries may be sent by e-mail up to 10.03.2026.") == "2026-03-10"
    assert submission("Pre-bid meeting: 05.03.2026 at 11:00 hrs") is None
    assert submission("Payment deadline: 15.04.2026") is None


# --- scanned pages, schedule tables, notice tables -------------------------------------------------------


def test_expressions_of_interest_are_submissions() -> None:
    page = (
        "12. Date limite de réception des manifestations\n"
        "La date limite pour la réception des manifestations d'intérêt\n"
        "est prévue pour le lundi 21avril 2025 à 17 heures.\n"
    )
    assert submission(page) == "2025-04-21T17:00"


def test_a_schedule_of_stages_without_deadline_words() -> None:
    """An e-procurement schedule lists stages: 'sending questions', 'submitting offers', 'opening', 'award'."""
    page = (
        "المرحلة\n"
        "إرسال الأسئلة والاستفسارات 08/11/1446\n"
        "تقديم العروض 17/11/1446\n"
        "17/11/1446 فتح العروض\n"
        "20/11/1446 الترسية\n"
    )
    assert questions(page) == "2025-05-06"
    assert submission(page) == "2025-05-15"


def test_a_decree_cited_with_its_date_is_no_deadline() -> None:
    page = "نظام المنافسات والمشتريات الحكومية الصادر بالمرسوم الملكي رقم (م/128)\nوتاريخ 13/11/1440ه\n"
    assert submission(page) is None
    assert submission("Bids received under Tender No. 12/2025 dated 15.02.2026 are void.") is None


def test_a_date_filled_in_on_a_dotted_line_with_its_time_above() -> None:
    page = (
        "9. Bids must be delivered to the address below at or before 10:00 hours local time on\n"
        "\n"
        ": 21 ../02/2025. Electronic bidding will not be permitted.\n"
    )
    assert submission(page) == "2025-02-21T10:00"


def test_a_time_zone_in_parentheses_between_time_and_date() -> None:
    page = "7. Tenders must be delivered to the address below on or before 16:00 (Tashkent Time), April 24, 2025."
    assert submission(page) == "2025-04-24T16:00"


def test_a_notice_table_with_a_closing_date_column_and_stacked_dates() -> None:
    page = (
        "                                                       ELIGIBLE      CLOSING\n"
        "  TENDER NO.                 DESCRIPTION\n"
        "                                                       GROUP         DATE\n"
        "                             PROVISION OF DATA CENTRE                25th\n"
        "  TENDER NO. 11/2021-2022    AND LAN UPGRADE           OPEN          November,\n"
        "                                                                     2021\n"
    )
    found = submission_deadline(document(page))
    assert found is not None and found.value == "2021-11-25"
    assert "25th" in found.quote and "2021" in found.quote


def test_a_column_header_far_above_running_text_is_no_label() -> None:
    page = (
        "Closing date\n"
        "1. Scope\n"
        "The ministry has decided to renew the maintenance contract of its data centre,\n"
        "including the cooling and power systems, the fire suppression system and the\n"
        "access control of all server rooms; the current contract ends on\n"
        "31 December 2026\n"
    )
    assert submission(page) is None


def test_when_answers_will_be_communicated_is_not_the_questions_deadline() -> None:
    page = (
        "Toute clarification sur le dossier sera communiquée simultanément et par écrit à tous les\n"
        "soumissionnaires au plus tard 21 février 2025.\n"
    )
    assert questions(page) is None


# --- a label cell that wraps below the value's row ---------------------------------------------------------


def test_label_cell_going_on_below_the_value_row() -> None:
    """'Time limit for receipt of   <date>' / 'tenders': the label's last word is on the row below."""
    page = (
        " Reference number                     AB-2025/01\n"
        " Time limit for receipt of            10 June 2025, 12:00\n"
        " tenders\n"
        " Duration of the contract             48 months\n"
    )
    assert kept_submission(page) == "2025-06-10T12:00"


def test_wrapped_label_below_still_reads_a_negative_context() -> None:
    page = " Opening of the                       10 June 2025, 12:00\n tenders\n"
    assert submission(page) is None


def test_wrapped_label_below_does_not_take_a_new_row() -> None:
    """A lower-case cell under the label that has a cell of its own beside it is the next row, not the label's end."""
    page = (
        " Time limit for receipt of            10 June 2025, 12:00\n"
        " questions to the buyer               via the portal only\n"
    )
    assert questions(page) is None


def test_label_wrapped_onto_the_value_line() -> None:
    """'Schlusstermin für den Eingang der' / 'Angebote: <date>': the label's start is on the line above."""
    page = (
        " Verfahrensart: Offenes Verfahren\n"
        " Schlusstermin für den Eingang der\n"
        " Angebote: 14.05.2025 – 11:00 Uhr\n"
    )
    assert kept_submission(page) == "2025-05-14T11:00"


def test_label_start_above_must_stand_in_the_same_column() -> None:
    page = "                              Schlusstermin für den Eingang der\n Angebote: 14.05.2025\n"
    assert submission(page) is None


def test_ocr_label_cut_after_a_linking_word_goes_on_below() -> None:
    """A scan prints the row 'Time limit for receipt of <date>' without its column gap, 'tenders:' below."""
    page = "Type of procedure: Open procedure\nTime limit for receipt of 14 March 2025, 12:00\n\ntenders:\n"
    assert submission(page) == "2025-03-14T12:00"


def test_ocr_label_continuation_below_keeps_negative_contexts() -> None:
    page = "Time limit for receipt of 14 March 2025, 12:00\nbids is not the date of opening of\n"
    assert submission(page) is None


# --- every script: the standard labels of each country's notices ----------------------------------------


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        # Japanese
        ("４ 入札書の提出期限 令和８年３月５日（木）午後５時まで", "2026-03-05T17:00"),
        ("（２）入札期間 入札参加資格確認通知日から 令和 8年 3月 5日 午前10時00分   まで", "2026-03-05T10:00"),
        ("入札締切日時    令和8年3月5日 17時00分", "2026-03-05T17:00"),
        # Korean
        ("가. 입찰서 제출 마감일시 : 2026. 3. 5. 10:00", "2026-03-05T10:00"),
        (" 1)   전자입찰서 제출기간 : 2026. 2. 26. 10:00 ~ 2026. 3. 5. 10:00", "2026-03-05T10:00"),
        ("8.4 입찰일시 및 장소 : 2026년 3월 5일 14:00 본사 회의실", "2026-03-05T14:00"),
        # Chinese (Simplified, Traditional)
        ("1.投标文件递交截止时间：2026 年 3 月 5 日 9 时 30 分。", "2026-03-05T09:30"),
        ("  投标截止时间        2026年03月05日09时30分", "2026-03-05T09:30"),
        ("截止投標日期：2026年3月5日下午2時", "2026-03-05T14:00"),
        # Russian, Ukrainian, Bulgarian
        ("Дата и время окончания срока подачи заявок: 05.03.2026 10:00 (по московскому времени)", "2026-03-05T10:00"),
        ("Заявки принимаются до 5 марта 2026 г. 10:00", "2026-03-05T10:00"),
        ("Кінцевий строк подання тендерних пропозицій: 05.03.2026 10:00", "2026-03-05T10:00"),
        ("Краен срок за подаване на оферти: 05.03.2026 г., 17:30 ч.", "2026-03-05T17:30"),
        # Greek, Romanian, Turkish
        ("Καταληκτική ημερομηνία υποβολής προσφορών: 05/03/2026 και ώρα 10:00", "2026-03-05T10:00"),
        ("Termen limita de depunere a ofertelor: 05.03.2026 ora 10:00", "2026-03-05T10:00"),
        ("İhale tarihi ve saati : 05.03.2026 - 10:00", "2026-03-05T10:00"),
        ("Son teklif verme tarihi: 5 Mart 2026 saat 10:00", "2026-03-05T10:00"),
        # Vietnamese, Indonesian, Thai, Hebrew
        ("Thời điểm đóng thầu: 10 giờ 00, ngày 05 tháng 03 năm 2026", "2026-03-05T10:00"),
        ("Hạn nộp hồ sơ dự thầu: 05/03/2026", "2026-03-05"),
        ("Batas akhir pemasukan penawaran: 5 Maret 2026 pukul 10:00 WIB", "2026-03-05T10:00"),
        ("กำหนดยื่นข้อเสนอ วันที่ 5 มีนาคม 2569 เวลา 10.00 น.", "2026-03-05T10:00"),
        ("המועד האחרון להגשת הצעות: 05/03/2026 בשעה 12:00", "2026-03-05T12:00"),
        # EU languages
        ("Lhůta pro podání nabídek: 05.03.2026 10:00", "2026-03-05T10:00"),
        ("Lehota na predkladanie ponúk: 05.03.2026 10:00", "2026-03-05T10:00"),
        ("Rok za oddajo ponudb: 05.03.2026 ob 10:00", "2026-03-05T10:00"),
        ("Ajánlattételi határidő: 2026. március 5. 10:00", "2026-03-05T10:00"),
        ("Sista anbudsdag: 2026-03-05", "2026-03-05"),
        ("Tilbudsfrist: 05.03.2026 kl. 12.00", "2026-03-05T12:00"),
        ("Tarjousten jättämisen määräaika: 5.3.2026 klo 12.00", "2026-03-05T12:00"),
        ("Pakkumuste esitamise tähtaeg: 05.03.2026 11:00", "2026-03-05T11:00"),
        ("Pasiūlymų pateikimo terminas: 2026-03-05 10:00", "2026-03-05T10:00"),
    ],
)
def test_submission_deadline_in_every_script(page: str, expected: str) -> None:
    assert submission(page) == expected


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("（３）質疑締切日時 令和 8年 3月 2日 午後03時00分", "2026-03-02T15:00"),
        ("가. 질의 마감일시 : 2026. 3. 2. 18:00", "2026-03-02T18:00"),
        ("各投标人若对招标文件有疑义，请于 2026 年 3 月 2 日 17：00 前提出", "2026-03-02T17:00"),
        ("Дата и время окончания срока подачи запросов о даче разъяснений: 02.03.2026 18:00", "2026-03-02T18:00"),
        ("Προθεσμία υποβολής διευκρινίσεων: 02/03/2026", "2026-03-02"),
        ("Termen limita pentru solicitarea clarificarilor: 02.03.2026", "2026-03-02"),
        ("Hạn cuối làm rõ hồ sơ mời thầu: 02/03/2026", "2026-03-02"),
        ("Lhůta pro dotazy: 02.03.2026", "2026-03-02"),
    ],
)
def test_questions_deadline_in_every_script(page: str, expected: str) -> None:
    assert questions(page) == expected


@pytest.mark.parametrize(
    "page",
    [
        "（４）開札日時 令和 8年 3月 5日 午前10時00分",
        "現場説明会 令和8年2月20日 午後2時",
        "질문 회신일 2026. 3. 3.",
        "개찰일시 : 2026. 3. 5. 11:00",
        "4) 입찰보증금 납부기한 : 2026. 3. 4. 18:00",
        "나. 사전심사 신청서 제출기한 : 2026. 1. 31. 17:00",
        "开标时间：2026 年 3 月 5 日 9 时 30 分",
        "投标保证金截止时间       2026年03月04日15时00分",
        "Дата начала срока подачи заявок: 20.02.2026",
        "Дата подведения итогов: 12.03.2026",
        "Дата и время вскрытия конвертов: 05.03.2026 10:00",
        "Ημερομηνία αποσφράγισης προσφορών: 05/03/2026",
        "Data deschiderii ofertelor: 05.03.2026",
        "Thời điểm mở thầu: 05/03/2026",
        "Geçici teminat son günü: 05.03.2026",
    ],
)
def test_openings_meetings_bonds_and_starts_are_no_deadline_in_any_script(page: str) -> None:
    assert submission(page) is None
    assert questions(page) is None


def test_a_japanese_schedule_table_of_periods() -> None:
    """Each row a period '開始日～期限日' under one column header: the bid period's end is the deadline, the
    questions period's end the questions deadline; the opening, the answers and the qualification period are
    neither."""
    page = (
        "       入札手続き                      期    日（開始日～期限日）\n"
        "       入札公告期間       令和８年６月１日（月）～令和８年６月２２日（月）\n"
        "      質問受付期間※１      令和８年６月２日（火）～令和８年６月１２日（金）\n"
        "       質問回答日        令和８年６月１７日（水）        １７：００までに\n"
        " 資格確認申請受付期間※２\n"
        "                    令和８年６月２３日（火）～令和８年６月２５日（木）\n"
        "   入札書受付期間\n"
        "                    令和８年６月３０日（火）～令和８年７月１日（水）\n"
        "        開札日         令和８年７月３日（金）        １０：００\n"
    )
    assert submission(page) == "2026-07-01"
    assert questions(page) == "2026-06-12"


def test_a_korean_notice_keeps_the_bid_deadline_apart_from_pq_and_bond_deadlines() -> None:
    page = (
        "6        사전심사 신청서 제출 및 평가\n"
        "가. 신청자격 : 나.1)에 해당하는 자 이어야 합니다.\n"
        "나. 제출기한 : 2026. 1. 20. 17:00\n"
        "\n"
        "9        입찰보증금\n"
        " 4)   납부기한 : 2026. 3. 4. 18:00\n"
        "\n"
        "10    입찰서 제출\n"
        " 1)   전자입찰서 제출기간 : 2026. 2. 26. 00:00 ~ 2026. 3. 5. 16:00\n"
    )
    assert submission(page) == "2026-03-05T16:00"


def test_a_russian_form_label_wrapped_around_its_value() -> None:
    page = (
        "      Дата и время окончания подачи\n"
        "                                                             05.03.2026 10:00\n"
        "      заявок\n"
        "      Дата подведения итогов определения\n"
        "      поставщика (подрядчика,                                12.03.2026\n"
        "      исполнителя)\n"
    )
    assert submission(page) == "2026-03-05T10:00"


def test_a_chinese_label_wrapped_around_its_value() -> None:
    page = (
        "  投标截止时间        2026年03月05日09时30分\n"
        "\n"
        "投标人要求澄清招标文件\n"
        "                2026年03月01日16时00分\n"
        "   的截止时间\n"
        "\n"
        "投标保证金截止时间       2026年03月04日15时00分\n"
    )
    assert submission(page) == "2026-03-05T09:30"
    assert questions(page) == "2026-03-01T16:00"


def test_a_period_with_both_ends_reads_its_end() -> None:
    assert submission("Подача заявок: с 20.02.2026 по 05.03.2026") == "2026-03-05"
    assert submission("Depunerea ofertelor: 20.02.2026 - 05.03.2026") == "2026-03-05"


def test_a_running_footer_with_the_print_date_is_no_deadline() -> None:
    """A data sheet without a calendar deadline, printed with the date in every page's footer: the footer
    under 'offer validity (from the deadline for receipt of offers)' / 'IV.4 Presentation of the offer' is no
    deadline."""
    footer = "Sistemul Electronic de Achizitii Publice, 19.02.2026 15:05         Pagina {}\n"
    page = "4 luni (de la termenul limita de primire a ofertelor)\nIV.4 Prezentarea ofertei\n\n"
    assert submission(*(page + footer.format(number) for number in (1, 2, 3, 4))) is None


# --- right-to-left tables as a text layer prints them -----------------------------------------------------


def test_a_right_to_left_table_reads_each_label_on_the_right_of_its_date() -> None:
    """pdftotext prints an Arabic table as it looks: the stage's name on the right of its date."""
    gap = " " * 50
    page = (
        f"          تاريخ الاستحقاق{gap}المرحلة\n"
        f"           08/11/1446{gap}إرسال الأسئلة والاستفسارات\n"
        f"           17/11/1446{gap}تقديم العروض\n"
        f"           17/11/1446{gap}فتح العروض\n"
        f"           20/11/1446{gap}الترسية\n"
    )
    assert questions(page) == "2025-05-06"
    assert submission(page) == "2025-05-15"


def test_a_hebrew_line_reads_its_label_on_the_right() -> None:
    assert submission("12:00 05/03/2026              המועד האחרון להגשת הצעות") == "2026-03-05T12:00"
    assert submission("05/03/2026              פתיחת ההצעות") is None


# --- bad input: no exception, no value invented -------------------------------------------------------------


@pytest.mark.parametrize(
    "page",
    [
        "Ã©Ã¨ Ð¿Ñ€Ð¾Ð´Ð°Ð¶ Ð·Ð°Ñ\x8fÐ²Ð¾Ðº 05.03.2026 ï¿½ï¿½ â€\x9d",  # UTF-8 read as Latin-1
        "\ufffd\ufffd\ufffd 2026\ufffd3\ufffd5\ufffd \ufffd\ufffd",  # replacement characters
        "የጨረታ ማቅረቢያ የመጨረሻ ቀን መጋቢት 15 ቀን 2018 ዓ.ም",  # Ethiopian calendar: a script the parser does not know
        "ⴰⵙⵙ 15 ⵎⴰⵕⵚ 2026",  # Tifinagh month name
        "\x00\x01\x02 ~~~ ～～～ ～ 令和 年 月 日 ～ 년 월 일",  # empty date shapes
    ],
)
def test_mojibake_and_unknown_scripts_give_no_deadline_and_no_error(page: str) -> None:
    assert submission(page) is None
    assert questions(page) is None


def test_a_page_mixing_three_scripts_reads_each_label() -> None:
    page = (
        "入札書の提出期限 令和８年３月５日 午後５時\n"
        "Дата вскрытия конвертов: 06.03.2026\n"
        "Deadline for questions: 27 February 2026\n"
    )
    assert submission(page) == "2026-03-05T17:00"
    assert questions(page) == "2026-02-27"


def test_japanese_era_dates_in_numbers_only() -> None:
    assert dates_in("入札書提出期限 R8.9.25 17:00") == [date(2026, 9, 25)]
    assert dates_in("平成31.4.30") == [date(2019, 4, 30)]
    assert dates_in("Section R8.9.25") == []  # not on a line in Japanese


def test_a_chinese_deadline_that_is_also_the_opening() -> None:
    assert submission("投标截止时间及开标时间：2026年3月5日9时30分") == "2026-03-05T09:30"
    assert submission("开标时间：2026年3月5日9时30分") is None


def test_dates_in_chinese_numerals() -> None:
    assert dates_in("令和八年九月二十五日（金）") == [date(2026, 9, 25)]
    assert dates_in("令和元年十月一日") == [date(2019, 10, 1)]
    assert dates_in("二〇二六年一月二十三日") == [date(2026, 1, 23)]
    assert dates_in("令和八年十三月一日") == []


def test_a_turkish_ekap_notice_and_a_last_date_sentence() -> None:
    assert submission("İhale (son teklif verme) tarih ve saati : 15.03.2026 - 10:00") == "2026-03-15T10:00"
    assert submission("Tekliflerin sunulacağı son tarih: 15.03.2026") == "2026-03-15"


def test_a_deadline_repeated_in_every_page_header_is_kept() -> None:
    header = "RFQ 12/2026      Closing date: 15.03.2026 12:00      Page {}\n"
    assert submission(*(header.format(number) + "Specifications follow.\n" for number in (1, 2, 3, 4))) == (
        "2026-03-15T12:00"
    )


def test_taiwans_dates_in_republic_years() -> None:
    assert submission("截止投標日期：115/03/05 17:00") == "2026-03-05T17:00"
    assert dates_in("Ratio 115/03/05") == []  # not on a line in Chinese


def test_hungarian_and_ukrainian_words() -> None:
    assert submission("Az ajánlatok felbontásának időpontja: 2026. március 5. 10:00") is None
    assert questions("Кінцевий строк звернення за уточненнями: 01.03.2026") == "2026-03-01"
