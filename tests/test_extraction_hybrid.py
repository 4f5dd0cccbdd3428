"""Rules and model together (issue 27): the offline extractor first, the LLM asked only for the fields
it left open, with only the lines that can hold them; the LLM's answers grounded like any other; each
value says which extractor found it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from tenderflow.api.document_view import field_rows
from tenderflow.extraction import extract_fields
from tenderflow.extraction.backend import BackendReading, ExtractionUnavailableError, Interrupt, Page, PageLike
from tenderflow.extraction.hybrid import ASKABLE, HybridBackend, pages_for
from tenderflow.extraction.offline import OfflineBackend
from tenderflow.extraction.openai_backend import OpenAIBackend
from tenderflow.extraction.schema import Money, Sourced, TenderFields, filled_paths
from tenderflow.pipeline import reads
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tests.support.openai_server import MODEL, answer_with, error_reply, rate_limited, run_openai_server
from tests.support.pipeline_harness import drain, pipeline_settings
from tests.support.tender_fixtures import text_pdf

NOTICE = ("Contract notice\nContracting authority: City of Exampleton, 12 Harbour Street, 4021 Exampleton\n"
          "Title: Road resurfacing of Harbour Street\nReference number: RFB-2026/017\n"
          "Time limit for receipt of tenders: 15 March 2026 at 12:00\n")
CONDITIONS = "General conditions\n" + "The contractor shall comply with the general conditions of contract.\n" * 30
QUESTIONS = ("Questions\nRequests for clarification may be sent until 1 March 2026 to procurement@exampleton.gov\n"
             "A site visit at the Exampleton harbour works is held on 20 February 2026.\n")
PAGES = [Page(1, NOTICE), Page(2, QUESTIONS), Page(3, CONDITIONS)]
PLACE = Sourced[str](value="Exampleton harbour", page=2,
                     quote="A site visit at the Exampleton harbour works is held on 20 February 2026.")


def llm_answer(**fields: Any) -> dict[str, Any]:
    return TenderFields(**fields).model_dump(mode="json")


def make_llm(base_url: str) -> OpenAIBackend:
    return OpenAIBackend(model=MODEL, base_url=base_url, timeout_seconds=5.0, max_retries=0)


class UnsureOffline(OfflineBackend):
    """The offline extractor, with its confidence in some fields set (as the lead's scores will)."""

    def __init__(self, confidence: dict[str, float]) -> None:
        self.override = confidence

    def read(self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None) -> BackendReading:
        reading = super().read(pages, interrupt=interrupt)
        return replace(reading, confidence={**reading.confidence, **self.override})


def test_the_llm_is_asked_only_for_what_the_rules_left_empty_with_only_the_lines_that_can_hold_it() -> None:
    invented = Sourced[Money](value=Money(amount=1_000_000, currency="EUR"), page=1,
                              quote="Estimated value: EUR 1,000,000")  # no such line in the document
    reply = llm_answer(place_of_performance=PLACE, estimated_value=invented)
    with run_openai_server(answer_with(reply, prompt_tokens=321, completion_tokens=12)) as server:
        result = extract_fields(PAGES, HybridBackend(OfflineBackend(), make_llm(server.base_url)))
    [request] = server.requests
    schema = request.response_format["json_schema"]["schema"]
    offline = OfflineBackend().read(PAGES)
    left_open = [path for path in ASKABLE if offline.confidence.get(path, 0.0) < OfflineBackend.unsure_below]
    assert "title" not in left_open and "place_of_performance" in left_open
    assert list(schema["properties"]) == list(dict.fromkeys(path.split(".")[0] for path in left_open))
    assert list(schema["properties"]["buyer"]["properties"]) == [
        path.split(".")[1] for path in left_open if path.startswith("buyer.")]
    # the conditions page holds none of them: it is not sent; the notice's lines are, verbatim
    assert 3 not in request.pages and PLACE.quote in request.pages[2]
    # the traps of the fields asked only
    assert "bid security" in request.system_text and "bid opening" not in request.system_text
    assert result.backend == "hybrid" and (result.prompt_tokens, result.completion_tokens) == (321, 12)
    assert result.fields.place_of_performance == PLACE
    assert result.fields.title is not None and result.fields.title.value == "Road resurfacing of Harbour Street"
    # the model's invented value is refused, never shown
    assert result.fields.estimated_value is None
    assert any(flag.startswith("estimated_value: dropped") and "quote not found" in flag for flag in result.flags)
    assert result.found_by["place_of_performance"] == "llm"
    assert result.found_by["title"] == result.found_by["buyer.email"] == "offline"
    inferred = {"buyer.country"} if result.fields.buyer.country is not None else set()  # extraction/country.py
    assert set(result.found_by) == set(filled_paths(offline.fields)) | {"place_of_performance"} | inferred


def test_an_unsure_rules_value_is_replaced_only_by_a_grounded_llm_value() -> None:
    grounded = Sourced[str](value="RFB-2026/017", page=1, quote="Reference number: RFB-2026/017")
    invented = Sourced[str](value="RFB-2026/999", page=1, quote="Reference number: RFB-2026/999")
    unsure = UnsureOffline({"reference_number": 0.2})
    with run_openai_server(answer_with(llm_answer(reference_number=invented))) as server:
        kept = extract_fields(PAGES, HybridBackend(unsure, make_llm(server.base_url)))
        assert "reference_number" in server.requests[0].response_format["json_schema"]["schema"]["properties"]
    assert kept.fields.reference_number is not None and kept.fields.reference_number.value == "RFB-2026/017"
    assert kept.found_by["reference_number"] == "offline"
    with run_openai_server(answer_with(llm_answer(reference_number=grounded))) as server:
        replaced = extract_fields(PAGES, HybridBackend(unsure, make_llm(server.base_url)))
    assert replaced.found_by["reference_number"] == "llm"


def test_a_grounded_llm_value_whose_quote_holds_no_label_of_its_field_is_refused() -> None:
    """A small model put the address in the reference: the value stands in its quote, on its page, but
    that line says nothing of a reference. The rules' value stays."""
    misplaced = Sourced[str](value="12 Harbour Street", page=1,
                             quote="Contracting authority: City of Exampleton, 12 Harbour Street, 4021 Exampleton")
    with run_openai_server(answer_with(llm_answer(reference_number=misplaced, place_of_performance=PLACE))) as server:
        result = extract_fields(PAGES, HybridBackend(UnsureOffline({"reference_number": 0.2}),
                                                     make_llm(server.base_url)))
    assert result.fields.reference_number is not None and result.fields.reference_number.value == "RFB-2026/017"
    assert result.found_by["reference_number"] == "offline" and result.found_by["place_of_performance"] == "llm"
    assert any(flag.startswith("reference_number: dropped the LLM's '12 Harbour Street': its quote holds no label")
               for flag in result.flags), result.flags


def test_an_llm_that_cannot_answer_leaves_the_rules_fields_and_one_that_is_away_retries_the_job() -> None:
    refused = lambda request: error_reply(400, "The model `test-model` does not exist")  # noqa: E731
    with run_openai_server(refused) as server:
        result = extract_fields(PAGES, HybridBackend(OfflineBackend(), make_llm(server.base_url)))
    assert result.fields.title is not None and set(result.found_by.values()) == {"offline"}
    assert any(flag.startswith("nothing from the LLM for buyer.email") and "HTTP 400" in flag
               and "does not exist" in flag for flag in result.flags), result.flags
    with run_openai_server(lambda request: rate_limited()) as server:
        with pytest.raises(ExtractionUnavailableError, match="HTTP 429"):
            extract_fields(PAGES, HybridBackend(OfflineBackend(), make_llm(server.base_url)))


def test_a_document_the_rules_read_whole_costs_no_call() -> None:
    sure = UnsureOffline(dict.fromkeys(ASKABLE, 0.9))
    with run_openai_server(answer_with(llm_answer())) as server:
        result = extract_fields(PAGES, HybridBackend(sure, make_llm(server.base_url)))
    assert server.requests == []
    assert (result.prompt_tokens, result.completion_tokens) == (0, 0)
    assert set(result.found_by.values()) == {"offline"}


def test_what_is_sent_is_bounded_whatever_the_length_and_every_line_is_the_pages_own() -> None:
    long_document = [Page(number, f"Section {number}\n" + "Estimated value of the lot: EUR 10 000\n" * 20
                          + "Nothing to see here.\n" * 50) for number in range(1, 201)]
    excerpt = pages_for(long_document, ["estimated_value", "submission_url"], excerpt_chars=3000)
    assert 0 < sum(len(part.text) + 1 for part in excerpt) <= 3000
    for part in excerpt:
        page_lines = long_document[part.number - 1].text.splitlines()
        assert all(line in page_lines for line in part.text.splitlines())
        assert "Nothing to see here." not in part.text.splitlines()[0]


def test_found_by_is_stored_and_shown_beside_each_field(pool: ConnectionPool, database_url: str, tmp_path: Path
                                                        ) -> None:
    with run_openai_server(answer_with(llm_answer(place_of_performance=PLACE))) as server:
        settings = pipeline_settings(database_url, tmp_path, llm_base_url=server.base_url, llm_model=MODEL)
        assert settings.extraction_backend == "hybrid"  # the default with an LLM
        storage = open_storage(settings.resolved_storage_url)
        pdf = text_pdf(tmp_path / "notice.pdf", [NOTICE.splitlines(), QUESTIONS.splitlines()])
        with pool.connection() as conn:
            outcome = upload_file(conn, storage, pdf, UploadPolicy(max_bytes=10**7))
        drain(pool, settings, storage)
    assert outcome.document_id is not None
    with pool.connection() as conn:
        extraction = reads.document_fields(conn, outcome.document_id, 1)
    assert extraction is not None and extraction["backend"] == "hybrid"
    found_by = extraction["provenance"]["found_by"]
    assert found_by["place_of_performance"] == "llm" and found_by["title"] == "offline"
    # the rules' confidence stays with the values they found, and only with those
    assert "title" in extraction["provenance"]["confidence"]
    assert "place_of_performance" not in extraction["provenance"]["confidence"]
    rows = {row.field: row.found_by for row in field_rows(extraction["fields"], extraction["provenance"])}
    assert rows["Place of performance"] == "llm" and rows["Title"] == "offline"
    assert json.dumps(found_by)  # what the API's /fields returns as it is
