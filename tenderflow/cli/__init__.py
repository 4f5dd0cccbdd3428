"""The `tenderflow` command: one typer app, one module per command group.

    output.py         console, tables, JSON, the one-line error
    runtime.py        the Runtime (settings, pool, storage) built once by the app's callback
    db.py jobs.py     `db …`, `jobs …`, `workers`
    documents.py      `upload`, `status`, `documents list`, `show`, `reprocess`
    workers.py        `worker` (local, remote, several processes) and `serve`
    tenants.py        `tenants …`, `keys …`
    storage.py        `storage sweep`
    worker_tokens.py  `worker-tokens …`
    demo.py           `demo`
    evaluate.py       `eval`

Library packages never import this one: it sits on top (see docs/architecture.md).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from tenderflow.cli import db, demo, documents, evaluate, jobs, storage, tenants, worker_tokens, workers
from tenderflow.cli.output import console
from tenderflow.cli.runtime import Runtime
from tenderflow.config import Settings
from tenderflow.errors import TenderflowError
from tenderflow.logs import configure_logging

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
    rt = Runtime(settings)
    ctx.obj = rt
    ctx.call_on_close(rt.close)


app.add_typer(db.db_app, name="db")
app.add_typer(jobs.jobs_app, name="jobs")
app.add_typer(tenants.tenants_app, name="tenants")
app.add_typer(tenants.keys_app, name="keys")
app.add_typer(worker_tokens.worker_tokens_app, name="worker-tokens")
app.add_typer(documents.documents_app, name="documents")
app.add_typer(storage.storage_app, name="storage")
app.command("workers")(jobs.workers)
app.command("upload")(documents.upload)
app.command("worker")(workers.worker)
app.command("serve")(workers.serve)
app.command("doctor")(workers.doctor)
app.command("config")(workers.config)
app.command("status")(documents.status)
app.command("show")(documents.show)
app.command("reprocess")(documents.reprocess_command)
app.command("demo")(demo.demo)
app.command("eval")(evaluate.evaluate)


def run() -> None:
    """Console entry point: a deliberate error prints one clear line, not a traceback."""
    try:
        app()
    except TenderflowError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False)
        sys.exit(1)
