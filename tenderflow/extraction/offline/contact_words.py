"""The words of a buyer's contacts: street, postcode and PO-box shapes, address, e-mail and phone
labels, the contexts of other parties' contacts, and the wording of a submission URL's sentence.

All patterns match FOLDED text (see document.fold).
"""

from __future__ import annotations

import re
from typing import Final

from tenderflow.extraction.offline.buyer_words import any_word, words_pattern
from tenderflow.extraction.offline.contact_lexicon import (
    ADDRESS_LABELS_WORLD,
    ADDRESS_SHAPES_UNSPACED,
    ADDRESS_STOPS_WORLD,
    ADDRESS_WORDS_WORLD,
    CONTACT_POSITIVE_WORLD,
    COUNTRY_FIELDS,
    EMAIL_LABELS_WORLD,
    FAX_LABELS_WORLD,
    NOT_ADDRESS_AFTER_LABEL,
    NOT_ADDRESS_CONTEXTS_WORLD,
    OTHER_CONTACTS_WORLD,
    PHONE_LABELS_WORLD,
    PLACE_LABELS,
    POSTAL_LABELS,
    PROCUREMENT_WORDS,
    SUBMIT_NEGATIVE_WORLD,
    SUBMIT_POSITIVE_WORLD,
)
from tenderflow.extraction.offline.document import label_regex

STREET_FULL: Final = (
    r"rue|avenue|boulevard|place|chemin|allee|impasse|quai|route|cours|square|"
    r"street|road|drive|lane|way|court|highway|parkway|plaza|terrace|circle|"
    r"via|viale|piazza|piazzale|corso|largo|vicolo|contrada|localita|"
    r"calle|avenida|paseo|camino|carrera|ronda|travesia|"
    r"rua|praca|travessa|alameda|estrada|"
    r"ulica|aleja|plac|osiedle|"
    r"straat|laan|plein|gracht|kade|"
    r"strasse|platz|ring|damm|gasse|ufer|chaussee|markt"
)
STREET_ABBREVIATION: Final = r"av|bd|st|rd|dr|ln|ct|ave|blvd|hwy|pkwy|str|ul|al|weg"
STREET_WORD: Final = STREET_FULL + "|" + STREET_ABBREVIATION
STREET: Final = re.compile(
    # '5815 Buffalo Avenue', '1, rue André Michel', '3755 – 43 ave', '80 Calvert Street'
    r"(?<![\w.])\d{1,5}[a-z]?\s*,?\s*(?:[-–]\s*\d{1,4}\s+)?(?:[\w'’.\-]+\s+){0,4}?(?:" + STREET_WORD + r")\b\.?"
    # 'via XX Settembre 5', 'Al. Piłsudskiego 11', 'Plaza de Santa María, 1', 'rue Félix Eboué'
    r"|(?<![\w])(?:(?:" + STREET_FULL + r")\b|(?:" + STREET_ABBREVIATION + r")\.,?)\s*(?:[\w'’.\-]+,?\s+){0,5}?"
    r"(?:\d{1,5}[a-z]?\b|(?=\d{4,5}\s))"
    r"|(?<![\w])(?:rue|via|viale|piazza|calle|avenida|rua)\s+[\w'’.\-]+(?:\s+[\w'’.\-]+){0,3}"
    # 'Olshausenstraße 62', 'Wörlitzer Platz 1'
    r"|(?<![\w])[\w\-]+(?:strasse|str\.|weg|platz|allee|ring|damm|gasse|ufer|chaussee)\s+\d{1,4}[a-z]?\b"
    r"|(?<![\w])[\w\-]+\s+(?:strasse|platz|allee|weg|ring|damm|gasse|ufer)\s+\d{1,4}[a-z]?\b"
    # 'Demircikara Mah. Paşakavakları Cad. No:11', 'Atatürk Bulvarı No: 5'
    r"|(?<![\w])[\w'’\-]+\s+(?:mah\.?|mahallesi|cad\.?|caddesi|sok\.?|sokak|sokag[iı]|bulvar[iı]|blv\.?)\s+"
    r"(?:[\w'’.\-]+\s+){0,4}?no\s*[:.]?\s*\d{1,5}"
)
"""A street with its house number, in many languages (matched on FOLDED text)."""

POSTCODE: Final = re.compile(
    r"(?<!\w)(?<!\w-)(?:\(?\d{5}\)?|\d{3}\s\d{3}|\d{2}-\d{3}|[a-z]{1,2}\d[a-z\d]?\s\d[a-z]{2}|[a-z]\d[a-z]\s?\d[a-z]\d"
    r"|\d{4}\s?[a-z]{2}|\d{4}|\d{3}\s\d{2}|\d{6})"
    r"(?![\w-])"
)
"""Postcodes: FR/DE/IT/ES/US five digits, PL 18-404, CA T4V 3S8, UK SW1A 2AA, NL 1234 AB, AU/AT/CH
four digits, IN six ('400 001', 'Kheda -388239')."""

PO_BOX: Final = re.compile(
    r"(?<![^\W_])(?:postfach|p\.?\s?o\.?\s?box|post office box|private bag|boite postale|b\.?p\.?|"
    r"casella postale|apartado (?:de correos|postal|aereo)|apdo|skrytka pocztowa|postbus|caixa postal|cs|ص\.?\s?ب)"
    r"\s*[.:]?\s*(?:n[o°º]?\.?\s*)?\d"
)
"""A post-office box with its number ('P.O. Box 3855', 'Postfach 1406', 'BP 120')."""

ADDRESS_LABELS: Final = (
    "address", "addresses", "address es", "addressed to", "physical address", "a l'adresse suivante",
    "postal address", "mailing address", "street address", "office address", "adresse",
    "adresse postale", "anschrift", "postanschrift", "strasse hausnummer", "indirizzo", "sede", "sede legale",
    "direccion", "direccion postal", "domicilio", "endereco", "morada", "adres", "siedziba", "adres siedziby",
    "adresse officielle", "العنوان", *ADDRESS_LABELS_WORLD,
)
ADDRESS_LABEL: Final = label_regex((*ADDRESS_LABELS, *PLACE_LABELS))
POSTAL_LABEL: Final = label_regex(POSTAL_LABELS)
PLACE_LABEL: Final = label_regex(PLACE_LABELS)
NOT_ADDRESS_AFTER: Final = re.compile(r"\s*(?:" + words_pattern(NOT_ADDRESS_AFTER_LABEL) + r")")
"""What follows an address label that makes it another field ('Адрес электронной почты', 'Adresa web')."""
ADDRESS_WORD_WORLD: Final = re.compile(any_word(ADDRESS_WORDS_WORLD))
ADDRESS_SHAPE_UNSPACED: Final = re.compile("|".join(ADDRESS_SHAPES_UNSPACED))

EMAIL: Final = re.compile(r"(?<![\w.+-])[A-Za-z0-9.+_-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
"""An e-mail address: ASCII, so that a label or a word of a script without spaces before it stays out
('邮箱nbctgs@…', a CJK character being a word character)."""
EMAIL_LABEL_WORDS: Final = (
    r"e-?mail|email address|e-mail address|courriel|adresse electronique|correo electronico|correo|"
    r"posta elettronica(?: certificata)?|pec|adres e-?mail|e-?mail-?adresse|mail|البريد الإلكتروني|البريد"
)
EMAIL_LABEL: Final = re.compile(any_word((
    "email", "e-mail", "e mail", "email address", "e-mail address", "courriel", "adresse electronique",
    "correo electronico", "correo", "posta elettronica", "posta elettronica certificata", "pec", "adres email",
    "adres e-mail", "email-adresse", "e-mail-adresse", "e-mailadresse", "mail", "البريد الإلكتروني", "البريد",
    *EMAIL_LABELS_WORLD,
)))
LOST_AT: Final = re.compile(
    r"(?<![^\W_])(?:" + EMAIL_LABEL_WORDS + r")\s*[:：]\s*"
    r"(?P<local>[a-z0-9][\w.+-]*[a-z0-9])\s(?P<domain>[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.[a-z]{2,6})(?![\w@-])"
)
"""'courriel : commande-publique ville-nimes.fr': text extraction dropped the '@'."""

PHONE_LABEL: Final = re.compile(any_word((
    "tel", "tel.", "tél", "telephone", "telephone number", "phone", "phone number", "ph", "mobile", "mob", "cell",
    "telefon", "telefono", "telefoon", "fon", "numer telefonu", "tfno", "contact number", "contact no", "هاتف",
    "الهاتف", "جوال",
    # eForms labels (BT-503 'Telephone'): Swedish 'Tfn'; the Nordic and German 'Telefonnummer'
    "tfn", "telefonnummer",
    *PHONE_LABELS_WORLD,
)))
FAX_LABEL: Final = re.compile(
    r"(?<![^\W_])(?:fax|telefax|facsimile|télécopie|telecopie|faks|فاكس|الفاكس)(?![^\W_])|" + any_word(FAX_LABELS_WORLD)
)
PHONE: Final = re.compile(
    r"(?<![0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff+])(?:\(?\+\d{1,3}\)?[\s.-]?)?(?:\(0\)\s?)?"
    r"(?:\(\d{1,5}\)[\s.-]?)?\d[\d\s./-]{4,18}\d"
    r"(?:\s?(?:x|ext\.?|extn\.?|poste|durchwahl|int\.)\s?\d{1,5}|\s?\(\d{1,5}\))?"
    r"(?![0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff])"
)
"""A phone number as printed (matched on narrowed text: full-width digits and dashes made plain), with an
extension ('x 2290', '(253)'); '6536028/6555288' lists two lines. A letter of a spaced script may not
touch it; a character of a script without spaces may ('电话0573-83637572')."""
NOT_PHONE_BEFORE: Final = re.compile(
    r"(?<![^\W_])(?:box|postfach|b\.?p|apartado|casella postale|pin|pincode|zip|postal code|code postal|plz|cap|kod|"
    r"n[o°º]|ref|reference|no\.|cod postal|pk|vkn|mst|инн|кпп|огрн|окпо|икз|индекс|код|єдрпоу|едрпоу|τ\.?κ)\W*$"
    r"|(?:〒|우\)|우편번호|邮编|邮政编码|法人番号|统一社会信用代码)\W*$"
)
"""What makes a long number a PO box, a postcode or a reference rather than a phone."""
DATE_LIKE: Final = re.compile(r"^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$|^\d{4}[./-]\d{1,2}[./-]\d{1,2}$")

URL: Final = re.compile(r"(?:https?[:：]//|www\.)[^\s<>\"'()\[\]{}（）“”‘’，。、；]+", re.IGNORECASE)
"""A URL as printed, also with a full-width colon ('http：//www.jxcqgs.cn/jxcqcg/')."""

CONTACT_NEGATIVE: Final = re.compile(
    r"(?<![^\W_])(?:help ?desk|hotline|support|assistance technique|technical assistance|invoice|invoices|"
    r"invoicing|accounts payable|billing|factur\w*|rechnung\w*|fattur\w*|tribunal|recours|review body|"
    r"vergabekammer|nachprufung\w*|ricorso|ricorsi|t\.?a\.?r\.?|mediation|mediateur|ombudsman|complaint|"
    r"complaints|grievance|reclamo|reclamacion|integrity|monitor|independent external monitor|evaluat\w*|"
    r"evaluador\w*|valutator\w*|commissione giudicatrice|data protection|protection des donnees|"
    r"datenschutz\w*|ochrony danych|iod|rodo|privacy|dpo|webmaster|noreply|no-reply|betreiber\w*|operator|"
    r"plateforme|platform operator|template|author|greffe)(?![^\W_])|" + any_word(OTHER_CONTACTS_WORLD)
)
"""Contacts that are not the buyer's: help desks, platform support, review bodies, evaluators..."""

HEADING_NEGATIVE: Final = re.compile(
    r"(?<![^\W_])(?:support desk|help ?desk|helpline|technical support|hotline|service desk|support team|"
    r"assistance technique|tribunal|review body|vergabekammer|data protection|ochrony danych|evaluat\w*|"
    r"evaluador\w*)(?![^\W_])|" + any_word(OTHER_CONTACTS_WORLD)
)
"""A heading a few lines above that makes the contacts under it another party's ('SUPPORT DESK:')."""

CONTACT_POSITIVE: Final = re.compile(
    r"(?<![^\W_])(?:contact\w*|questions?|enquir\w*|inquir\w*|queries|clarification\w*|consultas?|"
    r"richieste|chiarimenti|pytania|fragen|ruckfragen|renseignements|correspondant|punti di contatto|"
    r"point of contact|poc|procurement officer|contracting officer|ansprechpartner\w*|kontakt\w*|"
    r"directed|attention|responsable|referente|rup|bearbeiter\w*|sachbearbeiter\w*)(?![^\W_])|"
    + any_word(CONTACT_POSITIVE_WORLD)
)
PROCUREMENT: Final = re.compile(words_pattern(PROCUREMENT_WORDS))
"""The procedure's own words: a contact about the tender or the contract is the buyer's procurement contact."""

SUBMIT_POSITIVE: Final = re.compile(
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
    r"|envoyes?|soumis)|plateforme (?:de dematerialisation|dematerialisee)|" + words_pattern(SUBMIT_POSITIVE_WORLD)
)
SUBMIT_NEGATIVE: Final = re.compile(
    r"instruction|how to|guide|guideline|help|faq|qrg|tutorial|manual|registr|inscri|terms of use"
    r"|conditions|bedingungen|verificaci|verification|verify|invoice|rechnung|factur|fattur|affidavit|legal"
    r"|\blaw\b|gazette|eur-lex|normativ|boletin|further information|more information|additional information"
    r"|informationen|erfahren|anticorruzione|privacy|datenschutz|jedz|espd|" + words_pattern(SUBMIT_NEGATIVE_WORLD)
)
"""A URL in such a sentence is help, terms, a legal text or a form, whatever else the sentence says."""
SUBMIT_SOFT_NEGATIVE: Final = re.compile(
    r"download|descarg|scaric|telecharg|obtenus|obtained|obtain|consult|documents|documentation|documentazione"
    r"|dokument|unterlagen|pliegos|published|posted|post updates|veroffentlicht|pubblicat|publicad|opublikowan"
    r"|corrigend|addend|amendment"
)
"""Where documents are read or downloaded: not the submission URL unless the sentence also says
that offers are submitted there."""
SUBMIT_PLATFORM: Final = re.compile(
    r"vergabesystem|vergabeplattform|vergabemarktplatz|e-vergabe|plataforma de contratacion|piattaforma"
    r"|plateforme|platforma|miniportal|e-procurement portal|procurement portal|tender portal"
)
BUYER_PROFILE: Final = re.compile(r"profil d'acheteur|profil acheteur|perfil del contratante|buyer profile")

ADDRESS_STOP: Final = re.compile(
    r",?\s*(?:\(?tel\b|tél|telephone|phone|fax|e-?mail|courriel|pec\b|c\.?f\.?\b|p\.?\s?iva|http|www\.|nip\b|"
    r"vat\b|siret|adresse internet|contact)|\s{3,}|\s\|\s?$|[;,]?\s*(?:" + any_word(ADDRESS_STOPS_WORLD) + ")"
    r"|[;,]?\s*(?:" + any_word(COUNTRY_FIELDS) + r")\s*[:：]"
)


ADDRESS_FIELD: Final = re.compile(
    r"^(?:town|city|ort|ville|localite|citta|comune|localidad|poblacion|municipio|miejscowosc|plaats|cidade|"
    r"postal code|post code|postcode|zip(?: code)?|code postal|plz|postleitzahl(?: \(plz\))?|cap|codigo postal|"
    r"kod pocztowy|postcode|nuts code)\s*[:：]\s*"
)
"""A form's own field for the town or the postcode, whose value continues a street address."""


NOT_ADDRESS_CONTEXT: Final = re.compile(
    r"pre-?proposal|pre-?bid|site visit|session|meeting|opening|apertura|ouverture|offnung"
    r"|place of performance|lieu d'execution|lieu de livraison|leistungsort|luogo di esecuzione"
    r"|lugar de ejecucion|delivery|livraison|lieferung|consegna|entrega|site address|project site"
    r"|billing|invoice|factur|rechnung|fattur|bidder|tenderer|supplier|contractor|soumissionnaire"
    r"|bieter|offerente|licitador|wykonawc|inschrijver|" + any_word(NOT_ADDRESS_CONTEXTS_WORLD)
)
"""An address in such a context is a meeting place, the works site or another party's address."""

ADDRESS_HEADING: Final = re.compile(
    r"(?:address(?:\(?es\)?)?|adresse|anschrift|indirizzo|direccion|endereco|adres|العنوان)(?:\s+\w+){0,3}"
    r"\s*(?:is|are|est|ist|es|e)?\s*(?:\(are\))?\s*[:：]?\s*[-–]*\s*$"
    r"|addressed to\s*[:：]?\s*[-–]*\s*$|a l'adresse suivante\s*:?\s*$"
)
"""A line that announces an address block below it: 'The address(es) referred to above is (are):',
'... addressed to:-', 'Office Address'."""

STOP_BLOCK: Final = re.compile(
    r"@|https?:|www\.|(?<![^\W_])(?:tel|tél|telephone|phone|ph|fax|e-?mail|email|website|web site|mobile|"
    r"contact|cell|الهاتف|البريد)(?![^\W_])"
)
VERB: Final = re.compile(
    r"(?<![^\W_])(?:will|shall|is|are|be|must|may|should|has|have|can|est|sont|sera|doit|ist|sind|wird|"
    r"werden|e|sono|deve|es|son|debe|jest|sa|moet|wordt)(?![^\W_])"
)
"""Verbs that make a line a sentence rather than an address line."""

ROLE_LINE: Final = re.compile(
    r"^(?:(?:mr|mrs|ms|dr|m|mme|herr|frau|attn|attention|a l'attention|z\. ?hd|name|nom|c/o)\b|the (?:managing )?"
    r"(?:director|principal|chairman|secretary|head|registrar|manager|commissioner|chief))"
)
ADDRESS_WORD: Final = re.compile(
    r"(?<![^\W_])(?:" + STREET_FULL + r"|roads?|streets?|avenue|marg|nagar|complex|estate|floor|tower|building|"
    r"house|bhavan|square|district|dist|area|zone|sector|block|plot|close|crescent|suite|room|etage|stock|piso|"
    r"piano)(?![^\W_])"
)

