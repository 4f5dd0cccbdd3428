"""`tenderflow export`: the fields of many documents as CSV, XLSX, JSON Lines (pipeline.export) or an
OCDS release package (pipeline.ocds)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from tenderflow.cli.output import fail, print_note
from tenderflow.cli.runtime import runtime
from tenderflow.pipeline.export import ExportFilter, exported_documents, write_csv, write_jsonl, write_xlsx
from tenderflow.pipeline.ocds import write_ocds
from tenderflow.pipeline.versions import VersionState


def export_command(
    ctx: typer.Context,
    format: Annotated[Literal["csv", "xlsx", "jsonl", "ocds"], typer.Option(  # noqa: A002 (the option's name)
        "--format", help="csv or xlsx: a row per document with page references; jsonl: every field with "
                         "its page and quote; ocds: an OCDS 1.1 release package, a release per document "
                         "with a readable version.")] = "csv",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here (default: stdout; xlsx "
                                                "needs a file).")] = None,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's documents.")] = None,
    since: Annotated[datetime | None, typer.Option(
        formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"], help="Only documents uploaded since then (UTC).")] = None,
    state: Annotated[VersionState | None, typer.Option(help="Only documents in this state (e.g. done).")] = None,
) -> None:
    """Export the extracted fields of many documents, oldest first."""
    check_output(format, output)
    selection = ExportFilter(tenant=tenant, state=state, since=since.replace(tzinfo=UTC) if since else None)
    rt = runtime(ctx)
    settings = rt.settings

    def write_to(documents: Iterator[dict[str, Any]], out: Any) -> int:
        if format == "xlsx":
            return write_xlsx(documents, out)
        if format == "ocds":
            return write_ocds(documents, out, prefix=settings.ocds_ocid_prefix,
                              publisher=settings.ocds_publisher_name, public_url=settings.public_url)
        return (write_csv if format == "csv" else write_jsonl)(documents, out)

    with rt.connection() as conn:
        documents = exported_documents(conn, selection)
        count = write_export(format, output, lambda out: write_to(documents, out))
    exported_note(count, "release(s)" if format == "ocds" else "document(s)", output)


def check_output(format: str, output: Path | None) -> None:
    """An xlsx workbook is binary: it needs --output, it is never written to the terminal."""
    if format == "xlsx" and output is None:
        raise fail("an xlsx workbook is binary: give --output FILE.xlsx", code=2)


def write_export(format: str, output: Path | None, write: Callable[[Any], int]) -> int:
    """Runs `write` on where the export goes: the path of the `output` file for an xlsx workbook,
    else a text write function, the `output` file's or, without one, stdout's. Returns its count."""
    if format == "xlsx":
        assert output is not None  # check_output
        return write(output)
    if output is None:
        return write(sys.stdout.write)
    with output.open("w", encoding="utf-8", newline="") as out:
        return write(out.write)


def exported_note(count: int, what: str, output: Path | None) -> None:
    """How many `what` were exported, and to which file (none: stdout)."""
    print_note(f"exported {count} {what}" + (f" to {output}" if output else ""))
