"""Numbered, forward-only SQL migrations and their runner.

Files are `NNNN_description.sql` beside this module. The runner takes an advisory lock (so two
processes migrating at once apply each file once), records version, name and a SHA-256 checksum in
`schema_migrations`, and refuses to go on when an applied file was edited or the database knows a
version this code does not.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources

import psycopg

from tenderflow.errors import MigrationError

# An arbitrary constant: the advisory lock key that serialises migration runs.
MIGRATION_LOCK_KEY = 7_241_001
_FILENAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")

_CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version     integer PRIMARY KEY,
    name        text        NOT NULL,
    checksum    text        NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
)
"""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def available_migrations() -> list[Migration]:
    """The migrations shipped with this version, in order."""
    found = []
    for entry in resources.files(__name__).iterdir():
        match = _FILENAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"two migration files share a version: {versions}")
    return found


def _applied(conn: psycopg.Connection) -> dict[int, tuple[str, str]]:
    exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return {}
    rows = conn.execute("SELECT version, name, checksum FROM schema_migrations").fetchall()
    return {version: (name, checksum) for version, name, checksum in rows}


def _check_history(applied: dict[int, tuple[str, str]], available: list[Migration]) -> list[Migration]:
    by_version = {m.version: m for m in available}
    unknown = sorted(set(applied) - set(by_version))
    if unknown:
        raise MigrationError(
            f"the database has migrations this version of tenderflow does not know: {unknown}; "
            "upgrade tenderflow"
        )
    for version, (name, checksum) in applied.items():
        if by_version[version].checksum != checksum:
            raise MigrationError(
                f"migration {version:04d}_{name}.sql was edited after it was applied; "
                "migrations are forward-only: restore the file and add a new migration instead"
            )
    return [m for m in available if m.version not in applied]


def pending_migrations(conn: psycopg.Connection) -> list[Migration]:
    """Migrations not yet applied. Raises MigrationError for an edited or unknown one."""
    return _check_history(_applied(conn), available_migrations())


def migrate(conn: psycopg.Connection) -> list[Migration]:
    """Apply every pending migration, each in its own transaction; return the ones applied."""
    applied_now: list[Migration] = []
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
    try:
        conn.execute(_CREATE_TABLE)
        for migration in pending_migrations(conn):
            with conn.transaction():
                # Migration files are package data shipped with the code, not input.
                conn.execute(migration.sql)
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                    (migration.version, migration.name, migration.checksum),
                )
            applied_now.append(migration)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK_KEY,))
    return applied_now


def ensure_migrated(conn: psycopg.Connection) -> None:
    """Raise MigrationError saying what to run when the database is behind this code."""
    pending = pending_migrations(conn)
    if pending:
        if len(pending) == len(available_migrations()):  # a new database: no list of every file
            raise MigrationError("the database has no tenderflow schema yet (a new database): "
                                 "run `tenderflow db migrate` first")
        names = ", ".join(f"{m.version:04d}_{m.name}" for m in pending)
        raise MigrationError(
            f"the database is not up to date ({len(pending)} pending migration(s): {names}); "
            "run `tenderflow db migrate` first"
        )
