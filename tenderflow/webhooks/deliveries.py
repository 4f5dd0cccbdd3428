"""Events, their deliveries to each endpoint, and every attempt: the queue side of webhooks.

    emit(conn, tenant=…, event_type="document.done", document_id=42, version=1)
        in the caller's transaction (the one that makes the version done or failed): one event, one
        delivery per endpoint of the tenant that wants it, one `webhook.deliver` job per delivery
    emit_tender(conn, tenant=…, event_type="tender.updated", tender_id=7, revision=3)
        the same for a tender's event, in the transaction of the merge that made the revision
    load(conn, delivery_id)                   what an attempt sends, and to where
    request_for(target, data, now=…)          the body and the signed headers of one attempt
    record_attempt(conn, target, job_id, outcome, …)   the attempt's log row; the delivery's and
                                              the endpoint's state (disabled after too many failures)
    end_deliveries_of_ended_jobs              the queue's end-of-job hook for `webhook.deliver`
    list_deliveries / get_delivery / redeliver / redeliver_failed / send_ping

Delivery states are listed in migration 0016. A delivery's job is retried by the queue (the handler
raises AttemptFailedError from its commit step after recording the attempt), so deliveries survive
restarts and take turns between tenants like any other job; its budget of attempts is the
handler's (TENDERFLOW_WEBHOOK_MAX_ATTEMPTS, read when each attempt fails), the job's max_attempts
only a ceiling for attempts that never got to record anything (a worker killed mid-request).
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import psycopg
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row

from tenderflow.database import Database, borrowed
from tenderflow.errors import PingRateLimitedError, WebhookError, WebhookNotFoundError
from tenderflow.queue import EndedJob, JobSpec, enqueue_many
from tenderflow.queue.jobs import sanitize_error
from tenderflow.webhooks.addresses import AddressPolicy, Resolver, system_resolver
from tenderflow.webhooks.endpoints import QUERIES, close_open_deliveries, get_endpoint
from tenderflow.webhooks.signing import SIGNATURE_HEADER, signature_header
from tenderflow.webhooks.transport import PostOutcome, post

JOB_DELIVER: Final = "webhook.deliver"
DELIVERY_JOB_ATTEMPTS: Final = 50
"""The ceiling of a delivery job's attempts; the handler ends it far sooner (its own budget)."""
DELIVERY_STATES: Final = ("pending", "retrying", "delivered", "failed", "skipped", "cancelled")
FINAL_STATES: Final = ("delivered", "failed", "skipped", "cancelled")


def delivery_spec(delivery_id: int, tenant: str, redelivery: int = 0) -> JobSpec:
    """The job that sends one delivery (its `redelivery`-th sending: 0 the first)."""
    return JobSpec(type=JOB_DELIVER, tenant=tenant, payload={"delivery_id": delivery_id},
                   max_attempts=DELIVERY_JOB_ATTEMPTS, unique_key=f"{JOB_DELIVER}:{delivery_id}:{redelivery}")


def _enqueue(conn: psycopg.Connection[Any], specs: Sequence[tuple[int, JobSpec]]) -> list[int]:
    job_ids = enqueue_many(conn, [spec for _, spec in specs])
    conn.execute(QUERIES["delivery_set_jobs"], {"ids": [delivery_id for delivery_id, _ in specs], "job_ids": job_ids})
    return job_ids


def emit(
    conn: psycopg.Connection[Any], *, tenant: str, event_type: str, document_id: int, version: int
) -> list[int]:
    """In the caller's transaction: the event, a delivery per enabled endpoint of `tenant` that
    wants `event_type`, and its job; returns the delivery ids (none: no event is stored either)."""
    return _emit(conn, tenant, event_type, {"document_id": document_id, "version": version,
                                            "tender_id": None, "revision": None})


def emit_tender(
    conn: psycopg.Connection[Any], *, tenant: str, event_type: str, tender_id: int, revision: int
) -> list[int]:
    """`emit` for a tender's event (tender.updated, tender.deadline_changed), naming the tender's
    revision that caused it; in the caller's transaction (the merge's)."""
    return _emit(conn, tenant, event_type, {"document_id": None, "version": None,
                                            "tender_id": tender_id, "revision": revision})


def _emit(conn: psycopg.Connection[Any], tenant: str, event_type: str, subject: dict[str, int | None]) -> list[int]:
    # In the caller's transaction as it is (the pipeline's completion, a merge); else in one of its own.
    in_transaction = conn.info.transaction_status == TransactionStatus.INTRANS
    with contextlib.nullcontext() if in_transaction else conn.transaction():
        rows = conn.execute(QUERIES["event_emit"], {"tenant": tenant, "type": event_type, **subject}).fetchall()
        ids = [int(row[0]) for row in rows]
        if ids:
            _enqueue(conn, [(delivery_id, delivery_spec(delivery_id, tenant)) for delivery_id in ids])
    return ids


@dataclass(frozen=True)
class DeliveryTarget:
    """One delivery as an attempt sees it: where it goes, signed with what, telling which event."""

    id: int
    state: str
    attempts: int
    tenant: str
    endpoint_id: int
    url: str
    enabled: bool
    removed: bool
    secret: str | None
    previous_secret: str | None
    event_id: str
    event_type: str
    event_created_at: datetime
    document_id: int | None
    version: int | None
    tender_id: int | None = None
    revision: int | None = None

    @property
    def signing_secrets(self) -> list[str]:
        return [secret for secret in (self.secret, self.previous_secret) if secret]

    def why_not_sent(self) -> str | None:
        """Why this delivery must not be sent now, if it must not."""
        if self.removed:
            return "the endpoint was removed"
        if not self.enabled:
            return "the endpoint is disabled"
        if self.state == "delivered":
            return "the delivery is already delivered"  # a second job for it (a redelivery beside a retry)
        return None  # failed or cancelled, yet its job runs: an operator retried it (`jobs retry`)


def load(conn: psycopg.Connection[Any], delivery_id: int) -> DeliveryTarget | None:
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["delivery_load"], {"id": delivery_id}).fetchone()
    return None if row is None else DeliveryTarget(**row)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return _iso(value)
    return str(value)


def envelope(target: DeliveryTarget, data: Mapping[str, Any]) -> bytes:
    """The request body: the event (its id, type, time, tenant) around `data`, as compact JSON
    (times in ISO 8601, UTC)."""
    return json.dumps({"id": target.event_id, "type": target.event_type, "created_at": _iso(target.event_created_at),
                       "tenant": target.tenant, "data": data}, ensure_ascii=False, separators=(",", ":"),
                      default=_json_value).encode()


def request_headers(target: DeliveryTarget, body: bytes, *, attempt: int, now: float | None = None) -> dict[str, str]:
    """The headers of one attempt: what the event is, its idempotency id (the same on every attempt
    and redelivery), and the signature over this attempt's timestamp and the body."""
    timestamp = int(time.time() if now is None else now)
    return {
        "Tenderflow-Event": target.event_type,
        "Tenderflow-Event-Id": target.event_id,
        "Idempotency-Key": target.event_id,
        "Tenderflow-Delivery": str(target.id),
        "Tenderflow-Attempt": str(attempt),
        SIGNATURE_HEADER: signature_header(target.signing_secrets, timestamp, body),
    }


@dataclass(frozen=True)
class AttemptRecord:
    """What recording an attempt did: its number, the delivery's new state, and whether the
    endpoint is (or just got) disabled."""

    attempt: int
    state: str
    endpoint_enabled: bool
    endpoint_disabled_now: bool


def record_attempt(
    conn: psycopg.Connection[Any], target: DeliveryTarget, *, job_id: int | None, outcome: PostOutcome,
    final: bool, retry_in_seconds: float | None = None, disable_after: int = 0,
) -> AttemptRecord:
    """Write one attempt's row, then the delivery's state (delivered; else failed when `final`,
    retrying in `retry_in_seconds` otherwise) and the endpoint's count of failures: the attempt
    that reaches `disable_after` failures in a row (0: never) disables the endpoint and cancels its
    other open deliveries. A failed attempt of a delivery whose endpoint ends up disabled is final."""
    failure = outcome.failure()
    error = sanitize_error(failure) if failure else None
    with conn.transaction():
        enabled, disabled_now = True, False
        if failure is None:
            conn.execute(QUERIES["endpoint_delivered"], {"id": target.endpoint_id})
        else:
            endpoint = conn.execute(QUERIES["endpoint_failed"], {
                "id": target.endpoint_id, "disable_after": disable_after,
                "reason": f"{disable_after} failed attempts in a row (the last: {error})",
            }).fetchone()
            assert endpoint is not None
            enabled, disabled_now = bool(endpoint[0]), bool(endpoint[1])
        state = "delivered" if failure is None else "failed" if final or not enabled else "retrying"
        numbered = conn.execute(QUERIES["attempt_record"], {
            "delivery_id": target.id, "job_id": job_id, "outcome": "delivered" if failure is None else "failed",
            "status_code": outcome.status_code, "error": error, "address": outcome.address,
            "duration_ms": outcome.duration_ms, "response": sanitize_error(outcome.response), "state": state,
            "retry_seconds": retry_in_seconds if state == "retrying" else None,
        }).fetchone()
        assert numbered is not None
        if disabled_now:
            close_open_deliveries(conn, target.endpoint_id, except_delivery=target.id,
                                  reason=f"the endpoint was disabled after {disable_after} failed attempts in a row")
    return AttemptRecord(int(numbered[0]), state, enabled, disabled_now)


def mark_skipped(conn: psycopg.Connection[Any], delivery_id: int, reason: str) -> None:
    """pending | retrying -> skipped, with the reason (the document was deleted, the endpoint is off)."""
    conn.execute(QUERIES["deliveries_close"], {"ids": [delivery_id], "state": "skipped",
                                               "reason": sanitize_error(reason)})


def end_deliveries_of_ended_jobs(conn: psycopg.Connection[Any], ended: Sequence[EndedJob]) -> None:
    """Queue hook: a `webhook.deliver` job that ended failed or cancelled ends its delivery the same
    way, unless its last attempt already did (a lease lost on the final attempt, a cancellation)."""
    for job in ended:
        if job.type == JOB_DELIVER and "delivery_id" in job.payload and job.state.value in ("failed", "cancelled"):
            conn.execute(QUERIES["delivery_end"], {
                "ids": [int(job.payload["delivery_id"])], "state": job.state.value, "error": job.error})


# --- reading the log and sending again ---------------------------------------------------------


def list_deliveries(
    conn: psycopg.Connection[Any], *, tenant: str | None = None, endpoint_id: int | None = None,
    state: str | None = None, document_id: int | None = None, event_type: str | None = None,
    limit: int = 50, before_id: int | None = None,
) -> list[dict[str, Any]]:
    """Deliveries newest first, `limit` of them with an id below `before_id` (the cursor)."""
    if state is not None and state not in DELIVERY_STATES:
        raise WebhookError(f"unknown delivery state {state!r}; choose from {', '.join(DELIVERY_STATES)}")
    return conn.cursor(row_factory=dict_row).execute(QUERIES["delivery_list"], {
        "tenant": tenant, "endpoint_id": endpoint_id, "state": state, "document_id": document_id,
        "event_type": event_type, "before_id": before_id, "limit": limit}).fetchall()


def get_delivery(conn: psycopg.Connection[Any], delivery_id: int, *, tenant: str | None = None) -> dict[str, Any]:
    """One delivery with every attempt; raises WebhookNotFoundError (also for another tenant's)."""
    rows = conn.cursor(row_factory=dict_row).execute(QUERIES["delivery_list"], {
        "tenant": tenant, "endpoint_id": None, "state": None, "document_id": None, "event_type": None,
        "before_id": delivery_id + 1, "limit": 1}).fetchall()
    if not rows or rows[0]["id"] != delivery_id:
        raise WebhookNotFoundError(f"no webhook delivery with id {delivery_id}")
    attempts = conn.cursor(row_factory=dict_row).execute(QUERIES["attempt_list"], {"delivery_id": delivery_id})
    return {**rows[0], "attempt_log": attempts.fetchall()}


def redeliver(conn: psycopg.Connection[Any], delivery_ids: Iterable[int], *, tenant: str | None = None) -> list[int]:
    """Send deliveries that have ended (delivered, failed, skipped, cancelled) again, with the same
    event id (receivers deduplicate on it), each by a new job; returns the job ids. Raises
    WebhookNotFoundError for an unknown id, WebhookError for one still being sent or whose
    endpoint was removed. Nothing is enqueued when it raises."""
    specs: list[tuple[int, JobSpec]] = []
    with conn.transaction():
        for delivery_id in delivery_ids:
            row = conn.execute(QUERIES["delivery_redeliver"], {"id": delivery_id, "tenant": tenant}).fetchone()
            if row is None:
                current = get_delivery(conn, delivery_id, tenant=tenant)  # raises when not found
                why = ("it is still being sent" if current["state"] not in FINAL_STATES
                       else "its endpoint was removed")
                raise WebhookError(f"delivery {delivery_id} cannot be sent again: {why}")
            specs.append((int(row[0]), delivery_spec(int(row[0]), str(row[2]), int(row[1]))))
        return _enqueue(conn, specs) if specs else []


def redeliver_failed(conn: psycopg.Connection[Any], endpoint_id: int, *, tenant: str | None = None) -> list[int]:
    """Send again every failed or cancelled delivery of the endpoint (after fixing the receiver and
    enabling it again); returns the job ids. Raises WebhookNotFoundError."""
    get_endpoint(conn, endpoint_id, tenant=tenant)
    rows = conn.execute(QUERIES["deliveries_failed_of_endpoint"],
                        {"endpoint_id": endpoint_id, "tenant": tenant}).fetchall()
    return redeliver(conn, [int(row[0]) for row in rows], tenant=tenant)


@dataclass(frozen=True)
class PingResult:
    delivery_id: int
    attempt: int
    outcome: PostOutcome


PINGS_AT_ONCE: Final = 2
"""A tenant's pings under way at once (each waits up to TENDERFLOW_WEBHOOK_TIMEOUT_SECONDS on its receiver)."""
PINGS_PER_MINUTE: Final = 10
"""A tenant's pings sent in any minute."""


def send_ping(
    database: Database, endpoint_id: int, *, policy: AddressPolicy, timeout_seconds: float,
    tenant: str | None = None, resolver: Resolver = system_resolver,
) -> PingResult:
    """Send a `ping` event to the endpoint now, from this process (a test of the receiver and its
    signature check: it is signed like every delivery), and log it as a delivery with one attempt.
    A disabled endpoint can be pinged (to see it answers again before enabling it).

    `database`: the API passes its pool, and no connection is held while the receiver is waited on
    (review security-2, D-N2); the delivery is written before, its attempt after. A tenant may have
    PINGS_AT_ONCE pings under way and send PINGS_PER_MINUTE a minute, whichever process sends them.
    Raises WebhookNotFoundError, PingRateLimitedError."""
    with borrowed(database) as conn:
        endpoint = get_endpoint(conn, endpoint_id, tenant=tenant)
        with conn.transaction():
            _admit_ping(conn, endpoint.tenant, timeout_seconds)
            event = conn.execute(QUERIES["event_insert_ping"], {"tenant": endpoint.tenant}).fetchone()
            assert event is not None
            delivery = conn.execute(QUERIES["delivery_insert"], {
                "event_id": event[0], "endpoint_id": endpoint.id, "tenant": endpoint.tenant}).fetchone()
            assert delivery is not None
        target = load(conn, int(delivery[0]))
    assert target is not None
    body = envelope(target, {"endpoint": {"id": endpoint.id, "url": endpoint.url, "events": endpoint.events},
                             "message": "a test of this endpoint; tenderflow expects a 2xx answer"})
    outcome = post(target.url, body, request_headers(target, body, attempt=1), policy=policy,
                   timeout_seconds=timeout_seconds, resolver=resolver)
    with borrowed(database) as conn:
        record = record_attempt(conn, target, job_id=None, outcome=outcome, final=True)
    return PingResult(target.id, record.attempt, outcome)


def _admit_ping(conn: psycopg.Connection[Any], tenant: str, timeout_seconds: float) -> None:
    """In the ping's transaction, under the tenant's ping lock: refuse a ping over the tenant's
    limits (PingRateLimitedError, with the seconds until one is allowed). A ping still pending past
    its timeout (its process died) no longer counts as under way."""
    conn.execute(QUERIES["pings_lock"], {"tenant": tenant})
    row = conn.execute(QUERIES["pings_recent"], {"tenant": tenant, "in_flight_seconds": timeout_seconds + 5}).fetchone()
    assert row is not None
    under_way, last_minute, minute_ends_in = int(row[0]), int(row[1]), row[2]
    if under_way >= PINGS_AT_ONCE:
        raise PingRateLimitedError(
            f"tenant {tenant!r} has {under_way} pings under way, the most it may have at once; try again when "
            "they are answered", retry_after=max(1.0, min(timeout_seconds, 5.0)))
    if last_minute >= PINGS_PER_MINUTE:
        raise PingRateLimitedError(
            f"tenant {tenant!r} has sent the {PINGS_PER_MINUTE} pings it may send per minute; try again in "
            f"{math.ceil(float(minute_ends_in or 1))} s", retry_after=max(1.0, float(minute_ends_in or 1)))
