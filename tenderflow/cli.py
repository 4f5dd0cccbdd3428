"""The `tenderflow` command: a typer app. Each command builds what it needs from one Settings."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Annotated, Any

import psycopg
import typer
from psycopg_pool import ConnectionPool
from rich.console import Console
from rich.table import Table

from tenderflow import migrations
from tenderflow import queue as job_queue
from tenderflow.config import Settings
from tenderflow.database import open_pool, redact, resolve_database_url
from tenderflow.errors import TenderflowError
from tenderflow.logs import configure_logging
from tenderflow.queue import jobs as queue_jobs
from tenderflow.queue.stats import list_workers, queue_stats

app = typer.Typer(
    help="tenderflow: tender PDFs in, searchable text and structured fields out.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
db_app = typer.Typer(help="The database: migrations and where it is.", no_args_is_help=True)
jobs_app = typer.Typer(help="The job queue: list, inspect, retry, cancel, prune.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(jobs_app, name="jobs")

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
    info = {
        "database": redact(rt.database_url),
        "embedded": rt.settings.database_url is None,
        "pending": [f"{m.version:04d}_{m.name}" for m in pending],
    }
    if as_json:
        print_json(info)
        return
    console.print(f"database: {info['database']}{' (embedded)' if info['embedded'] else ''}")
    console.print(f"pending migrations: {', '.join(info['pending']) or 'none'}")


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
