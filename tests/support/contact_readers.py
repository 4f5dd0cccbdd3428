"""Reading the buyer's contacts from page texts written in a test: the document, the value a reader
returns, and the value after the validator's provenance and grounding checks."""

from __future__ import annotations

from collections.abc import Callable

from tenderflow.extraction.backend import Page
from tenderflow.extraction.offline.document import Document
from tenderflow.extraction.schema import Buyer, Sourced, TenderFields
from tenderflow.extraction.validation import validate_fields

Reader = Callable[[Document], Sourced[str] | None]


def document(*pages: str) -> Document:
    return Document.of([Page(number, text) for number, text in enumerate(pages, start=1)])


def read(reader: Reader, *pages: str) -> str | None:
    found = reader(document(*pages))
    return found.value if found is not None else None


def grounded(reader: Reader, *pages: str) -> Sourced[str] | None:
    """The value after the validator's provenance and grounding checks (None when it drops it)."""
    found = reader(document(*pages))
    assert found is not None
    page_list = [Page(number, text) for number, text in enumerate(pages, start=1)]
    fields, flags = validate_fields(TenderFields(buyer=Buyer(name=found), submission_url=found), page_list)
    assert fields.buyer.name == fields.submission_url, flags
    return fields.buyer.name
