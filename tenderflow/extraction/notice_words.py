"""The words the label reader (tenderflow.extraction.rules) knows, in English, German and French: each
field's labels, the titles of the notice types, and the words that name a procedure, a contract's main
category, a duration's unit and a country. Labels are written as printed (rules.py makes them
tolerant of case, spacing, accents and OCR); the other words as `notice_values.fold` folds them.
"""

from __future__ import annotations

from typing import Final

from tenderflow.extraction.schema import DurationUnit, MainCategory, NoticeType, ProcedureType

LABEL_TEXTS: Final[dict[str, tuple[str, ...]]] = {
    "buyer.name": (
        "Official name", "Name of the contracting authority", "Name of the buyer", "Contracting authority",
        "Offizielle Bezeichnung", "Öffentlicher Auftraggeber", "Name des Auftraggebers", "Vergabestelle",
        "Nom officiel", "Pouvoir adjudicateur", "Nom de l'acheteur", "Acheteur",
    ),
    "buyer.country": ("Country", "Land", "Staat", "Pays"),
    "buyer.email": (
        "E-mail", "Email address", "E-Mail-Adresse", "Courriel", "Adresse électronique", "Adresse e-mail"
    ),
    "buyer.phone": ("Telephone", "Phone", "Tel.", "Telefon", "Téléphone", "Tél."),
    "buyer.address": (
        "Postal address", "Address", "Postanschrift", "Anschrift", "Adresse postale", "Adresse"
    ),
    "title": (
        "Title", "Title of the contract", "Contract title", "Titel", "Bezeichnung des Auftrags", "Bezeichnung",
        "Titre", "Intitulé", "Intitulé du marché", "Objet du marché",
    ),
    "reference_number": (
        "Reference number", "Reference No.", "Reference", "File reference", "Aktenzeichen", "Vergabenummer",
        "Vergabe-Nr.", "Referenznummer", "Numéro de référence", "Référence du marché", "Référence",
    ),
    "procedure_type": ("Type of procedure", "Procedure type", "Verfahrensart", "Art des Verfahrens",
                       "Type de procédure"),
    "main_category": (
        "Type of contract", "Main nature of the contract", "Art des Auftrags", "Auftragsart", "Type de marché",
        "Nature du marché",
    ),
    "estimated_value": (
        "Estimated total value", "Estimated value", "Estimated contract value", "Total value of the procurement",
        "Geschätzter Gesamtwert", "Geschätzter Wert", "Geschätzter Auftragswert", "Valeur totale estimée",
        "Valeur estimée", "Montant estimé",
    ),
    "submission_deadline": (
        "Time limit for receipt of tenders or requests to participate", "Time limit for receipt of tenders",
        "Deadline for receipt of tenders", "Deadline for submission of tenders", "Tender submission deadline",
        "Submission deadline", "Schlusstermin für den Eingang der Angebote oder Teilnahmeanträge",
        "Schlusstermin für den Eingang der Angebote", "Frist für den Eingang der Angebote", "Ablauf der Angebotsfrist",
        "Angebotsfrist", "Date limite de réception des offres ou des demandes de participation",
        "Date limite de réception des offres", "Date limite de remise des offres", "Date limite de dépôt des offres",
    ),
    "questions_deadline": (
        "Time limit for questions", "Deadline for questions", "Deadline for clarification requests",
        "Time limit for requests for additional information", "Questions must be submitted by",
        "Frist für Rückfragen", "Frist für Fragen", "Fragen sind bis", "Bieterfragen bis", "Rückfragen bis",
        "Date limite pour les questions", "Date limite de réception des questions",
        "Date limite des demandes de renseignements", "Questions jusqu'au",
    ),
    "place_of_performance": (
        "Main site or place of performance", "Place of performance", "NUTS code", "Erfüllungsort",
        "Hauptort der Ausführung", "Ort der Leistungserbringung", "NUTS-Code", "Lieu principal d'exécution",
        "Lieu d'exécution", "Code NUTS",
    ),
    "contract_duration": (
        "Duration in months", "Duration in days", "Duration of the contract", "Contract duration",
        "Laufzeit in Monaten", "Laufzeit in Tagen", "Laufzeit des Vertrags", "Vertragslaufzeit",
        "Durée en mois", "Durée en jours", "Durée du marché", "Durée du contrat",
    ),
    "award_criteria": ("Award criteria", "Criteria for the award", "Zuschlagskriterien", "Critères d'attribution"),
    "submission_url": (
        "Tenders or requests to participate must be submitted electronically via", "Tenders must be submitted",
        "Electronic submission", "Submission URL", "Address for submission", "Angebote sind elektronisch einzureichen",
        "Elektronische Angebotsabgabe", "Einreichung der Angebote", "Die Angebote sind", "Remise des offres",
        "Dépôt des offres", "Adresse de dépôt", "Les offres doivent être déposées",
    ),
    # Labels read only so that a longer label wins over a shorter one above ("Adresse internet" is
    # not the postal "Adresse"); nothing is extracted from them.
    "ignored": (
        "Internet address", "Main address", "Address of the buyer profile", "Internet-Adresse", "Hauptadresse",
        "Adresse internet", "Adresse URL", "Adresse du profil d'acheteur", "Reference to the",
    ),
}  # fmt: skip

NOTICE_TYPE_TEXTS: Final[dict[NoticeType, tuple[str, ...]]] = {
    "prior_information_notice": ("Prior information notice", "Vorinformation", "Avis de préinformation"),
    "contract_award_notice": ("Contract award notice", "Bekanntmachung vergebener Aufträge", "Vergebener Auftrag",
                              "Avis d'attribution"),
    "corrigendum": ("Corrigendum", "Berichtigung", "Änderungsbekanntmachung", "Avis rectificatif"),
    "contract_notice": ("Contract notice", "Auftragsbekanntmachung", "Avis de marché"),
}  # fmt: skip

PROCEDURE_WORDS: Final[tuple[tuple[ProcedureType, tuple[str, ...]], ...]] = (
    ("neg-wo-call", ("without prior publication", "without publication", "without a call",
                                 "ohne teilnahmewettbewerb", "ohne vorherige", "sans publication",
                                 "sans mise en concurrence")),
    ("comp-dial", ("competitive dialogue", "wettbewerblicher dialog", "dialogue competitif")),
    ("innovation", ("innovation partnership", "innovationspartnerschaft", "partenariat d'innovation")),
    ("neg-w-call", ("negotiat", "verhandlungsverfahren", "procedure negociee", "avec negociation")),
    ("restricted", ("restricted", "nicht offen", "nichtoffen", "beschrankt", "restreint")),
    ("open", ("open", "offen", "ouvert")),
)  # fmt: skip

CATEGORY_WORDS: Final[tuple[tuple[MainCategory, tuple[str, ...]], ...]] = (
    ("works", ("works", "bauauftrag", "bauleistung", "travaux")),
    ("goods", ("supplies", "supply", "goods", "lieferauftrag", "lieferleistung", "lieferung", "fournitures")),
    ("services", ("services", "service", "dienstleistung", "prestations")),
)

DURATION_UNITS: Final[dict[str, DurationUnit]] = {
    "day": "days", "days": "days", "tag": "days", "tage": "days", "tagen": "days", "jour": "days",
    "jours": "days", "week": "weeks", "weeks": "weeks", "woche": "weeks", "wochen": "weeks",
    "semaine": "weeks", "semaines": "weeks", "month": "months", "months": "months", "monat": "months",
    "monate": "months", "monaten": "months", "mois": "months", "year": "years", "years": "years",
    "jahr": "years", "jahre": "years", "jahren": "years", "an": "years", "ans": "years", "annee": "years",
    "annees": "years",
}  # fmt: skip

COUNTRY_NAMES: Final = {
    "austria": "AT", "osterreich": "AT", "autriche": "AT", "belgium": "BE", "belgien": "BE", "belgique": "BE",
    "bulgaria": "BG", "bulgarien": "BG", "bulgarie": "BG", "croatia": "HR", "kroatien": "HR", "croatie": "HR",
    "cyprus": "CY", "zypern": "CY", "chypre": "CY", "czechia": "CZ", "czech republic": "CZ", "tschechien": "CZ",
    "tchequie": "CZ", "republique tcheque": "CZ", "denmark": "DK", "danemark": "DK", "estonia": "EE",
    "estland": "EE", "estonie": "EE", "finland": "FI", "finnland": "FI", "finlande": "FI", "france": "FR",
    "frankreich": "FR", "germany": "DE", "deutschland": "DE", "allemagne": "DE", "greece": "GR",
    "griechenland": "GR", "grece": "GR", "hungary": "HU", "ungarn": "HU", "hongrie": "HU", "ireland": "IE",
    "irland": "IE", "irlande": "IE", "italy": "IT", "italien": "IT", "italie": "IT", "latvia": "LV",
    "lettland": "LV", "lettonie": "LV", "lithuania": "LT", "litauen": "LT", "lituanie": "LT",
    "luxembourg": "LU", "luxemburg": "LU", "malta": "MT", "malte": "MT", "netherlands": "NL",
    "niederlande": "NL", "pays-bas": "NL", "poland": "PL", "polen": "PL", "pologne": "PL", "portugal": "PT",
    "romania": "RO", "rumanien": "RO", "roumanie": "RO", "slovakia": "SK", "slowakei": "SK",
    "slovaquie": "SK", "slovenia": "SI", "slowenien": "SI", "slovenie": "SI", "spain": "ES", "spanien": "ES",
    "espagne": "ES", "sweden": "SE", "schweden": "SE", "suede": "SE", "switzerland": "CH", "schweiz": "CH",
    "suisse": "CH", "norway": "NO", "norwegen": "NO", "norvege": "NO", "iceland": "IS", "island": "IS",
    "islande": "IS", "liechtenstein": "LI", "united kingdom": "GB", "vereinigtes konigreich": "GB",
    "royaume-uni": "GB", "united states": "US", "vereinigte staaten": "US", "etats-unis": "US",
}  # fmt: skip
