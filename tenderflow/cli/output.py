"""What every command prints with: one console, tables, JSON, and the one-line error."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Final

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

console = Console()
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


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


_CONTROL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(value: Any) -> Text:
    """Text a tenant supplied (a file name, page text, an extracted value), fit for a terminal: its
    control characters shown as escapes ('\\x1b'), never sent raw, and no Rich markup read in it."""
    return Text(_CONTROL.sub(lambda match: repr(match.group())[1:-1], str(value)))


def make_table(title: str, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> Table:
    table = Table(title=title)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*[Text("") if row.get(c) is None else safe(cell(row.get(c))) for c in columns])
    return table


def print_table(title: str, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> None:
    """A table for a person on a terminal; piped or redirected, plain TSV (a header line, then one line
    per row, nothing cut) for `cut`, `awk` and spreadsheets (`--json` gives every field, typed)."""
    if console.is_terminal:
        console.print(make_table(title, rows, columns))
        return
    lines = ["\t".join(columns)]
    lines += ["\t".join(tsv_cell(row.get(column)) for column in columns) for row in rows]
    sys.stdout.write("\n".join(lines) + "\n")


def tsv_cell(value: Any) -> str:
    if value is None:
        return ""
    text = cell(value).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
    return _CONTROL.sub(lambda match: repr(match.group())[1:-1], text)


def cell(value: Any) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def fail(message: str, code: int = 1) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)
