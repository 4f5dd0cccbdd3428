"""What the API process holds while it runs, opened once in the app's lifespan and closed at its end.

    pool         the process's one psycopg pool (every endpoint borrows a connection briefly)
    storage      where uploaded PDFs go (the same storage the CLI and the workers use)
    prices       what work costs a tenant
                 (these three from tenderflow.runtime, which also decides migrations)
    job_types    the product's job types WITH handlers: remote workers' results are validated by the
                 handlers' result models and committed by their commit steps; inputs are loaded by
                 their `load_input` (the PDF through a local cache, or the pages from the database)
    wakeups      the one LISTEN thread that long-polling claims wait on
    maintenance  a thread reclaiming expired leases (so remote-only deployments reclaim too) and
                 firing schedules; it is safe beside local workers doing the same
    sweep        a thread deleting stored objects no document refers to, every
                 storage_sweep_seconds (tenderflow.pipeline.orphans; safe beside other API processes)
"""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import structlog
from psycopg_pool import ConnectionPool

from tenderflow.api.page_images import PageImages
from tenderflow.api.sessions import OperatorSessions
from tenderflow.api.wakeups import JobWakeups
from tenderflow.config import Settings
from tenderflow.errors import ConfigurationError
from tenderflow.pipeline.orphans import sweep_orphans
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import Backoff, JobTypes, Maintenance
from tenderflow.runtime import Runtime
from tenderflow.tenants.credits import Prices

log = structlog.get_logger("tenderflow.api")

SEARCHABLE_BUILDS_AT_ONCE = 2


@dataclass
class ApiServices:
    settings: Settings
    pool: ConnectionPool
    storage: ObjectStorage
    prices: Prices
    job_types: JobTypes
    backoff: Backoff
    wakeups: JobWakeups
    sessions: OperatorSessions | None  # None: no admin token, so no dashboard and no /metrics
    upload_spool_dir: Path  # uploads are streamed here (capped) before they are stored
    page_images: PageImages  # the dashboard's page pictures
    _stopping: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)
    waiting_claims: threading.BoundedSemaphore = field(init=False)
    """Remote claims held open at once: at most half the API's threads, so tenant requests always
    keep the other half (review D3); a claim beyond it that finds no job at once is told to retry."""
    searchable_builds: threading.BoundedSemaphore = field(
        default_factory=lambda: threading.BoundedSemaphore(SEARCHABLE_BUILDS_AT_ONCE))
    """Searchable PDFs made at once in this process (each a sandboxed run of up to the tool timeout);
    a request beyond it answers 503 with Retry-After (review security-2, D-N2)."""

    def __post_init__(self) -> None:
        self.waiting_claims = threading.BoundedSemaphore(max(1, self.settings.api_threads // 2))

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def begin_shutdown(self) -> None:
        """Called when the server is asked to stop: waiting claims return at once."""
        self._stopping.set()
        self.wakeups.close()

    def close(self) -> None:
        self.begin_shutdown()
        for thread in self._threads:
            thread.join(5)
        self.wakeups.join(5)
        self.pool.close()

    def _maintenance_loop(self) -> None:
        maintenance = Maintenance(self.job_types, retention_seconds=self.settings.retention_days * 86400,
                                  dead_after_seconds=2 * self.settings.heartbeat_seconds)
        while not self._stopping.wait(self.settings.maintenance_seconds):
            try:
                with self.pool.connection() as conn:
                    maintenance.run_once(conn)
            except Exception as exc:  # any error: logged, and the next round tries again (review D4)
                log.warning("api.maintenance_failed", error=f"{type(exc).__name__}: {exc}",
                            exc_info=not isinstance(exc, psycopg.OperationalError))


    def _sweep_loop(self) -> None:
        while not self._stopping.wait(self.settings.storage_sweep_seconds):
            try:
                with self.pool.connection() as conn:
                    report = sweep_orphans(conn, self.storage, grace_seconds=self.settings.storage_sweep_grace_seconds)
                if report.deleted:
                    log.info("api.storage_swept", **report.as_dict())
            except Exception as exc:  # logged; the next round tries again
                log.warning("api.storage_sweep_failed", error=f"{type(exc).__name__}: {exc}",
                            exc_info=not isinstance(exc, psycopg.OperationalError))


def remove_stale_spool_files(directory: Path, *, older_than_seconds: float = 86_400) -> None:
    """Uploads left half-read, and packages left unpacked, by a process that died (a live upload is never
    a day old)."""
    cutoff = time.time() - older_than_seconds
    for leftover in directory.glob("tenderflow-upload-*"):
        with contextlib.suppress(OSError):
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()
    for unpacked in directory.glob("tenderflow-package-*"):  # a tender's package, unpacked (tenders.uploads)
        with contextlib.suppress(OSError):
            if unpacked.stat().st_mtime < cutoff:
                shutil.rmtree(unpacked)


def open_services(settings: Settings) -> ApiServices:
    """Open the pool (migrating the embedded database; refusing a stale configured one), the storage,
    the job types, and start the listener and maintenance threads. Raises MigrationError,
    ConfigurationError."""
    if settings.admin_token is not None and len(settings.admin_token) < OperatorSessions.MIN_TOKEN_CHARS:
        raise ConfigurationError(
            f"TENDERFLOW_ADMIN_TOKEN is {len(settings.admin_token)} characters long; it guards the dashboard and "
            f"/metrics, so it must have at least {OperatorSessions.MIN_TOKEN_CHARS}: `openssl rand -hex 24` makes one")
    from tenderflow.handlers import build_job_types

    runtime = Runtime(settings, pool_name="tenderflow-api")
    try:
        pool = runtime.pool()
        storage = runtime.storage
        job_types = build_job_types(settings, pool=pool, storage=storage,
                                    cache_dir=settings.data_dir / "cache" / "api-pdf")
    except BaseException:
        runtime.close()
        raise
    upload_spool_dir = settings.data_dir / "spool"
    upload_spool_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_spool_files(upload_spool_dir)
    sessions = (OperatorSessions(settings.admin_token, lifetime_seconds=settings.dashboard_session_hours * 3600)
                if settings.admin_token else None)
    services = ApiServices(
        settings=settings, pool=pool, storage=storage, prices=runtime.prices, job_types=job_types,
        backoff=Backoff(settings.backoff_base_seconds, settings.backoff_cap_seconds),
        wakeups=JobWakeups(runtime.database_url), sessions=sessions, upload_spool_dir=upload_spool_dir,
        page_images=PageImages(storage, settings.data_dir / "cache" / "dashboard-pdf",
                               timeout_seconds=settings.tool_timeout_seconds, memory_bytes=settings.tool_memory_bytes),
    )
    if settings.notify:
        services.wakeups.start()
    maintenance = threading.Thread(target=services._maintenance_loop, name="api-maintenance", daemon=True)
    services._threads.append(maintenance)
    maintenance.start()
    sweep = threading.Thread(target=services._sweep_loop, name="api-storage-sweep", daemon=True)
    services._threads.append(sweep)
    sweep.start()
    return services
