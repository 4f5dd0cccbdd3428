"""Reading a field with an offline reader from page texts written in a test: the pages, the document,
the value a reader returns, and what the pipeline's validation keeps of it (its quote on its page, the
value in its quote)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tenderflow.extraction.backend import Page
from tenderflow.extraction.offline.document import Document
from tenderflow.extraction.schema import Sourced, TenderFields
from tenderflow.extraction.validation import validate_fields

T = TypeVar("T")


def pages(*texts: str) -> list[Page]:
    """The texts as the pages of a document, numbered from 1."""
    return [Page(number, text) for number, text in enumerate(texts, start=1)]


def document(*texts: str) -> Document:
    return Document.of(pages(*texts))


def value(found: Sourced[T] | None) -> T | None:
    return None if found is None else found.value


def read(reader: Callable[[Document], Sourced[T] | None], *texts: str) -> T | None:
    """The value `reader` finds in the pages (None when it finds none), unchecked."""
    return value(reader(document(*texts)))


def kept(found: Sourced[Any] | None, field: str, *texts: str) -> Any:
    """`found` (a reader's answer on these pages), after asserting the pipeline's validation keeps it
    whole as the field `field`; None stays None."""
    if found is not None:
        checked, flags = validate_fields(TenderFields(**{field: found}), pages(*texts))
        assert getattr(checked, field) == found, flags
    return found


def kept_by(reader: Callable[[Document], Sourced[T] | None], field: str) -> Callable[..., Sourced[T] | None]:
    """`reader` on page texts, its answer asserted kept by the pipeline's validation as `field` (see `kept`)."""

    def read_kept(*texts: str) -> Sourced[T] | None:
        found: Sourced[T] | None = kept(reader(document(*texts)), field, *texts)
        return found

    return read_kept
