"""The facts of the sample tenders and the words each language prints them with.

A `TenderFacts` is what a notice says (buyer, reference, deadline, value, CPV, procedure, title);
`NoticeWording` is how a language labels and formats those facts. Layouts combine the two, so the
same facts can be printed as an eForms notice, a letter or a bulletin in English, German or French,
and `TenderFacts.expected()` is the answer key an extractor is checked against.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Literal

Language = Literal["en", "de", "fr"]
# Codes from the eForms "procurement-procedure-type" code list, so the answer key is language-neutral.
ProcedureType = Literal["open", "restricted", "neg-w-call"]

EXPECTED_FIELDS = (
    "title",
    "buyer_name",
    "reference_number",
    "submission_deadline",
    "estimated_value_amount",
    "estimated_value_currency",
    "main_cpv_code",
    "procedure_type",
)


@dataclass(frozen=True)
class Lot:
    number: int
    title: str
    estimated_value: Decimal


@dataclass(frozen=True)
class AwardCriterion:
    name: str
    weight_percent: int


@dataclass(frozen=True)
class TenderFacts:
    """What one tender notice states. Texts are in the notice's language, exactly as printed."""

    language: Language
    title: str
    buyer_name: str
    buyer_department: str
    buyer_address: tuple[str, ...]
    buyer_email: str
    buyer_phone: str
    reference_number: str
    published: date
    deadline: datetime  # local time at the buyer
    estimated_value: Decimal  # excluding VAT
    currency: str  # ISO 4217
    cpv_code: str  # with its check digit, as printed: "45233140-2"
    cpv_label: str
    procedure: ProcedureType
    description: str
    duration_months: int
    place_of_performance: str
    lots: tuple[Lot, ...] = ()
    award_criteria: tuple[AwardCriterion, ...] = ()

    def expected(self) -> dict[str, str]:
        """The answer key: normalised values an extractor should find, keyed by EXPECTED_FIELDS."""
        return {
            "title": self.title,
            "buyer_name": self.buyer_name,
            "reference_number": self.reference_number,
            "submission_deadline": self.deadline.date().isoformat(),
            "estimated_value_amount": f"{self.estimated_value:.2f}",
            "estimated_value_currency": self.currency,
            "main_cpv_code": self.cpv_code,
            "procedure_type": self.procedure,
        }


@dataclass(frozen=True)
class NoticeWording:
    """Labels, stock sentences and number/date formats of one language."""

    language: Language
    tesseract_language: str
    notice_heading: str
    section_authority: str
    section_object: str
    section_procedure: str
    section_lots: str
    section_legal: str
    section_complementary: str
    name_and_addresses: str
    contract_type: str
    contract_type_names: dict[str, str]  # "works", "supplies", "services"
    contracting_authority: str
    official_name: str
    postal_address: str
    contact: str
    email: str
    phone: str
    title: str
    reference_number: str
    main_cpv: str
    short_description: str
    estimated_value: str
    value_excluding_vat: str
    currency: str
    excluding_vat: str
    duration: str
    months: str
    place_of_performance: str
    procedure_type: str
    procedure_names: dict[str, str]
    deadline: str
    deadline_long: str
    date_label: str
    local_time: str
    dispatch_date: str
    lot: str
    lot_title: str
    lot_value: str
    total: str
    award_criteria: str
    criterion: str
    weighting: str
    page: str
    bulletin_name: str
    participation_heading: str
    participation_text: str
    submission_heading: str
    submission_text: str
    review_heading: str
    review_text: str
    subject_prefix: str
    letter_subject: str
    letter_recipient: str
    letter_place_date_format: str  # str.format with {place} and {date}
    letter_salutation: str
    letter_intro: str
    letter_documents: str
    letter_closing: str
    letter_signature: tuple[str, ...]
    month_names: tuple[str, ...]
    colon: str  # French sets a space before the colon
    thousands_separator: str
    decimal_separator: str
    time_format: str  # str.format with {hour} and {minute}
    long_date_format: str  # str.format with {day}, {month_name}, {year}

    def label(self, text: str) -> str:
        """`text` followed by this language's colon: "Vergabenummer:", "Numéro de référence :"."""
        return f"{text}{self.colon}"

    def amount(self, value: Decimal) -> str:
        """`value` with this language's separators: 1,250,000.00 / 1.250.000,00 / 1 250 000,00."""
        grouped = f"{value:,.2f}"  # always "1,234.56" first, then swapped into place
        return grouped.replace(",", "\0").replace(".", self.decimal_separator).replace("\0", self.thousands_separator)

    def numeric_date(self, day: date) -> str:
        separator = "." if self.language == "de" else "/"
        return f"{day.day:02d}{separator}{day.month:02d}{separator}{day.year}"

    def long_date(self, day: date) -> str:
        return self.long_date_format.format(day=day.day, month_name=self.month_names[day.month - 1], year=day.year)

    def contract_type_name(self, cpv_code: str) -> str:
        """Works, supplies or services, from the CPV division (the code's first two digits)."""
        division = int(cpv_code[:2])
        if division == 45:
            kind = "works"
        elif division <= 44 or division == 48:
            kind = "supplies"
        else:
            kind = "services"
        return self.contract_type_names[kind]

    def time(self, moment: datetime) -> str:
        return self.time_format.format(hour=moment.hour, minute=moment.minute)


ENGLISH = NoticeWording(
    language="en",
    tesseract_language="eng",
    notice_heading="Contract notice",
    section_authority="Section I: Contracting authority",
    section_object="Section II: Object",
    section_procedure="Section IV: Procedure",
    section_lots="II.2) Description of the lots",
    section_legal="Section III: Legal, economic, financial and technical information",
    section_complementary="Section VI: Complementary information",
    name_and_addresses="I.1) Name and addresses",
    contract_type="Type of contract",
    contract_type_names={"works": "Works", "supplies": "Supplies", "services": "Services"},
    contracting_authority="Contracting authority",
    official_name="Official name",
    postal_address="Postal address",
    contact="Contact point",
    email="E-mail",
    phone="Telephone",
    title="Title",
    reference_number="Reference number",
    main_cpv="Main CPV code",
    short_description="Short description",
    estimated_value="Estimated total value",
    value_excluding_vat="Value excluding VAT",
    currency="Currency",
    excluding_vat="excluding VAT",
    duration="Duration of the contract",
    months="months",
    place_of_performance="Place of performance",
    procedure_type="Type of procedure",
    procedure_names={
        "open": "Open procedure",
        "restricted": "Restricted procedure",
        "neg-w-call": "Competitive procedure with negotiation",
    },
    deadline="Time limit for receipt of tenders or requests to participate",
    deadline_long="Time limit for receipt of tenders",
    date_label="Date",
    local_time="Local time",
    dispatch_date="Date of dispatch of this notice",
    lot="Lot",
    lot_title="Title of the lot",
    lot_value="Estimated value",
    total="Total",
    award_criteria="Award criteria",
    criterion="Criterion",
    weighting="Weighting",
    page="Page",
    bulletin_name="PUBLIC PROCUREMENT GAZETTE",
    participation_heading="Conditions for participation",
    participation_text=(
        "Tenderers must provide evidence of enrolment in a professional or trade register, a minimum "
        "yearly turnover of twice the estimated annual contract value over the last three financial "
        "years, and at least three references for comparable contracts completed in the last five years."
    ),
    submission_heading="Submission of tenders",
    submission_text=(
        "Tenders must be submitted electronically through the e-tendering portal. Tenders received "
        "after the time limit will not be considered. Tenderers remain bound by their tender for "
        "120 days. Questions must be asked through the portal at least ten days before the time limit."
    ),
    review_heading="Review procedures",
    review_text=(
        "Body responsible for review procedures: the High Court. A tenderer may seek review within "
        "30 days of being notified of the award decision."
    ),
    subject_prefix="Subject",
    letter_subject="Invitation to tender",
    letter_recipient="To all interested economic operators",
    letter_place_date_format="{place}, {date}",
    letter_salutation="Dear Sir or Madam,",
    letter_intro=(
        "The contracting authority named below invites tenders for the contract described in this "
        "letter. The essential information is summarised as follows:"
    ),
    letter_documents=(
        "The procurement documents are available free of charge on the e-tendering portal. Tenders "
        "must be submitted electronically before the time limit stated above."
    ),
    letter_closing="Yours faithfully,",
    letter_signature=("Procurement Officer",),
    month_names=(
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ),  # fmt: skip
    colon=":",
    thousands_separator=",",
    decimal_separator=".",
    time_format="{hour:02d}:{minute:02d}",
    long_date_format="{day} {month_name} {year}",
)

GERMAN = NoticeWording(
    language="de",
    tesseract_language="deu",
    notice_heading="Auftragsbekanntmachung",
    section_authority="Abschnitt I: Öffentlicher Auftraggeber",
    section_object="Abschnitt II: Gegenstand",
    section_procedure="Abschnitt IV: Verfahren",
    section_lots="II.2) Beschreibung der Lose",
    section_legal="Abschnitt III: Rechtliche, wirtschaftliche, finanzielle und technische Angaben",
    section_complementary="Abschnitt VI: Weitere Angaben",
    name_and_addresses="I.1) Name und Adressen",
    contract_type="Art des Auftrags",
    contract_type_names={"works": "Bauauftrag", "supplies": "Lieferauftrag", "services": "Dienstleistungen"},
    contracting_authority="Öffentlicher Auftraggeber",
    official_name="Offizielle Bezeichnung",
    postal_address="Postanschrift",
    contact="Kontaktstelle",
    email="E-Mail",
    phone="Telefon",
    title="Bezeichnung des Auftrags",
    reference_number="Vergabenummer",
    main_cpv="CPV-Code Hauptteil",
    short_description="Kurze Beschreibung",
    estimated_value="Geschätzter Gesamtwert",
    value_excluding_vat="Wert ohne MwSt.",
    currency="Währung",
    excluding_vat="ohne MwSt.",
    duration="Laufzeit des Vertrags",
    months="Monate",
    place_of_performance="Erfüllungsort",
    procedure_type="Verfahrensart",
    procedure_names={
        "open": "Offenes Verfahren",
        "restricted": "Nicht offenes Verfahren",
        "neg-w-call": "Verhandlungsverfahren mit Teilnahmewettbewerb",
    },
    deadline="Schlusstermin für den Eingang der Angebote oder Teilnahmeanträge",
    deadline_long="Schlusstermin für den Eingang der Angebote",
    date_label="Tag",
    local_time="Ortszeit",
    dispatch_date="Tag der Absendung dieser Bekanntmachung",
    lot="Los",
    lot_title="Bezeichnung des Loses",
    lot_value="Geschätzter Wert",
    total="Summe",
    award_criteria="Zuschlagskriterien",
    criterion="Kriterium",
    weighting="Gewichtung",
    page="Seite",
    bulletin_name="AMTSBLATT – ÖFFENTLICHE AUSSCHREIBUNGEN",
    participation_heading="Teilnahmebedingungen",
    participation_text=(
        "Die Bieter müssen die Eintragung in das Berufs- oder Handelsregister nachweisen, einen "
        "Mindestjahresumsatz in Höhe des doppelten geschätzten Jahresauftragswerts in den letzten drei "
        "Geschäftsjahren sowie mindestens drei Referenzen über vergleichbare Leistungen aus den "
        "letzten fünf Jahren vorlegen."
    ),
    submission_heading="Einreichung der Angebote",
    submission_text=(
        "Die Angebote sind ausschließlich elektronisch über die Vergabeplattform einzureichen. Nach "
        "Ablauf der Frist eingehende Angebote werden nicht berücksichtigt. Die Bindefrist endet 120 "
        "Tage nach dem Schlusstermin. Bieterfragen sind bis spätestens zehn Tage vor Fristablauf zu "
        "stellen."
    ),
    review_heading="Nachprüfungsverfahren",
    review_text=(
        "Zuständige Stelle für Nachprüfungsverfahren: Vergabekammer des Landes. Ein Nachprüfungsantrag "
        "ist unzulässig, soweit mehr als 15 Kalendertage nach Eingang der Mitteilung des "
        "Auftraggebers, einer Rüge nicht abhelfen zu wollen, vergangen sind."
    ),
    subject_prefix="Betreff",
    letter_subject="Öffentliche Ausschreibung",
    letter_recipient="An alle interessierten Unternehmen",
    letter_place_date_format="{place}, {date}",
    letter_salutation="Sehr geehrte Damen und Herren,",
    letter_intro=(
        "hiermit schreiben wir die nachstehend beschriebene Leistung öffentlich aus. Die wesentlichen "
        "Angaben zum Vergabeverfahren fassen wir wie folgt zusammen:"
    ),
    letter_documents=(
        "Die Vergabeunterlagen stehen auf der Vergabeplattform unentgeltlich zum Download bereit. "
        "Angebote sind bis zum oben genannten Schlusstermin elektronisch einzureichen."
    ),
    letter_closing="Mit freundlichen Grüßen",
    letter_signature=("Im Auftrag", "Zentrale Vergabestelle"),
    month_names=(
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ),  # fmt: skip
    colon=":",
    thousands_separator=".",
    decimal_separator=",",
    time_format="{hour:02d}:{minute:02d} Uhr",
    long_date_format="{day}. {month_name} {year}",
)

FRENCH = NoticeWording(
    language="fr",
    tesseract_language="fra",
    notice_heading="Avis de marché",
    section_authority="Section I : Pouvoir adjudicateur",
    section_object="Section II : Objet",
    section_procedure="Section IV : Procédure",
    section_lots="II.2) Description des lots",
    section_legal="Section III : Renseignements d'ordre juridique, économique, financier et technique",
    section_complementary="Section VI : Renseignements complémentaires",
    name_and_addresses="I.1) Nom et adresses",
    contract_type="Type de marché",
    contract_type_names={"works": "Travaux", "supplies": "Fournitures", "services": "Services"},
    contracting_authority="Pouvoir adjudicateur",
    official_name="Nom officiel",
    postal_address="Adresse postale",
    contact="Point de contact",
    email="Courriel",
    phone="Téléphone",
    title="Intitulé",
    reference_number="Numéro de référence",
    main_cpv="Code CPV principal",
    short_description="Description succincte",
    estimated_value="Valeur totale estimée",
    value_excluding_vat="Valeur hors TVA",
    currency="Monnaie",
    excluding_vat="HT",
    duration="Durée du marché",
    months="mois",
    place_of_performance="Lieu d'exécution",
    procedure_type="Type de procédure",
    procedure_names={
        "open": "Procédure ouverte",
        "restricted": "Procédure restreinte",
        "neg-w-call": "Procédure concurrentielle avec négociation",
    },
    deadline="Date limite de réception des offres ou des demandes de participation",
    deadline_long="Date limite de réception des offres",
    date_label="Date",
    local_time="Heure locale",
    dispatch_date="Date d'envoi du présent avis",
    lot="Lot",
    lot_title="Intitulé du lot",
    lot_value="Valeur estimée",
    total="Total",
    award_criteria="Critères d'attribution",
    criterion="Critère",
    weighting="Pondération",
    page="Page",
    bulletin_name="BULLETIN OFFICIEL DES ANNONCES DES MARCHÉS PUBLICS",
    participation_heading="Conditions de participation",
    participation_text=(
        "Les candidats produisent un extrait d'inscription au registre du commerce, une déclaration "
        "concernant le chiffre d'affaires global des trois derniers exercices et une liste des "
        "principales prestations similaires effectuées au cours des trois dernières années."
    ),
    submission_heading="Modalités de remise des offres",
    submission_text=(
        "Les offres sont transmises par voie électronique sur le profil d'acheteur. Les plis reçus "
        "après la date limite ne seront pas examinés. Délai de validité des offres : 120 jours à "
        "compter de la date limite de réception des offres."
    ),
    review_heading="Procédures de recours",
    review_text=(
        "Instance chargée des procédures de recours : tribunal administratif territorialement "
        "compétent. Référé précontractuel possible jusqu'à la signature du marché."
    ),
    subject_prefix="Objet",
    letter_subject="Avis d'appel public à la concurrence",
    letter_recipient="Aux entreprises intéressées",
    letter_place_date_format="{place}, le {date}",
    letter_salutation="Madame, Monsieur,",
    letter_intro=(
        "La collectivité désignée ci-dessous lance une consultation pour le marché décrit dans la "
        "présente lettre. Les informations essentielles sont les suivantes :"
    ),
    letter_documents=(
        "Le dossier de consultation des entreprises est téléchargeable gratuitement sur le profil "
        "d'acheteur. Les offres doivent être déposées par voie électronique avant la date limite."
    ),
    letter_closing=("Nous vous prions d'agréer, Madame, Monsieur, l'expression de nos salutations distinguées."),
    letter_signature=("Le Maire",),
    month_names=(
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ),  # fmt: skip
    colon=" :",
    thousands_separator=" ",
    decimal_separator=",",
    time_format="{hour:02d}h{minute:02d}",
    long_date_format="{day} {month_name} {year}",
)

WORDING: dict[Language, NoticeWording] = {"en": ENGLISH, "de": GERMAN, "fr": FRENCH}


# --- the sample tenders ------------------------------------------------------------------------
# Buyers, places and references are invented; CPV codes are real codes with their check digits.

ROADWORKS_EN = TenderFacts(
    language="en",
    title="Resurfacing and maintenance of county regional roads 2025-2027",
    buyer_name="Kilbrook County Council",
    buyer_department="Roads and Transportation Department",
    buyer_address=("County Buildings, Main Street", "Kilbrook Y35 K2F8", "Ireland"),
    buyer_email="roads.tenders@kilbrookcoco.ie",
    buyer_phone="+353 53 919 6000",
    reference_number="KCC-RD-2025-014",
    published=date(2025, 2, 3),
    deadline=datetime(2025, 3, 14, 12, 0),
    estimated_value=Decimal("4850000.00"),
    currency="EUR",
    cpv_code="45233140-2",
    cpv_label="Roadworks",
    procedure="open",
    description=(
        "Surface dressing, overlay and pavement repair of approximately 140 km of regional roads, "
        "including traffic management, road markings and the reinstatement of verges and drainage."
    ),
    duration_months=36,
    place_of_performance="NUTS code IE052 Kilbrook and surrounding districts",
)

SCHOOL_CLEANING_DE = TenderFacts(
    language="de",
    title="Unterhaltsreinigung der Schulgebäude der Stadt Lindenau",
    buyer_name="Stadt Lindenau",
    buyer_department="Amt für Gebäudemanagement",
    buyer_address=("Rathausplatz 1", "04319 Lindenau", "Deutschland"),
    buyer_email="vergabestelle@lindenau.de",
    buyer_phone="+49 341 555 2140",
    reference_number="VG-2025-0147",
    published=date(2025, 2, 17),
    deadline=datetime(2025, 4, 2, 10, 0),
    estimated_value=Decimal("1284500.00"),
    currency="EUR",
    cpv_code="90910000-9",
    cpv_label="Reinigungsdienste",
    procedure="open",
    description=(
        "Unterhalts-, Grund- und Glasreinigung von elf Schulgebäuden und zwei Sporthallen mit einer "
        "Reinigungsfläche von insgesamt rund 48.000 m² einschließlich Ferienreinigung."
    ),
    duration_months=24,
    place_of_performance="NUTS-Code DED51 Lindenau",
)

SCHOOL_CATERING_FR = TenderFacts(
    language="fr",
    title="Fourniture de repas en liaison froide pour les restaurants scolaires",
    buyer_name="Communauté d'agglomération du Pays de Vernelle",
    buyer_department="Direction de la commande publique",
    buyer_address=("12 rue de la République", "71000 Vernelle", "France"),
    buyer_email="marches.publics@agglo-vernelle.fr",
    buyer_phone="+33 3 85 21 40 00",
    reference_number="2025-CAPV-017",
    published=date(2025, 3, 24),
    deadline=datetime(2025, 5, 19, 12, 0),
    estimated_value=Decimal("2760000.00"),
    currency="EUR",
    cpv_code="55524000-9",
    cpv_label="Services de restauration scolaire",
    procedure="open",
    description=(
        "Confection et livraison en liaison froide d'environ 3 200 repas par jour scolaire pour les "
        "restaurants scolaires et les accueils de loisirs du territoire, dont 50 % de produits "
        "durables et de qualité."
    ),
    duration_months=48,
    place_of_performance="Code NUTS FRC13 Territoire de la communauté d'agglomération",
)

IT_EQUIPMENT_LOTS_EN = TenderFacts(
    language="en",
    title="Supply of IT equipment and related services for primary and lower secondary schools",
    buyer_name="Nordvik Municipality",
    buyer_department="Procurement Office",
    buyer_address=("Rådhusgata 4", "8006 Nordvik", "Norway"),
    buyer_email="innkjop@nordvik.kommune.no",
    buyer_phone="+47 75 55 50 00",
    reference_number="NVK-2025/0392",
    published=date(2025, 4, 28),
    deadline=datetime(2025, 6, 10, 12, 0),
    estimated_value=Decimal("18400000.00"),
    currency="NOK",
    cpv_code="30200000-1",
    cpv_label="Computer equipment and supplies",
    procedure="restricted",
    description=(
        "Framework agreement for laptops, interactive displays, network equipment and support "
        "services for 21 schools, divided into four lots. Tenderers may bid for one or more lots."
    ),
    duration_months=48,
    place_of_performance="NUTS code NO071 Nordvik",
    lots=(
        Lot(1, "Laptops and accessories for pupils and staff", Decimal("9200000.00")),
        Lot(2, "Interactive displays and installation", Decimal("4800000.00")),
        Lot(3, "Network switches and wireless access points", Decimal("2900000.00")),
        Lot(4, "Support, repair and device management services", Decimal("1500000.00")),
    ),
    award_criteria=(
        AwardCriterion("Price", 50),
        AwardCriterion("Quality of the offered equipment", 30),
        AwardCriterion("Delivery, support and service levels", 15),
        AwardCriterion("Environmental performance", 5),
    ),
)

DAYCARE_CONSTRUCTION_DE = TenderFacts(
    language="de",
    title="Neubau Kindertagesstätte Am Mühlbach, Rohbauarbeiten",
    buyer_name="Gemeinde Oberwalden",
    buyer_department="Bauamt",
    buyer_address=("Hauptstraße 12", "79872 Oberwalden", "Deutschland"),
    buyer_email="bauamt@oberwalden.de",
    buyer_phone="+49 7655 9310 22",
    reference_number="KITA-2025-0317",
    published=date(2025, 2, 21),
    deadline=datetime(2025, 3, 28, 11, 0),
    estimated_value=Decimal("3150000.00"),
    currency="EUR",
    cpv_code="45210000-2",
    cpv_label="Bauleistungen im Hochbau",
    procedure="open",
    description=(
        "Rohbauarbeiten für den Neubau einer sechsgruppigen Kindertagesstätte in Massivbauweise mit "
        "Erdarbeiten, Beton- und Stahlbetonarbeiten, Mauerarbeiten und Entwässerungskanälen."
    ),
    duration_months=14,
    place_of_performance="NUTS-Code DE139 Oberwalden",
)

GREEN_SPACES_FR = TenderFacts(
    language="fr",
    title="Entretien des espaces verts communaux",
    buyer_name="Commune de Bellerive-sur-Orne",
    buyer_department="Services techniques",
    buyer_address=("Place de la Mairie", "14320 Bellerive-sur-Orne", "France"),
    buyer_email="mairie@bellerive-sur-orne.fr",
    buyer_phone="+33 2 31 79 14 20",
    reference_number="BSO-2025-008",
    published=date(2025, 3, 10),
    deadline=datetime(2025, 4, 25, 17, 0),
    estimated_value=Decimal("420000.00"),
    currency="EUR",
    cpv_code="77310000-6",
    cpv_label="Services de plantation et d'entretien des espaces verts",
    procedure="restricted",
    description=(
        "Tonte, taille des haies et des arbustes, désherbage alternatif et entretien des massifs des "
        "parcs, cimetières et abords des bâtiments communaux, soit environ 18 hectares."
    ),
    duration_months=36,
    place_of_performance="Code NUTS FRD11 Bellerive-sur-Orne",
)

BUILDING_MAINTENANCE_EN = TenderFacts(
    language="en",
    title="Framework agreement for planned and reactive maintenance of public buildings",
    buyer_name="Eastfield City Council",
    buyer_department="Property and Facilities Management",
    buyer_address=("Civic Centre, Station Road", "Eastfield EF1 2CC", "United Kingdom"),
    buyer_email="procurement@eastfield.gov.uk",
    buyer_phone="+44 1632 960 410",
    reference_number="ECC-FM-2025-022",
    published=date(2025, 5, 12),
    deadline=datetime(2025, 7, 4, 12, 0),
    estimated_value=Decimal("12600000.00"),
    currency="GBP",
    cpv_code="50700000-2",
    cpv_label="Repair and maintenance services of building installations",
    procedure="neg-w-call",
    description=(
        "Planned preventive maintenance, statutory compliance testing and reactive repairs of "
        "mechanical, electrical and building fabric installations across 164 council properties."
    ),
    duration_months=60,
    place_of_performance="NUTS code UKE45 Eastfield",
    award_criteria=(
        AwardCriterion("Price", 40),
        AwardCriterion("Technical merit and methodology", 35),
        AwardCriterion("Social value", 15),
        AwardCriterion("Carbon reduction plan", 10),
    ),
)
