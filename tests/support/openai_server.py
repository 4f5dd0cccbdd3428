"""A real local HTTP server speaking the OpenAI chat-completions API, scripted by the test.

    from tests.support.openai_server import answer_with, run_openai_server

    with run_openai_server(answer_with(TenderFields().model_dump(mode="json"))) as server:
        backend = OpenAIBackend(model="test-model", base_url=server.base_url)
        backend.extract(pages)
    assert server.requests[0].response_format["json_schema"]["strict"] is True

A *responder* is a function of the recorded request returning a `Reply` (status, JSON body,
headers, delay). Helpers build the common ones: `completion(...)` (a JSON answer, a refusal, a
truncated answer), `rate_limited(retry_after=...)`, `server_error(...)`; `in_order(...)` plays a
script of replies, one per request. Every request is recorded (path, headers, JSON body) in
`server.requests`, so a test can assert what was sent.

Stdlib only (http.server in a thread), bound to 127.0.0.1 on a free port. Reused by the pipeline
and benchmark tests: keep the API small and stable.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "test-model"


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased: HTTP header names are case-insensitive
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    def text_of(self, role: str) -> str:
        """All content of the messages with this role, joined (content parts flattened)."""
        texts: list[str] = []
        for message in self.messages:
            if message.get("role") != role:
                continue
            content = message.get("content")
            if isinstance(content, str):
                texts.append(content)
            elif isinstance(content, list):
                texts.extend(part.get("text", "") for part in content if isinstance(part, dict))
        return "\n".join(texts)

    @property
    def system_text(self) -> str:
        return self.text_of("system")

    @property
    def user_text(self) -> str:
        return self.text_of("user")

    @property
    def response_format(self) -> dict[str, Any]:
        return dict(self.body.get("response_format") or {})

    @property
    def pages(self) -> dict[int, str]:
        """The `<page number="N">…</page>` elements of the user message, by page number."""
        found = re.findall(r'<page number="(\d+)">\n(.*?)\n</page>', self.user_text, flags=re.DOTALL)
        return {int(number): text for number, text in found}


@dataclass(frozen=True)
class Reply:
    """What the server answers: an HTTP status, a JSON body (or raw text), headers, a delay first."""

    status: int = 200
    body: dict[str, Any] | str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0


Responder = Callable[[RecordedRequest], Reply]


def completion(
    content: dict[str, Any] | str | None = None,
    *,
    refusal: str | None = None,
    finish_reason: str = "stop",
    prompt_tokens: int = 100,
    completion_tokens: int = 20,
    model: str = MODEL,
) -> Reply:
    """A 200 chat completion whose message content is `content` (a dict is sent as JSON text)."""
    text = json.dumps(content) if isinstance(content, dict) else content
    return Reply(
        body={
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1_767_225_600,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": refusal},
                    "finish_reason": finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def error_reply(status: int, message: str, *, code: str | None = None, headers: dict[str, str] | None = None) -> Reply:
    """An OpenAI-style error body with this status."""
    return Reply(
        status=status,
        body={"error": {"message": message, "type": "test_error", "param": None, "code": code}},
        headers=headers or {},
    )


def rate_limited(retry_after: str | None = None) -> Reply:
    """A 429, with a Retry-After header (seconds or an HTTP date) when given."""
    return error_reply(429, "Rate limit reached", headers={"Retry-After": retry_after} if retry_after else {})


def server_error(status: int = 500) -> Reply:
    return error_reply(status, "The server had an error while processing your request.")


def answer_with(
    content: dict[str, Any] | Callable[[RecordedRequest], dict[str, Any]],
    *,
    prompt_tokens: int = 100,
    completion_tokens: int = 20,
) -> Responder:
    """A responder answering every request with `content`, or with `content(request)`."""

    def respond(request: RecordedRequest) -> Reply:
        payload = content(request) if callable(content) else content
        return completion(payload, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)

    return respond


def in_order(*replies: Reply | Responder) -> Responder:
    """A responder playing `replies` one per request. A request beyond the script gets a 400 (which
    clients do not retry), so an unexpected extra call fails the test visibly."""
    script = list(replies)
    lock = threading.Lock()

    def respond(request: RecordedRequest) -> Reply:
        with lock:
            if not script:
                return error_reply(400, "test script exhausted: unexpected request")
            reply = script.pop(0)
        return reply(request) if callable(reply) else reply

    return respond


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 overflows when many worker threads connect at once; a dropped
    # connection is retried by the client a second later.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that went away (a worker killed mid-request, by the chaos run) is no server error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class OpenAIServer:
    """A running server: `base_url` (ends in /v1) and the `requests` it has recorded so far."""

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        # A short poll interval: shutdown() waits for the serving loop's next poll.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="openai-test-server", daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._closing.set()  # wakes handlers sleeping in a delay
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Without it every reply waits out the client's delayed ACK (~40 ms), time a benchmark
            # would count against tenderflow.
            disable_nagle_algorithm = True

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                request = RecordedRequest("POST", self.path, self._headers(), body)
                server._record(request)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(error_reply(404, f"no route {self.path}"))
                    return
                self._send(server.responder(request))

            def do_GET(self) -> None:  # noqa: N802
                server._record(RecordedRequest("GET", self.path, self._headers(), {}))
                if self.path.rstrip("/").endswith("/models"):
                    self._send(Reply(body={"object": "list", "data": [{"id": MODEL, "object": "model"}]}))
                else:
                    self._send(error_reply(404, f"no route {self.path}"))

            def _headers(self) -> dict[str, str]:
                return {name.lower(): value for name, value in self.headers.items()}

            def _send(self, reply: Reply) -> None:
                if reply.delay_seconds and server._closing.wait(reply.delay_seconds):
                    return
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body or {})
                data = payload.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout) before the delayed reply

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (signature of the base)
                pass  # keep test output clean

        return Handler


@contextmanager
def run_openai_server(responder: Responder) -> Iterator[OpenAIServer]:
    """A started server for the duration of the block; stopped (and its port freed) after."""
    server = OpenAIServer(responder)
    server.start()
    try:
        yield server
    finally:
        server.stop()
