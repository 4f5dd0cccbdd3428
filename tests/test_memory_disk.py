"""The suite's databases are made where tests/support/memory_disk.py says: a standalone server's in the
session's tablespace when there is one, the embedded server's cluster in memory when there is room."""

from __future__ import annotations

import os
from pathlib import Path

import psycopg

from tests.support.memory_disk import _on_tmpfs, memory_directory


def test_a_tests_database_is_made_in_the_sessions_tablespace_or_the_servers_memory(
    conn: psycopg.Connection[tuple[object, ...]], tablespace: str | None
) -> None:
    [(where,)] = conn.execute(
        "SELECT t.spcname FROM pg_database d JOIN pg_tablespace t ON t.oid = d.dattablespace "
        "WHERE d.datname = current_database()").fetchall()
    assert where == (tablespace or "pg_default")
    if "DATABASE_URL" not in os.environ and memory_directory() is not None:  # the embedded server's cluster
        [(data,)] = conn.execute("SHOW data_directory").fetchall()
        assert _on_tmpfs(Path(str(data))), data


def test_tmpfs_is_told_from_a_disk() -> None:
    mounts = Path("/proc/mounts").read_text()
    assert _on_tmpfs(Path("/proc")) is False  # proc, not tmpfs
    if " /dev/shm tmpfs " in mounts:
        assert _on_tmpfs(Path("/dev/shm")) is True
    root_type = next(line.split()[2] for line in mounts.splitlines() if line.split()[1] == "/")
    assert _on_tmpfs(Path("/")) is (root_type == "tmpfs")
