"""The offline reader of the buyer and its contacts (tenderflow/extraction/offline/contacts.py).

Fixtures are small page texts written here, laid out the way `pdftotext -layout` prints tenders: a
label with its value after a colon, in the next cell, on the next line, or a letterhead at the top of
the first page. Each negative context (help desk, review body, platform support, evaluator, DPO,
instructions URL...) has its own test, and so has abstention.
"""

from __future__ import annotations

import pytest

from tenderflow.extraction.offline.contacts import (
    buyer_address,
    buyer_email,
    buyer_name,
    buyer_phone,
    submission_url,
)
from tests.support.contact_readers import Reader, grounded, read

# --- buyer name: labels in many languages ------------------------------------------------------------------

BOAMP = """\
Avis d'appel public à la concurrence

- Nom et adresse officiels de l'organisme acheteur : Ville de Villeneuve.
Correspondant : M. le maire, 12 rue de la Mairie 59000 Villeneuve, tél. : 03-20-00-00-00, courriel :
marches@villeneuve.fr.
Adresse internet du profil d'acheteur : https://www.marches-publics.example/profil .
Principale(s) Activité(s) du pouvoir adjudicateur : Services généraux des administrations publiques.
"""

TED = """\
Section I: Contracting authority
I.1) Name and addresses
Official name: Stadtwerke Ostheim GmbH
Postal address: Hafenstraße 12
Town: Ostheim
Postal code: 12345
Country: Germany
E-mail: vergabe@stadtwerke-ostheim.de
Telephone: +49 30 1234567
I.3) Communication
Tenders or requests to participate must be submitted electronically via: https://www.dtvp.de/Center/xyz
"""


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (BOAMP, "Ville de Villeneuve"),
        (TED, "Stadtwerke Ostheim GmbH"),
        ("1. Öffentlicher Auftraggeber (Vergabestelle)\n   Name:    Landratsamt Nordkreis, Zentrale Vergabestelle\n",
         "Landratsamt Nordkreis, Zentrale Vergabestelle"),
        ("Entidad Adjudicadora\n Ayuntamiento de Villanueva del Río\n Tipo de Administración Autoridad local\n",
         "Ayuntamiento de Villanueva del Río"),
        ("I.1) STAZIONE APPALTANTE, DENOMINAZIONE, INDIRIZZI E PUNTI DI CONTATTO\n\n"
         "Comune di Roccaverde (PZ), Ufficio Tecnico - via Roma 5, 85100, Tel. 0971 123456\n",
         "Comune di Roccaverde (PZ)"),  # the organisation, without its office
        ("I.    NAZWA ORAZ ADRES ZAMAWIAJĄCEGO\n      GMINA MIASTO NOWE POLE\n      ul. Długa 1, 00-950 Nowe Pole\n",
         "GMINA MIASTO NOWE POLE"),
        ("Aanbestedende dienst:   Gemeente Zuidhaven\n", "Gemeente Zuidhaven"),
        ("Entidade adjudicante: Câmara Municipal de Vila Nova\n", "Câmara Municipal de Vila Nova"),
        ("Ministry/State Name          Ministry of Railways\n", "Ministry of Railways"),
        ("Agency / Division Name:     Department of Natural Resources/ Procurement\n",
         "Department of Natural Resources/ Procurement"),
        ("اسم الجهة: وزارة الصحة\n", "وزارة الصحة"),
    ],
)
def test_a_buyer_label_gives_the_name(page: str, expected: str) -> None:
    assert read(buyer_name, page) == expected


def test_a_sentence_naming_the_contracting_authority() -> None:
    page = "PREMESSE\nLa Stazione Appaltante delegante è il Comune di Montalto (AV);\n"
    assert read(buyer_name, page) == "Comune di Montalto (AV)"


def test_a_label_in_running_text_is_not_a_heading() -> None:
    page = "The Employer shall not be liable for any costs incurred by bidders.\n"
    assert read(buyer_name, page) is None
    page = "3. Employer's Liability with a minimum limit\n   Liability limits each of at least $1,000,000\n"
    assert read(buyer_name, page) is None


@pytest.mark.parametrize(
    "page",
    [
        "Type of contracting authority:   Regional or local authority\n",
        "Principale(s) Activité(s) du pouvoir adjudicateur : Services généraux des administrations publiques.\n",
        "Numéro de référence attribué au marché par le pouvoir adjudicateur / l'entité adjudicatrice :\nMA20X01\n",
        "b) Zuschlag erteilende Stelle\n   Wie Hauptauftraggeber siehe a)\n\n2. Angaben zum Verfahren\n",
        "Buyer:   Jane Doe\n",
        "Nom de l'acheteur : ..............................\n",
    ],
)
def test_other_fields_and_placeholders_are_no_buyer_name(page: str) -> None:
    assert read(buyer_name, page) is None


def test_a_definition_names_the_buyer() -> None:
    page = "1.1 Definitions\n    “Owner” is Pinecrest County.\n    “Proponent” is the company that submits.\n"
    assert read(buyer_name, page) == "Pinecrest County"


def test_letterhead_of_an_organisation() -> None:
    page = "                     NORTH VALLEY WATER BOARD\n\n\n       REQUEST FOR PROPOSALS NO. 2024-03\n"
    assert read(buyer_name, page) == "NORTH VALLEY WATER BOARD"


def test_letterhead_prefers_the_department_under_the_government() -> None:
    page = "OFFICIAL\nGovernment of Eastern Province\nDepartment of Health and Wellbeing\n\nRequest for Tender\n"
    assert read(buyer_name, page) == "Department of Health and Wellbeing"


def test_letterhead_return_address_of_a_german_letter() -> None:
    page = "Für Mensch & Umwelt\n\nBundesamt für Beispiele | Postfach 1406 | 06813 Musterstadt\n\nAnschreiben\n"
    assert read(buyer_name, page) == "Bundesamt für Beispiele"


def test_a_title_is_not_a_letterhead() -> None:
    page = "REQUEST FOR PROPOSAL\nProfessional Engineering Services for the Harbour Area\n\nClosing date: ...\n"
    assert read(buyer_name, page) is None


def test_a_value_standing_above_its_centred_label() -> None:
    page = (
        "Vergabenummer: 12/2024\n\n"
        "                                   Leibniz-Institut für Beispielforschung\n"
        "                                   vertreten durch Herrn Dr. Muster\n"
        "     auffordernde Stelle:          Beispielstraße 62\n"
        "                                   24118 Kiel\n"
    )
    assert read(buyer_name, page) == "Leibniz-Institut für Beispielforschung"


def test_the_name_is_grounded_in_its_quote() -> None:
    page = "Issued by:\nThe State of Southland acting through Department of the\nPremier and Cabinet\n"
    found = grounded(buyer_name, page)
    assert found is not None and found.value.endswith("Premier and Cabinet")


# --- e-mail --------------------------------------------------------------------------------------------------


def test_email_in_the_buyer_block() -> None:
    assert read(buyer_email, TED) == "vergabe@stadtwerke-ostheim.de"


def test_email_whose_at_sign_text_extraction_dropped() -> None:
    assert read(buyer_email, BOAMP) == "marches@villeneuve.fr"
    page = ("- Nom et adresse officiels de l'organisme acheteur : Ville de Nord.\n"
            "Correspondant : M. X, 1 rue Haute 59000 Nord, tél. : 03-20-00-00-00, courriel : achats ville-nord.fr.\n")
    assert read(buyer_email, page) == "achats@ville-nord.fr"


def test_a_word_after_an_email_label_is_not_an_email() -> None:
    assert read(buyer_email, "Correspondant : M. X, courriel : voir le règlement de consultation.\n") is None


def test_email_split_over_two_table_lines() -> None:
    page = (
        "Agency POC Email               jdoe@treasury.state.md   Agency POC         N/A\n"
        "Address:                       .us                      Fax:\n"
    )
    assert read(buyer_email, page) == "jdoe@treasury.state.md.us"
    assert grounded(buyer_email, page) is not None


@pytest.mark.parametrize(
    "page",
    [
        "Assistance in using the ASSIST application may be obtained via email at help.desk@agency.gov or by calling.\n",
        "Instance chargée des procédures de recours : Tribunal administratif de Nord, courriel : greffe@juradm.fr.\n",
        "Inspektor ochrony danych osobowych: e-mail: iod@szpital.example.pl, telefon 86 47 33 606,\n",
        "Bei technischen Problemen wenden Sie sich an den Support des Betreibers: support@plattform.example.de\n",
        "1. Email invoices to:\n   accountspayable@agency.example.gov\n",
        "Evaluadores\nEvaluador    Nombre        Oficina     Email\n 1   Ana Pérez   Compras   aperez@x.gov.ar\n",
    ],
)
def test_other_parties_emails_are_refused(page: str) -> None:
    assert read(buyer_email, page) is None


def test_an_unlabelled_email_in_running_text_is_not_enough() -> None:
    assert read(buyer_email, "Page 7\nThe report was prepared with input from j.smith@consult.example.com.\n") is None


# --- phone ---------------------------------------------------------------------------------------------------


def test_labelled_phone_in_the_buyer_block() -> None:
    assert read(buyer_phone, TED) == "+49 30 1234567"


def test_phone_wrapped_onto_the_next_line() -> None:
    page = ("- Nom et adresse officiels de l'organisme acheteur : Ville de Nord.\n"
            "Correspondant : M. X, 1 rue Haute 59000 Nord, tél. : 03-27-21-87-\n"
            "01, courriel : achats@ville-nord.fr.\n")
    assert read(buyer_phone, page) == "03-27-21-87-01"
    assert grounded(buyer_phone, page) is not None


def test_unlabelled_phone_next_to_the_buyers_email() -> None:
    page = (
        "AUTHORIZED CONTACT:\n"
        "                                  Jane Roe, Director\n"
        "                                   Lakeside Water Board\n"
        "                                       100 Shore Avenue\n"
        "                                 Lakeside, New York 14000\n"
        "                                     (716) 555-0100 x 22\n"
        "                                    jroe@lwb.example.org\n"
    )
    assert read(buyer_phone, page) == "(716) 555-0100 x 22"


def test_fax_and_help_line_are_not_the_buyers_phone() -> None:
    assert read(buyer_phone, "Contact person: Jane Roe\nFax: +44 20 7946 0000\n") is None
    page = "Advice on Using Tenders Online:\nName:         Procurement Systems Support\nTelephone: (08) 6551 2020\n"
    assert read(buyer_phone, page) is None
    page = "Tribunal administratif de Nord 6 rue X 59000 Lille, tél. : 03-20-11-11-11, courriel : greffe@juradm.fr.\n"
    assert read(buyer_phone, page) is None


def test_a_number_without_a_phone_label_is_not_a_phone() -> None:
    assert read(buyer_phone, "Procurement Officer: Jane Roe\nCUIT 30999007046\nExpediente 2026-00055381\n") is None


# --- address -------------------------------------------------------------------------------------------------


def test_address_from_form_fields() -> None:
    assert read(buyer_address, TED) == "Hafenstraße 12"  # the form puts town and postcode on their own lines


def test_address_in_the_correspondent_line() -> None:
    assert read(buyer_address, BOAMP) == "12 rue de la Mairie 59000 Villeneuve"


def test_address_under_the_buyers_name() -> None:
    page = (
        "The designated contact person for this Request for Proposals is:\n"
        "                                   Lakeside Water Board\n"
        "                                       100 Shore Avenue\n"
        "                                 Lakeside, New York 14000\n"
    )
    assert read(buyer_address, "                     LAKESIDE WATER BOARD\n\nRFP 2024-1\n", page) == \
        "100 Shore Avenue Lakeside, New York 14000"


def test_address_wrapped_on_a_hyphen() -> None:
    page = ("- Nom et adresse officiels de l'organisme acheteur : CCI des Iles.\n"
            "Correspondant : Mme X, CCI des Iles, rue Félix Eboué 97159 Pointe-\n"
            "à-Pitre Cedex, tél. : 05-90-93-76-27.\n")
    assert read(buyer_address, page) == "rue Félix Eboué 97159 Pointe-à-Pitre Cedex"
    assert grounded(buyer_address, page) is not None


def test_meeting_place_and_po_box_are_not_the_buyers_address() -> None:
    page = ("                     LAKESIDE WATER BOARD\n\nA mandatory pre-proposal session will be held at the Plant,\n"
            "1201 Shore Avenue, Lakeside, NY 14000 on Tuesday.\n")
    assert read(buyer_address, page) is None


def test_a_po_box_is_the_address_only_without_a_street() -> None:
    letter = "Bundesamt für Beispiele | Postfach 1406 | 06813 Musterstadt\n\nAngebot\n"
    assert read(buyer_address, letter) == "Postfach 1406 | 06813 Musterstadt"
    sidebar = "\n\nBundesamt für Beispiele\nBeispielplatz 1\n\n06844 Musterstadt\n"
    assert read(buyer_address, letter + sidebar) == "Beispielplatz 1 06844 Musterstadt"
    page = "Telephone: +254 (20) 6536028/6555288 P.O. Box 30586-00100\nWebsite: www.example.co.ke NAIROBI\n"
    assert read(buyer_address, page) == "P.O. Box 30586-00100"


def test_review_body_address_is_refused() -> None:
    page = ("Instance chargée des procédures de recours : Tribunal administratif de Nord 6 rue Victor Hugo\n"
            "59000 Lille, courriel : greffe@juradm.fr.\n")
    assert read(buyer_address, page) is None


# --- submission URL ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (TED, "https://www.dtvp.de/Center/xyz"),
        ("Adresse à laquelle les offres/candidatures doivent être envoyés :\nadresse internet :\n"
         "https://www.achatpublic.example/ent_detail.do?id=1\n", "https://www.achatpublic.example/ent_detail.do?id=1"),
        ("The Respondent may submit their Offer electronically by uploading file(s) in an\n"
         "approved format at www.tenders.example.gov.au.\n", "www.tenders.example.gov.au"),
        ("Die Teilnahmeanträge sind in elektronischer Form über das e-Ver-\n"
         "gabesystem (https://www.e-vergabe.example.de) einzu-\nreichen.\n", "https://www.e-vergabe.example.de"),
        ("Per poter presentare offerta è necessario accedere alla piattaforma https://gare.example.it/\n",
         "https://gare.example.it/"),
        ("Składanie ofert następuje za pośrednictwem platformy MINIPORTAL.\n\n"
         "Identyfikator postępowania (miniportal: https://miniportal.example.gov.pl/):\n",
         "https://miniportal.example.gov.pl/"),
        ("Las proposiciones se presentarán a través de la Plataforma: https://contratacion.example.es/licitar\n",
         "https://contratacion.example.es/licitar"),
    ],
)
def test_submission_url(page: str, expected: str) -> None:
    assert read(submission_url, page) == expected


@pytest.mark.parametrize(
    "page",
    [
        "Instructions on how to submit proposals electronically can be found\n"
        "at: https://procurement.example.gov/qrgs/\n",
        "Adresse auprès de laquelle les documents peuvent être obtenus :\n"
        "adresse internet :\nhttps://docs.example.fr/x\n",
        "Wie Sie sich an der e-Vergabe registrieren, erfahren Sie unter https://www.evergabe.example.info/.\n",
        "8. The Contractor must provide a Mercury Affidavit:\n   https://doit.example.gov/hwmercury_affidavit.pdf\n",
        "A list of proposals received will be posted to the website at\nhttps://board.example.org/procurements/.\n",
        "URL DE VERIFICACIÓN   https://sede.example.es/verificacion\n",
        "contractors must use ITSS at https://portal.example.gov to submit invoices.\n",
    ],
)
def test_information_pages_are_not_the_submission_url(page: str) -> None:
    assert read(submission_url, page) is None


def test_the_url_is_grounded() -> None:
    assert grounded(submission_url, TED) is not None


# --- abstention ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reader", [buyer_name, buyer_email, buyer_phone, buyer_address, submission_url])
def test_an_addendum_without_contacts_gives_nothing(reader: Reader) -> None:
    page = (
        "OFFICIAL\n                   Addendum to Request Documents\n"
        "                   Request No.: DPC2142\n                   Date of issue: 19 August 2025\n\n"
        "Item 1   Query    Is certification mandatory?\n         Response Full certification is preferred.\n"
    )
    assert read(reader, page) is None


EFORMS = """\
1. Buyer
1.1. Buyer
Official name: Ministère des Armées
Legal type of the buyer: Ministry or any other national or federal authority
5.1.11. Procurement documents
Address of the procurement documents: https://www.marches-publics.example.fr/consultation/1
5.1.12. Submission
Electronic submission: Required
Address for submission: https://www.marches-publics.example.fr/depot/1
8. Organisations
8.1. ORG-0001
Official name: Ministère des Armées
Registration number: 11009001600053
Postal address: 60 boulevard du Général Valin
Town: Paris
Postcode: 75015
Email: achats@armees.example.fr
Telephone: +33 1 23 45 67 89
"""


def test_an_eforms_notice() -> None:
    assert read(buyer_name, EFORMS) == "Ministère des Armées"
    assert read(buyer_email, EFORMS) == "achats@armees.example.fr"
    assert read(buyer_phone, EFORMS) == "+33 1 23 45 67 89"
    assert read(buyer_address, EFORMS) == "60 boulevard du Général Valin"
    assert read(submission_url, EFORMS) == "https://www.marches-publics.example.fr/depot/1"


def test_an_eforms_buyer_heading_names_the_buyer_only_over_its_name_field() -> None:
    page = "1. Nabywca\n1.1. Nabywca\nOficjalna nazwa: Gmina Miasta Toruń\nE-mail: zamowienia@torun.example.pl\n"
    assert read(buyer_name, page) == "Gmina Miasta Toruń"
    # the same words are a contract party's role elsewhere: no buyer label there
    assert read(buyer_name, "Contrato de compraventa\nComprador: Construcciones Pérez S.L.\n") is None
    assert read(buyer_name, "Contrato de compraventa\nComprador\nConstrucciones Pérez S.L.\n") is None
    assert read(buyer_name, "Ugovor o kupoprodaji\n\nKupac:    Trgovina Horvat d.o.o.\n") is None


def test_a_toc_entry_is_no_name() -> None:
    assert read(buyer_name, "2. Contracting Authority ........................................ 5\n") is None


def test_a_persons_name_after_a_person_prone_label_is_refused() -> None:
    assert read(buyer_name, "Client:   John Smith\n") is None
    assert read(buyer_name, "Client:   Ministry of Water and Sanitation\n") == "Ministry of Water and Sanitation"


# --- phase 2: invitations, forms of Indian portals, address blocks, other parties' headings --------------------


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("2.    The Southern Centres for Disease Control (SCDC) now invites sealed\n      Bids from eligible Bidders\n",
         "Southern Centres for Disease Control (SCDC)"),
        ("A      The APEC Secretariat is seeking proposals for the provision of the Services\n", "APEC Secretariat"),
        ("of the above captioned tender, National Grain Board hereby\namends the following parts:\n",
         "National Grain Board"),
        ("تسعى جامعة الملك عبدالعزيز متمثلة بعمادة تقنية المعلومات الى عمل صيانة\n", "جامعة الملك عبدالعزيز"),
    ],
)
def test_the_organisation_that_invites_is_the_buyer(page: str, expected: str) -> None:
    assert read(buyer_name, page) == expected


def test_a_sentence_subject_must_be_a_capitalised_organisation() -> None:
    assert read(buyer_name, "The Government are invited to comment; the bidder hereby\nconfirms the offer.\n") is None


GEM = """\
                                             बिड विवरण/Bid Details
मंत्रालय/राज्य का नाम /Ministry/State Name           Ministry Of Heavy Industries

विभाग का नाम /Department Name                      Department Of Heavy Industry

संगठन का नाम /Organisation Name                   Bharat Example Limited (bel)

कार्यालय का नाम /Office Name                        Plant Ranipet
"""


def test_gem_prefers_the_organisation_to_its_ministry() -> None:
    assert read(buyer_name, GEM) == "Bharat Example Limited (bel)"


def test_the_last_link_of_an_organisation_chain() -> None:
    page = "Basic Details\nOrganisation Chain National Project Unit - World Bank||EXAMPLE COLLEGE OF TECHNOLOGY\n"
    assert read(buyer_name, page) == "EXAMPLE COLLEGE OF TECHNOLOGY"


def test_an_acronym_the_document_keeps_using() -> None:
    page = ("Créée en 1973, la Banque\nOuest Africaine de Développement (BADX) est une institution.\n"
            "La BADX recrute. La BADX publie. La BADX paie. La BADX choisit. La BADX signe.\n")
    assert read(buyer_name, page) == "Banque Ouest Africaine de Développement (BADX)"
    assert read(buyer_name, page.replace("La BADX choisit. La BADX signe.", "")) is None  # four uses are too few


def test_an_arabic_form_label() -> None:
    assert read(buyer_name, "إسم الإدارة : شركة المثال للتقنيات تاريخ الإصدار :\n") == "شركة المثال للتقنيات"


def test_address_block_under_a_heading() -> None:
    page = (
        "9.   The address(es) referred to above is (are):\n\n"
        "     Mr. John Doe\n"
        "     Example Centres for Disease Control,\n"
        "     Lafto Square, Haile Garment,\n"
        "     Example Office, A2 Tower, 7th floor, Room No. 708\n"
        "     E-mail: tender@example.org\n"
    )
    # The first line names the buyer itself (read as its name here), so the address starts after it.
    assert read(buyer_address, page) == "Lafto Square, Haile Garment, Example Office, A2 Tower, 7th floor, Room No. 708"


def test_address_block_under_the_buyers_name_with_a_po_box() -> None:
    page = (
        "Completed tender document(s) shall be sealed and addressed to:-\n"
        "                                                The Managing Director\n"
        "                                          National Grain Board\n"
        "                                                  Nyumba ya Mfano\n"
        "                                              Machakos/Enterprise Roads\n"
        "                                                 P.O BOX 30586-00100\n"
        "                                                       NAIROBI\n"
    )
    assert read(buyer_address, page) == \
        "National Grain Board Nyumba ya Mfano Machakos/Enterprise Roads P.O BOX 30586-00100 NAIROBI"


def test_address_in_a_sentence() -> None:
    page = ("The Bank’s office premises and postal\naddress is 1521 Cadastral Zone A0, Off Memorial Close, Beside\n"
            "Silverbird Galleria, Central Business District, Abuja.\n")
    assert read(buyer_address, page) == \
        "1521 Cadastral Zone A0, Off Memorial Close, Beside Silverbird Galleria, Central Business District, Abuja"


def test_address_after_the_buyers_name_in_a_sentence() -> None:
    page = ("          BANK OF EXAMPLE\n\nTenders are to be submitted to the Bank of Example, Zonal Office, 849,\n"
            "Awasthi Complex, Shahjahanpur Road, Hardoi 241001 in a sealed envelope.\n")
    assert read(buyer_address, page) == "Zonal Office, 849, Awasthi Complex, Shahjahanpur Road, Hardoi 241001"


def test_a_labelled_address_without_a_postcode() -> None:
    page = "Address: Mirzo Ulugbek district, Dormon yuli str., 3-5 Tashkent, Uzbekistan\nTelephone: +998 55 5036015\n"
    assert read(buyer_address, page) == "Mirzo Ulugbek district, Dormon yuli str., 3-5 Tashkent, Uzbekistan"


def test_a_section_reference_is_no_po_box() -> None:
    page = "EXCMO AYUNTAMIENTO DE EJEMPLO\n\nque figura en el apartado 7 del Anexo I.\nCláusula 7. Presupuesto base.\n"
    assert read(buyer_address, page) is None


def test_phone_forms() -> None:
    assert read(buyer_phone, "     Telephone: +99855 503-60-15 (253)\n") == "+99855 503-60-15 (253)"
    page = "Telephone: +254 (20) 6536028/6555288                                P.O. Box 30586-00100\n"
    assert read(buyer_phone, page + "E-mail: info@example.co.ke\n") == "+254 (20) 6536028/6555288"
    page = "    Contact No.                             +91 77427 73333\n    Email ID          a.b@example.in\n"
    assert read(buyer_phone, page) == "+91 77427 73333"


def test_a_support_desk_heading_makes_the_contacts_below_another_partys() -> None:
    page = ("16) SUPPORT DESK: In case of any clarification pertaining to E-Procurement Process, the Bidder may\n"
            "    contact the provider on Contact Numbers and E-Mail Ids, as appended below.\n    All India\n\n"
            "    Phone                    +91 79 4001 6868, +91 93745 19729\n")
    assert read(buyer_phone, page) is None


def test_a_footer_phone_of_the_buyer() -> None:
    page = ("                   BANQUE EXEMPLE DE DEVELOPPEMENT\n\n              APPEL D'OFFRES PUBLIC\n\n\n"
            "         55, avenue Kléber • F-75116 PARIS • Tél : +33 (0)1 47 55 55 00 • Fax : +33 (0)1 47 55 55 76\n")
    assert read(buyer_phone, page) == "+33 (0)1 47 55 55 00"


def test_email_continuing_a_sentence_from_the_line_above() -> None:
    page = "Bidders who download the tender document shall email their company’s details to\nsupplies@example.co.ke\n"
    assert read(buyer_email, page) == "supplies@example.co.ke"


@pytest.mark.parametrize(
    "page",
    [
        "                                Any corrigendum will be uploaded on\n"
        "                               Banks website-www.bankofexample.com\n",
        "    1. The bid documents are on the Bank’s website,\n"
        "     http://www.example.org/en/about-us/corporateprocurement/\n",
        "            Date limite de remise des offres : 25 février 2025, à 12h00\n\n\n"
        "         55, avenue Kléber • F-75116 PARIS\n                                   www.example-bank.org\n",
    ],
)
def test_publication_pages_are_not_the_submission_url(page: str) -> None:
    assert read(submission_url, page) is None


def test_french_deposit_platform() -> None:
    page = ("Les dossiers d’offre devront être déposés sur la plateforme dématérialisée accessible à\n"
            "l’adresse suivante : https://example.e-marchespublics.com\n")
    assert read(submission_url, page) == "https://example.e-marchespublics.com"


# --- buyer name: section headings side by side, official-name fields ----------------------------------------


def test_section_heading_takes_no_value_from_the_next_columns_heading() -> None:
    """'Section I: Contracting authority' beside 'Review procedures': the right cell heads the other column."""
    page = (
        " Section I: Contracting authority              Review procedures\n"
        " Official name: Borough of Redmoor              Body responsible for review procedures:\n"
        " Postal address: 1 High Street, Redmoor         the High Court\n"
    )
    assert grounded(buyer_name, page) is not None
    assert read(buyer_name, page) == "Borough of Redmoor"


def test_section_heading_right_cell_needs_an_organisation() -> None:
    page = (
        " Section I: Contracting authority              Further information\n"
        " Borough of Redmoor                             The review body is the High Court.\n"
    )
    assert read(buyer_name, page) == "Borough of Redmoor"


def test_key_value_row_still_takes_the_right_cell() -> None:
    page = " Contracting authority        Town of Eastbury\n Reference number             EB-2025-01\n"
    assert read(buyer_name, page) == "Town of Eastbury"


def test_official_name_wrapped_in_its_column_beside_another_column() -> None:
    page = (
        " Section I : Pouvoir adjudicateur                 Procédures de recours\n"
        " Nom officiel : Syndicat intercommunal            Instance chargée des recours :\n"
        " des eaux de la Vallée                            tribunal administratif de Lyon\n"
        " Adresse postale : 3 place du Marché, 69000 Lyon\n"
    )
    found = grounded(buyer_name, page)
    assert found is not None and found.value == "Syndicat intercommunal des eaux de la Vallée"


def test_german_official_name_field_under_the_section_heading() -> None:
    page = (
        "Abschnitt I: Öffentlicher Auftraggeber\n"
        "I.1) Name und Adressen\n"
        "Offizielle Bezeichnung: Landkreis Auental\n"
        "Postanschrift: Ringstraße 4, 12345 Auental\n"
    )
    assert read(buyer_name, page) == "Landkreis Auental"


def test_name_does_not_run_on_into_the_next_field() -> None:
    page = "Section I: Contracting authority\nOfficial name: Borough of Redmoor\nde minimis aid: not applicable\n"
    assert read(buyer_name, page) == "Borough of Redmoor"


def test_french_section_heading_with_a_space_before_its_colon() -> None:
    """'Section I : Pouvoir adjudicateur' (French typography) heads the section like 'Section I: …'."""
    page = (
        " Section I : Pouvoir adjudicateur\n"
        " I.1) Nom et adresses\n"
        " Nom officiel : Syndicat mixte des transports du Val\n"
        " Adresse postale : 3 place du Marché, 69000 Lyon\n"
    )
    assert read(buyer_name, page) == "Syndicat mixte des transports du Val"


@pytest.mark.parametrize(
    "heading",
    ["Section |: Contracting authority", "Section I: Contracting authority.", "Section I: ‚Contracting authority ~"],
)
def test_section_heading_as_a_scan_reads_it(heading: str) -> None:
    """OCR reads the roman I as '|' and leaves specks around a heading: it still heads the buyer's section."""
    page = f"{heading}\n\nI.1) Name and addresses\n\n- Official name: Port Authority of Westhaven\n"
    assert read(buyer_name, page) == "Port Authority of Westhaven"


def test_a_title_ending_with_an_organisation_is_not_a_letterhead() -> None:
    """'Reinigung der Schulgebäude der Stadt': something of the city, not the city."""
    page = "Unterhaltsreinigung der Schulgebäude der Stadt\nLindenau\n\nStadt Lindenau - Amt für Schulen\n\nText.\n"
    assert read(buyer_name, page) == "Stadt Lindenau - Amt für Schulen"


def test_a_submission_field_is_read_from_its_own_label_not_the_fields_above() -> None:
    """eForms prints one field a line: the question deadline's 'additional information' above the submission
    address is another field, not the URL's sentence."""
    page = (
        "Deadline for requesting additional information: 04/03/2025 12:00:00 (UTC+01:00)\n"
        "Deadline for receipt of tenders: 14/03/2025 12:00:00 (UTC+01:00)\n"
        "Address for submission: https://tenders.example.eu/procedure/117\n"
    )
    assert read(submission_url, page) == "https://tenders.example.eu/procedure/117"


@pytest.mark.parametrize(
    "page",
    [
        "Tenders are not submitted here. Read the notice at: https://tenders.example.eu/notice/117\n",
        "Address for additional information: https://tenders.example.eu/info/117\n",
    ],
)
def test_a_field_label_that_is_no_submission_address_gives_no_url(page: str) -> None:
    assert read(submission_url, page) is None
