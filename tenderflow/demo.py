"""`tenderflow demo`: the whole product end to end on the embedded defaults.

Generates realistic sample tenders (born-digital and scanned, several layouts and languages),
uploads them, runs OCR and extraction worker processes until every document is done, and prints
the extracted fields beside the facts written into each sample.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from tenderflow.pipeline.documents import document_fields, get_document, readable_version
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.pipeline.uploads import upload_file
from tenderflow.queue.supervisor import self_command
from tenderflow.samples import SampleTender, generate_samples

DEMO_TENANT = "default"


@dataclass
class DemoRow:
    sample: SampleTender
    document_id: int
    state: str = "queued"
    pages: int | None = None
    error: str | None = None
    fields: dict[str, Any] | None = None


def field_value(fields: dict[str, Any] | None, *path: str) -> Any:
    """The value at a path of sourced fields, e.g. ('buyer', 'name') -> fields.buyer.name.value."""
    node: Any = fields
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    if isinstance(node, dict) and "value" in node:
        return node["value"]
    return node


def start_workers(database_url: str, processes: int, threads: int) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "TENDERFLOW_DATABASE_URL": database_url}
    argv = [*self_command(), "--log-level", "WARNING", "worker", "--pool", "all", "--threads", str(threads)]
    return [subprocess.Popen(argv, env=env) for _ in range(processes)]


def stop_workers(workers: list[subprocess.Popen[bytes]], *, grace_seconds: float = 30.0) -> None:
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    for worker in workers:
        try:
            worker.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def upload_samples(conn: psycopg.Connection[Any], storage: ObjectStorage, samples: list[SampleTender],
                   *, max_bytes: int) -> list[DemoRow]:
    rows = []
    for sample in samples:
        outcome = upload_file(conn, storage, sample.path, tenant=DEMO_TENANT, max_bytes=max_bytes,
                              reprocess_existing=True)
        assert outcome.document_id is not None
        rows.append(DemoRow(sample, outcome.document_id))
    return rows


def refresh(conn: psycopg.Connection[Any], rows: list[DemoRow]) -> None:
    for row in rows:
        document = get_document(conn, row.document_id)
        row.state, row.pages, row.error = document["state"], document["page_count"], document["error"]
        version = readable_version(document)
        if row.state == "done" and version is not None:
            extraction = document_fields(conn, row.document_id, version)
            row.fields = extraction["fields"] if extraction else None


def sample_dir(data_dir: Path) -> Path:
    return data_dir / "demo" / "samples"


def make_samples(data_dir: Path) -> list[SampleTender]:
    return generate_samples(sample_dir(data_dir))


def extracted_facts(fields: dict[str, Any] | None) -> dict[str, str | None]:
    """The extracted values in the answer key's shape (see tenderflow.samples.EXPECTED_FIELDS)."""
    value = field_value(fields, "estimated_value")
    cpv_codes = (fields or {}).get("cpv_codes") or []
    deadline = field_value(fields, "submission_deadline")
    amount = value.get("amount") if isinstance(value, dict) else None
    return {
        "title": field_value(fields, "title"),
        "buyer_name": field_value(fields, "buyer", "name"),
        "reference_number": field_value(fields, "reference_number"),
        "submission_deadline": str(deadline)[:10] if deadline else None,
        "estimated_value_amount": f"{float(amount):.2f}" if amount is not None else None,
        "estimated_value_currency": value.get("currency") if isinstance(value, dict) else None,
        "main_cpv_code": cpv_codes[0]["value"] if cpv_codes else None,
        "procedure_type": field_value(fields, "procedure_type"),
    }


def matching_facts(row: DemoRow) -> int:
    found = extracted_facts(row.fields)
    return sum(1 for key, expected in row.sample.expected.items()
               if found.get(key) is not None and str(found[key]).strip().lower() == expected.strip().lower())
