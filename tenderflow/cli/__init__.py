"""The `tenderflow` command: one typer app, one module per command group.

    output.py         console, tables, JSON, the one-line error
    runtime.py        the Runtime (settings, pool, storage) built once by the app's callback
    db.py jobs.py     `db …`, `jobs …`, `workers`
    documents.py      `upload`, `status`, `documents list`, `show`, `reprocess`
    tenders.py        `tenders …` (a tender's documents as one record), `calendar`, `upload --tender`
    workers.py        `worker` (local, remote, several processes) and `serve`
    tenants.py        `tenants …`, `keys …`
    storage.py        `storage sweep`
    health.py         `health` (container health checks: the API answers, a worker heartbeats)
    worker_tokens.py  `worker-tokens …`
    demo.py           `demo`
    evaluate.py       `eval`
    webhooks.py       `webhooks …`
    watch.py          `watch`, `watches …`
    schedules.py      `schedules …`

Library packages never import this one: it sits on top (see docs/architecture.md).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from tenderflow.cli import (
    db,
    demo,
    documents,
    download,
    evaluate,
    export,
    health,
    jobs,
    search,
    storage,
    tenants,
    tenders,
    worker_tokens,
    workers,
)
from tenderflow.cli import schedules as schedule_commands
from tenderflow.cli import watch as watch_commands
from tenderflow.cli import webhooks as webhook_commands
from tenderflow.cli.output import err_console
from tenderflow.cli.runtime import Runtime
from tenderflow.config import Settings
from tenderflow.errors import TenderflowError
from tenderflow.logs import configure_logging
from tenderflow.tracing import configure_tracing

__all__ = ["app", "run"]

app = typer.Typer(
    help="tenderflow: tender PDFs in, searchable text and structured fields out.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def main(
    ctx: typer.Context,
    log_level: Annotated[str, typer.Option(help="DEBUG, INFO, WARNING or ERROR.")] = "INFO",
) -> None:
    """tenderflow: tender PDFs in, searchable text and structured fields out."""
    settings = Settings()
    configure_logging(json=settings.log_json, level=log_level)
    # Traces only when the standard OTEL_* variables ask for them (tenderflow.tracing).
    role = {"worker": "worker", "serve": "api"}.get(ctx.invoked_subcommand or "", "cli")
    try:
        configure_tracing(f"tenderflow-{role}")
    except ValueError as exc:
        raise TenderflowError(str(exc)) from exc
    rt = Runtime(settings)
    ctx.obj = rt
    ctx.call_on_close(rt.close)


START, OPERATE, ADMIN = "Getting started", "Operate", "Administer"

app.command("demo", rich_help_panel=START)(demo.demo)
app.command("upload", rich_help_panel=START, epilog=(
    "Examples: tenderflow upload tenders/ --tenant acme --wait  ·  tenderflow upload avis.pdf --languages fra+eng"
))(documents.upload)
app.command("status", rich_help_panel=START, epilog=(
    "Examples: tenderflow status  ·  tenderflow status --watch --interval 5  ·  tenderflow status --json"
))(documents.status)
app.command("show", rich_help_panel=START, epilog="Example: tenderflow show 42 --text")(documents.show)
app.command("reprocess", rich_help_panel=START, epilog="Example: tenderflow reprocess 42 --from extract")(
    documents.reprocess_command)
app.command("search", rich_help_panel=START, epilog=(
    'Examples: tenderflow search "road resurfacing" --deadline-after 2026-01-01  ·  '
    'tenderflow search "winter maintenance -bridge" --cpv 9062'))(search.search_command)
app.command("export", rich_help_panel=START, epilog=(
    "Examples: tenderflow export --format xlsx -o tenders.xlsx --state done  ·  "
    "tenderflow export --format jsonl --since 2026-11-01 > fields.jsonl"))(export.export_command)
app.command("download", rich_help_panel=START, epilog=(
    "Example: tenderflow download 42 --searchable -o notice-42.pdf"))(download.download)
app.command("eval", rich_help_panel=START)(evaluate.evaluate)
app.add_typer(documents.documents_app, name="documents", rich_help_panel=START)
app.add_typer(tenders.tenders_app, name="tenders", rich_help_panel=START, epilog=(
    "Examples: tenderflow upload notice.pdf addendum-1.pdf --tender NEW  ·  tenderflow upload package.zip  ·  "
    "tenderflow tenders show 7 --history  ·  tenderflow tenders proposals"))
app.command("calendar", rich_help_panel=START, epilog=(
    "Examples: tenderflow calendar --tenant acme -o deadlines.ics  ·  tenderflow calendar --tenant acme --new-token"
))(tenders.calendar_command)
app.command("worker", rich_help_panel=OPERATE, epilog=(
    "Examples: tenderflow worker --pool ocr --processes 2  ·  tenderflow worker --pool extract --threads 8  ·  "
    "tenderflow worker --burst"
))(workers.worker)
app.command("serve", rich_help_panel=OPERATE)(workers.serve)
app.command("workers", rich_help_panel=OPERATE)(jobs.workers)
app.add_typer(jobs.jobs_app, name="jobs", rich_help_panel=OPERATE)
app.command("doctor", rich_help_panel=OPERATE)(workers.doctor)
app.command("config", rich_help_panel=OPERATE)(workers.config)
app.command("health", rich_help_panel=OPERATE, epilog=(
    "Examples: tenderflow health --api  ·  tenderflow health --worker  ·  tenderflow health (whatever runs here)"
))(health.health)
app.add_typer(tenants.tenants_app, name="tenants", rich_help_panel=ADMIN)
app.add_typer(tenants.keys_app, name="keys", rich_help_panel=ADMIN)
app.add_typer(worker_tokens.worker_tokens_app, name="worker-tokens", rich_help_panel=ADMIN)
app.add_typer(storage.storage_app, name="storage", rich_help_panel=ADMIN)
app.add_typer(db.db_app, name="db", rich_help_panel=ADMIN)
app.add_typer(webhook_commands.webhooks_app, name="webhooks", rich_help_panel=ADMIN, epilog=(
    "Examples: tenderflow webhooks add https://bids.example.com/hooks --tenant acme  ·  "
    "tenderflow webhooks deliveries --state failed"))
app.command("watch", rich_help_panel=START, epilog=(
    "Examples: tenderflow watch /srv/inbox/acme --tenant acme --every 30s  ·  "
    "tenderflow watch s3://inbox/acme/ --tenant acme --cron '*/10 7-19 * * 1-5'"))(watch_commands.watch_command)
app.add_typer(watch_commands.watches_app, name="watches", rich_help_panel=START)
app.add_typer(schedule_commands.schedules_app, name="schedules", rich_help_panel=OPERATE, epilog=(
    "Examples: tenderflow schedules list  ·  tenderflow schedules pause watch:3  ·  "
    "tenderflow schedules add nightly-inbox --type watch.poll --payload '{\"watch_id\": 3}' --cron '0 2 * * *'"))


def run(argv: Sequence[str] | None = None) -> None:
    """Console entry point: a deliberate error prints one clear line on stderr, not a traceback.
    `argv` (the arguments after `tenderflow`) defaults to the process's own."""
    try:
        app(args=argv)
    except TenderflowError as exc:
        err_console.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
        sys.exit(1)
