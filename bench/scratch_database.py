"""Throwaway databases for the benchmarks: on DATABASE_URL's server when set, else on an embedded
PostgreSQL (pgserver) started in a temporary directory and deleted afterwards.

Each benchmark creates its databases here and drops them when it ends, so it leaves nothing behind
on a shared server.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import psycopg
from psycopg import sql

from tenderflow.migrations import migrate


@contextlib.contextmanager
def server() -> Iterator[tuple[str, str]]:
    """Yield (admin URL, description) of the server to benchmark on."""
    configured = os.environ.get("DATABASE_URL")
    if configured:
        yield configured, "DATABASE_URL"
        return
    # as tenderflow.database does: without XDG_RUNTIME_DIR (root shells) pgserver's import warns
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    import pgserver

    logging.getLogger("pgserver").setLevel(logging.WARNING)
    pgdata = Path(tempfile.mkdtemp(prefix="tenderflow-bench-pg-"))
    embedded = pgserver.get_server(pgdata, cleanup_mode="delete")
    try:
        yield embedded.get_uri("postgres"), "embedded pgserver (Unix socket)"
    finally:
        embedded.cleanup()


def with_database(url: str, database: str) -> str:
    params = psycopg.conninfo.conninfo_to_dict(url)
    params["dbname"] = database
    return psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in params.items() if v is not None})


@contextlib.contextmanager
def scratch_database(admin_url: str, *, migrated: bool = True) -> Iterator[str]:
    """A new database (with tenderflow's migrations applied unless `migrated=False`), dropped after."""
    name = f"tf_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = with_database(admin_url, name)
    try:
        if migrated:
            with psycopg.connect(url, autocommit=True) as conn:
                migrate(conn)
        yield url
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
