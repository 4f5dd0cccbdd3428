"""The buyer's country inferred from what a document gives, with its evidence, and its time zone
(tenderflow.extraction.country). The review's walk: six real tenders, `buyer_country` empty for
all of them, and every deadline written as local time with `Z`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import pytest
from babel.core import get_global

from tenderflow.extraction import extract_fields
from tenderflow.extraction.country import (
    CAPITAL_ZONES,
    SUBDIVISION_ZONES,
    deadline_in_zone,
    has_one_offset,
    locate,
    subdivisions,
    zones_of,
)
from tenderflow.extraction.openai_backend import OpenAIBackend
from tenderflow.extraction.schema import Buyer, Money, Sourced, TenderFields
from tests.support.openai_server import answer_with, run_openai_server


@dataclass(frozen=True)
class Page:
    number: int
    text: str


def leaf(value: object, page: int, quote: str) -> Sourced:  # type: ignore[type-arg]
    return Sourced(value=value, page=page, quote=quote)


GUADELOUPE = [Page(1, """AVIS D'APPEL PUBLIC A LA CONCURRENCE
Nom et adresse officiels de l'organisme acheteur : CCI des Iles de Guadeloupe.
Correspondant : M. Ousselin, rue Félix Eboué, 97159 Pointe-à-Pitre Cedex, tél. : 05-90-93-76-27,
courriel : m.ousselin@guadeloupe.cci.fr.
Objet du marché : entretien des installations de climatisation de l'aéroport.
Le présent avis concerne un marché public de services passé selon une procédure adaptée."""),
              Page(2, "Date limite de réception des offres : 26 août 2020, à 18 heures.")]
GUADELOUPE_FIELDS = TenderFields(
    buyer=Buyer(name=leaf("CCI des Iles de Guadeloupe", 1, "CCI des Iles de Guadeloupe"),
                address=leaf("rue Félix Eboué, 97159 Pointe-à-Pitre Cedex", 1,
                             "rue Félix Eboué, 97159 Pointe-à-Pitre Cedex"),
                phone=leaf("05-90-93-76-27", 1, "tél. : 05-90-93-76-27"),
                email=leaf("m.ousselin@guadeloupe.cci.fr", 1, "m.ousselin@guadeloupe.cci.fr")),
    submission_deadline=leaf("2020-08-26T18:00", 2, "26 août 2020, à 18 heures"))


def test_a_french_overseas_buyer_is_french_in_its_own_time_zone_with_the_evidence() -> None:
    found = locate(GUADELOUPE, GUADELOUPE_FIELDS)
    assert found is not None and found.code == "FR" and found.inferred
    assert found.time_zone == "America/Guadeloupe"
    kinds = {(clue.kind, clue.value) for clue in found.evidence}
    assert {("e-mail", "guadeloupe.cci.fr"), ("phone", "05-90-93-76-27"), ("postcode", "97159")} <= kinds
    for clue in found.evidence:  # every clue says where it was read
        assert clue.page is None or clue.quote in GUADELOUPE[clue.page - 1].text
    deadline = deadline_in_zone("2020-08-26T18:00", found.time_zone)
    assert deadline is not None and deadline.text == "2020-08-26T18:00:00-04:00"


@pytest.mark.parametrize(("lines", "fields", "country", "zone"), [
    # an international number of the buyer's names its country and, for the US, its zone
    (["Contact: Procurement Office, phone +34 953 21 91 95"],
     {"phone": ("+34 953 21 91 95", "phone +34 953 21 91 95")}, "ES", "Europe/Madrid"),
    (["Procurement Officer: 410-260-7533, Annapolis, MD 21401"],
     {"address": ("Annapolis, MD 21401", "Annapolis, MD 21401"), "phone": ("410-260-7533", "410-260-7533")},
     "US", "America/New_York"),
    (["County of Camrose, 3755 – 43 ave, Camrose, AB, T4V 3S8"],
     {"address": ("3755 – 43 ave, Camrose, AB, T4V 3S8", "3755 – 43 ave, Camrose, AB, T4V 3S8")},
     "CA", "America/Edmonton"),
    (["Place of performance: NUTS-Code DE139 Ortenaukreis", "Kontakt: vergabe@ortenaukreis.de"], {}, "DE",
     "Europe/Berlin"),
    (["Mirzo Ulugbek district, Dormon yuli str., 3-5 Tashkent, Uzbekistan"],
     {"address": ("3-5 Tashkent, Uzbekistan", "3-5 Tashkent, Uzbekistan")}, "UZ", "Asia/Tashkent"),
    # a state named in the deadline's sentence gives a country of several zones its zone, not the capital's
    (["Closing: 2:30 PM Friday 12 September 2025, Western Australia", "Enquiries: a.b@health.wa.gov.au"],
     {"email": ("a.b@health.wa.gov.au", "a.b@health.wa.gov.au")}, "AU", "Australia/Perth"),
])
def test_the_country_and_its_zone_come_from_what_the_document_gives(
        lines: list[str], fields: dict[str, tuple[str, str]], country: str, zone: str) -> None:
    page = Page(1, "\n".join(lines))
    buyer = Buyer(**{name: leaf(value, 1, quote) for name, (value, quote) in fields.items()})
    found = locate([page], TenderFields(buyer=buyer))
    assert found is not None, lines
    assert (found.code, found.time_zone) == (country, zone)
    assert found.evidence and all(clue.country == country for clue in found.evidence)


def test_currency_and_language_together_are_enough_but_neither_alone() -> None:
    text = "入札公告\n" + "次のとおり一般競争入札に付します。" * 10
    yen = TenderFields(estimated_value=leaf(Money(amount=111617000, currency="JPY"), 1, "111,617,000円"))
    found = locate([Page(1, text + "\n予定価格 111,617,000円")], yen)
    assert found is not None and (found.code, found.time_zone) == ("JP", "Asia/Tokyo")
    assert {clue.kind for clue in found.evidence} == {"currency", "language"}
    assert locate([Page(1, text)], TenderFields()) is None  # the language alone


def test_nothing_clear_is_no_country_and_the_deadline_stays_local_never_z() -> None:
    """A help desk abroad is no evidence of the buyer's country; a tie is no answer."""
    page = Page(1, "Invitation to bid. Questions to the help desk: +352 29 29 42 670 (Luxembourg).\n"
                   "Buyer: the Regional Water Board. Closing: 20 November 2025 at 17:00.")
    assert locate([page], TenderFields()) is None
    deadline = deadline_in_zone("2025-11-20T17:00", None)
    assert deadline is not None and deadline.text == "2025-11-20T17:00:00" and deadline.moment is None


def test_a_stated_country_is_kept_and_given_its_regions_zone() -> None:
    page = Page(1, "Country: US\nAddress: 10 Causeway Street, Boston, MA 02222")
    fields = TenderFields(buyer=Buyer(country=leaf("US", 1, "Country: US")))
    found = locate([page], fields)
    assert found is not None and not found.inferred and found.evidence[0].kind == "stated"
    assert found.time_zone == "America/New_York"


def test_extract_fields_infers_the_country_for_an_llm_backend_and_sources_it() -> None:
    """Any backend: here an OpenAI-compatible one (a real local server) that left the country empty."""
    answer = GUADELOUPE_FIELDS.model_dump(mode="json")
    with run_openai_server(answer_with(answer)) as server:
        result = extract_fields(GUADELOUPE, OpenAIBackend(model="test-model", base_url=server.base_url))
    assert result.country is not None and result.country.inferred and result.country.code == "FR"
    country = result.fields.buyer.country
    assert country is not None and country.value == "FR"
    assert country.quote in GUADELOUPE[country.page - 1].text  # kept by validation: grounded like any value


def test_every_country_of_several_offsets_has_its_capitals_zone() -> None:
    """The table is complete against babel's zones: a new zone split would fail here."""
    several = {code for code in get_global("territory_zones") if len(code) == 2 and code not in ("AQ", "ZZ")
               and not has_one_offset(code)}
    assert several - set(CAPITAL_ZONES) == set()
    assert all(zone in zones_of(code) for code, zone in CAPITAL_ZONES.items())


def test_every_us_canadian_and_australian_subdivision_has_a_zone() -> None:
    for country in ("US", "CA", "AU"):
        assert {code for code, _ in subdivisions(country)} - set(SUBDIVISION_ZONES) == set()
    # a state's zone is its country's; a US territory's (US-PR) is the territory's own (PR)
    assert [code for code, zone in SUBDIVISION_ZONES.items()
            if zone not in zones_of(code[:2]) + zones_of(code[3:])] == []


def test_a_deadline_with_its_own_offset_keeps_it_and_a_date_stays_a_date() -> None:
    stated = deadline_in_zone("2026-06-20T17:00:00+01:00", "Europe/Paris")
    assert stated is not None and stated.text == "2026-06-20T17:00:00+01:00"
    day = deadline_in_zone("2026-07-01", "Europe/Paris")
    assert day is not None and day.text == "2026-07-01" and day.moment is None
    winter = deadline_in_zone("2026-01-15T12:00", "Europe/Paris")
    assert winter is not None and winter.moment == datetime.fromisoformat("2026-01-15T12:00:00+01:00")


def test_the_shipped_place_names_are_what_babel_and_pycountry_give_today() -> None:
    """The place names are read from a file in the package (`make cldr-names` writes it), not built
    from babel's and pycountry's data at every worker's start: the file must say what they say."""
    import json

    from tenderflow.extraction import country

    shipped = json.loads(country.PLACE_NAMES.read_text(encoding="utf-8"))
    built = country.place_names()
    assert shipped == {key: list(value) for key, value in built.items()}, "run `make cldr-names`"
    assert country._place_names() == built
    assert built["deutschland"] == ("country name", "DE") and built["new jersey"] == ("state", "US-NJ")
