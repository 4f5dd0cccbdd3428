"""One webhook POST: to an address the policy allows, within one deadline, redirects not followed.

    outcome = post(url, body, headers, policy=policy, timeout_seconds=10)

httpcore (the transport under httpx) sends the request over a network backend of our own, which
resolves the URL's host itself, refuses every address the policy refuses, and connects to an
allowed one by its address: the address checked is the address connected to, whatever the name
resolved to when it was registered (DNS rebinding). TLS still verifies the certificate against the
host name (SNI), since the TLS layer is handed the name, not the address. No proxy from the
environment is used (it would connect elsewhere than checked), and a 3xx answer is an answer, not a
redirect to follow: a redirect to an internal address is how an SSRF guard is usually walked around.

The timeout is one deadline for the whole attempt — the DNS lookup, the connection, TLS, sending the
body and reading the answer — not a timeout per read that a receiver trickling one byte a second
could stretch for ever. At most `max_response_bytes` of the answer are read and kept for the log.
"""

from __future__ import annotations

import ipaddress
import ssl
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import httpcore

from tenderflow.errors import WebhookUrlError
from tenderflow.webhooks.addresses import AddressPolicy, Resolver, parse_webhook_url, system_resolver

MAX_RESPONSE_BYTES: Final = 16 * 1024
USER_AGENT: Final = "tenderflow-webhooks/1"


class AddressRefusedError(Exception):
    """Every address the host resolves to is one the policy refuses (raised by the backend)."""


class _DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every operation ends by the attempt's deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def _left(self, timeout: float | None, error: type[Exception]) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise error("the attempt's deadline passed")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        upgraded = self._inner.start_tls(ssl_context, server_hostname, self._left(timeout, httpcore.ConnectTimeout))
        return _DeadlineStream(upgraded, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


def _resolve_within(resolver: Resolver, host: str, port: int, seconds: float) -> list[str]:
    """The resolver's answer, or TimeoutError once `seconds` have passed (getaddrinfo has no timeout
    of its own; the lookup thread is left to finish by itself)."""
    answer: dict[str, Any] = {}

    def lookup() -> None:
        try:
            answer["addresses"] = list(resolver(host, port))
        except BaseException as exc:  # handed to the caller below
            answer["error"] = exc

    thread = threading.Thread(target=lookup, name="webhook-dns", daemon=True)
    thread.start()
    thread.join(max(seconds, 0.0))
    if thread.is_alive():
        raise TimeoutError(f"looking up {host} took longer than the attempt may")
    if "error" in answer:
        raise answer["error"]
    addresses: list[str] = answer["addresses"]
    return addresses


class GuardedBackend(httpcore.NetworkBackend):
    """Connects only to addresses `policy` allows, and remembers which one it connected to."""

    def __init__(self, policy: AddressPolicy, resolver: Resolver, deadline: float) -> None:
        self.policy = policy
        self.resolver = resolver
        self.deadline = deadline
        self.connected: str | None = None
        self._plain = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise httpcore.ConnectTimeout("the attempt's deadline passed")
        try:
            addresses = [str(ipaddress.ip_address(host))]
        except ValueError:
            addresses = []
        try:
            addresses = addresses or _resolve_within(self.resolver, host, port, left)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except (OSError, UnicodeError) as exc:
            raise httpcore.ConnectError(f"{host} does not resolve ({exc})") from exc
        allowed = [address for address in addresses if self.policy.refusal(address) is None]
        if not allowed:
            refusals = "; ".join(str(self.policy.refusal(address)) for address in addresses) or "no address"
            raise AddressRefusedError(f"refused to connect to {host}: {refusals}")
        error: Exception | None = None
        for address in allowed:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise httpcore.ConnectTimeout("the attempt's deadline passed")
            try:
                stream = self._plain.connect_tcp(address, port, min(timeout, left) if timeout else left,
                                                 local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
                continue
            self.connected = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
            return _DeadlineStream(stream, self.deadline)
        assert error is not None
        raise error

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("webhooks are sent over TCP only")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


@dataclass(frozen=True)
class PostOutcome:
    """What one POST came to: the answer's status (None when no answer came), the address connected
    to, how long it took, why it failed when no answer came, and the start of the answer's body."""

    status_code: int | None
    address: str | None
    duration_ms: int
    error: str | None
    response: str
    location: str | None = None

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300

    def failure(self) -> str | None:
        """Why the attempt failed, in words; None when it was delivered."""
        if self.delivered:
            return None
        if self.status_code is None:
            return self.error or "no answer"
        if 300 <= self.status_code < 400:
            where = f" to {self.location}" if self.location else ""
            return (f"answered {self.status_code} (a redirect{where}): redirects are not followed; "
                    "register the final URL")
        return f"answered {self.status_code}"


def post(
    url: str, body: bytes, headers: Mapping[str, str], *, policy: AddressPolicy, timeout_seconds: float,
    resolver: Resolver = system_resolver, max_response_bytes: int = MAX_RESPONSE_BYTES,
    ssl_context: ssl.SSLContext | None = None,
) -> PostOutcome:
    """POST `body` to `url` once (no retry here: the queue retries), within `timeout_seconds` in all."""
    started = time.monotonic()
    deadline = started + timeout_seconds
    backend = GuardedBackend(policy, resolver, deadline)

    def outcome(status: int | None, error: str | None, response: bytes = b"",
                location: str | None = None) -> PostOutcome:
        return PostOutcome(status_code=status, address=backend.connected, error=error,
                           duration_ms=round((time.monotonic() - started) * 1000),
                           response=response.decode("utf-8", "replace")[:2000], location=location)

    try:
        parse_webhook_url(url)
    except WebhookUrlError as exc:  # registered before the rules it now breaks
        return outcome(None, str(exc))
    request_headers = [("User-Agent", USER_AGENT), ("Content-Type", "application/json"), *headers.items()]
    timeouts = {"connect": timeout_seconds, "read": timeout_seconds, "write": timeout_seconds, "pool": timeout_seconds}
    pool = httpcore.ConnectionPool(ssl_context=ssl_context, network_backend=backend, retries=0, max_connections=1)
    try:
        with pool.stream("POST", url, headers=request_headers, content=body,
                         extensions={"timeout": timeouts}) as answer:
            location = next((value.decode("latin-1") for name, value in answer.headers
                             if name.lower() == b"location"), None)
            kept = bytearray()
            try:
                for chunk in answer.iter_stream():
                    kept += chunk
                    if len(kept) >= max_response_bytes:
                        break
            except (httpcore.TimeoutException, httpcore.NetworkError, httpcore.ProtocolError):
                pass  # the status is the answer; a body cut short or trickling past the deadline is not
            return outcome(answer.status, None, bytes(kept[:max_response_bytes]), location)
    except AddressRefusedError as exc:
        return outcome(None, str(exc))
    except httpcore.TimeoutException:
        return outcome(None, f"timed out after {timeout_seconds:g} s")
    except httpcore.ConnectError as exc:
        return outcome(None, f"could not connect: {exc}")
    except (httpcore.ProtocolError, httpcore.NetworkError) as exc:
        return outcome(None, f"the connection failed: {type(exc).__name__}: {exc}")
    except httpcore.UnsupportedProtocol as exc:
        return outcome(None, f"cannot send to this URL: {exc}")
    finally:
        pool.close()
