"""The LLM backend against a server people actually run (issue 27): llama-cpp-python's OpenAI-compatible
server with Gemma 3 270M from PyPI, started by the session (conftest.llm_server), on the CPU.

What is checked is the protocol, validation and grounding, not the model's accuracy: a 270M model
reads tenders badly, and whatever it invents must be refused, never shown. Run by `make test-llm`
(its own CI step); left out of every other run (conftest.pytest_collection_modifyitems)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from psycopg_pool import ConnectionPool

from tenderflow.extraction.backend import ExtractionSchemaError, ExtractionTruncatedError, Page
from tenderflow.extraction.negotiation import OutputMode, OutputModes, refuses_format
from tenderflow.extraction.openai_backend import OpenAIBackend
from tenderflow.extraction.schema import TenderFields, filled_paths
from tenderflow.extraction.validation import validate_fields
from tenderflow.pipeline import reads
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tests.conftest import LLM_SERVER_MODEL
from tests.support.openai_server import llama_cpp_python_refusal
from tests.support.pipeline_harness import drain, pipeline_settings
from tests.support.tender_fixtures import TENDER_PAGE, scanned_pdf

pytestmark = pytest.mark.llm_server

PAGES = [Page(1, "\n".join(TENDER_PAGE))]
SOME_FIELDS = ["title", "reference_number", "submission_deadline"]
# A 270M model writes slowly under a grammar (about 1 s a token on 2 busy cores); a longer answer is cut
# and keeps the whole values it held.
ANSWER_TOKENS = 96


def backend(base_url: str, modes: OutputModes | None = None) -> OpenAIBackend:
    return OpenAIBackend(model=LLM_SERVER_MODEL, base_url=base_url, timeout_seconds=600, max_retries=1,
                         max_output_tokens=ANSWER_TOKENS, output_modes=modes)


def assert_every_value_grounded(fields: TenderFields, pages: list[Page]) -> None:
    """What is shown holds against the pages: validating it again removes nothing."""
    again, flags = validate_fields(fields, pages)
    assert again == fields, flags


def test_llama_cpp_python_refuses_json_schema_as_the_fake_server_says(llm_server: str) -> None:
    request = {"model": LLM_SERVER_MODEL, "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}],
               "response_format": {"type": "json_schema", "json_schema": {
                   "name": "x", "strict": True, "schema": {"type": "object"}}}}
    response = httpx.post(f"{llm_server}/chat/completions", json=request, timeout=60)
    assert response.status_code == 500
    assert refuses_format(response.status_code, response.text)
    fake = llama_cpp_python_refusal()
    assert fake.status == response.status_code
    assert "Input should be 'text' or 'json_object'" in response.json()["error"]["message"]
    assert json.dumps(fake.body).count("Input should be 'text' or 'json_object'") == 1


def test_the_backend_negotiates_json_object_with_the_schema_and_grounds_what_comes_back(llm_server: str) -> None:
    llm = backend(llm_server, OutputModes())
    raw, usage = llm.read_fields(PAGES, SOME_FIELDS)  # a short answer: the model writes about a token a second here
    assert llm.output_mode is OutputMode.JSON_OBJECT  # json_schema refused (HTTP 500), json_object taken
    assert usage.calls == 1 and usage.prompt_tokens > 0 and usage.model  # the refusal cost no completion
    fields, flags = validate_fields(raw, PAGES)  # what extract_fields does with the answer
    assert_every_value_grounded(fields, PAGES)
    dropped = [path for path in filled_paths(raw) if path not in filled_paths(fields)]
    for path in dropped:  # the model's inventions are refused, each with its reason
        assert any(flag.startswith(path) for flag in flags), (path, flags)


def test_asked_in_the_prompt_alone_the_answer_is_read_or_refused_never_half_trusted(llm_server: str) -> None:
    modes = OutputModes()
    llm = backend(llm_server, modes)
    modes.learn(OutputModes.endpoint(llm_server, LLM_SERVER_MODEL), OutputMode.PROMPT)
    try:
        raw, _ = llm.read_fields(PAGES, SOME_FIELDS)
    except (ExtractionSchemaError, ExtractionTruncatedError) as error:  # a 270M model without a grammar
        assert "tender schema, twice" in str(error) or "before it was a JSON object" in str(error)
    else:
        fields, _ = validate_fields(raw, PAGES)
        assert_every_value_grounded(fields, PAGES)
    assert llm.output_mode is OutputMode.PROMPT


@pytest.mark.parametrize("extraction", ["openai", "hybrid"])
def test_upload_ocr_and_extraction_through_the_server_give_only_grounded_fields(
    llm_server: str, pool: ConnectionPool, database_url: str, tmp_path: Path, extraction: str
) -> None:
    settings = pipeline_settings(database_url, tmp_path, llm_base_url=llm_server, llm_model=LLM_SERVER_MODEL,
                                 extraction=extraction, llm_max_output_tokens=ANSWER_TOKENS,
                                 llm_timeout_seconds=600, llm_max_retries=1)
    storage = open_storage(settings.resolved_storage_url)
    with pool.connection() as conn:
        outcome = upload_file(conn, storage, scanned_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]),
                              UploadPolicy(max_bytes=10**7))
    drain(pool, settings, storage, timeout=900)
    assert outcome.document_id is not None
    with pool.connection() as conn:
        document = reads.get_document(conn, outcome.document_id)
        assert document["state"] == "done", document["error"]
        extraction_row = reads.document_fields(conn, outcome.document_id, 1)
        rows = reads.document_pages(conn, outcome.document_id, 1)
    assert extraction_row is not None and extraction_row["backend"] == extraction
    assert [row["source"] for row in rows] == ["ocr"]  # the PDF has no text layer
    pages = [Page(row["page_number"], row["text"]) for row in rows]
    fields = TenderFields.model_validate(extraction_row["fields"])
    assert_every_value_grounded(fields, pages)  # whatever the model wrote, or cut off (then flagged)
    found_by = extraction_row["provenance"].get("found_by", {})  # stored only when a field holds a value
    assert set(found_by) == set(filled_paths(fields))
    if extraction == "openai":
        assert extraction_row["prompt_tokens"] > 0 and set(found_by.values()) <= {"llm"}
        assert extraction_row["model"] == LLM_SERVER_MODEL
