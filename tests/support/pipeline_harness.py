"""Running the real pipeline inside a test: settings, storage, job types and workers on threads."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.handlers import LOCAL_POOLS, build_job_types
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.pipeline.uploads import UploadOutcome, UploadPolicy, upload_file
from tenderflow.queue import Backoff, JobTypes, Worker, WorkerConfig
from tests.support.tender_fixtures import TENDER_PAGE, scanned_pdf, text_pdf


def pipeline_settings(database_url: str, tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": database_url, "data_dir": tmp_path / "data",
        "storage_url": (tmp_path / "objects").as_uri(), "ocr_batch_pages": 2, "ocr_dpi": 150,
        "ocr_languages": "eng", "tool_timeout_seconds": 60,
    }
    values.update(overrides)
    return Settings(**values)


def worker_config(pool_name: str = "all", *, threads: int = 2) -> WorkerConfig:
    return WorkerConfig(
        types=LOCAL_POOLS[pool_name], threads=threads, poll_seconds=0.2, heartbeat_seconds=2.0,
        lease_seconds=30.0, maintenance_seconds=1.0, shutdown_grace_seconds=10.0,
        backoff=Backoff(base_seconds=0.05, cap_seconds=0.2, random=lambda: 0.0),
    )


def pipeline_idle(pool: ConnectionPool) -> bool:
    with pool.connection() as conn:
        row = conn.execute(
            "SELECT count(*) FILTER (WHERE state IN ('queued', 'running')) FROM jobs"
        ).fetchone()
    return row is not None and row[0] == 0


@contextmanager
def running_workers(
    pool: ConnectionPool, job_types: JobTypes, configs: Sequence[WorkerConfig]
) -> Iterator[list[Worker]]:
    workers = [Worker(pool, job_types, config) for config in configs]
    threads = [threading.Thread(target=w.run, daemon=True) for w in workers]
    for thread in threads:
        thread.start()
    try:
        yield workers
    finally:
        for worker in workers:
            worker.request_stop()
        for thread in threads:
            thread.join(30)


def drain(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, *, threads: int = 2, timeout: float = 180.0,
) -> None:
    """Run the pipeline until no job is queued or running, in this thread (`Worker.run_once`: claim,
    compute, commit one batch at a time); fails the test after `timeout`."""
    job_types = build_job_types(settings, pool=pool, storage=storage, cache_dir=settings.data_dir / "cache")
    drain_with(pool, job_types, threads=threads, timeout=timeout)


def upload_and_drain(
    conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, storage: ObjectStorage, folder: Path,
    documents: Iterable[tuple[str, str, list[list[str]]]], **upload_options: Any,
) -> dict[str, int]:
    """Upload a text PDF per (name, tenant, pages) (written to `folder`) and drain the pipeline: the
    documents' ids by name."""
    ids = {}
    for name, tenant, pages in documents:
        outcome = upload_file(conn, storage, text_pdf(folder / f"{name}.pdf", pages),
                              UploadPolicy(tenant=tenant, max_bytes=10**7, **upload_options))
        assert outcome.document_id is not None
        ids[name] = outcome.document_id
    drain(pool, settings, storage)
    return ids


def upload_digital_and_scanned(
    conn: psycopg.Connection[Any], storage: ObjectStorage, folder: Path
) -> tuple[UploadOutcome, UploadOutcome]:
    """TENDER_PAGE uploaded twice (written to `folder`): as a born-digital PDF, whose text layer is
    read, and as a scan, which is OCRed."""
    policy = UploadPolicy(max_bytes=10 * 1024 * 1024)
    return (upload_file(conn, storage, text_pdf(folder / "d.pdf", [TENDER_PAGE]), policy),
            upload_file(conn, storage, scanned_pdf(folder / "s.pdf", [TENDER_PAGE]), policy))


def drain_with(pool: ConnectionPool, job_types: JobTypes, *, threads: int = 2, timeout: float = 180.0) -> None:
    """`drain` with these job types. A job waiting for its retry time is waited for (backoff is short here)."""
    # The job types registered here (a harness may register the stages alone, without the tasks).
    config = replace(worker_config(threads=threads), types=tuple(name for name in LOCAL_POOLS["all"]
                                                                if name in job_types))
    worker = Worker(pool, job_types, config)
    deadline = time.monotonic() + timeout
    while worker.run_once() or not pipeline_idle(pool):
        if time.monotonic() > deadline:
            raise AssertionError(f"pipeline still busy after {timeout} s")
        if not pipeline_idle(pool):
            time.sleep(0.02)


def drain_in_workers(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, *, workers: int, threads: int = 2,
    timeout: float = 180.0,
) -> None:
    """Like `drain`, with `workers` real workers on threads at once (for tests of sharing work)."""
    job_types = build_job_types(settings, pool=pool, storage=storage, cache_dir=settings.data_dir / "cache")
    with running_workers(pool, job_types, [worker_config(threads=threads) for _ in range(workers)]):
        deadline = time.monotonic() + timeout
        while not pipeline_idle(pool):
            if time.monotonic() > deadline:
                raise AssertionError(f"pipeline still busy after {timeout} s")
            time.sleep(0.1)
