"""Proof under fire (issue 11): a workload run twice, without faults and then with faults injected
from outside, and a checker that reads the database and the storage once everything is quiet.

    python bench/chaos.py                          # 1,000 documents (`make chaos`)
    python bench/chaos.py --documents 100 --faster --seed 7

It starts everything itself, as real processes:
- its own PostgreSQL 15 cluster (initdb in a temporary directory; as root the cluster runs as the
  `postgres` OS user through runuser), trust auth on 127.0.0.1, a free port. fsync is off: the run
  restarts PostgreSQL with a fast shutdown (a clean checkpoint), it never crashes the machine;
- moto's S3 server as a separate process (`python -m moto.server`). "S3 down" is SIGSTOP of that
  process for 10 s, then SIGCONT: clients connect (the kernel still accepts) and hang until it
  answers, which is how an unreachable endpoint behaves. Restarting moto would lose its objects
  (it keeps them in memory), so it is stopped, not killed;
- the OpenAI-compatible test server (tests/openai_server.py) in this process: during the fault run
  a seeded share of requests get 429 with Retry-After, 500 with control characters in the error
  text, 400 with a NUL byte in the error text, a hang past the client's timeout, or a 200 whose body
  is cut-off JSON; the rest get a valid (empty) answer;
- `tenderflow serve`, two local workers (`worker --pool all`) and one remote worker
  (`worker --remote URL --pool all`, a worker token, no database), configured by environment.

Three tenants with credits and caps upload born-digital multi-page tenders, some scans and a few
hostile PDFs (encrypted, truncated, a page-size bomb), through the CLI and the HTTP API; some
documents are reprocessed (CLI and API) while they run. Faults on a seeded schedule, printed
before the fault run: SIGKILL of a random worker process every --kill-every seconds (each restarted
at once, as an orchestrator would), PostgreSQL fast-restarted twice, S3 stopped 10 s twice, the API
server SIGKILLed and restarted once, the LLM faults throughout. The schedule spans the duration of
the fault-free run (which runs first), so the faults land while the work is in flight.

When the queue is quiet, the checker counts (each must be 0): lost (an accepted upload without its
document, a done version missing a page or its extraction, a document whose object is gone),
duplicated (pages beyond the page count, two documents for the same bytes, a job key done twice),
stuck (a version not final, a failed version without a reason, a job queued or running, a running
job with an expired lease, attempts above max_attempts), credit_leaks (a balance that is not
grants − charges − open reservations, a tenant below zero, an open reservation on a finished
version, a version closed twice, a done version never charged) and orphans (a stored object no
document refers to); and, apart, `unanswered`: a file of the workload never sent, or an upload or
reprocess never answered within 15 minutes. The last line printed is one JSON object; the exit code
is 0 when every count is 0.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import boto3  # noqa: E402
import httpx  # noqa: E402
import psycopg  # noqa: E402
from textlayer_throughput import make_tender  # noqa: E402

from tenderflow.extraction.schema import TenderFields  # noqa: E402
from tests.openai_server import (  # noqa: E402
    OpenAIServer,
    RecordedRequest,
    Reply,
    completion,
    error_reply,
    rate_limited,
)
from tests.pdf_fixtures import blank_pages_pdf, encrypted_pdf, truncated_pdf  # noqa: E402
from tests.tender_fixtures import scanned_pdf  # noqa: E402

# The system PostgreSQL 15, else the binaries bundled with pgserver (a dependency).
_PYTHON = f"python{sys.version_info.major}.{sys.version_info.minor}"
PG_BINS = (Path("/usr/lib/postgresql/15/bin"),
           Path(sys.prefix) / "lib" / _PYTHON / "site-packages/pgserver/pginstall/bin")
PG_BIN = next((path for path in PG_BINS if (path / "initdb").exists()), PG_BINS[0])
TENANTS = ("alpha", "beta", "gamma")
BUCKET = "chaos"
LLM_TIMEOUT = 3.0
S3_OUTAGE_SECONDS = 10.0
EMPTY_ANSWER = TenderFields().model_dump(mode="json")


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout:.0f} s")


# --- PostgreSQL ------------------------------------------------------------------------------------


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


class Postgres:
    """A throwaway cluster it may stop and start. As root, initdb and the server run as `postgres`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.data = directory / "data"
        self.log_file = directory / "postgres.log"
        self.port = free_port()
        # initdb refuses root: as root the cluster belongs to `postgres` (or pgserver's own user)
        self.user = "postgres" if _user_exists("postgres") else "pgserver"
        self.as_user = ["runuser", "-u", self.user, "--"] if os.geteuid() == 0 else []

    def _run(self, *argv: str) -> None:
        subprocess.run([*self.as_user, *argv], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def init(self) -> None:
        if self.as_user:
            shutil.chown(self.directory, user=self.user)
        self._run(str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-sync")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
                       f"unix_socket_directories = '{self.directory}'\nmax_connections = 300\nfsync = off\n"
                       "full_page_writes = off\n")

    def start(self) -> None:
        self._run(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log_file), "-w", "-t", "60", "start")

    def stop(self) -> None:
        self._run(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"


# --- the S3 server, a process it can stop --------------------------------------------------------


class MotoServer:
    def __init__(self, log_path: Path) -> None:
        self.port = free_port()
        self.log = log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for_port(self.port)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def pause(self) -> None:
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)

    def close(self) -> None:
        self.resume()
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


def s3_client(endpoint: str) -> Any:
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
                        aws_secret_access_key="testing")  # noqa: S106 - moto's fake credentials


# --- the LLM, with faults --------------------------------------------------------------------------


class FaultyLLM:
    """Answers valid empty fields; while `faulty` is set, a seeded share of requests get a fault."""

    FAULTS = (("rate_limited", 0.08), ("server_error", 0.06), ("hang", 0.03), ("malformed", 0.04),
              ("odd_bytes_500", 0.03), ("nul_400", 0.015))

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(f"llm/{seed}")  # noqa: S311 - a fault schedule, not a secret
        self.lock = threading.Lock()
        self.faulty = threading.Event()
        self.counts: dict[str, int] = {}

    def __call__(self, request: RecordedRequest) -> Reply:
        with self.lock:
            draw = self.rng.random()
        kind = "ok"
        if self.faulty.is_set():
            edge = 0.0
            for name, share in self.FAULTS:
                edge += share
                if draw < edge:
                    kind = name
                    break
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1
        if kind == "rate_limited":
            return rate_limited(retry_after="1")
        if kind == "server_error":
            return error_reply(500, "The server had an error while processing your request.")
        if kind == "hang":
            return Reply(body=completion(EMPTY_ANSWER).body, delay_seconds=LLM_TIMEOUT + 2)
        if kind == "malformed":
            return Reply(status=200, body='{"id": "chatcmpl-cut", "object": "chat.completion", "choices": [{"mess')
        if kind == "odd_bytes_500":
            return error_reply(500, "upstream \x1b[31mexploded\x07 \x01\x02\x7f \u202e reversed")
        if kind == "nul_400":
            return error_reply(400, "bad request \x00 with a NUL \x1b]0;title\x07")
        return completion(EMPTY_ANSWER)


# --- processes -------------------------------------------------------------------------------------


class Service:
    """One long-running tenderflow process, restartable; logs appended to one file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.name, self.argv, self.env = name, argv, env
        self.log_path = log_dir / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.lock = threading.Lock()

    def start(self) -> None:
        with self.lock, self.log_path.open("ab") as out:
            self.process = subprocess.Popen(self.argv, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def kill(self) -> None:
        with self.lock:
            if self.process is not None and self.process.poll() is None:
                self.process.send_signal(signal.SIGKILL)
                self.process.wait()

    def ensure_running(self) -> None:
        if self.process is None or self.process.poll() is not None:
            self.start()

    def stop(self, timeout: float = 20.0) -> None:
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                return
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def tenderflow(env: dict[str, str], *args: str, timeout: float = 900.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tenderflow", *args], env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


# --- the workload ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    number: int
    path: Path
    kind: str  # digital, scan, encrypted, truncated, bomb
    tenant: str
    via: str  # cli or api
    reprocess: str | None  # None, or "cli"/"api"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def build_workload(count: int, seed: int, directory: Path) -> list[Item]:
    rng = random.Random(f"workload/{seed}")  # noqa: S311
    directory.mkdir(parents=True, exist_ok=True)
    scratch = directory / "scratch"
    scratch.mkdir(exist_ok=True)
    hostile = ("encrypted", "truncated", "bomb")
    items = []
    for number in range(count):
        path = directory / f"tender-{number:05d}.pdf"
        if number % 40 == 17:
            kind = hostile[(number // 40) % 3]
        elif number % 25 == 3:
            kind = "scan"
        else:
            kind = "digital"
        if kind == "digital":
            make_tender(path, number=seed * 100_000 + number, pages=rng.randint(2, 6))
        elif kind == "scan":
            scanned_pdf(path, [[f"Tender notice {seed}-{number}", "Contracting authority: Chaos County Council",
                                f"Reference: CHAOS-{seed}-{number:05d}", "Deadline: 2026-03-14 12:00"]], dpi=150)
        elif kind == "encrypted":
            encrypted_pdf(scratch / f"enc-{number}.pdf", user_password=f"secret-{number}")
            shutil.move(scratch / f"enc-{number}.pdf", path)
        elif kind == "truncated":
            truncated_pdf(scratch / f"trunc-{number}.pdf")
            shutil.move(scratch / f"trunc-{number}.pdf", path)
        else:
            blank_pages_pdf(path, 1, size=(14400.0, 14400.0))  # 60,000 px a side at 300 dpi: over the cap
        tenant = TENANTS[number % 3]
        via = "cli" if tenant == "alpha" or (tenant == "gamma" and number % 2 == 0) else "api"
        reprocess = rng.choice(("cli", "api")) if kind == "digital" and rng.random() < 0.06 else None
        items.append(Item(number, path, kind, tenant, via, reprocess))
    shutil.rmtree(scratch)
    return items


# --- faults ----------------------------------------------------------------------------------------


@dataclass(order=True)
class Fault:
    at: float
    kind: str = field(compare=False)  # kill_worker, pg_restart, s3_outage, api_kill
    target: str = field(default="", compare=False)

    def describe(self) -> str:
        what = {"kill_worker": f"SIGKILL {self.target}, restart", "pg_restart": "PostgreSQL fast stop, start",
                "s3_outage": f"S3 SIGSTOP {S3_OUTAGE_SECONDS:.0f} s, SIGCONT", "api_kill": "SIGKILL the API, restart"}
        return f"t+{self.at:6.1f}s  {what[self.kind]}"


def fault_schedule(seed: int, span: float, kill_every: float, workers: list[str]) -> list[Fault]:
    rng = random.Random(f"faults/{seed}")  # noqa: S311
    faults = []
    at = kill_every
    while at < span:
        faults.append(Fault(at, "kill_worker", rng.choice(workers)))
        at += kill_every
    for kind, count in (("pg_restart", 2), ("s3_outage", 2), ("api_kill", 1)):
        for part in range(count):
            # one per slice of the span, somewhere in its middle, so they do not all land together
            low, high = span * part / count, span * (part + 1) / count
            faults.append(Fault(round(rng.uniform(low + 0.15 * (high - low), high - 0.25 * (high - low)), 1), kind))
    return sorted(faults)


# --- one run ---------------------------------------------------------------------------------------


@dataclass
class Outcome:
    accepted: dict[tuple[str, str], int] = field(default_factory=dict)
    refused: int = 0
    attempted: int = 0  # files sent (each once, however often retried): must be the whole workload
    upload_errors: list[str] = field(default_factory=list)
    reprocessed: int = 0
    reprocess_errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Run:
    def __init__(self, name: str, pg: Postgres, moto: MotoServer, llm: OpenAIServer, work: Path,
                 documents: int) -> None:
        self.name = name
        self.pg, self.moto, self.llm = pg, moto, llm
        self.database = f"chaos_{name}"
        self.bucket = f"{BUCKET}-{name}"
        self.log_dir = work / "logs" / name
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.api_port = free_port()
        self.api_url = f"http://127.0.0.1:{self.api_port}"
        self.env = self._environment(work / f"data-{name}")
        self.outcome = Outcome()
        self.keys: dict[str, str] = {}
        self.services: dict[str, Service] = {}
        self.documents = documents
        self.stop_uploads = threading.Event()

    def _environment(self, data_dir: Path) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("TENDERFLOW_", "AWS_")) and k != "DATABASE_URL"}
        env.update({
            "DATABASE_URL": self.pg.url(self.database),
            "TENDERFLOW_DATA_DIR": str(data_dir),
            "TENDERFLOW_STORAGE_URL": f"s3://{self.bucket}",
            "TENDERFLOW_S3_ENDPOINT_URL": self.moto.endpoint,
            "TENDERFLOW_S3_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/nonexistent/chaos-aws-config",
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/chaos-aws-credentials",
            "TENDERFLOW_LLM_BASE_URL": self.llm.base_url, "TENDERFLOW_LLM_API_KEY": "chaos",
            "TENDERFLOW_LLM_MODEL": "test-model", "TENDERFLOW_LLM_TIMEOUT_SECONDS": str(LLM_TIMEOUT),
            "TENDERFLOW_LLM_MAX_RETRIES": "2",
            "TENDERFLOW_LEASE_SECONDS": "6", "TENDERFLOW_HEARTBEAT_SECONDS": "2", "TENDERFLOW_POLL_SECONDS": "0.5",
            "TENDERFLOW_MAINTENANCE_SECONDS": "1", "TENDERFLOW_BACKOFF_BASE_SECONDS": "0.5",
            "TENDERFLOW_BACKOFF_CAP_SECONDS": "4", "TENDERFLOW_MAX_ATTEMPTS": "6",
            "TENDERFLOW_SHUTDOWN_GRACE_SECONDS": "5", "TENDERFLOW_CLAIM_WAIT_SECONDS": "5",
            "TENDERFLOW_TENANT_UPLOADS_PER_MINUTE": "0", "TENDERFLOW_OCR_DPI": "200",
            "TENDERFLOW_API_HOST": "127.0.0.1", "TENDERFLOW_API_PORT": str(self.api_port),
            "TENDERFLOW_LOG_JSON": "true", "TENDERFLOW_STORAGE_SWEEP_SECONDS": "86400",
            "PYTHONUNBUFFERED": "1", "COLUMNS": "200",
        })
        return env

    def cli(self, *args: str) -> str:
        result = tenderflow(self.env, *args)
        if result.returncode != 0:
            raise RuntimeError(f"tenderflow {' '.join(args)}: exit {result.returncode}: {result.stderr[-2000:]}")
        return result.stdout

    def setup(self, items: list[Item]) -> None:
        with psycopg.connect(self.pg.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {self.database}")  # a fixed name of ours, not input
        s3_client(self.moto.endpoint).create_bucket(Bucket=self.bucket)
        self.cli("db", "migrate")
        share = {tenant: sum(1 for item in items if item.tenant == tenant) for tenant in TENANTS}
        # alpha and beta can pay for everything; gamma for about 3/4 of its documents, so some of its
        # uploads and reprocesses are refused (402) and its balance runs close to zero.
        credits = {"alpha": 40 * share["alpha"] + 100, "beta": 40 * share["beta"] + 100,
                   "gamma": 10 * share["gamma"]}
        # Each CLI process spends seconds importing: the independent calls run side by side.
        with ThreadPoolExecutor(max_workers=3) as pool:
            token_call = pool.submit(self.cli, "worker-tokens", "create", "chaos-remote", "--pools", "all", "--json")
            for future in [pool.submit(self.cli, "tenants", "create", tenant, "--credits", str(credits[tenant]),
                                       "--max-running", "3") for tenant in TENANTS]:
                future.result()
            created = {tenant: pool.submit(self.cli, "keys", "create", "--tenant", tenant, "--name", "chaos", "--json")
                       for tenant in TENANTS}  # alpha uploads with the CLI but reprocesses over the API too
            self.keys = {tenant: json.loads(future.result())["key"] for tenant, future in created.items()}
            token = json.loads(token_call.result())["token"]
        python = [sys.executable, "-m", "tenderflow"]
        self.services = {
            "api": Service("api", [*python, "serve"], self.env, self.log_dir),
            "worker-1": Service("worker-1", [*python, "worker", "--pool", "all", "--threads", "2"], self.env,
                                self.log_dir),
            "worker-2": Service("worker-2", [*python, "worker", "--pool", "all", "--threads", "2"], self.env,
                                self.log_dir),
            "remote": Service("remote", [*python, "worker", "--remote", self.api_url, "--pool", "all",
                                         "--threads", "2"], {**self.remote_env(), "TENDERFLOW_WORKER_TOKEN": token},
                              self.log_dir),
        }

    def remote_env(self) -> dict[str, str]:
        """The remote worker knows the API's address and its token: no database, no storage."""
        hidden = ("DATABASE_URL", "TENDERFLOW_STORAGE_URL", "TENDERFLOW_S3_ENDPOINT_URL", "AWS_ACCESS_KEY_ID",
                  "AWS_SECRET_ACCESS_KEY")
        return {k: v for k, v in self.env.items() if k not in hidden}

    def start_services(self) -> None:
        self.services["api"].start()
        wait_for_port(self.api_port)
        for name in ("worker-1", "worker-2", "remote"):
            self.services[name].start()

    # uploads and reprocesses -------------------------------------------------------------------

    def _retrying(self, what: str, attempt: Callable[[], bool], deadline: float = 900.0) -> bool:
        """Call `attempt` until it returns True (done) or the deadline passes; exceptions and False
        mean "try again" (the API or the database may be down for a while)."""
        end = time.monotonic() + deadline
        last = ""
        while time.monotonic() < end:
            try:
                if attempt():
                    return True
            except (httpx.HTTPError, RuntimeError, subprocess.TimeoutExpired) as exc:
                last = f"{type(exc).__name__}: {exc}"[:300]
            time.sleep(0.5)
        with self.outcome.lock:
            self.outcome.upload_errors.append(f"{what}: {last}")
        return False

    def _accept(self, item: Item, document_id: int) -> None:
        with self.outcome.lock:
            self.outcome.accepted[(item.tenant, item.sha256)] = document_id

    def upload_api(self, client: httpx.Client, item: Item) -> int | None:
        found: list[int] = []
        with self.outcome.lock:
            self.outcome.attempted += 1

        def attempt() -> bool:
            with item.path.open("rb") as pdf:
                response = client.post(f"{self.api_url}/v1/documents",
                                       headers={"Authorization": f"Bearer {self.keys[item.tenant]}"},
                                       files={"file": (item.path.name, pdf, "application/pdf")})
            if response.status_code in (200, 201):
                found.append(int(response.json()["id"]))
                return True
            if response.status_code == 402:
                with self.outcome.lock:
                    self.outcome.refused += 1
                return True
            if response.status_code >= 500 or response.status_code == 429:
                return False
            raise RuntimeError(f"{response.status_code} {response.text[:200]}")

        self._retrying(f"upload {item.path.name}", attempt)
        if found:
            self._accept(item, found[0])
            return found[0]
        return None

    def upload_cli(self, batch: list[Item]) -> list[tuple[Item, int]]:
        done: list[tuple[Item, int]] = []
        with self.outcome.lock:
            self.outcome.attempted += len(batch)

        def attempt() -> bool:
            result = tenderflow(self.env, "upload", "--tenant", batch[0].tenant, "--json",
                                *(str(item.path) for item in batch))
            if result.returncode != 0 and not result.stdout.strip().startswith("["):
                raise RuntimeError(f"upload exit {result.returncode}: {result.stderr[-300:]}")
            rows = json.loads(result.stdout)
            by_path = {Path(row["source"]).name: row for row in rows}
            retry = []
            for item in batch:
                row = by_path[item.path.name]
                if row.get("document_id") is not None:
                    self._accept(item, int(row["document_id"]))
                    done.append((item, int(row["document_id"])))
                elif "credit" in str(row.get("error")):
                    with self.outcome.lock:
                        self.outcome.refused += 1
                else:
                    retry.append(f"{item.path.name}: {row.get('error')}")
            if retry:  # the same bytes again answer "existing" for those already in
                raise RuntimeError("; ".join(retry)[:300])
            return True

        self._retrying(f"cli upload of {len(batch)}", attempt)
        return done

    def reprocess(self, client: httpx.Client, item: Item, document_id: int) -> None:
        def attempt() -> bool:
            if item.reprocess == "cli":
                result = tenderflow(self.env, "reprocess", str(document_id))
                if result.returncode == 0:
                    return True
                if "credit" in result.stderr:
                    return True  # refused: not enough credits (gamma)
                raise RuntimeError(result.stderr[-300:])
            response = client.post(f"{self.api_url}/v1/documents/{document_id}/reprocess",
                                   headers={"Authorization": f"Bearer {self.keys[item.tenant]}"},
                                   json={"start_from": "ocr"})
            if response.status_code in (202, 402):
                return True
            if response.status_code >= 500:
                return False
            raise RuntimeError(f"{response.status_code} {response.text[:200]}")

        if self._retrying(f"reprocess {document_id}", attempt):
            with self.outcome.lock:
                self.outcome.reprocessed += 1

    def run_workload(self, items: list[Item]) -> None:
        """Upload everything (CLI batches in one thread, the API from three), reprocessing the
        chosen documents soon after their upload. Returns when every request is answered."""
        later: list[tuple[Item, int]] = []
        later_lock = threading.Lock()

        def remember(item: Item, document_id: int | None) -> None:
            if document_id is not None and item.reprocess is not None:
                with later_lock:
                    later.append((item, document_id))

        def cli_uploader(tenant: str) -> None:
            group = [item for item in items if item.via == "cli" and item.tenant == tenant]
            for batch in (group[i:i + 10] for i in range(0, len(group), 10)):
                for item, document_id in self.upload_cli(batch):
                    remember(item, document_id)

        def api_uploader(part: int) -> None:
            with httpx.Client(timeout=60) as client:
                for item in [item for item in items if item.via == "api"][part::3]:
                    remember(item, self.upload_api(client, item))

        def reprocessor(uploaders: list[threading.Thread]) -> None:
            with httpx.Client(timeout=60) as client:
                while True:
                    with later_lock:
                        todo = list(later)
                        later.clear()
                    for item, document_id in todo:
                        self.reprocess(client, item, document_id)
                    if not todo and not any(t.is_alive() for t in uploaders):
                        return
                    time.sleep(1.0)

        # one CLI uploader per tenant that uses it: each `tenderflow upload` process spends seconds starting
        uploaders = [threading.Thread(target=cli_uploader, args=(tenant,), name=f"cli-uploader-{tenant}")
                     for tenant in TENANTS if any(item.via == "cli" and item.tenant == tenant for item in items)]
        uploaders += [threading.Thread(target=api_uploader, args=(part,), name=f"api-uploader-{part}")
                      for part in range(3)]
        for thread in uploaders:
            thread.start()
        reprocessing = threading.Thread(target=reprocessor, args=(uploaders,), name="reprocessor")
        reprocessing.start()
        for thread in uploaders:
            thread.join()
        reprocessing.join()

    # quiet -------------------------------------------------------------------------------------

    def busy(self) -> int | None:
        """Versions not final plus jobs queued or running; None when the database does not answer."""
        try:
            with psycopg.connect(self.pg.url(self.database), connect_timeout=3) as conn:
                row = conn.execute(
                    "SELECT (SELECT count(*) FROM document_versions WHERE state NOT IN ('done', 'failed'))"
                    " + (SELECT count(*) FROM jobs WHERE state IN ('queued', 'running'))").fetchone()
                return int(row[0]) if row else None
        except psycopg.Error:
            return None

    def wait_quiet(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for service in self.services.values():
                service.ensure_running()  # an orchestrator restarts what died
            if self.busy() == 0:
                return True
            time.sleep(0.5)
        return False

    def stop_services(self) -> None:
        for service in self.services.values():
            service.stop()

    # the checker -------------------------------------------------------------------------------

    def check(self) -> dict[str, Any]:
        with psycopg.connect(self.pg.url(self.database), autocommit=True) as conn:
            def count(query: str) -> int:
                row = conn.execute(query).fetchone()
                return int(row[0]) if row and row[0] is not None else 0

            documents = {(str(t), str(s)): int(i) for t, s, i in conn.execute(
                "SELECT tenant, sha256, id FROM documents").fetchall()}
            # A document deleted on purpose (by request or retention) is neither lost nor, once its
            # storage.delete job ran, an orphan: the deletions' record says which were deleted.
            deleted = {(str(t), str(s)) for t, s in conn.execute(
                "SELECT tenant, sha256 FROM document_deletions").fetchall()}
            storage_urls = [str(u) for (u,) in conn.execute("SELECT storage_url FROM documents").fetchall()]
            lost = {
                "accepted_without_document": sum(1 for key in self.outcome.accepted
                                                 if key not in documents and key not in deleted),
                "done_version_missing_pages": count(
                    "SELECT count(*) FROM document_versions v WHERE v.state = 'done' AND v.page_count <> ("
                    " SELECT count(DISTINCT p.page_number) FROM pages p"
                    "  WHERE p.document_id = v.document_id AND p.version = v.pages_version"
                    "    AND p.page_number BETWEEN 1 AND v.page_count)"),
                "done_version_without_extraction": count(
                    "SELECT count(*) FROM document_versions v WHERE v.state = 'done' AND NOT EXISTS ("
                    " SELECT 1 FROM extractions e WHERE e.document_id = v.document_id AND e.version = v.version)"),
                "done_document_not_current": count(
                    "SELECT count(*) FROM documents d WHERE EXISTS (SELECT 1 FROM document_versions v"
                    " WHERE v.document_id = d.id AND v.state = 'done') AND d.current_version IS NULL"),
            }
            duplicated = {
                "pages_beyond_page_count": count(
                    "SELECT count(*) FROM pages p JOIN document_versions v USING (document_id, version)"
                    " WHERE v.page_count IS NOT NULL AND p.page_number > v.page_count"),
                "documents_for_same_bytes": count(
                    "SELECT count(*) - count(DISTINCT (tenant, sha256)) FROM documents"),
                "versions_per_upload_gt_expected": count(
                    "SELECT count(*) FROM documents d WHERE d.latest_version > 2"),
                # a job's payload names its document, version and pages: the same work done twice
                "job_succeeded_twice": count(
                    "SELECT count(*) FROM (SELECT 1 FROM jobs WHERE state = 'succeeded'"
                    " GROUP BY type, payload HAVING count(*) > 1) twice"),
                "ocr_batches_beyond_batch_count": count(
                    "SELECT count(*) FROM document_versions v WHERE v.batch_count IS NOT NULL AND ("
                    " SELECT count(*) FROM ocr_batches b WHERE (b.document_id, b.version) = (v.document_id, v.version))"
                    " > v.batch_count"),
            }
            stuck = {
                "version_not_final": count(
                    "SELECT count(*) FROM document_versions WHERE state NOT IN ('done', 'failed')"),
                "failed_without_reason": count(
                    "SELECT count(*) FROM document_versions WHERE state = 'failed' AND coalesce(error, '') = ''"),
                "job_queued_or_running": count("SELECT count(*) FROM jobs WHERE state IN ('queued', 'running')"),
                "running_with_expired_lease": count(
                    "SELECT count(*) FROM jobs WHERE state = 'running' AND leased_until < now()"),
                "attempts_above_max": count("SELECT count(*) FROM jobs WHERE attempts > max_attempts"),
            }
            summary = conn.execute(
                "SELECT tenant, balance, ledger_balance, unlimited FROM tenant_credit_summary").fetchall()
            credit_leaks = {
                "balance_not_ledger": sum(1 for _, balance, ledger, _u in summary if balance != ledger),
                "below_zero": sum(1 for _, balance, _l, unlimited in summary if not unlimited and balance < 0),
                "open_reservation_on_finished_version": count(
                    "SELECT count(DISTINCT (e.document_id, e.version)) FROM credit_entries e"
                    " JOIN document_versions v ON (v.document_id, v.version) = (e.document_id, e.version)"
                    " WHERE e.kind = 'reserve' AND v.state IN ('done', 'failed') AND NOT EXISTS ("
                    "  SELECT 1 FROM credit_entries c WHERE (c.document_id, c.version) = (e.document_id, e.version)"
                    "   AND c.kind IN ('charge', 'refund'))"),
                "version_closed_twice": count(
                    "SELECT count(*) FROM (SELECT document_id, version FROM credit_entries"
                    " WHERE kind IN ('charge', 'refund') GROUP BY 1, 2 HAVING count(*) > 1) twice"),
                "done_version_not_charged": count(
                    "SELECT count(*) FROM document_versions v JOIN version_prices USING (document_id, version)"
                    " WHERE v.state = 'done' AND NOT EXISTS (SELECT 1 FROM credit_entries c"
                    "  WHERE (c.document_id, c.version) = (v.document_id, v.version) AND c.kind = 'charge')"),
            }
            states = dict(conn.execute(
                "SELECT state::text, count(*) FROM document_versions GROUP BY 1").fetchall())
            errors = [str(e) for (e,) in conn.execute(
                "SELECT left(error, 160) AS e FROM document_versions WHERE state = 'failed'"
                " GROUP BY 1 ORDER BY count(*) DESC LIMIT 8").fetchall()]
            pages = count("SELECT count(*) FROM pages")
            attempts = count("SELECT coalesce(max(attempts), 0) FROM jobs")
        s3 = s3_client(self.moto.endpoint)
        keys = set()
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket):
            keys.update(obj["Key"] for obj in page.get("Contents", []))
        referenced = {url.split(f"s3://{self.bucket}/", 1)[-1] for url in storage_urls}
        lost["document_object_missing"] = len(referenced - keys)
        orphans = {"object_without_document": len({k for k in keys if k.startswith("tenants/")} - referenced)}
        return {"lost": lost, "duplicated": duplicated, "stuck": stuck, "credit_leaks": credit_leaks,
                "orphans": orphans, "versions": states, "pages": pages, "max_attempts_seen": attempts,
                "failure_reasons": errors}


# --- the fault injector ----------------------------------------------------------------------------


class Injector(threading.Thread):
    def __init__(self, run: Run, schedule: list[Fault], pg: Postgres, moto: MotoServer) -> None:
        super().__init__(name="fault-injector", daemon=True)
        self.run_, self.schedule, self.pg, self.moto = run, schedule, pg, moto
        self.done: dict[str, int] = {}
        self.errors: list[str] = []
        self.started = time.monotonic()

    def run(self) -> None:
        self.started = time.monotonic()
        pending: list[threading.Thread] = []
        for fault in self.schedule:
            delay = fault.at - (time.monotonic() - self.started)
            if delay > 0:
                time.sleep(delay)
            # S3 outages and PostgreSQL restarts take seconds: they run beside the worker kills
            worker = threading.Thread(target=self._inject, args=(fault,), daemon=True)
            worker.start()
            pending.append(worker)
        for worker in pending:
            worker.join()

    def _inject(self, fault: Fault) -> None:
        try:
            if fault.kind == "kill_worker":
                service = self.run_.services[fault.target]
                service.kill()
                service.start()
            elif fault.kind == "api_kill":
                service = self.run_.services["api"]
                service.kill()
                time.sleep(1.0)
                service.start()
            elif fault.kind == "pg_restart":
                self.pg.stop()
                time.sleep(1.0)
                self.pg.start()
            elif fault.kind == "s3_outage":
                self.moto.pause()
                time.sleep(S3_OUTAGE_SECONDS)
                self.moto.resume()
            self.done[fault.kind] = self.done.get(fault.kind, 0) + 1
            log(f"fault: {fault.describe()}")
        except Exception as exc:  # noqa: BLE001 - a fault that could not be injected is reported, not fatal
            self.errors.append(f"{fault.describe()}: {exc}")


# --- main ------------------------------------------------------------------------------------------


def run_phase(name: str, items: list[Item], pg: Postgres, moto: MotoServer, llm: OpenAIServer, work: Path,
              schedule: list[Fault] | None, quiet_timeout: float) -> tuple[Run, float, bool, Injector | None]:
    run = Run(name, pg, moto, llm, work, len(items))
    run.setup(items)
    try:
        run.start_services()
        time.sleep(1.0)
        started = time.monotonic()
        injector = None
        if schedule is not None:
            injector = Injector(run, schedule, pg, moto)
            injector.start()
        run.run_workload(items)
        log(f"{name}: uploads answered after {time.monotonic() - started:.1f} s ({run.outcome.attempted} sent, "
            f"{len(run.outcome.accepted)} accepted, {run.outcome.refused} refused, "
            f"{run.outcome.reprocessed} reprocessed)")
        if injector is not None:
            injector.join()
        quiet = run.wait_quiet(quiet_timeout)
        seconds = time.monotonic() - started
        log(f"{name}: {'quiet' if quiet else 'NOT quiet'} after {seconds:.1f} s")
    finally:
        run.stop_services()
    return run, seconds, quiet, injector


def total(section: dict[str, int]) -> int:
    return sum(section.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faster", action="store_true",
                        help="a CI-sized schedule: the same faults, a worker killed every 1.5 s")
    parser.add_argument("--kill-every", type=float, default=None, help="seconds between worker kills (default 2)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, cluster)")
    parser.add_argument("--quiet-timeout", type=float, default=900.0)
    args = parser.parse_args()
    kill_every = args.kill_every or (1.5 if args.faster else 2.0)

    work = Path(tempfile.mkdtemp(prefix="tenderflow-chaos-"))
    pg_dir = Path(tempfile.mkdtemp(prefix="tenderflow-chaos-pg-"))
    log(f"work directory {work} (PostgreSQL in {pg_dir}); seed {args.seed}, {args.documents} documents")
    items = build_workload(args.documents, args.seed, work / "pdfs")
    kinds: dict[str, int] = {}
    for item in items:
        kinds[item.kind] = kinds.get(item.kind, 0) + 1
    log(f"workload: {kinds}, {sum(1 for i in items if i.reprocess)} to reprocess, "
        f"{sum(1 for i in items if i.via == 'cli')} via the CLI, {sum(1 for i in items if i.via == 'api')} via the API")
    pg = Postgres(pg_dir)
    pg.init()
    pg.start()
    moto = MotoServer(work / "moto.log")
    llm_faults = FaultyLLM(args.seed)
    llm = OpenAIServer(llm_faults)
    llm.start()
    result: dict[str, Any] = {}
    try:
        baseline, baseline_seconds, baseline_quiet, _ = run_phase(
            "baseline", items, pg, moto, llm, work, None, args.quiet_timeout)
        baseline_report = baseline.check()
        schedule = fault_schedule(args.seed, baseline_seconds, kill_every, ["worker-1", "worker-2", "remote"])
        print(f"fault schedule (seed {args.seed}, over the fault-free run's {baseline_seconds:.1f} s):", flush=True)
        for fault in schedule:
            if fault.kind != "kill_worker":
                print("  " + fault.describe(), flush=True)
        kills = [f for f in schedule if f.kind == "kill_worker"]
        print(f"  and {len(kills)} worker kills, one every {kill_every} s: "
              + ", ".join(f"{f.at:.1f}:{f.target}" for f in kills), flush=True)
        print(f"  and the LLM faults throughout: {dict(FaultyLLM.FAULTS)} of requests", flush=True)
        with llm_faults.lock:
            llm_faults.counts.clear()  # from here on, the fault run's replies only
        llm_faults.faulty.set()
        chaos, chaos_seconds, chaos_quiet, injector = run_phase(
            "faults", items, pg, moto, llm, work, schedule, args.quiet_timeout)
        llm_faults.faulty.clear()
        report = chaos.check()
        assert injector is not None
        print(json.dumps({"baseline": baseline_report, "faults": report, "llm_replies": llm_faults.counts,
                          "faults_injected": injector.done, "fault_errors": injector.errors,
                          "upload_errors": chaos.outcome.upload_errors[:10],
                          "baseline_upload_errors": baseline.outcome.upload_errors[:10]}, indent=1), flush=True)
        result = {
            "documents": args.documents, "seed": args.seed, "faster": args.faster,
            "uploaded": chaos.outcome.attempted, "accepted": len(chaos.outcome.accepted),
            "refused": chaos.outcome.refused,
            "reprocessed": chaos.outcome.reprocessed,
            "done": report["versions"].get("done", 0), "failed": report["versions"].get("failed", 0),
            "lost": total(report["lost"]),
            "unanswered": len(chaos.outcome.upload_errors) + len(items) - chaos.outcome.attempted,
            "duplicated": total(report["duplicated"]),
            "stuck": total(report["stuck"]) + (0 if chaos_quiet else 1),
            "credit_leaks": total(report["credit_leaks"]),
            "orphans": total(report["orphans"]),
            "baseline_clean": all(total(report_part) == 0 for key, report_part in baseline_report.items()
                                  if key in ("lost", "duplicated", "stuck", "credit_leaks", "orphans"))
            and baseline_quiet and not baseline.outcome.upload_errors and baseline.outcome.attempted == len(items),
            "faults_injected": sum(injector.done.values()), "fault_errors": len(injector.errors),
            "baseline_seconds": round(baseline_seconds, 1), "faults_seconds": round(chaos_seconds, 1),
            "ratio": round(chaos_seconds / baseline_seconds, 2),
            "llm_replies": dict(llm_faults.counts),
        }
    finally:
        llm.stop()
        moto.close()
        with contextlib.suppress(subprocess.CalledProcessError):
            pg.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(pg_dir, ignore_errors=True)
    print(json.dumps(result), flush=True)
    counts = ("lost", "duplicated", "stuck", "credit_leaks", "orphans")
    clean = all(result[name] == 0 for name in counts) and result["unanswered"] == 0 and result["fault_errors"] == 0
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
