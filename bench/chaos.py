"""Proof under fire (issue 11): a workload run twice, without faults and then with faults injected
from outside, and a checker that reads the database and the storage once everything is quiet.

    python -m bench.chaos                          # 1,000 documents (`make chaos`)
    python -m bench.chaos --documents 100 --faster --seed 7

It starts everything itself, as real processes:
- its own PostgreSQL 15 cluster (initdb in a temporary directory; as root the cluster runs as the
  `postgres` OS user through runuser), trust auth on 127.0.0.1, a free port. fsync is off: the run
  restarts PostgreSQL with a fast shutdown (a clean checkpoint), it never crashes the machine;
- moto's S3 server as a separate process (`python -m moto.server`). "S3 down" is SIGSTOP of that
  process for 10 s, then SIGCONT: clients connect (the kernel still accepts) and hang until it
  answers, which is how an unreachable endpoint behaves. Restarting moto would lose its objects
  (it keeps them in memory), so it is stopped, not killed;
- the OpenAI-compatible test server (tests/support/openai_server.py) in this process: during the fault run
  a request may get 429 with Retry-After 1 s or 1e17 s, 500 (also with control characters in the
  error text), 400 with a NUL byte in the error text, a hang past the client's timeout, or a 200
  whose body is cut-off JSON; the rest get a valid (empty) answer. Each kind comes at a seeded
  random share AND, besides, a quota of each kind for the local workers and for the remote one
  (told apart by their API keys) at seeded request numbers: every kind certainly happens for both;
- `tenderflow serve`, two local workers (`worker --pool all`) and one remote worker
  (`worker --remote URL --pool all`, a worker token, no database), configured by environment; a
  process that ends on its own is started again (the orchestrator's part), its exit code noted.

Three tenants with credits and caps upload born-digital multi-page tenders, some scans and a few
hostile PDFs (encrypted, truncated, a page-size bomb), through the CLI and the HTTP API; some
documents are reprocessed (CLI and API, from OCR and from extraction, each way at least once): asked
at once, while their first version runs, and again once it is over, until a version starts. Faults on
a seeded schedule, printed before the fault run: SIGKILL of a worker process every --kill-every
seconds (in rounds that kill each one once, each restarted at once, as an orchestrator would),
PostgreSQL fast-restarted twice, S3 stopped 10 s twice, the API server SIGKILLed and restarted once,
the LLM faults throughout. The schedule spans the duration of the fault-free run (which runs first),
so the faults land while the work is in flight. The run fails when a declared fault did not happen
(`faults_missing`: a kind injected fewer times than scheduled, a worker never killed, no kill landing
on a process that held a job, an LLM kind short of its quota for a caller).

When the queue is quiet, the checker (chaos_checker.py: its counts are listed there) counts lost,
duplicated, stuck, credit_leaks and orphans, each of which must be 0; and, apart, `unanswered`: a
file of the workload never sent, or an upload or reprocess never answered within 15 minutes. It
reports besides, without failing the run: `failed_unexpectedly` (a version failed for a reason the
workload does not explain: not its hostile PDF, not credits, not the LLM's 400) and
`leaked_processes` (poppler / tesseract processes still alive once the run is quiet; this process
is a child subreaper, so those orphaned by a killed worker are counted too). The last line printed
is one JSON object; the exit code is 0 when every gating count is 0.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
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
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import boto3
import httpx
import psycopg

from bench.chaos_checker import (
    SECTIONS,
    TOOL_NAMES,
    Expected,
    OrphanWatch,
    become_subreaper,
    check_state,
    leaked_tool_processes,
    nonzero,
    reap_orphans,
    totals,
)
from bench.textlayer_throughput import make_tender
from tenderflow.extraction.schema import TenderFields
from tenderflow.stages.compute import STAGES
from tests.support.openai_server import (
    OpenAIServer,
    RecordedRequest,
    Reply,
    completion,
    error_reply,
    rate_limited,
)
from tests.support.pdf_fixtures import blank_pages_pdf, encrypted_pdf, truncated_pdf
from tests.support.tender_fixtures import scanned_pdf

ROOT = Path(__file__).resolve().parent.parent

# The system PostgreSQL 15, else the binaries bundled with pgserver (a dependency).
_PYTHON = f"python{sys.version_info.major}.{sys.version_info.minor}"
PG_BINS = (Path("/usr/lib/postgresql/15/bin"),
           Path(sys.prefix) / "lib" / _PYTHON / "site-packages/pgserver/pginstall/bin")
PG_BIN = next((path for path in PG_BINS if (path / "initdb").exists()), PG_BINS[0])
TENANTS = ("alpha", "beta", "gamma")
BUCKET = "chaos"
LLM_TIMEOUT = 3.0
MAX_ATTEMPTS = 6
S3_OUTAGE_SECONDS = 10.0
KILL_STATES = ("killed", "holding_jobs", "ready_idle", "starting", "unknown", "instead_of_one_starting", "hunted")
HARNESS_STARTED = "harness.started"  # the line the harness writes in a process's log before starting it
READY_EVENTS = ("worker.started", "remote.started", "Application startup complete.")
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
    """Answers valid empty fields. During the fault run a request may get a fault instead, two ways:

    - a seeded random share of the requests, for each kind (`SHARES`);
    - besides it, a quota of each kind for each caller (the local workers, the remote one: told apart
      by the API key each is configured with), at seeded request numbers within the first 60% of
      the requests that caller made in the fault-free run (`plan`), so that every kind happens for
      both, whatever the random draws; what is left when the fault schedule ends (`catch_up`) goes
      to that caller's next requests. A kind that still did not happen fails the run (`missing`).
    """

    SHARES: dict[str, float] = {"rate_limited": 0.08, "server_error": 0.06, "hang": 0.03, "malformed": 0.04,
                                "odd_bytes_500": 0.03, "nul_400": 0.015, "huge_retry_after": 0.01}
    CALLERS = ("local", "remote")
    REMOTE_KEY = "chaos-remote"

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(f"llm/{seed}")  # noqa: S311 - a fault schedule, not a secret
        self.lock = threading.Lock()
        self.faulty = threading.Event()
        self.catch_up = threading.Event()
        self.quota = 0
        self.planned: dict[str, dict[int, str]] = {caller: {} for caller in self.CALLERS}
        self.requests: dict[str, int] = dict.fromkeys(self.CALLERS, 0)
        self.counts: dict[str, dict[str, int]] = {caller: {} for caller in self.CALLERS}

    def plan(self, quota: int) -> dict[str, dict[int, str]]:
        """Place `quota` of each kind per caller among the requests to come, from the numbers the
        fault-free run made; start counting afresh. Returns the plan (caller -> request number -> kind)."""
        rng = random.Random(f"llm-quota/{self.seed}")  # noqa: S311
        with self.lock:
            self.quota = quota
            for caller in self.CALLERS:
                deck = [kind for kind in self.SHARES for _ in range(quota)]
                rng.shuffle(deck)
                window = max(2 * len(deck), int(0.6 * self.requests[caller]))
                self.planned[caller] = dict(zip(sorted(rng.sample(range(1, window + 1), len(deck))), deck,
                                                strict=True))
            self.requests = dict.fromkeys(self.CALLERS, 0)
            self.counts = {caller: {} for caller in self.CALLERS}
            return {caller: dict(planned) for caller, planned in self.planned.items()}

    def caller_of(self, request: RecordedRequest) -> str:
        return "remote" if request.headers.get("authorization") == f"Bearer {self.REMOTE_KEY}" else "local"

    def _kind(self, caller: str) -> str:
        draw = self.rng.random()
        self.requests[caller] += 1
        if not self.faulty.is_set():
            return "ok"
        planned = self.planned[caller]
        if self.requests[caller] in planned:
            return planned.pop(self.requests[caller])
        if self.catch_up.is_set() and planned:
            return planned.pop(min(planned))
        edge = 0.0
        for name, share in self.SHARES.items():
            edge += share
            if draw < edge:
                return name
        return "ok"

    def __call__(self, request: RecordedRequest) -> Reply:
        caller = self.caller_of(request)
        with self.lock:
            kind = self._kind(caller)
            self.counts[caller][kind] = self.counts[caller].get(kind, 0) + 1
        if kind == "rate_limited":
            return rate_limited(retry_after="1")
        if kind == "huge_retry_after":  # review D1 (R8, "timestamp out of range") and D6 (R9)
            return rate_limited(retry_after="100000000000000000")
        if kind == "server_error":
            return error_reply(500, "The server had an error while processing your request.")
        if kind == "hang":
            return Reply(body=completion(EMPTY_ANSWER).body, delay_seconds=LLM_TIMEOUT + 2)
        if kind == "malformed":
            return Reply(status=200, body='{"id": "chatcmpl-cut", "object": "chat.completion", "choices": [{"mess')
        if kind == "odd_bytes_500":
            return error_reply(500, "upstream \x1b[31mexploded\x07 \x01\x02\x7f \u202e reversed")
        if kind == "nul_400":  # review D1 (R7 local, R10 remote)
            return error_reply(400, "bad request \x00 with a NUL \x1b]0;title\x07")
        return completion(EMPTY_ANSWER)

    def tally(self) -> dict[str, dict[str, int]]:
        """kind -> caller -> how many replies of that kind, for the fault kinds and "ok"."""
        with self.lock:
            return {kind: {caller: self.counts[caller].get(kind, 0) for caller in self.CALLERS}
                    for kind in ("ok", *self.SHARES)}

    def missing(self) -> list[str]:
        """The fault kinds a caller got fewer of than its quota."""
        tally = self.tally()
        return [f"llm {kind} to the {caller} workers" for kind in self.SHARES for caller in self.CALLERS
                if tally[kind][caller] < max(self.quota, 1)]


# --- processes -------------------------------------------------------------------------------------


class Service:
    """One long-running tenderflow process, restartable; logs appended to one file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.name, self.argv, self.env = name, argv, env
        self.log_path = log_dir / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.lock = threading.Lock()
        self.exits: list[int] = []  # exit codes of the times it ended on its own (not killed by us)

    def _start(self) -> None:
        with self.log_path.open("ab") as out:
            out.write(json.dumps({"event": HARNESS_STARTED, "timestamp": time.time()}).encode() + b"\n")
            out.flush()
            self.process = subprocess.Popen(self.argv, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def startups(self) -> tuple[list[float], int]:
        """From its log: the seconds each start took until the process said it was ready (a worker
        registered, the API serving), and how many starts never got there (killed first)."""
        seconds: list[float] = []
        never = 0
        started: float | None = None
        for line in self.log_path.read_text(errors="replace").splitlines():
            if not line.startswith("{"):
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if entry.get("event") == HARNESS_STARTED:
                never += started is not None
                started = float(entry["timestamp"])
            elif entry.get("event") in READY_EVENTS and started is not None:
                ready = datetime.fromisoformat(str(entry["timestamp"]).replace("Z", "+00:00")).timestamp()
                seconds.append(round(ready - started, 2))
                started = None
        return seconds, never

    def start(self) -> None:
        with self.lock:
            self._start()

    def pid(self) -> int | None:
        """The process's id while it runs."""
        process = self.process
        return process.pid if process is not None and process.poll() is None else None

    def kill_and_restart(self, pause: float = 0.0) -> bool:
        """SIGKILL the process, then start it again after `pause` seconds, as one step (so that
        `ensure_running` cannot start a second one in between). False when it was not running
        (then it is only started)."""
        with self.lock:
            killed = self.process is not None and self.process.poll() is None
            if killed:
                assert self.process is not None
                self.process.send_signal(signal.SIGKILL)
                self.process.wait()
                time.sleep(pause)
            elif self.process is not None:
                self.exits.append(self.process.returncode)
            self._start()
            return killed

    def ensure_running(self) -> None:
        """Start it again if it ended on its own, as an orchestrator would (its exit code is kept)."""
        with self.lock:
            if self.process is not None and self.process.poll() is None:
                return
            if self.process is not None and self.process.returncode != -signal.SIGKILL:
                self.exits.append(self.process.returncode)
            self._start()

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
    reprocess_from: str = "ocr"  # or "extract"
    delete: str | None = None  # None, or "cli"/"api": deleted at once after its upload, while it runs

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
        if kind in ("truncated", "bomb"):
            # two made in the same second would be the same bytes (one document, "existing"): a comment
            # at the end makes each its own (a truncated file stays truncated, a bomb still opens)
            with path.open("ab") as pdf:
                pdf.write(f"\n%chaos {seed}-{number}\n".encode())
        tenant = TENANTS[number % 3]
        via = "cli" if tenant == "alpha" or (tenant == "gamma" and number % 2 == 0) else "api"
        reprocess = rng.choice(("cli", "api")) if kind == "digital" and rng.random() < 0.06 else None
        items.append(Item(number, path, kind, tenant, via, reprocess, rng.choice(("ocr", "extract"))))
    shutil.rmtree(scratch)
    # Every way to reprocess (CLI or API, from OCR or from extraction) at least once, whatever the draws.
    for how in (("cli", "ocr"), ("cli", "extract"), ("api", "ocr"), ("api", "extract")):
        if not any((item.reprocess, item.reprocess_from) == how for item in items):
            spare = [i for i, item in enumerate(items) if item.kind == "digital" and item.reprocess is None]
            if spare:
                chosen = rng.choice(spare)
                items[chosen] = dataclasses.replace(items[chosen], reprocess=how[0], reprocess_from=how[1])
    # 1% of the others deleted (tenderflow documents delete or DELETE /v1/documents), each way at least once
    spare = [i for i, item in enumerate(items) if item.kind == "digital" and item.reprocess is None]
    chosen = rng.sample(spare, min(len(spare), max(2, len(items) // 100)))
    for n, index in enumerate(chosen):
        items[index] = dataclasses.replace(items[index], delete=("cli", "api")[n % 2])
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
    targets: list[str] = []
    while at < span:
        if not targets:  # in rounds that kill each worker once, in a seeded order: none is spared
            targets = rng.sample(workers, len(workers))
        faults.append(Fault(at, "kill_worker", targets.pop()))
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
    reprocessed: int = 0  # reprocesses that started a new version
    reprocess_answers: dict[str, int] = field(default_factory=dict)  # created, in flight, refused, no pages
    reprocess_log: list[str] = field(default_factory=list)  # "document tenant way from: answer", each answer
    versions: dict[int, int] = field(default_factory=dict)  # document id -> versions it should have
    deleted: set[int] = field(default_factory=set)  # documents the workload deleted (answered)
    delete_answers: dict[str, int] = field(default_factory=dict)  # deleted, not found (an earlier try did)
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
        self.answer_deadline = 900.0  # an upload or reprocess not answered by then is `unanswered`

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
            "TENDERFLOW_LLM_MAX_RETRIES": "2", "TENDERFLOW_EXTRACTION": "openai",  # every document meets the faults
            "TENDERFLOW_LEASE_SECONDS": "6", "TENDERFLOW_HEARTBEAT_SECONDS": "2", "TENDERFLOW_POLL_SECONDS": "0.5",
            "TENDERFLOW_MAINTENANCE_SECONDS": "1", "TENDERFLOW_BACKOFF_BASE_SECONDS": "0.5",
            "TENDERFLOW_BACKOFF_CAP_SECONDS": "4", "TENDERFLOW_MAX_ATTEMPTS": str(MAX_ATTEMPTS),
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
        # its own LLM key, by which the LLM server tells its requests from the local workers'
        return {**{k: v for k, v in self.env.items() if k not in hidden},
                "TENDERFLOW_LLM_API_KEY": FaultyLLM.REMOTE_KEY}

    def start_services(self) -> None:
        self.services["api"].start()
        wait_for_port(self.api_port)
        for name in ("worker-1", "worker-2", "remote"):
            self.services[name].start()

    # uploads and reprocesses -------------------------------------------------------------------

    def _retrying(self, what: str, attempt: Callable[[], bool]) -> bool:
        """Call `attempt` until it returns True (done) or the deadline passes; exceptions and False
        mean "try again" (the API or the database may be down for a while)."""
        end = time.monotonic() + self.answer_deadline
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
                raise RuntimeError(f"upload exit {result.returncode}: {(result.stdout + result.stderr)[-300:]}")
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

    def reprocess(self, client: httpx.Client, item: Item, document_id: int) -> str:
        """Ask for a new version (CLI or API, from OCR or extraction, as the item says). Returns the
        answer: created, in flight (a version is still running: none started), refused (credits),
        no pages (from extraction, but no version finished its OCR), or unanswered."""
        answer: list[str] = []

        def attempt() -> bool:
            if item.reprocess == "cli":
                result = tenderflow(self.env, "reprocess", str(document_id), "--from", item.reprocess_from)
                # Its answer on stdout, its one-line error on stderr (among the log lines).
                if result.returncode == 0:
                    answer.append("in flight" if "already in flight" in result.stdout else "created")
                elif "credit" in result.stderr:
                    answer.append("refused")
                elif "no finished OCR" in result.stderr:
                    answer.append("no pages")
                else:
                    raise RuntimeError((result.stdout + result.stderr)[-300:])
                return True
            response = client.post(f"{self.api_url}/v1/documents/{document_id}/reprocess",
                                   headers={"Authorization": f"Bearer {self.keys[item.tenant]}"},
                                   json={"start_from": item.reprocess_from})
            if response.status_code == 202:
                answer.append("created" if response.json()["created"] else "in flight")
                return True
            if response.status_code in (402, 409):
                answer.append("refused" if response.status_code == 402 else "no pages")
                return True
            if response.status_code >= 500:
                return False
            raise RuntimeError(f"{response.status_code} {response.text[:200]}")

        if not self._retrying(f"reprocess {document_id}", attempt):
            return "unanswered"
        with self.outcome.lock:
            self.outcome.reprocess_answers[answer[0]] = self.outcome.reprocess_answers.get(answer[0], 0) + 1
            self.outcome.reprocess_log.append(f"{document_id} {item.tenant} {item.reprocess} from "
                                              f"{item.reprocess_from}: {answer[0]}")
            if answer[0] == "created":
                self.outcome.reprocessed += 1
                self.outcome.versions[document_id] = self.outcome.versions.get(document_id, 1) + 1
        return answer[0]

    def delete(self, client: httpx.Client, item: Item, document_id: int) -> None:
        """Delete the document (CLI or API, as the item says), until answered. "not found" is an
        answer too: an earlier try went through, and its answer was lost (the API killed)."""
        answer: list[str] = []

        def attempt() -> bool:
            if item.delete == "cli":
                result = tenderflow(self.env, "documents", "delete", str(document_id), "--yes", "--json")
                if result.stdout.strip().startswith("["):  # exit 1 when not found: still an answer
                    answer.append(str(json.loads(result.stdout)[0]["result"]))
                    return True
                raise RuntimeError((result.stdout + result.stderr)[-300:])
            response = client.delete(f"{self.api_url}/v1/documents/{document_id}",
                                     headers={"Authorization": f"Bearer {self.keys[item.tenant]}"})
            if response.status_code in (200, 404):
                answer.append("deleted" if response.status_code == 200 else "not found")
                return True
            if response.status_code >= 500:
                return False
            raise RuntimeError(f"{response.status_code} {response.text[:200]}")

        if self._retrying(f"delete {document_id}", attempt):
            with self.outcome.lock:
                self.outcome.deleted.add(document_id)
                self.outcome.delete_answers[answer[0]] = self.outcome.delete_answers.get(answer[0], 0) + 1

    def latest_version_final(self, client: httpx.Client, item: Item, document_id: int) -> bool:
        """Whether the document's latest version is done or failed (False when the API is down)."""
        try:
            response = client.get(f"{self.api_url}/v1/documents/{document_id}",
                                  headers={"Authorization": f"Bearer {self.keys[item.tenant]}"})
        except httpx.HTTPError:
            return False
        return response.status_code == 200 and response.json()["state"] in ("done", "failed")

    def run_workload(self, items: list[Item]) -> None:
        """Upload everything (CLI batches in one thread, the API from three), reprocessing the
        chosen documents soon after their upload. Returns when every request is answered."""
        later: list[tuple[Item, int]] = []
        later_lock = threading.Lock()

        def remember(item: Item, document_id: int | None) -> None:
            if document_id is not None and (item.reprocess is not None or item.delete is not None):
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
            """Each chosen document is asked for again at once, while its first version runs (the
            answer is then "in flight"), and again once that version is over, until a version starts
            (or credits or pages are refused): every document chosen gets its second version. The
            documents to delete are deleted at once. Up to 4 requests at a time, as independent
            clients would send them (one after the other, the CLI's start-ups made a queue of their
            own at the end of the fault run, when most first versions end together)."""
            waiting: list[tuple[Item, int, float]] = []  # (item, document, first asked)
            pending: list[Future[tuple[Item, int, float, str]]] = []

            def ask(client: httpx.Client, item: Item, document_id: int, asked: float) -> tuple[Item, int, float, str]:
                if item.delete is not None:
                    self.delete(client, item, document_id)
                    return item, document_id, asked, "deleted"
                return item, document_id, asked, self.reprocess(client, item, document_id)

            with httpx.Client(timeout=60) as client, ThreadPoolExecutor(max_workers=4) as requests:
                while True:
                    with later_lock:
                        todo = [(item, document_id, time.monotonic()) for item, document_id in later]
                        later.clear()
                    todo += [entry for entry in waiting if self.latest_version_final(client, entry[0], entry[1])]
                    waiting = [entry for entry in waiting if entry not in todo]
                    pending += [requests.submit(ask, client, *entry) for entry in todo]
                    for future in [future for future in pending if future.done()]:
                        pending.remove(future)
                        try:
                            item, document_id, asked, answer = future.result()
                        except Exception as exc:  # noqa: BLE001 - counted (unanswered), never the end of the others
                            error = f"reprocess or delete: {type(exc).__name__}: {exc}"
                            with self.outcome.lock:
                                self.outcome.upload_errors.append(error[:300])
                            continue
                        if answer != "in flight":
                            continue
                        if time.monotonic() - asked < self.answer_deadline:
                            waiting.append((item, document_id, asked))
                        else:
                            with self.outcome.lock:
                                self.outcome.upload_errors.append(
                                    f"reprocess {document_id}: still in flight after {self.answer_deadline:.0f} s")
                    if not pending and not waiting and not any(t.is_alive() for t in uploaders):
                        with later_lock:
                            if not later:
                                return
                    time.sleep(0.5)

        # one CLI uploader per tenant that uses it: each `tenderflow upload` process spends seconds starting
        # daemon threads: a run ended early (SIGTERM) does not wait for their requests
        uploaders = [threading.Thread(target=cli_uploader, args=(tenant,), name=f"cli-uploader-{tenant}", daemon=True)
                     for tenant in TENANTS if any(item.via == "cli" and item.tenant == tenant for item in items)]
        uploaders += [threading.Thread(target=api_uploader, args=(part,), name=f"api-uploader-{part}", daemon=True)
                      for part in range(3)]
        for thread in uploaders:
            thread.start()
        reprocessing = threading.Thread(target=reprocessor, args=(uploaders,), name="reprocessor", daemon=True)
        reprocessing.start()
        for thread in uploaders:
            thread.join()
        reprocessing.join()

    # quiet -------------------------------------------------------------------------------------

    def final_versions(self) -> int | None:
        """Versions done or failed so far; None when the database does not answer."""
        try:
            with psycopg.connect(self.pg.url(self.database), connect_timeout=3) as conn:
                row = conn.execute(
                    "SELECT count(*) FROM document_versions WHERE state IN ('done', 'failed')").fetchone()
                return int(row[0]) if row else None
        except psycopg.Error:
            return None

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
        # the remote worker first, while the API it gives its leases back to still answers
        for name in ("remote", "worker-1", "worker-2", "api"):
            if name in self.services:
                self.services[name].stop()

    # the checker -------------------------------------------------------------------------------

    def check(self, items: list[Item]) -> dict[str, Any]:
        """The checker's report on this run's quiet state (chaos_checker.check_state), with the
        failed versions the workload did not ask for."""
        s3 = s3_client(self.moto.endpoint)
        keys: set[str] = set()
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket):
            keys.update(obj["Key"] for obj in page.get("Contents", []))
        with self.outcome.lock:
            expected = Expected(documents=dict(self.outcome.accepted), versions=dict(self.outcome.versions),
                                deleted=frozenset(self.outcome.deleted), max_attempts=MAX_ATTEMPTS,
                                stage_types=tuple(stage.name for stage in STAGES))
        with psycopg.connect(self.pg.url(self.database), autocommit=True) as conn:
            report = check_state(conn, keys, bucket=self.bucket, expected=expected)
            failed = conn.execute("SELECT d.sha256, v.error FROM document_versions v"
                                  " JOIN documents d ON d.id = v.document_id WHERE v.state = 'failed'").fetchall()
            report["balances"] = dict(conn.execute("SELECT name, balance FROM tenants WHERE NOT unlimited"
                                                   " ORDER BY name").fetchall())
        kinds = {item.sha256: item.kind for item in items}
        unexpected = [f"{kinds.get(sha, '?')}: {error[:200]}" for sha, error in failed
                      if not expected_failure(kinds.get(sha, "?"), str(error))]
        report["failed_unexpectedly"] = unexpected[:20]
        report["failed_unexpectedly_count"] = len(unexpected)
        return report


# A version may fail for these reasons only: its PDF is hostile (each kind for its own reason), its
# tenant ran out of credits, or the LLM answered a 400 (the fault run's nul_400: a client error is
# permanent). Any other failure is one the faults caused and the product should have survived.
HOSTILE_REASONS = {"encrypted": "encrypted", "truncated": "cannot be read", "bomb": "pixels"}
CREDIT_REASON = "credits"
LLM_REFUSED_REASON = "the LLM endpoint rejected the request: HTTP 400"


def expected_failure(kind: str, error: str) -> bool:
    if kind in HOSTILE_REASONS:
        return HOSTILE_REASONS[kind] in error
    return CREDIT_REASON in error or LLM_REFUSED_REASON in error


# --- the fault injector ----------------------------------------------------------------------------


class Injector(threading.Thread):
    """Injects the schedule's faults at their times and counts those that happened: a kill counts
    only when its process was running, and it is noted whether that process held jobs then (a kill
    between jobs, or of a process still starting, tests less)."""

    def __init__(self, run: Run, schedule: list[Fault], pg: Postgres, moto: MotoServer, seed: int) -> None:
        super().__init__(name="fault-injector", daemon=True)
        self.run_, self.schedule, self.pg, self.moto = run, schedule, pg, moto
        self.done: dict[str, int] = {}
        self.kills: dict[str, dict[str, int]] = {}  # target -> KILL_STATES
        self.rng = random.Random(f"kill-targets/{seed}")  # noqa: S311
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.finished: float | None = None

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
        self._hunt()
        self.finished = time.monotonic()

    def _hunt(self, deadline_seconds: float = 180.0) -> None:
        """After the schedule: each worker that was never killed while it held a job is watched
        until it holds one, and killed then (a kill mid-job is the fault that tests leases and
        commits; under load most scheduled kills find a process still starting)."""
        targets = sorted({fault.target for fault in self.schedule if fault.kind == "kill_worker"})
        deadline = time.monotonic() + deadline_seconds
        while time.monotonic() < deadline:
            wanted = [t for t in targets if not self.kills.get(t, {}).get("holding_jobs")]
            if not wanted:
                return
            pids = {t: pid for t in wanted if (pid := self.run_.services[t].pid()) is not None}
            holding = [t for t, (_workers, running) in self._states(pids).items() if running] if pids else []
            if holding:
                self._kill_worker(holding[0], hunted=True)
            else:
                time.sleep(0.3)

    def _states(self, pids: dict[str, int]) -> dict[str, tuple[int, int]]:
        """For each process (name -> pid): (its worker rows, its running jobs), from worker ids, which
        hold host:pid:nonce; {} while the database does not answer."""
        try:
            with psycopg.connect(self.pg.url(self.run_.database), connect_timeout=2) as conn:
                rows = conn.execute(
                    "SELECT p.pattern, (SELECT count(*) FROM workers w WHERE w.id LIKE p.pattern),"
                    " (SELECT count(*) FROM jobs j WHERE j.state = 'running' AND j.worker_id LIKE p.pattern)"
                    " FROM unnest(%(patterns)s::text[]) AS p(pattern)",
                    {"patterns": [f"%:{pid}:%" for pid in pids.values()]}).fetchall()
        except psycopg.Error:
            return {}
        by_pattern = {str(pattern): (int(workers), int(running)) for pattern, workers, running in rows}
        return {name: by_pattern.get(f"%:{pid}:%", (0, 0)) for name, pid in pids.items()}

    def _count(self, kind: str) -> None:
        with self.lock:
            self.done[kind] = self.done.get(kind, 0) + 1

    def _inject(self, fault: Fault) -> None:
        try:
            if fault.kind == "kill_worker":
                self._kill_worker(fault.target)
                return
            elif fault.kind == "api_kill":
                if not self.run_.services["api"].kill_and_restart(pause=1.0):
                    return
            elif fault.kind == "pg_restart":
                self.pg.stop()
                time.sleep(1.0)
                self.pg.start()
            elif fault.kind == "s3_outage":
                self.moto.pause()
                time.sleep(S3_OUTAGE_SECONDS)
                self.moto.resume()
            self._count(fault.kind)
            log(f"fault: {fault.describe()}")
        except Exception as exc:  # noqa: BLE001 - a fault that could not be injected is reported, not fatal
            with self.lock:
                self.errors.append(f"{fault.describe()}: {exc}")

    def _kill_worker(self, scheduled: str, *, hunted: bool = False) -> None:
        """SIGKILL a worker process and start it again. The schedule names one; when that one is not
        ready yet (still starting: no worker row) and another is, a seeded choice among the ready
        ones is killed instead: a kill should land on a process at work, not on one still importing."""
        names = [fault.target for fault in self.schedule if fault.kind == "kill_worker"]
        pids = {name: pid for name in dict.fromkeys(names) if (pid := self.run_.services[name].pid()) is not None}
        states = self._states(pids) if pids else {}
        ready = sorted(name for name, (workers, _running) in states.items() if workers > 0)
        target = scheduled if scheduled in ready or not ready else self.rng.choice(ready)
        state = states.get(target)
        # "unknown": the database did not answer
        was = ("unknown" if state is None else "holding_jobs" if state[1] else "ready_idle" if state[0]
               else "starting")
        if not self.run_.services[target].kill_and_restart():
            return
        with self.lock:
            tally = self.kills.setdefault(target, dict.fromkeys(KILL_STATES, 0))
            tally["killed"] += 1
            tally[was] += 1
            tally["instead_of_one_starting"] += target != scheduled
            tally["hunted"] += hunted
        self._count("kill_worker")
        log(f"fault: SIGKILL {target}" + (f" (for {scheduled}, still starting)" if target != scheduled else "")
            + (" (after the schedule: it had never been killed holding a job)" if hunted else "")
            + f", restart: it was {was}")

    def missing(self) -> list[str]:
        """The scheduled faults that did not happen: every kind as often as scheduled, and each
        worker killed at least once while it held a job."""
        scheduled: dict[str, int] = {}
        for fault in self.schedule:
            scheduled[fault.kind] = scheduled.get(fault.kind, 0) + 1
        missing = [f"{kind}: {self.done.get(kind, 0)} of {count}" for kind, count in sorted(scheduled.items())
                   if self.done.get(kind, 0) < count]
        targets = sorted({fault.target for fault in self.schedule if fault.kind == "kill_worker"})
        missing += [f"kill_worker {target}: never killed while it held a job" for target in targets
                    if not self.kills.get(target, {}).get("holding_jobs")]
        return missing


# --- main ------------------------------------------------------------------------------------------


@dataclass
class Phase:
    """One run of the workload: its processes' outcome, how long until quiet, what was left alive."""

    run: Run
    seconds: float = 0.0
    quiet: bool = False
    injector: Injector | None = None
    leaked: list[dict[str, Any]] = field(default_factory=list)
    load: list[float] = field(default_factory=list)  # the 1-minute load average at the start and the end
    progress: list[tuple[float, int]] = field(default_factory=list)  # (seconds in, versions final)
    schedule_seconds: float | None = None  # when the fault schedule was over

    def timeline(self) -> dict[str, Any]:
        """When a quarter, half, three quarters and all of the versions were final; and, with faults,
        how many were by the end of the schedule."""
        if not self.progress:
            return {}
        total = self.progress[-1][1]
        marks = {f"{share}%": next((t for t, final in self.progress if final >= total * share / 100), None)
                 for share in (25, 50, 75, 100)}
        if self.schedule_seconds is not None:
            marks["final_when_schedule_ended"] = max(
                (final for t, final in self.progress if t <= self.schedule_seconds), default=0)
            marks["schedule_seconds"] = round(self.schedule_seconds, 1)
        return {"versions": total, **marks}

    @property
    def exits(self) -> dict[str, list[int]]:
        return {name: service.exits for name, service in self.run.services.items() if service.exits}

    def startups(self) -> dict[str, dict[str, float]]:
        """Per process: how many starts, the median and the longest time to ready, and how many
        starts were killed before they were ready."""
        summary = {}
        for name, service in self.run.services.items():
            seconds, never = service.startups()
            ordered = sorted(seconds)
            summary[name] = {"starts": len(seconds) + never, "killed_before_ready": never,
                             "median_seconds": ordered[len(ordered) // 2] if ordered else 0.0,
                             "max_seconds": ordered[-1] if ordered else 0.0}
        return summary


def supervise(phase: Phase, watch: OrphanWatch, stop: threading.Event, started: float) -> None:
    """The orchestrator: every second, start again what ended on its own; and meanwhile watch the
    tool processes reparented to this one (and collect those that ended), and every 5 s note how
    many versions are final (the phase's progress)."""
    run = phase.run
    beat = 0
    while not stop.wait(1.0):
        for service in run.services.values():
            service.ensure_running()
        watch.sample()
        reap_orphans(watch.root, TOOL_NAMES | {"postgres"})
        beat += 1
        if beat % 5 == 0 and (final := run.final_versions()) is not None:
            phase.progress.append((round(time.monotonic() - started, 1), final))


def run_phase(name: str, items: list[Item], pg: Postgres, moto: MotoServer, llm: OpenAIServer, work: Path,
              schedule: list[Fault] | None, quiet_timeout: float, watch: OrphanWatch, seed: int = 0,
              schedule_done: Callable[[], None] = lambda: None) -> Phase:
    run = Run(name, pg, moto, llm, work, len(items))
    run.setup(items)
    phase = Phase(run, load=[round(os.getloadavg()[0], 2)])
    stop = threading.Event()
    orchestrator: threading.Thread | None = None
    try:
        run.start_services()
        time.sleep(1.0)
        started = time.monotonic()
        orchestrator = threading.Thread(target=supervise, args=(phase, watch, stop, started), name="orchestrator",
                                        daemon=True)
        orchestrator.start()
        if schedule is not None:
            phase.injector = Injector(run, schedule, pg, moto, seed)
            phase.injector.start()
        run.run_workload(items)
        log(f"{name}: uploads answered after {time.monotonic() - started:.1f} s ({run.outcome.attempted} sent, "
            f"{len(run.outcome.accepted)} accepted, {run.outcome.refused} refused, "
            f"{run.outcome.reprocessed} reprocessed)")
        if phase.injector is not None:
            phase.injector.join()
            phase.schedule_seconds = (phase.injector.finished or time.monotonic()) - started
            log(f"{name}: fault schedule over after {phase.schedule_seconds:.1f} s")
        schedule_done()
        phase.quiet = run.wait_quiet(quiet_timeout)
        phase.seconds = time.monotonic() - started
        if (final := run.final_versions()) is not None:
            phase.progress.append((round(phase.seconds, 1), final))
        phase.leaked = leaked_tool_processes(os.getpid())
        phase.load.append(round(os.getloadavg()[0], 2))
        log(f"{name}: {'quiet' if phase.quiet else 'NOT quiet'} after {phase.seconds:.1f} s, "
            f"{len(phase.leaked)} tool processes alive, load {phase.load}")
    finally:
        stop.set()
        if orchestrator is not None:
            orchestrator.join()
        run.stop_services()
    return phase


def clean(report: dict[str, Any], phase: Phase, items: list[Item]) -> bool:
    outcome = phase.run.outcome
    return (all(count == 0 for count in totals(report).values()) and phase.quiet and not outcome.upload_errors
            and outcome.attempted == len(items))


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
    # SIGTERM (a background run cannot be interrupted with SIGINT) ends it cleanly: the finally
    # blocks stop the services, the LLM and S3 servers and the cluster
    signal.signal(signal.SIGTERM, lambda _signal, _frame: sys.exit(143))
    kill_every = args.kill_every or (1.5 if args.faster else 2.0)
    llm_quota = max(1, args.documents // 500)

    work = Path(tempfile.mkdtemp(prefix="tenderflow-chaos-"))
    pg_dir = Path(tempfile.mkdtemp(prefix="tenderflow-chaos-pg-"))
    subreaper = become_subreaper()
    log(f"work directory {work} (PostgreSQL in {pg_dir}); seed {args.seed}, {args.documents} documents; "
        f"load {os.getloadavg()[0]:.2f}; " + ("a child subreaper: tools orphaned by kills stay countable"
                                             if subreaper else "NOT a subreaper: orphaned tools go uncounted"))
    items = build_workload(args.documents, args.seed, work / "pdfs")
    kinds: dict[str, int] = {}
    for item in items:
        kinds[item.kind] = kinds.get(item.kind, 0) + 1
    reprocess_ways: dict[str, int] = {}
    for item in items:
        if item.reprocess:
            way = f"{item.reprocess} from {item.reprocess_from}"
            reprocess_ways[way] = reprocess_ways.get(way, 0) + 1
    log(f"workload: {kinds}, {sum(1 for i in items if i.reprocess)} to reprocess {reprocess_ways}, "
        f"{sum(1 for i in items if i.delete)} to delete, "
        f"{sum(1 for i in items if i.via == 'cli')} via the CLI, {sum(1 for i in items if i.via == 'api')} via the API")
    pg = Postgres(pg_dir)
    pg.init()
    pg.start()
    moto = MotoServer(work / "moto.log")
    llm_faults = FaultyLLM(args.seed)
    llm = OpenAIServer(llm_faults)
    llm.start()
    watch = OrphanWatch(os.getpid())
    result: dict[str, Any] = {}
    try:
        baseline = run_phase("baseline", items, pg, moto, llm, work, None, args.quiet_timeout, watch)
        baseline_report = baseline.run.check(items)
        schedule = fault_schedule(args.seed, baseline.seconds, kill_every, ["worker-1", "worker-2", "remote"])
        print(f"fault schedule (seed {args.seed}, over the fault-free run's {baseline.seconds:.1f} s):", flush=True)
        for fault in schedule:
            if fault.kind != "kill_worker":
                print("  " + fault.describe(), flush=True)
        kills = [f for f in schedule if f.kind == "kill_worker"]
        print(f"  and {len(kills)} worker kills, one every {kill_every} s: "
              + ", ".join(f"{f.at:.1f}:{f.target}" for f in kills), flush=True)
        baseline_requests = dict(llm_faults.requests)
        plan = llm_faults.plan(llm_quota)
        print(f"  and the LLM faults throughout: {FaultyLLM.SHARES} of requests, and besides, {llm_quota} of each "
              f"kind for each caller at these request numbers (the fault-free run made {baseline_requests}): "
              + json.dumps({caller: {str(n): kind for n, kind in sorted(p.items())} for caller, p in plan.items()}),
              flush=True)
        llm_faults.faulty.set()
        chaos = run_phase("faults", items, pg, moto, llm, work, schedule, args.quiet_timeout, watch, args.seed,
                          schedule_done=llm_faults.catch_up.set)
        llm_faults.faulty.clear()
        report = chaos.run.check(items)
        injector = chaos.injector
        assert injector is not None
        missing = injector.missing() + llm_faults.missing()
        llm_tally = llm_faults.tally()
        print(json.dumps({
            "baseline": baseline_report, "faults": report, "llm_replies": llm_tally,
            "faults_injected": injector.done, "kills": injector.kills, "faults_missing": missing,
            "fault_errors": injector.errors, "upload_errors": chaos.run.outcome.upload_errors[:10],
            "baseline_upload_errors": baseline.run.outcome.upload_errors[:10],
            "reprocess_answers": chaos.run.outcome.reprocess_answers,
            "reprocesses": chaos.run.outcome.reprocess_log, "baseline_reprocesses": baseline.run.outcome.reprocess_log,
            "delete_answers": chaos.run.outcome.delete_answers,
            "baseline_reprocess_answers": baseline.run.outcome.reprocess_answers,
            "exits": chaos.exits, "baseline_exits": baseline.exits,
            "startups": chaos.startups(), "baseline_startups": baseline.startups(),
            "timeline": chaos.timeline(), "baseline_timeline": baseline.timeline(),
            "leaked_processes": chaos.leaked, "baseline_leaked_processes": baseline.leaked,
            "orphaned_tools": watch.summary(), "nonzero": nonzero(report), "baseline_nonzero": nonzero(baseline_report),
        }, indent=1), flush=True)
        counts = totals(report)
        result = {
            "documents": args.documents, "seed": args.seed, "faster": args.faster,
            "uploaded": chaos.run.outcome.attempted, "accepted": len(chaos.run.outcome.accepted),
            "refused": chaos.run.outcome.refused, "reprocessed": chaos.run.outcome.reprocessed,
            "reprocess_answers": chaos.run.outcome.reprocess_answers,
            "deleted": len(chaos.run.outcome.deleted),
            "done": report["versions"].get("done", 0), "failed": report["versions"].get("failed", 0),
            "lost": counts["lost"],
            "unanswered": len(chaos.run.outcome.upload_errors) + len(items) - chaos.run.outcome.attempted,
            "duplicated": counts["duplicated"],
            "stuck": counts["stuck"] + (0 if chaos.quiet else 1),
            "credit_leaks": counts["credit_leaks"],
            "orphans": counts["orphans"],
            "failed_unexpectedly": report["failed_unexpectedly_count"],
            "leaked_processes": len(chaos.leaked),
            "baseline_clean": clean(baseline_report, baseline, items),
            "faults": {**{kind: injector.done.get(kind, 0) for kind in ("kill_worker", "pg_restart", "s3_outage",
                                                                       "api_kill")},
                       "kills_holding_jobs": sum(t["holding_jobs"] for t in injector.kills.values()),
                       "kills_of_starting": sum(t["starting"] for t in injector.kills.values()),
                       "llm": {kind: sum(by_caller.values()) for kind, by_caller in llm_tally.items()
                               if kind != "ok"}},
            "faults_missing": len(missing), "fault_errors": len(injector.errors),
            "exits": sum(len(codes) for codes in chaos.exits.values()),
            "baseline_seconds": round(baseline.seconds, 1), "faults_seconds": round(chaos.seconds, 1),
            "ratio": round(chaos.seconds / baseline.seconds, 2),
            "load": {"baseline": baseline.load, "faults": chaos.load},
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
    gating = (*SECTIONS, "unanswered", "faults_missing", "fault_errors")
    return 0 if result and all(result[name] == 0 for name in gating) and result["baseline_clean"] else 1


if __name__ == "__main__":
    sys.exit(main())
