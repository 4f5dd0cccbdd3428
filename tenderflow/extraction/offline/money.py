"""Amounts and durations: the estimated value of the contract and how long the contract runs.

Both fields are read the way an analyst reads them: find a label that NAMES the field ("valor
estimado del contrato", "importo a base di gara", "Estimated Bid Value", a budget ceiling such as
"should not exceed a total amount of" / "Budget maximum", "Durée de l'accord-cadre",
"Vertragslaufzeit"), then read the typed value that follows it (same cell, the cell to the right,
the cell below, the next line; only its own sentence when the label stands inside prose).
Tenders are full of other amounts and periods that sit next to similar words: the bid security,
the tender fee, a turnover or experience threshold, insurance limits, a daily rate; the offer
validity, the warranty, the payment term. Those are recognised by NEGATIVE contexts around the
label and the value, and such a candidate is dropped, not down-weighted:
a wrong value costs a bidder more than a missing one.

Amounts: a number with a currency before or after it (symbols, ISO 4217 codes, currency words in
several languages: '€ 622.080,00', '10.400 EUR', 'Rs. 12.5 lakh', '₹ 1,25,000/-', 'US$ 2 million',
'8 200,00 zł', '5 000 000 FCFA', '١٢٠٠٠٠ ريال'), in Western, continental or Indian grouping, with
multiplier words (Mio., million(s), Millionen, lakh, crore). An amount without a currency takes the
currency a label states ('Estimated cost (Rs.)', 'Currency: EUR' nearby) or, with less confidence,
the currency nearly all the document's amounts are in. Ambiguous symbols ('$', 'Rs', 'pesos',
'FCFA') are resolved by the ISO codes and countries the document names.

Durations: a number with a unit (days, weeks, months, years in en, fr, de, es, it, pt, pl, nl, ar,
hi) after a contract-period label: '11 mois', '24 Monate', 'doce (12) meses', '36 miesięcy',
'three (3) calendar years', '90 (Days)'. Durations written only in words, and durations derived
from a start and an end date, are not returned: validation requires the number to be printed in the
quote, and neither states it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.amounts import NUMBER, parse_number
from tenderflow.extraction.codelists import CURRENCY_CODES
from tenderflow.extraction.offline.candidates import Candidate, choose
from tenderflow.extraction.offline.document import Document, LabelHit, Line, Span, fold, label_regex
from tenderflow.extraction.schema import ContractDuration, DurationUnit, Money, Sourced

# --- currencies -------------------------------------------------------------------------------------

_DOLLAR: Final = "$"
_PESO: Final = "peso"
_RUPEE: Final = "rupee"
_CFA: Final = "cfa"
_AMBIGUOUS: Final = frozenset({_DOLLAR, _PESO, _RUPEE, _CFA})

_CURRENCY_SIGN: Final = (
    r"(?:US\s?\$|U\.S\.\s?\$|C\$|CDN\$|CA\$|A\$|AU\$|NZ\$|S\$|HK\$|R\$|MX\$|\$|€|£|₹|₨|﷼"
    r"|(?i:euros?|dollars?|pesos?|rupees?|rs\.?|inr|ksh[s]?\.?|kshs\.?|kenya\s+shillings?|shillings?"
    r"|riyals?|zł|zl|złotych|zlotych|złote|złoty|zloty|fcfa|f\s?cfa|francs?\s+cfa|livres?\s+sterling"
    r"|pounds?\s+sterling|yuan|renminbi)"
    r"|ريال(?:\s+سعودي)?|ريالا|ر\.س\.?|रु\.?|रुपये"
    r"|[A-Z]{3})"
)
"""A currency as printed: symbol, word (any case) or an upper-case three-letter code (checked against
ISO 4217 afterwards, so 'VAT' or 'GST' is no currency)."""

_WORD_CURRENCIES: Final[dict[str, str]] = {
    "euro": "EUR", "euros": "EUR", "€": "EUR", "£": "GBP", "₹": _RUPEE, "₨": _RUPEE, "rs": _RUPEE,
    "rupee": _RUPEE, "rupees": _RUPEE, "inr": "INR", "रु": "INR", "रुपये": "INR", "$": _DOLLAR,
    "dollar": _DOLLAR, "dollars": _DOLLAR, "us$": "USD", "u.s.$": "USD", "c$": "CAD", "cdn$": "CAD",
    "ca$": "CAD", "a$": "AUD", "au$": "AUD", "nz$": "NZD", "s$": "SGD", "hk$": "HKD", "r$": "BRL",
    "mx$": "MXN", "peso": _PESO, "pesos": _PESO, "ksh": "KES", "kshs": "KES", "kenyashilling": "KES",
    "kenyashillings": "KES", "riyal": "SAR", "riyals": "SAR", "﷼": "SAR", "ريال": "SAR",
    "ريالسعودي": "SAR", "ريالا": "SAR", "رس": "SAR", "zł": "PLN", "zl": "PLN", "złotych": "PLN",
    "zlotych": "PLN", "złote": "PLN", "złoty": "PLN", "zloty": "PLN", "fcfa": _CFA, "fcfa.": _CFA,
    "francscfa": _CFA, "franccfa": _CFA, "livresterling": "GBP", "livressterling": "GBP",
    "poundsterling": "GBP", "poundssterling": "GBP", "yuan": "CNY", "renminbi": "CNY",
}  # fmt: skip
"""Currency words and symbols (folded, spaces and trailing dots removed) → ISO code or an ambiguous
family that the document's context resolves ('$', 'Rs', 'pesos', 'FCFA')."""

_WORDLIKE_CODES: Final = frozenset(
    "ALL AMD BAM BOB BOV CHE CHW CLF COU CUP ERN GEL LAK MAD MOP MXV PEN SOS STD TOP TRY USN UYI UYW VED VES WST "
    "XDR".split()
)
"""ISO 4217 codes that are also English words or abbreviations ('ALL', 'TOP', 'PEN', 'STD') or fund codes
no tender uses: in capitals beside a number they are more often not a currency."""
_SHILLING_WORDS: Final = frozenset({"shilling", "shillings"})

_INDIAN_NUMBER: Final = r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2})?"
"""Indian grouping: 1,25,000 and 12,50,00,000.00 (lakh and crore positions)."""

_MULTIPLIER: Final = (
    r"(?i:lakhs?|lacs?|crores?|cr\.?|mio\.?|millions?|millionen|millones|milioni|milhões|milhoes"
    r"|mln\.?|mn|mrd\.?|milliards?|milliarden?|billions?|bn|thousand|tsd\.?|tys\.?|مليون)(?![^\W\d_])"
)
_MULTIPLIERS: Final[dict[str, float]] = {
    "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5, "crore": 1e7, "crores": 1e7, "cr": 1e7,
    "mio": 1e6, "million": 1e6, "millions": 1e6, "millionen": 1e6,
    "millones": 1e6, "milioni": 1e6, "milhoes": 1e6, "mln": 1e6, "mn": 1e6, "مليون": 1e6, "mrd": 1e9,
    "milliard": 1e9, "milliards": 1e9, "milliarde": 1e9, "milliarden": 1e9, "billion": 1e9,
    "billions": 1e9, "bn": 1e9, "thousand": 1e3, "tsd": 1e3, "tys": 1e3, "m": 1e6, "k": 1e3,
}  # fmt: skip

_AMOUNT: Final = re.compile(
    rf"(?<!\d)(?<!\d[.,])(?P<number>{_INDIAN_NUMBER}|{NUMBER})(?![\d])"
    rf"(?:\s?(?P<multiplier>{_MULTIPLIER})|(?P<glued>[mk])(?![^\W\d_]))?"
)
_CURRENCY_BEFORE: Final = re.compile(rf"(?<![^\W\d_])(?P<token>{_CURRENCY_SIGN})\s?[:.]?\s?(?:\(\s?)?$")
_CURRENCY_AFTER: Final = re.compile(
    rf"^(?:\s?(?:/-|,-+|-|\.-|\.))?\s?(?:\(\s?)?(?:de\s+|d')?(?P<token>{_CURRENCY_SIGN})(?![^\W\d_])"
)
_NOT_AN_AMOUNT_AFTER: Final = re.compile(
    r"^(?:\s?%|\s?(?:per\s?cent|pour\s?cent|prozent|por\s?ciento)|[./]\d|\s?°)", re.IGNORECASE
)
_NOT_AN_AMOUNT_BEFORE: Final = re.compile(
    r"(?:\d[./-]|(?<![^\W\d_])(?i:art(?:icle|ículo|icolo|ikel)?|apartado|clause|cl[áa]usula|section|paragraph|"
    r"n[°º]?|no|nr|núm|num|punto|item|lot[eo]?|lotto|los|pakiet|annex(?:e|o)?|anexo|allegato|page|p)|§)\.?\s?$"
)
_BROKEN_GROUP_BEFORE: Final = re.compile(r"\d[.,]\s$")
_FULL_GROUP_FIRST: Final = re.compile(r"\d{3}(?!\d)")
_BROKEN_GROUP_AFTER: Final = re.compile(r"[.,]\s\d{3}(?!\d)")
_DECIMALS: Final = re.compile(r"[.,]\d{1,2}$")
"""A number whose first group has three digits right after 'NN, ', or a number followed by ', NNN', is a part of
a grouped number that a scan broke with a space ('18, 400,000.00', '1.284. 500,00'): a part is no amount."""
_CURRENCY_LABEL: Final = re.compile(
    rf"(?i:currency|monnaie|devise|w[äa]hrung|moneda|divisa|valuta|waluta|moeda|العملة)\s*[:：]?\s*"
    rf"(?:\(\s?)?(?P<token>{_CURRENCY_SIGN})"
)
_CURRENCY_PREFILTER: Final = re.compile(
    r"[€$£₹₨﷼]|\b[A-Z]{3}\b|zł|(?i:euro|\brs\b|rupee|ksh|fcfa|riyal|dollar|peso)|ريال|रु"
)

_DOLLAR_CODES: Final = tuple("USD CAD AUD NZD SGD HKD ARS MXN CLP COP UYU LRD TTD JMD BSD BBD FJD ZWL".split())
_PESO_CODES: Final = ("ARS", "MXN", "CLP", "COP", "UYU", "DOP")
_RUPEE_CODES: Final = ("INR", "PKR", "LKR", "NPR", "MUR", "SCR")
_CFA_CODES: Final = ("XOF", "XAF")
_COUNTRY_CURRENCIES: Final[tuple[tuple[str, str, str], ...]] = (
    # (family, currency, words that name the country or a region of it, folded)
    (
        _DOLLAR,
        "USD",
        r"united states|u\.s\.a?|federal acquisition regulation|new york|maryland|california|texas|"
        r"florida|virginia|pennsylvania|illinois|ohio|michigan|massachusetts|new jersey|arizona",
    ),
    (_DOLLAR, "CAD", r"canada|alberta|ontario|quebec|british columbia|manitoba|saskatchewan|nova scotia"),
    (_DOLLAR, "AUD", r"australia|new south wales|queensland|tasmania|western australian?"),
    (_DOLLAR, "NZD", r"new zealand"),
    (_DOLLAR, "ARS", r"argentina|republica argentina|provincia de santa fe|buenos aires"),
    (_DOLLAR, "MXN", r"mexico|estados unidos mexicanos"),
    (_PESO, "ARS", r"argentina|provincia de santa fe|buenos aires"),
    (_PESO, "MXN", r"mexico"),
    (_PESO, "CLP", r"chile"),
    (_PESO, "COP", r"colombia"),
    (_PESO, "UYU", r"uruguay"),
    (_PESO, "PHP", r"philippines|pilipinas"),
    (_RUPEE, "INR", r"india|bharat|gem"),
    (_RUPEE, "PKR", r"pakistan"),
    (_RUPEE, "LKR", r"sri lanka"),
    (_RUPEE, "NPR", r"nepal"),
    (_CFA, "XOF", r"senegal|cote d'ivoire|mali|burkina|niger|togo|benin|guinee-bissau|uemoa|boad|bceao"),
    (_CFA, "XAF", r"cameroun|cameroon|gabon|tchad|chad|congo|centrafrique|guinee equatoriale|cemac|beac"),
)
_DEFAULT_OF_FAMILY: Final[dict[str, str | None]] = {_DOLLAR: "USD", _RUPEE: "INR", _CFA: "XOF", _PESO: None}


def _token_currency(token: str) -> str | None:
    """The ISO code or ambiguous family a printed currency token stands for, or None."""
    if len(token) == 3 and token.isupper() and token.isalpha() and token.isascii():
        return token if token in CURRENCY_CODES and token not in _WORDLIKE_CODES else None
    key = re.sub(r"[\s.]", "", fold(token)) if not token.endswith("$") else re.sub(r"\s", "", token.casefold())
    if key in _SHILLING_WORDS:
        return None  # a shilling of which country? only 'Kenya Shillings' or 'KES' tells
    return _WORD_CURRENCIES.get(key) or _WORD_CURRENCIES.get(re.sub(r"[\s]", "", token))


class _Currencies:
    """How the document's ambiguous currency signs are to be read, and its dominant currency."""

    def __init__(self, document: Document) -> None:
        self._document = document
        self._resolved: dict[str, str | None] = {}
        self._dominant: str | None | bool = False  # False: not computed yet

    def resolve(self, currency: str | None) -> str | None:
        if currency is None or currency not in _AMBIGUOUS:
            return currency
        if currency not in self._resolved:
            self._resolved[currency] = self._resolve_family(currency)
        return self._resolved[currency]

    def _resolve_family(self, family: str) -> str | None:
        text = self._document.folded_text
        raw = "\n".join(self._document.pages.values())
        codes = {_DOLLAR: _DOLLAR_CODES, _PESO: _PESO_CODES, _RUPEE: _RUPEE_CODES, _CFA: _CFA_CODES}[family]
        printed = {code for code in codes if re.search(rf"(?<![^\W\d_]){code}(?![^\W\d_])", raw)}
        if family == _DOLLAR and re.search(r"us\s?\$|u\.s\.\s?\$|us dollars?|dollars? americains?", text):
            printed.add("USD")
        if len(printed) == 1:
            return printed.pop()
        if len(printed) > 1:
            return None
        named = {currency for kind, currency, words in _COUNTRY_CURRENCIES
                 if kind == family and re.search(rf"(?<![a-z])(?:{words})(?![a-z])", text)}  # fmt: skip
        if len(named) == 1:
            return named.pop()
        return None if named else _DEFAULT_OF_FAMILY[family]

    def dominant(self) -> str | None:
        """The currency of (nearly) all explicit amounts in the document (90 %), or None. A GeM bid
        prints one 'Rs 10 Crore' and its values as bare numbers: one explicit amount is enough."""
        if self._dominant is False:
            counts: Counter[str] = Counter()
            for line in self._document.lines:
                if _CURRENCY_PREFILTER.search(line.text):
                    counts.update(amount.currency for amount in amounts_in(line.text, self) if amount.currency)
            total = sum(counts.values())
            top = counts.most_common(1)
            self._dominant = top[0][0] if top and top[0][1] >= 0.9 * total else None
        return self._dominant if isinstance(self._dominant, str) else None


@dataclass(frozen=True)
class Amount:
    """A number read as money: its value, its currency if printed beside it, where it is in the text."""

    value: float
    currency: str | None
    start: int
    end: int
    grouped: bool  # printed with grouping or decimals ('190.239,79'), not a bare integer like a year
    scaled: bool  # printed with a multiplier word ('12.5 lakh', '2 Mio.')


def amounts_in(text: str, currencies: _Currencies | None = None) -> list[Amount]:
    """Every number in `text` that may be an amount, with the currency printed before or after it.

    Numbers that are percentages, parts of dates or references ('36/2023', '01.06.2023'), or that
    follow 'article', 'lot', 'clause', 'apartado', … are not amounts. Ambiguous currency signs are
    resolved through `currencies` (without it, '$' is USD, 'Rs' INR, 'FCFA' XOF, 'pesos' unknown).
    """
    found: list[Amount] = []
    for match in _AMOUNT.finditer(text):
        start, end = match.span()
        after = text[end : end + 30]
        before = text[max(0, start - 24) : start]
        if _NOT_AN_AMOUNT_AFTER.match(after) or _NOT_AN_AMOUNT_BEFORE.search(before):
            continue
        if (_BROKEN_GROUP_BEFORE.search(before) and _FULL_GROUP_FIRST.match(match["number"])) or \
                (_BROKEN_GROUP_AFTER.match(after) and not _DECIMALS.search(match["number"])):
            continue  # '18, 400,000.00', '1.284. 500,00': OCR split a grouped number, a part is not the amount
        if match["multiplier"] is None and match["glued"] is None and re.match(r"[^\W\d_]", after):
            continue  # '12th', '3rd', 'A4b': a number glued to a word is no amount
        currency: str | None = None
        if (before_match := _CURRENCY_BEFORE.search(before)) is not None:
            currency = _token_currency(before_match["token"])
        if currency is None and (after_match := _CURRENCY_AFTER.match(after)) is not None:
            currency = _token_currency(after_match["token"])
            end += after_match.end()
        if currency in _AMBIGUOUS:
            currency = currencies.resolve(currency) if currencies is not None else _DEFAULT_OF_FAMILY[currency]
        number, multiplier = match["number"], match["multiplier"] or match["glued"]
        if match["glued"] and currency is None:
            continue  # '12m' is twelve metres unless a currency says it is money
        grouped = not number.isdigit() or multiplier is not None
        found.append(Amount(_amount_value(number, multiplier), currency, start, end, grouped, multiplier is not None))
    return found


def _amount_value(number: str, multiplier: str | None) -> float:
    """The value of a printed number with its multiplier word; Indian grouping is plain grouping."""
    if re.fullmatch(_INDIAN_NUMBER, number):
        value = float(number.replace(",", ""))
    else:
        value = parse_number(number)
    if multiplier:
        value *= _MULTIPLIERS[re.sub(r"\.$", "", fold(multiplier))]
    return round(value, 2)


# --- estimated value ----------------------------------------------------------------------------------

_STRONG_VALUE_LABELS: Final = (
    # en (incl. Indian portals: GeM, CPPP, PSU tenders)
    "estimated value", "estimated values", "estimated contract value", "estimated total value", "total estimated value",
    "estimated bid value", "estimated tender value", "estimated procurement value", "estimated cost",
    "estimated cost of work", "estimated cost of the work", "estimated cost of works", "estimated amount",
    "estimated budget", "estimated project cost", "tender value", "value of tender", "value of the tender",
    "approximate value", "approx value", "estimated value of the contract", "total value of the procurement",
    "estimated cost put to tender", "advertised value", "value of the contract estimated",
    # fr
    "valeur estimee", "valeur totale estimee", "valeur estimee du marche", "montant estime", "montant estimatif",
    "cout estimatif", "cout estime", "budget previsionnel", "montant previsionnel", "estimation du marche",
    # de
    "geschatzter auftragswert", "geschatzter wert", "geschatzter gesamtwert", "geschatzte auftragssumme",
    "voraussichtlicher auftragswert", "auftragswert", "schatzwert", "geschatzter netto auftragswert",
    # es
    "valor estimado", "valor estimado del contrato", "presupuesto oficial", "presupuesto estimado", "monto estimado",
    "importe estimado", "monto total estimado", "valor total estimado",
    # it
    "importo a base di gara", "importo complessivo a base di gara", "importo a base d asta",
    "importo posto a base di gara", "importo complessivo posto a base di gara", "valore stimato",
    "valore complessivo stimato", "valore stimato dell appalto", "valore totale stimato", "importo stimato",
    "valore globale stimato",
    # pl
    "wartosc szacunkowa", "szacunkowa wartosc", "szacowana wartosc", "wartosc szacunkowa zamowienia",
    "szacunkowa wartosc zamowienia", "szacunkowa całkowita wartosc",
    # pt
    "valor global estimado", "preco base", "valor de referencia", "orcamento estimado", "valor estimado do contrato",
    # nl
    "geraamde waarde", "geschatte waarde", "geschatte totale waarde", "geraamde totale waarde", "geraamde kosten",
    # ar, hi
    "القيمة التقديرية", "التكلفة التقديرية", "القيمة المقدرة", "अनुमानित मूल्य", "अनुमानित लागत",
    "अनुमानित बोली मूल्य", "निविदा मूल्य",
)  # fmt: skip
_WEAK_VALUE_LABELS: Final = (
    "budget", "contract value", "total contract value", "project cost", "cost of the project", "bid value",
    "presupuesto base de licitacion", "presupuesto", "importo complessivo dell appalto", "importo dell appalto",
    "importo complessivo", "valeur du marche", "montant du marche", "wartosc zamowienia", "raming",
    "valor do contrato", "valor del contrato",
)  # fmt: skip
"""Labels that often, not always, introduce the estimated value: read only right after the label."""

_CEILING_VALUE_LABELS: Final = (
    "budget ceiling", "maximum budget", "budget maximum", "available budget", "budget available",
    "not exceed a total amount of", "not to exceed a total amount of", "total budget available",
    "budget maximal", "plafond budgetaire", "enveloppe budgetaire", "enveloppe financiere", "budget disponible",
    "maximales budget", "budgetobergrenze", "verfugbares budget", "presupuesto maximo", "presupuesto disponible",
    "budget massimo", "budget disponibile", "tetto di spesa", "kwota jaka zamawiajacy zamierza przeznaczyc",
    "kwota przeznaczona na sfinansowanie", "orcamento maximo", "orcamento disponivel", "maximaal budget",
    "beschikbaar budget", "الميزانية المعتمدة", "الحد الاعلى للميزانية",
)  # fmt: skip
"""A budget the buyer sets as the ceiling of the offers: in a tender, its estimated value. A framework's
'montant maximum' / 'maximaler Umfang' is not one (eForms keeps it apart from the estimated value)."""
_STRONG_VALUE: Final = label_regex(_STRONG_VALUE_LABELS)
_CEILING_VALUE: Final = label_regex(_CEILING_VALUE_LABELS)
_STRONG: Final = "strong"
_CEILING: Final = "ceiling"
_WEAK: Final = "weak"
_VALUE_BASE_SCORE: Final[dict[str, float]] = {_STRONG: 0.6, _CEILING: 0.5, _WEAK: 0.4}
_WEAK_VALUE: Final = label_regex(_WEAK_VALUE_LABELS)

_VALUE_NEGATIVE: Final = re.compile(
    r"(?<![^\W_])(?:"
    # bid security, earnest money, guarantees and bonds
    r"emd|earnest|bid security|bid bond|tender security|bid guarantee|security deposit|performance security|"
    r"performance guarantee|performance bond|performance bank|bank guarantee|retention|surety|"
    r"bietersicherheit|sicherheitsleistung|burgschaft|kaution|vertragserfullung|"
    r"garantie|cautionnement|caution|garantia|fianza|aval|cauzione|garanzia|fideiussione|wadium|wadia|"
    r"zabezpieczeni|caucao|zekerheid|borgstelling|الضمان|ضمان|बयाना|"
    # fees
    r"tender fee|document fee|documents fee|cost of (?:the )?(?:bid|tender) documents?|tender documents?|"
    r"bid documents?|document cost|documents cost|cost of tender|form fee|"
    r"processing fee|application fee|registration fee|fee|fees|frais|gebuhr|tasa|contributo|oplata|"
    r"قيمة وثائق|ثمن|رسوم|शुल्क|"
    # turnover, experience, capacity thresholds
    r"turnover|chiffre d.affaires|umsatz|facturacion|volumen (?:anual )?de negocios|fatturato|obrot|faturamento|"
    r"volume de negocios|omzet|net worth|experience|similar works?|similar services|past|completed|"
    r"experiencia|esperienza|analoghi|doswiadczeni|referenzen?|references|"
    r"minimum|not less than|at least|non inferiore|au moins|mindestens|no inferior|nie mniejsz|"
    # insurance, liability, penalties
    r"insurance|assurance|versicherung|seguro|assicurazion|polizza|ubezpieczeni|liability|"
    r"penalty|penalties|liquidated damages|penalite|vertragsstrafe|penalidad|penale|kara umowna|multa|"
    # unit and partial prices
    r"daily|per day|per diem|hourly|per hour|per month|monthly|unit price|unit rate|giornaliero|journalier|"
    r"taglich|tagessatz|prix unitaire|einheitspreis|precio unitario|prezzo unitario|manodopera|labour cost|"
    r"of which|di cui|dont|davon|"
    # thresholds the value is compared with, not the value
    r"above|exceed|exceeds|exceeding|in excess of|greater than|less than|more than|below|threshold|thresholds|"
    r"seuil|seuils|superieur|inferieur|schwellenwert|uberschreit|unterschreit|soglia|soglie|supera|umbral|"
    r"progi|progu|przekracza|drempel|"
    # lots
    r"per lot|par lot|pro los"
    r")(?![^\W_])"
)
"""Words that make an amount near an estimated-value label something else: a security or guarantee,
a fee, a turnover / experience / capacity threshold, insurance, a penalty, a unit or partial price."""

_LOT_HEADING: Final = re.compile(
    r"^\W*(?:\d{1,2}(?:\.\d{1,2})*\s+)?(?:lot|lote|lotto|los|pakiet|czesc|partie|perceel)\b"
    r"(?:\s*(?:n[o°º.]*|nr\.?|number|numero|technical id|id)?\s*[:.]?\s*(?:lot-)?\d{1,4}\b)"
)
_VAT_INCLUDED: Final = re.compile(
    r"(?:ttc|iva inclu|iva compres|inkl\.? (?:mwst|ust)|including (?:vat|gst|taxes)|incl\.? (?:vat|gst)|brutto|"
    r"con iva|con impuestos|z vat|brutto|with gst|inclusive of (?:gst|vat|all taxes))"
)
_LABEL_CURRENCY: Final = re.compile(rf"(?<![^\W\d_]){_CURRENCY_SIGN}(?![^\W\d_])")
_LABEL_CURRENCY_REACH: Final = 25
_IN_MULTIPLES: Final = re.compile(rf"(?<![^\W\d_]){_MULTIPLIER}|'000|thousands|milliers|tausend")
_PLACEHOLDER: Final = re.compile(
    rf"\W*(?:{_CURRENCY_SIGN})?\s*(?:x+|_+|\.{{2,}}|…+|\[[^\]]*\]|-+|n/?a|tbd|\*+|0+(?:[.,]0+)?)\W*", re.IGNORECASE
)
"""A template's empty value: '$ X', '____', '……', '[insert amount]', 'N/A', '0,00'."""
_BARE_AMOUNT_CELL: Final = 30
_BARE_NUMBER: Final = re.compile(r"\s*\d{3,12}(?:[.,]\d{1,2})?\s*")
"""A table cell holding only a number ('1500000'): a value, not a year or a clause number in prose."""


def _page_or_year(value: float) -> bool:
    """A bare number a table of contents or a date column prints: a page number or a year."""
    return value < 1000 or 1900 <= value <= 2100


_VALUE_THRESHOLD: Final = 0.6
_MIN_AMOUNT: Final = 100.0
_SAME_SPAN_REACH: Final = 90
_SENTENCE_END: Final = re.compile(r"(?<=[^\W\d_]{3})[.;]\s+(?=[A-ZÀ-Ý])|;")


def estimated_value(document: Document) -> Sourced[Money] | None:
    """The estimated value of the whole procurement, read after an estimated-value label; None unless
    one amount stands out (a lot's value, a security or a fee is not it)."""
    currencies = _Currencies(document)
    candidates = [
        *_value_candidates(document, document.find(_STRONG_VALUE), kind=_STRONG, currencies=currencies),
        *_value_candidates(document, document.find(_CEILING_VALUE), kind=_CEILING, currencies=currencies),
        *_value_candidates(document, document.find(_WEAK_VALUE), kind=_WEAK, currencies=currencies),
    ]
    best = choose(candidates, _VALUE_THRESHOLD)
    if best is None:
        return None
    rivals = [
        candidate for candidate in candidates
        if candidate.score >= best.score - 0.05 and not _same_amount(candidate.value, best.value)
    ]  # fmt: skip
    return None if rivals else best.sourced()


def _same_amount(first: Money, second: Money) -> bool:
    return first.currency == second.currency and abs(first.amount - second.amount) <= 0.005 * max(first.amount, 1)


def _value_candidates(
    document: Document, hits: Iterator[LabelHit], *, kind: str, currencies: _Currencies
) -> Iterator[Candidate[Money]]:
    """Amounts after value labels of one kind: the nearest span with an amount, unless a negative
    context (before the label, or between it and the amount) says it is something else."""
    for hit in hits:
        context = _label_context(document, hit)
        if _VALUE_NEGATIVE.search(context):
            continue
        prose = _in_prose(hit)
        for span in document.spans_after(hit):
            if (kind != _STRONG and span.distance > 1) or (prose and span.how != "same"):
                break
            text = span.text
            if span.how == "same":
                text = _SENTENCE_END.split(text[:_SAME_SPAN_REACH], maxsplit=1)[0]
            if span.distance == 0 and _PLACEHOLDER.fullmatch(text):
                break  # 'PRESUPUESTO OFICIAL: $ X': a template, no value
            amounts = [amount for amount in amounts_in(text, currencies) if amount.value >= _MIN_AMOUNT]
            if not amounts:
                continue
            amount = next((amount for amount in amounts if amount.currency), amounts[0])
            if _VALUE_NEGATIVE.search(fold(text[: amount.start])):
                break
            candidate = _value_candidate(document, hit, span, text, amount, kind=kind, currencies=currencies)
            if candidate is not None:
                yield candidate
                break


def _value_candidate(
    document: Document,
    hit: LabelHit,
    span: Span,
    text: str,
    amount: Amount,
    *,
    kind: str,
    currencies: _Currencies,
) -> Candidate[Money] | None:
    """The candidate for `amount`, scored by label kind, place and how its currency is known; None
    when its currency is unknown or the label counts in multiples ('Rs. in lakh')."""
    score = _VALUE_BASE_SCORE[kind]
    why = [f"label {hit.label!r}", span.how]
    currency = amount.currency
    if _label_multiplier(hit) and not amount.scaled:
        return None  # 'Estimated Cost (Rs. in lakh)   45.60': the amount is not the number printed
    if currency is None and (labelled := _CURRENCY_LABEL.search(span.line.text)) is not None:
        currency = currencies.resolve(_token_currency(labelled["token"]))  # '1 250 000.00 Currency: EUR'
    if currency is None:
        if span.how != "same" and len(span.text) > _BARE_AMOUNT_CELL:
            return None  # a bare number inside other text below the label: an address, a count, …
        currency = _label_currency(document, hit, currencies)
        if currency is not None:
            why.append("currency from label")
        elif (
            kind == _STRONG
            and (amount.grouped or (_BARE_NUMBER.fullmatch(text) and not _page_or_year(amount.value)))
            and (currency := currencies.dominant()) is not None
        ):
            score -= 0.1
            why.append("document's currency")
        else:
            return None
    else:
        score += 0.1
    score += {"same": 0.1, "right": 0.1, "below": 0.05, "next": 0.0}[span.how] - 0.05 * max(0, span.distance - 1)
    if _under_lot_heading(document, hit.line):
        score -= 0.15
        why.append("lot")
    if _VAT_INCLUDED.search(fold(text[amount.end : amount.end + 40])):
        score -= 0.1
        why.append("VAT included")
    return Candidate(
        Money(amount=amount.value, currency=currency), span.page, span.quote, round(score, 3), ", ".join(why)
    )


def _label_context(document: Document, hit: LabelHit) -> str:
    """Folded text that qualifies a label: its own cell up to the label, and in prose the end of the
    previous line ('garanzia provvisoria pari al / 2% del valore stimato')."""
    line = hit.line
    cell = line.cell_at(hit.start)
    cell_start = cell.start if cell is not None and cell.start <= hit.start else 0
    context = line.folded[max(cell_start, hit.start - 100) : hit.start]
    if len(line.cells) == 1 and hit.start - cell_start < 20:
        previous = _previous_line(document, line)
        if previous is not None and len(previous.cells) == 1 and _CONTINUED.search(previous.text):
            context = previous.folded[-60:] + " " + context
    return context


_CONTINUED: Final = re.compile(r"(?:[^\W\d_](?<![^\W\d_A-Z])|[,(])\s*$")
"""A line that ends mid-sentence (a lower-case word, a comma): the next line continues it."""


def _in_prose(hit: LabelHit) -> bool:
    """Whether the label stands inside a sentence ('It is also a term of the contract that …',
    'without mentioning the cost of Tender value.'): then only its own sentence may hold its value,
    not the lines below it, which belong to other sentences or list items."""
    if hit.at_line_start:
        return False
    cell = hit.line.cell_at(hit.start)
    rest = hit.line.folded[hit.end : cell.end if cell is not None else len(hit.line.folded)]
    return (rest.strip(" .") == "" and hit.line.text.rstrip().endswith(".")) or len(rest.split()) >= 3


def _previous_line(document: Document, line: Line) -> Line | None:
    for other in reversed(document.lines_of(line.page)[: line.row]):
        if other.text.strip():
            return other
    return None


def _label_currency(document: Document, hit: LabelHit, currencies: _Currencies) -> str | None:
    """The currency a label states ('Estimated cost (Rs.)', 'Tender value in ₹', 'Importo €') or a
    'Currency: EUR' label within three lines of it."""
    cell = hit.line.cell_at(hit.start)
    after_label = hit.line.text[hit.end : cell.end if cell is not None else len(hit.line.text)]
    for token in _LABEL_CURRENCY.finditer(after_label[:_LABEL_CURRENCY_REACH]):
        if (currency := currencies.resolve(_token_currency(token.group()))) is not None:
            return currency
    page = document.lines_of(hit.line.page)
    for line in page[max(0, hit.line.row - 3) : hit.line.row + 4]:
        if (labelled := _CURRENCY_LABEL.search(line.text)) is not None:
            if (currency := currencies.resolve(_token_currency(labelled["token"]))) is not None:
                return currency
    return None


def _label_multiplier(hit: LabelHit) -> bool:
    """Whether the label announces a unit of account: '(Rs. in lakh)', '(€ million)', "(in '000)"."""
    cell = hit.line.cell_at(hit.start)
    after_label = hit.line.folded[hit.end : cell.end if cell is not None else len(hit.line.folded)]
    return _IN_MULTIPLES.search(after_label[:_LABEL_CURRENCY_REACH]) is not None


def _under_lot_heading(document: Document, line: Line) -> bool:
    """Whether a 'Lot 2' / 'Lote 1:' heading stands within the 8 lines above: the value is a lot's."""
    page = document.lines_of(line.page)
    return any(_LOT_HEADING.match(other.folded) for other in page[max(0, line.row - 8) : line.row + 1])


# --- contract duration -----------------------------------------------------------------------------------

_DURATION_LABELS: Final = (
    # en
    "contract period", "period of contract", "period of the contract", "contract duration",
    "duration of the contract", "duration of contract", "contract term", "term of the contract", "term of contract",
    "period of performance", "performance period", "ordering period", "completion period", "period of completion",
    "time for completion", "time allowed for completion", "time of completion", "duration of the assignment",
    "duration of the framework agreement", "term of the agreement", "agreement term", "initial term",
    "duration of work", "duration of the project", "project duration", "contract tenure", "tenure of contract",
    "period of work", "period of works", "work completion period", "time of performance",
    # fr
    "duree du marche", "duree de l accord cadre", "duree du contrat",
    "duree de la mission", "duree des prestations", "delai d execution", "delai global d execution",
    "duree d execution", "periode d execution",
    # de
    "laufzeit", "vertragslaufzeit", "vertragsdauer", "ausfuhrungsfrist", "ausfuhrungsfristen", "ausfuhrungszeitraum",
    "leistungszeitraum", "dauer des auftrags", "laufzeit des vertrags", "laufzeit der rahmenvereinbarung",
    "vertragszeitraum",
    # es
    "duracion del contrato", "plazo de ejecucion", "plazo de duracion", "plazo de duracion del contrato",
    "plazo del contrato", "periodo de ejecucion", "plazo de vigencia",
    # it
    "durata dell appalto", "durata del contratto", "durata del servizio", "durata dell accordo quadro",
    "durata della concessione", "termine di esecuzione", "tempo di esecuzione",
    # pl
    "czas trwania umowy", "termin realizacji", "termin wykonania", "okres realizacji", "czas realizacji",
    "termin wykonania zamowienia", "termin realizacji zamowienia", "okres obowiazywania umowy",
    "okres obowiazywania zamowienia",
    # pt
    "prazo de execucao", "prazo de vigencia", "duracao do contrato", "prazo contratual", "prazo do contrato",
    # nl
    "looptijd", "looptijd van de overeenkomst", "uitvoeringstermijn", "duur van de opdracht",
    "duur van de overeenkomst",
    "time limit for completion", "time limit for the contract", "time limit for the work", "time limit for execution",
    "time limit for the work contract", "completion time",
    # ar, hi
    "مدة العقد", "مدة التنفيذ", "مدة تنفيذ العقد", "مدة تنفيذ الاعمال", "فترة العقد", "مدة المشروع", "فترة التنفيذ",
    "अनुबंध अवधि", "संविदा अवधि",
)  # fmt: skip
_GENERIC_DURATION_LABELS: Final = ("duration", "duree", "dauer", "duracion", "durata", "duracao", "duur", "المدة")
"""One-word labels: trusted only at the start of a line with the value right after them."""

_DURATION_LABEL: Final = label_regex(_DURATION_LABELS)
_GENERIC_DURATION_LABEL: Final = label_regex(_GENERIC_DURATION_LABELS)
_PERIOD_OF: Final = label_regex((
    "for a period of", "for a term of", "pour une duree de", "pour une periode de", "fur einen zeitraum von",
    "fur die dauer von", "mit einer laufzeit von", "por un periodo de", "por un plazo de", "per un periodo di",
    "per la durata di", "per una durata di", "na okres", "pelo prazo de", "por um periodo de", "voor een periode van",
    "voor de duur van", "لمدة",
))  # fmt: skip
_CONTRACT_WORD: Final = re.compile(
    r"(?<![^\W_])(?:contract|agreement|framework|marche|contrat|accord|vertrag|rahmenvereinbarung|contrato|contratto|"
    r"appalto|accordo|umow|overeenkomst|العقد|अनुबंध|संविदा)"
)

_DURATION_NEGATIVE: Final = re.compile(
    r"(?<![^\W_])(?:"
    r"offer|offre|angebot|oferta|offert|propos|bid|bindefrist|zuschlagsfrist|vincolant|mantenimiento|zwiazani|"
    r"gestanddoening|validite|validez|validade|validita|bid validity|صلاحية|वैधता|"
    r"warrant|guarant|garanti|gewahrleist|garanzi|gwarancj|rekojmi|defect|الضمان|"
    r"payment|paiement|zahlung|pago|pagament|platnos|betaling|الدفع|invoice|factur|rechnung|"
    r"procedimento|procedure|procedura|verfahren|procedimiento|"
    r"notice period|period of notice|prior notice|preavis|kundigung|preaviso|wypowiedzeni|"
    r"question|clarification|fragen|pregunta|quesit|pytani|"
    r"experience|experiencia|esperienz|doswiadczeni|erfahrung|"
    r"insurance|versicherung|seguro|assicurazion|"
    r"publication|publicacion|pubblicazion|veroffentlich|record|retain|retention|archiv|conserv|aufbewahr|"
    r"security|deposit|bond|sicherheit|extend|extension|prolong|verlanger|prorog|renew|renouvel|reconduct|"
    r"przedluz|beyond|after the|au-dela|nach ablauf"
    r")"
)
"""Periods that are not the contract's: offer validity, warranty, payment term, notice period, the
procedure's own length, questions, experience, insurance, publication, offers."""

_UNIT_WORDS: Final[tuple[tuple[DurationUnit, str], ...]] = (
    (
        "days",
        "day days jour jours tag tage tagen dia dias giorno giorni dni dzien dnia dag dagen يوم ايام أيام "
        "يوما يوماً दिन दिवस",
    ),
    (
        "weeks",
        "week weeks semaine semaines woche wochen semana semanas settimana settimane tydzien tygodnie "
        "tygodni weken اسبوع أسبوع اسابيع أسابيع सप्ताह",
    ),
    (
        "months",
        "month months mois monat monate monaten mes meses mese mesi miesiac miesiace miesiecy maand "
        "maanden شهر شهرا شهراً اشهر أشهر شهور माह महीने महीना",
    ),
    (
        "years",
        "year years an ans annee annees jahr jahre jahren ano anos anno anni rok lata lat jaar jaren سنة "
        "سنوات عام أعوام اعوام वर्ष साल",
    ),
    # the forms 'in months' takes: 'Laufzeit in Monaten', 'okres w miesiącach', 'liczba dni'
    ("days", "dniach"),
    ("months", "miesiacach"),
    ("years", "latach"),
)
_DURATION_UNITS: Final[dict[str, DurationUnit]] = {
    fold(word): unit for unit, words in _UNIT_WORDS for word in words.split()
}
"""Unit words, folded as the text they are matched in ('أشهر' → 'اشهر', 'días' → 'dias')."""
_UNIT_WORD: Final = "|".join(sorted((re.escape(word) for word in _DURATION_UNITS), key=len, reverse=True))
_DURATION: Final = re.compile(
    r"(?<![\d.,/])(?P<number>\d{1,4})(?![\d.,/]\d)\)?\s*(?:\([^()\d]{1,20}\)\s*)?-?\s*"
    r"(?:(?:calendar|working|business|consecutive|clear|natural|naturales|corridos|habiles|administrativos|"
    r"naturali|consecutivi|lavorativi|solari|kalendertage|kalendarzowych|roboczych|uteis|corridos|"
    r"de calendrier|ouvres|ouvrables|calendaires)\s+)*"
    rf"\(?(?P<unit>{_UNIT_WORD})\)?(?![^\W\d_])"
)
_DURATION_UNIT_FIRST: Final = re.compile(
    rf"(?<![^\W\d_])(?:in|en|w|em|in de)\s+(?P<unit>{_UNIT_WORD})\s*[:.)]?\s*(?P<number>\d{{1,4}})(?![\d.,/]\d)"
)
"""'Duration in months: 36', 'Durée en mois : 36', 'Laufzeit in Monaten: 24' (eForms / TED forms)."""
_BARE_DURATION: Final = re.compile(r"\W*(?:[^\W\d_]{1,10}\)\W*)?(\d{1,4})\W*")
"""A number alone after its label, maybe after the label's own '(Days)': '180', '(Days) 180'."""
_LABEL_UNIT: Final = re.compile(rf"\s*\(?\s*(?:(?:in|en|w|em)\s+)?(?P<unit>{_UNIT_WORD})\b")
"""The unit a label announces: '(Days)', 'in months', 'en mois', 'w miesiącach'."""
_AFTER_THE_CONTRACT: Final = re.compile(
    r"[^.;]{0,40}?(?:(?:following|after|beyond|from) (?:the )?(?:completion|expiry|expiration|termination|end)|"
    r"apres (?:la fin|l.achevement|l.expiration)|nach (?:ablauf|abschluss|beendigung)|"
    r"(?:despues|tras) (?:de )?(?:la )?(?:finalizacion|terminacion)|(?:dopo|dalla) (?:la )?(?:conclusione|scadenza)|"
    r"po (?:zakonczeniu|uplywie))"
)
"""A period counted from the END of the contract (records kept, access granted, a defects period):
'continues for a period of three (3) years following the completion of the Services'."""
_MAX_DAYS: Final[dict[DurationUnit, int]] = {"days": 1, "weeks": 7, "months": 30, "years": 365}
_DURATION_THRESHOLD: Final = 0.6


def contract_duration(document: Document) -> Sourced[ContractDuration] | None:
    """How long the contract runs, read after a contract-period label; None when no label gives a
    number with a unit, or when two equally good candidates disagree."""
    candidates = [
        *_duration_candidates(document, document.find(_DURATION_LABEL), kind=_NAMED),
        *_duration_candidates(document, document.find(_GENERIC_DURATION_LABEL), kind=_GENERIC),
        *_duration_candidates(document, document.find(_PERIOD_OF), kind=_PERIOD),
    ]
    best = choose(candidates, _DURATION_THRESHOLD)
    if best is None:
        return None
    best_days = _days(best.value)
    rivals = [
        candidate for candidate in candidates
        if candidate.score >= best.score - 0.05 and abs(_days(candidate.value) - best_days) > 0.1 * best_days
    ]  # fmt: skip
    return None if rivals else best.sourced()


def _days(duration: ContractDuration) -> float:
    return duration.amount * _MAX_DAYS[duration.unit]


_NAMED: Final = "named"
_GENERIC: Final = "generic"
_PERIOD: Final = "period"
_BASE_SCORE: Final[dict[str, float]] = {_NAMED: 0.65, _GENERIC: 0.55, _PERIOD: 0.55}
_HOW_SCORE: Final[dict[str, float]] = {"same": 0.1, "right": 0.1, "below": 0.05, "next": 0.0}


def _duration_candidates(
    document: Document, hits: Iterator[LabelHit], *, kind: str
) -> Iterator[Candidate[ContractDuration]]:
    """Durations after duration labels. A generic label ('Durée', 'Duration') counts only at the
    start of a line with the value on the same line; 'for a period of' only after a contract word in
    the same sentence ('The rate contract will be for a period of 2 years')."""
    for hit in hits:
        if kind == _GENERIC and not hit.at_line_start:
            continue
        context = _label_context(document, hit)
        if _DURATION_NEGATIVE.search(context):
            continue
        if kind == _PERIOD and not _CONTRACT_WORD.search(context):
            continue
        prose = _in_prose(hit)
        for span in document.spans_after(hit, below=2):
            if (kind != _NAMED and span.distance > 0) or (prose and span.how != "same"):
                break
            text = fold(span.text)
            if span.how == "same":
                text = text[:_SAME_SPAN_REACH]
            duration = _duration_in(text) or _bare_duration(hit, text)
            if duration is None:
                continue
            value, position = duration
            if _DURATION_NEGATIVE.search(text[:position]) or _AFTER_THE_CONTRACT.match(
                text, position + len(str(value.amount))
            ):
                break
            score = _BASE_SCORE[kind] + _HOW_SCORE[span.how] - 0.05 * max(0, span.distance - 1)
            yield Candidate(value, span.page, span.quote, round(score, 3), f"label {hit.label!r}, {span.how}")
            break


def _bare_duration(hit: LabelHit, text: str) -> tuple[ContractDuration, int] | None:
    """A bare number after a label that carries the unit: 'Period Of Work(Days)   180'."""
    number = _BARE_DURATION.fullmatch(text)
    if number is None:
        return None
    cell = hit.line.cell_at(hit.start)
    label_rest = hit.line.folded[hit.end : cell.end if cell is not None else len(hit.line.folded)]
    unit = _LABEL_UNIT.match(label_rest)
    if unit is None:
        return None
    return _plausible(int(number[1]), _DURATION_UNITS[unit["unit"]], number.start(1))


def _duration_in(text: str) -> tuple[ContractDuration, int] | None:
    """The first duration in folded `text` ('24 monate', 'doce (12) meses', 'in months: 36') and
    where it starts; None if there is none or it is implausible (nothing, or over 30 years)."""
    match = _DURATION_UNIT_FIRST.search(text) or _DURATION.search(text)
    if match is None:
        return None
    return _plausible(int(match["number"]), _DURATION_UNITS[match["unit"]], match.start())


def _plausible(amount: int, unit: DurationUnit, position: int) -> tuple[ContractDuration, int] | None:
    """The duration if it is one a contract can have (more than nothing, at most 30 years)."""
    if not 0 < amount * _MAX_DAYS[unit] <= 365 * 30:
        return None
    return ContractDuration(amount=amount, unit=unit), position
