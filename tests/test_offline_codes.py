"""The offline reader of classifications: notice type, procedure type, main category, CPV codes."""

from __future__ import annotations

from typing import TypeVar

import pytest

from tenderflow.extraction.backend import Page
from tenderflow.extraction.offline import codes
from tenderflow.extraction.offline.document import Document
from tenderflow.extraction.schema import Sourced, TenderFields
from tenderflow.extraction.validation import validate_fields
from tests.support.offline_readers import document as doc
from tests.support.offline_readers import value

T = TypeVar("T")


def on_page(document: Document, sourced: Sourced[T]) -> bool:
    return sourced.quote in document.pages[sourced.page]


# --- notice type ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "heading",
    [
        "Avis d'appel public à la concurrence",
        "Auftragsbekanntmachung",
        "Anuncio de licitación",
        "BANDO DI GARA PROCEDURA APERTA",
        "SPECYFIKACJA WARUNKÓW ZAMÓWIENIA",
        "REQUEST FOR PROPOSALS (RFP) NO. 2022-01",
        "Invitation for Bids",
        "Aufforderung zur Abgabe eines Angebotes",
        "PROCUREMENT NOTICE",
        "AVIS DE SOLLICITATION DE MANIFESTATIONS D'INTERET",
        "बिड दस्तावेज़ / Bid Document",
    ],
)
def test_a_call_for_competition_is_read_from_its_heading(heading: str) -> None:
    document = doc(f"   Ville de Nîmes\n\n        {heading}\nObjet : achat de deux véhicules\n")
    found = codes.notice_type(document)
    assert found is not None and found.value == "contract_notice"
    assert found.quote == heading and on_page(document, found)


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Addendum to Request Documents", "corrigendum"),
        ("Avis rectificatif", "corrigendum"),
        ("Berichtigung", "corrigendum"),
        ("Avis d'attribution", "contract_award_notice"),
        ("Contract award notice", "contract_award_notice"),
        ("Bekanntmachung vergebener Aufträge", "contract_award_notice"),
        ("Avis de préinformation", "prior_information_notice"),
    ],
)
def test_other_notice_families_outrank_the_call_they_refer_to(heading: str, expected: str) -> None:
    document = doc(f"{heading}\nRequest for Tender No.: DPC2142\nDate of issue: 19 August 2025\n")
    assert value(codes.notice_type(document)) == expected


def test_an_addendum_mentioned_in_a_sentence_or_a_table_of_contents_is_no_corrigendum() -> None:
    document = doc(
        "REQUEST FOR PROPOSAL\n"
        "  2.1   Appendices and Addenda ........................................ 3\n"
        "Any addendum issued will be posted on the portal.\n"
    )
    assert value(codes.notice_type(document)) == "contract_notice"


def test_a_section_heading_or_a_contents_entry_names_no_notice_family() -> None:
    numbered = doc("INVITATION FOR BIDS\n8. Notice of Award\nThe Employer will notify the successful bidder.\n")
    assert value(codes.notice_type(numbered)) == "contract_notice"
    contents = doc("Request for Proposals\n  Notice of Award                       12\n")
    assert value(codes.notice_type(contents)) == "contract_notice"


def test_a_title_wrapped_over_two_lines() -> None:
    document = doc("   Ville de Nîmes\n        AVIS\n        RECTIFICATIF\nObjet : achat de véhicules\n")
    found = codes.notice_type(document)
    assert found is not None and found.value == "corrigendum" and found.quote == "AVIS\nRECTIFICATIF"


def test_the_heading_region_is_the_start_of_the_document_only() -> None:
    filler = "\n".join(f"clause {number} text of the conditions" for number in range(40))
    document = doc(f"Municipal conditions\n{filler}\nCorrigendum\n")
    assert codes.notice_type(document) is None


def test_a_named_procedure_or_a_closing_time_makes_a_call_for_competition() -> None:
    by_procedure = doc("Datos del proceso\nProcedimiento de Selección\n  Contratación Directa\n")
    found = codes.notice_type(by_procedure)
    assert found is not None and found.value == "contract_notice" and found.quote == "Contratación Directa"
    by_deadline = doc("Request Title:\nProvision of a Wallet\nClosing Time:\n2:30 PM Friday 12 September 2025\n")
    found = codes.notice_type(by_deadline)
    assert found is not None and found.value == "contract_notice" and found.quote == "Closing Time:"


def test_notice_type_abstains_without_evidence() -> None:
    assert codes.notice_type(doc("Minutes of the council meeting\nItem 1: budget\n")) is None


# --- procedure type -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Procedimiento Abierto simplificado", "open"),
        ("prowadzone w trybie przetargu nieograniczonego na podstawie art. 132", "open"),
        ("Öffentliche Ausschreibung nach UVgO", "open"),
        ("Procedura aperta telematica ai sensi dell'articolo 71", "open"),
        ("Bidding will be conducted through National Competitive Bidding", "open"),
        ("Nicht offenes Verfahren", "restricted"),
        ("LICITACIÓN PRIVADA", "restricted"),
        ("Verhandlungsvergabe mit vorhergehendem Teilnahmewettbewerb", "neg-w-call"),
        ("Procédure concurrentielle avec négociation", "neg-w-call"),
        ("CONTRATACIÓN DIRECTA POR URGENCIA", "neg-wo-call"),
        ("Procedura negoziata senza previa pubblicazione del bando", "neg-wo-call"),
        ("Zamówienie z wolnej ręki", "neg-wo-call"),
        ("Procurement on single tender basis", "neg-wo-call"),
        ("Limited Tender Enquiry", "restricted"),
        ("Dialogue compétitif", "comp-dial"),
        ("Innovationspartnerschaft", "innovation"),
        ("Type de procédure : procédure adaptée.", "oth-single"),
        ("La présente procédure est un Appel d'Offres Public.", "open"),
        ("This invitation to tender is open to all tenderers who are qualified", "open"),
        ("Tendering will be conducted through International Open Competitive Tendering", "open"),
    ],
)
def test_procedure_names_map_to_eforms_codes(text: str, expected: str) -> None:
    document = doc(f"Notice\n{text}\n")
    found = codes.procedure_type(document)
    assert found is not None and found.value == expected and found.quote == text


def test_a_procedure_name_broken_by_a_sentence_wrap() -> None:
    document = doc("L'appalto è affidato mediante procedura\naperta ai sensi dell'articolo 71.\n")
    found = codes.procedure_type(document)
    assert found is not None and found.value == "open"
    assert found.quote == "L'appalto è affidato mediante procedura\naperta ai sensi dell'articolo 71."


def test_a_company_name_or_a_sentence_end_makes_no_procedure() -> None:
    assert codes.procedure_type(doc("Bharat Petroleum Corporation Limited\nTender No: 73448\n")) is None
    assert codes.procedure_type(doc("Bharat Petroleum Corporation Limited Tender No: 73448\n")) is None
    assert codes.procedure_type(doc("The portal remains open. Tender documents are free.\n")) is None


def test_a_labelled_bare_word_is_a_procedure() -> None:
    assert value(codes.procedure_type(doc("Type of procedure:   Open\n"))) == "open"
    assert value(codes.procedure_type(doc("Tender Type\n   Restricted\n"))) == "restricted"
    assert codes.procedure_type(doc("The portal is open from 9 to 5\n")) is None
    assert codes.procedure_type(doc("Dank für Ihr Interesse am Vergabeverfahren für\n   offen\n")) is None


def test_a_labelled_statement_outweighs_a_mention_on_the_first_page() -> None:
    document = doc("Open tender for the supply of paper\n", "Type of procedure: Restricted procedure\n")
    assert value(codes.procedure_type(document)) == "restricted"


def test_negated_and_listed_procedures_do_not_count() -> None:
    assert codes.procedure_type(doc("Bidders shall submit a single tender for all lots.\n")) is None
    assert codes.procedure_type(doc("The pre-bid meeting is open to all bidders.\n")) is None
    assert codes.procedure_type(doc("This is not an open tender.\n")) is None
    assert codes.procedure_type(doc("di ricorrere alla procedura ristretta qualora la gara vada deserta\n")) is None
    listed = doc("Applies only to the restricted procedure, the competitive dialogue and the innovation partnership\n")
    assert codes.procedure_type(listed) is None


def test_two_procedures_of_equal_weight_abstain_and_late_pages_do_not_decide() -> None:
    assert codes.procedure_type(doc("Procedura aperta\nProcedura ristretta\n")) is None
    late = doc(*(["General conditions\n"] * 7), "Appendix: open tender rules\n")
    assert codes.procedure_type(late) is None


# --- main category --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Type de marché de travaux : exécution.", "works"),
        ("Tipo di appalto: appalto di servizi.", "services"),
        ("CONTRATO DE SUMINISTRO DE PLANTAS Y ADORNOS", "goods"),
        ("Do postępowania stosuje się przepisy dotyczące nabywania dostaw.", "goods"),
    ],
)
def test_an_explicit_statement_gives_the_category(text: str, expected: str) -> None:
    found = codes.main_category(doc(f"Notice\n{text}\n"))
    assert found is not None and found.value == expected and found.quote == text


def test_a_labelled_category_word_and_a_heading_word() -> None:
    labelled = doc("Adquisición de Bienes o Contratación de Servicios *\n\n     Adquisición de Bienes\n")
    found = codes.main_category(labelled)
    assert found is not None and found.value == "goods" and found.quote == "Adquisición de Bienes"
    assert value(codes.main_category(doc("Annonce No 20-100721\nFournitures\n"))) == "goods"
    assert value(codes.main_category(doc("Tender Category :   Works\n"))) == "works"
    sentence = doc("Type of contract: Fixed price\nThe Contractor shall provide all the services and staff needed.\n")
    assert codes.main_category(sentence) is None
    gem = doc("Notice\n", "Scope of supply (Bid price to include all cost components) : Only supply of Goods\n")
    assert value(codes.main_category(gem)) == "goods"


def test_the_first_head_noun_of_the_subject_decides() -> None:
    document = doc("REQUEST FOR PROPOSALS\nProfessional Engineering Services for the Construction of a Sewer\n")
    assert value(codes.main_category(document)) == "services"
    assert value(codes.main_category(doc("RFP\n2026 Design Build of a Maintenance Shop\n"))) == "works"
    plant = doc("Invitation for Tenders\nPlant\nDesign, Supply and Installation\n")
    assert value(codes.main_category(plant)) == "works"
    assert value(codes.main_category(doc("Invitation for Tenders\nSupply and Installation of Pumps\n"))) == "goods"


def test_organisation_names_are_no_subject() -> None:
    assert codes.main_category(doc("General Services Administration\nCentral Public Works Department\n")) is None
    sentence = doc("ADDENDUM\nThe National Produce Board issues an addendum on the tender for supply and\n")
    assert value(codes.main_category(sentence)) == "goods"


def test_a_sentence_that_mentions_a_category_word_is_no_subject() -> None:
    continued = doc("ADDENDUM\nRespondents shall outline their status in the certification (gap\n"
                    "analysis, implementation, audit, or certification stage) and provide a timeline.\n")
    assert codes.main_category(continued) is None
    long_sentence = doc("REQUEST\nThe Department expects that the selected respondent will take part in the "
                        "works acceptance process with its own staff.\n")
    assert codes.main_category(long_sentence) is None


def test_a_mixed_form_label_and_late_boilerplate_abstain() -> None:
    assert codes.main_category(doc("Vertragsart\n   Liefer- / Dienstleistungsauftrag\n")) is None
    late = doc(*(["Clause\n"] * 4), "para la compra de bienes o la contratación de servicios\n")
    assert codes.main_category(late) is None
    assert codes.main_category(doc("Road construction or consulting, to be defined\n")) is None


def test_the_main_cpv_division_gives_the_category_unless_a_statement_says_otherwise() -> None:
    assert value(codes.main_category(doc("CPV - Objet principal : 60130000.\n"))) == "services"
    assert value(codes.main_category(doc("CPV: 45233140-2\n"))) == "works"
    stated = doc("Type de marché de travaux : exécution.\nCPV - Objet principal : 42512000.\n")
    assert value(codes.main_category(stated)) == "works"


# --- CPV codes ------------------------------------------------------------------------------------


def cpv_values(document: Document) -> list[str]:
    return [found.value for found in codes.cpv_codes(document)]


def test_codes_next_to_a_cpv_label() -> None:
    assert cpv_values(doc("CPV - Objet principal : 34110000.\n")) == ["34110000"]
    assert cpv_values(doc("II.1.5) Codice CPV principale: 60130000-8 “Servizi speciali”\n")) == ["60130000-8"]
    spaced = doc("3.   Wspólny Słownik Zamówień CPV:\n     33 10 00 00-1 - Urządzenia medyczne\n")
    assert cpv_values(spaced) == ["33100000-1"]


def test_a_list_of_codes_under_its_label_and_a_table_column() -> None:
    listed = doc(
        " Clasificación CPV\n"
        "     03121100 - Plantas vivas, bulbos.\n"
        "     77330000 - Servicios de exposición floral.\n"
        "Proceso de Licitación\n"
        " Procedimiento 10000000 abierto\n"
    )
    assert cpv_values(listed) == ["03121100", "77330000"]
    table = doc(
        "        Descrizione delle prestazioni          CPV            Importo €\n"
        "\n"
        "            Direzione Lavori                 71240000          148.040,99\n"
    )
    assert cpv_values(table) == ["71240000"]


def test_the_main_code_comes_first() -> None:
    document = doc("Additional CPV codes: 45233141-9\nMain CPV code: 45233140-2\n")
    assert cpv_values(document) == ["45233140-2", "45233141-9"]


def test_ranges_amounts_phones_and_unknown_divisions_are_no_codes() -> None:
    assert cpv_values(doc("codici CPV da 74200000-1 a 74276400-8\n")) == []
    assert cpv_values(doc("CPV importo 12345678,00 EUR\n")) == []
    assert cpv_values(doc("CPV contact: 02 34 56 78 12 55\n")) == []
    assert cpv_values(doc("CPV: 99000000\n")) == []


def test_a_bare_code_counts_only_with_a_valid_check_digit_and_no_label() -> None:
    assert cpv_values(doc("Objet : 60130000-8 transport\n")) == ["60130000-8"]
    assert cpv_values(doc("Objet : 60130000-3 transport\n")) == []
    assert cpv_values(doc("Objet : 60130000-8\nCPV: 34110000\n")) == ["34110000"]


def test_codes_survive_validation_with_their_quotes() -> None:
    pages = [Page(1, "Notice\n3.   Wspólny Słownik Zamówień CPV:\n     33 10 00 00-1 - Urządzenia medyczne\n")]
    document = Document.of(pages)
    fields = TenderFields(
        notice_type=codes.notice_type(document),
        main_category=codes.main_category(document),
        cpv_codes=codes.cpv_codes(document),
    )
    checked, flags = validate_fields(fields, pages)
    assert flags == []
    assert [code.value for code in checked.cpv_codes] == ["33100000-1"]
    assert checked.main_category is not None and checked.main_category.value == "goods"


# --- other languages and scripts ------------------------------------------------------------------
# Fixtures written for these tests, laid out the way pdftotext prints such notices.


def grounded(document: Document, sourced: Sourced[T]) -> bool:
    """The quote is on its page as validation compares them, without white space: a letter-spaced CJK heading
    ('공 사 입 찰 공 고') is quoted closed up."""
    return "".join(sourced.quote.split()) in "".join(document.pages[sourced.page].split())


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("一般競争入札公告", "contract_notice"),
        ("島根県一般競争入札公告 土木第５５号の３", "contract_notice"),
        ("[긴급] 공 사 입 찰 공 고", "contract_notice"),
        ("第一章       招标公告", "contract_notice"),
        ("Извещение о проведении электронного аукциона", "contract_notice"),
        ("Tip anunt: Anunt de participare", "contract_notice"),
        ("ΔΙΑΚΗΡΥΞΗ ΑΝΟΙΚΤΟΥ ΔΙΑΓΩΝΙΣΜΟΥ", "contract_notice"),
        ("İHALE İLANI", "contract_notice"),
        ("THÔNG BÁO MỜI THẦU", "contract_notice"),
        ("Изменения извещения о проведении электронного аукциона", "corrigendum"),
        ("정정공고", "corrigendum"),
        ("更正公告", "corrigendum"),
        ("ZEYİLNAME", "corrigendum"),
        ("中标结果公告", "contract_award_notice"),
        ("Tip anunt: Anunt de atribuire", "contract_award_notice"),
        ("決標公告", "contract_award_notice"),
        ("2025 YILI KIRTASİYE MALZEMESİ TEKNİK ŞARTNAMESİ", "other"),
        ("ĐIỀU KHOẢN THAM CHIẾU", "other"),
        ("特記仕様書", "other"),
    ],
)
def test_a_notice_names_its_family_in_its_own_language(heading: str, expected: str) -> None:
    document = doc(f"\n        {heading}\n\n本文\n")
    found = codes.notice_type(document)
    assert value(found) == expected
    assert found is not None and grounded(document, found)


def test_a_call_outranks_the_specification_it_names() -> None:
    document = doc("          某某设备采购项目      招标文件\n\n第一章 招标公告\n第五章 技术要求\n")
    assert value(codes.notice_type(document)) == "contract_notice"


def test_a_decision_that_awards_in_its_operative_part_is_an_award() -> None:
    page = (
        "                                                ΑΠΟΦΑΣΗ\n"
        "      Έχοντας υπόψη:\n"
        "      1] Τις διατάξεις του Ν. 4412/2016\n\n"
        "                                   ΑΠΟΦΑΣΙΖΕΙ\n"
        "   Α] Την έγκριση του πρακτικού της επιτροπής.\n"
        "   Β] Κατακυρώνει την προμήθεια γραφικής ύλης στην εταιρεία ΑΛΦΑ Ε.Π.Ε.\n"
    )
    document = doc(page)
    found = codes.notice_type(document)
    assert value(found) == "contract_award_notice"
    assert found is not None and found.quote.startswith("Β] Κατακυρώνει") and grounded(document, found)


def test_a_decision_that_approves_a_call_is_no_award() -> None:
    page = "                   ΑΠΟΦΑΣΙΖΟΥΜΕ\n   1. Εγκρίνουμε τη διενέργεια ανοικτού διαγωνισμού.\n"
    assert value(codes.notice_type(doc(page))) != "contract_award_notice"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("     入札方式                       一般競争入札（事後審査型）\n", "open"),
        ("次のとおり指名競争入札に付します。\n", "restricted"),
        ("本件は地方自治法施行令に基づく随意契約である。\n", "neg-wo-call"),
        ("2.2.   입찰참가자격 사전심사 대상 공사입니다.\n", "restricted"),
        ("본 건은 수의계약으로 체결합니다.\n", "neg-wo-call"),
        ("   一、招标方式：公开招标\n", "open"),
        ("   采购方式：竞争性磋商\n", "neg-w-call"),
        ("   本项目采用单一来源采购方式\n", "neg-wo-call"),
        ("      Способ определения поставщика          Электронный аукцион\n", "open"),
        ("      Способ определения поставщика          Закупка у единственного поставщика\n", "neg-wo-call"),
        ("διαδικασία της απευθείας ανάθεσης μετά από συλλογή προσφορών\n", "neg-wo-call"),
        ("İhale usulü: Açık ihale usulü\n", "open"),
        ("4734 sayılı Kanunun 21/b maddesi uyarınca pazarlık usulü ile\n", "neg-wo-call"),
        ("Hình thức lựa chọn nhà thầu: Đấu thầu rộng rãi\n", "open"),
        ("Hình thức lựa chọn nhà thầu: Chỉ định thầu\n", "neg-wo-call"),
        ("Rodzaj: Otevřené řízení\n", "open"),
    ],
)
def test_the_procedure_named_in_its_own_language(text: str, expected: str) -> None:
    document = doc(text)
    found = codes.procedure_type(document)
    assert value(found) == expected
    assert found is not None and grounded(document, found)


def test_a_seap_procedure_field_late_in_the_data_sheet_counts() -> None:
    pages = ["Fisa de date\n"] * 8 + ["          IV.1.1.b) Tipul Procedurii\n          Licitatie deschisa\n"]
    assert value(codes.procedure_type(doc(*pages))) == "open"


def test_a_national_simplified_procedure_is_a_single_stage_other() -> None:
    assert value(codes.procedure_type(doc("          Procedura simplificata\n"))) == "oth-single"


@pytest.mark.parametrize(
    ("pages", "expected"),
    [
        (("４   工事種別      建築工事\n",), "works"),
        ((" 1.10.    공사구분 : 본 공사는 '종합공사'입니다.\n",), "works"),
        (("                       용 역 입 찰 공 고\n",), "services"),
        (("          II.1.3 Tip de contract:\n          Furnizare\n",), "goods"),
        (("İhale türü: Hizmet alımı\n",), "services"),
        (("Lĩnh vực: Xây lắp\n",), "works"),
        (("１   件名           本庁舎清掃業務委託\n",), "services"),
        (("나. 용역명 : 도로 유지관리 설계용역\n",), "services"),
        (("二、招标项目：市民中心电脑设备采购项目\n",), "goods"),
        (("二、招标项目：城区道路绿化养护服务项目\n",), "services"),
        (("      Наименование объекта закупки          Поставка молочной продукции\n",), "goods"),
    ],
)
def test_the_category_in_its_own_language(pages: tuple[str, ...], expected: str) -> None:
    document = doc(*pages)
    found = codes.main_category(document)
    assert value(found) == expected
    assert found is not None and grounded(document, found)


def test_a_line_that_goes_on_with_the_sentence_above_is_no_subject() -> None:
    page = (
        "ΠΡΑΚΤΙΚΟ ΑΡ. 12\n"
        "Σήμερα συνήλθε η επιτροπή που συγκροτήθηκε με τον αριθ. πρωτ.\n"
        "166/2015 Απόφαση Δημάρχου, σχετικά με τη συντήρηση και επισκευή\n"
    )
    assert codes.main_category(doc(page)) is None


def test_a_notice_type_field_names_the_family() -> None:
    document = doc("  Type of notice: Contract award notice\n  Buyer: Town of Springfield\n")
    assert value(codes.notice_type(document)) == "contract_award_notice"


def test_a_part_of_the_document_named_after_a_notice_is_no_heading() -> None:
    document = doc("Invitation for Bids\nSection 7: Notice of Award\nSection 8: Contract Forms\n")
    assert value(codes.notice_type(document)) == "contract_notice"


@pytest.mark.parametrize(
    ("subject", "expected"),
    [("Rehabilitation of the district hospital", "works"), ("Maintenance of passenger lifts", "services")],
)
def test_the_head_noun_of_a_subject_line(subject: str, expected: str) -> None:
    assert value(codes.main_category(doc(f"Invitation for Bids\n\n{subject}\n"))) == expected


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ("ΔΙΑΚΗΡΥΞΗ ΑΝΟΙΚΤΟΥ ΗΛΕΚΤΡΟΝΙΚΟΥ ΔΙΑΓΩΝΙΣΜΟΥ\n", "procedure_type", "open"),
        ("Назва предмета закупівлі: Капітальний ремонт покрівлі школи\n", "main_category", "works"),
        ("2 - İhale konusu hizmet alımının\na) Adı : Park bakım hizmeti alımı\n", "main_category", "services"),
        ("เรื่อง ประกวดราคาซื้อครุภัณฑ์คอมพิวเตอร์\n", "main_category", "goods"),
    ],
)
def test_more_words_of_their_languages(text: str, field: str, expected: str) -> None:
    assert value(getattr(codes, field)(doc(text))) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("Metode Pemilihan: Tender\n", "open"), ("Tender Type\n   Restricted\n", "restricted")],
)
def test_a_procedure_given_by_its_bare_word_after_its_label(text: str, expected: str) -> None:
    assert value(codes.procedure_type(doc(text))) == expected
