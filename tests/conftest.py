"""Test session setup: a real PostgreSQL, and an isolated database per test.

The server is DATABASE_URL when set, else an embedded server (pgserver) started for the session.
A template database is migrated once; each test gets its own clone (CREATE DATABASE … TEMPLATE),
so tests share no state and need no cleanup between them.
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg_pool import ConnectionPool

from tenderflow.database import open_pool
from tenderflow.migrations import migrate


def _with_database(url: str, database: str) -> str:
    params = psycopg.conninfo.conninfo_to_dict(url)
    params["dbname"] = database
    return psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in params.items() if v is not None})


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """Admin URL of the PostgreSQL server the whole session uses."""
    configured = os.environ.get("DATABASE_URL")
    if configured:
        yield configured
        return
    import pgserver

    pgdata = Path(tempfile.mkdtemp(prefix="tenderflow-test-pg-"))
    server = pgserver.get_server(pgdata, cleanup_mode="delete")
    try:
        yield server.get_uri("postgres")
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def template_database(server_url: str) -> Iterator[str]:
    name = f"tf_template_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    with psycopg.connect(_with_database(server_url, name), autocommit=True) as conn:
        migrate(conn)
    yield name
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def database_url(server_url: str, template_database: str) -> Iterator[str]:
    """A fresh, migrated database for this test alone."""
    name = f"tf_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(name), sql.Identifier(template_database)))
    yield _with_database(server_url, name)
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def empty_database_url(server_url: str) -> Iterator[str]:
    """A fresh database with no migrations applied (for the migration runner's tests)."""
    name = f"tf_empty_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield _with_database(server_url, name)
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def pool(database_url: str) -> Iterator[ConnectionPool]:
    pool = open_pool(database_url, min_size=1, max_size=20, name="test")
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture
def conn(database_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(database_url, autocommit=True) as connection:
        yield connection


@pytest.fixture
def embedded_data_dir() -> Iterator[Path]:
    """A data dir for a test's own embedded PostgreSQL, in /tmp as the session's server is: run as
    root, pgserver runs the server as another user, which pytest's private tmp_path shuts out (and
    other pytest runs on the machine clean numbered tmp dirs up under a running test)."""
    import shutil

    path = Path(tempfile.mkdtemp(prefix="tenderflow-test-data-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def wait_until(predicate: Callable[[], Any], *, timeout: float = 15.0, message: str = "the condition",
               interval: float = 0.05) -> Any:
    """Poll `predicate` until it returns something truthy, and return that; fail the test after
    `timeout` seconds naming `message`. The one polling helper of the suite (for real processes and
    threads; lease tests inject time instead)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting until {message}")
        time.sleep(interval)
