"""The buyer and where to submit: buyer name, e-mail, phone, address, submission URL.

An analyst finds the buyer the way a notice presents it, strongest evidence first: a label
("pouvoir adjudicateur", "Öffentlicher Auftraggeber", "stazione appaltante", "Zamawiający", "Procuring
Entity", GeM's "Organisation Name"...) followed by a name; a definition ('"Owner" is Camrose County');
the subject of the invitation sentence ('The Africa CDC now invites sealed Bids', 'تسعى جامعة ...');
the letterhead of the first page when it is clearly an organisation (a ministry, a city, a university,
an agency...); last, an acronym the document defines on its first page and keeps using.

The buyer's e-mail, phone and address are then read preferably in the BUYER'S BLOCK: the lines under
its label or around its name, the contact lines next to its e-mail, its letterhead or footer. An
address is a street with its number and postcode, a block of short lines under the buyer or under an
address heading ('The address(es) referred to above is (are):'), or a PO box when nothing better is
printed. Contacts of other parties are refused by their context: a help desk or support desk,
platform support, a review body (tribunal administratif, Vergabekammer, TAR), a data-protection
officer, an evaluator, an invoicing address, a pre-bid meeting place.

The submission URL is a URL whose sentence says that offers are submitted there ("tenders must be
submitted via", "adresse à laquelle les offres doivent être envoyées", "Angebote sind über ...
einzureichen", "presentare offerta"); a URL given for downloading documents, instructions,
registration help, terms, or a legal text is not one.

Every value is verbatim from its quote, so the validator can ground it; anything unsure is left out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import phonenumbers

from tenderflow.extraction.offline.candidates import Candidate, choose, reading_field
from tenderflow.extraction.offline.document import SEPARATORS, Cell, Document, LabelHit, Line, Span, fold, label_regex
from tenderflow.extraction.schema import Sourced
from tenderflow.extraction.validation import normalize_for_matching

# --- lexicons ---------------------------------------------------------------------------------------

_BUYER_LABELS: Final = (
    # en (incl. Indian portals GeM / CPPP, World Bank / AfDB style documents)
    "contracting authority", "name of contracting authority", "name of the contracting authority",
    "contracting entity", "procuring entity", "name of procuring entity", "name of the procuring entity",
    "procuring agency", "procurement entity", "procuring authority", "purchaser", "name of purchaser",
    "employer", "name of employer", "name of the employer", "buyer", "buyer name", "name of buyer",
    "organisation name", "organization name", "name of organisation", "name of organization",
    "ministry name", "ministry state name", "department name", "organisation chain", "agency name",
    "agency division name", "issued by", "issuing authority", "issuing office", "tender inviting authority",
    "name of the tender inviting authority", "inviting authority", "purchasing agency", "requesting agency",
    "client", "name of client", "name of the client",
    # fr
    "pouvoir adjudicateur", "nom et adresse officiels de l'organisme acheteur", "organisme acheteur",
    "nom de l'acheteur", "acheteur", "entite adjudicatrice", "autorite contractante",
    "identification de l'organisme qui passe le marche", "maitre d'ouvrage", "personne publique",
    # de
    "offentlicher auftraggeber", "auftraggeber", "hauptauftraggeber", "vergabestelle", "auffordernde stelle",
    "zur angebotsabgabe auffordernde stelle", "name des auftraggebers", "ausschreibende stelle",
    "zuschlag erteilende stelle", "zuschlagserteilung durch", "beschaffungsstelle", "vergabebehorde",
    # es
    "poder adjudicador", "organo de contratacion", "entidad contratante", "entidad adjudicadora",
    "jurisdiccion contratante", "organismo contratante", "ente contratante", "entidad convocante",
    "organismo licitante", "unidad operativa de contrataciones",
    # it
    "amministrazione aggiudicatrice", "stazione appaltante", "ente appaltante", "amministrazione delegante",
    "stazione appaltante delegante", "committente",
    # pt
    "entidade adjudicante", "entidade contratante", "orgao contratante", "orgao licitante",
    # nl
    "aanbestedende dienst", "aanbestedende instantie", "naam aanbestedende dienst", "opdrachtgever",
    # pl
    "zamawiajacy", "nazwa zamawiajacego", "nazwa oraz adres zamawiajacego", "nazwa i adres zamawiajacego",
    "dane zamawiajacego",
    # ar
    "الجهة الحكومية", "اسم الجهة", "اسم الجهة الحكومية", "الجهة المتعاقدة", "الجهة المالكة", "اسم الإدارة",
)
_BUYER_LABEL: Final = label_regex(_BUYER_LABELS)


def _label_key(label: str) -> str:
    """A matched label as a lexicon key: folded, words separated by single spaces ('Ministry/State Name')."""
    return " ".join(re.findall(r"[^\W_]+", fold(label)))


_WEAK_LABELS: Final = frozenset(
    _label_key(label)
    for label in ("zuschlag erteilende stelle", "zuschlagserteilung durch", "vergabestelle", "issued by",
                  "ministry name", "ministry state name", "department name")
)
"""Labels of a party that may be an agent or a parent of the buyer (the awarding or issuing office,
the ministry above a GeM 'Organisation Name'): kept, but weaker than a label naming the buyer itself."""

_HEADING_REST: Final = re.compile(
    r"^\s*(?:\([^)]{0,40}\))?\s*(?:[*:：]|\s{3,}|$|[^\w\s(]{1,2}\s*$"
    r"|(?:[\s,/;]+(?:denominazione|indirizzi|punti di contatto|names?|address(?:es)?|contact points?|nom|adresse"
    r"|coordonnees|anschrift|kontaktstellen?|nombre|direccion|datos|dane|adres|e|and|et|und|y|i|oraz))+\s*[:：]?\s*$)"
)
"""What may follow a buyer label that heads a field: a colon, a column gap, nothing (or a speck of a scan: '.',
'~'), a parenthesis, or more heading words ('STAZIONE APPALTANTE, DENOMINAZIONE, INDIRIZZI E PUNTI DI CONTATTO')."""

_PERSON: Final = re.compile(
    r"^(?:mr|mrs|ms|miss|dr|prof|m|mme|mlle|herr|frau|sig|sig\.ra|dott|dott\.ssa|ing|avv|sr|sra|pan|pani|dhr|mevr)"
    r"\b\.?\s"
)
_PERSON_PRONE: Final = frozenset(
    _label_key(label) for label in ("buyer", "buyer name", "name of buyer", "client", "committente", "opdrachtgever")
)
"""Labels that US documents also use for a person (the purchasing agent): their value needs an
organisation word."""

_SECTION_PREFIX: Final = re.compile(
    r"[-•*]?\s?(?:section|sezione|sekcja|seccion|secao|abschnitt|rubrique|partie|part|teil|titre|title|"
    r"hoofdstuk|afdeling|القسم)?\s?[\divxlc|]{0,4}(?:[.)]\d{0,2})*\s?[:.)\-–]?\s?[‚,'‘`\"]?"
)
"""What may stand before a buyer label that heads a section ('Section I: Contracting authority', 'Section I :
Pouvoir adjudicateur' with the French space before the colon, 'Section |:' as OCR reads a roman I)."""

_SECTION_HEADING: Final = re.compile(
    r"(?<![^\W_])(?:section|sezione|sekcja|seccion|secao|abschnitt|rubrique|partie|part|teil|titre|hoofdstuk|"
    r"afdeling|القسم)\s?[\divxlc|]{1,4}\W*$"
)
"""'Section I:', 'Abschnitt I:' before a buyer label: the label heads a notice section, whose content is the
lines below; a cell to its right belongs to another column (often that column's own heading)."""

_NAME_SUBLABEL: Final = re.compile(
    r"^\s*(?:[-–•*·‚,.'‘\"]\s*)?(?:[a-z0-9]{1,3}[.)]\s*)?"
    r"(?:official name|name|nom officiel|nom|denominazione(?: ufficiale)?|denominacion(?: oficial)?"
    r"|nombre(?: oficial)?|nome(?: ufficiale| oficial)?|denominacao(?: oficial)?"
    r"|(?:oficjalna )?nazwa(?: oficjalna)?|(?:officiele )?naam|designation|raison sociale"
    r"|(?:offizielle )?bezeichnung)\s*[:：]\s*(?P<value>\S.*)$"
)
"""'Name: Umweltbundesamt', 'Offizielle Bezeichnung: …' under a buyer heading (the form's own field for the name)."""

_FUNCTION_START: Final = re.compile(
    r"(?:of|for|de|du|des|del|della|delle|dei|degli|di|der|des|fur|van|voor|da|do|dos|das|dla)\s+\S"
)
"""A wrapped name's next line that opens with a linking word ('du Pays de …', 'of the Interior')."""

_NEGATIVE_BEFORE_LABEL: Final = re.compile(
    r"(?:activit|\btype\b|\btipo\b|\btyp\b|\bart\b|rodzaj|categor|\bkind\b|profil|perfil|adresse internet|\bsito\b"
    r"|website|signature|\bfirma\b|vertreten|representative|address of|adresse de|adresse du|indirizzo"
    r"|direccion|anschrift|\bfor the\b|on behalf|pour le compte|im auftrag|per conto|\bby the\b|\bto the\b"
    r"|\bof the\b|\bdu\b|\bdes\b|\bde l\b|\bdella\b|\bdel\b|\bder\b|\bdie\b|\bdas\b|\bden\b|\bdem\b)\W*$"
)
"""A label preceded by one of these is a different field ('Type of contracting authority', 'activité
du pouvoir adjudicateur') or a mention in running text ('... of the Employer')."""

_NAME_WORD_BEFORE: Final = re.compile(
    r"(?<![^\W_])(?:name|names|nom|nombre|denominazione|denominacion|nazwa|naam|identification|designation|"
    r"bezeichnung|dane|datos|dati|details|coordonnees)(?![^\W_])"
)
"""'Nom et adresse officiels DU pouvoir adjudicateur': an article before the label is fine after a name word."""
_OTHER_FIELD_BEFORE: Final = re.compile(
    r"(?<![^\W_])(?:reference|referencia|riferimento|numero|number|nummer|numer|activit\w*|type|tipo|typ|"
    r"rodzaj|kind|categor\w*|profil|perfil|website|sito|signature|firma|representative|vertreten\w*)(?![^\W_])"
)
"""A label after one of these words names another field ('Numéro de référence attribué par le
pouvoir adjudicateur', 'Type of contracting authority', 'Principale activité du pouvoir adjudicateur')."""

_ORG_WORDS: Final = re.compile(
    r"(?<![^\W_])(?:ministry|ministere|ministerium|ministerio|ministero|ministerstwo|ministerie|"
    r"department|departement|departamento|dipartimento|departament|directorate|direction|direccion|direzione|"
    r"council|county|city of|town of|village of|borough|municipality|municipal|municipalidad|municipio|"
    r"comune|commune|communaute|ville de|mairie|gemeinde|stadt|landkreis|kreis|ayuntamiento|ajuntament|"
    r"concello|diputacion|gmina|urzad|powiat|starostwo|gemeente|provincie|province|provincia|region|regione|"
    r"district|state of|government|gouvernement|gobierno|governo|regierung|commonwealth|"
    r"office|agency|agence|agencia|agenzia|authority|autorite|autoridad|autorita|board|commission|committee|"
    r"corporation|company|ltd|limited|plc|inc|llc|gmbh|aor|spa|s\.p\.a|srl|s\.a|"
    r"university|universite|universitat|universidad|universita|uniwersytet|college|hochschule|school|"
    r"institute|institut|instituto|istituto|instytut|hospital|hopital|krankenhaus|klinikum|ospedale|szpital|"
    r"prefeitura|camara|metropole|metropolitan|agglomeration|conseil|syndicat|etablissement|coordinacion|"
    r"subsecretaria|consejeria|"
    r"generalitat|junta|cabildo|mancomunidad|consorcio|consorzio|verband|zweckverband|bezirk|kanton|canton|"
    r"azienda|centres?|centers?|centro|centrale|chamber|chambre|cci|camera|kammer|bank|banque|banco|fund|fonds|"
    r"foundation|fondation|stiftung|fundacion|association|union|unione|society|administration|administracion|"
    r"amministrazione|verwaltung|behorde|gebaudemanagement|services|service|secretariat|secretaria|presidencia|"
    r"cabinet|treasury|treasurer|police|water board|utility|airport|railway|railways|port authority|"
    r"trust|consortium|federation|cooperative|enterprise|bureau|servicio|servizio|zaklad|spolka|"
    r"\w*(?:bundesamt|landesamt|ministerium|behorde|verwaltung|anstalt|institut|amt|werke|betrieb|stelle)"
    r"|الوزارة|وزارة|هيئة|الهيئة|مؤسسة|المؤسسة|شركة|الشركة|جامعة|الجامعة|بلدية|أمانة|امانة|مديرية|مجلس)"
    r"(?![^\W_])"
)
"""Words that make a line an organisation's name rather than a title or a sentence (folded text)."""

_WEAK_ORG: Final = re.compile(
    r"(?<![^\W_])(?:services?|fund|union|trust|enterprise|consortium|society|center|centre|cabinet|office|"
    r"committee|commission|board|bureau|company|region|district|province|provincia|department)(?![^\W_])"
)
"""Organisation words that also make titles ('Professional Services', 'Regional Office Renovation'):
a letterhead line needs another one besides them, or a name of its own around them."""

_PARENT_ORG: Final = re.compile(
    r"^(?:the )?(?:government of|state of|republic of|commonwealth of|gouvernement|republique|regierung|"
    r"gobierno de|governo|freistaat|land )"
)
"""A letterhead's top line that names the government above the buyer ('Government of Western
Australia' over 'Department of the Premier and Cabinet'): the next line is the buyer."""

_TITLE_WORDS: Final = re.compile(
    r"(?<![^\W_])(?:request|proposal|proposals|tender|tenders|quotation|rfp|rfq|rft|eoi|bid|bidding|invitation|"
    r"notice|avis|bando|gara|ausschreibung|bekanntmachung|licitacion|licitación|pliego|specyfikacja|addendum|"
    r"contract|agreement|page|section|annex|anexo|allegato|anlage|schedule|procurement of|"
    r"supply of|provision of|construction of|appel|consultation|marche|concurso|disciplinare|capitolato|"
    r"volume|part|form|formulaire|formular|table|contents|index|sommaire|indice|system|portal|platform|plateforme|"
    r"plataforma|piattaforma|eprocurement|e-procurement)(?![^\W_])"
)

_COPULA: Final = re.compile(
    r"^[\s,(]*(?:[a-z]+\s+){0,2}?(?:is|est|ist|es|e|jest|sera)\s*:?\s+"
    r"(?:il |la |lo |l'|l’|the |le |les |der |die |das |el |los |las |o |a )?",
)
"""'La Stazione Appaltante delegante è il Comune di Serino': what joins a label to its value in a sentence."""

_DEFINITION: Final = re.compile(
    r"[\"“”'‘’«]\s*(?:the\s+)?(?:owner|employer|purchaser|buyer|client|customer|principal|procuring entity|"
    r"contracting authority|procuring agency)\s*[\"“”'‘’»]\s*(?:is|means|shall mean|refers to|shall be)\s+"
    r"(?:the\s+)?(?P<value>[^.;,:\"“”]+)"
)
"""An English definition clause naming the buyer by its role: '"Owner" is Camrose County.'"""

_FUNCTION_END: Final = re.compile(
    r"(?<![^\W_])(?:of|the|and|for|de|del|della|delle|dei|degli|di|du|des|der|die|das|fur|und|et|y|e|i|w|im|"
    r"pour|da|do|dos|das|van|voor|en|z|na|dla)\W*$"
)
"""A name line ending with a function word continues on the next line."""

_STREET_FULL: Final = (
    r"rue|avenue|boulevard|place|chemin|allee|impasse|quai|route|cours|square|"
    r"street|road|drive|lane|way|court|highway|parkway|plaza|terrace|circle|"
    r"via|viale|piazza|piazzale|corso|largo|vicolo|contrada|localita|"
    r"calle|avenida|paseo|camino|carrera|ronda|travesia|"
    r"rua|praca|travessa|alameda|estrada|"
    r"ulica|aleja|plac|osiedle|"
    r"straat|laan|plein|gracht|kade|"
    r"strasse|platz|ring|damm|gasse|ufer|chaussee|markt"
)
_STREET_ABBREVIATION: Final = r"av|bd|st|rd|dr|ln|ct|ave|blvd|hwy|pkwy|str|ul|al|weg"
_STREET_WORD: Final = _STREET_FULL + "|" + _STREET_ABBREVIATION
_STREET: Final = re.compile(
    # '5815 Buffalo Avenue', '1, rue André Michel', '3755 – 43 ave', '80 Calvert Street'
    r"(?<![\w.])\d{1,5}[a-z]?\s*,?\s*(?:[-–]\s*\d{1,4}\s+)?(?:[\w'’.\-]+\s+){0,4}?(?:" + _STREET_WORD + r")\b\.?"
    # 'via XX Settembre 5', 'Al. Piłsudskiego 11', 'Plaza de Santa María, 1', 'rue Félix Eboué'
    r"|(?<![\w])(?:(?:" + _STREET_FULL + r")\b|(?:" + _STREET_ABBREVIATION + r")\.,?)\s*(?:[\w'’.\-]+,?\s+){0,5}?"
    r"(?:\d{1,5}[a-z]?\b|(?=\d{4,5}\s))"
    r"|(?<![\w])(?:rue|via|viale|piazza|calle|avenida|rua)\s+[\w'’.\-]+(?:\s+[\w'’.\-]+){0,3}"
    # 'Olshausenstraße 62', 'Wörlitzer Platz 1'
    r"|(?<![\w])[\w\-]+(?:strasse|str\.|weg|platz|allee|ring|damm|gasse|ufer|chaussee)\s+\d{1,4}[a-z]?\b"
    r"|(?<![\w])[\w\-]+\s+(?:strasse|platz|allee|weg|ring|damm|gasse|ufer)\s+\d{1,4}[a-z]?\b"
)
"""A street with its house number, in many languages (matched on FOLDED text)."""

_POSTCODE: Final = re.compile(
    r"(?<!\w)(?<!\w-)(?:\(?\d{5}\)?|\d{3}\s\d{3}|\d{2}-\d{3}|[a-z]{1,2}\d[a-z\d]?\s\d[a-z]{2}|[a-z]\d[a-z]\s?\d[a-z]\d"
    r"|\d{4}\s?[a-z]{2}|\d{4}|\d{3}\s\d{2}|\d{6})"
    r"(?![\w-])"
)
"""Postcodes: FR/DE/IT/ES/US five digits, PL 18-404, CA T4V 3S8, UK SW1A 2AA, NL 1234 AB, AU/AT/CH
four digits, IN six ('400 001', 'Kheda -388239')."""

_PO_BOX: Final = re.compile(
    r"(?<![^\W_])(?:postfach|p\.?\s?o\.?\s?box|post office box|private bag|boite postale|b\.?p\.?|"
    r"casella postale|apartado (?:de correos|postal|aereo)|apdo|skrytka pocztowa|postbus|caixa postal|cs|ص\.?\s?ب)"
    r"\s*[.:]?\s*(?:n[o°º]?\.?\s*)?\d"
)
"""A post-office box with its number ('P.O. Box 3855', 'Postfach 1406', 'BP 120')."""

_ADDRESS_LABELS: Final = (
    "address", "addresses", "address es", "addressed to", "physical address", "a l'adresse suivante",
    "postal address", "mailing address", "street address", "office address", "adresse",
    "adresse postale", "anschrift", "postanschrift", "strasse hausnummer", "indirizzo", "sede", "sede legale",
    "direccion", "direccion postal", "domicilio", "endereco", "morada", "adres", "siedziba", "adres siedziby",
    "adresse officielle", "العنوان",
)
_ADDRESS_LABEL: Final = label_regex(_ADDRESS_LABELS)

_EMAIL: Final = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_EMAIL_LABEL_WORDS: Final = (
    r"e-?mail|email address|e-mail address|courriel|adresse electronique|correo electronico|correo|"
    r"posta elettronica(?: certificata)?|pec|adres e-?mail|e-?mail-?adresse|mail|البريد الإلكتروني|البريد"
)
_EMAIL_LABEL: Final = re.compile(r"(?<![^\W_])(?:" + _EMAIL_LABEL_WORDS + r")(?![^\W_])")
_LOST_AT: Final = re.compile(
    r"(?<![^\W_])(?:" + _EMAIL_LABEL_WORDS + r")\s*[:：]\s*"
    r"(?P<local>[a-z0-9][\w.+-]*[a-z0-9])\s(?P<domain>[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.[a-z]{2,6})(?![\w@-])"
)
"""'courriel : commande-publique ville-nimes.fr': text extraction dropped the '@'."""

_PHONE_LABEL: Final = re.compile(
    r"(?<![^\W_])(?:tel|tel\.|tél|telephone|telephone number|phone|phone number|ph|mobile|mob|cell|telefon|"
    r"telefono|fon|numer telefonu|tfno|contact number|contact no|هاتف|الهاتف|جوال)(?![^\W_])"
)
_FAX_LABEL: Final = re.compile(r"(?<![^\W_])(?:fax|telefax|facsimile|télécopie|telecopie|faks|فاكس|الفاكس)(?![^\W_])")
_PHONE: Final = re.compile(
    r"(?<![\w+])(?:\(?\+\d{1,3}\)?[\s.-]?)?(?:\(0\)\s?)?(?:\(\d{1,5}\)[\s.-]?)?\d[\d\s./-]{4,18}\d"
    r"(?:\s?(?:x|ext\.?|extn\.?|poste|durchwahl|int\.)\s?\d{1,5}|\s?\(\d{1,5}\))?(?![\w])"
)
"""A phone number as printed, with an extension ('x 2290', '(253)'); '6536028/6555288' lists two lines."""
_NOT_PHONE_BEFORE: Final = re.compile(
    r"(?<![^\W_])(?:box|postfach|b\.?p|apartado|casella postale|pin|pincode|zip|postal code|code postal|plz|cap|kod|"
    r"n[o°º]|ref|reference|no\.)\W*$"
)
"""What makes a long number a PO box, a postcode or a reference rather than a phone."""
_DATE_LIKE: Final = re.compile(r"^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$|^\d{4}[./-]\d{1,2}[./-]\d{1,2}$")

_URL: Final = re.compile(r"(?:https?://|www\.)[^\s<>\"'()\[\]{}]+", re.IGNORECASE)

_CONTACT_NEGATIVE: Final = re.compile(
    r"(?<![^\W_])(?:help ?desk|hotline|support|assistance technique|technical assistance|invoice|invoices|"
    r"invoicing|accounts payable|billing|factur\w*|rechnung\w*|fattur\w*|tribunal|recours|review body|"
    r"vergabekammer|nachprufung\w*|ricorso|ricorsi|t\.?a\.?r\.?|mediation|mediateur|ombudsman|complaint|"
    r"complaints|grievance|reclamo|reclamacion|integrity|monitor|independent external monitor|evaluat\w*|"
    r"evaluador\w*|valutator\w*|commissione giudicatrice|data protection|protection des donnees|"
    r"datenschutz\w*|ochrony danych|iod|rodo|privacy|dpo|webmaster|noreply|no-reply|betreiber\w*|operator|"
    r"plateforme|platform operator|template|author|greffe)(?![^\W_])"
)
"""Contacts that are not the buyer's: help desks, platform support, review bodies, evaluators..."""

_HEADING_NEGATIVE: Final = re.compile(
    r"(?<![^\W_])(?:support desk|help ?desk|helpline|technical support|hotline|service desk|support team|"
    r"assistance technique|tribunal|review body|vergabekammer|data protection|ochrony danych|evaluat\w*|"
    r"evaluador\w*)(?![^\W_])"
)
"""A heading a few lines above that makes the contacts under it another party's ('SUPPORT DESK:')."""

_CONTACT_POSITIVE: Final = re.compile(
    r"(?<![^\W_])(?:contact\w*|questions?|enquir\w*|inquir\w*|queries|clarification\w*|consultas?|"
    r"richieste|chiarimenti|pytania|fragen|ruckfragen|renseignements|correspondant|punti di contatto|"
    r"point of contact|poc|procurement officer|contracting officer|ansprechpartner\w*|kontakt\w*|"
    r"directed|attention|responsable|referente|rup|bearbeiter\w*|sachbearbeiter\w*)(?![^\W_])"
)

_SUBMIT_POSITIVE: Final = re.compile(
    r"submit|submission|lodge|lodging|lodgement|upload(?:ing)? (?:of )?(?:the |their |your )?(?:bids?|offers?|tenders?"
    r"|proposals?|files?)|e-?procurement|e-?tender|online bid|bids? (?:shall|must)"
    r"|tenders? (?:shall|must)|offers? (?:shall|must)|proposals? (?:shall|must)"
    r"|remise des (?:offres|plis|candidatures)|depot des (?:offres|plis)|offres.{0,60}doivent etre"
    r"|deposer (?:leur|les|son|votre) (?:offre|pli)|adresse a laquelle les offres"
    r"|einzureichen|einreichen|einreichung|abzugeben|angebotsabgabe|abgabe der angebote|abgabe von angeboten"
    r"|presentacion de (?:las )?(?:ofertas|proposiciones)|presentar (?:las |su )?(?:ofertas?|proposiciones)"
    r"|licitacion electronica|presentare (?:l')?offert|presentazione dell[ae] offert|piattaforma telematica"
    r"|svolta (?:interamente )?tramite|skladanie ofert|skladania ofert|zlozenie oferty|oferty nalezy skladac"
    r"|indienen|inschrijvingen|submeter|apresentacao das propostas|apresentar propostas"
    r"|(?:ofertas|proposiciones|propuestas|offerte|propostas|offres|plis|angebote|oferty|inschrijvingen)\s+"
    r"(?:se\s+)?(?:presentaran|deberan|devono|dovranno|vanno|devem|deverao|sont|seront|doivent|sind|mussen"
    r"|nalezy|moeten|dienen)\b"
    r"|(?:offre|offres|plis|candidatures?)\W.{0,40}(?:devront|doivent|peuvent)\s+etre\s+(?:deposes?|remis|transmis"
    r"|envoyes?|soumis)|plateforme (?:de dematerialisation|dematerialisee)"
)
_SUBMIT_NEGATIVE: Final = re.compile(
    r"instruction|how to|guide|guideline|help|faq|qrg|tutorial|manual|registr|inscri|terms of use"
    r"|conditions|bedingungen|verificaci|verification|verify|invoice|rechnung|factur|fattur|affidavit|legal"
    r"|\blaw\b|gazette|eur-lex|normativ|boletin|further information|more information|additional information"
    r"|informationen|erfahren|anticorruzione|privacy|datenschutz|jedz|espd"
)
"""A URL in such a sentence is help, terms, a legal text or a form, whatever else the sentence says."""
_SUBMIT_SOFT_NEGATIVE: Final = re.compile(
    r"download|descarg|scaric|telecharg|obtenus|obtained|obtain|consult|documents|documentation|documentazione"
    r"|dokument|unterlagen|pliegos|published|posted|post updates|veroffentlicht|pubblicat|publicad|opublikowan"
    r"|corrigend|addend|amendment"
)
"""Where documents are read or downloaded: not the submission URL unless the sentence also says
that offers are submitted there."""
_SUBMIT_PLATFORM: Final = re.compile(
    r"vergabesystem|vergabeplattform|vergabemarktplatz|e-vergabe|plataforma de contratacion|piattaforma"
    r"|plateforme|platforma|miniportal|e-procurement portal|procurement portal|tender portal"
)
_BUYER_PROFILE: Final = re.compile(r"profil d'acheteur|profil acheteur|perfil del contratante|buyer profile")

_THRESHOLD: Final = 0.5
_LETTERHEAD_LINES: Final = 12
_BLOCK_LINES: Final = 8
_MAX_NAME_WORDS: Final = 16


# --- small text helpers -----------------------------------------------------------------------------------


def _clean(text: str) -> str:
    """A value without the separators and punctuation around it; brackets only when unbalanced
    ('Comune di Serino (AV)' keeps its parenthesis, '(Vergabestelle' loses it)."""
    value = text.strip(SEPARATORS + " ,;\"'“”«»").strip()
    while value and value[0] in "([" and value.count(value[0]) > value.count(")" if value[0] == "(" else "]"):
        value = value[1:].strip()
    while value and value[-1] in ")]" and value.count(value[-1]) > value.count("(" if value[-1] == ")" else "["):
        value = value[:-1].strip()
    return value.strip(SEPARATORS + " ,;\"'“”«»").strip()


def _grounded(value: str, quote: str) -> bool:
    """Whether the validator will find `value` in `quote`: as one run once whitespace and hyphens are
    ignored, or word by word in order when the quote spans layout columns (see validation.py)."""
    wanted = normalize_for_matching(value)
    if wanted and wanted in normalize_for_matching(quote):
        return True
    if not re.search(r"\s{4,}|\t", quote):
        return False
    words = iter(re.findall(r"\w+", unicodedata.normalize("NFKC", quote).casefold()))
    return all(word in words for word in re.findall(r"\w+", unicodedata.normalize("NFKC", value).casefold()))


def _quote(lines: Sequence[Line]) -> str:
    """The verbatim quote of one or several printed lines (each stripped, as they stand on the page)."""
    return "\n".join(line.stripped for line in lines)


def _placeholder(text: str) -> bool:
    """Template blanks: dots, underscores, '[insert ...]', 'xxx', '<name>'."""
    return bool(
        re.search(r"\.{4,}|_{3,}|…{2,}|\[[^\]]*\]|<[^>]*>|\bx{3,}\b|\binsert\b|\bname of\b", text, re.IGNORECASE)
    )


def _previous_lines(document: Document, line: Line, count: int) -> list[Line]:
    """Up to `count` non-blank lines before `line` on its page, nearest first."""
    page = document.lines_of(line.page)
    found: list[Line] = []
    for other in reversed(page[: line.row]):
        if other.text.strip():
            found.append(other)
            if len(found) >= count:
                break
    return found


# --- the buyer's name -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Buyer:
    """What the name search found: the chosen name, and the lines where the buyer's block starts
    (its label lines and the lines naming it), used to prefer the buyer's own contacts."""

    name: Candidate[str] | None
    anchors: tuple[Line, ...]


def _looks_like_name(value: str, *, strict: bool) -> bool:
    """Whether a label's value can be an organisation's name: short, mostly letters, no contact data,
    not another label; `strict` (running text) also wants an organisation word."""
    if not 2 <= len(value) <= 160 or _placeholder(value):
        return False
    folded = fold(value)
    words = folded.split()
    if len(words) > _MAX_NAME_WORDS or "@" in value or "http" in folded or "www." in folded:
        return False
    if re.search(r"[\u0600-\u06ff]", value) and re.search(r"[a-zA-Z]", value):
        return False  # Arabic and Latin letters mixed: an OCR misreading ('جامعة pl القرى')
    letters = sum(character.isalpha() for character in value)
    digits = sum(character.isdigit() for character in value)
    if letters < 3 or digits > max(4, letters // 3):
        return False
    if _BUYER_LABEL.search(folded) and not _ORG_WORDS.search(_BUYER_LABEL.sub(" ", folded)):
        return False
    if re.match(r"^(?:(?:\d+|[ivx]+|[a-h])[.)])+\s", folded) or (len(words) == 1 and digits):
        return False  # a numbered heading ('2. Angaben zum Verfahren'), a reference ('MA20CWTC01')
    if re.match(r"^(?:(?:see|voir|siehe|vedi|ver|wie|cf|as|same|idem|n/?a|none|nil|keine|aucun|tbd)\b|\W)", folded):
        return False  # 'Wie Hauptauftraggeber siehe a)', 'see above', 'N/A'
    if re.search(r"\b(?:denominazione|indirizz|punti di contatto|names? and address|nom et adresse|"
                 r"dati|contact point|address|adresse|anschrift)", folded):
        return False
    if len(words) <= 2 and _NAME_SUBLABEL.match(folded + ": x"):
        return False  # 'Name', 'Official name': a field's label, not its value
    if len(words) == 1 and len(folded) < 12 and _ORG_WORDS.fullmatch(folded.strip("() ")):
        return False  # 'County', 'the Department': a role, not a name
    if _PERSON.match(folded):
        return False  # 'M. le maire', 'Mrs Jane Doe': a person, not the organisation
    has_org = _ORG_WORDS.search(folded) is not None
    if _STREET.search(folded) and (not has_org or _STREET.match(folded)):
        return False  # 'Olshausenstraße 62' is where the buyer is, not who
    if strict and not has_org:
        return False
    if not has_org:
        # A name without an organisation word must at least look like one: capitalised words, no verb-ish
        # sentence ('shall', 'will', ...), not too long.
        if len(words) > 10 or re.search(r"\b(?:shall|will|must|may|should|is|are|be|the following)\b", folded):
            return False
        if not value[:1].isupper() and not value[:1].isdigit():
            return False
    return True


_NAME_CUT: Final = re.compile(
    r"\s+[-–—]\s+(?=(?:" + _STREET_WORD + r")\b|\d)"
    r"|,\s*(?=(?:" + _STREET_WORD + r")\b\.?\s|\d{2,}|(?:tel|tél|phone|fax|c\.?f|p\.?\s?iva|vat|siret|nip|e-?mail"
    r"|pec|courriel)\b|http|www)"
    r"|\s+\|\s+|\s+\(?(?:tel|tél|phone|fax)\b|\s+[-–]\s+\d[\d.]+$|\s*\*+\s*$"
    r"|(?<=\S)\s+(?:[^\s:：]+\s+)?[^\s:：]+\s*[:：]"
)


_GENITIVE_BEFORE: Final = re.compile(
    r"(?<![^\W_])(?:der|des|of the|of|de la|de l'|du|della|dello|dell'|del|dei|degli|delle|van de|van het|van)\s*$"
)
"""An article or preposition of possession before an organisation word: the line names something of it."""


def _proper_name(value: str) -> bool:
    """Whether every word of a name read from a sentence is capitalised but its small linking words
    ('Comune di Serino', not 'Government are not lost')."""
    for word in re.findall(r"[^\W\d_][\w'’-]*", value):
        if not word[0].islower() or len(word) <= 3 or _FUNCTION_END.fullmatch(fold(word)):
            continue
        return False
    return True


def _strong_org(folded: str) -> bool:
    """Whether a folded line names an organisation on its own: an organisation word that is not also
    a title word, or one followed by what it is of ('Department of Health', 'Office de ...')."""
    for match in _ORG_WORDS.finditer(folded):
        if not _WEAK_ORG.fullmatch(match.group()):
            return True
        if re.match(r"\s+(?:of|de|du|des|di|del|della|für|fur|van)\s", folded[match.end() :]):
            return True
    return False


def _cut_name(text: str) -> str:
    """The name alone: without the address, phone or codes that follow it on the same line."""
    folded = fold(text)
    match = _NAME_CUT.search(folded)
    value = text[: match.start()] if match else text
    return _clean(value).rstrip(" .-–")


def _continued(document: Document, line: Line, value: str, column: int) -> tuple[str, list[Line]]:
    """A name wrapped on the next line ('... Department of the' / 'Premier and Cabinet', 'Communauté
    d'agglomération' / 'du Pays de …'): after a linking word, or onto a line that opens with one."""
    ends_open = _FUNCTION_END.search(fold(value)) is not None
    for following in document.next_lines(line, 1):
        if following.row != line.row + 1 and not ends_open:
            break
        cell = following.cell_at(max(column - 2, 0))
        if cell is None or cell.start > column + 20:
            break
        if not ends_open and not (abs(cell.start - column) <= 3 and cell.text[:1].islower()
                                  and _FUNCTION_START.match(fold(cell.text)) and ":" not in cell.text):
            break
        addition = _cut_name(cell.text)
        if addition and len(addition.split()) <= 8:
            return f"{value} {addition}", [line, following]
    return value, [line]


def _label_names(document: Document) -> Iterator[tuple[Candidate[str] | None, Line]]:
    """Names read after a buyer label (same cell, right, below, next line, a 'Name:' field under a
    heading, or a sentence 'the contracting authority is X'), with the label's line; a label that
    heads a field without a readable name still marks where the buyer's block starts (None)."""
    for hit in document.find(_BUYER_LABEL):
        before = hit.line.folded[: hit.start]
        if _NEGATIVE_BEFORE_LABEL.search(before) and not _NAME_WORD_BEFORE.search(before[-40:]):
            continue
        if _OTHER_FIELD_BEFORE.search(before[-60:]):
            continue
        weak = _label_key(hit.label) in _WEAK_LABELS
        after = hit.line.folded[hit.end :]
        if re.match(r"^\s*['’]s\b", after):
            continue  # "Employer's Liability": a possessive, not the label
        # A label heads a field when a colon follows it, when it ends a short cell of its own (a form's
        # key column, GeM's 'मंत्रालय का नाम /Ministry/State Name'), or when it starts its line or column
        # and only heading words follow; in running text it needs a sentence ('X is the ... authority').
        strict = _label_key(hit.label) in _PERSON_PRONE
        cell = hit.line.cell_at(hit.start)
        ends_cell = cell is not None and not hit.line.text[hit.end : cell.end].strip(SEPARATORS + " ()") and \
            len(cell.text) <= 60 and len(hit.line.cells) > 1
        heads_line = hit.at_line_start or _SECTION_PREFIX.fullmatch(before.strip()) is not None \
            or re.search(r"\s{3,}$", before) is not None
        structured = ends_cell or re.match(r"^\s*(?:\([^)]{0,40}\))?\s*[*:：]", after) is not None or (
            heads_line and _HEADING_REST.match(after) is not None)
        score = (0.62 if weak else 0.72) + (0.05 if structured else 0.0)
        found = _name_after(document, hit, structured, strict=strict)
        if found is None:
            yield None, hit.line
            continue
        value, lines, how = found
        if how == "sentence":
            score = min(score, 0.66)
        yield Candidate(value, lines[0].page, _quote(lines), score, f"label {hit.label!r} ({how})"), hit.line


_INVITATION: Final = re.compile(
    r"(?:^\s*(?:\d{1,2}[.)]?|[a-zA-Z][.)]?|[ivx]+[.)])\s+|^\s*|[.;:,]\s+)"
    r"(?:[Tt]he\s+|[Ll]a\s+|[Ll]e\s+|[Ll][’']|[Ee]l\s+|[Ii]l\s+)?"
    r"(?P<name>[A-ZÀ-ÖØ-Ý][^\s.;:,]*(?:\s+(?:[A-ZÀ-ÖØ-Ý(“\"][^\s.;:,]*|of|for|and|de|du|des|la|le|et|d[’']\S+|"
    r"l[’']\S+|y|del|della|di|und|für|van|&))*)"
    r"\s+(?:now\s+|hereby\s+|herewith\s+)?(?:invites|seeks|is\s+seeking|wishes\s+to\s+(?:invite|procure|hire|engage)"
    r"|requests\s+(?:sealed\s+)?(?:bids|tenders|proposals|quotations)|hereby(?:\s+\w+|\s*$)|issues\s+(?:an?|the)\s+"
    r"(?:addendum|corrigendum|tender|invitation|request)|invite\s+(?:les|des|toutes)|lance\s+(?:un|le)\s+"
    r"|sollicite|se\s+propose|lädt|ladt|invita|convoca|zaprasza|nodigt)\b"
)
"""The sentence that opens an invitation: 'The African Centres for Disease Control and Prevention
(Africa CDC) now invites sealed Bids', 'The APEC Secretariat is seeking proposals', 'National
Cereals and Produce Board hereby amends' (matched on the text as printed: names are capitalised)."""

_INVITATION_AR: Final = re.compile(
    r"(?:تسعى|ترغب|تدعو|تعلن|يسر)\s+(?P<name>(?:[جو]امعة|وزارة|هيئة|الهيئة|شركة|[أا]مانة|بلدية|مؤسسة|المؤسسة|مديرية)"
    r"(?:\s+(?!متمثلة|ممثلة|في|إلى|الى|عن|على|بطرح)\S+){1,4})"
)
"""The same in Arabic, verb first: 'تسعى جامعة أم القرى متمثلة بعمادة ...' (the university seeks ...)."""


def _invitation_names(document: Document) -> Iterator[Candidate[str]]:
    """The organisation that invites, seeks or issues, named by the sentence's subject."""
    for line in document.lines:
        folded = line.folded
        if not re.search(r"invit|seek|hereby|issues|sollicit|propose|lance|ladt|convoca|zaprasza|nodigt", folded) \
                and not re.search(r"تسعى|ترغب|تدعو|تعلن|يسر", line.text):
            continue
        for pattern in (_INVITATION, _INVITATION_AR):
            for match in pattern.finditer(line.text):
                value = _clean(match.group("name"))
                if _looks_like_name(value, strict=True) and (pattern is _INVITATION_AR or _proper_name(value)):
                    yield Candidate(value, line.page, line.stripped, 0.6, "invitation")


def _name_after(document: Document, hit: LabelHit, structured: bool, *,
                strict: bool) -> tuple[str, list[Line], str] | None:
    """The first plausible name among the places a label's value may stand."""
    line = hit.line
    rest = line.text[hit.end :]
    if not structured:
        copula = _COPULA.match(fold(rest))
        if copula is not None:
            value = _cut_name(rest[copula.end() :])
            if _looks_like_name(value, strict=True) and _proper_name(value):
                return value, [line], "sentence"
        elif hit.at_line_start:
            # OCR loses the column gap of a form row ('Organisation Chain National Project ...||PSG COLLEGE'):
            # a capitalised organisation right after a line-starting label is still its value.
            value = _cut_name(rest.split("||")[-1])
            if _looks_like_name(value, strict=True) and _proper_name(value) and value[:1].isupper():
                return value, [line], "sentence"
        return None
    section = _SECTION_HEADING.search(line.folded[: hit.start]) is not None
    for span in document.spans_after(hit, below=1):
        if span.how == "next" and not hit.at_line_start and span.line.cells and \
                span.line.cells[0].end < hit.start - 2:
            continue  # the next line stands under another column
        if span.how == "right" and _heads_column(document, span):
            continue  # 'Section I: Buyer    Review procedures': the next column's heading
        sublabel = _NAME_SUBLABEL.match(fold(span.line.text)) if span.how != "same" else None
        text = span.text
        column = -1
        if sublabel is not None:
            text = _cell_from(span.line, sublabel.start("value"))
            column = _column_of(span.line, sublabel.start("value"))
        text = text.split("||")[-1]  # 'Ministry X||Department Y||PSG College': the chain's last link
        value = _cut_name(text)
        if span.how == "same":
            copula = _COPULA.match(fold(value))
            named = _cut_name(value[copula.end() :]) if copula is not None and copula.end() > 0 else ""
            if named and _looks_like_name(named, strict=True) and _proper_name(named):
                return named, [span.line], "sentence"
        if _looks_like_name(value, strict=strict or (section and span.how in ("right", "next"))):
            if column < 0:
                column = span.line.text.find(text.strip()[:10]) if text.strip() else 0
            full, lines = _continued(document, span.line, value, max(column, 0))
            if _grounded(full, _quote(lines)):
                return full, lines, span.how
    for following in document.next_lines(line, 3):
        sublabel = _NAME_SUBLABEL.match(following.folded)
        if sublabel is not None:
            value = _cut_name(_cell_from(following, sublabel.start("value")))
            if _looks_like_name(value, strict=True):
                full, lines = _continued(document, following, value, _column_of(following, sublabel.start("value")))
                return (full, lines, "name field") if _grounded(full, _quote(lines)) else (value, [following],
                                                                                            "name field")
    if hit.at_line_start:
        return _name_above(document, hit)
    return None


def _cell_from(line: Line, start: int) -> str:
    """The text of `line` from `start` to the end of its layout cell: a sub-field's value without the
    other column's text ('Nom officiel : Ville de X          Instance chargée des recours :')."""
    cell = line.cell_at(start)
    return line.text[start : cell.end] if cell is not None and cell.start <= start else line.text[start:]


def _column_of(line: Line, start: int) -> int:
    """Where the layout cell holding position `start` begins: a sub-field's value wraps back to the column
    of its label ('Nom officiel : Ville de' / 'Saint-Martin'), not under the value's first word."""
    cell = line.cell_at(start)
    return cell.start if cell is not None and cell.start <= start else start


def _heads_column(document: Document, span: Span) -> bool:
    """Whether a cell right of a label heads a column of its own: the line under it, in its column, is a
    bare label ('Review procedures' over 'Body responsible for review procedures:'), so it is that
    column's heading, not the label's value."""
    below = document.next_lines(span.line, 1)
    if not below or below[0].row != span.line.row + 1:
        return False
    start = span.line.text.find(span.text)
    if start < 0:
        return False
    column = Cell(start, start + len(span.text), span.text)
    under = [cell for cell in below[0].cells if cell.overlaps(column) and cell.start >= start - 2]
    return bool(under) and re.search(r"[^\W\d_]{3}.*[:：]$", under[0].text.strip()) is not None


def _name_above(document: Document, hit: LabelHit) -> tuple[str, list[Line], str] | None:
    """A two-column form whose label is centred against a taller value: the value's first lines stand
    ABOVE the label's line, in the right column ('IPN - Leibniz-Institut ...' / 'auffordernde Stelle:')."""
    line = hit.line
    label_cell = line.cell_at(hit.start)
    if label_cell is None:
        return None
    right = [cell for cell in line.cells if cell.start > label_cell.end]
    column = right[0].start if right else label_cell.end + 3
    block: list[Line] = []
    for other in _previous_lines(document, line, 4):
        if other.row != (block[-1].row if block else line.row) - 1:
            break
        if other.text[: column - 2].strip() or not other.text[column - 2 :].strip():
            break
        block.append(other)
    if not block:
        return None
    block.reverse()
    first = _cut_name(block[0].text.strip())
    value, lines = _continued(document, block[0], first, column)
    if _looks_like_name(value, strict=True) and _grounded(value, _quote(lines)):
        return value, lines, "above"
    return None


def _definition_names(document: Document) -> Iterator[Candidate[str]]:
    """'"Owner" is Camrose County.' in a definitions clause."""
    for line in document.lines:
        if "owner" not in line.folded and "employer" not in line.folded and "purchaser" not in line.folded \
                and "buyer" not in line.folded and "client" not in line.folded and "customer" not in line.folded \
                and "entity" not in line.folded and "authority" not in line.folded and "agency" not in line.folded:
            continue
        match = _DEFINITION.search(line.folded)
        if match is None:
            continue
        value = _clean(line.text[match.start("value") : match.end("value")])
        if _looks_like_name(value, strict=True) and len(value.split()) <= 8:
            yield Candidate(value, line.page, line.stripped, 0.65, "definition")


_DEFINED_ACRONYM: Final = re.compile(
    r"(?P<name>[A-ZÀ-ÖØ-Ý][^\s.;:,()]*(?:\s+(?:[A-ZÀ-ÖØ-Ý][^\s.;:,()]*|of|for|and|de|du|des|la|le|et|d[’']\S+|"
    r"l[’']\S+|y|del|della|di|und|für|van|&)){1,9})\s+\((?P<acronym>[A-Z]{2,6})\)"
)


def _acronym_names(document: Document) -> Iterator[Candidate[str]]:
    """'la Banque Ouest Africaine de Développement (BOAD) est ...': an organisation that the document
    defines by an acronym on its first page and then names by it throughout (at least five times, twice
    as often as any other defined organisation): the document's own party, when nothing else says so."""
    first = document.page_numbers[0] if document.page_numbers else None
    if first is None:
        return
    found: dict[str, tuple[str, list[Line]]] = {}
    page = [line for line in document.lines_of(first) if line.text.strip()]
    for position, line in enumerate(page):
        joined = line.stripped + (" " + page[position + 1].stripped if position + 1 < len(page) else "")
        for match in _DEFINED_ACRONYM.finditer(joined):
            name = _clean(re.sub(r"^(?:la|le|les|l[’']|the|el|il|der|die|das)\s+", "", match.group("name"),
                                 flags=re.IGNORECASE))
            if match.group("acronym") not in found and _looks_like_name(name, strict=True):
                quoted = [line] if match.end() <= len(line.stripped) else [line, page[position + 1]]
                found[match.group("acronym")] = (f"{name} ({match.group('acronym')})", quoted)
    if not found:
        return
    text = "\n".join(line.text for line in document.lines)
    counts = {acronym: len(re.findall(rf"\b{acronym}\b", text)) for acronym in found}
    best = max(counts, key=lambda acronym: counts[acronym])
    runner_up = max((count for acronym, count in counts.items() if acronym != best), default=0)
    value, quoted = found[best]
    if counts[best] >= 5 and counts[best] >= 2 * runner_up and _grounded(value, _quote(quoted)):
        yield Candidate(value, quoted[0].page, _quote(quoted), 0.5, "defined acronym")


def _letterhead_names(document: Document) -> Iterator[Candidate[str]]:
    """An organisation named at the top of the first page with text, or in a letter's return-address
    line ('Umweltbundesamt | Postfach 1406 | 06813 Dessau-Roßlau')."""
    for page in document.page_numbers[:2]:
        lines = [line for line in document.lines_of(page) if line.text.strip()]
        if len(lines) < 2:
            continue
        top = lines[:_LETTERHEAD_LINES]
        for position, line in enumerate(top):
            above = document.lines_of(page)[line.row - 1] if line.row > 0 else None
            if above is not None and above.text.strip() and _TITLE_WORDS.search(above.folded):
                continue  # the second line of a title ('... SERVIZIO TRASPORTO' / 'ALUNNI COMUNE DI TURI')
            parts = [part.strip() for part in line.text.split("|")]
            if len(parts) >= 3 and _POSTCODE.search(fold(parts[-1])) and not parts[0][:1].isdigit():
                value = _cut_name(parts[0])
                if _looks_like_name(value, strict=True):
                    yield Candidate(value, page, line.stripped, 0.6, "return address")
                continue
            for cell in line.cells:
                value = _cut_name(cell.text)
                folded = fold(value)
                if not _looks_like_name(value, strict=True) or _TITLE_WORDS.search(folded) or not _strong_org(folded):
                    continue
                if all(_GENITIVE_BEFORE.search(folded[: match.start()]) for match in _ORG_WORDS.finditer(folded)):
                    continue  # 'Reinigung der Schulgebäude der Stadt': something of the city, not the city
                if len(value.split()) > 12 or re.search(r"[.:;!?]\s", value) or "," in value[:3] or \
                        re.search(r"\d{4}", value) or not _proper_name(value):
                    continue
                full, quoted = _continued(document, line, value, cell.start)
                if full == value and position + 1 < len(top):
                    following = top[position + 1].cell_at(max(cell.start - 2, 0))
                    if following is not None and following.text[:1].islower() and \
                            (_FUNCTION_END.fullmatch(fold(following.text.split()[0])) or
                             following.text.split()[0].endswith(".")) and \
                            not _ORG_WORDS.search(fold(following.text)) and len(following.text.split()) <= 8 \
                            and not re.search(r"\d", following.text):
                        full, quoted = f"{value} {following.text.strip()}", [line, top[position + 1]]
                score = 0.55
                if _PARENT_ORG.match(folded) and position + 1 < len(top):
                    score = 0.45
                if _grounded(full, _quote(quoted)):
                    yield Candidate(full, page, _quote(quoted), score, "letterhead")
        return


_CACHE: list[tuple[Document, _Buyer]] = []


def _buyer(document: Document) -> _Buyer:
    """The buyer's name and block anchors, computed once per document (the five functions share it)."""
    for cached, found in _CACHE:
        if cached is document:
            return found
    candidates: list[Candidate[str]] = []
    anchors: list[Line] = []
    for candidate, label_line in _label_names(document):
        if candidate is not None:
            candidates.append(candidate)
        anchors.append(label_line)
    candidates.extend(_definition_names(document))
    candidates.extend(_invitation_names(document))
    candidates.extend(_acronym_names(document))
    candidates.extend(_letterhead_names(document))
    best = choose(candidates, _THRESHOLD)
    if best is not None:
        name = fold(best.value)
        for line in document.lines:
            stripped = line.folded.strip()
            if name in stripped and len(stripped) < len(name) + 40 and \
                    (stripped.startswith(name) or stripped.endswith(name)):
                anchors.append(line)
    found = _Buyer(best, tuple(sorted(set(anchors), key=lambda line: line.index)))
    _CACHE[:] = [(document, found)]
    return found


def buyer_name(document: Document) -> Sourced[str] | None:
    """The buyer (contracting authority) as the document names it, or None."""
    best = _buyer(document).name
    return best.sourced() if best is not None else None


# --- contacts: shared scoring --------------------------------------------------------------------------------


def _block_bonus(document: Document, line: Line, anchors: Sequence[Line]) -> float:
    """How much being at `line` says 'this is in the buyer's block': right under a buyer label or name."""
    best = 0.0
    for anchor in anchors:
        if anchor.page != line.page:
            continue
        distance = line.row - anchor.row
        if 0 <= distance <= _BLOCK_LINES:
            best = max(best, 0.3 - 0.015 * distance)
    return best


def _context(document: Document, line: Line, before: int = 1) -> str:
    """The folded text of `line` and the `before` non-blank lines above it (nearest last)."""
    previous = _previous_lines(document, line, before)
    return " ".join(other.folded for other in reversed(previous)) + " " + line.folded


def _negative(document: Document, line: Line, start: int) -> bool:
    """A contact on `line` at column `start` belongs to somebody else (help desk, tribunal, DPO...)."""
    own = line.folded[max(0, start - 160) : start + 60]
    previous = _previous_lines(document, line, 4)
    context = (previous[0].folded if previous else "") + " " + own
    if _CONTACT_NEGATIVE.search(context) is not None:
        return True
    return any(_HEADING_NEGATIVE.search(other.folded) for other in previous[1:])


# --- e-mail ---------------------------------------------------------------------------------------------------


def _email_candidates(document: Document, anchors: Sequence[Line]) -> Iterator[Candidate[str]]:
    """Every e-mail (also one split over two table lines, or whose '@' the text layer lost), scored by
    its label, the buyer's block, a contact/questions sentence and the letterhead; other parties' out."""
    for line in document.lines:
        if "@" not in line.text and not _EMAIL_LABEL.search(line.folded):
            continue
        found: list[tuple[int, str, list[Line]]] = []
        for match in _EMAIL.finditer(line.text):
            value = match.group().rstrip(".-")
            lines = [line]
            cell = line.cell_at(match.start())
            if cell is not None and cell.end <= match.end() + 1:
                for following in document.next_lines(line, 1):
                    below = following.cell_at(max(match.start() - 2, 0))
                    if below is not None and below.start <= match.end() and \
                            re.fullmatch(r"\.?[a-z]{2,6}(?:\.[a-z]{2,6})?", below.text.strip()):
                        joiner = "" if value.endswith(".") or below.text.strip().startswith(".") else "."
                        value = value + joiner + below.text.strip()
                        lines = [line, following]
            found.append((match.start(), value, lines))
        for match in _LOST_AT.finditer(line.folded):
            local = line.text[match.start("local") : match.end("local")]
            domain = line.text[match.start("domain") : match.end("domain")]
            found.append((match.start("local"), f"{local}@{domain}", [line]))
        for start, value, lines in found:
            local = re.sub(r"[._+-]+", " ", fold(value.split("@")[0]))
            if _negative(document, line, start) or _CONTACT_NEGATIVE.search(local) or re.search(r"\bhelp\b", local):
                continue
            score = 0.3
            before = line.folded[max(0, start - 40) : start]
            label_above = any(
                (_EMAIL_LABEL.search(other.folded) and len(other.folded.strip()) < 40)
                or _EMAIL_LABEL.search(other.folded.rstrip()[-40:]) is not None  # '... par mail à l'adresse' / 'x@y'
                for other in _previous_lines(document, line, 1)
            ) and line.folded[:start].strip() == ""
            left_cell = [cell for cell in line.cells if cell.end <= start]
            label_left = bool(left_cell) and _EMAIL_LABEL.search(fold(left_cell[-1].text)) is not None
            if _EMAIL_LABEL.search(before) or label_above or label_left:
                score += 0.25
            score += _block_bonus(document, line, anchors)
            if _CONTACT_POSITIVE.search(_context(document, line, 2)):
                score += 0.2
            if line.page == document.page_numbers[0] and line.row < 15 and \
                    len(re.findall(r"[^\W\d_]{2,}", _EMAIL.sub(" ", line.folded))) <= 6:
                score += 0.2  # a letterhead's contact line, not a sentence
            yield Candidate(value, line.page, _quote(lines), score, "e-mail")


def buyer_email(document: Document) -> Sourced[str] | None:
    """The buyer's contact e-mail (its block, a contact/questions sentence, an e-mail label), or None."""
    anchors = _buyer(document).anchors
    best = choose(_email_candidates(document, anchors), _THRESHOLD)
    return best.sourced() if best is not None else None


# --- phone ---------------------------------------------------------------------------------------------------


def _region(document: Document) -> str | None:
    """The country whose numbering plan national numbers follow, from the document's e-mail and web
    domains ('.fr' → FR); None when they do not say."""
    counts: dict[str, int] = {}
    for match in re.finditer(r"[\w-]\.([a-z]{2})\b(?![.@\w])", document.folded_text):
        code = match.group(1).upper()
        if code in {"UK"}:
            code = "GB"
        if phonenumbers.country_code_for_region(code):
            counts[code] = counts.get(code, 0) + 1
    if re.search(r"\.(?:gov|mil|us)\b", document.folded_text) and not counts:
        return "US"
    return max(counts, key=lambda code: counts[code]) if counts else None


def _phone_number(text: str, region: str | None) -> bool:
    """Whether `text` can be a phone number (phonenumbers' length rules for the region or its +code)."""
    main = re.sub(r"\s?(?:x|ext\.?|extn\.?|poste|durchwahl|int\.)\s?\d{1,5}$|\s?\(\d{1,5}\)$", "", text)
    main = re.sub(r"/\d{3,}$", "", main)  # '6536028/6555288': the first of two lines
    digits = re.sub(r"\D", "", main)
    if not 7 <= len(digits) <= 15 or _DATE_LIKE.match(text.strip()):
        return False
    try:
        parsed = phonenumbers.parse(main.replace("(0)", ""), region or "US")
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_possible_number(parsed)


def _letterhead_zone(document: Document, line: Line) -> bool:
    """Whether `line` is among the first twelve or the last four printed lines of the first page."""
    if not document.page_numbers or line.page != document.page_numbers[0]:
        return False
    printed = [other for other in document.lines_of(line.page) if other.text.strip()]
    return line in printed[:12] or line in printed[-4:]


def _phone_matches(document: Document, line: Line, region: str | None) -> Iterator[tuple[int, str, list[Line]]]:
    """Phone numbers on `line` (column, text as printed, lines quoted), including one that the layout
    wrapped onto the next line ('tél. : 03-27-21-87-' / '01', 'Tel. 080' / '6452208')."""
    text = line.text.rstrip()
    tail = re.search(r"(?:\(?\+?\d[\d\s()./-]*)$", text)
    wrapped: tuple[int, str, list[Line]] | None = None
    if tail is not None and (len(re.sub(r"\D", "", tail.group())) < 8 or tail.group().endswith("-")):
        following = document.next_lines(line, 1, skip_blank=False)
        head = re.match(r"\s*(\d[\d\s./-]{0,14}\d|\d)(?![\w@])", following[0].text) if following else None
        if head is not None:
            joined = _PHONE.match(text + " " + head.group(1), tail.start())
            if joined is not None and joined.end() > len(text):
                number = re.sub(r"-\s+", "-", joined.group().strip(" ./-"))
                if _phone_number(number, region):
                    wrapped = (joined.start(), number, [line, following[0]])
    for match in _PHONE.finditer(text):
        if wrapped is not None and match.start() >= wrapped[0]:
            break
        number = match.group().strip(" ./-")
        if _phone_number(number, region):
            yield match.start(), number, [line]
    if wrapped is not None:
        yield wrapped


def _phone_candidates(document: Document, anchors: Sequence[Line], email: Candidate[str] | None,
                      region: str | None) -> Iterator[Candidate[str]]:
    """Phone numbers with a phone label (same cell, cell to the left, line above or below) or standing
    alone next to the buyer's e-mail; never a fax, a PO box, a postcode or another party's number."""
    email_rows: set[tuple[int, int]] = set()
    if email is not None:
        wanted = email.value.casefold()
        email_rows = {(line.page, line.row) for line in document.lines
                      if "@" in line.text and wanted.split("@")[0] in line.text.casefold()}
    for line in document.lines:
        if not re.search(r"\d{2}", line.text):
            continue
        labelled_line = _PHONE_LABEL.search(line.folded) is not None
        near_email = any(page == line.page and abs(row - line.row) <= 3 for page, row in email_rows)
        previous = _previous_lines(document, line, 1)
        label_above = bool(previous) and _PHONE_LABEL.search(previous[0].folded) is not None
        following = document.next_lines(line, 1)
        label_below = bool(following) and _PHONE_LABEL.search(following[0].folded) is not None
        if not (labelled_line or near_email or label_above or label_below):
            continue
        for start, text, lines in _phone_matches(document, line, region):
            # The label stands before the number in its cell, or alone in the cell to its left.
            own = line.cell_at(start)
            before = line.folded[own.start : start][-30:] if own is not None and own.start < start else ""
            left = [cell for cell in line.cells if cell.end <= start]
            if not before.strip() and left:
                before = fold(left[-1].text)
            if _NOT_PHONE_BEFORE.search(line.folded[max(0, start - 20) : start]) and not _PHONE_LABEL.search(before):
                continue  # a PO box, a postcode or a reference number, not a phone
            fax_near = _FAX_LABEL.search(before)
            phone_near = _PHONE_LABEL.search(before)
            if fax_near and (phone_near is None or fax_near.start() > phone_near.start()):
                continue
            if not phone_near and previous and _FAX_LABEL.search(previous[0].folded) \
                    and not _PHONE_LABEL.search(previous[0].folded):
                continue
            only_number = re.fullmatch(r"[\s\d()+./x-]*", line.text.replace(text, "")) is not None
            if phone_near:
                score = 0.45
            elif label_above and (only_number or len(previous[0].folded.strip()) < 30):
                score = 0.45
            elif label_below:
                score = 0.35
            elif near_email and only_number:
                score = 0.45
            else:
                continue
            if _negative(document, line, start):
                continue
            score += _block_bonus(document, line, anchors)
            if near_email:
                score += 0.2
            if _CONTACT_POSITIVE.search(_context(document, line, 2)):
                score += 0.1
            if _letterhead_zone(document, line):
                score += 0.1  # the buyer's own letterhead or footer line
            yield Candidate(text, line.page, _quote(lines), score, "phone")


def buyer_phone(document: Document) -> Sourced[str] | None:
    """The buyer's phone number (labelled, in its block or next to its e-mail; not a fax), or None."""
    buyer = _buyer(document)
    with reading_field("buyer.email"):  # the e-mail it stands next to, not a phone number
        email = choose(_email_candidates(document, buyer.anchors), _THRESHOLD)
    best = choose(_phone_candidates(document, buyer.anchors, email, _region(document)), _THRESHOLD)
    return best.sourced() if best is not None else None


# --- postal address ------------------------------------------------------------------------------------------

_ADDRESS_STOP: Final = re.compile(
    r",?\s*(?:\(?tel\b|tél|telephone|phone|fax|e-?mail|courriel|pec\b|c\.?f\.?\b|p\.?\s?iva|http|www\.|nip\b|"
    r"vat\b|siret|adresse internet|contact)|\s{3,}|\s\|\s?$"
)


_ADDRESS_FIELD: Final = re.compile(
    r"^(?:town|city|ort|ville|localite|citta|comune|localidad|poblacion|municipio|miejscowosc|plaats|cidade|"
    r"postal code|post code|postcode|zip(?: code)?|code postal|plz|postleitzahl(?: \(plz\))?|cap|codigo postal|"
    r"kod pocztowy|postcode|nuts code)\s*[:：]\s*"
)
"""A form's own field for the town or the postcode, whose value continues a street address."""


def _address_at(document: Document, line: Line, start: int) -> tuple[str, list[Line]] | None:
    """The address that starts at column `start` of `line`: the street, then its postcode and town on
    the same line or on the next lines (a form's separate 'PLZ' and 'Ort' fields included)."""
    text = line.text[start:]
    stop = _ADDRESS_STOP.search(fold(text))
    raw = (text[: stop.start()] if stop else text).rstrip()
    street = _clean(raw).rstrip(" -–,") + ("-" if re.search(r"[^\W\d_]-$", raw) else "")
    if not street or _PO_BOX.search(fold(street)):
        return None
    parts = [street]
    lines = [line]
    postcode_seen = _POSTCODE.search(fold(street), 4) is not None
    town_seen = postcode_seen and re.search(r"\d[\s,()-]*[a-z]{3}|[a-z]{3}[\s,]+\(?\d", fold(street)) is not None
    town_field = False
    for following in document.next_lines(line, 3):
        if town_seen and not parts[-1].endswith("-"):
            break
        cells = [cell for cell in following.cells if not cell.text.rstrip().endswith(":")]
        if not cells:
            break
        cell = min(cells, key=lambda cell: abs(cell.start - start))
        if abs(cell.start - start) > 40 and len(following.cells) > 1:
            break
        value_text = following.text[cell.start :]
        field = _ADDRESS_FIELD.match(fold(value_text))
        if field is not None:
            value_text = value_text[field.end() :]
        stop = _ADDRESS_STOP.search(fold(value_text))
        piece = _clean(value_text[: stop.start()] if stop else value_text)
        folded_piece = fold(piece)
        if not piece or _PO_BOX.search(folded_piece) or "@" in piece or len(piece.split()) > 7:
            break
        postcode = _POSTCODE.search(folded_piece)
        if postcode_seen:
            if parts[-1].endswith("-"):
                piece = piece.split(",")[0]
            elif postcode is not None or not re.fullmatch(r"[^\d]{2,40}", piece):
                break
            town_seen = True  # 'Ort: Dessau-Roßlau' after 'PLZ: 06844'
        elif postcode is not None and postcode.start() <= 30:
            postcode_seen = True
            town_seen = town_field or re.search(r"[a-z]{3}", folded_piece.replace(postcode.group(), " ")) is not None
        elif field is not None and not town_field and re.fullmatch(r"[^\d]{2,40}", piece):
            town_field = True  # 'Town: Ostheim' before 'Postal code: 12345'
        elif parts[-1].endswith("-") or re.search(r"\b(?:room|suite|floor|etage|piso|stock|bldg|building)\b",
                                                 folded_piece):
            pass  # 'Pointe-' / 'à-Pitre Cedex'; 'Room 109'
        else:
            break
        if parts[-1].endswith("-"):
            parts[-1] += piece
        else:
            parts.append(piece)
        lines.append(following)
    if not postcode_seen:
        return None
    value = " ".join(parts)
    while len(parts) > 1 and not _grounded(value, _quote(lines)):
        # Form fields one per line ('Town: Ostheim' / 'Postal code: 12345') are not one run of text: keep
        # what the quote grounds, the street at least.
        parts.pop()
        lines.pop()
        value = " ".join(parts)
    if len(value) > 160 or not _grounded(value, _quote(lines)):
        return None
    return value, lines


def _street_in(line: Line) -> Iterator[int]:
    """Columns where a street with its number starts on `line`, cell by cell."""
    for cell in line.cells:
        if cell.text.rstrip().endswith(":") and len(cell.text) < 40:
            continue  # a label cell ('Straße, Hausnummer:')
        match = _STREET.search(fold(cell.text))
        if match is not None:
            yield cell.start + match.start()


_NOT_ADDRESS_CONTEXT: Final = re.compile(
    r"pre-?proposal|pre-?bid|site visit|session|meeting|opening|apertura|ouverture|offnung"
    r"|place of performance|lieu d'execution|lieu de livraison|leistungsort|luogo di esecuzione"
    r"|lugar de ejecucion|delivery|livraison|lieferung|consegna|entrega|site address|project site"
    r"|billing|invoice|factur|rechnung|fattur|bidder|tenderer|supplier|contractor|soumissionnaire"
    r"|bieter|offerente|licitador|wykonawc|inschrijver"
)
"""An address in such a context is a meeting place, the works site or another party's address."""

_ADDRESS_HEADING: Final = re.compile(
    r"(?:address(?:\(?es\)?)?|adresse|anschrift|indirizzo|direccion|endereco|adres|العنوان)(?:\s+\w+){0,3}"
    r"\s*(?:is|are|est|ist|es|e)?\s*(?:\(are\))?\s*[:：]?\s*[-–]*\s*$"
    r"|addressed to\s*[:：]?\s*[-–]*\s*$|a l'adresse suivante\s*:?\s*$"
)
"""A line that announces an address block below it: 'The address(es) referred to above is (are):',
'... addressed to:-', 'Office Address'."""

_STOP_BLOCK: Final = re.compile(
    r"@|https?:|www\.|(?<![^\W_])(?:tel|tél|telephone|phone|ph|fax|e-?mail|email|website|web site|mobile|"
    r"contact|cell|الهاتف|البريد)(?![^\W_])"
)
_VERB: Final = re.compile(
    r"(?<![^\W_])(?:will|shall|is|are|be|must|may|should|has|have|can|est|sont|sera|doit|ist|sind|wird|"
    r"werden|e|sono|deve|es|son|debe|jest|sa|moet|wordt)(?![^\W_])"
)
"""Verbs that make a line a sentence rather than an address line."""

_ROLE_LINE: Final = re.compile(
    r"^(?:(?:mr|mrs|ms|dr|m|mme|herr|frau|attn|attention|a l'attention|z\. ?hd|name|nom|c/o)\b|the (?:managing )?"
    r"(?:director|principal|chairman|secretary|head|registrar|manager|commissioner|chief))"
)
_ADDRESS_WORD: Final = re.compile(
    r"(?<![^\W_])(?:" + _STREET_FULL + r"|roads?|streets?|avenue|marg|nagar|complex|estate|floor|tower|building|"
    r"house|bhavan|square|district|dist|area|zone|sector|block|plot|close|crescent|suite|room|etage|stock|piso|"
    r"piano)(?![^\W_])"
)


def _address_like(folded: str) -> bool:
    """Whether joined block text reads as a postal address: a PO box, or a number and a postcode or
    street-ish word."""
    if _PO_BOX.search(folded):
        return True
    if not re.search(r"\d", folded):
        return False
    words = set(_ADDRESS_WORD.findall(folded))
    return _POSTCODE.search(folded) is not None and bool(words) or len(words) >= 2 or _STREET.search(folded) is not None


def _address_block(document: Document, first: Line | None, after: Line, column: tuple[int, int] | None,
                   skip: str = "") -> tuple[str, list[Line]] | None:
    """An address printed as a block of short lines: `first` (already cut, may be None) then the lines
    below `after`, each one cell (or the cell under `column`), until a contact line, a long line, a
    blank gap or six lines; leading person or role lines and the buyer's own name are left out."""
    texts: list[str] = []
    lines: list[Line] = []
    if first is not None:
        texts.append(first.stripped if column is None else first.text[column[0] :].strip())
        lines.append(first)
    blank = 0
    for line in document.lines_of(after.page)[after.row + 1 :]:
        if len(lines) >= 6:
            break
        if not line.text.strip():
            blank += 1
            if blank > 1 or not lines:
                if lines:
                    break
                continue
            continue
        blank = 0
        cells = line.cells
        if column is not None and len(cells) > 1:
            cells = tuple(cell for cell in cells if cell.overlaps(Cell(column[0], column[1], ""), slack=4))
        if len(cells) != 1:
            break
        text = cells[0].text.strip()
        folded = fold(text)
        if _STOP_BLOCK.search(folded) or len(text.split()) > 12 or _placeholder(text) or \
                _NOT_ADDRESS_CONTEXT.search(folded) or _VERB.search(folded) or _TITLE_WORDS.search(folded) or \
                (lines and re.match(r"^[^:]{2,30}[:：]\s", text) and not _ROLE_LINE.match(folded)):
            break  # a contact line, a sentence, another party, or a form's next field
        if not texts and (_ROLE_LINE.match(folded) or (skip and folded.strip(" ,.") == skip)):
            continue
        texts.append(text)
        lines.append(line)
    if not texts:
        return None
    value = _clean(" ".join(texts))
    if not _address_like(fold(value)) or len(value) > 200 or not _grounded(value, _quote(lines)):
        return None
    return value, lines


def _address_candidates(document: Document, anchors: Sequence[Line], name: str) -> Iterator[Candidate[str]]:
    """Addresses in the buyer's block, under an address label or heading, after the buyer's name in a
    sentence, and in the first page's letterhead (a PO box there only as a last resort)."""
    seen: set[tuple[int, int]] = set()

    def usable(line: Line, start: int) -> bool:
        """Not another party's address, nor a meeting place, a site or a delivery point."""
        return not _negative(document, line, start) and not _NOT_ADDRESS_CONTEXT.search(_context(document, line, 1))

    def from_line(line: Line, score: float, why: str) -> Iterator[Candidate[str]]:
        """The street addresses that start on `line`."""
        for start in _street_in(line):
            if (line.index, start) in seen:
                continue
            seen.add((line.index, start))
            if not usable(line, start):
                continue
            found = _address_at(document, line, start)
            if found is not None:
                value, lines = found
                yield Candidate(value, line.page, _quote(lines), score, why)

    def block(first: Line | None, after: Line, column: tuple[int, int] | None, score: float,
              why: str) -> Iterator[Candidate[str]]:
        """The address block below `after` (see _address_block); a street beats a PO box alone."""
        if not usable(after, 0):
            return
        found = _address_block(document, first, after, column, skip=name)
        if found is not None:
            value, lines = found
            if not _PO_BOX.search(fold(value)) or _ADDRESS_WORD.search(_PO_BOX.sub(" ", fold(value))):
                score += 0.03  # a street address beats a PO box alone
            yield Candidate(value, lines[0].page, _quote(lines), score, why)

    blocked: set[str] = set()
    for anchor in anchors:
        for distance, line in enumerate([anchor, *document.next_lines(anchor, _BLOCK_LINES)]):
            yield from from_line(line, 0.75 - 0.02 * distance, "buyer block")
        if anchor.folded.strip() in blocked:
            continue  # a running page header names the buyer on every page: its first block is enough
        blocked.add(anchor.folded.strip())
        cell = anchor.cells[-1] if anchor.cells else None
        column = (cell.start, cell.end) if cell is not None and len(anchor.cells) > 1 else None
        yield from block(None, anchor, column, 0.62, "block under the buyer")
    for line in document.lines if name else ():
        at = line.folded.find(name)
        tail = re.match(r"\s*,\s*", line.folded[at + len(name) :]) if at >= 0 else None
        if tail is not None:  # 'submitted to the Bank of India, Zonal Office, 849, ..., Hardoi 241001'
            yield from _address_after_name(document, line, at + len(name) + tail.end())
    for hit in document.find(_ADDRESS_LABEL):
        before = hit.line.folded[: hit.start]
        if _NEGATIVE_BEFORE_LABEL.search(before) and not hit.at_line_start and not re.search(r"\s{3,}$", before):
            continue
        bonus = 0.5 * _block_bonus(document, hit.line, anchors)
        for span in document.spans_after(hit, below=2):
            if span.distance > 2:
                break
            yield from from_line(span.line, 0.6 + bonus, "address label")
        rest = hit.line.text[hit.end :]
        copula = re.match(r"^\s*(?:\(es\))?\s*(?:is|are|:|：)\s*(?:\(are\))?\s*[:：]?\s*", fold(rest))
        if _ADDRESS_HEADING.search(hit.line.folded[hit.start :]):
            yield from block(None, hit.line, None, 0.6 + bonus, "address heading")
        elif copula is not None and rest[copula.end() :].strip():
            start = hit.end + copula.end()
            cell = hit.line.cell_at(start)
            if re.search(r"\b(?:is|are)\b", copula.group()):
                found = _address_sentence(document, hit.line, start)
                if found is not None and usable(hit.line, hit.start):
                    yield Candidate(found[0], hit.line.page, _quote(found[1]), 0.6 + bonus, "address sentence")
            elif cell is not None:
                yield from block(hit.line, hit.line, (start, cell.end), 0.6 + bonus, "address field")
        elif (right := [cell for cell in hit.line.cells if cell.start > hit.end]):
            yield from block(hit.line, hit.line, (right[0].start, right[0].end), 0.6 + bonus, "address field")
    first = document.page_numbers[0] if document.page_numbers else None
    if first is not None:
        lines = [line for line in document.lines_of(first) if line.text.strip()]
        for line in lines[:12]:
            yield from from_line(line, 0.55, "letterhead")
            for cell in line.cells:
                box = _PO_BOX.search(fold(cell.text))
                if box is None:
                    continue
                if not cell.text[: box.start()].strip():
                    yield from block(line, line, (cell.start, cell.end), 0.52, "letterhead PO box")
                    continue
                # OCR joins the letterhead's columns: 'Telephone: +254 ... P.O. Box 30586-00100'
                text = cell.text[box.start() :]
                stop = _ADDRESS_STOP.search(fold(text))
                value = _clean(text[: stop.start()] if stop else text)
                if _grounded(value, line.stripped):
                    yield Candidate(value, line.page, line.stripped, 0.51, "letterhead PO box")


def _address_sentence(document: Document, line: Line, start: int) -> tuple[str, list[Line]] | None:
    """'... postal address is 1521 Cadastral Zone A0, Off Memorial Close, Beside / Silverbird Galleria,
    Central Business District, Abuja.': the rest of the sentence, over up to three lines."""
    texts = [line.text[start:].strip()]
    lines = [line]
    for following in document.next_lines(line, 2):
        if re.search(r"[.;]\s*$|[.;]\s", texts[-1]):
            break
        texts.append(following.stripped)
        lines.append(following)
    joined = " ".join(texts)
    end = re.search(r"[.;](?:\s|$)", joined)
    value = _clean(joined[: end.start()] if end else joined)
    if len(value.split()) > 25 or "@" in value or not _address_like(fold(value)) and \
            not (re.search(r"\d", value) and value.count(",") >= 2):
        return None
    return (value, lines) if _grounded(value, _quote(lines)) else None


def _address_after_name(document: Document, line: Line, start: int) -> Iterator[Candidate[str]]:
    """The address that follows the buyer's name in a sentence, up to its postcode."""
    following = document.next_lines(line, 1)
    joined = line.text[start:].rstrip() + (" " + following[0].stripped if following else "")
    postcode = next((match for match in _POSTCODE.finditer(fold(joined)) if len(match.group()) >= 5), None)
    if postcode is None or postcode.end() > 160:
        return
    value = _clean(joined[: postcode.end()])
    lines = [line, *following] if postcode.end() > len(line.text[start:].rstrip()) else [line]
    if len(value.split()) <= 20 and _address_like(fold(value)) and _grounded(value, _quote(lines)) \
            and not _NOT_ADDRESS_CONTEXT.search(_context(document, line, 1)):
        yield Candidate(value, line.page, _quote(lines), 0.6, "address after the name")


def buyer_address(document: Document) -> Sourced[str] | None:
    """The buyer's postal address (street, postcode, town) in its block, under an address label, or in
    the first page's letterhead; never a PO box, a review body's or a meeting place's address."""
    buyer = _buyer(document)
    name = fold(buyer.name.value) if buyer.name is not None else ""
    best = choose(_address_candidates(document, buyer.anchors, name), _THRESHOLD)
    return best.sourced() if best is not None else None


# --- submission URL ------------------------------------------------------------------------------------------


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of `text` that holds the span start..end (a URL's own final dot does not end it)."""
    boundaries = [match.end() for match in re.finditer(r"[.!?;]\s", text[:start])]
    begin = boundaries[-1] if boundaries else 0
    after = re.search(r"[.!?;]\s", text[end:])
    return text[begin : end + after.start() if after else len(text)]


def _url_candidates(document: Document) -> Iterator[Candidate[str]]:
    """URLs whose sentence says offers are submitted there (or whose host the submission sentence
    names), a platform field ('e-Vergabesystem: https://...'), below that a buyer profile; never a URL
    in a sentence about help, terms, law, forms, or only about documents and publication."""
    for line in document.lines:
        if "http" not in line.folded and "www." not in line.folded:
            continue
        page = document.lines_of(line.page)
        paragraph: list[Line] = []  # the lines above in the same paragraph (no blank line between)
        for other in reversed(page[max(0, line.row - 2) : line.row]):
            if not other.text.strip():
                break
            paragraph.insert(0, other)
        for match in _URL.finditer(line.text):
            value = match.group().rstrip(".,;:)/") + ("/" if match.group().rstrip(".,;:)").endswith("/") else "")
            if value.count(".") < 1 or len(value) < 8:
                continue
            following = [other.folded.strip() for other in document.next_lines(line, 1, skip_blank=False)
                         if other.text.strip()]
            head = " ".join([*(other.folded.strip() for other in paragraph), line.folded[: match.start()].strip()])
            tail = " ".join([line.folded[match.end() :].strip(), *following])
            window = re.sub(r"-\s+(?=[a-z])", "", f"{head} <url> {tail}")
            url_at = window.find("<url>")
            sentence = _sentence_around(window, url_at, url_at + 5)
            near = " ".join([*(other.folded for other in paragraph[-1:]), line.folded[: match.start()]])
            if _SUBMIT_NEGATIVE.search(sentence) or _SUBMIT_NEGATIVE.search(fold(value)):
                continue
            if _SUBMIT_SOFT_NEGATIVE.search(sentence) and not _SUBMIT_POSITIVE.search(sentence):
                continue
            host = re.sub(r"^(?:https?://)?(?:www\.)?", "", fold(value)).split("/")[0]
            wider = " ".join(other.folded for other in reversed(_previous_lines(document, line, 2)))
            named = [word for word in re.split(r"[.-]", host)[:-1] if len(word) >= 5 and word in wider]
            if _SUBMIT_POSITIVE.search(sentence):
                score = 0.7
            elif _SUBMIT_POSITIVE.search(wider) and named:
                score = 0.6  # 'Składanie ofert ... platformy MINIPORTAL.' / '(miniportal: https://miniportal...)'
            elif (platform := _SUBMIT_PLATFORM.search(line.folded[: match.start()])) is not None and \
                    re.fullmatch(r"[^.]{0,25}[:：]\s*", line.folded[platform.end() : match.start()]):
                score = 0.5  # 'e-Vergabesystem: https://...', 'Plateforme : https://...'
            elif _SUBMIT_PLATFORM.search(near):
                score = 0.45
            elif _BUYER_PROFILE.search(near):
                score = 0.45
            else:
                continue
            yield Candidate(value, line.page, line.stripped, score, "submission url")


def submission_url(document: Document) -> Sourced[str] | None:
    """Where offers are submitted (an e-procurement platform named as such), or None."""
    best = choose(_url_candidates(document), _THRESHOLD)
    return best.sourced() if best is not None else None
