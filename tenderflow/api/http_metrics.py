"""HTTP requests for /metrics: counted in this API process (Prometheus sums the replicas).

    tenderflow_http_requests_total{method,route,status}        requests answered
    tenderflow_http_request_duration_seconds{method,route}     how long each took, as a histogram

`route` is the route's template (`/v1/documents/{document_id}`), never the path itself, so ids do not
make a series each; a path no route matches is `unmatched`. Unlike the database's counters these
start again at zero when the process restarts, which `rate()` and `increase()` expect.
"""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def http_registry() -> tuple[CollectorRegistry, Counter, Histogram]:
    registry = CollectorRegistry(auto_describe=True)
    requests = Counter("tenderflow_http_requests", "HTTP requests answered by this API process.",
                       ["method", "route", "status"], registry=registry)
    durations = Histogram("tenderflow_http_request_duration_seconds",
                          "Time to answer an HTTP request in this API process (to the end of the body).",
                          ["method", "route"], buckets=REQUEST_BUCKETS, registry=registry)
    return registry, requests, durations


class HttpMetrics:
    """ASGI middleware counting every answer, the ones its inner middlewares give (413s) included."""

    def __init__(self, app: ASGIApp, *, requests: Counter, durations: Histogram) -> None:
        self.app = app
        self.requests = requests
        self.durations = durations

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.monotonic()
        status = 500

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_noting_status)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            method = scope["method"] if scope["method"] in _METHODS else "other"
            self.requests.labels(method, template, str(status)).inc()
            self.durations.labels(method, template).observe(time.monotonic() - started)


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
