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
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=cast(TextIO, _CurrentStderr())),  # write+flush is all it uses
        cache_logger_on_first_use=True,
    )
    # The libraries' own log lines (psycopg_pool, uvicorn, boto3, httpx) in the same format and stream.
    handler = logging.StreamHandler(cast(TextIO, _CurrentStderr()))
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.stdlib.add_logger_name,
            structlog.stdlib.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
        ],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
    ))
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(getattr(logging, level.upper()))
    # Chatty below WARNING, and nothing an operator acts on: one line per HTTP call or connection
    # (the openai client calls over httpx2, a fork of httpx with loggers of its own names). At DEBUG
    # their INFO lines are shown (one per request), not their own DEBUG floods.
    quiet = logging.INFO if root.level <= logging.DEBUG else max(logging.WARNING, root.level)
    for name in ("httpx", "httpcore", "httpx2", "httpcore2", "openai", "botocore", "boto3", "urllib3", "s3transfer",
                 "uvicorn.access"):
        logging.getLogger(name).setLevel(quiet)
