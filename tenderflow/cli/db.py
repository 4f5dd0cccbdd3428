"""`tenderflow db …`: migrations and where the database is."""

from __future__ import annotations

import sys

import typer

from tenderflow import migrations
from tenderflow.cli.output import JsonOption, console, errors_reported, fail, print_json
from tenderflow.cli.runtime import runtime
from tenderflow.database import redact

db_app = typer.Typer(help="The database: migrations and where it is.", no_args_is_help=True)


@db_app.command("migrate")
def db_migrate(ctx: typer.Context) -> None:
    """Apply pending migrations (safe to run from several processes at once)."""
    rt = runtime(ctx)
    with errors_reported():
        with rt.connection(migrated=False) as conn:
            applied = migrations.migrate(conn)
    if applied:
        for migration in applied:
            console.print(f"applied {migration.label}")
    else:
        console.print("the database is up to date")


@db_app.command("status")
def db_status(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Where the database is and which migrations are pending."""
    rt = runtime(ctx)
    with rt.connection(migrated=False) as conn:
        pending = migrations.pending_migrations(conn)
    names = [m.label for m in pending]
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


@db_app.command("stop")
def db_stop(ctx: typer.Context) -> None:
    """Stop the embedded PostgreSQL (the next command that needs it starts it again)."""
    from tenderflow.database import stop_embedded_server

    settings = runtime(ctx).settings
    if settings.database_url is not None:
        raise fail("DATABASE_URL names a server tenderflow does not run: stop it where it runs")
    with errors_reported():
        stopped = stop_embedded_server(settings.data_dir)
    where = settings.data_dir / "postgres"
    console.print(f"stopped the embedded PostgreSQL in {where}" if stopped
                  else f"the embedded PostgreSQL in {where} is not running", highlight=False)
