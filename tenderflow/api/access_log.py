"""The API's access log: one structured line per request, and a request id that ties them together.

Each request gets an id (the caller's `X-Request-ID` when it is a short token, else a new one),
sent back in the `X-Request-ID` header and bound to the log context for the whole request, so every
line the request causes (an upload's `document.uploaded` with its document id, whose jobs then log
that id) carries it. The line itself: method, path (no query string: it may hold a cursor or a
search, never a key), status, duration, client address. 4xx are warnings, 5xx errors.
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Final

import structlog
from prometheus_client import Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = structlog.get_logger("tenderflow.api.access")

REQUEST_ID_HEADER: Final = "x-request-id"
_SAFE_ID: Final = re.compile(r"[A-Za-z0-9._-]{1,64}")


class AccessLog:
    """The outermost middleware: every answer (the inner middlewares' 413s and 429s included) is
    logged, and counted in the process's HTTP metrics (tenderflow.api.http_metrics) by route template."""

    def __init__(self, app: ASGIApp, *, requests: Counter, durations: Histogram) -> None:
        self.app = app
        self.requests = requests
        self.durations = durations

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(REQUEST_ID_HEADER.encode(), b"").decode("latin-1")
        request_id = given if _SAFE_ID.fullmatch(given) else uuid.uuid4().hex[:16]
        started = time.monotonic()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []),
                                      (REQUEST_ID_HEADER.encode(), request_id.encode())]
            await send(message)

        with structlog.contextvars.bound_contextvars(request_id=request_id):
            try:
                await self.app(scope, receive, send_with_id)
            finally:
                elapsed = time.monotonic() - started
                client = scope.get("client")
                emit = log.error if status >= 500 else log.warning if status >= 400 else log.info
                emit("http.request", method=scope["method"], path=scope["path"], status=status,
                     duration_ms=round(elapsed * 1000, 1), client=client[0] if client else None)
                # The router wrote the matched route into this same scope on the way in.
                template = getattr(scope.get("route"), "path", None) or "unmatched"
                method = scope["method"] if scope["method"] in _METHODS else "other"
                self.requests.labels(method, template, str(status)).inc()
                self.durations.labels(method, template).observe(elapsed)


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
