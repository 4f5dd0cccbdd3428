"""A buyer's country (ISO 3166-1 alpha-2) to the time zone its deadlines are read in.

A notice prints its deadline in the buyer's local time, seldom with its zone. The zone is the
country's (CLDR's territory zones, through babel) when it has one; for a country with several, the
capital's (`CAPITAL_ZONES`: Washington's for the United States, Moscow's for Russia, Canberra's —
Sydney's rules — for Australia), which is where a national buyer's clock most often is. A country
unknown, or none at all: no zone, and the calendar writes the deadline as a floating local time
(RFC 5545 §3.3.5, form 1), never as UTC.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

CAPITAL_ZONES: Final = {
    "AQ": None, "AR": "America/Argentina/Buenos_Aires", "AU": "Australia/Sydney", "BR": "America/Sao_Paulo",
    "CA": "America/Toronto", "CD": "Africa/Kinshasa", "CL": "America/Santiago", "CN": "Asia/Shanghai",
    "CY": "Asia/Nicosia", "DE": "Europe/Berlin", "EC": "America/Guayaquil", "ES": "Europe/Madrid",
    "FM": "Pacific/Pohnpei", "GL": "America/Nuuk", "ID": "Asia/Jakarta", "KI": "Pacific/Tarawa",
    "KZ": "Asia/Almaty", "MH": "Pacific/Majuro", "MN": "Asia/Ulaanbaatar", "MX": "America/Mexico_City",
    "MY": "Asia/Kuala_Lumpur", "NZ": "Pacific/Auckland", "PF": "Pacific/Tahiti", "PG": "Pacific/Port_Moresby",
    "PS": "Asia/Hebron", "PT": "Europe/Lisbon", "RU": "Europe/Moscow", "UA": "Europe/Kyiv", "UM": None,
    "US": "America/New_York", "UZ": "Asia/Tashkent",
}
"""The zone of each country CLDR gives several for: its capital's (None: no capital, no zone)."""


@lru_cache(maxsize=512)
def zone_of(country: str | None) -> str | None:
    """The IANA zone name deadlines of a buyer in `country` are read in, or None (unknown)."""
    if not country or len(country) != 2 or not country.isalpha():
        return None
    code = country.upper()
    from babel.core import get_global  # CLDR's tables: only when a zone is asked for

    zones = get_global("territory_zones").get(code, ())
    name = CAPITAL_ZONES.get(code) if len(zones) > 1 or code in CAPITAL_ZONES else (zones[0] if zones else None)
    if name is None:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name
