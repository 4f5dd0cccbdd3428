"""`tenderflow storage …`: the object storage's upkeep."""

from __future__ import annotations

from typing import Annotated

import typer

from tenderflow.cli.output import JsonOption, console, errors_reported, print_json
from tenderflow.cli.runtime import runtime
from tenderflow.pipeline.orphans import sweep_orphans

storage_app = typer.Typer(help="The object storage: sweep objects no document refers to.", no_args_is_help=True)


@storage_app.command("sweep")
def storage_sweep(
    ctx: typer.Context,
    grace_seconds: Annotated[float | None, typer.Option(
        min=0, help="Keep unreferenced objects younger than this (default TENDERFLOW_STORAGE_SWEEP_GRACE_SECONDS).")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only say what would be deleted.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Delete stored PDFs that no document refers to (left by uploads refused or cut off midway)."""
    rt = runtime(ctx)
    grace = rt.settings.storage_sweep_grace_seconds if grace_seconds is None else grace_seconds
    with errors_reported():
        with rt.connection() as conn:
            report = sweep_orphans(conn, rt.storage, grace_seconds=grace, dry_run=dry_run)
    if as_json:
        print_json({**report.as_dict(), "dry_run": dry_run, "keys": report.deleted})
        return
    verb = "would delete" if dry_run else "deleted"
    console.print(f"{report.listed} object(s) listed: {report.referenced} in use, {report.young} younger than "
                  f"{grace:g} s, {report.busy} held by an upload; {verb} {len(report.deleted)} "
                  f"({report.deleted_bytes:,} bytes)", highlight=False)
