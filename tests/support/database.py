"""Small helpers for tests that talk to PostgreSQL directly."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

Conn = psycopg.Connection[Any]


def db_now(conn: Conn) -> datetime:
    """The database's clock (lease and schedule tests inject times relative to it)."""
    row = conn.execute("SELECT now()").fetchone()
    assert row is not None
    value: datetime = row[0]
    return value
