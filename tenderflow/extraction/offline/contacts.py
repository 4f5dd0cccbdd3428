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

from tenderflow.extraction.offline.addresses import address_candidates
from tenderflow.extraction.offline.buyer_names import find_buyer
from tenderflow.extraction.offline.candidates import Candidate, choose, reading_field
from tenderflow.extraction.offline.contact_context import THRESHOLD
from tenderflow.extraction.offline.document import Document, fold
from tenderflow.extraction.offline.emails import email_candidates
from tenderflow.extraction.offline.phones import phone_candidates, phone_region
from tenderflow.extraction.offline.submission import url_candidates
from tenderflow.extraction.schema import Sourced


def buyer_name(document: Document) -> Sourced[str] | None:
    """The buyer (contracting authority) as the document names it, or None."""
    best = find_buyer(document).name
    return best.sourced() if best is not None else None


_EMAILS: list[tuple[Document, list[Candidate[str]]]] = []


def _emails(document: Document) -> list[Candidate[str]]:
    """The e-mail candidates of the document, read once: the phone reader wants the e-mail too."""
    for cached, found in _EMAILS:
        if cached is document:
            return found
    found = list(email_candidates(document, find_buyer(document).anchors))
    _EMAILS[:] = [(document, found)]
    return found


def buyer_email(document: Document) -> Sourced[str] | None:
    """The buyer's contact e-mail (its block, a contact/questions sentence, an e-mail label), or None."""
    best = choose(_emails(document), THRESHOLD)
    return best.sourced() if best is not None else None


def buyer_phone(document: Document) -> Sourced[str] | None:
    """The buyer's phone number (labelled, in its block or next to its e-mail; not a fax), or None."""
    buyer = find_buyer(document)
    with reading_field("buyer.email"):  # the e-mail it stands next to, not a phone number
        email = choose(_emails(document), THRESHOLD)
    best = choose(phone_candidates(document, buyer.anchors, email, phone_region(document)), THRESHOLD)
    return best.sourced() if best is not None else None


def buyer_address(document: Document) -> Sourced[str] | None:
    """The buyer's postal address (street, postcode, town) in its block, under an address label, or in
    the first page's letterhead; never a PO box, a review body's or a meeting place's address."""
    buyer = find_buyer(document)
    name = fold(buyer.name.value) if buyer.name is not None else ""
    best = choose(address_candidates(document, buyer.anchors, name), THRESHOLD)
    return best.sourced() if best is not None else None


def submission_url(document: Document) -> Sourced[str] | None:
    """Where offers are submitted (an e-procurement platform named as such), or None."""
    best = choose(url_candidates(document), THRESHOLD)
    return best.sourced() if best is not None else None
