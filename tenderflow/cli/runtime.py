"""A command's runtime: one `tenderflow.runtime.Runtime` per process, built from Settings by the
app's callback, reached by every command through the typer context."""

from __future__ import annotations

import typer

from tenderflow import runtime as process_runtime
from tenderflow.cli.output import fail
from tenderflow.errors import TenderflowError


class Runtime(process_runtime.Runtime):
    """The process's runtime; a configured database behind this code ends the command with one
    `error:` line naming `tenderflow db migrate` (exit 1)."""

    def schema_refused(self, error: TenderflowError) -> None:
        # typer.Exit, not the error itself: a command's own `errors_reported(code=2)` (usage errors)
        # must not turn "migrate first" into exit 2.
        raise fail(str(error)) from error


def runtime(ctx: typer.Context) -> Runtime:
    obj = ctx.find_root().obj
    assert isinstance(obj, Runtime)
    return obj
