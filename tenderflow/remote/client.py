"""The remote worker's HTTP client: one method per endpoint of tenderflow.remote.protocol.

Failures are sorted into what the worker does next:

    ServerUnavailableError    connection refused/reset, timeouts, 5xx: wait (backoff) and try again
    WorkerTokenRefusedError   401/403: the token was revoked or is not scoped to the pool; stop
    LeaseLostError            409: the claim is no longer this worker's; drop the job, post nothing
    ResultRefusedError        422: the server refused the result (it recorded a failed attempt)
    RemoteProtocolError       any other answer: a version mismatch or a bug, said plainly
"""

from __future__ import annotations

import ipaddress
import os
import uuid
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel

from tenderflow.errors import LeaseLostError, TenderflowError
from tenderflow.ids import process_instance_id
from tenderflow.remote.protocol import (
    MAX_ERROR_CHARS,
    MAX_RETRY_AFTER_SECONDS,
    WORKER_INSTANCE_HEADER,
    ClaimRequest,
    ClaimResponse,
    CompleteRequest,
    CompletionResponse,
    FailRequest,
    HeartbeatRequest,
    HeartbeatResponse,
    HeldJob,
    PagesInput,
    RemoteJob,
    StopRequest,
    StopResponse,
    WorkerHello,
)


class RemoteWorkerError(TenderflowError):
    """Base of the remote client's errors."""

    http_status: ClassVar[int] = 502


class ServerUnavailableError(RemoteWorkerError):
    """The server could not be reached or answered 5xx: worth trying again later."""


class WorkerTokenRefusedError(RemoteWorkerError):
    """The server refused the worker token (revoked, unknown, or not scoped to this pool)."""


class ResultRefusedError(RemoteWorkerError):
    """The server refused a posted result as invalid for its job type."""


class ResultTooLargeError(ResultRefusedError):
    """The server refused a result's body as larger than it accepts (413); nothing was recorded."""


class RemoteProtocolError(RemoteWorkerError):
    """An answer the client does not understand."""


def new_instance_name() -> str:
    """host:pid:random, trimmed to the characters the server accepts."""
    return process_instance_id()


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:500]
    if isinstance(body, dict) and "detail" in body:
        return str(body["detail"])
    return str(body)[:500]


def server_url_problem(url: str) -> tuple[str | None, str | None]:
    """(refusal, warning) for the API address a remote worker is given.

    A refusal: not an http(s) URL with a host. A warning: plain http:// to a host that is not this
    machine (localhost, 127.0.0.0/8, ::1), where the worker token and every document's text would
    cross the network readable by anyone on the path.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"--remote needs an http:// or https:// URL with a host, not {url!r}", None
    if parts.scheme == "https":
        return None, None
    host = parts.hostname
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost" or host.endswith(".localhost")
    if loopback:
        return None, None
    return None, (f"{url} is plain http to another machine: the worker token and the documents' text travel "
                  "unencrypted; put the API behind TLS and use https://")


class RemoteQueueClient:
    """Talks to one API server with one worker token; thread-safe (one httpx client, pooled)."""

    def __init__(
        self, base_url: str, token: str, *, instance: str | None = None, connect_timeout: float = 10.0,
        request_timeout: float = 60.0, max_connections: int = 16, transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.instance = instance or new_instance_name()
        self.request_timeout = request_timeout
        # The server's cap on a result body, learnt from its claim answers (None until then).
        self.max_result_bytes: int | None = None
        self._client = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {token}", WORKER_INSTANCE_HEADER: self.instance,
                     "User-Agent": "tenderflow-remote-worker"},
            timeout=httpx.Timeout(request_timeout, connect=connect_timeout),
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
            transport=transport,
        )

    def close(self) -> None:
        self._client.close()

    # --- the endpoints --------------------------------------------------------------------------

    def claim(self, hello: WorkerHello, *, limit: int, wait_seconds: float) -> ClaimResponse:
        body = ClaimRequest(hello=hello, limit=limit, wait_seconds=wait_seconds)
        # The server holds the request up to wait_seconds: give the read that much more time.
        response = self._send("POST", "/v1/worker/claim", body, timeout=wait_seconds + self.request_timeout)
        claimed = ClaimResponse.model_validate(response.json())
        if claimed.max_result_bytes is not None:
            self.max_result_bytes = claimed.max_result_bytes
        return claimed

    def heartbeat(self, hello: WorkerHello, jobs: list[RemoteJob]) -> HeartbeatResponse:
        body = HeartbeatRequest(hello=hello, jobs=[HeldJob(id=j.id, attempt=j.attempt) for j in jobs])
        return HeartbeatResponse.model_validate(self._send("POST", "/v1/worker/heartbeat", body).json())

    def download_pdf(self, job: RemoteJob, target: Path) -> int:
        """Stream the job's PDF into `target` (written whole or not at all); returns its size."""
        partial = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.part")
        try:
            with self._client.stream("GET", f"/v1/worker/jobs/{job.id}/input",
                                     params={"attempt": job.attempt}) as response:
                if response.status_code != 200:
                    response.read()
                    self._raise_for(response)
                size = 0
                with partial.open("wb") as sink:
                    for chunk in response.iter_bytes(256 * 1024):
                        sink.write(chunk)
                        size += len(chunk)
            os.replace(partial, target)
            return size
        except httpx.TransportError as exc:
            raise ServerUnavailableError(f"downloading the input of job {job.id}: {exc}") from exc
        finally:
            partial.unlink(missing_ok=True)

    def pages(self, job: RemoteJob) -> PagesInput:
        response = self._send("GET", f"/v1/worker/jobs/{job.id}/input", None, params={"attempt": job.attempt})
        return PagesInput.model_validate(response.json())

    def complete(self, job: RemoteJob, result: BaseModel | dict[str, Any]) -> CompletionResponse:
        """Post a job's result: its stage's result model (or that model's JSON already)."""
        data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        body = CompleteRequest(attempt=job.attempt, result=data)
        path = f"/v1/worker/jobs/{job.id}/complete"
        content = body.model_dump_json()
        if self.max_result_bytes is not None and len(content.encode()) > self.max_result_bytes:
            # Checked here, not left to the server's 413: a server that answers before the body has
            # arrived closes the connection under the upload, and the client would see a reset.
            raise ResultTooLargeError(
                f"POST {path}: the result is {len(content.encode()):,} bytes, larger than this route's limit "
                f"of {self.max_result_bytes:,} bytes (TENDERFLOW_MAX_RESULT_BYTES on the server)")
        return CompletionResponse.model_validate(self._send("POST", path, body, content=content).json())

    def fail(
        self, job: RemoteJob, error: str, *, permanent: bool, retry_after_seconds: float | None
    ) -> CompletionResponse:
        # A server may ask for a wait of a year (or 1e17 s) in its Retry-After: carried as the
        # protocol's longest, not refused here (the job would be abandoned to its lease).
        if retry_after_seconds is not None:
            retry_after_seconds = min(retry_after_seconds, MAX_RETRY_AFTER_SECONDS)
        body = FailRequest(attempt=job.attempt, error=error[:MAX_ERROR_CHARS] or "failed", permanent=permanent,
                           retry_after_seconds=retry_after_seconds)
        return CompletionResponse.model_validate(self._send("POST", f"/v1/worker/jobs/{job.id}/fail", body).json())

    def stop(self, jobs: list[RemoteJob]) -> StopResponse:
        body = StopRequest(release=[HeldJob(id=j.id, attempt=j.attempt) for j in jobs])
        return StopResponse.model_validate(self._send("POST", "/v1/worker/stop", body, timeout=10.0).json())

    # --- plumbing -------------------------------------------------------------------------------

    def _send(
        self, method: str, path: str, body: BaseModel | None, *, timeout: float | None = None,
        params: dict[str, Any] | None = None, content: str | None = None,
    ) -> httpx.Response:
        if content is None and body is not None:
            content = body.model_dump_json()
        try:
            response = self._client.request(
                method, path, params=params,
                content=content,
                headers={"Content-Type": "application/json"} if body is not None else None,
                timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT,
            )
        except httpx.TransportError as exc:
            raise ServerUnavailableError(f"{method} {self.base_url}{path}: {type(exc).__name__}: {exc}") from exc
        if response.status_code != 200:
            self._raise_for(response)
        return response

    def _raise_for(self, response: httpx.Response) -> None:
        code = response.status_code
        detail = _detail(response)
        where = f"{response.request.method} {response.request.url.path}"
        if code in (401, 403):
            raise WorkerTokenRefusedError(f"{where}: {code} {detail}")
        if code == 409:
            raise LeaseLostError(f"{where}: {detail}")
        if code == 422:
            raise ResultRefusedError(f"{where}: {detail}")
        if code == 413:
            raise ResultTooLargeError(f"{where}: {detail}")
        if code >= 500 or code == 429:
            raise ServerUnavailableError(f"{where}: {code} {detail}")
        raise RemoteProtocolError(f"{where}: unexpected {code} {detail}")
