"""The `tenderflow` command: a typer app. Each command builds what it needs from one Settings."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import psycopg
import typer
from psycopg_pool import ConnectionPool
from rich.console import Console
from rich.table import Table

from tenderflow import migrations
from tenderflow import queue as job_queue
from tenderflow.api.cli import worker_tokens_app
from tenderflow.config import Settings
from tenderflow.database import open_pool, redact, resolve_database_url
from tenderflow.errors import TenderflowError
from tenderflow.logs import configure_logging
from tenderflow.queue import jobs as queue_jobs
from tenderflow.queue.stats import list_workers, queue_stats
from tenderflow.tenants.cli import keys_app, tenants_app
from tenderflow.tenants.credits import Prices

app = typer.Typer(
    help="tenderflow: tender PDFs in, searchable text and structured fields out.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
db_app = typer.Typer(help="The database: migrations and where it is.", no_args_is_help=True)
jobs_app = typer.Typer(help="The job queue: list, inspect, retry, cancel, prune.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(jobs_app, name="jobs")
app.add_typer(tenants_app, name="tenants")
app.add_typer(keys_app, name="keys")
app.add_typer(worker_tokens_app, name="worker-tokens")

console = Console()
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


class Runtime:
    """What a command needs, built once from Settings at the entry point."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._pool: ConnectionPool | None = None
        self._url: str | None = None

    @property
    def database_url(self) -> str:
        if self._url is None:
            self._url = resolve_database_url(self.settings)
        return self._url

    def pool(self, max_size: int | None = None) -> ConnectionPool:
        if self._pool is None:
            self._pool = open_pool(
                self.database_url,
                min_size=self.settings.pool_min_size,
                max_size=max_size or self.settings.pool_max_size,
            )
            if self.settings.database_url is None:
                # The embedded database is ours alone: keep it migrated so a newcomer never has to.
                with self._pool.connection() as conn:
                    migrations.migrate(conn)
        return self._pool

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        with self.pool().connection() as conn:
            yield conn

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()


def runtime(ctx: typer.Context) -> Runtime:
    obj = ctx.find_root().obj
    assert isinstance(obj, Runtime)
    return obj


@app.callback()
def main(
    ctx: typer.Context,
    log_level: Annotated[str, typer.Option(help="DEBUG, INFO, WARNING or ERROR.")] = "INFO",
) -> None:
    """tenderflow: tender PDFs in, searchable text and structured fields out."""
    settings = Settings()
    configure_logging(json=settings.log_json, level=log_level)
    rt = Runtime(settings)
    ctx.obj = rt
    ctx.call_on_close(rt.close)


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(_jsonable(value), indent=2, default=str) + "\n")


def print_table(title: str, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> None:
    table = Table(title=title)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*["" if row.get(c) is None else _cell(row.get(c)) for c in columns])
    console.print(table)


def _cell(value: Any) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def fail(message: str, code: int = 1) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}", highlight=False)
    return typer.Exit(code)


# --- db ---------------------------------------------------------------------------------------


@db_app.command("migrate")
def db_migrate(ctx: typer.Context) -> None:
    """Apply pending migrations (safe to run from several processes at once)."""
    rt = runtime(ctx)
    try:
        with rt.connection() as conn:
            applied = migrations.migrate(conn)
    except TenderflowError as exc:
        raise fail(str(exc)) from exc
    if applied:
        for migration in applied:
            console.print(f"applied {migration.version:04d}_{migration.name}")
    else:
        console.print("the database is up to date")


@db_app.command("status")
def db_status(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Where the database is and which migrations are pending."""
    rt = runtime(ctx)
    with rt.connection() as conn:
        pending = migrations.pending_migrations(conn)
    names = [f"{m.version:04d}_{m.name}" for m in pending]
    embedded = rt.settings.database_url is None
    if as_json:
        print_json({"database": redact(rt.database_url), "embedded": embedded, "pending": names})
        return
    console.print(f"database: {redact(rt.database_url)}{' (embedded)' if embedded else ''}")
    console.print(f"pending migrations: {', '.join(names) or 'none'}")


@db_app.command("url")
def db_url(ctx: typer.Context) -> None:
    """Print the database URL (starting the embedded server if that is the one in use)."""
    sys.stdout.write(runtime(ctx).database_url + "\n")


# --- jobs -------------------------------------------------------------------------------------


@jobs_app.command("list")
def jobs_list(
    ctx: typer.Context,
    state: Annotated[str | None, typer.Option(help="queued, running, succeeded, failed, cancelled")] = None,
    type: Annotated[str | None, typer.Option(help="Only this job type.")] = None,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10000)] = 50,
    as_json: JsonOption = False,
) -> None:
    """The newest jobs, filtered."""
    try:
        with runtime(ctx).connection() as conn:
            rows = queue_jobs.list_jobs(conn, state=state, type=type, tenant=tenant, limit=limit)
    except ValueError as exc:
        raise fail(f"unknown state {state!r}") from exc
    if as_json:
        print_json(rows)
        return
    print_table("jobs", rows, ["id", "type", "tenant", "state", "attempts", "max_attempts", "run_after",
                               "worker_id", "last_error"])


@jobs_app.command("show")
def jobs_show(ctx: typer.Context, job_id: int, as_json: JsonOption = False) -> None:
    """One job, every column."""
    try:
        with runtime(ctx).connection() as conn:
            row = queue_jobs.get(conn, job_id)
    except TenderflowError as exc:
        raise fail(str(exc)) from exc
    if as_json:
        print_json(row)
        return
    table = Table(title=f"job {job_id}", show_header=False)
    for key, value in row.items():
        table.add_row(key, "" if value is None else _cell(value))
    console.print(table)


@jobs_app.command("stats")
def jobs_stats(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Queue health: depth, oldest queued age, failures, expired leases, durations, workers."""
    rt = runtime(ctx)
    with rt.connection() as conn:
        stats = queue_stats(conn, dead_after_seconds=rt.settings.worker_dead_after_seconds)
    if as_json:
        print_json(stats.as_dict())
        return
    print_table("jobs by type", stats.by_type, [
        "type", "queued", "runnable", "running", "expired_leases", "succeeded_last_hour", "failed_last_hour",
        "oldest_queued_seconds", "attempts_per_success", "duration_p50_seconds", "duration_p95_seconds",
    ])
    if stats.failures_by_hour:
        print_table("failures per hour (24 h)", stats.failures_by_hour, ["hour", "type", "failed"])
    oldest = "none" if stats.oldest_queued_seconds is None else f"{stats.oldest_queued_seconds:.1f} s"
    console.print(f"oldest queued job: {oldest}   expired leases: {stats.expired_leases}   "
                  f"workers: {stats.live_workers} live, {stats.dead_workers} dead")


@jobs_app.command("retry")
def jobs_retry(
    ctx: typer.Context, job_ids: list[int],
    attempts: Annotated[int, typer.Option(min=1, help="Attempts to grant.")] = 1,
) -> None:
    """Queue failed or cancelled jobs again."""
    with runtime(ctx).connection() as conn:
        for job_id in job_ids:
            try:
                job_queue.retry(conn, job_id, extra_attempts=attempts)
                console.print(f"job {job_id} queued again")
            except TenderflowError as exc:
                raise fail(str(exc)) from exc
            note = pipeline_retry_note(conn, job_id)
            if note:
                console.print(f"[yellow]note:[/yellow] {note}", highlight=False)


def pipeline_retry_note(conn: psycopg.Connection[Any], job_id: int) -> str | None:
    """A retried pipeline job cannot revive a document version that already failed: say what does."""
    from tenderflow.pipeline.documents import failed_version_of_job

    failed = failed_version_of_job(conn, job_id)
    if failed is None:
        return None
    ref = failed.ref
    return (f"document {ref.document_id} version {ref.version} has already failed, so this job's result will "
            f"not be used; to process the document again run `tenderflow reprocess {ref.document_id} "
            f"--from {failed.reprocess_from}`")


@jobs_app.command("cancel")
def jobs_cancel(ctx: typer.Context, job_ids: list[int]) -> None:
    """Cancel queued or running jobs (a running job's worker stops at its next heartbeat)."""
    from tenderflow.handlers import build_job_types

    rt = runtime(ctx)
    job_types = build_job_types(rt.settings)
    with rt.connection() as conn:
        for job_id in job_ids:
            try:
                with conn.transaction():
                    ended = job_queue.cancel(conn, job_id)
                    job_types.run_ended_hooks(conn, [ended])
                console.print(f"job {job_id} cancelled")
            except TenderflowError as exc:
                raise fail(str(exc)) from exc


@jobs_app.command("prune")
def jobs_prune(
    ctx: typer.Context,
    older_than_days: Annotated[float | None, typer.Option(help="Default: the retention setting.")] = None,
) -> None:
    """Delete finished jobs older than the retention period, in batches."""
    rt = runtime(ctx)
    days = rt.settings.retention_days if older_than_days is None else older_than_days
    with rt.connection() as conn:
        deleted = job_queue.prune(conn, retention_seconds=days * 86400)
    console.print(f"deleted {deleted} finished job(s) older than {days:g} day(s)")


@app.command("workers")
def workers(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Worker processes: live (heartbeating), dead (silent), stopped."""
    rt = runtime(ctx)
    with rt.connection() as conn:
        rows = list_workers(conn, dead_after_seconds=rt.settings.worker_dead_after_seconds)
    if as_json:
        print_json(rows)
        return
    print_table("workers", rows, ["id", "kind", "status", "pools", "threads", "running_jobs", "started_at",
                                  "last_seen_at"])


# --- the pipeline -----------------------------------------------------------------------------


def _storage(rt: Runtime) -> Any:
    from tenderflow.pipeline.storage import open_storage

    return open_storage(rt.settings.resolved_storage_url, endpoint_url=rt.settings.s3_endpoint_url,
                        region=rt.settings.s3_region)


@app.command("upload")
def upload(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="PDF files and folders (walked for *.pdf).")],
    tenant: Annotated[str, typer.Option(help="Tenant the documents belong to.")] = "default",
    priority: Annotated[int, typer.Option(help="Higher runs first.")] = 0,
    reprocess_existing: Annotated[bool, typer.Option("--reprocess", help="Reprocess files already uploaded.")] = False,
    languages: Annotated[str | None, typer.Option(
        help="Tesseract languages to OCR them with, e.g. fra+eng (default: the tenant's, else each "
             "document's language is detected).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Upload tender PDFs: each is stored, recorded and queued for OCR in one transaction."""
    from rich.progress import Progress

    from tenderflow.pipeline.uploads import check_languages, find_pdfs, upload_paths

    try:
        languages = check_languages(languages)
    except TenderflowError as exc:
        raise fail(str(exc)) from exc
    rt = runtime(ctx)
    storage = _storage(rt)
    files = list(find_pdfs(paths))
    outcomes = []
    with rt.connection() as conn, Progress(console=console, transient=True, disable=as_json) as progress:
        task = progress.add_task("uploading", total=len(files))
        for outcome in upload_paths(conn, storage, files, tenant=tenant, priority=priority,
                                    max_bytes=rt.settings.max_upload_bytes, reprocess_existing=reprocess_existing,
                                    prices=Prices.from_settings(rt.settings), languages=languages):
            outcomes.append(outcome)
            progress.advance(task)
    rows = [vars(o) for o in outcomes]
    if as_json:
        print_json(rows)
    else:
        print_table("upload", rows, ["source", "status", "document_id", "version", "size_bytes", "error"])
    if not outcomes:
        raise fail("no PDF found in the given paths")
    if any(o.status == "rejected" for o in outcomes):
        raise typer.Exit(2)


@app.command("worker")
def worker(
    ctx: typer.Context,
    pool: Annotated[str, typer.Option(help="ocr, extract or all.")] = "all",
    processes: Annotated[int, typer.Option(min=1, help="Worker processes (one per core for OCR).")] = 1,
    threads: Annotated[int, typer.Option(min=1, help="Jobs run at once by each process.")] = 1,
    remote: Annotated[str | None, typer.Option(
        help="Pull jobs from this API server (https://…) instead of the database: no database or "
             "storage access needed here, only --token.")] = None,
    token: Annotated[str | None, typer.Option(
        envvar="TENDERFLOW_WORKER_TOKEN", show_envvar=True,
        help="Worker token for --remote (`tenderflow worker-tokens create`).")] = None,
) -> None:
    """Run a worker pool until SIGTERM/Ctrl-C (graceful; a second Ctrl-C is immediate)."""
    from tenderflow.handlers import build_job_types
    from tenderflow.pipeline.documents import POOLS
    from tenderflow.queue.backoff import Backoff
    from tenderflow.queue.supervisor import run_worker_in_process, self_command, supervise

    if pool not in POOLS:
        raise fail(f"unknown pool {pool!r}; choose one of {', '.join(POOLS)}")
    rt = runtime(ctx)
    if remote is not None:
        from tenderflow.remote.worker import build_remote_worker

        if not token:
            raise fail("--remote needs --token (or TENDERFLOW_WORKER_TOKEN)")
        if processes > 1:
            import os

            os.environ["TENDERFLOW_WORKER_TOKEN"] = token  # children read it there, not from argv (ps)
            argv = [*self_command(), "worker", "--remote", remote, "--pool", pool, "--processes", "1",
                    "--threads", str(threads)]
            raise typer.Exit(supervise(argv, processes))
        remote_worker = build_remote_worker(rt.settings, url=remote, token=token, pool=pool, threads=threads)
        raise typer.Exit(run_worker_in_process(remote_worker))
    if processes > 1:
        # Make the children use the same database (the embedded server is started once, here).
        import os

        os.environ.setdefault("TENDERFLOW_DATABASE_URL", rt.database_url)
        argv = [*self_command(), "worker", "--pool", pool, "--processes", "1", "--threads", str(threads)]
        raise typer.Exit(supervise(argv, processes))
    settings = rt.settings
    db_pool = rt.pool(max_size=threads + 6)
    try:
        with db_pool.connection() as conn:
            migrations.ensure_migrated(conn)
    except TenderflowError as exc:
        raise fail(str(exc)) from exc
    job_types = build_job_types(settings, pool=db_pool, storage=_storage(rt))
    config = job_queue.WorkerConfig(
        types=POOLS[pool], threads=threads, lease_seconds=settings.lease_seconds,
        heartbeat_seconds=settings.heartbeat_seconds, poll_seconds=settings.poll_seconds,
        default_tenant_cap=settings.tenant_max_running, notify=settings.notify,
        shutdown_grace_seconds=settings.shutdown_grace_seconds,
        backoff=Backoff(settings.backoff_base_seconds, settings.backoff_cap_seconds),
        maintenance_seconds=settings.maintenance_seconds, retention_seconds=settings.retention_days * 86400,
    )
    raise typer.Exit(run_worker_in_process(job_queue.Worker(db_pool, job_types, config)))


@app.command("serve")
def serve(
    ctx: typer.Context,
    host: Annotated[str | None, typer.Option(help="Address to listen on (default: TENDERFLOW_API_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default: TENDERFLOW_API_PORT).")] = None,
) -> None:
    """Run the HTTP API, the remote workers' endpoints, the dashboard and /metrics (uvicorn)."""
    from tenderflow.api.server import serve as serve_api

    settings = runtime(ctx).settings
    raise typer.Exit(serve_api(settings, host=host or settings.api_host, port=port or settings.api_port))


@app.command("status")
def status(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Documents by state and the queue's health."""
    from tenderflow.pipeline.documents import document_counts

    rt = runtime(ctx)
    with rt.connection() as conn:
        counts = document_counts(conn)
        stats = queue_stats(conn, dead_after_seconds=rt.settings.worker_dead_after_seconds)
    if as_json:
        print_json({"documents": counts, "queue": stats.as_dict()})
        return
    print_table("documents", [{"state": k, "documents": v} for k, v in counts.items()], ["state", "documents"])
    print_table("jobs", stats.by_type, ["type", "queued", "running", "failed_last_hour", "oldest_queued_seconds"])
    console.print(f"workers: {stats.live_workers} live, {stats.dead_workers} dead")


documents_app = typer.Typer(help="Uploaded documents.", no_args_is_help=True)
app.add_typer(documents_app, name="documents")


@documents_app.command("list")
def documents_list(
    ctx: typer.Context,
    state: Annotated[str | None, typer.Option(help="queued, ocr, extracting, done, failed")] = None,
    tenant: Annotated[str | None, typer.Option()] = None,
    limit: Annotated[int, typer.Option(min=1, max=10000)] = 50,
    as_json: JsonOption = False,
) -> None:
    """The newest documents with the state of their latest version."""
    from tenderflow.pipeline.documents import list_documents

    if state is not None and state not in ("queued", "ocr", "extracting", "done", "failed"):
        raise fail(f"unknown state {state!r}")
    with runtime(ctx).connection() as conn:
        rows = list_documents(conn, tenant=tenant, state=state, limit=limit)
    if as_json:
        print_json(rows)
        return
    print_table("documents", rows, ["id", "tenant", "filename", "state", "page_count", "language",
                                    "latest_version", "current_version", "error"])


def document_report(conn: psycopg.Connection[Any], document_id: int) -> dict[str, Any]:
    """A document with the pages and fields of its readable version."""
    from tenderflow.pipeline.documents import document_fields, document_pages, get_document, readable_version

    document = get_document(conn, document_id)
    version = readable_version(document)
    report: dict[str, Any] = {"document": document, "readable_version": version, "fields": None, "pages": []}
    if version is not None:
        report["fields"] = document_fields(conn, document_id, version)
        report["pages"] = document_pages(conn, document_id, version)
    return report


def flatten_fields(fields: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows (field, value, page, quote) for every sourced value in the extracted fields."""
    rows: list[dict[str, Any]] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and "value" in value and "page" in value:
            if value["value"] not in (None, "", []):
                rows.append({"field": prefix, "value": value["value"], "page": value.get("page"),
                             "quote": value.get("quote")})
        elif isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}.{key}" if prefix else key, inner)
        elif isinstance(value, list):
            for index, inner in enumerate(value):
                walk(f"{prefix}[{index}]", inner)

    walk("", fields)
    return rows


def language_summary(document: dict[str, Any]) -> str:
    """"fra (OCR fra+eng, from the text layer, p=0.99)": a document's language and how it was chosen."""
    if document.get("ocr_languages") is None:
        asked = document.get("requested_languages")
        return f"not chosen yet (asked: {asked})" if asked else "not chosen yet"
    how = {"upload": "asked at upload", "tenant": "the tenant's default", "settings": "TENDERFLOW_OCR_LANGUAGES",
           "text_layer": "detected from the text layer", "first_pass": "detected by a first OCR pass",
           "fallback": "nothing detected: fallback"}.get(str(document.get("languages_source")), "?")
    extra = [f"OCR {document['ocr_languages']}", how]
    if document.get("script"):
        extra.append(f"script {document['script']}")
    if document.get("language_confidence") is not None:
        extra.append(f"p={document['language_confidence']:.2f}")
    return f"{document.get('language') or 'unknown'} ({', '.join(extra)})"


@app.command("show")
def show(
    ctx: typer.Context,
    document_id: int,
    text: Annotated[bool, typer.Option("--text", help="Print every page's text.")] = False,
    as_json: JsonOption = False,
) -> None:
    """One document: state, extracted fields with their page and quote, and optionally its text."""
    with runtime(ctx).connection() as conn:
        try:
            report = document_report(conn, document_id)
        except TenderflowError as exc:
            raise fail(str(exc)) from exc
    if as_json:
        print_json(report)
        return
    doc = report["document"]
    console.print(f"document {doc['id']}  {doc['filename']}  tenant={doc['tenant']}  state={doc['state']}  "
                  f"pages={doc['page_count'] or '?'}  version {doc['latest_version']} "
                  f"(readable: {report['readable_version'] or 'none yet'})", highlight=False)
    console.print(f"language={language_summary(doc)}", highlight=False)
    if doc["error"]:
        console.print(f"[red]error:[/red] {doc['error']}", highlight=False)
    if report["fields"]:
        print_table("fields", flatten_fields(report["fields"]["fields"]), ["field", "value", "page", "quote"])
        for flag in report["fields"]["flags"]:
            console.print(f"[yellow]flag:[/yellow] {flag}", highlight=False)
    if text:
        for page in report["pages"]:
            console.rule(f"page {page['page_number']} ({page['source']}"
                         + (f", confidence {page['confidence']:.0f}" if page["confidence"] is not None else "")
                         + ")")
            console.print(page["text"], highlight=False, markup=False)


@app.command("reprocess")
def reprocess_command(
    ctx: typer.Context,
    document_id: int,
    start_from: Annotated[str, typer.Option("--from", help="ocr or extract.")] = "ocr",
    priority: Annotated[int, typer.Option()] = 0,
    languages: Annotated[str | None, typer.Option(
        help="OCR it with these tesseract languages from now on, e.g. deu+eng (with --from ocr).")] = None,
) -> None:
    """Process a document again as a new version; the old results stay readable until it lands."""
    from tenderflow.pipeline.reprocess import START_POINTS, reprocess
    from tenderflow.pipeline.uploads import check_languages

    if start_from not in START_POINTS:
        raise fail(f"--from must be one of {', '.join(START_POINTS)}")
    try:
        languages = check_languages(languages)
    except TenderflowError as exc:
        raise fail(str(exc)) from exc
    rt = runtime(ctx)
    with rt.connection() as conn:
        try:
            outcome = reprocess(conn, document_id, start_from=start_from, priority=priority,
                                prices=Prices.from_settings(rt.settings), languages=languages)
        except TenderflowError as exc:
            raise fail(str(exc)) from exc
    if outcome.created:
        console.print(f"document {document_id}: version {outcome.version} queued (from {start_from})")
    else:
        console.print(f"document {document_id}: version {outcome.version} is already in flight; not starting another")


@app.command("demo")
def demo(
    ctx: typer.Context,
    processes: Annotated[int, typer.Option(min=0, help="Worker processes (0: one per core).")] = 0,
    timeout: Annotated[float, typer.Option(help="Give up after this many seconds.")] = 900.0,
) -> None:
    """Generate sample tenders, upload them, run the OCR and extraction pools until done, show the fields."""
    import os
    import time

    from rich.progress import BarColumn, Progress, TextColumn

    from tenderflow import demo as demo_run

    rt = runtime(ctx)
    backend = rt.settings.extraction_backend
    console.print(f"database: {redact(rt.database_url)}{' (embedded)' if rt.settings.database_url is None else ''}")
    console.print(f"storage: {rt.settings.resolved_storage_url}   extraction backend: {backend}", highlight=False)
    with console.status("generating sample tenders (born-digital and scanned)…"):
        samples = demo_run.make_samples(rt.settings.data_dir)
    storage = _storage(rt)
    with rt.connection() as conn:
        rows = demo_run.upload_samples(conn, storage, samples, max_bytes=rt.settings.max_upload_bytes)
    console.print(f"uploaded {len(rows)} documents ({sum(s.page_count for s in samples)} pages)")
    count = processes or os.cpu_count() or 1
    workers = demo_run.start_workers(rt.database_url, count, threads=1)
    started = time.monotonic()
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      console=console, transient=True) as progress:
            task = progress.add_task(f"processing on {count} worker process(es)", total=len(rows))
            while True:
                with rt.connection() as conn:
                    demo_run.refresh(conn, rows)
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
        demo_run.stop_workers(workers)
    elapsed = time.monotonic() - started
    table = Table(title=f"extracted fields ({backend} backend)")
    for column in ["doc", "sample", "state", "reference", "buyer", "deadline", "value", "CPV", "procedure", "key"]:
        table.add_column(column, overflow="fold")
    matched = 0
    for row in rows:
        facts = demo_run.extracted_facts(row.fields)
        hits = demo_run.matching_facts(row)
        matched += hits
        value = " ".join(v for v in (facts["estimated_value_amount"], facts["estimated_value_currency"]) if v)
        table.add_row(
            str(row.document_id), f"{row.sample.language} {row.sample.kind.replace('_', '-')} {row.pages or '?'}p",
            row.state if not row.error else f"{row.state}: {row.error}",
            facts["reference_number"] or "", facts["buyer_name"] or "", facts["submission_deadline"] or "",
            value, facts["main_cpv_code"] or "", facts["procedure_type"] or "",
            f"{hits}/{len(row.sample.expected)}",
        )
    console.print(table)
    total = sum(len(r.sample.expected) for r in rows)
    pages = sum(r.pages or 0 for r in rows)
    console.print(f"{sum(r.state == 'done' for r in rows)}/{len(rows)} documents done, {pages} pages, "
                  f"{elapsed:.1f} s on {count} worker process(es); {matched}/{total} answer-key facts extracted.")
    console.print("see one in full: tenderflow show <doc> --text")
    if any(r.state != "done" for r in rows):
        raise typer.Exit(1)


@app.command("eval")
def evaluate(
    ctx: typer.Context,
    key: Annotated[Path, typer.Argument(help="Answer key (JSON): file name -> field -> expected value.")],
    pdf_dir: Annotated[Path | None, typer.Argument(help="Folder of the PDFs (default: the key's folder).")] = None,
    fields: Annotated[str | None, typer.Option(help="Score only these fields (comma-separated).")] = None,
    doc: Annotated[list[str] | None, typer.Option("--doc", help="Score only this document (repeatable).")] = None,
    details: Annotated[bool, typer.Option(help="Print every comparison that is not correct.")] = False,
    min_recall: Annotated[float | None, typer.Option(help="Exit 1 when recall is below this.")] = None,
    min_precision: Annotated[float | None, typer.Option(help="Exit 1 when precision is below this.")] = None,
    cache: Annotated[bool, typer.Option(help="Keep page texts (OCR included) between runs.")] = True,
    json_out: JsonOption = False,
) -> None:
    """Score extraction against an answer key: per field, per document, totals; one JSON line last."""
    from tenderflow.evaluation.cli import run_eval

    run_eval(runtime(ctx).settings, console, key=key, pdf_dir=pdf_dir, fields=fields, docs=doc or [],
             details=details, min_recall=min_recall, min_precision=min_precision, cache=cache, as_json=json_out)


def run() -> None:
    """Console entry point: a deliberate error prints one clear line, not a traceback."""
    try:
        app()
    except TenderflowError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False)
        sys.exit(1)
