"""Structured logging: one `configure_logging` call at the entry point; JSON when not on a terminal."""

from __future__ import annotations

import logging
import sys
from typing import TextIO, cast

import structlog


class _CurrentStderr:
    """Writes to whatever sys.stderr is at the moment of writing (not when logging was set up), so
    a caller that swaps stderr for a while (pytest, typer's CliRunner) never leaves loggers holding
    a closed stream."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(*, json: bool | None = None, level: str = "INFO") -> None:
    """Set up structlog once per process. `json=None` chooses JSON unless stderr is a terminal."""
    as_json = (not sys.stderr.isatty()) if json is None else json
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if as_json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=cast(TextIO, _CurrentStderr())),  # write+flush is all it uses
        cache_logger_on_first_use=True,
    )
