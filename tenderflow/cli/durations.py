"""Durations as people type them on the command line: `90`, `90s`, `5m`, `1h30m`, `2d`."""

from __future__ import annotations

import re
from typing import Final

import typer

from tenderflow.cli.output import fail

_PART: Final = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd]?)")
_UNIT_SECONDS: Final = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text: str) -> float:
    """Seconds in `text` (a number of seconds, or parts such as 1h30m); typer.BadParameter otherwise."""
    compact = text.strip().lower().replace(" ", "")
    position, total = 0, 0.0
    while position < len(compact):
        match = _PART.match(compact, position)
        if match is None or match.end() == position:
            raise typer.BadParameter(f"{text!r} is not a duration: write 90, 90s, 5m, 1h30m or 2d")
        total += float(match[1]) * _UNIT_SECONDS[match[2]]
        position = match.end()
    if not compact:
        raise typer.BadParameter("the duration is empty")
    return total


def shown(seconds: float | None) -> str | None:
    """A duration as a person reads it: 45 s, 5 min, 2 h, 1 d 6 h."""
    if seconds is None:
        return None
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7200:
        return f"{seconds / 60:g} min"
    if seconds < 172800:
        return f"{seconds / 3600:g} h"
    return f"{seconds / 86400:g} d"


def timing(every: str | None, cron: str | None) -> tuple[float | None, str | None]:
    """(interval seconds, cron expression) from --every and --cron, at most one of them given."""
    if every is not None and cron is not None:
        raise fail("give --every or --cron, not both", code=2)
    return (parse_duration(every) if every is not None else None), cron


def new_timing(every: str | None, cron: str | None) -> tuple[float | None, str | None]:
    """`timing` for a change of a schedule's timing (`set`), which needs one of --every and --cron."""
    interval, cron_text = timing(every, cron)
    if interval is None and cron_text is None:
        raise fail("give --every or --cron", code=2)
    return interval, cron_text


def timing_shown(interval_seconds: float | None, cron: str | None) -> str:
    """A schedule's timing in words: `every 5 min`, `cron 0 2 * * * (UTC)`."""
    return f"every {shown(interval_seconds)}" if interval_seconds else f"cron {cron} (UTC)"
