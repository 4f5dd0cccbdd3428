"""Running the real pipeline for the throughput benchmarks: `tenderflow worker` processes started as an
operator starts them, uploads through the same function the CLI uses, and timings read back from
the database's own timestamps.

    with scratch_database(admin_url) as url:
        env = worker_environment(url, work_dir, TENDERFLOW_OCR_DPI="300")
        with worker_pool(url, env, pool="all", processes=2, log_path=work_dir / "workers.log"):
            start = database_now(url)
            upload_all(url, env, pdfs)
            wait_for_versions(url, len(pdfs), ...)

Used by ocr_throughput.py, textlayer_throughput.py and extraction_throughput.py.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import psycopg

from tenderflow.config import Settings
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file

REPO = Path(__file__).resolve().parent.parent

STARTUP_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class Run:
    """One contender's pass over the pages: wall seconds and the CPU seconds it used."""

    pages: int
    seconds: float
    cpu_seconds: float
    done_seconds: float | None = None
    """When `seconds` ends at the last page stored: to the last document done."""
    pages_seconds: float | None = None
    """When `seconds` ends at the last document done: to the last page stored."""
    busy_share: float | None = None
    """Pipeline only: the jobs' summed time from claim to commit over (worker processes x seconds).
    Idle workers lower it; a job waiting for its commit while the next one computes can lift it
    past 100%."""

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds

    @property
    def cpu_per_page(self) -> float:
        return self.cpu_seconds / self.pages


def worker_environment(database_url: str, work_dir: Path, **settings: str) -> dict[str, str]:
    """The environment of the worker processes: this process's, minus any TENDERFLOW_ setting
    that would leak in from the shell (an LLM endpoint would switch the extraction backend), plus
    the scratch database, file storage under `work_dir` and `settings` (TENDERFLOW_* names)."""
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("TENDERFLOW_") and name != "DATABASE_URL"}
    environment.update({
        "TENDERFLOW_DATABASE_URL": database_url,
        "TENDERFLOW_DATA_DIR": str(work_dir / "data"),
        "TENDERFLOW_STORAGE_URL": (work_dir / "objects").as_uri(),
        "TENDERFLOW_LOG_JSON": "true",
    })
    environment.update(settings)
    return environment


def settings_from(environment: Mapping[str, str]) -> Settings:
    """The Settings the workers build from `environment` (for uploads made by the benchmark)."""
    values = {name.removeprefix("TENDERFLOW_").lower(): value
              for name, value in environment.items() if name.startswith("TENDERFLOW_")}
    return Settings(**values)


def live_workers(database_url: str) -> int:
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM workers WHERE stopped_at IS NULL").fetchone()
    return 0 if row is None else int(row[0])


@contextlib.contextmanager
def worker_pool(
    database_url: str, environment: Mapping[str, str], *, pool: str, processes: int, threads: int = 1,
    log_path: Path, supervised: bool = True,
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`processes` tenderflow worker processes for `pool`, registered and idle when the block starts.

    supervised: ONE `tenderflow worker --processes N` (the supervisor starts the N children);
    else N single-process `tenderflow worker` commands. Their logs go to `log_path`. SIGTERM on exit
    (graceful: running jobs finish, leases are given back)."""
    command = [sys.executable, "-m", "tenderflow", "worker", "--pool", pool, "--threads", str(threads)]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        if supervised:
            started = [subprocess.Popen([*command, "--processes", str(processes)], env=dict(environment),
                                        stdout=log, stderr=log, cwd=REPO)]
        else:
            started = [subprocess.Popen([*command, "--processes", "1"], env=dict(environment),
                                        stdout=log, stderr=log, cwd=REPO) for _ in range(processes)]
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while live_workers(database_url) < processes:
            if any(process.poll() is not None for process in started):
                raise RuntimeError(f"a worker process exited at start; see {log_path}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{processes} workers did not register within {STARTUP_TIMEOUT_SECONDS} s")
            time.sleep(0.1)
        yield started
    finally:
        for process in started:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in started:
            try:
                process.wait(STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def worker_pids(database_url: str) -> list[int]:
    """Process ids of the live workers (each registers its pid)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM workers WHERE stopped_at IS NULL").fetchall()
    return [int(pid) for (pid,) in rows]


def cpu_seconds(pids: Sequence[int]) -> float:
    """CPU (user + system) used so far by these live processes, their live descendants (a worker's
    tool sandbox, and an OCR batch it is running), and the children each has reaped (every pdftoppm,
    tesseract, pdfinfo and pdftotext the worker ran), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in _with_descendants(pids):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except FileNotFoundError:
            continue  # ended between the listing and now: its time is in its parent's cutime
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "; comm may hold spaces
        total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return total / ticks


def _with_descendants(pids: Sequence[int]) -> list[int]:
    found: list[int] = []
    pending = list(pids)
    while pending:
        pid = pending.pop()
        found.append(pid)
        for children in Path(f"/proc/{pid}/task").glob("*/children"):
            try:
                pending += [int(child) for child in children.read_text().split()]
            except FileNotFoundError:
                pass
    return found


def median_ratio(numerator: Sequence[Run], denominator: Sequence[Run]) -> float:
    """The median, over rounds, of one contender's pages/s over another's in the same round: runs
    adjacent in time met like load, which a ratio of overall medians would not ensure."""
    return statistics.median(a.pages_per_second / b.pages_per_second
                             for a, b in zip(numerator, denominator, strict=True))


def children_cpu_seconds() -> float:
    """CPU used so far by this process's reaped children (the direct contenders' tool runs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def database_now(database_url: str) -> datetime:
    """The database's clock, which stamps every job, page and version: all intervals use it."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute("SELECT clock_timestamp()").fetchone()
    assert row is not None
    return row[0]  # type: ignore[no-any-return]


def upload_all(database_url: str, environment: Mapping[str, str], pdfs: Sequence[Path]) -> list[int]:
    """Upload `pdfs` as `tenderflow upload` does (store, then one transaction: document + ocr.plan
    job each); returns the document ids."""
    settings = settings_from(environment)
    storage = open_storage(settings.resolved_storage_url)
    ids = []
    with psycopg.connect(database_url, autocommit=True) as conn:
        for pdf in pdfs:
            outcome = upload_file(conn, storage, pdf, UploadPolicy(max_bytes=settings.max_upload_bytes))
            if outcome.status != "created" or outcome.document_id is None:
                raise RuntimeError(f"{pdf}: upload gave {outcome.status} {outcome.error or ''}")
            ids.append(outcome.document_id)
    return ids


def wait_for_versions(
    database_url: str, count: int, *, states: Sequence[str] = ("done",), timeout_seconds: float,
    workers: Sequence[subprocess.Popen[bytes]] = (), poll_seconds: float = 0.1,
) -> None:
    """Until `count` document versions are in `states`; a failed version (when failed is not
    wanted) or a dead worker process ends the wait with RuntimeError."""
    deadline = time.monotonic() + timeout_seconds
    with psycopg.connect(database_url, autocommit=True) as conn:
        while True:
            row = conn.execute(
                "SELECT count(*) FILTER (WHERE state::text = ANY(%(states)s)),"
                "       string_agg(error, '; ') FILTER (WHERE state = 'failed')"
                "  FROM document_versions",
                {"states": list(states)},
            ).fetchone()
            assert row is not None
            reached, errors = row
            if errors and "failed" not in states:
                raise RuntimeError(f"a document failed: {errors}")
            if reached >= count:
                return
            if any(process.poll() is not None for process in workers):
                raise RuntimeError("a worker process exited during the run")
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {reached} of {count} versions reached {list(states)} "
                                   f"within {timeout_seconds:.0f} s")
            time.sleep(poll_seconds)


def load_average() -> float:
    """The 1-minute load average: printed beside every figure, since other work on the machine
    moves them."""
    return os.getloadavg()[0]
