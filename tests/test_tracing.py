"""OpenTelemetry traces (issue 12, ux.md "Operational observability"), with real parts: the SDK in real
`tenderflow` processes exporting over OTLP/HTTP to a local receiver, the queue on a real PostgreSQL,
tesseract for the scanned page, the LLM backend against the local OpenAI-compatible server.

One upload is one trace: the `upload` span (the CLI process) is its root; ocr.plan, ocr.pages,
thumbnail and extract (a worker process) are its children; the LLM request is a child of extract.
Without the OTEL_* variables nothing is exported and no job carries a trace context."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tenderflow import tracing
from tests.conftest import wait_until
from tests.support.otlp_receiver import ReceivedSpan, otlp_receiver
from tests.support.tenants_harness import metering_llm
from tests.support.tender_fixtures import scanned_pdf, text_pdf

SPAN_KIND_CLIENT, SPAN_KIND_CONSUMER, STATUS_ERROR = 3, 5, 2


@pytest.fixture
def env(database_url: str, tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("TENDERFLOW_", "OTEL_"))}
    env.update({
        "DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri(),
        "TENDERFLOW_DATA_DIR": str(tmp_path / "data"), "TENDERFLOW_OCR_LANGUAGES": "eng",
        "TENDERFLOW_OCR_DETECT_LANGUAGES": "false", "TENDERFLOW_OCR_DPI": "150", "TENDERFLOW_POLL_SECONDS": "0.2",
        "TENDERFLOW_LLM_BASE_URL": metering_llm().base_url, "TENDERFLOW_LLM_API_KEY": "test",
        "TENDERFLOW_LLM_MODEL": "metered-120-30", "TENDERFLOW_LLM_MAX_RETRIES": "0", "TENDERFLOW_LOG_JSON": "true",
        "TENDERFLOW_EXTRACTION": "openai",
    })
    return env


def tenderflow(env: dict[str, str], *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "tenderflow", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def by_name(spans: list[ReceivedSpan], name: str) -> list[ReceivedSpan]:
    return [span for span in spans if span.name == name]


def test_an_upload_is_one_trace_through_every_stage_and_the_llm_call(
    env: dict[str, str], tmp_path: Path, conn: psycopg.Connection[Any]
) -> None:
    scan = scanned_pdf(tmp_path / "scan.pdf", [["Invitation to tender", "Reference number: EH-2026-0417"]])
    with otlp_receiver() as receiver:
        traced = env | {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "100"}
        tenderflow(traced, "upload", str(scan))
        tenderflow(traced, "worker", "--pool", "all", "--burst")
        wait_until(lambda: by_name(receiver.spans(), "extract") and by_name(receiver.spans(), "chat metered-120-30"),
                   timeout=30, message="the worker's spans arrived")
        spans = receiver.spans()
    [upload] = by_name(spans, "upload")
    assert upload.service == "tenderflow-cli" and upload.parent_span_id == ""
    assert "tenderflow.file_name" not in upload.attributes, "D-N7: a deleted document's name outlives it in traces"
    assert not any("scan.pdf" in str(value) for span in spans for value in span.attributes.values())
    assert upload.attributes["tenderflow.upload.status"] == "created"
    document_id = upload.attributes["tenderflow.document_id"]
    stages = {name: by_name(spans, name) for name in ("ocr.plan", "ocr.pages", "thumbnail", "extract")}
    for name, found in stages.items():
        assert len(found) == 1, (name, found)
        [job] = found
        assert (job.trace_id, job.parent_span_id, job.service) == (upload.trace_id, upload.span_id,
                                                                  "tenderflow-worker"), name
        assert job.kind == SPAN_KIND_CONSUMER and job.attributes["tenderflow.document_id"] == document_id, name
    assert stages["ocr.pages"][0].attributes["tenderflow.pages"] == "[1]"
    [llm] = by_name(spans, "chat metered-120-30")
    assert (llm.trace_id, llm.parent_span_id, llm.kind) == (upload.trace_id, stages["extract"][0].span_id,
                                                            SPAN_KIND_CLIENT)
    assert llm.attributes["gen_ai.request.model"] == "metered-120-30"
    assert (llm.attributes["gen_ai.usage.input_tokens"], llm.attributes["gen_ai.usage.output_tokens"]) == (120, 30)
    assert {span.trace_id for span in spans} == {upload.trace_id}
    # The trace travelled in the jobs' payloads, as W3C traceparents of the upload's trace.
    parents = {row[0] for row in conn.execute("SELECT payload->>'traceparent' FROM jobs")}
    assert len(parents) == 1 and parents.pop().split("-")[1] == upload.trace_id


def test_a_failing_job_is_a_failed_span(env: dict[str, str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n% no objects, no xref\n")
    with otlp_receiver() as receiver:
        traced = env | {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "100",
                        "OTEL_SERVICE_NAME": "tenders-eu"}
        tenderflow(traced, "upload", str(broken))
        tenderflow(traced, "worker", "--pool", "all", "--burst")
        wait_until(lambda: by_name(receiver.spans(), "ocr.plan"), timeout=30, message="the plan's span arrived")
        [plan] = by_name(receiver.spans(), "ocr.plan")
    assert plan.status_code == STATUS_ERROR and plan.service == "tenders-eu"


def test_without_the_otel_variables_nothing_is_traced(
    env: dict[str, str], tmp_path: Path, conn: psycopg.Connection[Any]
) -> None:
    with otlp_receiver() as receiver:
        # An endpoint with the SDK disabled, or the exporter set to none, is no trace either.
        for n, off in enumerate(({}, {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_SDK_DISABLED": "true"},
                                 {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_TRACES_EXPORTER": "none"})):
            tenderflow(env | off, "upload", str(text_pdf(tmp_path / f"t{n}.pdf", [["Tender", str(off)]])))
        assert receiver.requests == 0
    assert conn.execute("SELECT count(*) FROM jobs WHERE payload ? 'traceparent'").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (3,)
    assert not tracing.wanted({}) and tracing.wanted({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"})
    grpc = subprocess.run([sys.executable, "-m", "tenderflow", "db", "status"], capture_output=True, text=True,
                          env=env | {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_EXPORTER_OTLP_PROTOCOL":
                                     "grpc"}, timeout=120)
    assert grpc.returncode == 1 and "is not supported" in grpc.stdout + grpc.stderr
