"""Structured output negotiated with the server, not assumed (issue 27): json_schema, else json_object
with the schema, else the shape in the prompt; what worked remembered per endpoint; errors that quote
the server. Against the fake server answering each refusal as the real server that refuses it does
(tests/support/openai_server.py); tests/test_llm_server.py does the same against llama-cpp-python's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tenderflow.errors import PermanentError
from tenderflow.extraction import extract_fields
from tenderflow.extraction.backend import ExtractionRequestError, ExtractionUnavailableError, Page
from tenderflow.extraction.negotiation import OutputMode, OutputModes, refuses_format
from tenderflow.extraction.openai_backend import OpenAIBackend
from tenderflow.extraction.schema import Sourced, TenderFields, strict_json_schema
from tests.support.openai_server import (
    MODEL,
    RecordedRequest,
    Reply,
    accepting,
    answer_with,
    error_reply,
    llama_cpp_python_refusal,
    lm_studio_refusal,
    output_mode_of,
    run_openai_server,
    vllm_refusal,
    with_context_window,
)

PAGES = [Page(1, "Invitation for bids\nReference: RFB-2026/017\nClosing date: 15 March 2026 at 12:00"),
         Page(2, "Buyer: City of Exampleton\nE-mail: procurement@exampleton.gov")]
REFERENCE = TenderFields(reference_number=Sourced(value="RFB-2026/017", page=1, quote="Reference: RFB-2026/017")
                         ).model_dump(mode="json")
SCHEMA = strict_json_schema(TenderFields)


def make_backend(base_url: str, modes: OutputModes | None = None, **overrides: Any) -> OpenAIBackend:
    options: dict[str, Any] = {"model": MODEL, "base_url": base_url, "timeout_seconds": 5.0, "max_retries": 2,
                               "sleep": lambda seconds: None, "jitter": lambda: 1.0, "output_modes": modes}
    return OpenAIBackend(**(options | overrides))


def modes_sent(requests: list[RecordedRequest]) -> list[str]:
    return [output_mode_of(request) for request in requests]


def test_a_server_that_refuses_json_schema_is_asked_in_json_object_with_the_schema() -> None:
    """llama-cpp-python's server answered json_schema with HTTP 500 ("Input should be 'text' or
    'json_object'") and every document failed as 'the LLM endpoint is unavailable'."""
    with run_openai_server(accepting({"json_object"}, answer_with(REFERENCE))) as server:
        backend = make_backend(server.base_url)
        result = extract_fields(PAGES, backend)
    assert modes_sent(server.requests) == ["json_schema", "json_object"]
    assert server.requests[1].response_format == {"type": "json_object", "schema": SCHEMA}
    # the model reads only the prompt: the shape is said there, once
    assert '"reference_number": Sourced<string> | null' in server.requests[1].system_text
    assert "Sourced<" not in server.requests[0].system_text
    assert result.fields.reference_number is not None and result.fields.reference_number.value == "RFB-2026/017"
    assert backend.output_mode is OutputMode.JSON_OBJECT
    assert result.prompt_tokens == 100  # the refused request cost nothing


def test_a_server_that_refuses_both_formats_gets_the_shape_in_the_prompt() -> None:
    with run_openai_server(accepting({"prompt"}, answer_with(REFERENCE), refusal=vllm_refusal)) as server:
        backend = make_backend(server.base_url)
        result = extract_fields(PAGES, backend)
    assert modes_sent(server.requests) == ["json_schema", "json_object", "prompt"]
    assert "response_format" not in server.requests[2].body
    assert "Answer with one JSON object and nothing else" in server.requests[2].system_text
    assert result.fields.reference_number is not None
    assert backend.output_mode is OutputMode.PROMPT


def test_lm_studio_refusing_json_object_is_recognised() -> None:
    assert refuses_format(400, json.dumps(lm_studio_refusal().body))
    assert refuses_format(500, json.dumps(llama_cpp_python_refusal().body))
    assert not refuses_format(401, json.dumps(llama_cpp_python_refusal().body))  # a bad key is a bad key
    assert not refuses_format(400, '{"error": {"message": "The model `gpt-5-nano` does not exist"}}')


def test_what_worked_is_remembered_per_endpoint_in_the_process_and_in_its_file(tmp_path: Path) -> None:
    path = tmp_path / "llm-output-modes.json"
    with run_openai_server(accepting({"json_object"}, answer_with(REFERENCE))) as server:
        backend = make_backend(server.base_url, OutputModes(path))
        backend.extract(PAGES)
        backend.extract(PAGES)  # the same backend: straight to json_object
        assert modes_sent(server.requests) == ["json_schema", "json_object", "json_object"]
        make_backend(server.base_url, OutputModes(path)).extract(PAGES)  # a worker started later: from the file
        assert modes_sent(server.requests)[3:] == ["json_object"]
        make_backend(server.base_url, OutputModes(path), model="another-model").extract(PAGES)  # another endpoint
        assert modes_sent(server.requests)[4:] == ["json_schema", "json_object"]
    assert {entry["mode"] for entry in json.loads(path.read_text()).values()} == {"json_object"}


def test_a_remembered_mode_is_tried_afresh_after_a_day(tmp_path: Path) -> None:
    """The server may have been upgraded: json_schema is asked again once the memory is a day old."""
    now = [1_000_000.0]
    modes = OutputModes(tmp_path / "modes.json", clock=lambda: now[0])
    with run_openai_server(accepting({"json_object"}, answer_with(REFERENCE))) as server:
        make_backend(server.base_url, modes).extract(PAGES)
        now[0] += 23 * 3600
        make_backend(server.base_url, modes).extract(PAGES)
        now[0] += 2 * 3600
        make_backend(server.base_url, modes).extract(PAGES)
    assert modes_sent(server.requests) == ["json_schema", "json_object", "json_object", "json_schema", "json_object"]


def test_a_memory_file_that_cannot_be_read_is_as_if_empty(tmp_path: Path) -> None:
    path = tmp_path / "modes.json"
    path.write_text("{not json")
    modes = OutputModes(path)
    assert modes.order("http://x/v1 m") == list(OutputMode)
    modes.learn("http://x/v1 m", OutputMode.PROMPT)
    assert OutputModes(path).order("http://x/v1 m")[0] is OutputMode.PROMPT


def test_a_server_that_later_refuses_the_remembered_mode_is_negotiated_again() -> None:
    modes = OutputModes()
    with run_openai_server(accepting({"json_schema"}, answer_with(REFERENCE))) as server:
        endpoint = OutputModes.endpoint(server.base_url, MODEL)
        modes.learn(endpoint, OutputMode.JSON_OBJECT)  # what an earlier server on this address took
        make_backend(server.base_url, modes).extract(PAGES)
    assert modes_sent(server.requests) == ["json_object", "json_schema"]
    assert modes.get(endpoint) is OutputMode.JSON_SCHEMA


# --- errors say what the server said ---------------------------------------------------------------


def test_an_error_that_does_not_name_the_format_is_no_refusal_and_is_quoted() -> None:
    with run_openai_server(lambda request: error_reply(404, "The model `test-model` does not exist")) as server:
        with pytest.raises(ExtractionRequestError, match=r"rejected the request: HTTP 404: .*"
                           r"The model `test-model` does not exist"):
            make_backend(server.base_url).extract(PAGES)
    assert modes_sent(server.requests) == ["json_schema"]


def test_a_500_that_explains_itself_is_a_request_error_not_an_outage() -> None:
    """llama-cpp-python answers a request it cannot validate with a 500 that says why: retrying it
    and calling the server 'unavailable' hid the reason."""
    invalid = Reply(500, {"error": {"message": "1 validation error: ('body', 'max_tokens'): Input should be a valid "
                                    "integer", "type": "internal_server_error"}})
    with run_openai_server(accepting({"prompt"}, lambda request: invalid)) as server:
        with pytest.raises(ExtractionRequestError, match=r"could not answer the request: HTTP 500: .*Input should "
                           r"be a valid integer") as raised:
            make_backend(server.base_url).extract(PAGES)
    assert isinstance(raised.value, PermanentError)
    assert modes_sent(server.requests) == ["json_schema", "json_object", "prompt"]  # no retries of the last


def test_a_500_that_says_nothing_is_retried_then_unavailable_quoting_the_body() -> None:
    generic = error_reply(500, "The server had an error while processing your request. Sorry about that!")
    with run_openai_server(lambda request: generic) as server:
        with pytest.raises(ExtractionUnavailableError, match=r"unavailable after 3 attempt\(s\): HTTP 500: .*The "
                           r"server had an error while processing your request"):
            make_backend(server.base_url).extract(PAGES)
    assert len(server.requests) == 3


# --- a request too long for the model's context ---------------------------------------------------------


def test_a_chunk_too_long_for_the_context_is_read_in_halves() -> None:
    """A local server's context is often far smaller than the model's (llama.cpp: "exceed context
    window"): the chunk is read in two halves, down to a bound, instead of failing the document."""
    pages = [Page(number, f"Page {number}\n" + "Tender conditions apply. " * 40) for number in range(1, 5)]
    window = len("\n".join(page.text for page in pages[:2])) + 400  # two pages fit, four do not

    def pages_answer(request: RecordedRequest) -> dict[str, Any]:
        return TenderFields().model_dump(mode="json")

    with run_openai_server(with_context_window(window, answer_with(pages_answer))) as server:
        result = extract_fields(pages, make_backend(server.base_url))
    assert [sorted(request.pages) for request in server.requests] == [[1, 2, 3, 4], [1, 2], [3, 4]]
    assert "pages 1-4: too long for the model's context, read in two parts" in result.flags
    with run_openai_server(with_context_window(100, answer_with(pages_answer))) as server:
        with pytest.raises(ExtractionRequestError, match="do not fit the model's context: HTTP 400: .*exceed "
                           "context window of 100"):
            make_backend(server.base_url).extract(pages)
