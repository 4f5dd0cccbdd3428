"""The same no-op drain with PgQueuer and Procrastinate, for scale, when they are installed.

They are not dependencies of tenderflow: `pip install pgqueuer procrastinate` into the venv to
include them. Each drains the same number of no-op jobs (enqueued in batches beforehand) in its own
fresh database, in a process of its own. Timed like tenderflow, from the first job's start (its
handler's first call) to the moment the parent, polling, sees no job left unfinished: PgQueuer
deletes a job when it records its end, Procrastinate marks it succeeded.
"""

from __future__ import annotations

import asyncio
import importlib.util
import multiprocessing
import time
from typing import Any

import psycopg
from scratch_database import scratch_database

ENQUEUE_BATCH = 1000
TIMEOUT_SECONDS = 600.0


def _pgqueuer_process(url: str, jobs: int, batch_size: int, first_start: Any, enqueued: Any) -> None:
    from pgqueuer import Job, Queries, QueueManager
    from pgqueuer.domain.types import QueueExecutionMode

    async def main() -> None:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            queries = Queries.from_psycopg_connection(conn)
            await queries.install()
            for start in range(0, jobs, ENQUEUE_BATCH):
                size = min(ENQUEUE_BATCH, jobs - start)
                await queries.enqueue(["noop"] * size, [None] * size, [0] * size)
        enqueued.set()
        if importlib.util.find_spec("asyncpg") is not None:  # PgQueuer's own choice of driver
            import asyncpg

            params = psycopg.conninfo.conninfo_to_dict(url)
            conn = await asyncpg.connect(host=params.get("host"), port=params.get("port"),
                                         user=params.get("user"), database=params.get("dbname"),
                                         password=params.get("password"))
            manager = QueueManager(Queries.from_asyncpg_connection(conn))
        else:
            conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
            manager = QueueManager(Queries.from_psycopg_connection(conn))

        @manager.entrypoint("noop")
        async def noop(job: Job) -> None:
            if first_start.value == 0.0:
                first_start.value = time.monotonic()

        try:
            await manager.run(batch_size=batch_size, mode=QueueExecutionMode.drain)
        finally:
            await conn.close()

    asyncio.run(main())


def _procrastinate_process(url: str, jobs: int, concurrency: int, first_start: Any, enqueued: Any) -> None:
    import logging

    import procrastinate

    logging.getLogger("procrastinate").setLevel(logging.WARNING)
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))

    @app.task(name="noop", queue="bench")
    async def noop() -> None:
        if first_start.value == 0.0:
            first_start.value = time.monotonic()

    with app.open():
        app.schema_manager.apply_schema()
        for start in range(0, jobs, ENQUEUE_BATCH):
            noop.batch_defer(*[{}] * min(ENQUEUE_BATCH, jobs - start))
        enqueued.set()
        app.run_worker(queues=["bench"], concurrency=concurrency, wait=False)


def _drain(target: Any, unfinished_query: str, admin_url: str, jobs: int, size: int) -> float:
    context = multiprocessing.get_context("spawn")
    with scratch_database(admin_url, migrated=False) as url:
        first_start = context.Value("d", 0.0)
        enqueued = context.Event()
        process = context.Process(target=target, args=(url, jobs, size, first_start, enqueued), daemon=True)
        process.start()
        try:
            deadline = time.monotonic() + TIMEOUT_SECONDS
            while not enqueued.wait(0.1):
                if not process.is_alive() or time.monotonic() > deadline:
                    raise RuntimeError(f"enqueueing failed (exit code {process.exitcode})")
            with psycopg.connect(url, autocommit=True) as conn:
                while True:
                    row = conn.execute(unfinished_query).fetchone()  # type: ignore[arg-type]
                    if row is not None and not row[0]:
                        finished = time.monotonic()
                        break
                    if not process.is_alive() or time.monotonic() > deadline:
                        raise RuntimeError(f"the queue was not drained (exit code {process.exitcode})")
                    time.sleep(0.02)
        finally:
            process.join(60)
            if process.is_alive():
                process.kill()
    return jobs / (finished - first_start.value)


def drain_pgqueuer(admin_url: str, jobs: int, batch_size: int = 100) -> float | str:
    """Jobs per second, or why it was skipped."""
    if importlib.util.find_spec("pgqueuer") is None:
        return "pgqueuer is not installed (pip install pgqueuer)"
    try:
        return _drain(_pgqueuer_process, "SELECT EXISTS (SELECT 1 FROM pgqueuer)", admin_url, jobs, batch_size)
    except Exception as exc:  # a library we do not own: report it, do not fail the benchmark
        return f"pgqueuer failed: {exc}"


def drain_procrastinate(admin_url: str, jobs: int, concurrency: int = 64) -> float | str:
    """Jobs per second, or why it was skipped."""
    if importlib.util.find_spec("procrastinate") is None:
        return "procrastinate is not installed (pip install procrastinate)"
    try:
        return _drain(
            _procrastinate_process,
            "SELECT EXISTS (SELECT 1 FROM procrastinate_jobs WHERE status IN ('todo', 'doing'))",
            admin_url, jobs, concurrency,
        )
    except Exception as exc:  # a library we do not own: report it, do not fail the benchmark
        return f"procrastinate failed: {exc}"
