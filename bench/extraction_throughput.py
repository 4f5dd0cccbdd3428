"""Extraction against an OpenAI-compatible server that answers in 1 s: documents/s of one extract worker
with M threads, against the M documents/s that M concurrent 1-second calls allow, in one run.

    .venv/bin/python -m bench.extraction_throughput [--threads 8 16] [--documents-per-thread 10] [--delay 1.0]

The server is tests/support/openai_server.py (a real local HTTP server speaking the chat-completions API) with
a responder that waits `--delay` seconds, then answers with schema-valid fields quoted from the
document's first page (title, reference number, buyer, CPV code), so validation has real work to do.
Two flaws of that stdlib server would otherwise be measured as tenderflow's time, so the bench runs it
with both fixed (`--stock-server` keeps them, to show their cost):
    - Nagle: http.server writes the headers and the body in separate segments; without TCP_NODELAY
      the body waits for the client's delayed ACK, +40 ms on every answer (3 ms -> 47 ms per call
      against an instant responder, measured here);
    - a listen backlog of 5: M threads opening their first connection at once overflow it, and a
      dropped SYN is retried after 1 s, which one thread then never makes up.

For each M, on a fresh database:
    1. prepare  upload M x `--documents-per-thread` born-digital one-page tenders (distinct references)
                and let a `tenderflow worker --pool ocr` process plan them: every version ends in
                `extracting` with its extract job queued (TENDERFLOW_LLM_BASE_URL points at the server).
    2. measure  start `tenderflow worker --pool extract --threads M` and wait until every version is
                done. Documents/s = extract jobs / (first extract job started_at -> last finished_at),
                from the jobs table (the database clock).
The ideal is M documents/s (every thread always in a 1-second call); the target (issue 3) is >= 0.9 x M.
The number of chat-completion requests the server saw is checked: one per document. The last line
printed is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import re
import tempfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import psycopg

from bench.pipeline_workers import (
    load_average,
    upload_all,
    wait_for_versions,
    worker_environment,
    worker_pool,
)
from bench.scratch_database import scratch_database, server
from tenderflow.extraction import TenderFields
from tests.support.openai_server import (
    OpenAIServer,
    RecordedRequest,
    Reply,
    Responder,
    completion,
    run_openai_server,
)
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf

RUN_TIMEOUT_SECONDS = 900.0
QUOTED_LABELS = ("Title", "Reference number", "Official name", "Main CPV code")  # lines of TENDER_PAGE


def tender_page(number: int) -> list[str]:
    """The fixture tender page with a reference number of its own (so every upload is distinct)."""
    return [f"Reference number: EH-2026-{number:05d}" if line.startswith("Reference number:") else line
            for line in TENDER_PAGE]


def quoted_answer(request: RecordedRequest) -> dict[str, Any]:
    """Fields quoted from page 1 of the request's document, as a careful model would answer."""
    page = request.pages.get(1, "")
    found: dict[str, tuple[str, str]] = {}
    for label in QUOTED_LABELS:
        match = re.search(rf"^{re.escape(label)}: (.+)$", page, re.MULTILINE)
        if match:
            found[label] = (match.group(1).strip(), match.group(0).strip())

    def sourced(label: str) -> dict[str, Any] | None:
        if label not in found:
            return None
        value, quote = found[label]
        return {"value": value, "page": 1, "quote": quote}

    fields = TenderFields().model_dump(mode="json")
    fields["title"] = sourced("Title")
    fields["reference_number"] = sourced("Reference number")
    fields["buyer"]["name"] = sourced("Official name")
    fields["cpv_codes"] = [cpv] if (cpv := sourced("Main CPV code")) else []
    return TenderFields.model_validate(fields).model_dump(mode="json")


def slow_answers(delay_seconds: float) -> Responder:
    def respond(request: RecordedRequest) -> Reply:
        return dataclasses.replace(completion(quoted_answer(request)), delay_seconds=delay_seconds)

    return respond


LISTEN_BACKLOG = 256


class PromptOpenAIServer(OpenAIServer):
    """tests/support/openai_server.py's server with TCP_NODELAY on its connections and a listen backlog that
    M simultaneous first connections cannot overflow (see the module docstring)."""

    def __init__(self, responder: Responder) -> None:
        super().__init__(responder)
        self._httpd.socket.listen(LISTEN_BACKLOG)  # Linux takes a second listen() as the new backlog

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        handler = super()._handler_class()
        return type("PromptHandler", (handler,), {"disable_nagle_algorithm": True})


@contextlib.contextmanager
def prompt_openai_server(responder: Responder) -> Iterator[OpenAIServer]:
    server = PromptOpenAIServer(responder)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def measure(admin_url: str, base_url: str, *, threads: int, documents: int, work_dir: Path) -> dict[str, Any]:
    """Prepare `documents` versions waiting for extraction, then time one extract worker of `threads`
    threads over them (see the module docstring); the figures as a dict."""
    pdf_dir = work_dir / "pdfs"
    pdf_dir.mkdir(parents=True, exist_ok=True)
    pdfs = [text_pdf(pdf_dir / f"tender-{number:05d}.pdf", [tender_page(number)]) for number in range(documents)]
    with scratch_database(admin_url) as url:
        environment = worker_environment(url, work_dir, TENDERFLOW_LLM_BASE_URL=base_url,
                                         TENDERFLOW_LLM_API_KEY="bench-key", TENDERFLOW_LLM_MODEL="test-model")
        with worker_pool(url, environment, pool="ocr", processes=1, threads=2,
                         log_path=work_dir / "ocr-worker.log") as workers:
            upload_all(url, environment, pdfs)
            wait_for_versions(url, documents, states=("extracting",), timeout_seconds=RUN_TIMEOUT_SECONDS,
                              workers=workers)
        with worker_pool(url, environment, pool="extract", processes=1, threads=threads,
                         log_path=work_dir / "extract-worker.log") as workers:
            wait_for_versions(url, documents, timeout_seconds=RUN_TIMEOUT_SECONDS, workers=workers, poll_seconds=0.05)
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*), count(*) FILTER (WHERE attempts = 1),"
                "       extract(epoch FROM max(finished_at) - min(started_at)),"
                "       extract(epoch FROM avg(finished_at - started_at)),"
                "       (SELECT count(*) FROM extractions WHERE fields->'reference_number' <> 'null')"
                "  FROM jobs WHERE type = 'extract' AND state = 'succeeded'"
            ).fetchone()
    assert row is not None
    succeeded, first_attempt, seconds, mean_job_seconds, with_reference = row
    if succeeded != documents:
        raise RuntimeError(f"{succeeded} of {documents} extract jobs succeeded")
    if with_reference != documents:
        raise RuntimeError(f"only {with_reference} of {documents} extractions kept the quoted reference number")
    return {
        "threads": threads, "documents": documents, "seconds": round(float(seconds), 3),
        "documents_per_s": round(documents / float(seconds), 3),
        "retried": documents - first_attempt, "mean_job_seconds": round(float(mean_job_seconds), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, nargs="+", default=[8, 16], help="M values to measure")
    parser.add_argument("--documents-per-thread", type=int, default=10)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds the server takes per answer")
    parser.add_argument("--stock-server", action="store_true",
                        help="tests/support/openai_server.py as it is (Nagle on, listen backlog 5)")
    args = parser.parse_args()
    start_server = run_openai_server if args.stock_server else prompt_openai_server

    results = []
    with tempfile.TemporaryDirectory(prefix="tenderflow-bench-extract-") as temp, server() as (admin_url, where), \
            start_server(slow_answers(args.delay)) as llm:
        print(f"extraction_throughput: server answers in {args.delay:g} s "
              f"({'stock test server' if args.stock_server else 'test server with TCP_NODELAY, backlog 256'}), "
              f"{os.cpu_count()} cores, database: {where}")
        for threads in args.threads:
            before = len(llm.requests)
            documents = threads * args.documents_per_thread
            load = load_average()
            result = measure(admin_url, llm.base_url, threads=threads, documents=documents,
                             work_dir=Path(temp) / f"threads-{threads}")
            calls = sum(1 for request in llm.requests[before:] if request.path.endswith("/chat/completions"))
            if calls != documents:
                raise RuntimeError(f"{calls} chat completions for {documents} documents")
            ideal = threads / args.delay
            result.update(ideal_documents_per_s=round(ideal, 3), ratio=round(result["documents_per_s"] / ideal, 3),
                          load_average=round(load, 2))
            results.append(result)
            print(f"  M = {threads:2d} threads: {documents} documents in {result['seconds']:.2f} s = "
                  f"{result['documents_per_s']:.2f} documents/s; ideal {ideal:.2f} (M / {args.delay:g} s); "
                  f"ratio {result['ratio']:.3f}; mean job {result['mean_job_seconds']:.3f} s (load {load:.1f})")
    print(json.dumps({"bench": "extraction_throughput", "delay_seconds": args.delay, "cores": os.cpu_count(),
                      "server": where, "stock_test_server": args.stock_server, "runs": results}))


if __name__ == "__main__":
    main()
