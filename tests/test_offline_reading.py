"""The offline extractor says how sure it is: each returned value has a confidence and the rule that found it;
a value that stayed below its field's threshold is kept as a candidate, never returned (issue 22)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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


def test_show_the_api_and_the_dashboard_give_each_values_confidence_and_the_candidates(
    database_url: str, pool: Any, conn: Any, tmp_path: Path
) -> None:
    import httpx
    from typer.testing import CliRunner

    from tenderflow.cli import app
    from tenderflow.logs import configure_logging
    from tenderflow.pipeline.storage import open_storage
    from tests.support import pdf_fixtures as fixtures
    from tests.support.api_harness import ADMIN_TOKEN, api_settings, bearer, serve_in_thread, tenant_with_key
    from tests.support.pipeline_harness import drain

    settings = api_settings(database_url, tmp_path)
    key = tenant_with_key(conn, "acme")
    pdf = fixtures.born_digital_pdf(tmp_path / "notice.pdf", [NOTICE.splitlines(), [
        "The survey of the road was prepared", "in 2024 with info@hr.example.org", "and its partners."]])
    with serve_in_thread(settings) as api:
        with pdf.open("rb") as handle:
            created = api.client.post("/v1/documents", headers=bearer(key),
                                      files={"file": (pdf.name, handle, "application/pdf")})
        document_id = created.json()["id"]
        drain(pool, settings, open_storage(settings.resolved_storage_url))
        fields = api.client.get(f"/v1/documents/{document_id}/fields", headers=bearer(key)).json()
        with httpx.Client(base_url=api.url, timeout=30) as operator:
            assert operator.post("/dashboard/login", data={"token": ADMIN_TOKEN}).status_code == 303
            page = operator.get(f"/dashboard/documents/{document_id}").text
    assert fields["fields"]["reference_number"]["value"] == "RS-2026-015"
    assert 0.5 <= fields["confidence"]["reference_number"] <= 1.0 and "reference" in fields["rules"]["reference_number"]
    assert fields["fields"]["buyer"]["email"] is None
    assert fields["candidates"]["buyer.email"]["value"] == "info@hr.example.org"
    env = {"DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": settings.resolved_storage_url,
           "TENDERFLOW_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "200"}
    try:
        shown = CliRunner().invoke(app, ["show", str(document_id)], env=env).output
    finally:
        configure_logging(level="WARNING")
    assert "sure" in shown and "Buyer email (candidate)" in shown, shown
    assert '<table class="fields" id="candidates">' in page and "info@hr.example.org" in page
    assert re.search(r"RS-2026-015</td>\s*<td class=\"num\">\d+%</td>", page), "no confidence beside the value"
