"""Exports as an OCDS 1.1 release package: procurement's own data standard (Open Contracting).

One release per document that has a readable version (its newest finished one): what the tender
notice says, as extracted, in OCDS terms. What goes where:

    ocid                      <TENDERFLOW_OCDS_OCID_PREFIX>-<document id>: one contracting process per
                              document (two documents of one tender are two processes: nothing
                              extracted says reliably that they are the same tender)
    id                        <document id>-<version>: a reprocessed document is a new release
    date                      when that version finished
    tag                       from the notice type: planning (prior information notice), tender (contract
                              notice, or unknown), award (award notice), tenderAmendment (corrigendum)
    language                  the document's language, ISO 639-1
    parties, buyer            the buyer, with the role "buyer": name, address, country, e-mail, phone
    tender.id, title          the reference number (else the document id), the title
    tender.items              CPV codes as classifications (scheme CPV): the first is the item's, the
                              others its additional ones; each lot's codes an item of that lot
    tender.value              the estimated value, when its currency is in OCDS's closed currency codelist
                              (ISO 4217 as of OCDS 1.1.5: a code minted since, such as ZWG, leaves the value
                              out rather than break the package)
    tender.procurementMethod  from the eForms procedure type (open; restricted, negotiated with a call,
                              competitive dialogue, innovation partnership: selective; negotiated
                              without a call: limited), the eForms code in procurementMethodDetails
    tender.awardCriteria      priceOnly / costOnly when price or cost is the only criterion, else
                              ratedCriteria; every criterion with its weight in awardCriteriaDetails
    tender.tenderPeriod       endDate: the submission deadline
    tender.enquiryPeriod      endDate: the deadline for questions
    tender.contractPeriod     durationInDays: the contract duration (a week is 7 days, a month 30, a
                              year 365)
    tender.lots               each lot's number, title and value (the lots extension, listed in the
                              package's `extensions`)
    tender.documents          the PDF itself: file name, format, language, a link when
                              TENDERFLOW_PUBLIC_URL is set
    tender.submissionMethod   electronicSubmission when a submission URL was read (the URL beside it)

Dates are RFC 3339 date-times. A notice seldom names its time zone: a deadline is read in the zone
of the buyer's country (stated, or inferred from the document: tenderflow.extraction.country), the
region's where the document names one, else the capital's, and written with that zone's offset
(`2020-08-26T18:00:00-04:00`). When no country is known, the deadline is NOT given an offset it may
not have: `endDate` is left out and the local date-time as printed goes in `localEndDate`, an
additional field OCDS allows, its name saying what it is. A deadline without a time of day ends at
23:59:59. Fields nothing was read for are left out, never null.

tests/test_export.py validates every package against the official OCDS 1.1.5 release package and
release schemas (with the lots extension merged in), and then against `ocds-release-package.schema.json`
beside this module: the JSON Schema of exactly what this writes, stricter (closed objects). One choice
departs from the official schema: a package of nothing (no document has a readable version) has an
empty `releases`, where OCDS asks for at least one, because an export of nothing is an empty file with
headers, not an error.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from typing import Any

from tenderflow.extraction.country import buyer_country, deadline_in_zone, end_of_day
from tenderflow.pdf.languages import TESSERACT_LANGUAGE

OCDS_VERSION = "1.1"
LOTS_EXTENSION = "https://raw.githubusercontent.com/open-contracting-extensions/ocds_lots_extension/v1.1.5/extension.json"
SCHEMA_FILE = "ocds-release-package.schema.json"

_TAGS = {"prior_information_notice": "planning", "contract_notice": "tender", "contract_award_notice": "award",
         "corrigendum": "tenderAmendment"}
_METHODS = {"open": "open", "restricted": "selective", "neg-w-call": "selective", "comp-dial": "selective",
            "innovation": "selective", "neg-wo-call": "limited"}
_METHOD_DETAILS = {
    "open": "Open procedure", "restricted": "Restricted procedure",
    "neg-w-call": "Negotiated procedure with prior publication of a call for competition / competitive procedure "
                  "with negotiation",
    "neg-wo-call": "Negotiated procedure without prior call for competition", "comp-dial": "Competitive dialogue",
    "innovation": "Innovation partnership", "oth-single": "Other single stage procedure",
    "oth-mult": "Other multiple stage procedure",
}
_DAYS = {"days": 1, "weeks": 7, "months": 30, "years": 365}
_ISO_639_1 = {tesseract: iso for iso, tesseract in reversed(list(TESSERACT_LANGUAGE.items()))}


def language_code(tesseract: str | None) -> str | None:
    """A document's language (a tesseract name: 'fra') as ISO 639-1 ('fr'), or None."""
    return _ISO_639_1.get(str(tesseract or ""))
_PRICE_WORDS = ("price", "prix", "preis", "precio", "prezzo", "preço", "prijs", "cena", "tarif", "lowest price")
_COST_WORDS = ("cost", "coût", "kosten", "coste", "costo", "custo", "life-cycle", "life cycle")


def schema() -> dict[str, Any]:
    """The JSON Schema of the packages `write_ocds` writes."""
    loaded: dict[str, Any] = json.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_text("utf-8"))
    return loaded


def timestamp(moment: datetime) -> str:
    """An RFC 3339 date-time in UTC, to the second: 2026-03-15T11:00:00Z."""
    utc = moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def period(value: Any, time_zone: str | None) -> dict[str, str]:
    """An OCDS period ending at an extracted deadline ('2026-03-15' or '2026-03-15T12:00', local):
    `endDate` with the zone's offset, or `localEndDate` (no offset) when the zone is not known."""
    found = deadline_in_zone(value, time_zone)
    if found is None:
        return {}
    found = end_of_day(found)
    if found.moment is not None:
        return {"endDate": found.text}
    return {"localEndDate": found.text}


def _value(node: Any) -> Any:
    return node.get("value") if isinstance(node, dict) else None


def _values(nodes: Any) -> list[Any]:
    return [item["value"] for item in nodes if isinstance(item, dict) and item.get("value") is not None] \
        if isinstance(nodes, list) else []


def _text(node: Any) -> str | None:
    value = _value(node)
    return value.strip() or None if isinstance(value, str) else None


@lru_cache(maxsize=1)
def _currencies() -> frozenset[str]:
    """OCDS's closed currency codelist, as the package schema beside this module holds it."""
    return frozenset(schema()["$defs"]["Value"]["properties"]["currency"]["enum"])


def _money(node: Any) -> dict[str, Any] | None:
    value = _value(node)
    if not isinstance(value, dict) or not isinstance(value.get("amount"), int | float):
        return None
    currency = str(value.get("currency") or "").upper()
    return {"amount": value["amount"], "currency": currency} if currency in _currencies() else None


def _country_name(code: str | None) -> str | None:
    if not code:
        return None
    from babel import Locale

    name = Locale("en").territories.get(code.upper())
    return str(name) if name else None


def _classifications(codes: list[Any]) -> list[dict[str, str]]:
    seen: list[str] = []
    for code in codes:
        digits = str(code).split("-", 1)[0].strip()
        if digits.isdigit() and len(digits) == 8 and digits not in seen:
            seen.append(digits)
    return [{"scheme": "CPV", "id": digits} for digits in seen]


def _criteria(nodes: Any) -> list[tuple[str, float | None]]:
    criteria = []
    for value in _values(nodes):
        if isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"].strip():
            weight = value.get("weight")
            criteria.append((value["name"].strip(), float(weight) if isinstance(weight, int | float) else None))
    return criteria


def _criteria_text(criteria: list[tuple[str, float | None]]) -> str:
    return "; ".join(f"{name} ({weight:g}%)" if weight is not None else name for name, weight in criteria)


def _criteria_code(criteria: list[tuple[str, float | None]]) -> str:
    if len(criteria) == 1:
        name = criteria[0][0].casefold()
        if any(word in name for word in _COST_WORDS):
            return "costOnly"
        if any(word in name for word in _PRICE_WORDS):
            return "priceOnly"
    return "ratedCriteria"


def _compact(node: dict[str, Any]) -> dict[str, Any]:
    """`node` without the keys that hold nothing (None, empty lists and objects)."""
    return {key: value for key, value in node.items() if value not in (None, [], {}, "")}


def release(document: dict[str, Any], *, prefix: str, public_url: str | None = None) -> dict[str, Any] | None:
    """The OCDS release of one exported document (tenderflow.pipeline.export.exported_documents), or
    None for a document without a readable version."""
    fields = document.get("fields")
    if document.get("current_version") is None or not isinstance(fields, dict):
        return None
    document_id, version = int(document["id"]), int(document["current_version"])
    found_buyer = fields.get("buyer")
    buyer: dict[str, Any] = found_buyer if isinstance(found_buyer, dict) else {}
    placed = buyer_country(document.get("country"), fields)
    buyer_name = _text(buyer.get("name"))
    parties = [_buyer_party(buyer_name, buyer, placed.code if placed else None)] if buyer_name else []
    language = _ISO_639_1.get(str(document.get("language") or ""))
    tender = _tender(document, fields, zone=placed.time_zone if placed else None, language=language,
                     public_url=public_url)
    notice = _text(fields.get("notice_type"))
    return _compact({
        "ocid": f"{prefix}-{document_id}", "id": f"{document_id}-{version}",
        "date": timestamp(document.get("finished_at") or document["created_at"]),
        "tag": [_TAGS.get(notice or "", "tender")], "initiationType": "tender", "language": language,
        "parties": parties, "buyer": {"id": "buyer", "name": buyer_name} if buyer_name else None, "tender": tender,
    })


def _buyer_party(name: str, buyer: dict[str, Any], country: str | None) -> dict[str, Any]:
    """The buyer as an OCDS party: its name, address and contact point."""
    return _compact({
        "id": "buyer", "name": name, "roles": ["buyer"],
        "address": _compact({"streetAddress": _text(buyer.get("address")), "countryName": _country_name(country)}),
        "contactPoint": _compact({"email": _text(buyer.get("email")), "telephone": _text(buyer.get("phone"))}),
    })


def _tender(document: dict[str, Any], fields: dict[str, Any], *, zone: str | None, language: str | None,
            public_url: str | None) -> dict[str, Any]:
    """The release's `tender` block: what is bought (items, lots, value), how (procedure, award
    criteria, submission), when (periods in the buyer's time `zone`) and the notice document itself."""
    document_id = int(document["id"])
    items, lots, criteria, details = _items_and_lots(fields)
    procedure = _text(fields.get("procedure_type"))
    duration = _value(fields.get("contract_duration"))
    days = None
    if isinstance(duration, dict) and isinstance(duration.get("amount"), int) and duration.get("unit") in _DAYS:
        days = duration["amount"] * _DAYS[duration["unit"]]
    submission_url = _text(fields.get("submission_url"))
    return _compact({
        "id": _text(fields.get("reference_number")) or str(document_id),
        "title": _text(fields.get("title")),
        "items": items,
        "value": _money(fields.get("estimated_value")),
        "procurementMethod": _METHODS.get(procedure or ""),
        "procurementMethodDetails": _METHOD_DETAILS.get(procedure or ""),
        "mainProcurementCategory": _text(fields.get("main_category")),
        "awardCriteria": _criteria_code(criteria) if criteria else None,
        "awardCriteriaDetails": "; ".join(details) or None,
        "submissionMethod": ["electronicSubmission"] if submission_url else None,
        "submissionMethodDetails": submission_url,
        "tenderPeriod": period(_value(fields.get("submission_deadline")), zone),
        "enquiryPeriod": period(_value(fields.get("questions_deadline")), zone),
        "contractPeriod": _compact({"durationInDays": days}),
        "lots": lots,
        "documents": [_compact({
            "id": str(document_id), "documentType": "tenderNotice", "title": document.get("filename"),
            "format": "application/pdf", "language": language,
            "url": f"{public_url.rstrip('/')}/v1/documents/{document_id}" if public_url else None,
        })],
    })


def _items_and_lots(fields: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                     list[tuple[str, float | None]], list[str]]:
    """The tender's items (its main CPV classification, then each lot's), its lots (a lot read twice:
    its first reading), the award criteria (the notice's, else the first lot's that has some) and
    their details in words, the notice's then each lot's."""
    items: list[dict[str, Any]] = []
    main = _classifications(_values(fields.get("cpv_codes")))
    if main:
        items.append(_compact({"id": "1", "classification": main[0], "additionalClassifications": main[1:]}))
    lots: list[dict[str, Any]] = []
    criteria = _criteria(fields.get("award_criteria"))
    details = [_criteria_text(criteria)] if criteria else []
    for position, lot in enumerate(fields.get("lots") or [], start=1):
        if not isinstance(lot, dict):
            continue
        lot_id = _text(lot.get("number")) or str(position)
        if any(seen["id"] == lot_id for seen in lots):
            continue
        lots.append(_compact({"id": lot_id, "title": _text(lot.get("title")),
                              "value": _money(lot.get("estimated_value"))}))
        lot_codes = _classifications(_values(lot.get("cpv_codes")))
        if lot_codes:
            items.append(_compact({"id": f"lot-{lot_id}", "classification": lot_codes[0],
                                   "additionalClassifications": lot_codes[1:], "relatedLot": lot_id}))
        lot_criteria = _criteria(lot.get("award_criteria"))
        if lot_criteria:
            details.append(f"Lot {lot_id}: {_criteria_text(lot_criteria)}")
            criteria = criteria or lot_criteria
    return items, lots, criteria, details


def write_ocds(
    documents: Iterator[dict[str, Any]], write: Callable[[str], Any], *, prefix: str, publisher: str,
    public_url: str | None = None, now: datetime | None = None,
) -> int:
    """A release package of `documents` (those with a readable version), streamed release by release;
    returns how many releases it holds. Nothing to export is a package with no releases."""
    built = (release(document, prefix=prefix, public_url=public_url) for document in documents)
    return write_package((item for item in built if item is not None), write, publisher=publisher, now=now)


def write_package(
    releases: Iterable[dict[str, Any]], write: Callable[[str], Any], *, publisher: str, now: datetime | None = None,
) -> int:
    """A release package of `releases`, streamed one by one (tenders' too: tenderflow.tenders.export);
    returns how many it holds."""
    head = {
        "uri": f"urn:uuid:{uuid.uuid4()}", "version": OCDS_VERSION, "extensions": [LOTS_EXTENSION],
        "publishedDate": timestamp(now or datetime.now(UTC)), "publisher": {"name": publisher},
    }
    write(json.dumps(head, ensure_ascii=False)[:-1] + ', "releases": [')
    count = 0
    for built in releases:
        write(("," if count else "") + "\n" + json.dumps(built, ensure_ascii=False))
        count += 1
    write("\n]}\n")
    return count

