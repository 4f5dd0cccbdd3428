"""A value of the document read last is computed once for the readers that all ask for it."""

from __future__ import annotations

from tenderflow.extraction.backend import Page
from tenderflow.extraction.offline.document import Document
from tenderflow.extraction.offline.memo import LastDocument


def test_a_documents_value_is_computed_once_and_again_for_another_document() -> None:
    computed: list[int] = []

    def pages(document: Document) -> int:
        computed.append(len(document.pages))
        return len(document.pages)

    memo = LastDocument(pages)
    first = Document.of([Page(1, "a\n"), Page(2, "b\n")])
    second = Document.of([Page(1, "c\n")])
    assert (memo(first), memo(first), memo(second), memo(second), memo(first)) == (2, 2, 1, 1, 2)
    assert computed == [2, 1, 2]
