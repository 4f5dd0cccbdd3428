"""Reading the buyer's contacts from page texts written in a test: the document, the value a reader
returns, and the value after the validator's provenance and grounding checks."""

from __future__ import annotations

from collections.abc import Callable

from tenderflow.extraction.offline.document import Document
from tenderflow.extraction.schema import Buyer, Sourced, TenderFields
from tenderflow.extraction.validation import validate_fields
from tests.support.offline_readers import document, pages, read

__all__ = ["Reader", "grounded", "read"]  # read: the reader's value, unchecked

Reader = Callable[[Document], Sourced[str] | None]


def grounded(reader: Reader, *texts: str) -> Sourced[str] | None:
    """The value after the validator's provenance and grounding checks (None when it drops it)."""
    found = reader(document(*texts))
    assert found is not None
    fields, flags = validate_fields(TenderFields(buyer=Buyer(name=found), submission_url=found), pages(*texts))
    assert fields.buyer.name == fields.submission_url, flags
    return fields.buyer.name
