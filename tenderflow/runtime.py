"""The process's runtime: what a command or the API process builds once from Settings, below both.

    database_url  the configured DATABASE_URL, else the embedded server's (started on first use)
    pool          the process's one psycopg pool, opened on first use; the one place that decides
                  migrations: the embedded database is ours alone and is migrated, a configured one
                  (DATABASE_URL) behind this code is refused with MigrationError naming
                  `tenderflow db migrate` (its operators migrate it, once, on purpose)
    storage       where PDFs are stored (file:// or s3://, as the settings name)
    prices        what work costs a tenant (tenants.credits.Prices)

and, from it, a local worker (`build_local_worker`, as `remote.worker.build_remote_worker` builds a
remote one). The CLI (`cli/runtime.py`) keeps one per command, the API (`api/services.py`) one per
process.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow import migrations
from tenderflow.config import Settings
from tenderflow.database import open_pool, resolve_database_url
from tenderflow.errors import TenderflowError
from tenderflow.pipeline.storage import ObjectStorage, open_storage
from tenderflow.tenants.credits import Prices

if TYPE_CHECKING:
    from tenderflow.queue import Worker, WorkerConfig
    from tenderflow.stages.contract import Pool


class Runtime:
    """Settings → pool, storage and prices, each built once, when first asked for."""

    def __init__(self, settings: Settings, *, pool_name: str = "tenderflow") -> None:
        self.settings = settings
        self._pool_name = pool_name
        self._pool: ConnectionPool | None = None
        self._url: str | None = None
        self._schema_checked = False

    @property
    def database_url(self) -> str:
        if self._url is None:
            self._url = resolve_database_url(self.settings)
        return self._url

    def pool(self, max_size: int | None = None, *, migrated: bool = True) -> ConnectionPool:
        """The process's pool, opened on first use (`max_size` only then; else pool_max_size). The
        embedded database is migrated as it opens. A configured one (DATABASE_URL) is checked, once,
        unless `migrated=False` (what reads or mends the schema itself: `db migrate`, `db status`,
        `doctor`): behind this code it raises MigrationError naming `tenderflow db migrate`, through
        `schema_refused`, and the pool stays open for such a reader. Raises ConfigurationError
        (unreachable database)."""
        if self._pool is None:
            self._pool = open_pool(self.database_url, min_size=self.settings.pool_min_size,
                                   max_size=max_size or self.settings.pool_max_size, name=self._pool_name)
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
                self.schema_refused(exc)
                raise
            self._schema_checked = True
        return self._pool

    def schema_refused(self, error: TenderflowError) -> None:
        """Called with the error when a configured database is behind this code; the error is raised
        after it (a subclass may raise something else: the CLI ends the command with one line)."""

    @contextmanager
    def connection(self, *, migrated: bool = True) -> Iterator[psycopg.Connection[Any]]:
        with self.pool(migrated=migrated).connection() as conn:
            yield conn

    @cached_property
    def storage(self) -> ObjectStorage:
        """The object storage the settings name (file:// or s3://). Opening it makes no network call
        and creates no directory. Raises ConfigurationError for a URL that names no storage."""
        return open_storage(self.settings.resolved_storage_url, endpoint_url=self.settings.s3_endpoint_url,
                            region=self.settings.s3_region)

    @cached_property
    def prices(self) -> Prices:
        """What accepting a document, an OCR page and an extraction cost a tenant, from the settings."""
        return Prices.from_settings(self.settings)

    def close(self) -> None:
        """Close the pool (again: a no-op); a later `pool()` opens a new one."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def local_worker_config(settings: Settings, pool: Pool, *, threads: int, burst: bool = False) -> WorkerConfig:
    """What a local worker of `pool` runs and how (leases, heartbeats, polls, tenants' cap, grace,
    backoff, maintenance, retention), from `settings`; `burst`: stop once the pool's work is done."""
    from tenderflow.handlers import LOCAL_POOLS
    from tenderflow.queue import Backoff, WorkerConfig

    return WorkerConfig(
        types=LOCAL_POOLS[pool], threads=threads, lease_seconds=settings.lease_seconds,
        heartbeat_seconds=settings.heartbeat_seconds, poll_seconds=settings.poll_seconds,
        default_tenant_cap=settings.tenant_max_running, notify=settings.notify,
        shutdown_grace_seconds=settings.shutdown_grace_seconds,
        backoff=Backoff(settings.backoff_base_seconds, settings.backoff_cap_seconds),
        maintenance_seconds=settings.maintenance_seconds, retention_seconds=settings.retention_days * 86400,
        burst=burst,
    )


def build_local_worker(runtime: Runtime, pool: Pool, *, threads: int, burst: bool = False) -> Worker:
    """A local worker of `pool` with `threads` threads on the runtime's database and storage: the
    process's pool opened with room for the threads (threads + 6 connections; migrated, else the
    runtime's refusal), the job types with their handlers, the tasks' schedules ensured, the pool's
    handlers warmed up. The worker checks the schema again as it starts (`migrations.ensure_migrated`,
    passed as its `start_check`: the queue knows no migrations)."""
    from tenderflow.handlers import LOCAL_POOLS, build_job_types
    from tenderflow.handlers.schedules import ensure_task_schedules
    from tenderflow.queue import Worker
    from tenderflow.stages.contract import warm_up

    database = runtime.pool(max_size=threads + 6)
    job_types = build_job_types(runtime.settings, pool=database, storage=runtime.storage)
    with database.connection() as conn:
        ensure_task_schedules(conn, job_types)
    warm_up(job_types.handler(name) for name in LOCAL_POOLS[pool])
    config = local_worker_config(runtime.settings, pool, threads=threads, burst=burst)
    return Worker(database, job_types, config, start_check=migrations.ensure_migrated)
