"""`tenderflow demo`: the whole product end to end on the embedded defaults.

Generates realistic sample tenders (born-digital and scanned, several layouts and languages),
uploads them, runs OCR and extraction worker processes until every document is done, and prints
the extracted fields beside the facts written into each sample.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final

import psycopg
import typer
from rich.progress import BarColumn, Progress, TextColumn

from tenderflow.cli.output import console, fail, print_note, print_table
from tenderflow.cli.runtime import Runtime, runtime
from tenderflow.database import redact
from tenderflow.display import format_value
from tenderflow.errors import TenderflowError
from tenderflow.evaluation.scoring import MATCHERS
from tenderflow.pipeline.reads import read_document
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.pipeline.versions import VersionState
from tenderflow.queue.supervisor import self_command

if TYPE_CHECKING:
    # reportlab and the layouts take a tenth of a second to import: every `tenderflow` process
    # (each restarted worker among them) would pay it, for the demo alone
    from tenderflow.samples import SampleTender

DEMO_TENANT = "default"


@dataclass
class DemoRow:
    sample: SampleTender
    document_id: int
    state: str = "queued"
    pages: int | None = None
    error: str | None = None
    fields: dict[str, Any] | None = None


def how_to_run(program: str, command: str, *, cwd: Path | None = None, path: str | None = None) -> str:
    """`command` (`show <doc> --text`) as a person types it in this shell: after `tenderflow` when
    PATH finds this very program; else after its path (relative to the working directory when under
    it, as `.venv/bin/tenderflow` after `make demo`), with how to put it on PATH. `program` is how
    this process was started (argv[0])."""
    here = Path(program).resolve()
    found = shutil.which("tenderflow", path=path)
    if (found and Path(found).resolve() == here) or not here.name.startswith("tenderflow"):
        return f"tenderflow {command}"  # on PATH, or `python -m tenderflow`: no script to point at
    try:
        shown = here.relative_to((cwd or Path.cwd()).resolve())
    except ValueError:
        shown = here
    return f"{shown} {command}   (or `source {shown.parent / 'activate'}` once, then `tenderflow {command}`)"


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
    policy = UploadPolicy(max_bytes=max_bytes, tenant=DEMO_TENANT, reprocess_existing=True)
    for sample in samples:
        outcome = upload_file(conn, storage, sample.path, policy)
        assert outcome.document_id is not None
        rows.append(DemoRow(sample, outcome.document_id))
    return rows


def refresh(conn: psycopg.Connection[Any], rows: list[DemoRow]) -> None:
    for row in rows:
        view = read_document(conn, row.document_id, pages=None)
        row.state, row.pages, row.error = view.document.state, view.document.page_count, view.document.error
        if row.state == VersionState.DONE and view.readable_version is not None:
            row.fields = view.extraction.fields if view.extraction else None


def sample_dir(data_dir: Path) -> Path:
    return data_dir / "demo" / "samples"


def make_samples(data_dir: Path) -> list[SampleTender]:
    from tenderflow.samples import generate_samples

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


# Each fact of the samples' answer key, scored by the rule `tenderflow eval` uses for its field
# (tenderflow.evaluation.scoring): the demo counts what the product's own measure counts.
_FACT_FIELDS: Final = {
    "title": "title", "buyer_name": "buyer.name", "reference_number": "reference_number",
    "submission_deadline": "submission_deadline", "main_cpv_code": "cpv_codes", "procedure_type": "procedure_type",
}  # fmt: skip


def _fact_matches(key: str, found: str, expected: str) -> bool:
    if key == "estimated_value_amount":
        return abs(float(found) - float(expected)) <= 0.005 * abs(float(expected))
    if key == "estimated_value_currency":
        return found.strip().upper() == expected.strip().upper()
    return MATCHERS[_FACT_FIELDS[key]](found, expected)


def matching_facts(row: DemoRow) -> int:
    found = extracted_facts(row.fields)
    return sum(1 for key, expected in row.sample.expected.items()
               if found.get(key) is not None and _fact_matches(key, str(found[key]), expected))


def demo(
    ctx: typer.Context,
    processes: Annotated[int, typer.Option(min=0, help="Worker processes (0: one per core).")] = 0,
    timeout: Annotated[float, typer.Option(help="Give up after this many seconds.")] = 900.0,
    keep_database: Annotated[bool, typer.Option(
        "--keep-database", help="Leave the embedded PostgreSQL running after the demo (it stops the one it "
        "started; the next command starts it again).")] = False,
) -> None:
    """Generate sample tenders, upload them, run the OCR and extraction pools until done, show the fields."""
    rt = runtime(ctx)
    started_database = rt.settings.database_url is None and not (
        rt.settings.data_dir / "postgres" / "postmaster.pid").exists()
    rt.pool()  # the database first: the embedded one migrated, a configured one behind ends here in one line
    try:
        rows = run_demo(rt, processes=processes, timeout=timeout)
    finally:
        if started_database and not keep_database:
            # The demo started the embedded PostgreSQL: it does not leave it running, however it ends
            # (the next command that needs it starts it again, with the demo's documents).
            from tenderflow.database import stop_embedded_server

            rt.close()
            try:
                if stop_embedded_server(rt.settings.data_dir):
                    print_note("stopped the embedded PostgreSQL the demo started (the next command starts it again)")
            except TenderflowError as exc:  # said, not raised: the demo's own outcome is what ends it
                print_note(f"{exc}; stop it with `tenderflow db stop`")
        # Last, however the demo ended: how to type the next command here.
        print_note(f"see one in full: {how_to_run(sys.argv[0], 'show <doc> --text', path=os.environ.get('PATH'))}")
    if any(r.state != "done" for r in rows):
        raise typer.Exit(1)


def run_demo(rt: Runtime, *, processes: int, timeout: float) -> list[DemoRow]:
    """Samples made, uploaded and processed by worker processes; the fields printed beside the
    answer keys. Returns the documents' rows."""
    backend = rt.settings.extraction_backend
    console.print(f"database: {redact(rt.database_url)}{' (embedded)' if rt.settings.database_url is None else ''}")
    console.print(f"storage: {rt.settings.resolved_storage_url}   extraction backend: {backend}", highlight=False)
    with console.status("generating sample tenders (born-digital and scanned)…"):
        samples = make_samples(rt.settings.data_dir)
    storage = rt.storage
    with rt.connection() as conn:
        rows = upload_samples(conn, storage, samples, max_bytes=rt.settings.max_upload_bytes)
    console.print(f"uploaded {len(rows)} documents ({sum(s.page_count for s in samples)} pages)")
    count = processes or os.cpu_count() or 1
    workers = start_workers(rt.database_url, count, threads=1)
    started = time.monotonic()
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      console=console, transient=True) as progress:
            task = progress.add_task(f"processing on {count} worker process(es)", total=len(rows))
            while True:
                with rt.connection() as conn:
                    refresh(conn, rows)
                finished = sum(1 for r in rows if r.state in ("done", "failed"))
                progress.update(task, completed=finished)
                if finished == len(rows):
                    break
                if time.monotonic() - started > timeout:
                    raise fail(f"not finished after {timeout:.0f} s; see `tenderflow status`")
                if all(w.poll() is not None for w in workers):
                    raise fail("every worker process exited; see the log above")
                time.sleep(0.5)
    finally:
        stop_workers(workers)
    elapsed = time.monotonic() - started
    shown: list[dict[str, Any]] = []
    matched = 0
    for row in rows:
        facts = extracted_facts(row.fields)
        hits = matching_facts(row)
        matched += hits
        shown.append({
            "doc": row.document_id, "sample": f"{row.sample.language} {row.sample.kind.replace('_', '-')} "
                                              f"{row.pages or '?'}p",
            "state": row.state, "error": row.error,
            "reference": facts["reference_number"], "buyer": facts["buyer_name"],
            "deadline": facts["submission_deadline"],
            "value": format_value(field_value(row.fields, "estimated_value")),  # 4,850,000.00 EUR
            "CPV": facts["main_cpv_code"], "procedure": facts["procedure_type"],
            "key": f"{hits}/{len(row.sample.expected)}",
        })
    print_table(f"extracted fields ({backend} backend)", shown,
                ["doc", "sample", "state", "reference", "buyer", "deadline", "value", "CPV", "procedure", "key"]
                + (["error"] if any(row.error for row in rows) else []), optional=["error"])
    total = sum(len(r.sample.expected) for r in rows)
    pages = sum(r.pages or 0 for r in rows)
    print_note(f"{sum(r.state == 'done' for r in rows)}/{len(rows)} documents done, {pages} pages, "
               f"{elapsed:.1f} s on {count} worker process(es); {matched}/{total} answer-key facts extracted.")
    return rows
