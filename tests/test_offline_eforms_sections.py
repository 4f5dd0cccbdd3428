"""The offline extractor on an eForms notice's sections: the title (BT-21) is read only under the procedure's
heading (BG-6, '2.1. Procedura'), the place (BG-708) from its sub-fields ('Stad: Utrecht'), in any language;
the same words elsewhere in the notice (a lot's title, an organisation's address) are not taken for them."""

from __future__ import annotations

from tenderflow.extraction.offline import contacts, identity
from tests.support import eforms_notices
from tests.support.offline_readers import document, value


def test_a_lots_title_is_not_the_procedures() -> None:
    text = eforms_notices.notice("pl").replace("Tytuł: Sprzątanie budynków użyteczności publicznej\n", "")
    text = text.replace("LOT-0000\n", "LOT-0000\nTytuł: Sprzątanie szkół w Toruniu\n")
    assert value(identity.title(document(text))) is None


def test_an_organisations_address_is_no_title() -> None:
    # Hungarian 'Cím' is both a title and an address
    text = eforms_notices.notice("hu").replace("Cím: Középületek takarítása\n", "")
    text = text.replace("8.1. ORG-0001\n", "8.1. ORG-0001\nCím: Piac utca 20\n")
    assert value(identity.title(document(text))) is None


def test_the_title_under_the_procedures_heading_in_another_translation() -> None:
    text = eforms_notices.notice("de").replace(" Prozedur\n", " Verfahren\n")
    assert value(identity.title(document(text))) == "Reinigung öffentlicher Gebäude"


def test_the_place_is_its_town_not_its_postal_address() -> None:
    for language, town in (("nl", "Utrecht"), ("lv", "Rīga"), ("da", "Aarhus"), ("fi", "Tampere")):
        place = identity.place_of_performance(document(eforms_notices.notice(language)))
        assert value(place) == town, language


def test_the_german_buyer_in_the_wordings_of_the_sdks_versions() -> None:
    """The SDK's German changed between versions: 'Kaufmännischer' (1.4.0) or 'Beschaffer' over 'Offizielle' or
    'Amtliche Bezeichnung' (1.1.0); each is the buyer's section over its name."""
    for heading in ("Kaufmännischer", "Beschaffer", "Käufer"):
        for label in ("Offizielle Bezeichnung", "Amtliche Bezeichnung"):
            text = eforms_notices.notice("de").replace("Kaufmännischer", heading).replace(
                "Offizielle Bezeichnung", label)
            assert value(contacts.buyer_name(document(text))) == "Landeshauptstadt Stuttgart", (heading, label)
