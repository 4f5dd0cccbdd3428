"""The offline extractor's identity fields: title, reference number, place of performance.

Each fixture is a few lines of page text laid out the way `pdftotext -layout` prints them.
"""

from __future__ import annotations

import pytest

from tenderflow.extraction.offline import identity
from tenderflow.extraction.schema import Sourced
from tests.support.offline_readers import document, kept


def _grounded(found: Sourced[str] | None, *pages: str) -> Sourced[str]:
    """The value, after the pipeline's validation kept it: its quote is on its page, the value in its quote."""
    assert found is not None
    return kept(found, "title", *pages)


# --- reference number ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tender No.: KCC/RD/2025/014\n", "KCC/RD/2025/014"),
        ("Vergabenummer: ZV-A1-23-0161000-4122.3\n", "ZV-A1-23-0161000-4122.3"),
        ("                   znak sprawy: ZT-SZP-226/01/39/2021\n", "ZT-SZP-226/01/39/2021"),
        ("PORFP Number:               #E20P4600040\n", "E20P4600040"),
        ('       REQUEST FOR PROPOSALS ("RFP") NO. 2022-01\n', "2022-01"),
        ("CIG: B98EF73DEB - CUP E44H20000720008\n", "B98EF73DEB"),
        ("CENTRO DE JAEN. EXPTE 10/2024/CONM-CEE. A ADJUDICAR POR PROCEDIMIENTO ABIERTO\n", "10/2024/CONM-CEE"),
        ("Bid Number/बिड संख्या:    GEM/2024/B/4567890\n", "GEM/2024/B/4567890"),
        ("Processo n.º 2024/0815\n", "2024/0815"),
        ("رقم المنافسة: 240439012345\n", "240439012345"),
    ],
)
def test_reference_after_its_label(text: str, expected: str) -> None:
    assert _grounded(identity.reference_number(document(text)), text).value == expected


def test_reference_in_the_cell_below_a_form_header() -> None:
    page = (
        "Ihre Anfrage vom             Vergabenummer                                   Telefon       Datum\n"
        "                             VA-2026-0239-OE6404                                           30.03.2026\n"
    )
    found = _grounded(identity.reference_number(document(page)), page)
    assert (found.value, found.quote) == (
        "VA-2026-0239-OE6404",
        "VA-2026-0239-OE6404                                           30.03.2026",
    )


def test_reference_of_several_tokens_on_the_next_line() -> None:
    page = "    c) Geschäftszeichen\n       173087_75 112/0012\n\n 3. Angaben zu Angeboten\n"
    assert _grounded(identity.reference_number(document(page)), page).value == "173087_75 112/0012"


def test_reference_after_the_last_colon_of_a_long_label() -> None:
    page = "Numéro de référence attribué au marché par le pouvoir adjudicateur / l'entité adjudicatrice : 20F015PA.\n"
    assert _grounded(identity.reference_number(document(page)), page).value == "20F015PA"


def test_buyer_reference_beats_the_notice_number() -> None:
    first = "Avis n°20-100721\n\nAnnonce No 20-100721\n"
    second = (
        "Numéro de référence attribué au marché par le pouvoir adjudicateur / l'entité adjudicatrice :\n"
        "2020_05.06.07.\n"
    )
    assert _grounded(identity.reference_number(document(first, second)), first, second).value == "2020_05.06.07"


def test_notice_number_when_the_buyer_gives_none() -> None:
    page = "Avis n°20-100260\n"
    assert _grounded(identity.reference_number(document(page)), page).value == "20-100260"


@pytest.mark.parametrize(
    "text",
    [
        "Tender No.: ________________\n",  # placeholder
        "Reference No.: [insert reference]\n",  # placeholder
        "Reference: 12.03.2024\n",  # a date
        "Ref. 13.\n",  # a clause number
        "Tender No. to be advised\n",  # words
        "Reference: +49 340 2103 2964\n",  # a phone number
        "Your ref: 4711-2024\n",  # the bidder's number
        "Bank reference number: 0042-1177\n",  # a bank's number
        "The bids are evaluated with reference to clause 4.2 of the conditions.\n",  # label inside a sentence
        "Centers of Excellence Discovery Blanket Purchase Agreement Reference FAR\n8.405-3(b)(1), for services\n",
        "Reference            Schedule 2 – Specification/Statement of Requirements – Section 1.3\n",
    ],
)
def test_no_reference_from_what_is_no_identifier(text: str) -> None:
    assert identity.reference_number(document(text)) is None


# --- title -----------------------------------------------------------------------------------------------


def test_title_after_its_label_wrapped_onto_the_next_line() -> None:
    page = (
        "Objet du marché : climatisation par système VRV des niveaux R+1 et R+2 et remise en état du\n"
        "niveau R+4 et Terrasse technique du Complexe World Trade Center de Jarry.\n"
        "Type de marché de travaux : exécution.\n"
    )
    found = _grounded(identity.title(document(page)), page)
    assert found.value == (
        "climatisation par système VRV des niveaux R+1 et R+2 et remise en état du niveau R+4 et Terrasse "
        "technique du Complexe World Trade Center de Jarry"
    )
    assert found.quote.count("\n") == 1


def test_title_stops_at_a_closed_sentence() -> None:
    page = "Objet du marché : achat de deux véhicules électriques.\nLe présent marché concerne la police.\n"
    assert _grounded(identity.title(document(page)), page).value == "achat de deux véhicules électriques"


def test_title_in_the_lines_under_a_form_label() -> None:
    page = (
        "Objeto de la Contratación *\n"
        "Sistema de almacenamiento AllFlash NVMe compuesto por 2 (dos) subsistemas\n"
        "que trabajen en modalidad activo-activo\n"
        "\n"
        "Etapa y Alcance\n"
    )
    found = _grounded(identity.title(document(page)), page)
    assert found.value == (
        "Sistema de almacenamiento AllFlash NVMe compuesto por 2 (dos) subsistemas que trabajen en modalidad "
        "activo-activo"
    )


def test_title_label_with_sharp_s_and_hyphenated_wrap() -> None:
    page = (
        " Maßnahme: Ausschreibung für eine Design-Agentur zur Entwicklung interaktiver Visualisie-\n"
        " rungen zur Darstellung von wissenschaftlichen Themen\n"
        "\n"
        " Vergabenummer: ZV-A1-23-0161000-4122.3\n"
    )
    found = _grounded(identity.title(document(page)), page)
    assert found.value == (
        "Ausschreibung für eine Design-Agentur zur Entwicklung interaktiver Visualisierungen zur Darstellung "
        "von wissenschaftlichen Themen"
    )


def test_title_continues_the_cover_heading() -> None:
    page = (
        "\n"
        "BANDO DI GARA PROCEDURA APERTA AFFIDAMENTO SERVIZIO TRASPORTO\n"
        "SCOLASTICO E ASSISTENZA ALUNNI\n"
        "CIG B83739B096\n"
    )
    found = _grounded(identity.title(document(page)), page)
    assert found.value == "AFFIDAMENTO SERVIZIO TRASPORTO SCOLASTICO E ASSISTENZA ALUNNI"


def test_title_after_a_connector_stops_at_the_reference() -> None:
    page = "\nTENDER FOR THE SUPPLY OF WATER METERS TO THE NORTH DISTRICT. TENDER NO. 45/2025\n"
    assert _grounded(identity.title(document(page)), page).value == ("SUPPLY OF WATER METERS TO THE NORTH DISTRICT")


def test_title_under_a_document_type_heading() -> None:
    page = (
        "                     NIAGARA FALLS WATER BOARD\n"
        "\n"
        '       REQUEST FOR PROPOSALS ("RFP") NO. 2022-01\n'
        "\n"
        "       Professional Engineering Services for LaSalle Area\n"
        "       Sanitary Sewer Evaluation Survey SSES – Phase 1\n"
        "                        Deadline for Sealed Proposal Submissions:\n"
    )
    found = _grounded(identity.title(document(page)), page)
    assert found.value == (
        "Professional Engineering Services for LaSalle Area Sanitary Sewer Evaluation Survey SSES – Phase 1"
    )
    assert found.quote == (
        "Professional Engineering Services for LaSalle Area\nSanitary Sewer Evaluation Survey SSES – Phase 1"
    )


def test_title_under_a_heading_past_the_number_and_publication() -> None:
    page = (
        "                  Anuncio de licitación\n"
        "                  Número de Expediente 10/2024/CONM-CEE\n"
        "                  Publicado en la Plataforma de Contratación el 11-11-2024\n"
        "\n"
        "Suministro de plantas y servicio de decoración con adornos de navidad para el\n"
        "centro de Jaén.\n"
        "\n"
        "Contrato Sujeto a regulación armonizada No\n"
    )
    found = _grounded(identity.title(document(page)), page)
    assert found.value == "Suministro de plantas y servicio de decoración con adornos de navidad para el centro de Jaén"


def test_title_without_its_connector() -> None:
    page = (
        "                      SPECYFIKACJA WARUNKÓW ZAMÓWIENIA\n"
        "\n"
        " na zakup sprzętu medycznego do rehabilitacji onkologicznej\n"
    )
    assert _grounded(identity.title(document(page)), page).value == (
        "zakup sprzętu medycznego do rehabilitacji onkologicznej"
    )


def test_title_above_a_heading_followed_by_a_salutation() -> None:
    page = (
        "\n"
        "Website und Logo Entwicklung - ZeStuR\n"
        "Aufforderung zur Abgabe eines Angebotes\n"
        "\n"
        "Sehr geehrte Damen und Herren,\n"
    )
    assert _grounded(identity.title(document(page)), page).value == "Website und Logo Entwicklung - ZeStuR"


def test_title_under_a_reference_line() -> None:
    page = (
        "- an alle Interessierten des Verfahrens -\n"
        "\n"
        "Projektnr. 173087\n"
        "\n"
        "Erstellung von sechs innovativen Datenvisualisierungen\n"
        "\n"
        "hier: Öffentliche Ausschreibung\n"
    )
    assert _grounded(identity.title(document(page)), page).value == (
        "Erstellung von sechs innovativen Datenvisualisierungen"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Subject: Request for Quotation (RFQ)\n",  # only the document type
        "Contact Person\nName:   Andrew Ballard\nTitle:            Procurement Manager\n",  # a person's title
        "        Cláusula 5. Objeto y necesidad del contrato.\n",  # table of contents
        "5. OBJETO\nEl objeto del contrato es el suministro de plantas.\n",  # heading followed by prose
        "Title: ......................................\n",  # placeholder
        "Lot No: 2\nII.2.1) Title: CCTV survey and monitoring\n",  # a lot's title
        " Auftragsbekanntmachung\n\n Öffentliche Ausschreibung nach UVgO\n Liefer- / Dienstleistungsauftrag\n",
        "Municipalidad de Rosario\nLICITACIÓN PRIVADA\nPLIEGO DE CONDICIONES PARTICULARES\n",  # organisation above
        "\nes ist beabsichtigt, die Leistungen durch eine\nÖffentliche Ausschreibung nach UVgO zu vergeben.\n",
    ],
)
def test_no_title_from_headings_placeholders_or_prose(text: str) -> None:
    assert identity.title(document(text)) is None


def test_label_title_beats_heading_title() -> None:
    page = "Request\nRequest Title:\nProvision of a Digital Wallet\n\nRequest Number:\nDPC2142\n"
    assert _grounded(identity.title(document(page)), page).value == "Provision of a Digital Wallet"


# --- place of performance --------------------------------------------------------------------------------


def test_place_block_in_the_value_column_stops_at_the_next_row() -> None:
    page = (
        "Place of Performance:       MD State Treasurer's Office\n"
        "                            80 Calvert Street\n"
        "                            Annapolis MD 21401\n"
        "Special Instructions:       LIMITED TO MASTER CONTRACTORS\n"
    )
    found = _grounded(identity.place_of_performance(document(page)), page)
    assert found.value == "MD State Treasurer's Office 80 Calvert Street Annapolis MD 21401"


def test_place_without_its_nuts_note() -> None:
    page = "II.1.3) Luogo di esecuzione: Comune di Turi (Ba) [codice NUTS ITF48]\nII.1.4) Breve descrizione: x\n"
    assert _grounded(identity.place_of_performance(document(page)), page).value == "Comune di Turi (Ba)"


def test_place_on_the_line_under_a_numbered_label() -> None:
    page = "    c) Ort der Leistungserbringung\n       Dessau-Roßlau\n"
    assert _grounded(identity.place_of_performance(document(page)), page).value == "Dessau-Roßlau"


def test_place_town_from_a_block_of_sub_fields() -> None:
    page = "Lugar de ejecución\n Subentidad Nacional Jaén\n Código de Subentidad Territorial ES616\n"
    assert _grounded(identity.place_of_performance(document(page)), page).value == "Jaén"


def test_place_in_a_sentence() -> None:
    page = "Il luogo di svolgimento dell’appalto è nel Comune di SERINO - provincia di Avellino codice NUTS ITF34.\n"
    found = _grounded(identity.place_of_performance(document(page)), page)
    assert found.value == "Comune di SERINO - provincia di Avellino"


def test_place_falls_back_to_the_nuts_code() -> None:
    page = "Lieu d'exécution : .\nCode NUTS : -FRE11.\n"
    assert _grounded(identity.place_of_performance(document(page)), page).value == "FRE11"


def test_place_under_a_form_header_with_other_columns() -> None:
    page = (
        "Lugar de Entrega *                      Dirección alternativa *       Cantidad *\n"
        "NUEVO CENTRO DE                                             ---       90\n"
        "PROCESAMIENTO DE DATOS | SAN\n"
        "MARTIN 1339\n"
    )
    found = _grounded(identity.place_of_performance(document(page)), page)
    assert found.value == "NUEVO CENTRO DE PROCESAMIENTO DE DATOS | SAN MARTIN 1339"


@pytest.mark.parametrize(
    "text",
    [
        "        Cláusula 9. Plazo de duración del contrato..Lugar de entrega\n        de los bienes.\n",  # contents
        "1.5 Ordering Period and Place of Performance\nThe ordering period for this BPA is three years.\n",
        "Place of performance: see Annex 2\n",  # a pointer
        "Place of delivery: ....................\n",  # placeholder
        "                APERTURA:\n                LUGAR:\n Dirección General de Compras, Santa Fe 660, Rosario.\n",
        "Lugar de ejecución                     Valor estimado del contrato 6.400 EUR.\n",  # another column
    ],
)
def test_no_place_from_contents_headings_or_pointers(text: str) -> None:
    assert identity.place_of_performance(document(text)) is None


# --- eForms notices, right-to-left labels, sentences that run on ---------------------------------------------

EFORMS_PAGE = """2.1. Procedure
Title: Cleaning of council offices
Description: Cleaning of the offices of the council
Procedure identifier: 3a2e9c1d-0b7f-4c55-8d1e-5f0a2b3c4d5e
Internal identifier: CC-2024-55
5.1.2. Place of performance
Postal address: 1 High Street
Town: Leeds
Postcode: LS1 1AA
Country subdivision (NUTS): Leeds (UKE42)
Country: United Kingdom
"""


def test_eforms_notice() -> None:
    read_from = document(EFORMS_PAGE)
    assert _grounded(identity.title(read_from), EFORMS_PAGE).value == "Cleaning of council offices"
    assert _grounded(identity.reference_number(read_from), EFORMS_PAGE).value == "CC-2024-55"
    place = _grounded(identity.place_of_performance(read_from), EFORMS_PAGE)
    assert (place.value, place.quote) == ("Leeds", "Town: Leeds")


def test_right_to_left_label_with_its_value_on_its_left() -> None:
    page = "        240439012345          رقم المنافسة\n"
    assert _grounded(identity.reference_number(document(page)), page).value == "240439012345"


@pytest.mark.parametrize(
    "text",
    [
        "documents à fournir conformément au\nrèglement de la consultation.\nLa transmission peut être effectuée.\n",
        "PLIEGO DE CONDICIONES PARTICULARES\n\n\nArtículo 1: OBJETO\nLa Municipalidad llama a Licitación.\n",
        "TENDER DOCUMENT\n\nSECTION I - INSTRUCTIONS TO TENDERERS\n",
        "REPUBLIC OF KENYA\n\nTENDER DOCUMENT\n\nSECTION I - INSTRUCTIONS TO TENDERERS\n",
    ],
)
def test_no_title_from_sentences_sections_or_countries(text: str) -> None:
    assert identity.title(document(text)) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "                CITY OF SPRINGFIELD\n            REQUEST FOR PROPOSALS\n                RFP #2024-15\n"
            "        JANITORIAL SERVICES FOR CITY HALL\n      Proposals Due: March 15, 2024 2:00 PM\n",
            "JANITORIAL SERVICES FOR CITY HALL",
        ),
        (
            "REPUBLIC OF KENYA\nMINISTRY OF HEALTH\n\nTENDER DOCUMENT\nFOR\n"
            "SUPPLY AND DELIVERY OF HOSPITAL BEDS\nTENDER NO: MOH/001/2024-2025\n",
            "SUPPLY AND DELIVERY OF HOSPITAL BEDS",
        ),
        (
            "INVITATION TO BID\n\nOPEN TENDER\n\nRehabilitation of the Mombasa Road\n",
            "Rehabilitation of the Mombasa Road",
        ),
    ],
)
def test_title_on_a_cover_page(text: str, expected: str) -> None:
    assert _grounded(identity.title(document(text)), text).value == expected


def test_place_from_a_delivery_sentence_wrapped_over_two_lines() -> None:
    page = (
        "El plazo de entrega será de noventa (90) días. Las entregas se realizarán en el 3er piso del Palacio\n"
        "Municipal ubicado en calle Buenos Aires 711.\n"
    )
    found = _grounded(identity.place_of_performance(document(page)), page)
    assert found.value == "el 3er piso del Palacio Municipal ubicado en calle Buenos Aires 711"
    assert found.quote.count("\n") == 1


def test_labelled_place_beats_a_delivery_sentence() -> None:
    page = "Place of delivery: Central Medical Stores, Nairobi\n\nDeliveries shall be made at the Kisumu Depot.\n"
    assert _grounded(identity.place_of_performance(document(page)), page).value == ("Central Medical Stores, Nairobi")


@pytest.mark.parametrize(
    "text",
    [
        "Deliveries shall be made at the Purchaser's premises.\n",  # names no place
        "Deliveries shall be made in accordance with the Schedule of Requirements.\n",  # how, not where
        "Las entregas se realizarán en un plazo máximo de 30 días.\n",  # when, not where
        "Die Lieferung erfolgt in zwei Losen.\n",
    ],
)
def test_no_place_from_delivery_sentences_without_a_place(text: str) -> None:
    assert identity.place_of_performance(document(text)) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sub: Supply of name plates for the district offices\n", "Supply of name plates for the district offices"),
        ("Objet du marché : transports collectifs en lot unique.\n", "transports collectifs en lot unique"),
    ],
)
def test_title_words_that_look_like_negative_contexts(text: str, expected: str) -> None:
    assert _grounded(identity.title(document(text)), text).value == expected


def test_no_title_from_a_subtotal() -> None:
    assert identity.title(document("Sub-total amount of the bid in words\n")) is None


# --- cover pages and portal layouts (GeM, CPPP, Etimad, development banks) ----------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ref: ICB No:007/G/2024/ICB/EARP- BADEA 2\n", "ICB No:007/G/2024/ICB/EARP- BADEA 2"),  # designation kept
        ("             TENDER NO. NCPB/ GCP DEPOT/13/2021-2022 FOR\n", "NCPB/ GCP DEPOT/13/2021-2022"),  # wrapped code
        ("TENDER NO.:                    NCPB/GCP DEPOT/13/2021-2022\n", "NCPB/GCP DEPOT/13/2021-2022"),
        ("          APPEL D’OFFRES PUBLIC\n\n          N °2024/07/CEB/TAM/P/CS\n", "2024/07/CEB/TAM/P/CS"),
        (" ADB/RFP/RDNG/2025/001– PROCUREMENT OF FACILITIES\n", "ADB/RFP/RDNG/2025/001"),  # coded, unlabelled
        ("indicating the project number: CTI69.\n", "CTI69"),
    ],
)
def test_reference_forms_of_cover_pages(text: str, expected: str) -> None:
    assert _grounded(identity.reference_number(document(text)), text).value == expected


@pytest.mark.parametrize(
    "text",
    [
        "state the bid number and its nomenclature.\n  2. The meeting shall be on 9 April\n  at 10:00am at 1521,\n",
        "N°AM//01/2025/SS/DTS/BOAD\n",  # OCR dropped characters
        "It is a THREE-PART-BID E-Tender constituting of:\n",  # a code without a number
    ],
)
def test_no_reference_from_times_broken_codes_or_words(text: str) -> None:
    assert identity.reference_number(document(text)) is None


def test_tender_number_beats_project_number() -> None:
    page = "eMMA Project Number: BPM044557\nPORFP Number:               #E20P4600040\n"
    assert _grounded(identity.reference_number(document(page)), page).value == "E20P4600040"


def test_title_of_the_contract_beats_the_project() -> None:
    page = (
        "                     Specific Procurement Notice\n\n"
        "                                Request for Bids\n"
        "                                    Goods\n"
        "                            (Two-Envelope Bidding Process)\n\n"
        "Name of Project: Africa Centres for Disease Control Support Program\n"
        "Contract Title: Supply and Installation of Laboratory Equipment\n"
        "RFB Reference No.: ET-AUC-441389-GO-RFB\n"
    )
    assert _grounded(identity.title(document(page)), page).value == "Supply and Installation of Laboratory Equipment"


def test_title_past_the_procedure_line_of_a_cover() -> None:
    page = (
        "AVIS DE SOLLICITATION DE MANIFESTATIONS D'INTERET\n"
        "Procédure restreinte internationale - Pré-qualification\n"
        "\n"
        "Recrutement d'un prestataire pour les audits internes du SMSI\n"
        "\n"
        "I. DESCRIPTION DU PROJET\n"
    )
    assert _grounded(identity.title(document(page)), page).value == (
        "Recrutement d'un prestataire pour les audits internes du SMSI"
    )


def test_title_under_a_decorated_centred_label() -> None:
    page = (
        "                                      -: NAME OF WORK :-\n"
        "\n"
        "Supply and application of mineral wool insulation on various pipes, bends,\n"
        "vessels of Turbine and its auxiliaries.\n"
    )
    assert _grounded(identity.title(document(page)), page).value == (
        "Supply and application of mineral wool insulation on various pipes, bends, vessels of Turbine and its "
        "auxiliaries"
    )


def test_no_title_from_a_table_header_row() -> None:
    page = (
        "Sr.     RFQ                                          E.M.D\n"
        "        No/           Name of Work                                      Name of Section\n"
        "No                                                    [Rs.]\n"
    )
    assert identity.title(document(page)) is None


GEM_PAGE = """                                                  Bharat Heavy Electricals Limited (bhel)

कुल मा ा/Total Quantity                           900

                                                  MAPLITHO PAPER 80GSM SIZE 0.841X100MTS , MAPLITHO
                                                  PAPER 80 GSM SIZE-0.457X100 M , MAPLITHO PAPER 80GSM
व तु   ण
       े ी /Item Category
                                                  SIZE. 297X100MTS , MAPLITHO PAPER 80GSM SIZE.
                                                  594X100 MTS

GeMARPTS म खोजी गई    ं स / Searched
"""


def test_gem_item_category_centred_on_its_value() -> None:
    found = _grounded(identity.title(document(GEM_PAGE)), GEM_PAGE)
    assert found.value == (
        "MAPLITHO PAPER 80GSM SIZE 0.841X100MTS , MAPLITHO PAPER 80 GSM SIZE-0.457X100 M , MAPLITHO PAPER 80GSM "
        "SIZE. 297X100MTS , MAPLITHO PAPER 80GSM SIZE. 594X100 MTS"
    )


def test_gem_boq_title_beats_the_item_category() -> None:
    page = GEM_PAGE + "\nबीओ यू शीषक /BOQ Title                            YADADRI THERMAL INSULATION MATTRESSES\n"
    assert _grounded(identity.title(document(page)), page).value == "YADADRI THERMAL INSULATION MATTRESSES"


def test_no_centred_value_taken_from_the_row_above() -> None:
    page = "Address:        12 Main Street\n                Springfield\nTitle:\n"
    assert identity.title(document(page)) is None


def test_place_from_a_consignee_table() -> None:
    page = (
        "                   परे षती/ रपो टग\n"
        "     .सं. /S.N                                                                   डलीवर के दन/Delivery\n"
        "                 अिधकार /Consignee              पता/Address              मा ा /Quantity\n"
        "       o.                                                                                            Days\n"
        "                 Reporting/Officer\n"
        "\n"
        "                                      632406,INDIRA GANDHI\n"
        " 1               G Ramesh Babu                                           300               90\n"
        "                                      COMPLEX\n"
        "\n"
    )
    assert _grounded(identity.place_of_performance(document(page)), page).value == "632406,INDIRA GANDHI COMPLEX"


def test_place_region_under_the_scope_line() -> None:
    page = "5 - مكان تنفيذ الأعمال\n\nداخل المملكة\n\nه منطقة الرياض\n0 الرياض\n"
    assert _grounded(identity.place_of_performance(document(page)), page).value == "منطقة الرياض"


def test_no_place_from_a_numbered_contents_list() -> None:
    page = "5 مكان تنفيذ الأعمال\n6 جدول الكميات والأسعار\n7 فريق العمل\n"
    assert identity.place_of_performance(document(page)) is None


OCR_FORM = (
    "Work /Item(s)\n\n"
    "Work Description Fourier Transform Infrared Spectroscopy(FTIR)\n"
    "Location Department of Textile | Pincode 641004 Pre Bid Meeting Place Department of\n"
)


def test_values_run_on_after_their_labels_on_an_ocr_page() -> None:
    read_from = document(OCR_FORM)
    assert _grounded(identity.title(read_from), OCR_FORM).value == "Fourier Transform Infrared Spectroscopy(FTIR)"
    assert _grounded(identity.place_of_performance(read_from), OCR_FORM).value == "Department of Textile"


def test_no_run_on_values_on_a_laid_out_page() -> None:
    page = OCR_FORM + "Tender Value in Rs       NA\n"
    read_from = document(page)
    assert identity.title(read_from) is None
    assert identity.place_of_performance(read_from) is None


def test_no_place_from_the_location_of_something_else() -> None:
    assert identity.place_of_performance(document("Location of bid opening: Room 12, Head Office\n")) is None


def test_place_named_at_the_end_of_the_title() -> None:
    page = (
        "             TENDER NO. NCPB/ GCP DEPOT/13/2021-2022 FOR\n\n"
        "REMOVAL AND DISPOSAL OF ASBESTOS, RE-ROOFING, AND ASSOCIATED WORKS\n"
        "                        AT NCPB GCP DEPOT\n"
    )
    assert _grounded(identity.place_of_performance(document(page)), page).value == "NCPB GCP DEPOT"


@pytest.mark.parametrize(
    "text",
    [
        "Objet du marché : formation en analyse de données.\n",
        "Contract Title: Cleaning services at the Purchaser's premises\n",
    ],
)
def test_no_place_from_a_title_without_one(text: str) -> None:
    assert identity.place_of_performance(document(text)) is None


# --- documents nobody tuned for: notice numbers, label words, headings over body text -----------------------


@pytest.mark.parametrize(
    "heading",
    ["Avis de marché n° 24-50113", "Avis d'appel d'offres n° 24-50113", "Contract notice no. 24-50113"],
)
def test_labelled_reference_beats_a_notice_number_heading(heading: str) -> None:
    """'Avis de marché n°' uses a reference label's words ('marché n°') but numbers the published notice."""
    page = f"{heading}\n\nObjet : Entretien des voiries\nNuméro de référence : VDX-2024-031\n"
    assert _grounded(identity.reference_number(document(page)), page).value == "VDX-2024-031"


def test_notice_number_heading_still_serves_when_nothing_else_does() -> None:
    page = "Avis de marché n° 24-50113\n\nObjet : Entretien des voiries\n"
    assert _grounded(identity.reference_number(document(page)), page).value == "24-50113"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Lieu d'exécution : Code NUTS FRK26\nTerritoire de la commune\n",
         "Code NUTS FRK26 Territoire de la commune"),
        ("Place of performance: NUTS code UKD33 Westford\n", "NUTS code UKD33 Westford"),
    ],
)
def test_place_opening_with_its_nuts_label_is_kept_whole(text: str, expected: str) -> None:
    assert _grounded(identity.place_of_performance(document(text)), text).value == expected


@pytest.mark.parametrize(
    "text", ["Lieu d'exécution : Code\n", "Place of performance: Town:\n", "Erfüllungsort: NUTS\n"]
)
def test_no_place_made_only_of_label_words(text: str) -> None:
    assert identity.place_of_performance(document(text)) is None


def test_title_heading_stops_before_the_wider_body_text() -> None:
    """A title wrapped in a larger font ends where a much wider line of body text begins."""
    page = (
        " Contract notice – WTN-2025/017\n"
        "\n"
        " Cleaning of municipal buildings and\n"
        " sports halls\n"
        " Framework agreement for the daily cleaning of offices, schools and sports halls, divided\n"
        " into three lots. Tenderers may bid for one or more lots.\n"
    )
    found = _grounded(identity.title(document(page)), page)
    assert found.value == "Cleaning of municipal buildings and sports halls"
    assert found.quote == "Cleaning of municipal buildings and\nsports halls"


def test_title_heading_paragraph_of_even_lines_is_not_cut() -> None:
    page = (
        " Contract notice – WTN-2025/017\n"
        "\n"
        " Cleaning of the municipal buildings, the\n"
        " sports halls and the public libraries of the town\n"
        "\n"
        " Framework agreement for the daily cleaning of offices, schools and sports halls.\n"
    )
    found = _grounded(identity.title(document(page)), page)
    assert found.value == "Cleaning of the municipal buildings, the sports halls and the public libraries of the town"


def test_title_without_the_specks_of_a_scan() -> None:
    page = "II.1.1) Bezeichnung des Auftrags: Sanierung der Turnhalle Nord,\nDacharbeiten \\ ;\n"
    assert _grounded(identity.title(document(page)), page).value == "Sanierung der Turnhalle Nord, Dacharbeiten"


@pytest.mark.parametrize("text", ["Subject: Invitation to\n", "Title: Supply of\n", "Objet : Fourniture des\n"])
def test_no_title_cut_after_a_linking_word(text: str) -> None:
    assert identity.title(document(text)) is None


def test_no_title_from_another_fields_label_run_into_the_value() -> None:
    """A scan ran two columns into one line: 'Title: Date of dispatch of this notice:' is no title."""
    page = "Title: Date of dispatch of this notice:\nCleaning of schools        17.02.2025\n"
    assert identity.title(document(page)) is None


def test_long_title_with_a_speck_of_a_scan_after_it() -> None:
    page = "II.1.1) Intitulé : Fourniture de repas en liaison froide pour les restaurants scolaires :\n"
    found = _grounded(identity.title(document(page)), page)
    assert found.value == "Fourniture de repas en liaison froide pour les restaurants scolaires"


def test_document_type_heading_with_specks_of_a_scan() -> None:
    page = (
        "Contract notice - WTN-2025/017 ;\n"
        "Cleaning of municipal buildings and\n"
        "sports halls\n"
        "\n"
        "Framework agreement for the daily cleaning of offices, schools and sports halls.\n"
    )
    assert _grounded(identity.title(document(page)), page).value == "Cleaning of municipal buildings and sports halls"
