"""The wire protocol between the API server and remote pull workers: paths, headers and JSON bodies.

Both sides import these models, so the server validates exactly what the client sends. A remote
worker identifies itself with its worker token (`Authorization: Bearer tfw_…`) and an instance name
(`X-Tenderflow-Worker: host:pid:random`); the server names its claims `remote:<token name>:<instance>`
in the jobs' `worker_id`. Every call about one job carries the claim's attempt number: (job id,
attempt) is the claim's ownership token, exactly as for local workers.

    POST /v1/worker/claim                 ClaimRequest      -> ClaimResponse  (long-poll)
    GET  /v1/worker/jobs/{id}/input       ?attempt=N        -> PDF bytes | PagesInput
    POST /v1/worker/heartbeat             HeartbeatRequest  -> HeartbeatResponse
    POST /v1/worker/jobs/{id}/complete    CompleteRequest   -> CompletionResponse  (409: lease lost)
    POST /v1/worker/jobs/{id}/fail        FailRequest       -> CompletionResponse  (409: lease lost)
    POST /v1/worker/stop                  StopRequest       -> StopResponse
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tenderflow.stages.contract import InputKind
from tenderflow.texts import Line

WORKER_INSTANCE_HEADER = "X-Tenderflow-Worker"
INSTANCE_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}")
MAX_CLAIM_WAIT_SECONDS = 30.0
MAX_ERROR_CHARS = 10_000
MAX_RETRY_AFTER_SECONDS = 86_400.0
"""The longest wait a failure report carries; the server caps any wait at its backoff cap anyway."""



class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WorkerHello(_Message):
    """Who is calling: registered in the `workers` table (kind 'remote') and heartbeated."""

    host: Line = Field(min_length=1, max_length=200)
    pid: int = Field(ge=0)
    pool: Line = Field(min_length=1, max_length=50)
    threads: int = Field(ge=1, le=256)


class ClaimRequest(_Message):
    hello: WorkerHello
    limit: int = Field(ge=1, le=64, description="Free slots to fill.")
    wait_seconds: float = Field(
        ge=0, le=MAX_CLAIM_WAIT_SECONDS, description="Hold the request this long while no job is ready."
    )


class RemoteJob(_Message):
    """A claimed job as a remote worker holds it."""

    id: int
    attempt: int
    type: str
    payload: dict[str, Any]
    tenant: str
    priority: int
    max_attempts: int
    created_at: datetime
    input_kind: InputKind


class ClaimResponse(_Message):
    jobs: list[RemoteJob]
    lease_seconds: float = Field(description="How long a claim lives without a heartbeat.")
    heartbeat_seconds: float = Field(description="How often the worker should heartbeat.")
    max_result_bytes: int | None = Field(
        default=None, description="The largest result body the server accepts (TENDERFLOW_MAX_RESULT_BYTES): "
        "a worker checks its result against it before sending, instead of having the upload cut off.")


class HeldJob(_Message):
    id: int
    attempt: int


class HeartbeatRequest(_Message):
    hello: WorkerHello
    jobs: list[HeldJob] = Field(max_length=256)


class HeartbeatResponse(_Message):
    owned: list[int] = Field(description="Jobs whose leases were renewed.")
    lost: list[int] = Field(description="Jobs this worker no longer owns: stop them, post nothing.")
    heartbeat_seconds: float


class PageInput(_Message):
    number: int
    text: str


class PagesInput(_Message):
    """The input of a 'pages' job (extraction): the text of each page."""

    pages: list[PageInput]


class CompleteRequest(_Message):
    attempt: int
    result: dict[str, Any] = Field(description="The handler's compute result; validated by its result model.")


class FailRequest(_Message):
    attempt: int
    error: str = Field(min_length=1, max_length=MAX_ERROR_CHARS)
    permanent: bool = False
    retry_after_seconds: float | None = Field(default=None, ge=0, le=MAX_RETRY_AFTER_SECONDS)


class CompletionResponse(_Message):
    """succeeded | retry | failed. A lost claim is HTTP 409, never a CompletionResponse."""

    outcome: Literal["succeeded", "retry", "failed"]
    error: str | None = None


class StopRequest(_Message):
    release: list[HeldJob] = Field(default_factory=list, max_length=256)


class StopResponse(_Message):
    released: list[int]
