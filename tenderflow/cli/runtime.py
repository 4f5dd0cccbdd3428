"""The composition root of a command: one Runtime per process, built from Settings by the app's
callback, reached by every command through the typer context."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import typer
from psycopg_pool import ConnectionPool

from tenderflow import migrations
from tenderflow.cli.output import fail
from tenderflow.config import Settings
from tenderflow.database import open_pool, resolve_database_url
from tenderflow.errors import TenderflowError
from tenderflow.pipeline.storage import ObjectStorage, open_storage


class Runtime:
    """What a command needs, built once from Settings at the entry point."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._pool: ConnectionPool | None = None
        self._url: str | None = None
        self._schema_checked = False

    @property
    def database_url(self) -> str:
        if self._url is None:
            self._url = resolve_database_url(self.settings)
        return self._url

    def pool(self, max_size: int | None = None, *, migrated: bool = True) -> ConnectionPool:
        """The process's pool, opened on first use. The embedded database is migrated; a configured
        one (DATABASE_URL) behind this code ends the command with one `error:` line naming
        `tenderflow db migrate` (exit 1), unless `migrated=False` (`db migrate`, `db status`, `doctor`:
        the commands that read or mend the schema themselves)."""
        if self._pool is None:
            self._pool = open_pool(
                self.database_url,
                min_size=self.settings.pool_min_size,
                max_size=max_size or self.settings.pool_max_size,
            )
            if self.settings.database_url is None:
                # The embedded database is ours alone: keep it migrated so a newcomer never has to.
                with self._pool.connection() as conn:
                    migrations.migrate(conn)
                self._schema_checked = True
        if migrated and not self._schema_checked:
            try:
                with self._pool.connection() as conn:
                    migrations.ensure_migrated(conn)
            except TenderflowError as exc:
                # typer.Exit, not the error itself: a command's own `errors_reported(code=2)` (usage
                # errors) must not turn "migrate first" into exit 2.
                raise fail(str(exc)) from exc
            self._schema_checked = True
        return self._pool

    @contextmanager
    def connection(self, *, migrated: bool = True) -> Iterator[psycopg.Connection[Any]]:
        with self.pool(migrated=migrated).connection() as conn:
            yield conn

    def close(self) -> None:
        """Close the pool (again: a no-op); a later `pool()` opens a new one."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def runtime(ctx: typer.Context) -> Runtime:
    obj = ctx.find_root().obj
    assert isinstance(obj, Runtime)
    return obj


def storage_of(rt: Runtime) -> ObjectStorage:
    """The object storage the settings name (file:// or s3://)."""
    return open_storage(rt.settings.resolved_storage_url, endpoint_url=rt.settings.s3_endpoint_url,
                        region=rt.settings.s3_region)
