"""HTTP requests for /metrics: counted in this API process (Prometheus sums the replicas).

    tenderflow_http_requests_total{method,route,status}        requests answered
    tenderflow_http_request_duration_seconds{method,route}     how long each took, as a histogram

`route` is the route's template (`/v1/documents/{document_id}`), never the path itself, so ids do not
make a series each; a path no route matches is `unmatched`. Unlike the database's counters these
start again at zero when the process restarts, which `rate()` and `increase()` expect. They are
counted by the access log's middleware (tenderflow.api.access_log), which sees every answer.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def http_registry() -> tuple[CollectorRegistry, Counter, Histogram]:
    registry = CollectorRegistry(auto_describe=True)
    requests = Counter("tenderflow_http_requests", "HTTP requests answered by this API process.",
                       ["method", "route", "status"], registry=registry)
    durations = Histogram("tenderflow_http_request_duration_seconds",
                          "Time to answer an HTTP request in this API process (to the end of the body).",
                          ["method", "route"], buckets=REQUEST_BUCKETS, registry=registry)
    return registry, requests, durations
