"""What one reading of a document computes once: a value of the document read last, for the readers of its
fields that all ask for it (the title for the place and category readers, the scripts for every label set).

Only a weak reference to the document is kept, so nothing outlives its reading; a value asked for another
document is computed again (two threads reading two documents at once only compute more often).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from tenderflow.extraction.offline.document import Document

T = TypeVar("T")


class LastDocument(Generic[T]):
    """`compute(document)` for the document read last, computed once."""

    def __init__(self, compute: Callable[[Document], T]) -> None:
        self._compute = compute
        self._slot: tuple[weakref.ref[Document], T] | None = None

    def __call__(self, document: Document) -> T:
        slot = self._slot
        if slot is not None and slot[0]() is document:
            return slot[1]
        value = self._compute(document)
        self._slot = (weakref.ref(document), value)
        return value
