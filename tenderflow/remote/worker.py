"""A remote pull worker: claims jobs over HTTP, runs the stages' compute here, posts results.

It needs no database and no storage credentials, only the API's URL and a worker token; it works
from behind NAT because it only ever calls out. Threads:

    claimer     (background) long-polls the server for as many jobs as there are free slots
    executors   `threads` of them: fetch a job's input, compute, post the result (or the failure)
    heartbeat   renews every held lease in one call, every `heartbeat_seconds` the server asks
                for; a job the server says is lost is told to stop, and posts nothing
    main        (the caller of `run`) waits for a stop, then drains and gives leases back

Server restarts and network trouble: every call is retried with capped, jittered backoff, and the
heartbeat keeps trying on its own schedule; a result waits for the server as long as the job is
not known to be lost. If the lease ran out meanwhile and the job went to another worker, the
server refuses the late result (409) and it is dropped. A refused token (revoked) stops the worker;
so does a server never reached in UNREACHABLE_TRIES tries (a wrong URL: exit 1), while one lost
after it was reached is said once (an error line) and retried.

Stopping (SIGTERM, first Ctrl-C): stop claiming, let running jobs finish within the grace period,
then hand the remaining leases back (`/v1/worker/stop`) so other workers can take them at once.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import structlog

from tenderflow import tracing
from tenderflow.config import Settings
from tenderflow.errors import LeaseLostError, PermanentError, RetryableError
from tenderflow.pdf.cache import PdfCache

# The queue's modules, not its package: the package brings the queue's worker engine, which imports
# the migrations, and a remote worker imports no database code (the contract remote-no-db).
from tenderflow.queue.backoff import Backoff
from tenderflow.queue.jobs import ClaimedJob
from tenderflow.queue.registry import JobContext, wait_for_running_jobs
from tenderflow.remote.client import (
    RemoteProtocolError,
    RemoteQueueClient,
    ResultRefusedError,
    ResultTooLargeError,
    ServerUnavailableError,
    WorkerTokenRefusedError,
)
from tenderflow.remote.protocol import RemoteJob, WorkerHello
from tenderflow.stages.compute import POOLS, compute_handlers
from tenderflow.stages.contract import ComputeHandler, InputKind, PageInput, warm_up

log = structlog.get_logger("tenderflow.remote")

T = TypeVar("T")

EXIT_OK = 0
EXIT_UNREACHABLE = 1
EXIT_TOKEN_REFUSED = 3
EXIT_PROTOCOL = 4
UNREACHABLE_TRIES = 5
"""Failed calls in a row after which the worker says so: never having reached the server (a wrong
--remote URL: it stops, exit 1), or having lost it (a restart or an outage: it goes on retrying)."""


@dataclass(frozen=True)
class RemoteWorkerConfig:
    pool: str
    job_types: tuple[str, ...]
    threads: int = 1
    claim_wait_seconds: float = 25.0
    shutdown_grace_seconds: float = 30.0
    retry_base_seconds: float = 0.5
    retry_cap_seconds: float = 30.0
    cache_dir: Path = field(default_factory=lambda: Path(tempfile.gettempdir()) / "tenderflow-remote-cache")
    cache_max_files: int = 32


@dataclass
class _Slot:
    job: RemoteJob
    context: JobContext
    started: float


class _Backoff:
    """The queue's capped exponential backoff with jitter (tenderflow.queue.Backoff), counting the
    failures in a row; reset after a success."""

    def __init__(self, base: float, cap: float) -> None:
        self.backoff = Backoff(base_seconds=base, cap_seconds=cap)
        self.failures = 0

    def next_delay(self) -> float:
        self.failures += 1
        return self.backoff.delay(self.failures)

    def reset(self) -> None:
        self.failures = 0


def _claimed_job(job: RemoteJob) -> ClaimedJob:
    """The handler's view of a remote claim (the same fields a local worker's claim has)."""
    return ClaimedJob(id=job.id, type=job.type, payload=job.payload, tenant=job.tenant, priority=job.priority,
                      attempts=job.attempt, max_attempts=job.max_attempts, created_at=job.created_at,
                      worker_id="")  # the server holds the claim's worker id and checks it


class RemoteWorker:
    def __init__(
        self, client: RemoteQueueClient, handlers: Mapping[str, ComputeHandler[Any, Any]], config: RemoteWorkerConfig
    ) -> None:
        missing = [name for name in config.job_types if name not in handlers]
        if missing:
            raise ValueError(f"no compute handler for job types {missing}")
        self.client = client
        self.handlers = handlers
        self.config = config
        self.hello = WorkerHello(host=socket.gethostname()[:200] or "unknown", pid=os.getpid(),
                                 pool=config.pool, threads=config.threads)
        self.cache = PdfCache(config.cache_dir, max_files=config.cache_max_files)
        self.heartbeat_seconds = 10.0
        self.exit_code = EXIT_OK
        self.completed = 0
        self._slots: dict[int, _Slot] = {}
        self._slots_lock = threading.Lock()
        self._slot_freed = threading.Event()
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._claimer_done = threading.Event()

    @property
    def worker_id(self) -> str:
        return self.client.instance

    def held_jobs(self) -> list[int]:
        """Ids of the jobs this worker holds right now."""
        with self._slots_lock:
            return sorted(self._slots)

    # --- lifecycle ------------------------------------------------------------------------------

    def request_stop(self) -> None:
        """Stop claiming; running jobs get the grace period, then their leases are given back."""
        self._stopping.set()
        self._slot_freed.set()

    def _fatal(self, code: int, reason: str) -> None:
        log.error("remote.stopping", reason=reason)
        self.exit_code = code
        with self._slots_lock:
            for slot in self._slots.values():
                slot.context.mark_lost(reason)
        self.request_stop()

    def run(self) -> int:
        """Work until `request_stop` (or a refused token); returns the process's exit code."""
        log.info("remote.started", server=self.client.base_url, instance=self.client.instance,
                 pool=self.config.pool, threads=self.config.threads)
        executor = ThreadPoolExecutor(max_workers=self.config.threads, thread_name_prefix="job")
        claimer = threading.Thread(target=self._claim_loop, args=(executor,), name="claimer", daemon=True)
        heartbeat = threading.Thread(target=self._heartbeat_loop, name="heartbeat", daemon=True)
        claimer.start()
        heartbeat.start()
        try:
            while not self._stopping.wait(1.0):
                pass
            grace = self.config.shutdown_grace_seconds if self.exit_code == EXIT_OK else 0.0
            wait_for_running_jobs(self._slots, self._slots_lock, grace)
        finally:
            self._hand_back()
            self._stopped.set()
            executor.shutdown(wait=False, cancel_futures=True)
            self.client.close()
            log.info("remote.stopped", instance=self.client.instance, completed=self.completed,
                     exit_code=self.exit_code)
        return self.exit_code

    def _hand_back(self) -> None:
        """Give back the leases still held, and tell the server this instance stopped, which also
        ends a claim it is still holding open for us (the claimer gives back whatever that got)."""
        if self.exit_code in (EXIT_TOKEN_REFUSED, EXIT_UNREACHABLE):
            return  # the server will not listen, or was never reached (nothing is held)
        with self._slots_lock:
            remaining = list(self._slots.values())
        for slot in remaining:
            slot.context.mark_lost("worker shutting down; lease given back")
        self._give_back([slot.job for slot in remaining])
        self._claimer_done.wait(5.0)

    def _give_back(self, held: list[RemoteJob]) -> None:
        try:
            released = self.client.stop(held)
            log.info("remote.released", jobs=released.released)
        except (ServerUnavailableError, WorkerTokenRefusedError, RemoteProtocolError) as exc:
            log.warning("remote.release_failed", error=str(exc))

    # --- claiming -------------------------------------------------------------------------------

    def _claim_loop(self, executor: ThreadPoolExecutor) -> None:
        backoff = _Backoff(self.config.retry_base_seconds, self.config.retry_cap_seconds)
        reached = False
        try:
            while not self._stopping.is_set():
                with self._slots_lock:
                    free = self.config.threads - len(self._slots)
                if free <= 0:
                    self._slot_freed.wait(1.0)
                    self._slot_freed.clear()
                    continue
                try:
                    answer = self.client.claim(self.hello, limit=free, wait_seconds=self.config.claim_wait_seconds)
                except ServerUnavailableError as exc:
                    delay = backoff.next_delay()
                    log.warning("remote.claim_failed", error=str(exc), retry_in_seconds=round(delay, 2))
                    if backoff.failures == UNREACHABLE_TRIES:
                        if not reached:  # a typo in --remote would otherwise retry for ever, in warnings
                            self._fatal(EXIT_UNREACHABLE, f"cannot reach the server at {self.client.base_url} "
                                        f"({UNREACHABLE_TRIES} tries): {exc}; check the --remote URL (the "
                                        "API's address, as `tenderflow serve` listens on it)")
                            return
                        log.error("remote.server_unreachable", server=self.client.base_url,
                                  tries=UNREACHABLE_TRIES, error=str(exc),
                                  note="still retrying (a restart of the server is ridden out)")
                    self._stopping.wait(delay)
                    continue
                except WorkerTokenRefusedError as exc:
                    self._fatal(EXIT_TOKEN_REFUSED, f"the server refused the worker token: {exc}")
                    return
                except RemoteProtocolError as exc:
                    self._fatal(EXIT_PROTOCOL, f"the server's answer is not the remote-worker protocol: {exc}")
                    return
                if backoff.failures >= UNREACHABLE_TRIES:
                    log.info("remote.server_reached_again", server=self.client.base_url)
                backoff.reset()
                reached = True
                self.heartbeat_seconds = answer.heartbeat_seconds
                if self._stopping.is_set():
                    if answer.jobs:  # claimed while stopping: never started, handed straight back
                        self._give_back(answer.jobs)
                    return
                now = time.monotonic()
                with self._slots_lock:
                    for job in answer.jobs:
                        self._slots[job.id] = _Slot(job, JobContext(_claimed_job(job)), now)
                for job in answer.jobs:
                    executor.submit(self._execute, self._slots[job.id])
        finally:
            self._claimer_done.set()

    # --- executing ------------------------------------------------------------------------------

    def _execute(self, slot: _Slot) -> None:
        job = slot.job
        outcome, error = "lost", None
        try:
            outcome, error = self._run_and_report(slot)
        except LeaseLostError as exc:
            outcome, error = "lost", str(exc)
        except _WorkerStoppedError:
            outcome, error = "abandoned", "the worker stopped before the server answered; the lease will expire"
        except WorkerTokenRefusedError as exc:
            outcome, error = "abandoned", str(exc)
            self._fatal(EXIT_TOKEN_REFUSED, f"the server refused the worker token: {exc}")
        except Exception as exc:  # a bug here must not kill the executor thread silently
            outcome, error = "abandoned", f"{type(exc).__name__}: {exc}"
            log.exception("remote.job_crashed", job_id=job.id)
        finally:
            log.info("job.finished", job_id=job.id, type=job.type, attempt=job.attempt, outcome=outcome,
                     duration_ms=round((time.monotonic() - slot.started) * 1000, 1), error=error,
                     worker_id=self.worker_id)
            with self._slots_lock:
                self._slots.pop(job.id, None)
            self._slot_freed.set()

    def _run_and_report(self, slot: _Slot) -> tuple[str, str | None]:
        job, context = slot.job, slot.context
        handler = self.handlers[job.type]
        try:
            loaded = self._with_retries(slot, lambda: self._load_input(job, handler))
            context.check()
            with tracing.job_span(job.type, job.payload, {"tenderflow.job.id": job.id, "tenderflow.job.attempt":
                                                          job.attempt, "tenderflow.worker": "remote"}):
                result = handler.compute(_claimed_job(job), loaded, context)
            context.check()
        except LeaseLostError:
            raise
        except PermanentError as exc:
            return self._report_failure(slot, str(exc), permanent=True, retry_after=None)
        except RetryableError as exc:
            return self._report_failure(slot, str(exc), permanent=False, retry_after=exc.retry_after)
        except (WorkerTokenRefusedError, _WorkerStoppedError):
            raise
        except Exception as exc:  # any handler bug: the job retries after the server's backoff
            return self._report_failure(slot, f"{type(exc).__name__}: {exc}", permanent=False, retry_after=None)
        try:
            answer = self._with_retries(slot, lambda: self.client.complete(job, result))
        except ResultTooLargeError as exc:
            # The server read none of it and recorded nothing: say so, for good (the same document
            # gives the same result), so that the job does not wait for its lease to run out.
            return self._report_failure(slot, f"the result is too large to post: {exc}", permanent=True,
                                        retry_after=None)
        except ResultRefusedError as exc:
            return "failed", str(exc)
        self.completed += 1
        return answer.outcome, answer.error

    def _report_failure(
        self, slot: _Slot, error: str, *, permanent: bool, retry_after: float | None
    ) -> tuple[str, str | None]:
        answer = self._with_retries(slot, lambda: self.client.fail(
            slot.job, error, permanent=permanent, retry_after_seconds=retry_after))
        return answer.outcome, answer.error or error

    def _load_input(self, job: RemoteJob, handler: ComputeHandler[Any, Any]) -> Any:
        if handler.stage.input_kind is InputKind.PDF:
            key = str(job.payload.get("object_key", f"job-{job.id}"))
            return self.cache.local_path(key, lambda target: self.client.download_pdf(job, target))
        return [PageInput(page.number, page.text) for page in self.client.pages(job).pages]

    def _with_retries(self, slot: _Slot, call: Callable[[], T]) -> T:
        """`call` until it is answered: retried while the server is unavailable, for as long as the
        job is not known to be lost (the heartbeat finds out) and the worker is not past its grace."""
        backoff = _Backoff(self.config.retry_base_seconds, self.config.retry_cap_seconds)
        while True:
            slot.context.check()
            try:
                return call()
            except ServerUnavailableError as exc:
                if self._stopped.is_set():
                    raise _WorkerStoppedError() from exc
                delay = backoff.next_delay()
                log.warning("remote.call_failed", job_id=slot.job.id, error=str(exc), retry_in_seconds=round(delay, 2))
                slot.context.wait(delay)

    # --- heartbeats -----------------------------------------------------------------------------

    def heartbeat_once(self) -> None:
        with self._slots_lock:
            held = list(self._slots.values())
        answer = self.client.heartbeat(self.hello, [slot.job for slot in held])
        self.heartbeat_seconds = answer.heartbeat_seconds
        lost = set(answer.lost)
        for slot in held:
            if slot.job.id in lost and not slot.context.lost:
                slot.context.mark_lost("lease lost: the job was reclaimed or cancelled")

    def _heartbeat_loop(self) -> None:
        # The interval is the server's (it arrives with the first claim), so it is re-read each tick.
        last = time.monotonic()
        while not self._stopped.wait(0.25):
            if time.monotonic() - last < self.heartbeat_seconds:
                continue
            last = time.monotonic()
            try:
                self.heartbeat_once()
            except ServerUnavailableError as exc:
                log.warning("remote.heartbeat_failed", error=str(exc))
            except WorkerTokenRefusedError as exc:
                self._fatal(EXIT_TOKEN_REFUSED, f"the server refused the worker token: {exc}")
                return
            except RemoteProtocolError as exc:
                log.warning("remote.heartbeat_failed", error=str(exc))


class _WorkerStoppedError(Exception):
    """The worker stopped while a call was still waiting for the server."""


def build_remote_worker(settings: Settings, *, url: str, token: str, pool: str, threads: int) -> RemoteWorker:
    """A remote worker for `pool` against the API at `url`, its handlers built from `settings`.

    Raises ValueError for an unknown pool.
    """
    if pool not in POOLS:
        raise ValueError(f"unknown pool {pool!r}; choose one of {', '.join(POOLS)}")
    job_types = POOLS[pool]
    config = RemoteWorkerConfig(
        pool=pool, job_types=job_types, threads=threads, claim_wait_seconds=settings.claim_wait_seconds,
        shutdown_grace_seconds=settings.shutdown_grace_seconds,
        cache_dir=settings.data_dir / "cache" / "remote-pdf",
    )
    client = RemoteQueueClient(url, token, max_connections=threads + 4)
    handlers = compute_handlers(settings, job_types)
    warm_up(handlers.values())
    return RemoteWorker(client, handlers, config)
