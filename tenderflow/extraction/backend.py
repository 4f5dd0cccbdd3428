"""What an extraction backend is: its input (pages), its output (fields + usage) and how it fails.

Failures are ExtractionError subclasses that ALSO carry the queue's outcome, so a handler can let
them propagate and the job ends the right way:

    ExtractionError
    ├── ExtractionRefusedError      (+ PermanentError)  the model refused or its filter blocked
    ├── ExtractionTruncatedError    (+ PermanentError)  the answer hit the output token limit
    ├── ExtractionSchemaError       (+ PermanentError)  the answer did not fit the schema, twice
    ├── ExtractionRequestError      (+ PermanentError)  the endpoint rejected the request (4xx)
    └── ExtractionUnavailableError  (+ RetryableError)  429 / 5xx / network, out of retries
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from tenderflow.errors import ExtractionError, PermanentError, RetryableError
from tenderflow.extraction.schema import Sourced, TenderFields


class PageLike(Protocol):
    """One page of a document: its 1-based number and its text (OCR or text layer)."""

    @property
    def number(self) -> int: ...

    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class Page:
    """The simplest PageLike, for callers that do not have a database row at hand."""

    number: int
    text: str


@dataclass(frozen=True)
class Usage:
    """What a backend spent: the model that answered and the tokens of all its calls."""

    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0


@dataclass(frozen=True)
class BackendReading:
    """A backend's whole answer: the fields, what it spent, and how sure it was of each value.

    ``confidence`` maps a field's path ("buyer.name", "title", "submission_deadline") to 0..1 for the
    values returned; ``rules`` names what found each one ("label 'reference no.'"); ``candidates`` holds,
    for fields left empty, the best value that stayed below its threshold: shown to a person as a
    candidate, never returned as the field."""

    fields: TenderFields
    usage: Usage
    confidence: Mapping[str, float] = field(default_factory=dict)
    rules: Mapping[str, str] = field(default_factory=dict)
    candidates: Mapping[str, Sourced[Any]] = field(default_factory=dict)


class Interrupt(Protocol):
    """What calls off a running extraction (a job's JobContext fits): `wait(seconds)` sleeps, and
    returns True at once when the work was called off (the job was cancelled or reclaimed)."""

    def wait(self, seconds: float) -> bool: ...


class ExtractionBackend(Protocol):
    """Turns a document's pages into tender fields. Pure compute: no database, no job state."""

    @property
    def name(self) -> str: ...

    def extract(self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None) -> tuple[TenderFields, Usage]:
        """Fields as read by this backend, NOT yet validated (see validation.validate_fields). A
        backend that waits (between retries) waits with `interrupt.wait` and raises LeaseLostError
        when it says the work was called off."""
        ...


@runtime_checkable
class ReadingBackend(Protocol):
    """A backend that also says how sure it is of each value (the offline extractor)."""

    def read(self, pages: Sequence[PageLike], *, interrupt: Interrupt | None = None) -> BackendReading: ...


class ExtractionRefusedError(ExtractionError, PermanentError):
    """The model refused to answer (message.refusal) or its content filter stopped the answer.

    Permanent: the same document will be refused again.
    """


class ExtractionTruncatedError(ExtractionError, PermanentError):
    """The answer stopped at the output token limit (finish_reason "length"), so it is not whole JSON.

    Permanent: the same chunk produces the same length; lower llm_chunk_chars to split it further.
    """


class ExtractionSchemaError(ExtractionError, PermanentError):
    """The answer was not JSON matching the schema, on the first call and on its one immediate retry.

    Permanent: with strict structured outputs this means the endpoint does not enforce the schema;
    queue-level retries would spend tokens for the same result.
    """


class ExtractionRequestError(ExtractionError, PermanentError):
    """The endpoint rejected the request itself (400, 401, 403, 404, 422, …): bad key, unknown model,
    input too long. Retrying the same request cannot succeed."""


class ExtractionUnavailableError(ExtractionError, RetryableError):
    """The endpoint stayed unavailable (429, 5xx, timeouts, refused connections) through all retries.

    Retryable: the queue tries the job again later, no sooner than `retry_after` when the server
    said so.
    """
