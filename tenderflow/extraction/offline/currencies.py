"""Amounts of money as printed: a number with its currency, in any grouping, script and scale.

'€ 622.080,00', '10.400 EUR', 'Rs. 12.5 lakh', '₹ 1,25,000/-', 'US$ 2 million', '8 200,00 zł', '5 000 000
FCFA', '١٢٠٠٠٠ ريال': a number with a currency before or after it (symbols, ISO 4217 codes, currency words in
several languages), in Western, continental or Indian grouping, with multiplier words. Ambiguous symbols ('$',
'Rs', 'pesos', 'FCFA') are resolved by the ISO codes and countries the document names (`Currencies`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Final

from tenderflow.extraction.amounts import CJK_AMOUNT, NUMBER, SCALE, parse_cjk_amount, parse_number, scale_of
from tenderflow.extraction.calendars import ascii_digits
from tenderflow.extraction.codelists import CURRENCY_CODES
from tenderflow.extraction.offline.document import Document, fold

# --- currencies -------------------------------------------------------------------------------------

_DOLLAR: Final = "$"
_PESO: Final = "peso"
_RUPEE: Final = "rupee"
_CFA: Final = "cfa"
_YEN: Final = "yen"
_KRONA: Final = "krona"
_AMBIGUOUS: Final = frozenset({_DOLLAR, _PESO, _RUPEE, _CFA, _YEN, _KRONA})

CURRENCY_SIGN: Final = (
    r"(?:US\s?\$|U\.S\.\s?\$|C\$|CDN\$|CA\$|A\$|AU\$|NZ\$|S\$|HK\$|R\$|MX\$|\$|€|£|₹|₨|﷼"
    r"|¥|￥|₩|￦|₽|₸|₴|₺|₫|฿|₪|₱|₾|₼|֏"
    r"|(?i:euros?|dollars?|pesos?|rupees?|rs\.?|inr|ksh[s]?\.?|kshs\.?|kenya\s+shillings?|shillings?"
    r"|riyals?|zł|zl|złotych|zlotych|złote|złoty|zloty|fcfa|f\s?cfa|francs?\s+cfa|livres?\s+sterling"
    r"|pounds?\s+sterling|yuan|renminbi|rmb|yen|won"
    r"|российск\w*\s+рубл\w*|рубл\w*|руб\.?|тенге|тг\.?|грн\.?|гривень|гривні|гривня|гривен\w*|лв\.?|лева"
    r"|динара|дин\.?|ευρώ|ευρω|евро|євро|lei|leu|lira\w*|türk\s+lira\w*|đồng|vnđ|baht|บาท|korun\w*|forint\w*"
    r"|kronor|kroner|krónur|rupiah|ringgit|שקל\w*)"
    r"|Ft|TL|Kč|Rp\.?|RM|kr\.?|đ|ש\"ח|ש״ח"
    r"|ريال(?:\s+سعودي)?|ريالا|ر\.س\.?|रु\.?|रुपये"
    r"|[A-Z]{3})"
)
"""A currency as printed: symbol, word (any case) or an upper-case three-letter code (checked against
ISO 4217 afterwards, so 'VAT' or 'GST' is no currency). Short words that are also English ('Ft' feet, 'RM',
'TL', 'kr') only in their own case."""
CJK_CURRENCY: Final = (
    r"(?:人民币|人民幣|日元|日圓|韩元|韓元|美元|港币|港幣|新台币|新台幣|新臺幣|台币|台幣|臺幣|円|元|원)"
)
"""A currency in a script without spaces: glued to its number on either side ('400000元整', '111,617,000円（税込）',
'434,605,000,000원', '人民币2486260元')."""

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
    "poundsterling": "GBP", "poundssterling": "GBP", "yuan": "CNY", "renminbi": "CNY", "rmb": "CNY",
    # East Asia
    "¥": _YEN, "yen": "JPY", "円": "JPY", "日元": "JPY", "日圓": "JPY", "元": "CNY", "人民币": "CNY",
    "人民幣": "CNY", "₩": "KRW", "won": "KRW", "원": "KRW", "韩元": "KRW", "韓元": "KRW", "美元": "USD",
    "港币": "HKD", "港幣": "HKD", "新台币": "TWD", "新台幣": "TWD", "新臺幣": "TWD", "台币": "TWD", "台幣": "TWD",
    "臺幣": "TWD",
    # Cyrillic, Greek
    "₽": "RUB", "руб": "RUB", "₸": "KZT", "тенге": "KZT", "тг": "KZT", "₴": "UAH", "грн": "UAH",
    "гривень": "UAH", "гривні": "UAH", "гривня": "UAH", "лв": "BGN", "лева": "BGN", "дин": "RSD",
    "динара": "RSD", "ευρω": "EUR", "евро": "EUR", "євро": "EUR",
    # Romanian, Turkish, Vietnamese, Thai, Hebrew, Central Europe, Nordics, Malay world
    "lei": "RON", "leu": "RON", "₺": "TRY", "tl": "TRY", "₫": "VND", "đong": "VND", "đ": "VND", "vnđ": "VND",
    "฿": "THB", "baht": "THB", "บาท": "THB", "₪": "ILS", 'ש"ח': "ILS", "ש״ח": "ILS", "kc": "CZK", "ft": "HUF",
    "kr": _KRONA, "kronor": "SEK", "kroner": _KRONA, "kronur": "ISK", "rp": "IDR", "rupiah": "IDR",
    "rm": "MYR", "ringgit": "MYR", "₱": "PHP", "₾": "GEL", "₼": "AZN", "֏": "AMD",
}  # fmt: skip
"""Currency words and symbols (folded, spaces and trailing dots removed) → ISO code or an ambiguous
family that the document's context resolves ('$', 'Rs', 'pesos', 'FCFA', '¥', 'kr')."""
_WORD_STEMS: Final[tuple[tuple[str, str], ...]] = (
    ("российск", "RUB"), ("рубл", "RUB"), ("гривен", "UAH"), ("lira", "TRY"), ("turklira", "TRY"),
    ("korun", "CZK"), ("forint", "HUF"), ("שקל", "ILS"),
)  # fmt: skip
"""Currency words that inflect ('рублей', 'РОССИЙСКИЙ РУБЛЬ', 'lirası', 'korun českých'), by their stem."""

_WORDLIKE_CODES: Final = frozenset(
    "ALL AMD BAM BOB BOV CHE CHW CLF COU CUP ERN GEL LAK MAD MOP MXV PEN SOS STD TOP TRY USN UYI UYW VED VES WST "
    "XDR".split()
)
"""ISO 4217 codes that are also English words or abbreviations ('ALL', 'TOP', 'PEN', 'STD') or fund codes
no tender uses: in capitals beside a number they are more often not a currency."""
_SHILLING_WORDS: Final = frozenset({"shilling", "shillings"})

_INDIAN_NUMBER: Final = r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2})?"
"""Indian grouping: 1,25,000 and 12,50,00,000.00 (lakh and crore positions)."""

MULTIPLIER: Final = SCALE
"""A scale word after an amount ('1,5 Mio.', '12.5 lakh', '12 млн', '3 tỷ', '2 juta')."""

_AMOUNT: Final = re.compile(
    rf"(?<!\d)(?<!\d[.,])(?:(?P<cjk>{CJK_AMOUNT})|(?P<number>{_INDIAN_NUMBER}|{NUMBER})(?![\d])"
    rf"(?:\s?(?P<multiplier>{MULTIPLIER})|(?P<glued>[mk])(?![^\W\d_]))?)"
)
_HALF_WIDTH: Final = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
"""Full-width forms as CJK text sets numbers ('１２３，４５０円'), made plain one character for one."""
_CURRENCY_BEFORE: Final = re.compile(
    rf"(?P<token>(?<![^\W\d_]){CURRENCY_SIGN}|{CJK_CURRENCY})\s?[:.]?\s?(?:\(\s?)?$"
)
_CURRENCY_AFTER: Final = re.compile(
    rf"^(?:\s?(?:/-|,-+|-|\.-|\.))?\s?(?:\(\s?)?(?:de\s+|d')?(?P<token>{CURRENCY_SIGN}(?![^\W\d_])|{CJK_CURRENCY})"
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
CURRENCY_LABEL: Final = re.compile(
    rf"(?i:currency|monnaie|devise|w[äa]hrung|moneda|divisa|valuta|waluta|moeda|العملة)\s*[:：]?\s*"
    rf"(?:\(\s?)?(?P<token>{CURRENCY_SIGN})"
)
_DIGIT: Final = re.compile(r"\d")
_CURRENCY_PREFILTER: Final = re.compile(
    r"[€$£₹₨﷼¥￥₩￦₽₸₴₺₫฿₪₱円元원]|\b[A-Z]{3}\b|zł|\bFt\b|\bTL\b|Kč|\bkr\b|(?i:euro|\brs\b|rupee|ksh|fcfa|riyal|dollar"
    r"|peso|руб|тенге|грн|лв|ευρ|lei|lira|đồng|baht|бат|korun|forint|rupiah|ringgit)|ريال|रु|บาท|ש\"ח|ש״ח"
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
    (_KRONA, "SEK", r"sverige|sweden|swedish|svensk\w*"),
    (_KRONA, "DKK", r"danmark|denmark|danish|dansk\w*"),
    (_KRONA, "NOK", r"norge|norway|norwegian|norsk\w*"),
    (_KRONA, "ISK", r"island|iceland|icelandic|islensk\w*"),
)
_YEN_CODES: Final = ("JPY", "CNY", "RMB")
_KRONA_CODES: Final = ("SEK", "DKK", "NOK", "ISK")
_KANA: Final = re.compile(r"[\u3040-\u30ff]")
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
_DEFAULT_OF_FAMILY: Final[dict[str, str | None]] = {
    _DOLLAR: "USD", _RUPEE: "INR", _CFA: "XOF", _PESO: None, _YEN: None, _KRONA: None,
}  # fmt: skip


def token_currency(token: str) -> str | None:
    """The ISO code or ambiguous family a printed currency token stands for, or None."""
    if len(token) == 3 and token.isupper() and token.isalpha() and token.isascii():
        return token if token in CURRENCY_CODES and token not in _WORDLIKE_CODES else None
    key = re.sub(r"[\s.]", "", fold(token)) if not token.endswith("$") else re.sub(r"\s", "", token.casefold())
    if key in _SHILLING_WORDS:
        return None  # a shilling of which country? only 'Kenya Shillings' or 'KES' tells
    known = _WORD_CURRENCIES.get(key) or _WORD_CURRENCIES.get(re.sub(r"[\s]", "", token))
    if known is None:
        known = next((code for stem, code in _WORD_STEMS if key.startswith(fold(stem))), None)
    return known


class Currencies:
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
        if family == _YEN:
            return self._yen_or_yuan(raw)
        codes = {_DOLLAR: _DOLLAR_CODES, _PESO: _PESO_CODES, _RUPEE: _RUPEE_CODES, _CFA: _CFA_CODES,
                 _KRONA: _KRONA_CODES}[family]  # fmt: skip
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

    @staticmethod
    def _yen_or_yuan(raw: str) -> str | None:
        """'¥' is the yen in Japan and the yuan in China: the document's own words or codes say which, or
        its script (kana is Japanese; Han without kana Chinese)."""
        japanese = re.search(r"円|日元|JPY", raw) is not None
        chinese = re.search(r"(?<![\u4e00-\u9fff])元|人民币|人民幣|CNY|RMB", raw) is not None
        if japanese != chinese:
            return "JPY" if japanese else "CNY"
        if japanese:
            return None
        if _KANA.search(raw):
            return "JPY"
        return "CNY" if _HAN.search(raw) else None

    def dominant(self) -> str | None:
        """The currency of (nearly) all explicit amounts in the document (90 %), or None. A GeM bid
        prints one 'Rs 10 Crore' and its values as bare numbers: one explicit amount is enough."""
        if self._dominant is False:
            counts: Counter[str] = Counter()
            for line in self._document.lines:
                if _DIGIT.search(line.text) and _CURRENCY_PREFILTER.search(line.text):
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


def amounts_in(text: str, currencies: Currencies | None = None) -> list[Amount]:
    """Every number in `text` that may be an amount, with the currency printed before or after it.

    Numbers that are percentages, parts of dates or references ('36/2023', '01.06.2023'), or that
    follow 'article', 'lot', 'clause', 'apartado', … are not amounts. Ambiguous currency signs are
    resolved through `currencies` (without it, '$' is USD, 'Rs' INR, 'FCFA' XOF, 'pesos' unknown).
    """
    text = ascii_digits(text.translate(_HALF_WIDTH)) if not text.isascii() else text
    found: list[Amount] = []
    for match in _AMOUNT.finditer(text):
        start, end = match.span()
        after = text[end : end + 30]
        before = text[max(0, start - 24) : start]
        if _NOT_AN_AMOUNT_AFTER.match(after) or _NOT_AN_AMOUNT_BEFORE.search(before):
            continue
        number = match["number"] or ""
        if (_BROKEN_GROUP_BEFORE.search(before) and _FULL_GROUP_FIRST.match(number)) or \
                (_BROKEN_GROUP_AFTER.match(after) and not _DECIMALS.search(number)):
            continue  # '18, 400,000.00', '1.284. 500,00': OCR split a grouped number, a part is not the amount
        before_match = _CURRENCY_BEFORE.search(before)
        currency = token_currency(before_match["token"]) if before_match is not None else None
        after_match = _CURRENCY_AFTER.match(after)
        if (currency is None or currency in _AMBIGUOUS) and after_match is not None:
            # '￥2486260 元': the word after says which yen or yuan the sign before is
            currency = token_currency(after_match["token"]) or currency
            end += after_match.end()
        glued_word = match["cjk"] is None and match["multiplier"] is None and match["glued"] is None \
            and re.match(r"[^\W\d_]", after) is not None
        if glued_word and (after_match is None or after_match.start("token") != 0 or currency is None):
            continue  # '12th', '3rd', 'A4b', '1,825일': a number glued to a word is no amount ('400000元' is one)
        if currency in _AMBIGUOUS:
            currency = currencies.resolve(currency) if currencies is not None else _DEFAULT_OF_FAMILY[currency]
        if match["cjk"]:
            value = round(parse_cjk_amount(match["cjk"]), 2)
            found.append(Amount(value, currency, start, end, grouped=True, scaled=True))
            continue
        multiplier = match["multiplier"] or match["glued"]
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
        value *= _GLUED[multiplier.casefold()] if multiplier.casefold() in _GLUED else scale_of(multiplier)
    return round(value, 2)


_GLUED: Final = {"m": 1e6, "k": 1e3}
"""'12m', '500k': a scale letter glued to the number, money only when a currency says so."""
