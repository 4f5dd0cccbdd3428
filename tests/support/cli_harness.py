"""The `tenderflow` command as a process runs it, for tests: every command of the typer app, and one
run through the console entry point (`tenderflow.cli.run`: the one-line `error:` included)."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import typer
from typer.testing import CliRunner

from tenderflow.cli import app, run


def cli_commands(group: Any = None, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command of the app as (its words, its click command), groups walked down. (typer 0.28
    vendors click, so a group is whatever has `commands`, not an instance of `click.Group`.)"""
    group = typer.main.get_command(app) if group is None else group
    if hasattr(group, "commands"):
        for name, command in group.commands.items():
            yield from cli_commands(command, (*path, name))
    else:
        yield path, group


@dataclass(frozen=True)
class Ran:
    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None


def run_entry_point(args: Sequence[str], env: Mapping[str, str | None]) -> Ran:
    """`tenderflow ARGS` through the console entry point, in this process (streams and environment
    swapped as CliRunner does): what a person sees, exit code and all. An exception that escapes
    the entry point (a traceback for the person) is returned, not raised."""
    runner = CliRunner()
    code, escaped = 0, None
    with runner.isolation(env=env) as (stdout, stderr, _):
        try:
            run(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException as exc:  # noqa: BLE001 - what would reach the person as a traceback
            code, escaped = 1, exc
        sys.stdout.flush()  # the isolation's text wrappers buffer
        sys.stderr.flush()
        out, err = stdout.getvalue().decode(), stderr.getvalue().decode()
    return Ran(code, out, err, escaped)
