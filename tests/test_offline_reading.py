"""The offline extractor says how sure it is: each returned value has a confidence and the rule that found it;
a value that stayed below its field's threshold is kept as a candidate, never returned (issue 22)."""

from __future__ import annotations

from collections.abc import Sequence

from tenderflow.extraction import extract_fields
from tenderflow.extraction.backend import BackendReading, Interrupt, Page, PageLike, ReadingBackend, Usage
from tenderflow.extraction.offline import OfflineBackend
from tenderflow.extraction.schema import Sourced, TenderFields

NOTICE = """CONTRACT NOTICE
Reference No.: RS-2026-015
Title: Resurfacing of the harbour road
Closing date: 15 March 2026 at 12:00
Estimated value: EUR 1,250,000
"""


def test_each_returned_value_has_its_confidence_and_rule() -> None:
    reading = OfflineBackend().read([Page(1, NOTICE)])
    assert reading.fields.reference_number is not None and reading.fields.reference_number.value == "RS-2026-015"
    assert set(reading.confidence) == set(reading.rules)
    assert {"reference_number", "title", "submission_deadline", "estimated_value"} <= set(reading.confidence)
    assert all(0.0 < value <= 1.0 for value in reading.confidence.values())
    assert "reference" in reading.rules["reference_number"] and "estimated value" in reading.rules["estimated_value"]
    assert "buyer.name" not in reading.confidence  # nothing returned, nothing claimed


def test_the_validated_result_carries_confidence_only_for_values_it_kept() -> None:
    class Claims:
        """A backend sure of a reference its page does not print: validation drops it, and its confidence."""

        name = "claims"

        def read(self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None) -> BackendReading:
            fields = TenderFields(
                reference_number=Sourced[str](value="XX-1", page=1, quote="Reference: XX-1"),
                title=Sourced[str](value="Resurfacing of the harbour road", page=1,
                                   quote="Title: Resurfacing of the harbour road"))
            return BackendReading(fields, Usage(), {"reference_number": 0.99, "title": 0.8})

        def extract(
            self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None
        ) -> tuple[TenderFields, Usage]:
            reading = self.read(pages)
            return reading.fields, reading.usage

    result = extract_fields([Page(1, NOTICE)], Claims())
    assert result.fields.reference_number is None and result.fields.title is not None
    assert result.confidence == {"title": 0.8}
    assert isinstance(OfflineBackend(), ReadingBackend)


def test_a_value_below_its_threshold_is_a_candidate_not_the_field() -> None:
    # An address in a sentence on page 2, with no e-mail label or buyer block near it: too weak to be the
    # buyer's e-mail, worth showing a person.
    pages = [Page(1, "CONTRACT NOTICE\nReference No.: RS-2026-015\n"),
             Page(2, "The survey of the road was prepared in 2024 together with records@harbour-roads.example.org "
                     "and its partners.\n")]
    reading = OfflineBackend().read(pages)
    assert reading.fields.buyer.email is None
    candidate = reading.candidates["buyer.email"]
    assert (candidate.value, candidate.page) == ("records@harbour-roads.example.org", 2)
    assert "buyer.email" not in reading.confidence
    result = extract_fields(pages, OfflineBackend())
    assert result.fields.buyer.email is None and result.candidates["buyer.email"].value == candidate.value
