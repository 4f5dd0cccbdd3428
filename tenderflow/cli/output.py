"""What every command prints with: one console, tables, JSON, and the one-line error."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Final

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

console = Console(soft_wrap=True)  # long lines wrap in the terminal, never mid-path in a pipe
err_console = Console(stderr=True, soft_wrap=True)
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


_WHOLE_COLUMNS: Final = re.compile(r"^(id|.*_id|state|status|type|tenant|version|.*_version)$")


def make_table(title: str, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> Table:
    """A table for a terminal: headers in words; ids, states and types never wrapped or cut."""
    table = Table(title=title)
    cells = [[None if row.get(c) is None else cell(row.get(c)) for c in columns] for row in rows]
    for index, column in enumerate(columns):
        if _WHOLE_COLUMNS.match(column):
            widest = max([len(column), *(len(values[index] or "") for values in cells)])
            table.add_column(column.replace("_", " "), no_wrap=True, min_width=widest)
        else:
            table.add_column(column.replace("_", " "))
    for values in cells:
        table.add_row(*[Text("") if value is None else safe(value) for value in values])
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
    """One value as a person reads it: money as `12,600,000.00 GBP`, a duration as `60 months`, an
    award criterion as `Price (40%)`, lists comma-separated, times in UTC and labelled so."""
    if isinstance(value, datetime):
        moment: datetime = value.astimezone(UTC) if value.tzinfo is not None else value
        return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dict):
        if isinstance(value.get("amount"), int | float) and value.get("currency"):
            return f"{value['amount']:,.2f} {value['currency']}"
        if isinstance(value.get("amount"), int | float) and value.get("unit"):
            return f"{value['amount']:g} {value['unit']}"
        if value.get("name") is not None and isinstance(value.get("weight"), int | float):
            return f"{value['name']} ({value['weight']:g}%)"
        return "; ".join(f"{key}: {cell(inner)}" for key, inner in value.items() if inner is not None)
    if isinstance(value, list | tuple):
        return ", ".join(cell(inner) for inner in value)
    return str(value)


def print_note(message: str) -> None:
    """A line for the person (a summary, a hint): on stderr when stdout is piped, so TSV stays clean."""
    if console.is_terminal:
        console.print(message, highlight=False, soft_wrap=True)
    else:
        sys.stderr.write(message + "\n")


def fail(message: str, code: int = 1) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


@contextlib.contextmanager
def errors_reported(code: int = 1) -> Iterator[None]:
    """Inside the block, tenderflow's own errors end the command with their one line and `code`."""
    from tenderflow.errors import TenderflowError

    try:
        yield
    except TenderflowError as exc:
        raise fail(str(exc), code=code) from exc
