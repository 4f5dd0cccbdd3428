"""What every command prints with: one console, tables, JSON, and the one-line error."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Final

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tenderflow.display import format_number, format_size, format_value

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


_CONTROL: Final = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")
"""Control characters, and the format characters that reorder or hide text (U+202E…: review security-2, N3)."""


def safe(value: Any) -> Text:
    """Text a tenant supplied (a file name, page text, an extracted value), fit for a terminal: its
    control and bidirectional characters shown as escapes ('\\x1b', '\\u202e'), never sent raw, and
    no Rich markup read in it."""
    return Text(_CONTROL.sub(lambda match: repr(match.group())[1:-1], str(value)))


_WHOLE_COLUMNS: Final = re.compile(r"^(id|.*_id|state|status|type|tenant|version|.*_version|file_?name)$")


def terminal_cell(column: str, value: Any) -> str:
    """A value as a table on a terminal shows it: sizes (`*_bytes`) as `73.5 KiB`, seconds
    (`*_seconds`) to the millisecond, times to the minute in UTC; anything else as `cell` writes it."""
    if column.endswith("_bytes") and isinstance(value, int):
        return format_size(value)
    if column.endswith("_seconds") and isinstance(value, int | float) and not isinstance(value, bool):
        return format_number(float(value))  # the header says "(s)"
    if isinstance(value, datetime):
        moment = value.astimezone(UTC) if value.tzinfo is not None else value
        return moment.strftime("%Y-%m-%d %H:%M UTC")
    return cell(value)


def header(column: str, labels: Mapping[str, str] | None = None) -> str:
    """A column's header in words: its label if given, else its name in words (`size_bytes` ->
    `size`, `oldest_queued_seconds` -> `oldest queued (s)`, `created_at` -> `created`)."""
    if labels and column in labels:
        return labels[column]
    words = re.sub(r"_(bytes|at)$", "", column)
    words = re.sub(r"_seconds$", " (s)", words)
    return words.replace("_", " ")


def _column_widths(titles: Sequence[str], cells: Sequence[Sequence[str | None]], whole: Sequence[bool],
                   room: int, caps: Sequence[int]) -> list[int] | None:
    """Each column's least width for a table that fits in `room` characters of text, or None: whole
    columns their widest cell; the others their longest word, at most the first of `caps` that fits
    (never narrower than their header's longest word)."""

    def longest_word(texts: Iterable[str]) -> int:
        return max((len(word) for text in texts for word in text.split()), default=0)

    header_words = [longest_word([text]) for text in titles]
    whole_widths = [max(len(titles[i]), *(len(v[i] or "") for v in cells)) for i in range(len(titles))]
    words = [longest_word([titles[i], *(v[i] or "" for v in cells)]) for i in range(len(titles))]
    choices = [[whole_widths[i] if whole[i] else min(words[i], max(cap, header_words[i])) for i in range(len(titles))]
               for cap in caps]
    return next((choice for choice in choices if sum(choice) <= room), None)


def make_table(title: str, rows: Sequence[dict[str, Any]], columns: Sequence[str],
               labels: Mapping[str, str] | None = None, width: int | None = None,
               optional: Sequence[str] = ()) -> Table:
    """A table for a terminal `width` wide (the console's): headers in words; ids, states, types and
    file names never wrapped or cut; the other columns wrap at spaces to make room, each kept as wide
    as its longest word (up to 12 characters: a date stays whole) while the table still fits, else as
    wide as its header's longest word. When even that does not fit, the `optional` columns are left
    out, the last first, and the caption says which (TSV and --json always have every column)."""
    shown = list(columns)
    hidden: list[str] = []
    while True:
        cells = [[None if row.get(c) is None else terminal_cell(c, row.get(c)) for c in shown] for row in rows]
        titles = [header(column, labels) for column in shown]
        whole = [bool(_WHOLE_COLUMNS.match(column)) for column in shown]
        room = (width or console.width) - 3 * len(shown) - 1  # padding and borders
        droppable = [column for column in optional if column in shown]
        # A date (10 characters) stays whole while it can; below that, optional columns go first.
        widths = _column_widths(titles, cells, whole, room, (12, 10) if droppable else (12, 10, 0))
        if widths is not None or not droppable:
            break
        shown.remove(droppable[-1])
        hidden.insert(0, header(droppable[-1], labels))
    caption = f"not shown for want of width: {', '.join(hidden)} (--json, or piped: every column)" if hidden else None
    table = Table(title=title, caption=caption)
    for index, title_text in enumerate(titles):
        # A word longer than its column (a storage key, a long error token) folds onto the next
        # line rather than losing its end to an ellipsis.
        table.add_column(title_text, no_wrap=whole[index], overflow="fold",
                         min_width=widths[index] if widths is not None else (None if not whole[index] else
                                                                              len(titles[index])))
    for values in cells:
        table.add_row(*[Text("") if value is None else safe(value) for value in values])
    return table


def print_table(title: str, rows: Sequence[dict[str, Any]], columns: Sequence[str],
                labels: Mapping[str, str] | None = None, optional: Sequence[str] = ()) -> None:
    """A table for a person on a terminal (see `make_table`); piped or redirected, plain TSV (a header
    line of the columns' names, then one line per row, nothing cut, sizes in bytes and times to the
    second) for `cut`, `awk` and spreadsheets (`--json` gives every field, typed)."""
    if console.is_terminal:
        console.print(make_table(title, rows, columns, labels, optional=optional))
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
    """One value as a person reads it (`tenderflow.display.format_value`: money as `12,600,000.00 GBP`,
    a duration as `60 months`, an award criterion as `Price (40%)`, lists comma-separated, times in
    UTC and labelled so)."""
    return format_value(value)


def print_note(message: str) -> None:
    """A line for the person (a summary, a hint): on stderr when stdout is piped, so TSV stays clean."""
    if console.is_terminal:
        console.print(message, highlight=False, soft_wrap=True)
    else:
        sys.stderr.write(message + "\n")


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print `message` as one `error:` line on stderr (stdout stays what a script reads: a table, TSV,
    JSON) and return the exit to raise: `raise fail("…", code=2)`."""
    err_console.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


@contextlib.contextmanager
def errors_reported(code: int = 1, *, also: tuple[type[Exception], ...] = ()) -> Iterator[None]:
    """Inside the block, tenderflow's own errors, and those of the kinds in `also` (a ValueError for
    an argument refused below the CLI: a tenant's languages), end the command with their one line
    and `code`."""
    from tenderflow.errors import TenderflowError

    kinds: tuple[type[Exception], ...] = (TenderflowError, *also)
    try:
        yield
    except kinds as exc:
        raise fail(str(exc), code=code) from exc
