"""Which structured output an OpenAI-compatible server accepts, found out by asking, and remembered.

OpenAI-compatible servers do not all take the same `response_format`:

    json_schema   {"type": "json_schema", "json_schema": {"name", "strict": true, "schema"}}
                  OpenAI, vLLM, llama.cpp's llama-server, Ollama, LiteLLM in front of those
    json_object   {"type": "json_object", "schema": {...}}
                  llama-cpp-python's server (it turns the schema into a grammar); OpenAI's own JSON
                  mode, which ignores the schema (the prompt carries it too)
    prompt        no response_format: the schema and "answer with JSON only" in the prompt
                  anything else; the answer is repaired and checked afterwards (answers.py)

The backend tries them in that order and steps down when the server REFUSES one, i.e. answers a
4xx or 500/501 whose body names the response format (llama-cpp-python: HTTP 500, "Input should be
'text' or 'json_object'"; LM Studio: HTTP 400, "'response_format.type' must be 'json_schema' or
'text'"). Any other error is not a refusal and is handled as before. What worked is remembered per
endpoint (base URL and model): in the process, and in a small JSON file when one is given, so the
next worker starts with it; a remembered mode older than `relearn_after_seconds` is tried afresh
(the server may have been upgraded).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any, Final


class OutputMode(StrEnum):
    """How the answer is asked to be JSON of the schema, best first (see the module docstring)."""

    JSON_SCHEMA = "json_schema"
    JSON_OBJECT = "json_object"
    PROMPT = "prompt"


MODES: Final = tuple(OutputMode)

_BODY_PREVIEW_CHARS: Final = 300
# What a refusal of the response format says about itself. A body that names none of these is a
# different error (a bad key, an unknown model, an overloaded server).
_NAMES_THE_FORMAT: Final = re.compile(
    r"response_format|response format|json_schema|json_object|structured output|guided_json|grammar",
    re.IGNORECASE,
)
# Statuses a refusal comes with: a validation error (400, 422), llama-cpp-python's unhandled
# validation error (500), a server that does not implement it (501).
_REFUSAL_STATUSES: Final = frozenset({400, 415, 422, 500, 501})


def response_format(mode: OutputMode, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The request's `response_format` for `mode` (None: the request carries none)."""
    if mode is OutputMode.JSON_SCHEMA:
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
    if mode is OutputMode.JSON_OBJECT:
        return {"type": "json_object", "schema": schema}
    return None


def body_preview(body: str) -> str:
    """The first part of an error body, on one line, for a message that quotes the server."""
    flat = " ".join(body.split())
    return flat if len(flat) <= _BODY_PREVIEW_CHARS else flat[: _BODY_PREVIEW_CHARS - 1] + "…"


def refuses_format(status: int, body: str) -> bool:
    """Whether an error answer is the server refusing the response format it was asked for."""
    return status in _REFUSAL_STATUSES and _NAMES_THE_FORMAT.search(body) is not None


class OutputModes:
    """The structured output that worked, per endpoint; thread-safe; persisted to `path` if given.

    The file is a cache: unreadable or missing, it is as if empty; a failed write is ignored (the
    process still remembers). `clock` returns epoch seconds (a parameter for tests).
    """

    def __init__(
        self,
        path: Path | None = None,
        *,
        relearn_after_seconds: float = 24 * 3600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._path = path
        self._relearn_after_seconds = relearn_after_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._learned: dict[str, tuple[OutputMode, float]] = self._load()

    @staticmethod
    def endpoint(base_url: str, model: str) -> str:
        return f"{base_url.rstrip('/')} {model}"

    def get(self, endpoint: str) -> OutputMode | None:
        with self._lock:
            learned = self._learned.get(endpoint)
        if learned is None or self._clock() - learned[1] > self._relearn_after_seconds:
            return None
        return learned[0]

    def learn(self, endpoint: str, mode: OutputMode) -> None:
        with self._lock:
            known = self._learned.get(endpoint)
            if known is not None and known[0] is mode and self._clock() - known[1] <= self._relearn_after_seconds:
                return
            self._learned[endpoint] = (mode, self._clock())
            self._save()

    def order(self, endpoint: str) -> list[OutputMode]:
        """The modes to try for `endpoint`: the remembered one first, then the rest best first."""
        known = self.get(endpoint)
        return [known, *(mode for mode in MODES if mode is not known)] if known else list(MODES)

    def _load(self) -> dict[str, tuple[OutputMode, float]]:
        if self._path is None:
            return {}
        try:
            raw = json.loads(self._path.read_text(encoding="utf-8"))
            return {str(endpoint): (OutputMode(entry["mode"]), float(entry["learned_at"]))
                    for endpoint, entry in raw.items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def _save(self) -> None:
        if self._path is None:
            return
        raw = {endpoint: {"mode": mode.value, "learned_at": at} for endpoint, (mode, at) in self._learned.items()}
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self._path.with_suffix(f".{threading.get_ident()}.tmp")
            temporary.write_text(json.dumps(raw, indent=1), encoding="utf-8")
            temporary.replace(self._path)
        except OSError:
            pass  # a cache: the process remembers all the same


def answer_shape(schema: dict[str, Any]) -> str:
    """The instruction that carries the schema in the prompt, for the modes whose request does not
    show it to the model: the shape written compactly (a tenth of the JSON Schema's tokens)."""
    return ('Answer with one JSON object and nothing else (no prose, no code fence), of this shape, where '
            'Sourced<T> stands for {"value": T, "page": <page number>, "quote": "<the exact text on that page>"}:\n'
            + _shape(schema) + "\n")


def _shape(node: dict[str, Any]) -> str:
    if "anyOf" in node:
        return " | ".join(_shape(variant) for variant in node["anyOf"])
    if "enum" in node:
        return " | ".join(json.dumps(value) for value in node["enum"])
    if "const" in node:
        return json.dumps(node["const"])
    kind = node.get("type")
    if isinstance(kind, list):
        return " | ".join(str(each) for each in kind)
    if kind == "object":
        properties: dict[str, Any] = node.get("properties", {})
        if set(properties) == {"value", "page", "quote"}:
            return f"Sourced<{_shape(properties['value'])}>"
        return "{" + ", ".join(f'"{name}": {_shape(value)}' for name, value in properties.items()) + "}"
    if kind == "array":
        return f"[{_shape(node['items'])}, …]"
    return str(kind)
