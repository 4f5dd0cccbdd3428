"""A worker process's engine: claim jobs into free slots, run them on threads, commit in batches.

Threads of one Worker:
    claimer      (the caller of `run`) fills free slots with one claim statement, then sleeps
                 until a NOTIFY, a freed slot, or the polling interval (the backstop) wakes it
    executors    `threads` of them run handlers' compute step, taking claimed jobs from a queue;
                 daemon threads, so a handler that ignores its context past the shutdown grace
                 period (its lease already given back) cannot keep the process alive
    committer    commits finished jobs in batches: one transaction locks the jobs still owned,
                 runs each handler's commit step in a savepoint, marks them succeeded / failed
                 (an executor thread takes its next job while the last one waits for the committer)
    heartbeat    renews every held lease in one statement and the worker's liveness row; a job
                 no longer owned (reclaimed, cancelled) is told to stop
    listener     LISTENs for enqueue notifications on its own connection (a hint only), and holds
                 the worker's liveness lock on it: once the process is gone, PostgreSQL knows
    maintenance  reclaims expired leases (and the jobs of dead workers) and fires recurring
                 schedules (`Maintenance.run_once`)

Shutdown (`request_stop`): stop claiming, let running jobs finish within the grace period, then
give the remaining leases back so other workers can take them at once.
"""

from __future__ import annotations

import logging
import os
import queue as stdlib_queue
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import psycopg
import structlog
from psycopg import sql
from psycopg_pool import ConnectionPool

from tenderflow import tracing
from tenderflow.errors import LeaseLostError, PermanentError, RetryableError
from tenderflow.ids import process_instance_id
from tenderflow.queue import jobs
from tenderflow.queue.backoff import Backoff
from tenderflow.queue.completion import FinishedAttempt, commit_alone, commit_attempts, is_transient
from tenderflow.queue.maintenance import Maintenance
from tenderflow.queue.registry import JobContext, JobTypes, wait_for_running_jobs

log = structlog.get_logger("tenderflow.worker")
_T = TypeVar("_T")

# Jobs whose compute step is over wait for the committer, which takes them in batches of up to this
# many (with prefetch, up to half the prefetch when that is more); at most one such batch waits, so
# that a slow database slows claiming instead of piling up leases (and a busy committer gets batches
# big enough to keep up).
COMMIT_BATCH_MAX = 500
# How long a starting worker waits for its listener to hold the liveness lock before it claims anyway.
LISTENER_START_SECONDS = 10.0
# Waits between tries, without jitter (one process's own retries): a lost connection's (the listener's,
# the registration's), and a commit's that the database did not take.
_RECONNECT = Backoff(base_seconds=0.5, cap_seconds=5.0, jitter_fraction=0.0)
_COMMIT_RETRY = Backoff(base_seconds=0.1, cap_seconds=5.0, jitter_fraction=0.0)


@dataclass(frozen=True)
class WorkerConfig:
    types: Sequence[str]
    threads: int = 4
    lease_seconds: float = 30.0
    heartbeat_seconds: float = 10.0
    poll_seconds: float = 1.0
    default_tenant_cap: int = 0
    notify: bool = True
    shutdown_grace_seconds: float = 30.0
    maintenance_seconds: float = 5.0
    retention_seconds: float | None = None  # finished jobs older than this are pruned (None: never)
    run_maintenance: bool = True
    backoff: Backoff = field(default_factory=Backoff)
    worker_id: str | None = None
    kind: str = "local"
    # Jobs claimed beyond `threads`, waiting in the worker for an executor (like graphile-worker's
    # local queue): bigger claims, fewer per job, for many short jobs. They are leased (running,
    # heartbeated) and count against their tenant's cap while they wait; a stopping worker gives
    # the ones not started back at once. 0 (default): a claim takes only as many jobs as threads
    # are free, and a job is started the moment it is claimed.
    prefetch: int = 0
    # Burst: stop once no job of `types` is left to run anywhere (none queued, due now or later, and
    # none running: a running job may enqueue the next stage's), for cron jobs and CI.
    burst: bool = False


@dataclass
class _Slot:
    job: jobs.ClaimedJob
    context: JobContext
    started: float


@dataclass
class _Finished:
    slot: _Slot
    result: Any = None
    failure: jobs.Failure | None = None


def _take_all(waiting: stdlib_queue.SimpleQueue[_T | None]) -> list[_T]:
    """Everything in `waiting` now, without blocking (the end-of-run sentinels left out)."""
    taken: list[_T] = []
    while True:
        try:
            item = waiting.get_nowait()
        except stdlib_queue.Empty:
            return taken
        if item is not None:
            taken.append(item)


def _logs_at_info() -> bool:
    """Whether info lines (a success's job.finished) are written: checked once per committed batch,
    so that a worker logging at WARNING spends nothing per success on the line it drops."""
    enabled = getattr(log, "is_enabled_for", None)
    return True if enabled is None else bool(enabled(logging.INFO))


def new_worker_id() -> str:
    return process_instance_id()


class _HeldConnection:
    """A pool connection that one thread (or one lock's holders) keeps between uses: no checkout
    per claim or commit, and so none of the pool's liveness checks, each a round trip to the
    server (a third of a no-op job's worker time). A use that raises gives the connection back to
    the pool, which discards a broken one (a database restart) or rolls back an open transaction;
    the next use draws a fresh one, checked as every checkout is."""

    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool
        self._conn: psycopg.Connection[Any] | None = None

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        if self._conn is None:
            self._conn = self._pool.getconn()
        try:
            yield self._conn
        except BaseException:
            self.give_back()
            raise

    def give_back(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._pool.putconn(conn)


StartCheck = Callable[[psycopg.Connection[Any]], None]
"""What the host checks before a worker registers (the application's migrations applied): raises to
refuse the start with a reason. The queue knows no schema but its own SQL; its host does."""


class Worker:
    def __init__(self, pool: ConnectionPool, job_types: JobTypes, config: WorkerConfig, *,
                 start_check: StartCheck | None = None) -> None:
        unknown = [name for name in config.types if name not in job_types]
        if unknown:
            raise ValueError(f"this worker cannot run unknown job types {unknown}; known: {job_types.names()}")
        self.pool = pool
        self.job_types = job_types
        self.config = config
        self.start_check = start_check
        self.id = config.worker_id or new_worker_id()
        # A worker whose session died and that missed two heartbeats is dead: its jobs go back then.
        self.maintenance = Maintenance(job_types, retention_seconds=config.retention_seconds,
                                       dead_after_seconds=2 * config.heartbeat_seconds)
        # Held on the listener's session while this process lives (no listener, no lock: leases only).
        self.liveness_key = jobs.new_liveness_key() if config.notify else None
        # Every job this worker holds a lease on, computing or waiting for the committer; and how
        # many of them are computing (each occupies one of the `threads` slots).
        self._slots: dict[tuple[int, int, str], _Slot] = {}
        self._computing = 0
        if config.prefetch < 0:
            raise ValueError("prefetch must be 0 or more")
        self._claim_room = config.threads + config.prefetch
        # With prefetch, the claimer is woken once the jobs waiting in the worker fall to half the
        # prefetch: the next claim then overlaps the executors' work instead of following it.
        self._refill_at = config.threads + config.prefetch // 2 if config.prefetch else -1
        self._commit_batch_max = max(COMMIT_BATCH_MAX, config.prefetch // 2)
        self._max_held = self._claim_room + self._commit_batch_max
        self._slots_lock = threading.Lock()
        self._claiming = threading.Lock()
        self._claim_connection = _HeldConnection(pool)  # used under _claiming only
        # One committer thread per connection here. With prefetch (many short jobs), two: a batch's
        # commit then overlaps the next one's instead of the claims waiting for it. Without, one,
        # so that the commit steps of one worker's batches never wait for each other's row locks.
        self._commit_connections = [_HeldConnection(pool) for _ in range(2 if config.prefetch else 1)]
        self._wake = threading.Event()
        self._backlog = False  # the last claim filled every free slot: more jobs are likely waiting
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        # Set once the listener's first session holds the liveness lock (or failed to): claims wait
        # for it, so that every job this worker runs is taken back as soon as its process dies.
        self._listening = threading.Event()
        self._runnable: stdlib_queue.SimpleQueue[_Slot | None] = stdlib_queue.SimpleQueue()
        self._finished: stdlib_queue.SimpleQueue[_Finished | None] = stdlib_queue.SimpleQueue()
        self.claimed_total = 0

    # --- lifecycle ------------------------------------------------------------------------------

    def request_stop(self) -> None:
        """Stop claiming; running jobs get the grace period, then their leases are given back."""
        if not self._stopping.is_set():
            # No lock: this runs in a signal handler, perhaps while the claimer holds it (a dict's
            # length is read atomically).
            log.info("worker.stopping", worker_id=self.id, jobs_running=len(self._slots),
                     grace_seconds=self.config.shutdown_grace_seconds)
        self._stopping.set()
        self._wake.set()
        self._listening.set()  # a start still waiting for its listener goes on to stop at once

    def _register(self) -> bool:
        """The host's start check, then the worker's row. A connection lost meanwhile (a restart,
        pg_terminate_backend) is tried again on a fresh one, after 0.5, 1, 2… s (at most 5), until it
        works or a stop is asked for (then False); the start check's own refusal is raised."""
        failures = 0
        while True:
            try:
                with self.pool.connection() as conn:
                    if self.start_check is not None:
                        self.start_check(conn)
                    conn.execute(jobs.QUERIES["worker_register"], {
                        "id": self.id, "host": socket.gethostname(), "pid": os.getpid(),
                        "pools": list(self.config.types), "threads": self.config.threads,
                        "kind": self.config.kind, "now": None,
                        "liveness_lock": None,  # named by the listener once it holds it (hold_liveness_lock)
                    })
                return True
            except psycopg.OperationalError as exc:
                log.warning("worker.register_failed", worker_id=self.id, error=f"{type(exc).__name__}: {exc}")
                failures += 1
                if self._stopping.wait(_RECONNECT.delay(failures)):
                    return False

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def run(self) -> None:
        """Run until `request_stop`. Refuses to start when the host's `start_check` raises (the CLI's:
        migrations pending)."""
        if not self._register():
            return
        log.info("worker.started", worker_id=self.id, types=list(self.config.types), threads=self.config.threads)
        background = [
            *(threading.Thread(target=self._commit_loop, args=(held,), name=f"committer-{number}", daemon=True)
              for number, held in enumerate(self._commit_connections)),
            threading.Thread(target=self._heartbeat_loop, name="heartbeat", daemon=True),
        ]
        if self.config.notify:
            background.append(threading.Thread(target=self._listen_loop, name="listener", daemon=True))
        if self.config.run_maintenance:
            background.append(threading.Thread(target=self._maintenance_loop, name="maintenance", daemon=True))
        for thread in background:
            thread.start()
        for number in range(self.config.threads):
            threading.Thread(target=self._execute_loop, name=f"job-{number}", daemon=True).start()
        try:
            if self.config.notify:
                # A job claimed before the lock is held would wait for its lease if the process died
                # now (found by a SIGKILL test under load). Bounded: a listener that cannot connect
                # leaves this worker with leases only, as before.
                self._listening.wait(LISTENER_START_SECONDS)
            self._claim_loop()
            # A claim under way on the listener's thread holds the claim lock: once it is over, its
            # jobs are held (and no later claim starts: each checks the stop under that lock), so
            # the stop below waits for them or gives them back like any other.
            with self._claiming:
                pass
            if self.config.prefetch:
                # Without prefetch every claimed job has an executor waiting for it: it starts
                # (and gets the grace period) even if the stop came before an executor woke.
                self._release_unstarted()
            wait_for_running_jobs(self._slots, self._slots_lock, self.config.shutdown_grace_seconds)
        finally:
            self._release_remaining()
            with self._claiming:
                self._claim_connection.give_back()
            self._stopped.set()
            for _ in self._commit_connections:
                self._finished.put(None)
            for _ in range(self.config.threads):
                self._runnable.put(None)
            with self.pool.connection() as conn:
                conn.execute(jobs.QUERIES["worker_stop"], {"id": self.id, "now": None})
            log.info("worker.stopped", worker_id=self.id, claimed=self.claimed_total)

    def run_once(self) -> int:
        """One synchronous pass in the calling thread: claim up to `threads` jobs, run each, commit
        them as one batch (split apart on a refused commit, as the committer does). Returns how many
        jobs were claimed (0: none was due). No heartbeat runs, so a pass must end within the lease.

        For harnesses and tests that drain the queue without threads or sleeps, and for a one-off
        pass from a script; `run` is the long-running worker."""
        with self.pool.connection() as conn:
            claimed = jobs.claim(conn, worker_id=self.id, types=self.config.types, limit=self.config.threads,
                                 lease_seconds=self.config.lease_seconds,
                                 default_tenant_cap=self.config.default_tenant_cap)
        for slot in self._hold(claimed):
            self._execute(slot)
        batch = _take_all(self._finished)
        if batch:
            self._commit_batch_with_retry(batch, self._commit_connections[0])
        self.claimed_total += len(claimed)
        return len(claimed)

    def _hold(self, claimed: Sequence[jobs.ClaimedJob]) -> list[_Slot]:
        """Slots for jobs just claimed: held (heartbeated) and computing from now on."""
        now = time.monotonic()
        slots = [_Slot(job, JobContext(job), now) for job in claimed]
        with self._slots_lock:
            for slot in slots:
                self._slots[slot.job.token] = slot
            self._computing += len(slots)
        return slots

    def _free_slots(self) -> int:
        with self._slots_lock:
            return min(self._claim_room - self._computing, self._max_held - len(self._slots))

    def _claim_free_slots(self, *, wait: bool = True, named: int | None = None) -> tuple[int, int] | None:
        """One claim filling this worker's free slots, its jobs handed to the executors; returns
        (free slots, jobs claimed). One claim at a time, the claimer's or the listener's (which
        claims at once on a NOTIFY while the claimer sleeps: a thread hand-off less between enqueue
        and start); with `wait=False`, None if another claim is under way.

        `named`: the job a notification named. While the last claim left slots free (nothing else
        was runnable then, so that job is next in any order), it is claimed by its id, a lookup
        that costs about half a claim's search; if that finds nothing to run (another worker was
        quicker, not due yet, its tenant at its cap) the worker's claims take it from there."""
        if not self._claiming.acquire(blocking=wait):
            return None
        try:
            free = self._free_slots()
            if free <= 0 or self._stopping.is_set():
                return free, 0
            by_id = named is not None and not self._backlog
            with self._claim_connection.connection() as conn:
                if named is not None and by_id:
                    claimed = jobs.claim_named(
                        conn, named, worker_id=self.id, types=self.config.types,
                        lease_seconds=self.config.lease_seconds, default_tenant_cap=self.config.default_tenant_cap,
                    )
                else:
                    claimed = jobs.claim(
                        conn, worker_id=self.id, types=self.config.types, limit=free,
                        lease_seconds=self.config.lease_seconds, default_tenant_cap=self.config.default_tenant_cap,
                    )
            for slot in self._hold(claimed):
                self._runnable.put(slot)
            self.claimed_total += len(claimed)
            if by_id:
                return 0, len(claimed)  # no more is known to be waiting: the claimer is not woken for it
            self._backlog = len(claimed) == free
            return free, len(claimed)
        finally:
            self._claiming.release()

    def _claim_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                free, claimed = self._claim_free_slots() or (0, 0)
            except Exception as exc:  # any error: logged, and the loop claims again (review security-2, N2)
                log.warning("worker.claim_failed", error=f"{type(exc).__name__}: {exc}",
                            exc_info=not isinstance(exc, psycopg.OperationalError))
                self._stopping.wait(min(self.config.poll_seconds, 1.0))
                continue
            if free > 0 and claimed == free:
                # Every free slot was filled: there is likely more work; come back once a slot frees.
                self._wake.clear()
                if self._free_slots() <= 0:
                    self._wake.wait(self.config.poll_seconds)
                continue
            if self.config.burst and free > 0 and not claimed and self._drained():
                log.info("worker.drained", worker_id=self.id, claimed=self.claimed_total)
                self._stopping.set()
                break
            # Fewer jobs than slots (or no slot): sleep until a NOTIFY, a freed slot, or the poll.
            self._wake.wait(self.config.poll_seconds)
            self._wake.clear()

    def _drained(self) -> bool:
        """Burst mode's end: this worker holds nothing and no job of its types is left anywhere."""
        with self._slots_lock:
            if self._slots:
                return False
        try:
            with self.pool.connection() as conn:
                return not jobs.any_unfinished(conn, self.config.types)
        except Exception as exc:  # any error: not drained; the claim loop asks again
            log.warning("worker.drain_check_failed", error=f"{type(exc).__name__}: {exc}")
            return False

    def _release_unstarted(self) -> None:
        """Stopping: the claimed jobs no executor has started yet (prefetched) are given back at
        once, not run during the grace period. An executor that takes one first starts it."""
        unstarted = _take_all(self._runnable)
        if not unstarted:
            return
        with self._slots_lock:
            for slot in unstarted:
                self._slots.pop(slot.job.token, None)
            self._computing -= len(unstarted)
        self._give_back([slot.job for slot in unstarted], "worker.released_unstarted")

    def _give_back(self, held: Sequence[jobs.ClaimedJob], event: str) -> None:
        try:
            with self.pool.connection() as conn, conn.transaction():
                ended = jobs.release_ended(conn, held)
                self.job_types.run_ended_hooks(conn, ended)  # a job released too often has failed
            log.info(event, worker_id=self.id, jobs=sorted(job.id for job in ended))
        except Exception as exc:  # the leases then expire and the reclaimer takes over
            log.warning("worker.release_failed", error=f"{type(exc).__name__}: {exc}")

    def _release_remaining(self) -> None:
        with self._slots_lock:
            remaining = list(self._slots.values())
        if not remaining:
            return
        for slot in remaining:
            slot.context.mark_lost("worker shutting down; lease given back")
        self._give_back([slot.job for slot in remaining], "worker.released")

    # --- executing ------------------------------------------------------------------------------

    def _execute_loop(self) -> None:
        while (slot := self._runnable.get()) is not None:
            self._execute(slot)

    def _execute(self, slot: _Slot) -> None:
        job = slot.job
        finished = _Finished(slot)
        try:
            handler = self.job_types.handler(job.type)
            if tracing.enabled():
                attributes = {"tenderflow.job.id": job.id, "tenderflow.job.attempt": job.attempts,
                              "tenderflow.tenant": job.tenant,
                              **{f"tenderflow.{key}": value for key, value in self.job_types.describe(job).items()}}
                with tracing.job_span(job.type, job.payload, attributes):
                    finished.result = handler.run(job, slot.context)
            else:  # no span to open: no context manager per job
                finished.result = handler.run(job, slot.context)
        except LeaseLostError:
            pass  # reported below as lost
        except PermanentError as exc:
            finished.failure = jobs.Failure(job, f"{exc}", permanent=True, retry_seconds=0.0)
        except RetryableError as exc:
            # A server's Retry-After is honoured up to the backoff cap: never a job put off for a year.
            delay = (min(exc.retry_after, self.config.backoff.cap_seconds) if exc.retry_after is not None
                     else self.config.backoff.delay(job.attempts))
            finished.failure = jobs.Failure(job, f"{exc}", permanent=False, retry_seconds=delay)
        except BaseException as exc:  # any handler bug, even SystemExit: the job retries, the slot is freed
            finished.failure = jobs.Failure(
                job, f"{type(exc).__name__}: {exc}", permanent=False,
                retry_seconds=self.config.backoff.delay(job.attempts),
            )
        lost = slot.context.lost
        if lost:
            self._log_finished(slot, "lost", slot.context.lost_reason)
        else:
            self._finished.put(finished)
        with self._slots_lock:
            self._computing -= 1
            executors_idle = self._computing == 0
            refill = self._computing == self._refill_at
            if lost:
                self._slots.pop(job.token, None)
        # The claimer is woken when jobs are committed (`_free`: that also frees room under the
        # tenants' caps), and here only once every executor is idle (or, with prefetch, once half
        # the prefetched jobs are taken) while more jobs are likely waiting. Either way the next
        # claim is a batch, and a claim takes turns between tenants within its batch: a claim per
        # finished job would take the oldest job every time.
        if lost or (self._backlog and (executors_idle or refill)):
            self._wake.set()

    def _free(self, slots: Sequence[_Slot]) -> None:
        """Forget committed jobs: their leases are over."""
        with self._slots_lock:
            for slot in slots:
                self._slots.pop(slot.job.token, None)
        self._wake.set()

    def _log_finished(self, slot: _Slot, outcome: str, error: str | None = None) -> None:
        """One line per finished attempt: info when it succeeded, a warning when it will run again
        (retry) or was taken from this worker (lost), an error when it failed for good."""
        emit = log.info if outcome == "succeeded" else log.error if outcome == "failed" else log.warning
        emit(
            "job.finished", job_id=slot.job.id, type=slot.job.type, tenant=slot.job.tenant,
            **self.job_types.describe(slot.job), attempt=slot.job.attempts,
            max_attempts=slot.job.max_attempts, outcome=outcome,
            duration_ms=round((time.monotonic() - slot.started) * 1000, 1), error=error, worker_id=self.id,
        )

    # --- committing -----------------------------------------------------------------------------

    def _commit_loop(self, held: _HeldConnection) -> None:
        while True:
            first = self._finished.get()
            if first is None:
                held.give_back()
                return
            batch = [first]
            while len(batch) < self._commit_batch_max:
                try:
                    item = self._finished.get_nowait()
                except stdlib_queue.Empty:
                    break
                if item is None:
                    self._finished.put(None)
                    break
                batch.append(item)
            self._commit_batch_with_retry(batch, held)

    def _commit_batch_with_retry(self, batch: list[_Finished], held: _HeldConnection) -> None:
        """Commit `batch`; a lost connection is retried with backoff until it works (or our leases
        expire and the ownership check drops the jobs), any other error splits the batch.

        A non-transient error (a DataError, an IntegrityError, a bug in an end-of-job hook) would
        fail the same way forever, so it must not be retried as is: the batch is committed one job
        at a time, and a job whose own commit still fails is failed for good with that reason.
        Without this, one poisoned result kept a worker retrying while its heartbeats kept every
        held lease alive: every job it finished afterwards stayed `running`.
        """
        failures = 0
        while True:
            try:
                outcomes = self._commit_batch(batch, held)
                break
            except Exception as exc:
                if not is_transient(exc):
                    log.error("worker.commit_rejected", error=f"{type(exc).__name__}: {exc}", jobs=len(batch),
                              job_ids=[item.slot.job.id for item in batch], exc_info=True)
                    self._commit_apart(batch, held)
                    return
                # The database is unreachable or the transaction broke: nothing was written. Try
                # again; if our leases expire meanwhile, the ownership check drops those jobs.
                log.warning("worker.commit_failed", error=str(exc), jobs=len(batch))
                if self._stopped.is_set():
                    return
                failures += 1
                time.sleep(_COMMIT_RETRY.delay(failures))
        successes_logged = _logs_at_info()
        for item, (outcome, error) in zip(batch, outcomes, strict=True):
            if successes_logged or outcome != "succeeded":
                self._log_finished(item.slot, outcome, error)
        self._free([item.slot for item in batch])

    def _commit_apart(self, batch: list[_Finished], held: _HeldConnection) -> None:
        if len(batch) > 1:
            for item in batch:
                self._commit_batch_with_retry([item], held)
            return
        (item,) = batch
        attempt = FinishedAttempt(item.slot.job, item.result, item.failure)
        failures = 0
        while True:
            try:
                outcome = commit_alone(self.pool, self.job_types, attempt, backoff=self.config.backoff)
                break
            except Exception as exc:  # only transient errors come out of commit_alone
                log.warning("worker.commit_failed", error=str(exc), jobs=1)
                if self._stopped.is_set():
                    return
                failures += 1
                time.sleep(_COMMIT_RETRY.delay(failures))
        self._log_finished(item.slot, outcome.outcome, outcome.error)
        self._free([item.slot])

    def _commit_batch(self, batch: list[_Finished], held: _HeldConnection) -> list[tuple[str, str | None]]:
        attempts = [FinishedAttempt(item.slot.job, item.result, item.failure) for item in batch]
        with held.connection() as conn:
            outcomes = commit_attempts(conn, self.job_types, attempts, backoff=self.config.backoff)
        return [(o.outcome, o.error) for o in outcomes]

    # --- heartbeats, wake-ups, maintenance -------------------------------------------------------

    def heartbeat_once(self) -> None:
        """Renew all held leases and this worker's liveness; tell lost jobs to stop."""
        with self._slots_lock:
            held = list(self._slots.values())
        with self.pool.connection() as conn:
            with conn.pipeline():
                owned = jobs.heartbeat(conn, [slot.job for slot in held], lease_seconds=self.config.lease_seconds)
                conn.execute(jobs.QUERIES["worker_heartbeat"], {"id": self.id, "now": None})
        # Slots are keyed by claim, not job: if this worker claimed a job again while still running
        # an earlier (reclaimed) attempt of it, only the newest attempt can be the one still owned.
        newest: dict[int, int] = {}
        for slot in held:
            newest[slot.job.id] = max(newest.get(slot.job.id, 0), slot.job.attempts)
        for slot in held:
            still_owned = slot.job.id in owned and slot.job.attempts == newest[slot.job.id]
            if not still_owned and not slot.context.lost:
                slot.context.mark_lost("lease lost: the job was reclaimed or cancelled")

    def _heartbeat_loop(self) -> None:
        while not self._stopped.wait(self.config.heartbeat_seconds):
            try:
                self.heartbeat_once()
            except Exception as exc:  # any error: logged, and the next beat tries again
                log.warning("worker.heartbeat_failed", error=f"{type(exc).__name__}: {exc}",
                            exc_info=not isinstance(exc, psycopg.OperationalError))

    def _listen_conninfo(self) -> str:
        conninfo = self.pool.conninfo
        return conninfo() if callable(conninfo) else conninfo

    def _listen_loop(self) -> None:
        failures = 0
        wanted = set(self.config.types)
        while not self._stopped.is_set():
            try:
                with psycopg.connect(self._listen_conninfo(), autocommit=True) as conn:
                    if self.liveness_key is not None and not jobs.hold_liveness_lock(conn, self.liveness_key, self.id):
                        log.warning("worker.liveness_lock_taken", worker_id=self.id)  # leases only, then
                    self._listening.set()
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(jobs.NOTIFY_CHANNEL)))
                    self._wake.set()  # notifications may have been missed while disconnected
                    failures = 0
                    while not self._stopped.is_set():
                        for notify in conn.notifies(timeout=1.0):
                            job_type, named = jobs.parse_notification(notify.payload)
                            if job_type in wanted:
                                self._claim_on_notify(named)
            except Exception as exc:  # any error: logged, then listen again after a backoff
                log.warning("worker.listen_failed", error=f"{type(exc).__name__}: {exc}",
                            exc_info=not isinstance(exc, psycopg.OperationalError))
                self._listening.set()  # claims go on without the lock: leases only until it is back
                failures += 1
                # at most 5 s: while it reconnects, the worker holds no liveness lock
                self._stopped.wait(_RECONNECT.delay(failures))

    def _claim_on_notify(self, named: int | None = None) -> None:
        """A job of ours was enqueued (`named`: its id, when the notification names one): claim it
        from this thread unless a claim is under way (then the claimer's loop goes round again).
        Whatever happens here, the claimer is woken when it has more to do: a failed claim, or
        every free slot filled (more may be waiting)."""
        try:
            outcome = None if self._stopping.is_set() else self._claim_free_slots(wait=False, named=named)
        except Exception as exc:  # any error: the claim loop, woken below, tries again
            log.warning("worker.claim_failed", error=f"{type(exc).__name__}: {exc}",
                        exc_info=not isinstance(exc, psycopg.OperationalError))
            outcome = None
        if outcome is None or (outcome[0] > 0 and outcome[1] == outcome[0]):
            self._wake.set()

    def _maintenance_loop(self) -> None:
        while not self._stopped.wait(self.config.maintenance_seconds):
            try:
                with self.pool.connection() as conn:
                    self.maintenance.run_once(conn)
            except Exception as exc:  # any error: logged, and the next round tries again
                log.warning("worker.maintenance_failed", error=f"{type(exc).__name__}: {exc}",
                            exc_info=not isinstance(exc, psycopg.OperationalError))
