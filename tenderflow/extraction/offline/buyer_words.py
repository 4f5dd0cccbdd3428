"""The words of a buyer's name: the labels that introduce it in many languages, the words that make
a line an organisation's name, and the words around a label that make it another field.

All patterns match FOLDED text (see document.fold).
"""

from __future__ import annotations

import re
from typing import Any, Final

from tenderflow.extraction.offline.buyer_lexicon import (
    BUYER_LABELS_WORLD,
    EFORMS_BUYER_HEADINGS,
    HEADING_WORDS_UNSPACED,
    NAME_ADDRESS_HEADINGS,
    NAME_SUBLABELS,
    NOTICE_WORDS,
    ORG_SUFFIXES_UNSPACED,
    ORG_WORDS_WORLD,
    OTHER_PARTY_LABELS,
    PARENT_WORDS,
    SECTION_WORDS,
    SIGNATORY_TITLES,
    STAMP_WORDS,
    STATE_LINES,
    SUBUNIT_SUFFIXES_UNSPACED,
    SUBUNIT_WORDS,
    WEAK_LABELS_WORLD,
)
from tenderflow.extraction.offline.document import fold, is_unspaced, label_regex


def words_pattern(words: tuple[str, ...], *, bounded: bool = False) -> str:
    """An alternation of `words` for folded text, merged into a trie (the regex engine tests a shared
    prefix once: these lists have hundreds of words and are searched over whole documents), the longest
    word tried first; a Turkish dotless 'ı' also matches the 'i' that an upper-case 'I' folds to
    ('BAKANLIĞI' → 'bakanligi', 'Bakanlığı' → 'bakanlıgı'). `bounded`: each word on word boundaries,
    the one before it checked after its first letter, so that the pattern starts with a set of letters
    the engine scans for (a lookbehind first would be tried at every position of a document)."""
    trie: dict[str, dict[str, Any]] = {}
    for word in {fold(word) for word in words if word}:
        node = trie
        for character in word:
            node = node.setdefault(character, {})
        node[""] = {}
    pattern = _branches(trie, r"(?<![^\W_].)" if bounded else "")
    return f"(?:{pattern})(?![^\\W_])" if bounded else pattern


def _branches(node: dict[str, dict[str, Any]], after_first: str = "") -> str:
    parts = [("[ıi]" if key == "ı" else re.escape(key)) + after_first + _branches(child)
             for key, child in sorted(node.items()) if key]
    if "" in node:
        parts.append("")  # a word may end here: tried after every longer one
    if len(parts) == 1:
        return parts[0]
    return "(?:" + "|".join(parts) + ")"


def any_word(words: tuple[str, ...]) -> str:
    """A pattern for `words` on folded text: a word of a spaced script on word boundaries, one of a script
    without spaces (or a symbol: '☎') anywhere."""
    spaced = tuple(word for word in words if word[0].isalnum() and not is_unspaced(word[0]))
    unspaced = tuple(word for word in words if not word[0].isalnum() or is_unspaced(word[0]))
    branches = [words_pattern(spaced, bounded=True)] if spaced else []
    return "|".join([*branches, *([words_pattern(unspaced)] if unspaced else [])])

# --- lexicons ---------------------------------------------------------------------------------------

BUYER_LABELS: Final = (
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
    *BUYER_LABELS_WORLD, *NAME_ADDRESS_HEADINGS, *EFORMS_BUYER_HEADINGS,
)
BUYER_LABEL: Final = label_regex(BUYER_LABELS)
OTHER_PARTY_LABEL: Final = label_regex(OTHER_PARTY_LABELS)


def label_key(label: str) -> str:
    """A matched label as a lexicon key: folded, words separated by single spaces ('Ministry/State Name'),
    none between two characters of a script without spaces ('수 요 기 관' → '수요기관')."""
    words = re.findall(r"[^\W_]+", fold(label))
    key = words[0] if words else ""
    for word in words[1:]:
        key += word if is_unspaced(key[-1]) and is_unspaced(word[0]) else " " + word
    return key


_FORM_HEADINGS: Final = frozenset(label_key(label) for label in NAME_ADDRESS_HEADINGS)

HEADING_ONLY: Final = frozenset(label_key(label) for label in EFORMS_BUYER_HEADINGS)
"""Buyer labels that are common words elsewhere (eForms' 'Koper', 'Comprador'): a buyer's heading only alone
on their line, over the form's name field (see parties.heads_name_field)."""


def label_rule(label: str) -> str:
    """The rule a buyer label's value is credited to: the label itself ("label 'stazione appaltante'",
    "label '采购人'"): one rule per label, the unit a rule that fires on one document only is judged by;
    the EU forms' 'Name and addresses' heading, the same heading in every EU language, is one rule, and so is
    eForms' buyer heading."""
    key = label_key(label)
    if key in _FORM_HEADINGS:
        return "label name and addresses"
    if key in HEADING_ONLY:
        return "label eforms buyer"
    return f"label {label!r}"


WEAK_LABELS: Final = frozenset(
    label_key(label)
    for label in ("zuschlag erteilende stelle", "zuschlagserteilung durch", "vergabestelle", "issued by",
                  "ministry name", "ministry state name", "department name", *WEAK_LABELS_WORLD)
)
"""Labels of a party that may be an agent or a parent of the buyer (the awarding or issuing office,
the ministry above a GeM 'Organisation Name'): kept, but weaker than a label naming the buyer itself."""

HEADING_REST: Final = re.compile(
    r"^\s*(?:\([^)]{0,40}\))?\s*(?:[*:：]|\s{3,}|$|[^\w\s(]{1,2}\s*$"
    r"|(?:[\s,/;]+(?:denominazione|indirizzi|punti di contatto|names?|address(?:es)?|contact points?|nom|adresse"
    r"|coordonnees|anschrift|kontaktstellen?|nombre|direccion|datos|dane|adres|e|and|et|und|y|i|oraz))+\s*[:：]?\s*$"
    r"|(?:" + words_pattern(HEADING_WORDS_UNSPACED) + r")\s*[:：]?\s*$)"
)
"""What may follow a buyer label that heads a field: a colon, a column gap, nothing (or a speck of a scan: '.',
'~'), a parenthesis, or more heading words ('STAZIONE APPALTANTE, DENOMINAZIONE, INDIRIZZI E PUNTI DI CONTATTO')."""

PERSON: Final = re.compile(
    r"^(?:mr|mrs|ms|miss|dr|prof|m|mme|mlle|herr|frau|sig|sig\.ra|dott|dott\.ssa|ing|avv|sr|sra|pan|pani|dhr|mevr)"
    r"\b\.?\s"
)
PERSON_PRONE: Final = frozenset(
    label_key(label) for label in ("buyer", "buyer name", "name of buyer", "client", "committente", "opdrachtgever")
)
"""Labels that US documents also use for a person (the purchasing agent): their value needs an
organisation word."""

SECTION_PREFIX: Final = re.compile(
    r"[-•*]?\s?(?:section|sezione|sekcja|seccion|secao|abschnitt|rubrique|partie|part|teil|titre|title|"
    r"hoofdstuk|afdeling|القسم|" + words_pattern(SECTION_WORDS) + r")?"
    r"\s?[\divxlc|]{0,4}(?:[.)]\d{0,2})*\s?[:.)\-–]?\s?[‚,'‘`\"]?"
)
"""What may stand before a buyer label that heads a section ('Section I: Contracting authority', 'Section I :
Pouvoir adjudicateur' with the French space before the colon, 'Section |:' as OCR reads a roman I)."""

SECTION_HEADING: Final = re.compile(
    r"(?<![^\W_])(?:section|sezione|sekcja|seccion|secao|abschnitt|rubrique|partie|part|teil|titre|hoofdstuk|"
    r"afdeling|القسم|" + words_pattern(SECTION_WORDS) + r")\s?[\divxlc|]{1,4}\W*$"
)
"""'Section I:', 'Abschnitt I:' before a buyer label: the label heads a notice section, whose content is the
lines below; a cell to its right belongs to another column (often that column's own heading)."""

NAME_SUBLABEL: Final = re.compile(
    r"^\s*(?:[-–•*·‚,.'‘\"]\s*)?(?:[a-z0-9]{1,3}[.)]\s*)?"
    r"(?:official name|name|nom officiel|nom|denominazione(?: ufficiale)?|denominacion(?: oficial)?"
    r"|nombre(?: oficial)?|nome(?: ufficiale| oficial)?|denominacao(?: oficial)?"
    r"|(?:oficjalna )?nazwa(?: oficjalna)?|(?:officiele )?naam|designation|raison sociale"
    r"|(?:offizielle |amtliche )?bezeichnung|" + words_pattern(NAME_SUBLABELS) + r")\s*[:：]\s*(?P<value>\S.*)$"
)
"""'Name: Umweltbundesamt', 'Offizielle Bezeichnung: …' under a buyer heading (the form's own field for the name)."""

FUNCTION_START: Final = re.compile(
    r"(?:of|for|de|du|des|del|della|delle|dei|degli|di|der|des|fur|van|voor|da|do|dos|das|dla)\s+\S"
)
"""A wrapped name's next line that opens with a linking word ('du Pays de …', 'of the Interior')."""

NEGATIVE_BEFORE_LABEL: Final = re.compile(
    r"(?:activit|\btype\b|\btipo\b|\btyp\b|\bart\b|rodzaj|categor|\bkind\b|profil|perfil|adresse internet|\bsito\b"
    r"|website|signature|\bfirma\b|vertreten|representative|address of|adresse de|adresse du|indirizzo"
    r"|direccion|anschrift|\bfor the\b|on behalf|pour le compte|im auftrag|per conto|\bby the\b|\bto the\b"
    r"|\bof the\b|\bdu\b|\bdes\b|\bde l\b|\bdella\b|\bdel\b|\bder\b|\bdie\b|\bdas\b|\bden\b|\bdem\b)\W*$"
)
"""A label preceded by one of these is a different field ('Type of contracting authority', 'activité
du pouvoir adjudicateur') or a mention in running text ('... of the Employer')."""

NAME_WORD_BEFORE: Final = re.compile(
    r"(?<![^\W_])(?:name|names|nom|nombre|denominazione|denominacion|nazwa|naam|identification|designation|"
    r"bezeichnung|dane|datos|dati|details|coordonnees)(?![^\W_])"
)
"""'Nom et adresse officiels DU pouvoir adjudicateur': an article before the label is fine after a name word."""
OTHER_FIELD_BEFORE: Final = re.compile(
    r"(?<![^\W_])(?:reference|referencia|riferimento|numero|number|nummer|numer|activit\w*|type|tipo|typ|"
    r"rodzaj|kind|categor\w*|profil|perfil|website|sito|signature|firma|representative|vertreten\w*)(?![^\W_])"
)
"""A label after one of these words names another field ('Numéro de référence attribué par le
pouvoir adjudicateur', 'Type of contracting authority', 'Principale activité du pouvoir adjudicateur')."""

ORG_WORDS: Final = re.compile(
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
    r"|الوزارة|وزارة|هيئة|الهيئة|مؤسسة|المؤسسة|شركة|الشركة|جامعة|الجامعة|بلدية|أمانة|امانة|مديرية|مجلس|"
    + words_pattern(ORG_WORDS_WORLD) + r")(?![^\W_])|" + words_pattern(ORG_SUFFIXES_UNSPACED)
)
"""Words that make a line an organisation's name rather than a title or a sentence (folded text); in a
script without spaces, an organisation suffix anywhere ('千葉県', '대구교통공사', '…集团有限公司')."""

SUBUNIT: Final = re.compile(
    r"(?<![^\W_])(?:" + words_pattern(SUBUNIT_WORDS) + r")(?![^\W_])"
    r"|(?:" + words_pattern(SUBUNIT_SUFFIXES_UNSPACED) + r")(?=[\s・･]|$)"
)
"""A department or office inside the buyer: 'Procurement Department', 'ΤΜΗΜΑ ΠΡΟΜΗΘΕΙΩΝ', a CJK name
ending in 部/課/室/팀/처/科/处 ('県土整備部建設・不動産業課')."""

SIGNATORY: Final = re.compile(
    r"^(?P<name>.{2,40}?)[ \u3000]?(?P<title>" + words_pattern(SIGNATORY_TITLES) + r")"
    r"(?:[ \u3000]+[^\s\d]{1,5}(?:[ \u3000][^\s\d]{1,5})?)?(?:[ \u3000]*(?:귀하|御中|殿|様))?\s*$"
)
"""An organisation, the title its official signs with, a person's name, 'to' ('千葉県知事 熊谷 俊人',
'世田谷区契約担当者', '대구교통공사 사장 귀하'): the line names the buyer by its head."""

STATE_LINE: Final = re.compile(r"^(?:" + words_pattern(STATE_LINES) + r")\W*$")
"""The state above the buyer, alone on a letterhead line."""

WEAK_ORG: Final = re.compile(
    r"(?<![^\W_])(?:services?|fund|union|trust|enterprise|consortium|society|center|centre|cabinet|office|"
    r"committee|commission|board|bureau|company|region|district|province|provincia|department)(?![^\W_])"
)
"""Organisation words that also make titles ('Professional Services', 'Regional Office Renovation'):
a letterhead line needs another one besides them, or a name of its own around them."""

PARENT_ORG: Final = re.compile(
    r"^(?:the )?(?:government of|state of|republic of|commonwealth of|gouvernement|republique|regierung|"
    r"gobierno de|governo|freistaat|land )"
)
"""A letterhead's top line that names the government above the buyer ('Government of Western
Australia' over 'Department of the Premier and Cabinet'): the next line is the buyer."""

PARENT: Final = re.compile(any_word(PARENT_WORDS))
"""A ministry or directorate-general: above another organisation on a letterhead, the buyer's parent."""

STAMP: Final = re.compile(words_pattern(STAMP_WORDS))

TITLE_WORDS: Final = re.compile(
    r"(?<![^\W_])(?:request|proposal|proposals|tender|tenders|quotation|rfp|rfq|rft|eoi|bid|bidding|invitation|"
    r"notice|avis|bando|gara|ausschreibung|bekanntmachung|licitacion|licitación|pliego|specyfikacja|addendum|"
    r"contract|agreement|page|section|annex|anexo|allegato|anlage|schedule|procurement of|"
    r"supply of|provision of|construction of|appel|consultation|marche|concurso|disciplinare|capitolato|"
    r"volume|part|form|formulaire|formular|table|contents|index|sommaire|indice|system|portal|platform|plateforme|"
    r"plataforma|piattaforma|eprocurement|e-procurement)(?![^\W_])|" + any_word(NOTICE_WORDS)
)
"""Words of a title or a heading, not of an organisation's name (in scripts without spaces, anywhere)."""

COPULA: Final = re.compile(
    r"^[\s,(]*(?:[a-z]+\s+){0,2}?(?:is|est|ist|es|e|jest|sera)\s*:?\s+"
    r"(?:il |la |lo |l'|l’|the |le |les |der |die |das |el |los |las |o |a )?",
)
"""'La Stazione Appaltante delegante è il Comune di Serino': what joins a label to its value in a sentence."""

DEFINITION: Final = re.compile(
    r"[\"“”'‘’«]\s*(?:the\s+)?(?:owner|employer|purchaser|buyer|client|customer|principal|procuring entity|"
    r"contracting authority|procuring agency)\s*[\"“”'‘’»]\s*(?:is|means|shall mean|refers to|shall be)\s+"
    r"(?:the\s+)?(?P<value>[^.;,:\"“”]+)"
)
"""An English definition clause naming the buyer by its role: '"Owner" is Camrose County.'"""

FUNCTION_END: Final = re.compile(
    r"(?<![^\W_])(?:of|the|and|for|de|del|della|delle|dei|degli|di|du|des|der|die|das|fur|und|et|y|e|i|w|im|"
    r"pour|da|do|dos|das|van|voor|en|z|na|dla)\W*$"
)
"""A name line ending with a function word continues on the next line."""
