"""How a value reads for a person: the one formatter under the CLI's tables and the dashboard.

    format_value({"amount": 12600000.0, "currency": "GBP"})   12,600,000.00 GBP
    format_value({"amount": 60, "unit": "months"})            60 months  (1 month)
    format_value({"name": "Price", "weight": 40.0})           Price (40%)
    format_value(datetime(2026, 12, 1, 6, 11, tzinfo=UTC))    2026-12-01 06:11:00 UTC
    format_value("2026-03-15T12:00")                          2026-03-15 12:00
    format_value(["ocr.plan", "ocr.pages"])                   ocr.plan, ocr.pages
    format_size(75_273)                                       73.5 KiB

Machine-readable output (JSON, the exports' cells) keeps its own exact forms; this is for reading.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, Final

_ISO_MINUTES: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?")


def format_number(value: float) -> str:
    """At most three decimals, no trailing zeros: 40.0 -> 40, 12.5 -> 12.5, 0.0494 -> 0.049."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


def format_size(size: int | None) -> str:
    """Bytes as a person reads them: 519 B, 73.5 KiB, 12.0 MiB."""
    if size is None:
        return ""
    amount = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(amount) < 1024 or unit == "GiB":
            return f"{int(amount)} {unit}" if unit == "B" else f"{amount:.1f} {unit}"
        amount /= 1024
    raise AssertionError("unreachable")


def format_value(value: Any) -> str:
    """One value as a person reads it (see the module's examples); None is the empty string."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        moment = value.astimezone(UTC) if value.tzinfo is not None else value
        return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format_number(value)
    if isinstance(value, dict):
        return _format_mapping(value)
    if isinstance(value, list | tuple):
        return ", ".join(format_value(inner) for inner in value)
    if isinstance(value, str) and _ISO_MINUTES.fullmatch(value):
        return value.replace("T", " ")
    return str(value)


def _format_mapping(value: dict[str, Any]) -> str:
    amount = value.get("amount")
    if isinstance(amount, int | float) and not isinstance(amount, bool):
        if value.get("currency"):
            return f"{float(amount):,.2f} {value['currency']}"
        if value.get("unit"):
            unit = str(value["unit"])
            return f"{format_number(float(amount))} {unit.removesuffix('s') if amount == 1 else unit}"
    if value.get("name") is not None and "weight" in value:
        weight = value["weight"]
        if weight is None:
            return str(value["name"])
        if isinstance(weight, int | float):
            return f"{value['name']} ({format_number(float(weight))}%)"
    return "; ".join(f"{key}: {format_value(inner)}" for key, inner in value.items() if inner is not None)
