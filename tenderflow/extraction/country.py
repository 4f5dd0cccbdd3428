"""The buyer's country and the time zone its deadlines are read in, from what a document gives.

A notice seldom has a labelled country line (TED and eForms notices do, and the extractors read it
there); most tell the country otherwise. `locate(pages, fields)` gathers every clue, each with the
page and the verbatim text it was read from:

    phone         the buyer's number in international form (+590 …, (+33) 4 …), or a national one
                  valid in only one of the countries the other clues name (05 90 … is Guadeloupe's);
                  other international numbers of the text count less (a help desk abroad)
    nuts          a NUTS code on a line that says NUTS (DE139, FRY1)
    country name  a country named in the buyer's address, in any of the common languages (babel)
    state         a US state or Australian state with its postcode (MD 21401, WA 6000)
    postcode      a Canadian or British postcode, a lettered one (F-75116), a French overseas one
    city          a city that names a time zone (Nairobi, Tashkent, Москва) in the address
    e-mail, web address   a country-code domain (.fr, .gov.in, .co.ke); the buyer's e-mail counts most
    currency      the estimated value's currency, when one or two countries use it (JPY, RUB)
    language      the text's language, when it is official in at most three countries (ja, pl, el)

Each clue has a weight; a country is inferred when its clues sum to at least 2 and lead every
other country's by at least 1. Otherwise nothing is said: a local time flagged as such is better
than a wrong offset.

The time zone: the country's only one; for a country with several (the US, Canada, Australia,
Russia, France with its overseas departments, Spain with the Canaries, …), the one a clue names
(the state, the postcode, the buyer's phone area code, a city), else the capital's.
`deadline_in_zone` turns an extracted deadline into a date-time with that zone's offset, or keeps
it a local date-time (never `Z`) when the zone is not known.

Pure: no database, no network; runs wherever the extraction runs, for any backend.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Final, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tenderflow import langid
from tenderflow.extraction.backend import PageLike
from tenderflow.extraction.codelists import COUNTRY_CODE_ALIASES, COUNTRY_CODES
from tenderflow.extraction.schema import (
    BuyerCountry,
    CountryEvidence,
    EvidenceKind,
    PlacedDeadline,
    Sourced,
    TenderFields,
    parse_iso_datetime,
)

if TYPE_CHECKING:  # phonenumbers is imported where a number is read: readers of stored deadlines need it not
    import phonenumbers

LEAD: Final = 1.0
"""How far the inferred country's clues must outweigh the runner-up's."""
ENOUGH: Final = 2.0
"""The least weight of clues a country is inferred on."""
_SCANNED_PAGES: Final = 5
"""Pages read for phone numbers, NUTS codes and domains (besides the pages the buyer's fields cite):
the buyer is named on the first pages; a 400-page annex is not read for its help desks."""

# Overseas departments of France, Spain's and Portugal's islands: ISO gives the departments codes of
# their own, but their buyers are French (eForms: FRA, NUTS FRY1…); their zone is their own.
PART_OF: Final[dict[str, str]] = {"GP": "FR", "MQ": "FR", "GF": "FR", "RE": "FR", "YT": "FR"}

CAPITAL_ZONES: Final[dict[str, str]] = {
    "AU": "Australia/Sydney", "BR": "America/Sao_Paulo", "CA": "America/Toronto", "CD": "Africa/Kinshasa",
    "CL": "America/Santiago", "CN": "Asia/Shanghai", "EC": "America/Guayaquil", "ES": "Europe/Madrid",
    "FM": "Pacific/Pohnpei", "FR": "Europe/Paris", "GL": "America/Nuuk", "ID": "Asia/Jakarta",
    "KI": "Pacific/Tarawa", "MN": "Asia/Ulaanbaatar", "MX": "America/Mexico_City", "NZ": "Pacific/Auckland",
    "PF": "Pacific/Tahiti", "PG": "Pacific/Port_Moresby", "PT": "Europe/Lisbon", "RU": "Europe/Moscow",
    "UA": "Europe/Kyiv", "UM": "Pacific/Wake", "US": "America/New_York",
}
"""The capital's zone of every country whose zones differ in offset (tests check the list against
babel's zones): what a deadline is read in when nothing names a region."""

SUBDIVISION_ZONES: Final[dict[str, str]] = {
    # United States: a state split between zones is given the zone most of its people live in.
    "US-AL": "America/Chicago", "US-AK": "America/Anchorage", "US-AZ": "America/Phoenix",
    "US-AR": "America/Chicago", "US-CA": "America/Los_Angeles", "US-CO": "America/Denver",
    "US-CT": "America/New_York", "US-DE": "America/New_York", "US-DC": "America/New_York",
    "US-FL": "America/New_York", "US-GA": "America/New_York", "US-HI": "Pacific/Honolulu",
    "US-ID": "America/Boise", "US-IL": "America/Chicago", "US-IN": "America/Indiana/Indianapolis",
    "US-IA": "America/Chicago", "US-KS": "America/Chicago", "US-KY": "America/New_York",
    "US-LA": "America/Chicago", "US-ME": "America/New_York", "US-MD": "America/New_York",
    "US-MA": "America/New_York", "US-MI": "America/Detroit", "US-MN": "America/Chicago",
    "US-MS": "America/Chicago", "US-MO": "America/Chicago", "US-MT": "America/Denver",
    "US-NE": "America/Chicago", "US-NV": "America/Los_Angeles", "US-NH": "America/New_York",
    "US-NJ": "America/New_York", "US-NM": "America/Denver", "US-NY": "America/New_York",
    "US-NC": "America/New_York", "US-ND": "America/Chicago", "US-OH": "America/New_York",
    "US-OK": "America/Chicago", "US-OR": "America/Los_Angeles", "US-PA": "America/New_York",
    "US-RI": "America/New_York", "US-SC": "America/New_York", "US-SD": "America/Chicago",
    "US-TN": "America/Chicago", "US-TX": "America/Chicago", "US-UT": "America/Denver",
    "US-VT": "America/New_York", "US-VA": "America/New_York", "US-WA": "America/Los_Angeles",
    "US-WV": "America/New_York", "US-WI": "America/Chicago", "US-WY": "America/Denver",
    "US-AS": "Pacific/Pago_Pago", "US-GU": "Pacific/Guam", "US-MP": "Pacific/Saipan",
    "US-PR": "America/Puerto_Rico", "US-UM": "Pacific/Wake", "US-VI": "America/St_Thomas",
    # Canada
    "CA-AB": "America/Edmonton", "CA-BC": "America/Vancouver", "CA-MB": "America/Winnipeg",
    "CA-NB": "America/Moncton", "CA-NL": "America/St_Johns", "CA-NS": "America/Halifax",
    "CA-NT": "America/Edmonton", "CA-NU": "America/Iqaluit", "CA-ON": "America/Toronto",
    "CA-PE": "America/Halifax", "CA-QC": "America/Toronto", "CA-SK": "America/Regina",
    "CA-YT": "America/Whitehorse",
    # Australia
    "AU-ACT": "Australia/Sydney", "AU-NSW": "Australia/Sydney", "AU-NT": "Australia/Darwin",
    "AU-QLD": "Australia/Brisbane", "AU-SA": "Australia/Adelaide", "AU-TAS": "Australia/Hobart",
    "AU-VIC": "Australia/Melbourne", "AU-WA": "Australia/Perth",
}
"""The zone of each state, province and territory of the three countries whose addresses name them
with a postcode (names and codes: pycountry's ISO 3166-2)."""

_CANADIAN_POSTCODE_PROVINCE: Final = {
    "A": "NL", "B": "NS", "C": "PE", "E": "NB", "G": "QC", "H": "QC", "J": "QC", "K": "ON", "L": "ON", "M": "ON",
    "N": "ON", "P": "ON", "R": "MB", "S": "SK", "T": "AB", "V": "BC", "X": "NT", "Y": "YT",
}
_OVERSEAS_POSTCODES: Final = {"971": "GP", "972": "MQ", "973": "GF", "974": "RE", "976": "YT"}
_NAMED_LANGUAGES: Final = ("en", "fr", "de", "es", "it", "pt", "nl", "pl", "ro", "el", "ru", "uk", "tr", "ar", "zh",
                           "ja", "ko", "vi", "cs", "hu", "sv", "da", "fi", "bg", "hr", "sk", "sl", "lt", "lv", "et")
_NAME_ALIASES: Final = {"USA": "US", "U.S.A.": "US", "United States of America": "US", "UK": "GB",
                        "Great Britain": "GB", "РФ": "RU", "Российская Федерация": "RU", "Russian Federation": "RU",
                        "P.R. China": "CN", "PRC": "CN", "Türkiye": "TR", "Republic of Korea": "KR"}
# Country-code domains sold for other uses than their country's.
_VANITY_DOMAINS: Final = frozenset({"io", "co", "tv", "me", "ai", "ly", "fm", "to", "ws", "cc", "nu", "tk", "gg",
                                    "ag", "sh", "ac", "vc", "la", "am", "ms", "st", "so", "gl", "eu"})
_EMAIL: Final = re.compile(r"[\w.+-]+@((?:[\w-]+\.)+([A-Za-z]{2,}))\b")
_URL: Final = re.compile(r"(?:https?://|www\.)((?:[\w-]+\.)+([A-Za-z]{2,}))\b", re.IGNORECASE)
_NUTS: Final = re.compile(r"\bNUTS\b[^\n]{0,40}?\b([A-Z]{2})([0-9A-Z]{1,3})\b")
_CANADIAN_POSTCODE: Final = re.compile(r"\b([ABCEGHJ-NPRSTVXY])\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d\b")
_BRITISH_POSTCODE: Final = re.compile(r"\b[A-Z]{1,2}\d[A-Z\d]? \d[ABD-HJLNP-UW-Z]{2}\b")
_LETTERED_POSTCODE: Final = re.compile(r"\b(F|D|I|E|B|L|A|CH|NL|P|S)-\d{4,5}\b")
_LETTER_COUNTRIES: Final = {"F": "FR", "D": "DE", "I": "IT", "E": "ES", "B": "BE", "L": "LU", "A": "AT", "CH": "CH",
                            "NL": "NL", "P": "PT", "S": "SE"}
_PLUS_DIGIT: Final = re.compile(r"\+\s*\(?\d")
_FIVE_DIGITS: Final = re.compile(r"\b(\d{3})\d{2}\b")


@dataclass(frozen=True)
class Deadline:
    """An extracted deadline placed in time: `local` as printed, `moment` with the zone's offset
    (None when the zone is not known, or the value is a date without a time of day)."""

    local: datetime | date
    moment: datetime | None
    time_zone: str | None

    @property
    def text(self) -> str:
        """RFC 3339 with the offset when the zone is known ('2020-08-26T18:00:00-04:00'); else the
        local date-time as printed ('2020-08-26T18:00:00', never 'Z'), or the date ('2020-08-26')."""
        if self.moment is not None:
            return self.moment.isoformat(timespec="seconds")
        if isinstance(self.local, datetime):
            return self.local.isoformat(timespec="seconds")
        return self.local.isoformat()


def deadline_in_zone(value: object, time_zone: str | None) -> Deadline | None:
    """An extracted deadline ('2026-03-15', '2026-03-15T12:00', or with an offset already) in
    `time_zone` (an IANA name); None for a value that is not an ISO date or date-time."""
    if not isinstance(value, str):
        return None
    try:
        parsed = parse_iso_datetime(value)
    except ValueError:
        return None
    if not isinstance(parsed, datetime):
        return Deadline(parsed, None, time_zone)
    if parsed.tzinfo is not None:  # the document (or an LLM reading it) gave the offset
        return Deadline(parsed.replace(tzinfo=None), parsed, time_zone)
    zone = _zone(time_zone)
    return Deadline(parsed, parsed.replace(tzinfo=zone) if zone is not None else None, time_zone)


def end_of_day(deadline: Deadline) -> Deadline:
    """A deadline given as a date alone, as a date-time: the end of that day (23:59:59)."""
    if isinstance(deadline.local, datetime):
        return deadline
    local = datetime.combine(deadline.local, time(23, 59, 59))
    zone = _zone(deadline.time_zone)
    return Deadline(local, local.replace(tzinfo=zone) if zone is not None else None, deadline.time_zone)


@lru_cache(maxsize=512)
def _zone(name: str | None) -> ZoneInfo | None:
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def buyer_country(stored: object, fields: object) -> BuyerCountry | None:
    """The buyer's country of a stored extraction: as its `country` column holds it, or, for an
    extraction stored before that column (NULL), the fields' buyer.country placed in its zone (the
    country's only one, else the capital's). None when neither names a country."""
    if isinstance(stored, dict):
        return BuyerCountry.model_validate(stored)
    buyer = fields.get("buyer") if isinstance(fields, dict) else None
    node = buyer.get("country") if isinstance(buyer, dict) else None
    code = node.get("value") if isinstance(node, dict) else None
    if not isinstance(code, str) or code.upper() not in COUNTRY_CODES:
        return None
    zone, why = time_zone_of(code.upper())
    return BuyerCountry(code=code.upper(), inferred=False, time_zone=zone, time_zone_from=why)


DEADLINE_FIELDS: Final = ("submission_deadline", "questions_deadline")


def placed_deadlines(fields: object, country: BuyerCountry | None) -> dict[str, PlacedDeadline]:
    """The extracted deadlines of stored `fields` (JSON) as readers get them: each with its zone's
    offset when the buyer's zone is known, else local and flagged (`time_zone` null)."""
    placed: dict[str, PlacedDeadline] = {}
    zone = country.time_zone if country is not None else None
    for name in DEADLINE_FIELDS:
        node = fields.get(name) if isinstance(fields, dict) else None
        found = deadline_in_zone(node.get("value") if isinstance(node, dict) else None, zone)
        if found is not None:
            local = found.local.isoformat(timespec="seconds") if isinstance(found.local, datetime) \
                else found.local.isoformat()
            placed[name] = PlacedDeadline(date_time=found.text, local=local,
                                          time_zone=zone if found.moment is not None else None)
    return placed


def prepare(model_cache: Path | None = None) -> None:
    """Build the tables `locate` reads (place names in many languages, the language model, from its
    decoded copy in `model_cache` when given: `tenderflow.langid.load`) now, rather than in the
    first extraction: a worker's warm-up."""
    _place_names()
    _state_postcodes()
    langid.load(model_cache)


# --- the country's zones ---------------------------------------------------------------------------


@lru_cache(maxsize=512)
def zones_of(country: str) -> tuple[str, ...]:
    """The IANA zones of a country (babel's CLDR data), with its overseas departments' (France)."""
    from babel.core import get_global

    territory_zones = get_global("territory_zones")
    zones = list(territory_zones.get(country, ()))
    for part, whole in PART_OF.items():
        if whole == country:
            zones += territory_zones.get(part, ())
    return tuple(zone for zone in zones if _zone(zone) is not None)


def _offsets(zone: str) -> tuple[object, ...]:
    loaded = _zone(zone)
    assert loaded is not None
    return tuple(loaded.utcoffset(datetime(2026, month, 15, 12)) for month in (1, 7))


def has_one_offset(country: str) -> bool:
    """Whether all the country's zones keep the same offsets all year (Germany, India: yes)."""
    return len({_offsets(zone) for zone in zones_of(country)}) <= 1


def time_zone_of(country: str, clues: Sequence[CountryEvidence] = ()) -> tuple[str | None, str | None]:
    """(IANA zone, why) for a deadline of a buyer in `country`: the zone the first clue naming one
    of the country's gives (the clues in order of preference: its state, its postcode, its phone's
    area code, a city); else, for a country of one offset, that offset's zone (the capital's where
    it has several names); else the capital's. (None, None) when the zone data does not know it."""
    zones = zones_of(country)
    if not zones:
        return None, None
    one_offset = has_one_offset(country)
    for clue in clues:
        if clue.country == country and clue.time_zone in zones:
            return clue.time_zone, "the country's time zone" if one_offset else f"{clue.kind} {clue.value}"
    capital = CAPITAL_ZONES.get(country)
    if one_offset:
        return capital or zones[0], "the country's time zone"
    if capital is None or _zone(capital) is None:
        return None, None
    return capital, "the capital's time zone (nothing in the document names a region)"


# --- clues -------------------------------------------------------------------------------------------


@dataclass
class _Clues:
    found: list[CountryEvidence]

    def add(self, kind: EvidenceKind, value: str, country: str, weight: float, page: int | None = None,
            quote: str | None = None, time_zone: str | None = None) -> None:
        country = COUNTRY_CODE_ALIASES.get(country, country)
        if country in PART_OF:
            time_zone = time_zone or next(iter(zones_of(country)), None)
            country = PART_OF[country]
        if country not in COUNTRY_CODES or weight <= 0:
            return
        if any(clue.kind == kind and clue.value.casefold() == value.casefold() and clue.country == country
               for clue in self.found):
            return  # the same text read twice (the address's value and its quote)
        self.found.append(CountryEvidence(kind=kind, value=value, country=country, weight=round(weight, 3),
                                          page=page, quote=quote, time_zone=time_zone))

    def countries(self) -> set[str]:
        return {clue.country for clue in self.found}


def _phone_region(number: phonenumbers.PhoneNumber) -> tuple[str | None, str | None]:
    """(region, its zone when the number's area names exactly one) of a valid number."""
    import phonenumbers
    from phonenumbers import timezone as phone_zones

    if not phonenumbers.is_valid_number(number):
        return None, None
    region = phonenumbers.region_code_for_number(number)
    named = [zone for zone in phone_zones.time_zones_for_number(number) if _zone(zone) is not None]
    return region, named[0] if len(named) == 1 else None


def _international_phone(text: str) -> phonenumbers.PhoneNumber | None:
    import phonenumbers

    if "+" not in text:
        return None
    try:
        return phonenumbers.parse(text[text.index("+"):].replace("(0)", ""), None)
    except phonenumbers.NumberParseException:
        return None


def _buyer_phone(clues: _Clues, phone: Sourced[str] | None, candidates: Iterable[str]) -> None:
    if phone is None:
        return
    import phonenumbers

    number = _international_phone(phone.value)
    if number is not None:
        region, zone = _phone_region(number)
        if region:
            clues.add("phone", phone.value, region, 3, phone.page, phone.quote, zone)
        return
    # A national number: which of the countries the other clues name is it valid in?
    valid: dict[str, str | None] = {}
    for region in sorted(candidates):
        for tried in (region, *(part for part, whole in PART_OF.items() if whole == region)):
            try:
                parsed = phonenumbers.parse(phone.value, tried)
            except phonenumbers.NumberParseException:
                continue
            found, zone = _phone_region(parsed)
            if found == tried:
                valid[PART_OF.get(found, found)] = zone or (zones_of(found)[0] if found in PART_OF else None)
                break
    for region, zone in valid.items():
        clues.add("phone", phone.value, region, 1.5 / len(valid), phone.page, phone.quote, zone)


def _text_phones(clues: _Clues, texts: dict[int, str], buyer_phone: str | None) -> None:
    """International numbers elsewhere in the text: one clue per country, weight 1."""
    import phonenumbers

    seen: set[str] = set()
    for page, text in texts.items():
        # Without a region only international numbers are found: only lines with a '+' need reading.
        text = "\n".join(line for line in text.splitlines() if _PLUS_DIGIT.search(line))
        for match in phonenumbers.PhoneNumberMatcher(text, None):
            if buyer_phone and match.raw_string in buyer_phone:
                continue
            region, zone = _phone_region(match.number)
            if region and region not in seen:
                seen.add(region)
                clues.add("phone", match.raw_string, region, 1, page, match.raw_string, zone)


def _nuts(clues: _Clues, texts: dict[int, str]) -> None:
    seen: set[str] = set()
    for page, text in texts.items():
        for match in _NUTS.finditer(text):
            country, rest = match.group(1), match.group(2)
            code = f"{country}{rest}"
            if code in seen:
                continue
            seen.add(code)
            overseas = {"FRY1": "GP", "FRY2": "MQ", "FRY3": "GF", "FRY4": "RE", "FRY5": "YT"}.get(code[:4])
            clues.add("nuts", code, overseas or country, 3, page, match.group(0))


def _domains(clues: _Clues, buyer_email: Sourced[str] | None, texts: dict[int, str]) -> None:
    """Country-code domains: the buyer's e-mail 2, other domains of the text 1 each (2 at most a country)."""
    counted: dict[str, float] = defaultdict(float)
    seen: set[str] = set()
    own = _EMAIL.search(buyer_email.value) if buyer_email is not None else None
    if buyer_email is not None and own is not None:
        domain = own.group(1).lower()
        seen.add(domain)
        country = _domain_country(domain)
        if country:
            clues.add("e-mail", domain, country, 2, buyer_email.page, buyer_email.quote)
            counted[country] += 2
    for page, text in texts.items():
        for pattern, kind in ((_EMAIL, "e-mail"), (_URL, "web address")):
            for found in pattern.finditer(text):
                domain = found.group(1).lower()
                country = _domain_country(domain)
                if not country or domain in seen or counted[country] >= 2:
                    continue
                seen.add(domain)
                counted[country] += 1
                clues.add(kind, domain, country, 1, page, found.group(0))  # type: ignore[arg-type]


def _domain_country(domain: str) -> str | None:
    top = domain.rsplit(".", 1)[-1].lower()
    if top in ("gov", "mil") or domain.endswith(".fed.us"):
        return "US"
    if len(top) != 2 or top in _VANITY_DOMAINS:
        return None
    code = COUNTRY_CODE_ALIASES.get(top.upper(), top.upper())
    return code if code in COUNTRY_CODES else None


@lru_cache(maxsize=8)
def subdivisions(country: str) -> tuple[tuple[str, str], ...]:
    """(ISO 3166-2 code, name) of a country's subdivisions: pycountry's."""
    import pycountry

    found = pycountry.subdivisions.get(country_code=country) or ()  # type: ignore[no-untyped-call]
    return tuple((subdivision.code, subdivision.name) for subdivision in found)


_WORD: Final = re.compile(r"[^\W\d_]+(?:['’.-][^\W\d_]+)*\.?")
_LONGEST_NAME_WORDS: Final = 5


def _words(text: str) -> list[tuple[str, int, int]]:
    """The words of `text`, case-folded, with where each starts and ends."""
    return [(match.group().casefold().rstrip("."), match.start(), match.end()) for match in _WORD.finditer(text)]


def _key(name: str) -> str:
    return " ".join(word for word, _, _ in _words(name))


PLACE_NAMES: Final = Path(__file__).with_name("place_names.json")
"""`place_names()` as babel and pycountry give it, written by `make cldr-names` (`write_place_names`):
building it took ~0.2 s of CPU at every extraction worker's start. tests/test_country.py fails when the
file is not what they give today (an upgrade, a language added); without the file it is built."""


@lru_cache(maxsize=1)
def _place_names() -> dict[str, tuple[EvidenceKind, str]]:
    """`place_names()`, from `PLACE_NAMES` when it is there."""
    if not PLACE_NAMES.exists():
        return place_names()
    shipped: dict[str, list[str]] = json.loads(PLACE_NAMES.read_text(encoding="utf-8"))
    return {key: (cast(EvidenceKind, kind), code) for key, (kind, code) in shipped.items()}


def write_place_names() -> None:
    """`make cldr-names`: write `PLACE_NAMES` from babel and pycountry."""
    entries = (f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(list(value), ensure_ascii=False)}"
               for key, value in sorted(place_names().items()))
    PLACE_NAMES.write_text("{\n" + ",\n".join(entries) + "\n}\n", encoding="utf-8")  # a name a line


def place_names() -> dict[str, tuple[EvidenceKind, str]]:
    """Every country name (in the common languages), US, Canadian and Australian state name, and
    city that names a time zone, as its words joined by one space, case-folded; and what each is:
    (kind, ISO code, or the zone for a city)."""
    from babel import Locale
    from babel.core import get_global
    from babel.dates import get_timezone, get_timezone_location

    named: dict[str, tuple[EvidenceKind, str]] = {}
    for language in _NAMED_LANGUAGES:
        for code, name in Locale(language).territories.items():
            if code in COUNTRY_CODES and len(name) >= 4:
                named.setdefault(_key(name), ("country name", code))
    for name, code in _NAME_ALIASES.items():
        named[_key(name)] = ("country name", code)
    for zone in get_global("zone_territories"):
        if "/" not in zone or zone.startswith(("Etc/", "SystemV/")) or _zone(zone) is None:
            continue
        for language in ("en", "fr", "de", "es", "it", "pt", "pl", "ru"):
            try:
                city = get_timezone_location(get_timezone(zone), locale=language, return_city=True)
            except (LookupError, ValueError):
                continue
            if len(city) >= 4:
                named.setdefault(_key(city), ("city", zone))
    for country in ("US", "CA", "AU"):
        for code, name in subdivisions(country):
            if code in SUBDIVISION_ZONES and name != "Washington":  # the state, or D.C.? (its postcode tells)
                named[_key(name)] = ("state", code)
    named.pop("", None)
    return named


def places_in(text: str) -> Iterator[tuple[str, EvidenceKind, str]]:
    """The places `text` names: (the words as written, kind, code or zone), the longest name at
    each word first ('New Jersey', not 'Jersey'). A dictionary look-up per run of words: far faster
    than a pattern of thousands of names over a page."""
    named = _place_names()
    words = _words(text)
    at = 0
    while at < len(words):
        for length in range(min(_LONGEST_NAME_WORDS, len(words) - at), 0, -1):
            found = named.get(" ".join(word for word, _, _ in words[at:at + length]))
            if found is not None:
                yield text[words[at][1]:words[at + length - 1][2]].rstrip("."), found[0], found[1]
                at += length
                break
        else:
            at += 1


@lru_cache(maxsize=1)
def _state_postcodes() -> re.Pattern[str]:
    """A US state's or Australian state's abbreviation, or a US state's name, before its postcode."""
    us = [code.split("-")[1] for code, _ in subdivisions("US")]
    us_names = [name for _, name in subdivisions("US")]
    au = [code.split("-")[1] for code, _ in subdivisions("AU")]
    return re.compile(
        r"\b(?:(?P<us>" + "|".join(sorted(us + us_names, key=len, reverse=True)) + r"),?\s+\d{5}(?:-\d{4})?"
        r"|(?P<au>" + "|".join(au) + r")\s+\d{4})\b")


def _address(clues: _Clues, address: Sourced[str] | None, texts: dict[int, str]) -> None:
    """The buyer's address: its value, its quote and the line after the quote (where a country name
    often stands alone)."""
    if address is None:
        return
    page_text = texts.get(address.page, "")
    following = ""
    at = page_text.find(address.quote)
    if at >= 0:
        rest = page_text[at + len(address.quote):].split("\n", 2)
        following = rest[1] if len(rest) > 1 else ""
    text = "\n".join(dict.fromkeys((address.value, address.quote, following)))
    quoted = _quote_of(texts, address.page, address.quote, following)
    for match in _state_postcodes().finditer(text):
        state, country = (match.group("us"), "US") if match.group("us") else (match.group("au"), "AU")
        code = next((code for code, name in subdivisions(country) if state in (name, code.split("-")[1])), None)
        zone = SUBDIVISION_ZONES.get(code) if code is not None else None
        clues.add("state", match.group(0), country, 3, address.page, quoted(match.group(0)), zone)
    for match in _CANADIAN_POSTCODE.finditer(text):
        province = _CANADIAN_POSTCODE_PROVINCE[match.group(1)]
        clues.add("postcode", match.group(0), "CA", 2, address.page, quoted(match.group(0)),
                  SUBDIVISION_ZONES.get(f"CA-{province}"))
    for match in _BRITISH_POSTCODE.finditer(text):
        clues.add("postcode", match.group(0), "GB", 2, address.page, quoted(match.group(0)))
    for match in _LETTERED_POSTCODE.finditer(text):
        clues.add("postcode", match.group(0), _LETTER_COUNTRIES[match.group(1)], 2, address.page,
                  quoted(match.group(0)))
    for match in _FIVE_DIGITS.finditer(text):
        overseas = _OVERSEAS_POSTCODES.get(match.group(1))
        if overseas:  # only where France is named otherwise (the clue alone weighs little)
            clues.add("postcode", match.group(0), overseas, 0.5, address.page, quoted(match.group(0)))
    for written, kind, what in places_in(text):
        if kind == "city":
            from babel.core import get_global

            territory = get_global("zone_territories").get(what)
            if territory:
                clues.add("city", written, territory, 2, address.page, quoted(written), what)
        elif kind == "state":
            clues.add("state", written, what.split("-")[0], 1, address.page, quoted(written),
                      SUBDIVISION_ZONES.get(what))
        else:
            clues.add("country name", written, what, 3, address.page, quoted(written))


def _text_places(clues: _Clues, texts: dict[int, str]) -> None:
    """A US or Australian state with its postcode, or a Canadian postcode, anywhere in the pages
    read (an address the extractor did not take as the buyer's): 1.5, once a country."""
    seen: set[str] = set()
    for page, text in texts.items():
        for match in _state_postcodes().finditer(text):
            country = "US" if match.group("us") else "AU"
            if country not in seen:
                seen.add(country)
                state = match.group("us") or match.group("au")
                code = next((code for code, name in subdivisions(country) if state in (name, code.split("-")[1])),
                            None)
                clues.add("state", match.group(0), country, 1.5, page, match.group(0),
                          SUBDIVISION_ZONES.get(code) if code else None)
        for match in _CANADIAN_POSTCODE.finditer(text):
            if "CA" not in seen:
                seen.add("CA")
                clues.add("postcode", match.group(0), "CA", 1.5, page, match.group(0),
                          SUBDIVISION_ZONES.get(f"CA-{_CANADIAN_POSTCODE_PROVINCE[match.group(1)]}"))


def _named_regions(country: str, texts: dict[int, str]) -> list[CountryEvidence]:
    """The country's states or provinces named in the pages read (no postcode beside them), as
    clues for its zone only: 'Western Australia' in the deadline's own sentence."""
    found: list[CountryEvidence] = []
    for page, text in texts.items():
        for written, kind, what in places_in(text):
            if kind == "state" and what.startswith(f"{country}-") and what in SUBDIVISION_ZONES:
                found.append(CountryEvidence(kind="state", value=written, country=country, weight=0,
                                             page=page, quote=written, time_zone=SUBDIVISION_ZONES[what]))
    return found


def _quote_of(texts: dict[int, str], page: int, *candidates: str):  # type: ignore[no-untyped-def]
    """A quote for text read from the address: the address's own quote when it holds the text, else
    the text itself when the page has it (it does: it came from the quote or the line after)."""
    def quote(found: str) -> str | None:
        for candidate in candidates:
            if candidate and found in candidate and candidate in texts.get(page, ""):
                return candidate.strip()
        return found if found in texts.get(page, "") else None
    return quote


def _currency(clues: _Clues, fields: TenderFields) -> None:
    value = fields.estimated_value
    if value is None:
        return
    users = _currency_users().get(value.value.currency.upper(), ())
    if 0 < len(users) <= 2:
        for country in users:
            clues.add("currency", value.value.currency.upper(), country, 1 / len(users), value.page, value.quote)


@lru_cache(maxsize=1)
def _currency_users() -> dict[str, tuple[str, ...]]:
    """Each currency's countries today (babel: territories where it is legal tender now)."""
    from babel.core import get_global

    users: dict[str, list[str]] = defaultdict(list)
    for territory, currencies in get_global("territory_currencies").items():
        for code, _start, end, tender in currencies:
            if end is None and tender and territory in COUNTRY_CODES and territory not in PART_OF:
                users[code].append(territory)
    return {code: tuple(countries) for code, countries in users.items()}


@lru_cache(maxsize=1)
def _language_countries() -> dict[str, tuple[str, ...]]:
    from babel.core import get_global

    countries: dict[str, list[str]] = defaultdict(list)
    for territory, languages in get_global("territory_languages").items():
        for language, info in languages.items():
            if info.get("official_status") in ("official", "de_facto_official") and territory in COUNTRY_CODES:
                countries[language].append(territory)
    return {language: tuple(found) for language, found in countries.items()}


def text_language(texts: Iterable[str]) -> str | None:
    """The ISO 639-1 language of the text (py3langid), or None for too little text."""
    sample = "\n".join(texts)[:6_000]
    if len(sample.strip()) < 100:  # characters, not words: Japanese and Chinese write no spaces
        return None
    language, _ = langid.classify(sample)  # the identifier OCR's detection loaded, if it did
    return language


def _language(clues: _Clues, language: str | None) -> tuple[str, ...]:
    """The language's clue when it is official in three countries at most; returns every country
    where it is official (the candidates a national phone number is tried in)."""
    if language is None:
        return ()
    countries = _language_countries().get(language, ())
    if 0 < len(countries) <= 3:
        for country in countries:
            clues.add("language", language, country, 1 / len(countries))
    return countries


# --- deciding ------------------------------------------------------------------------------------------


def locate(pages: Sequence[PageLike], fields: TenderFields) -> BuyerCountry | None:
    """The buyer's country with its time zone and the evidence: the country the fields state
    (`inferred` false) or, when they state none, the one the clues point to clearly; None when
    nothing does."""
    buyer = fields.buyer
    cited = {leaf.page for leaf in (buyer.name, buyer.address, buyer.email, buyer.phone) if leaf is not None}
    numbers = sorted({page.number for page in pages})
    read = set(numbers[:_SCANNED_PAGES]) | cited
    texts = {page.number: page.text for page in pages if page.number in read}
    clues = _Clues([])
    _address(clues, buyer.address, texts)
    _nuts(clues, texts)
    _domains(clues, buyer.email, texts)
    _text_phones(clues, texts, buyer.phone.value if buyer.phone else None)
    _text_places(clues, texts)
    _currency(clues, fields)
    spoken = _language(clues, text_language(texts[number] for number in sorted(texts)))
    stated: str | None = buyer.country.value if buyer.country is not None else None
    candidates = clues.countries() | set(spoken) | ({stated} if stated else set())
    _buyer_phone(clues, buyer.phone, candidates)

    weights: dict[str, float] = defaultdict(float)
    for clue in clues.found:
        weights[clue.country] += clue.weight
    if stated is not None:
        country, inferred = stated, False
        evidence = [CountryEvidence(kind="stated", value=stated, country=stated, weight=0, page=buyer.country.page,
                                    quote=buyer.country.quote)] if buyer.country is not None else []
    else:
        ranked = sorted(weights.items(), key=lambda item: -item[1])
        if not ranked or ranked[0][1] < ENOUGH or (len(ranked) > 1 and ranked[0][1] - ranked[1][1] < LEAD):
            return None
        country, inferred, evidence = ranked[0][0], True, []
    evidence += sorted((clue for clue in clues.found if clue.country == country), key=lambda clue: -clue.weight)
    zone, why = time_zone_of(country, _by_zone_preference(evidence))
    if zone is not None and zone == CAPITAL_ZONES.get(country) and not has_one_offset(country):
        regions = _named_regions(country, texts)
        if regions and len({region.time_zone for region in regions}) == 1:  # one region, or several of one zone
            evidence.append(regions[0])
            zone, why = time_zone_of(country, regions[:1])
    return BuyerCountry(code=country, inferred=inferred, time_zone=zone, time_zone_from=why, evidence=evidence)


_ZONE_PREFERENCE: Final[dict[str, int]] = {"state": 0, "postcode": 1, "nuts": 2, "phone": 3, "city": 4}


def _by_zone_preference(evidence: Sequence[CountryEvidence]) -> list[CountryEvidence]:
    """The clues that name a zone, the address's first (its state, its postcode), then the buyer's
    phone (weighed more than other numbers), then a city."""
    naming = [clue for clue in evidence if clue.time_zone]
    return sorted(naming, key=lambda clue: (_ZONE_PREFERENCE.get(clue.kind, 9), -clue.weight))


def with_country(fields: TenderFields, found: BuyerCountry | None) -> TenderFields:
    """The fields with an inferred country filled in as the buyer's, sourced from its heaviest
    evidence that has a page and a quote (validated like any value)."""
    if found is None or not found.inferred or fields.buyer.country is not None:
        return fields
    quoted = [clue for clue in found.evidence if clue.page is not None and clue.quote]
    if not quoted:
        return fields
    best = quoted[0]
    leaf = Sourced[str](value=found.code, page=best.page or 0, quote=best.quote or "")
    return fields.model_copy(update={"buyer": fields.buyer.model_copy(update={"country": leaf})})
