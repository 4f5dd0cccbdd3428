"""OpenTelemetry traces, on only when the standard OTEL_* variables ask for them.

    OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 tenderflow worker …     (or …_TRACES_ENDPOINT)

With an OTLP endpoint set (and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none), each
process exports its spans over OTLP/HTTP (protobuf) to it; everything else is the SDK's standard
configuration (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*,
OTEL_TRACES_SAMPLER…). Without one, nothing is imported beyond the API and every call here is a
flag check.

One trace per upload (or reprocess): the `upload` span is its root, and every job that follows from
it (ocr.plan, ocr.pages, thumbnail, extract) is a span of that trace, whichever worker process or
host runs it, with the LLM request inside the extract job as a span of its own. The trace travels
with the jobs: `with_traceparent` writes the current context into a job's payload as a W3C
`traceparent` when the job is enqueued, the worker runs the job inside `job_span` (a child of that
context), and a stage's commit step runs inside `job_context`, so the jobs it enqueues carry the
same trace on.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

TRACEPARENT: Final = "traceparent"
"""The payload key a job's trace context travels in (W3C Trace Context)."""

_PROPAGATOR: Final = TraceContextTextMapPropagator()
_state = {"enabled": False}


def wanted(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the OTEL_* variables ask for traces: an OTLP endpoint is set, the SDK is not disabled
    and the traces exporter is not `none`."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if env.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() in ("none", ""):
        return False
    return bool(env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_ENDPOINT"))


def configure_tracing(service_name: str = "tenderflow") -> bool:
    """Set up the SDK's tracer provider with an OTLP/HTTP exporter when `wanted()`, once per process;
    `service_name` unless OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) names one.
    Spans still buffered are sent when the process exits. Returns whether traces are on.

    Raises ValueError for an OTLP protocol other than http/protobuf (gRPC is not installed)."""
    if _state["enabled"] or not wanted():
        return _state["enabled"]
    protocol = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
                or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "http/protobuf")
    if protocol != "http/protobuf":
        raise ValueError(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol} is not supported: tenderflow exports "
                         "traces over OTLP/HTTP (http/protobuf; the collector's port 4318)")
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    named = "OTEL_SERVICE_NAME" in os.environ or "service.name=" in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    provider = TracerProvider(resource=Resource.create({} if named else {SERVICE_NAME: service_name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    atexit.register(provider.shutdown)  # flushes what the batch processor still holds
    _state["enabled"] = True
    return True


def enabled() -> bool:
    return _state["enabled"]


def _tracer() -> trace.Tracer:
    return trace.get_tracer("tenderflow")


@contextmanager
def span(name: str, attributes: Mapping[str, Any] | None = None, *,
         kind: SpanKind = SpanKind.INTERNAL) -> Iterator[Span | None]:
    """A span, current for the block (None when traces are off); an exception leaving the block is
    recorded on it and marks it failed."""
    if not _state["enabled"]:
        yield None
        return
    with _tracer().start_as_current_span(name, kind=kind, attributes=_clean(attributes or {})) as current:
        yield current


def with_traceparent(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """A job's payload with the current trace context in it (`traceparent`): a copy, or the payload
    itself when it has one already, no span is current or traces are off."""
    if not _state["enabled"] or TRACEPARENT in payload:
        return payload
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)
    return {**payload, TRACEPARENT: carrier[TRACEPARENT]} if TRACEPARENT in carrier else payload


def _parent_of(payload: Mapping[str, Any]) -> otel_context.Context | None:
    traceparent = payload.get(TRACEPARENT)
    return _PROPAGATOR.extract({TRACEPARENT: traceparent}) if isinstance(traceparent, str) else None


@contextmanager
def job_span(job_type: str, payload: Mapping[str, Any],
             attributes: Mapping[str, Any] | None = None) -> Iterator[Span | None]:
    """The span of one attempt of a job, a child of the trace its payload carries (a new trace when
    it carries none), current for the block."""
    if not _state["enabled"]:
        yield None
        return
    with _tracer().start_as_current_span(job_type, context=_parent_of(payload), kind=SpanKind.CONSUMER,
                                         attributes=_clean(attributes or {})) as current:
        yield current


@contextmanager
def job_context(payload: Mapping[str, Any]) -> Iterator[None]:
    """Make the trace a job's payload carries the current one for the block (its commit step), so the
    jobs enqueued there carry it on."""
    parent = _parent_of(payload) if _state["enabled"] else None
    if parent is None:
        yield
        return
    token = otel_context.attach(parent)
    try:
        yield
    finally:
        otel_context.detach(token)


def mark_failed(current: Span | None, description: str) -> None:
    """Mark a span failed without an exception (a job whose handler reported a failure)."""
    if current is not None:
        current.set_status(Status(StatusCode.ERROR, description[:500]))


def _clean(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """Attributes OpenTelemetry accepts: None left out, anything but str/bool/int/float written as str."""
    return {key: value if isinstance(value, str | bool | int | float) else str(value)
            for key, value in attributes.items() if value is not None}
