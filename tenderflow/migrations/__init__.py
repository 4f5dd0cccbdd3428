"""Numbered, forward-only SQL migrations in two lines, and their runner.

A line is a folder of `NNNN_description.sql` files numbered on its own, with a table that records it:
the queue's line (`tenderflow/queue/migrations/`, recorded in `queue_migrations`) and the
application's (beside this module, recorded in `schema_migrations`). The queue's line is applied
first: the application's tables may refer to the queue's, never the other way round.

The runner takes an advisory lock (so two processes migrating at once apply each file once), records
version, name and a SHA-256 checksum of each file, and refuses to go on when an applied file was edited
or the database knows a version this code does not.

Until the queue had a line of its own, its files were the application's versions 0001, 0006, 0008,
0013, 0035, 0040, 0050, 0055, 0071 and the first statement of 0017. A database migrated then has its
record handed over (`_HANDED_OVER`): the rows move to `queue_migrations` under the queue's numbers,
checked against the files, and nothing is applied again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from typing import Final

import psycopg
from psycopg import sql

import tenderflow.queue.migrations as queue_line
from tenderflow.errors import MigrationError

# An arbitrary constant: the advisory lock key that serialises migration runs.
MIGRATION_LOCK_KEY = 7_241_001
_FILENAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Line:
    """A numbered sequence of migrations: its name, the package its files are in, the table of its record."""

    name: str
    package: str
    table: str


QUEUE: Final = Line("queue", queue_line.__name__, "queue_migrations")
APPLICATION: Final = Line("tenderflow", __name__, "schema_migrations")
LINES: Final = (QUEUE, APPLICATION)
"""In the order they are applied."""

# The application's versions that became the queue's (old version → the queue's), and the checksum
# 0017_watches.sql had while its first statement (now the queue's 0005) was in it.
_HANDED_OVER: Final = {1: 1, 6: 2, 8: 3, 13: 4, 17: 5, 35: 6, 40: 7, 50: 8, 55: 9, 71: 10}
_SPLIT_VERSION: Final = 17
_SPLIT_CHECKSUM_BEFORE: Final = "2f1afe41833abb3b238a424446f991d57275308f2e175dae6770e49d426da483"


@dataclass(frozen=True)
class Migration:
    line: str
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()

    @property
    def label(self) -> str:
        """'0045_search_fields' for the application's, 'queue/0006_worker_liveness' for the queue's."""
        prefix = "" if self.line == APPLICATION.name else f"{self.line}/"
        return f"{prefix}{self.version:04d}_{self.name}"


@dataclass(frozen=True)
class _Applied:
    name: str
    checksum: str
    applied_at: datetime | None = None


_History = dict[tuple[str, int], _Applied]


def _line_migrations(line: Line) -> list[Migration]:
    found = []
    for entry in resources.files(line.package).iterdir():
        match = _FILENAME.match(entry.name)
        if match:
            found.append(Migration(line.name, int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"two migration files of the {line.name} line share a version: {versions}")
    return found


def available_migrations() -> list[Migration]:
    """The migrations shipped with this version, in the order they are applied (line by line)."""
    return [migration for line in LINES for migration in _line_migrations(line)]


def _table_exists(conn: psycopg.Connection, table: str) -> bool:
    row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
    return bool(row and row[0])


def _recorded(conn: psycopg.Connection) -> _History:
    """What the lines' tables say was applied, as they say it (before any hand-over)."""
    history: _History = {}
    for line in LINES:
        if _table_exists(conn, line.table):
            rows = conn.execute(sql.SQL("SELECT version, name, checksum, applied_at FROM {}").format(
                sql.Identifier(line.table))).fetchall()
            history.update({(line.name, version): _Applied(name, checksum, at) for version, name, checksum, at in rows})
    return history


def _handed_over(history: _History, available: list[Migration]) -> _History:
    """The record as the two lines have it: the application's rows of the queue's files under the
    queue's numbers (a record the queue's line already keeps is left as it is)."""
    if any(line == QUEUE.name for line, _ in history):
        return history
    by_key = {(m.line, m.version): m for m in available}
    moved = dict(history)
    for old, new in _HANDED_OVER.items():
        applied = moved.get((APPLICATION.name, old))
        if applied is None:
            continue
        queue_file = by_key[(QUEUE.name, new)]
        if old == _SPLIT_VERSION:
            if applied.checksum != _SPLIT_CHECKSUM_BEFORE:
                raise MigrationError(f"migration {old:04d}_{applied.name}.sql was edited after it was applied; "
                                     "migrations are forward-only: restore the file and add a new migration instead")
            rest = by_key[(APPLICATION.name, old)]
            moved[(APPLICATION.name, old)] = _Applied(rest.name, rest.checksum, applied.applied_at)
            moved[(QUEUE.name, new)] = _Applied(queue_file.name, queue_file.checksum, applied.applied_at)
        else:
            del moved[(APPLICATION.name, old)]
            moved[(QUEUE.name, new)] = _Applied(queue_file.name, applied.checksum, applied.applied_at)
    return moved


def _pending(history: _History, available: list[Migration]) -> list[Migration]:
    by_key = {(m.line, m.version): m for m in available}
    unknown = sorted(key for key in history if key not in by_key)
    if unknown:
        names = ", ".join(f"{line}/{version:04d}" for line, version in unknown)
        raise MigrationError(f"the database has migrations this version of tenderflow does not know: {names}; "
                             "upgrade tenderflow")
    for key, applied in sorted(history.items()):
        if by_key[key].checksum != applied.checksum:
            raise MigrationError(
                f"migration {by_key[key].label}.sql was edited after it was applied; "
                "migrations are forward-only: restore the file and add a new migration instead"
            )
    return [m for m in available if (m.line, m.version) not in history]


def pending_migrations(conn: psycopg.Connection) -> list[Migration]:
    """Migrations not yet applied. Raises MigrationError for an edited or unknown one."""
    available = available_migrations()
    return _pending(_handed_over(_recorded(conn), available), available)


def _create_tables(conn: psycopg.Connection) -> None:
    for line in LINES:
        conn.execute(sql.SQL("""
            CREATE TABLE IF NOT EXISTS {} (
                version     integer PRIMARY KEY,
                name        text        NOT NULL,
                checksum    text        NOT NULL,
                applied_at  timestamptz NOT NULL DEFAULT now()
            )""").format(sql.Identifier(line.table)))


def _record(conn: psycopg.Connection, migration: Migration, applied_at: datetime | None = None) -> None:
    table = {line.name: line.table for line in LINES}[migration.line]
    conn.execute(
        sql.SQL("INSERT INTO {} (version, name, checksum, applied_at) VALUES (%s, %s, %s, coalesce(%s, now()))")
        .format(sql.Identifier(table)),
        (migration.version, migration.name, migration.checksum, applied_at),
    )


def _hand_over(conn: psycopg.Connection, available: list[Migration]) -> None:
    """Write the hand-over of a record kept before the queue's line, in one transaction."""
    recorded = _recorded(conn)
    history = _handed_over(recorded, available)
    if history == recorded:
        return
    _pending(history, available)  # an edited or unknown file is refused before anything is written
    with conn.transaction():  # the application's rows of the old versions out, the rows of the new record in
        conn.execute(sql.SQL("DELETE FROM {} WHERE version = ANY(%s)").format(sql.Identifier(APPLICATION.table)),
                     (list(_HANDED_OVER),))
        for migration in available:
            key = (migration.line, migration.version)
            if key in history and history[key] != recorded.get(key):
                _record(conn, migration, history[key].applied_at)


def migrate(conn: psycopg.Connection) -> list[Migration]:
    """Apply every pending migration, each in its own transaction; return the ones applied."""
    applied_now: list[Migration] = []
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
    try:
        _create_tables(conn)
        available = available_migrations()
        _hand_over(conn, available)
        for migration in _pending(_recorded(conn), available):
            with conn.transaction():
                # Migration files are package data shipped with the code, not input.
                conn.execute(migration.sql)
                _record(conn, migration)
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
        raise MigrationError(
            f"the database is not up to date ({len(pending)} pending migration(s): "
            f"{', '.join(m.label for m in pending)}); "
            "run `tenderflow db migrate` first"
        )
