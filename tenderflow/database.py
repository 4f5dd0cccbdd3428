"""Where the database is: the configured PostgreSQL, or an embedded one; and the process's pool.

With no DATABASE_URL, tenderflow starts (or reuses) a PostgreSQL server that ships inside the
`pgserver` package, in the user's data directory, listening on a Unix socket only. It keeps running
after the command exits so the next command reuses it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from time import monotonic
from typing import Any

import orjson
import psycopg
from psycopg.types.json import set_json_loads
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.errors import ConfigurationError

EMBEDDED_DATABASE = "tenderflow"

# json and jsonb columns are read with orjson in every process that talks to the database: a job
# payload parsed by json.loads cost a claimed job 3-7 µs (the worker's largest cost per short job).
set_json_loads(orjson.loads)


def embedded_server_url(data_dir: Path, database: str = EMBEDDED_DATABASE) -> str:
    """Start (or reuse) the embedded server in `data_dir/postgres`; return a URL to `database`."""
    # pgserver asks platformdirs for a runtime dir (on import too); without XDG_RUNTIME_DIR (root
    # shells, CI) that warns on every command and falls back to /tmp, fine for a Unix socket.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    import pgserver  # imported here: it is only needed when no server is configured

    logging.getLogger("pgserver").setLevel(logging.WARNING)
    pgdata = data_dir / "postgres"
    pgdata.mkdir(parents=True, exist_ok=True)
    try:
        # pgserver re-exports get_server without an __all__, which mypy's strict mode flags.
        server = pgserver.get_server(pgdata, cleanup_mode=None)  # type: ignore[attr-defined]
    except Exception as exc:  # pgserver raises bare subprocess errors; say what failed instead
        raise ConfigurationError(
            f"could not start the embedded PostgreSQL in {pgdata}: {exc}. "
            "Set DATABASE_URL to use an existing server instead."
        ) from exc
    admin_url: str = server.get_uri("postgres")
    with psycopg.connect(admin_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone()
        if not exists:
            conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(database)))
    url: str = server.get_uri(database)
    return url


def stop_embedded_server(data_dir: Path) -> bool:
    """Stop the embedded server of `data_dir` (fast shutdown: open sessions are ended, nothing
    committed is lost). Returns False when it was not running. Raises ConfigurationError when it
    cannot be stopped."""
    pgdata = data_dir / "postgres"
    if not (pgdata / "postmaster.pid").exists():
        return False
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    from pgserver._commands import pg_ctl  # type: ignore[attr-defined]  # made at import; its own pg_ctl

    logging.getLogger("pgserver").setLevel(logging.WARNING)  # its INFO lines are every command it runs
    user = "pgserver" if os.name == "posix" and os.geteuid() == 0 else None
    try:
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user, timeout=60)
    except Exception as exc:  # pg_ctl's failures arrive as bare subprocess errors
        raise ConfigurationError(f"could not stop the embedded PostgreSQL in {pgdata}: {exc}") from exc
    return True


def resolve_database_url(settings: Settings) -> str:
    """The configured DATABASE_URL, else the embedded server's."""
    if settings.database_url:
        return settings.database_url
    return embedded_server_url(settings.data_dir)


CONNECT_TIMEOUT_SECONDS = 3
"""How long a first connection may take before a command says the database cannot be reached."""


class RecoveringPool(ConnectionPool[psycopg.Connection[Any]]):
    """A pool that checks each connection as it leaves, and when one is found broken, checks all
    its idle ones at once (review security-2, D-N3).

    A broken connection usually has company: a database restart, a failover or pg_terminate_backend
    ends every session together. psycopg_pool's own `check=` retries with the reconnection backoff
    after each broken connection (1, 2, 4, 8 s…), so a pool of 20 dead ones kept the first request
    30 s and answered 503. Here the first broken one makes `check()` drop every idle broken
    connection in one pass (a few milliseconds), the pool's workers reconnect in the background, and
    the request takes the first working connection, new or old, within its timeout."""

    def getconn(self, timeout: float | None = None) -> psycopg.Connection[Any]:
        deadline = monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            conn = super().getconn(max(deadline - monotonic(), 0.0))  # PoolTimeout when none comes in time
            try:
                self.check_connection(conn)
            except Exception:
                self.putconn(conn)  # not in a working state: closed, and replaced in the background
                self.check()  # its idle siblings most likely died with it
                continue
            return conn


Database = psycopg.Connection[Any] | ConnectionPool
"""Where a function that works in several short steps gets its connection for each: a pool (each
step borrows one and gives it back, so nothing is held between steps, across storage or network
I/O), or a connection the caller holds anyway (a CLI command, a worker's job)."""


@contextlib.contextmanager
def borrowed(database: Database) -> Iterator[psycopg.Connection[Any]]:
    """A connection of `database` for one step: the pool's, given back at the end of the block, or
    the caller's own (left open)."""
    if isinstance(database, ConnectionPool):
        with database.connection() as conn:
            yield conn
    else:
        yield database


def open_pool(url: str, *, min_size: int = 1, max_size: int = 20, name: str = "tenderflow") -> ConnectionPool:
    """Open the process's one pool (a RecoveringPool). Connections are autocommit: every transaction
    is explicit.

    One direct connection is tried first, with a short timeout, so that a wrong or unreachable
    database is reported within seconds with the server's own reason (the pool would retry for 30 s
    and then only say it timed out)."""
    try:
        psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_SECONDS, autocommit=True).close()
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise ConfigurationError(f"cannot connect to PostgreSQL at {redact(url)}: {reason}") from exc
    pool = RecoveringPool(
        url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"autocommit": True, "application_name": f"{name}:{os.getpid()}"},
        # Each connection is checked as it leaves the pool (getconn), so one broken by a database
        # restart is replaced instead of failing the request that drew it (review D18), without
        # the backoff of psycopg_pool's own check (D-N3).
        name=name,
        open=False,
    )
    try:
        pool.open(wait=True, timeout=30)
    except Exception as exc:
        pool.close()
        raise ConfigurationError(f"cannot connect to PostgreSQL at {redact(url)}: {exc}") from exc
    return pool


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "<unparseable database URL>"
    info.pop("password", None)
    return psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in info.items() if v is not None})
