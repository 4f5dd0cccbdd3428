"""Monitoring reads over the queue's SQL views: one `QueueStats` snapshot for CLI, /metrics, dashboard."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.rows import dict_row

from tenderflow.queue.jobs import QUERIES


@dataclass(frozen=True)
class QueueStats:
    by_type: list[dict[str, Any]]
    failures_by_hour: list[dict[str, Any]]
    workers: list[dict[str, Any]]
    oldest_queued_seconds: float | None
    expired_leases: int
    live_workers: int
    dead_workers: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def list_workers(
    conn: psycopg.Connection[Any], *, dead_after_seconds: float, now: datetime | None = None
) -> list[dict[str, Any]]:
    cursor = conn.cursor(row_factory=dict_row)
    return cursor.execute(
        QUERIES["worker_list"], {"dead_after_seconds": dead_after_seconds, "now": now}
    ).fetchall()


def workers_on_host(
    conn: psycopg.Connection[Any], host: str, *, dead_after_seconds: float, now: datetime | None = None
) -> tuple[int, int]:
    """(registered, live): the not-stopped workers of one host, and those that heartbeated lately."""
    row = conn.execute(QUERIES["worker_live_on_host"],
                       {"host": host, "dead_after_seconds": dead_after_seconds, "now": now}).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def live_worker_count(conn: psycopg.Connection[Any], *, dead_after_seconds: float, job_type: str | None = None,
                      now: datetime | None = None) -> int:
    """Workers (local or remote) that heartbeat and have not stopped; with `job_type`, those of them
    whose pool runs that type (an `ocr.plan` waits for an OCR worker however many extract ones run)."""
    row = conn.execute(QUERIES["worker_live_count"],
                       {"dead_after_seconds": dead_after_seconds, "type": job_type, "now": now}).fetchone()
    assert row is not None
    return int(row[0])


def live_job_types(conn: psycopg.Connection[Any], *, dead_after_seconds: float,
                   now: datetime | None = None) -> frozenset[str]:
    """The job types some live worker (local or remote) runs: the union of their pools."""
    rows = conn.execute(QUERIES["worker_live_types"], {"dead_after_seconds": dead_after_seconds, "now": now})
    return frozenset(str(row[0]) for row in rows.fetchall())


def _numeric_as_float(row: dict[str, Any]) -> dict[str, Any]:
    """numeric columns (epoch extracts, averages) arrive as Decimal; readers want plain numbers."""
    return {key: float(value) if isinstance(value, Decimal) else value for key, value in row.items()}


def queue_stats(conn: psycopg.Connection[Any], *, dead_after_seconds: float = 60.0) -> QueueStats:
    cursor = conn.cursor(row_factory=dict_row)
    by_type = [_numeric_as_float(row) for row in cursor.execute(QUERIES["job_type_stats"]).fetchall()]
    failures = cursor.execute(QUERIES["job_failures_by_hour"]).fetchall()
    workers = list_workers(conn, dead_after_seconds=dead_after_seconds)
    ages = [row["oldest_queued_seconds"] for row in by_type if row["oldest_queued_seconds"] is not None]
    return QueueStats(
        by_type=by_type,
        failures_by_hour=failures,
        workers=workers,
        oldest_queued_seconds=max(ages) if ages else None,
        expired_leases=sum(row["expired_leases"] for row in by_type),
        live_workers=sum(1 for w in workers if w["status"] == "live"),
        dead_workers=sum(1 for w in workers if w["status"] == "dead"),
    )
