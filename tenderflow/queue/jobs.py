"""Job rows and every state transition of a job, one function per verb.

    enqueue      (nothing)            -> queued
    claim        queued               -> running      (attempts + 1, lease from the database clock)
    heartbeat    running              -> running      (lease renewed; only while (id, attempts) owns it)
    complete     running              -> succeeded
    fail         running              -> queued (retry after backoff) | failed (permanent / out of attempts)
    release      running              -> queued       (shutdown; the attempt is not counted against it)
    reclaim      running, lease over  -> queued | failed ("lease expired on final attempt"); also, with
                 dead_after_seconds, running jobs of a worker whose database session died
    cancel       queued | running     -> cancelled
    retry        failed | cancelled   -> queued

Every function takes the caller's connection, so it joins the caller's transaction.
"""

from __future__ import annotations

import enum
import json
import math
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

import psycopg
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row

from tenderflow import tracing
from tenderflow.errors import EnqueueError, JobNotFoundError, JobStateError
from tenderflow.sqlfiles import NamedQueries

QUERIES = NamedQueries("tenderflow.queue", "queries.sql")
NOTIFY_CHANNEL = "tenderflow_jobs"
# Transaction-level advisory lock that serialises claims (see job_claim_lock in queries.sql).
CLAIM_LOCK_KEY = 7_241_002
MAX_PAYLOAD_BYTES = 64 * 1024


class JobState(enum.StrEnum):
    """Mirror of the PostgreSQL enum `job_state` (a test keeps the two equal); meanings there."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class JobSpec:
    """A job to enqueue. `unique_key` makes enqueue idempotent."""

    type: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    tenant: str = "default"
    priority: int = 0
    max_attempts: int | None = None
    run_after: datetime | None = None
    unique_key: str | None = None


@dataclass(frozen=True)
class ClaimedJob:
    """A job as a worker holds it. (id, attempts, worker_id) is the ownership token of this claim:
    heartbeat, complete, fail, release and lock_owned act only while all three still match."""

    id: int
    type: str
    payload: dict[str, Any]
    tenant: str
    priority: int
    attempts: int
    max_attempts: int
    created_at: datetime
    worker_id: str

    @property
    def token(self) -> tuple[int, int, str]:
        return (self.id, self.attempts, self.worker_id)


@dataclass(frozen=True)
class EndedJob:
    """A job that a transition just moved; hooks receive these (e.g. to refund credits)."""

    id: int
    type: str
    tenant: str
    payload: dict[str, Any]
    attempts: int
    state: JobState
    error: str | None = None
    permanent: bool = False
    """It ended failed because its handler, running it, said the failure will not pass (a
    PermanentError: the job's input is refused). False for every other end: out of attempts, a
    lease that expired, a release, a cancel, or a permanent failure raised while committing a
    result (`Failure.at_commit`). Hooks tell the job's own fault from the service's with it."""


@dataclass(frozen=True)
class Failure:
    """One failed attempt, reported by a worker. `at_commit`: raised while committing the attempt's
    result (a refused result, a bug), not by the handler running the job."""

    job: ClaimedJob
    error: str
    permanent: bool
    retry_seconds: float
    at_commit: bool = False


def _validated(spec: JobSpec, known_types: Iterable[str] | None, default_max_attempts: int) -> tuple[
    str, str, str, int, int, datetime | None, str | None
]:
    if known_types is not None and spec.type not in known_types:
        raise EnqueueError(f"unknown job type {spec.type!r}; known types: {sorted(known_types)}")
    max_attempts = default_max_attempts if spec.max_attempts is None else spec.max_attempts
    if not isinstance(max_attempts, int) or max_attempts <= 0:
        raise EnqueueError(f"max_attempts must be a positive integer, got {max_attempts!r}")
    if not -32768 <= spec.priority <= 32767:
        raise EnqueueError(f"priority must fit in a smallint, got {spec.priority}")
    if not spec.tenant:
        raise EnqueueError("tenant must not be empty")
    payload: Mapping[str, Any] = spec.payload if isinstance(spec.payload, dict) else dict(spec.payload)
    if tracing.enabled():  # the current trace travels on with the job (tenderflow.tracing), one or many
        payload = tracing.with_traceparent(payload)
    try:
        encoded = json.dumps(payload, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise EnqueueError(f"payload of a {spec.type!r} job is not JSON-serialisable: {exc}") from exc
    if len(encoded) > MAX_PAYLOAD_BYTES:
        raise EnqueueError(
            f"payload of a {spec.type!r} job is {len(encoded)} bytes; jobs carry references, "
            f"not data (limit {MAX_PAYLOAD_BYTES})"
        )
    return (spec.type, encoded, spec.tenant, spec.priority, max_attempts, spec.run_after, spec.unique_key)


def enqueue_many(
    conn: psycopg.Connection[Any],
    specs: Sequence[JobSpec],
    *,
    known_types: Iterable[str] | None = None,
    default_max_attempts: int = 5,
    now: datetime | None = None,
) -> list[int]:
    """Insert jobs in one statement on the caller's connection (and so in its transaction).

    Returns one id per spec, in order: the new job's, or for a `unique_key` already present, the
    existing job's. Workers are woken by NOTIFY when the transaction commits. Raises EnqueueError
    (nothing written) for an unknown type, a payload that is not JSON, a non-positive max_attempts.
    """
    if not specs:
        return []
    known = set(known_types) if known_types is not None else None
    rows = [_validated(spec, known, default_max_attempts) for spec in specs]
    columns = list(zip(*rows, strict=True))
    params = {
        "types": list(columns[0]), "payloads": list(columns[1]), "tenants": list(columns[2]),
        "priorities": list(columns[3]), "max_attempts": list(columns[4]), "run_afters": list(columns[5]),
        "unique_keys": list(columns[6]), "now": now, "channel": NOTIFY_CHANNEL,
    }
    with _one_statement(conn):
        inserted = conn.execute(QUERIES["job_enqueue"], params).fetchall()
        ids_by_key = {key: job_id for job_id, key in inserted if key is not None}
        keyless = iter(job_id for job_id, key in inserted if key is None)
        missing = [key for key in (spec.unique_key for spec in specs) if key is not None and key not in ids_by_key]
    if missing:  # already enqueued (or by a concurrent transaction that committed since): their ids
        ids_by_key.update(conn.execute(QUERIES["job_ids_by_unique_key"], {"unique_keys": missing}).fetchall())
    return [ids_by_key[spec.unique_key] if spec.unique_key is not None else next(keyless) for spec in specs]


def _one_statement(conn: psycopg.Connection[Any]) -> AbstractContextManager[Any]:
    """Where an enqueue's one statement runs: on an autocommit connection, as its own transaction
    (one round trip); in a caller's transaction, in a savepoint of it, as before."""
    if conn.autocommit and conn.info.transaction_status == TransactionStatus.IDLE:
        return nullcontext()
    return conn.transaction()


def enqueue(
    conn: psycopg.Connection[Any],
    spec: JobSpec,
    *,
    known_types: Iterable[str] | None = None,
    default_max_attempts: int = 5,
    now: datetime | None = None,
) -> int:
    """Enqueue one job, as `enqueue_many` does (the same checks and answer), with a one-row
    statement: no arrays to build and send for a single job."""
    job_type, payload, tenant, priority, max_attempts, run_after, unique_key = _validated(
        spec, set(known_types) if known_types is not None else None, default_max_attempts)
    with _one_statement(conn):
        row = conn.execute(QUERIES["job_enqueue_one"], {
            "type": job_type, "payload": payload, "tenant": tenant, "priority": priority,
            "max_attempts": max_attempts, "run_after": run_after, "unique_key": unique_key, "now": now,
            "channel": NOTIFY_CHANNEL,
        }).fetchone()
    if row is not None:
        return int(row[0])
    # Its unique_key was already enqueued (perhaps by a concurrent transaction committed since).
    found = conn.execute(QUERIES["job_ids_by_unique_key"], {"unique_keys": [unique_key]}).fetchone()
    if found is None:
        raise EnqueueError(f"job with unique_key {unique_key!r} was neither inserted nor found")
    return int(found[1])


def claim(
    conn: psycopg.Connection[Any],
    *,
    worker_id: str,
    types: Sequence[str],
    limit: int,
    lease_seconds: float,
    default_tenant_cap: int = 0,
    tenants: Sequence[str] | None = None,
    now: datetime | None = None,
) -> list[ClaimedJob]:
    """queued -> running for up to `limit` jobs of `types` (of `tenants` only, when given), in one
    round trip.

    Order: the tenants' priorities (the operator's, `set_tenant_priority`) desc, then round robin
    across tenants, then run_after; a job's own priority orders only its tenant's jobs. A tenant never runs more
    than its cap (job_tenant_limits, else `default_tenant_cap`; 0 = none): claims are serialised
    by an advisory lock, so the cap is exact, not approximate.
    """
    if limit <= 0 or not types:
        return []
    params = {
        "lock_key": CLAIM_LOCK_KEY, "types": list(types), "limit": limit, "worker_id": worker_id,
        "lease_seconds": lease_seconds, "default_tenant_cap": default_tenant_cap, "now": now,
        "tenants": list(tenants) if tenants is not None else None,
    }
    return _claim_under_lock(conn, "job_claim", params)


def _claim_under_lock(
    conn: psycopg.Connection[Any], query: str, params: dict[str, Any], *,
    own_lock: str = "job_claim_lock_own_transaction",
) -> list[ClaimedJob]:
    """Run a claim statement after the claims' advisory lock. In the claim's own transaction, one
    round trip: the statements a pipeline sends before its Sync run in one implicit transaction,
    which the Sync at the end of the block commits (releasing the lock). Inside a caller's
    transaction: a savepoint of it, without the claim's own settings."""
    own_transaction = conn.autocommit and conn.info.transaction_status == TransactionStatus.IDLE
    block: AbstractContextManager[Any] = conn.pipeline() if own_transaction else conn.transaction()
    cursor = conn.cursor()
    with block:
        conn.execute(QUERIES[own_lock if own_transaction else "job_claim_lock"], params)
        cursor.execute(QUERIES[query], params)
    # The claim statements return ClaimedJob's fields in its order: tuples, not a dict per row.
    return [ClaimedJob(*row) for row in cursor.fetchall()]


def claim_named(
    conn: psycopg.Connection[Any],
    job_id: int,
    *,
    worker_id: str,
    types: Sequence[str],
    lease_seconds: float,
    default_tenant_cap: int = 0,
    tenants: Sequence[str] | None = None,
    now: datetime | None = None,
) -> list[ClaimedJob]:
    """queued -> running for the one job `job_id` if it may run now (of `types`, due, of `tenants`
    when given, its tenant under its cap), in one round trip; else nothing.

    For a worker that a notification told of this job while nothing else was runnable for it: the
    claim order of `claim` is not consulted (see job_claim_named in queries.sql).
    """
    if not types:
        return []
    params = {
        "lock_key": CLAIM_LOCK_KEY, "id": job_id, "types": list(types), "worker_id": worker_id,
        "lease_seconds": lease_seconds, "default_tenant_cap": default_tenant_cap, "now": now,
        "tenants": list(tenants) if tenants is not None else None,
    }
    return _claim_under_lock(conn, "job_claim_named", params, own_lock="job_claim_named_lock")


def parse_notification(payload: str) -> tuple[str, int | None]:
    """(job type, job id) of a notification on NOTIFY_CHANNEL: 'type:id' for a job enqueued alone
    (job_enqueue_one), 'type' for a batch or a job made runnable again (no id: claim as usual)."""
    job_type, _, named = payload.partition(":")
    return job_type, int(named) if named.isdigit() else None


def _token_params(jobs: Iterable[ClaimedJob]) -> dict[str, list[Any]]:
    jobs = list(jobs)
    return {"ids": [job.id for job in jobs], "attempts": [job.attempts for job in jobs],
            "worker_ids": [job.worker_id for job in jobs]}


def heartbeat(
    conn: psycopg.Connection[Any], jobs: Iterable[ClaimedJob], *, lease_seconds: float,
    now: datetime | None = None,
) -> set[int]:
    """running -> running: renew the leases of all `jobs` in one statement.

    Returns the ids still owned; a job missing from it was reclaimed or cancelled, and its worker
    must stop it and write nothing.
    """
    params: dict[str, Any] = {**_token_params(jobs), "lease_seconds": lease_seconds, "now": now}
    if not params["ids"]:
        return set()
    return {row[0] for row in conn.execute(QUERIES["job_heartbeat"], params).fetchall()}


def lock_owned(conn: psycopg.Connection[Any], jobs: Iterable[ClaimedJob]) -> set[int]:
    """Inside a completion transaction: lock and return the ids of `jobs` this claim still owns."""
    params = _token_params(jobs)
    if not params["ids"]:
        return set()
    return {row[0] for row in conn.execute(QUERIES["job_lock_owned"], params).fetchall()}


def complete(conn: psycopg.Connection[Any], jobs: Iterable[ClaimedJob], *, now: datetime | None = None) -> set[int]:
    """running -> succeeded for the jobs still owned; returns their ids."""
    params: dict[str, Any] = {**_token_params(jobs), "now": now}
    if not params["ids"]:
        return set()
    return {row[0] for row in conn.execute(QUERIES["job_complete"], params).fetchall()}


def _ended(rows: Iterable[tuple[Any, ...]]) -> list[EndedJob]:
    return [EndedJob(id=r[0], type=r[1], tenant=r[2], payload=r[3], attempts=r[4], state=JobState(r[5]), error=r[6],
                     permanent=len(r) > 7 and bool(r[7]))
            for r in rows]


MAX_ERROR_CHARS: Final = 2000
"""An error text is stored and shown at most this long (the rest goes to the log)."""
MAX_RETRY_SECONDS: Final = 30 * 24 * 3600.0
"""No retry is put off longer than this, whatever a handler or a server's Retry-After asked: a
delay past the calendar's end would make the failing transaction itself fail (timestamp out of range)."""
_CONTROL_CHARACTERS: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def sanitize_error(text: str) -> str:
    """An error text fit to store and show: NUL and control characters removed (a NUL cannot be
    stored in a text column at all), surrogates replaced, at most MAX_ERROR_CHARS long."""
    cleaned = _CONTROL_CHARACTERS.sub("", text).encode("utf-8", "replace").decode("utf-8")
    return cleaned if len(cleaned) <= MAX_ERROR_CHARS else cleaned[: MAX_ERROR_CHARS - 1] + "…"


def fail(conn: psycopg.Connection[Any], failures: Sequence[Failure], *, now: datetime | None = None) -> list[EndedJob]:
    """running -> queued (retry after `retry_seconds`) or failed (permanent, or out of attempts).

    Only jobs still owned move. Returns the moved jobs with their new state.
    """
    if not failures:
        return []
    params = {
        "ids": [f.job.id for f in failures], "attempts": [f.job.attempts for f in failures],
        "worker_ids": [f.job.worker_id for f in failures], "errors": [sanitize_error(f.error) for f in failures],
        "permanent": [f.permanent for f in failures], "at_commit": [f.at_commit for f in failures],
        "retry_seconds": [min(max(0.0, f.retry_seconds), MAX_RETRY_SECONDS) if math.isfinite(f.retry_seconds)
                          else 0.0 for f in failures],
        "now": now,
    }
    return _ended(conn.execute(QUERIES["job_fail"], params).fetchall())


MAX_RELEASES: Final = 10
"""A job given back at shutdown this many times ends failed at the next release."""


def release(conn: psycopg.Connection[Any], jobs: Iterable[ClaimedJob], *, now: datetime | None = None) -> set[int]:
    """running -> queued at shutdown, without counting the attempt against the job; a job released
    MAX_RELEASES times before ends failed instead. Returns the ids moved either way; use
    `release_ended` to also learn which failed (their end-of-job hooks must run)."""
    return {job.id for job in release_ended(conn, jobs, now=now)}


def release_ended(
    conn: psycopg.Connection[Any], jobs: Iterable[ClaimedJob], *, now: datetime | None = None
) -> list[EndedJob]:
    """`release`, returning the moved jobs with their new state (queued, or failed)."""
    params: dict[str, Any] = {**_token_params(jobs), "now": now, "max_releases": MAX_RELEASES}
    if not params["ids"]:
        return []
    return _ended(conn.execute(QUERIES["job_release"], params).fetchall())


def reclaim(
    conn: psycopg.Connection[Any], *, limit: int = 1000, now: datetime | None = None,
    dead_after_seconds: float | None = None,
) -> list[EndedJob]:
    """running with an expired lease -> queued (attempts remain) or failed. Returns the moved jobs.

    With `dead_after_seconds`, also the running jobs of a dead local worker, before their leases
    end: one whose liveness lock (`hold_liveness_lock`) no session holds any more and whose last
    heartbeat is older than that (see job_reclaim in queries.sql)."""
    return _ended(conn.execute(QUERIES["job_reclaim"], {
        "limit": limit, "now": now, "dead_after": dead_after_seconds}).fetchall())


def new_liveness_key() -> int:
    """A random advisory lock key for one worker process (positive, 62 bits): two workers sharing
    one by chance only means one of them is taken for alive, and waits for its leases as before."""
    return 1 + secrets.randbits(62)


def hold_liveness_lock(conn: psycopg.Connection[Any], key: int, worker_id: str | None = None) -> bool:
    """Take the worker's liveness lock on `conn`, a session that lives as long as the worker (its
    LISTEN connection); held until that session ends. False when another session holds the key.

    With `worker_id`, the worker's row names the key once it is held (`conn` in autocommit): a
    worker registers without one, so it never reads as dead before its listener has started."""
    row = conn.execute(QUERIES["worker_hold_liveness_lock"], {"key": key}).fetchone()
    held = bool(row and row[0])
    if held and worker_id is not None:
        conn.execute(QUERIES["worker_set_liveness_lock"], {"key": key, "id": worker_id})
    return held


def cancel(conn: psycopg.Connection[Any], job_id: int, *, now: datetime | None = None) -> EndedJob:
    """queued | running -> cancelled. Raises JobNotFoundError, or JobStateError if it had ended."""
    row = conn.execute(QUERIES["job_cancel"], {"id": job_id, "now": now}).fetchone()
    if row is None:
        state = _state_of(conn, job_id)
        raise JobStateError(f"job {job_id} is {state}; only queued or running jobs can be cancelled")
    return _ended([row])[0]


def cancel_many(
    conn: psycopg.Connection[Any], job_ids: Sequence[int], *, reason: str, now: datetime | None = None
) -> list[EndedJob]:
    """queued | running -> cancelled (with `reason` as the error) for those of `job_ids` still open
    and not locked by another transaction right now: it never waits, so it may run inside a
    completion transaction. Returns the moved jobs; running their end-of-job hooks is the caller's."""
    if not job_ids:
        return []
    return _ended(conn.execute(QUERIES["job_cancel_many"], {
        "ids": list(job_ids), "reason": sanitize_error(reason), "now": now}).fetchall())


def retry(conn: psycopg.Connection[Any], job_id: int, *, extra_attempts: int = 1, now: datetime | None = None) -> None:
    """failed | cancelled -> queued with `extra_attempts` more attempts. Raises as `cancel` does."""
    if extra_attempts <= 0:
        raise JobStateError("a retry needs at least one attempt")
    row = conn.execute(QUERIES["job_retry"], {"id": job_id, "extra_attempts": extra_attempts, "now": now}).fetchone()
    if row is None:
        state = _state_of(conn, job_id)
        raise JobStateError(f"job {job_id} is {state}; only failed or cancelled jobs can be retried")
    conn.execute(QUERIES["job_notify"], {"channel": NOTIFY_CHANNEL, "types": [get(conn, job_id)["type"]]})


def _state_of(conn: psycopg.Connection[Any], job_id: int) -> str:
    return str(get(conn, job_id)["state"])


def get(conn: psycopg.Connection[Any], job_id: int) -> dict[str, Any]:
    """The job's row as a dict. Raises JobNotFoundError."""
    cursor = conn.cursor(row_factory=dict_row)
    row = cursor.execute(QUERIES["job_get"], {"id": job_id}).fetchone()
    if row is None:
        raise JobNotFoundError(f"no job with id {job_id}")
    return row


def any_unfinished(conn: psycopg.Connection[Any], types: Sequence[str]) -> bool:
    """Whether a job of `types` is queued (due now or later: a retry waiting on its backoff) or running."""
    row = conn.execute(QUERIES["job_unfinished_of_types"], {"types": list(types)}).fetchone()
    return bool(row and row[0])


def list_jobs(
    conn: psycopg.Connection[Any], *, state: str | None = None, type: str | None = None,
    tenant: str | None = None, limit: int = 50,
) -> list[dict[str, Any]]:
    """Newest first, filtered."""
    if state is not None:
        state = JobState(state).value
    cursor = conn.cursor(row_factory=dict_row)
    return cursor.execute(
        QUERIES["job_list"], {"state": state, "type": type, "tenant": tenant, "limit": limit}
    ).fetchall()


def prune(
    conn: psycopg.Connection[Any], *, retention_seconds: float, batch_size: int = 5000,
    now: datetime | None = None,
) -> int:
    """Delete finished jobs older than the retention period, in batches; returns how many."""
    total = 0
    while True:
        deleted = conn.execute(QUERIES["job_prune"], {
            "retention_seconds": retention_seconds, "limit": batch_size, "now": now,
        }).rowcount
        total += deleted
        if deleted < batch_size:
            return total


def prune_workers(conn: psycopg.Connection[Any], *, now: datetime | None = None) -> int:
    """Forget workers stopped or unseen for a week (the `workers` table would otherwise grow by one
    row per process ever started); returns how many rows went."""
    return conn.execute(QUERIES["worker_prune"], {"now": now}).rowcount


def set_tenant_cap(conn: psycopg.Connection[Any], tenant: str, max_running: int) -> None:
    """Cap a tenant's running jobs across all pools (0 = no cap)."""
    if max_running < 0:
        raise ValueError("max_running must be 0 (no cap) or positive")
    conn.execute(QUERIES["tenant_limit_set"], {"tenant": tenant, "max_running": max_running})


def set_tenant_priority(conn: psycopg.Connection[Any], tenant: str, priority: int) -> None:
    """The operator's priority of a tenant's jobs over other tenants' (-1000..1000, default 0)."""
    if not -1000 <= priority <= 1000:
        raise ValueError("a tenant's priority is between -1000 and 1000")
    conn.execute(QUERIES["tenant_priority_set"], {"tenant": tenant, "priority": priority})


def held_by(conn: psycopg.Connection[Any], worker_id: str, claims: Iterable[tuple[int, int]]) -> list[ClaimedJob]:
    """The claims among `claims` ((id, attempts) pairs) that `worker_id` still holds, as ClaimedJobs.

    A claim missing from the answer was reclaimed, cancelled, finished, or never this worker's. The
    answer is a read: the verbs that write (heartbeat, complete, fail, release) check ownership again.
    """
    pairs = list(claims)
    if not pairs:
        return []
    cursor = conn.cursor(row_factory=dict_row)
    rows = cursor.execute(QUERIES["job_held_by_worker"], {
        "worker_id": worker_id, "ids": [job_id for job_id, _ in pairs], "attempts": [a for _, a in pairs],
    }).fetchall()
    return [ClaimedJob(**row) for row in rows]
