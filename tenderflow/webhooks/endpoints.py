"""A tenant's webhook endpoints: register, list, change, disable and enable, rotate the secret, remove.

    create_endpoint(conn, "acme", "https://bids.example.com/hooks", policy=policy)  -> CreatedEndpoint
        (.secret is shown once: it is what the receiver verifies signatures with)

Every function takes the tenant it acts for (None: the operator, who sees every tenant's); an
endpoint of another tenant answers WebhookNotFoundError, like one that does not exist. Disabling or
removing an endpoint cancels the deliveries it still had to send (their jobs too), so the queue
does not keep retrying towards a receiver nobody wants told.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import psycopg
from psycopg.rows import dict_row

from tenderflow.errors import TenantNotFoundError, WebhookError, WebhookNotFoundError
from tenderflow.queue import cancel_many
from tenderflow.sqlfiles import NamedQueries
from tenderflow.webhooks.addresses import AddressPolicy, Resolver, WebhookUrl, check_registration, system_resolver
from tenderflow.webhooks.signing import new_secret

QUERIES = NamedQueries("tenderflow.webhooks", "queries.sql")

DOCUMENT_DONE: Final = "document.done"
DOCUMENT_FAILED: Final = "document.failed"
TENDER_UPDATED: Final = "tender.updated"
TENDER_DEADLINE_CHANGED: Final = "tender.deadline_changed"
EVENT_TYPES: Final = (DOCUMENT_DONE, DOCUMENT_FAILED, TENDER_UPDATED, TENDER_DEADLINE_CHANGED)
DEFAULT_EVENTS: Final = (DOCUMENT_DONE, DOCUMENT_FAILED)
"""What an endpoint registered without naming events is told: the documents' events (the tenders'
came later, and a receiver written for documents is not sent bodies it never saw)."""
MAX_ENDPOINTS_PER_TENANT: Final = 20
ROTATION_OVERLAP_SECONDS: Final = 24 * 3600.0


@dataclass(frozen=True)
class Endpoint:
    """An endpoint as its tenant sees it (never its secret)."""

    id: int
    tenant: str
    url: str
    events: list[str]
    description: str
    enabled: bool
    disabled_reason: str | None
    consecutive_failures: int
    last_delivered_at: datetime | None
    created_at: datetime
    rotating: bool | None
    """The previous secret still signs too (for a day after `rotate_secret`, by default)."""

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "tenant": self.tenant, "url": self.url, "events": self.events,
                "description": self.description, "enabled": self.enabled, "disabled_reason": self.disabled_reason,
                "consecutive_failures": self.consecutive_failures, "last_delivered_at": self.last_delivered_at,
                "created_at": self.created_at, "rotating": bool(self.rotating)}


@dataclass(frozen=True)
class CreatedEndpoint:
    endpoint: Endpoint
    secret: str


def parse_events(events: Sequence[str] | None) -> list[str]:
    """The event types asked for, in their order, without repeats (None or empty: DEFAULT_EVENTS).
    Raises WebhookError naming an unknown one."""
    if not events:
        return list(DEFAULT_EVENTS)
    wanted: list[str] = []
    for event in (item.strip() for item in events):
        if event not in EVENT_TYPES:
            raise WebhookError(f"unknown webhook event {event!r}; choose from {', '.join(EVENT_TYPES)}")
        if event not in wanted:
            wanted.append(event)
    return wanted


def _description(text: str | None) -> str | None:
    if text is None:
        return None
    cleaned = "".join(ch for ch in text if ch.isprintable()).strip()
    if len(cleaned) > 200:
        raise WebhookError("a webhook's description has at most 200 characters")
    return cleaned


def list_endpoints(conn: psycopg.Connection[Any], *, tenant: str | None = None) -> list[Endpoint]:
    """The endpoints not removed, oldest first: the tenant's, or everyone's for tenant None."""
    rows = conn.cursor(row_factory=dict_row).execute(QUERIES["endpoint_list"], {"tenant": tenant, "id": None})
    return [Endpoint(**row) for row in rows.fetchall()]


def get_endpoint(conn: psycopg.Connection[Any], endpoint_id: int, *, tenant: str | None = None) -> Endpoint:
    """The endpoint; raises WebhookNotFoundError (also for another tenant's, or a removed one)."""
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["endpoint_list"], {"tenant": tenant, "id": endpoint_id}).fetchone()
    if row is None:
        raise WebhookNotFoundError(f"no webhook endpoint with id {endpoint_id}")
    return Endpoint(**row)


def create_endpoint(
    conn: psycopg.Connection[Any], tenant: str, url: str | WebhookUrl, *, policy: AddressPolicy,
    events: Sequence[str] | None = None, description: str = "", resolver: Resolver = system_resolver,
) -> CreatedEndpoint:
    """Register `url` for `events` (default: all) of `tenant`, with a new secret. A URL already
    checked (`check_registration`, which resolves its name: the API does it before it takes a
    connection) is not checked again. Raises WebhookUrlError (the reason: not http(s), a private
    address…), WebhookError (unknown events, too many endpoints), TenantNotFoundError. Nothing is
    written when it raises."""
    checked = url if isinstance(url, WebhookUrl) else check_registration(url, policy, resolver=resolver)
    wanted = parse_events(events)
    secret = new_secret()
    with conn.transaction():
        count = conn.execute(QUERIES["endpoint_count_live"], {"tenant": tenant}).fetchone()
        if count is not None and count[0] >= MAX_ENDPOINTS_PER_TENANT:
            raise WebhookError(f"tenant {tenant!r} has {count[0]} webhook endpoints, the most it may have; "
                               "remove one first")
        try:
            row = conn.execute(QUERIES["endpoint_insert"], {
                "tenant": tenant, "url": checked.url, "events": wanted, "description": _description(description) or "",
                "secret": secret}).fetchone()
        except psycopg.errors.ForeignKeyViolation as exc:
            raise TenantNotFoundError(f"no tenant named {tenant!r}") from exc
    assert row is not None
    return CreatedEndpoint(get_endpoint(conn, int(row[0])), secret)


def update_endpoint(
    conn: psycopg.Connection[Any], endpoint_id: int, *, policy: AddressPolicy, tenant: str | None = None,
    url: str | WebhookUrl | None = None, events: Sequence[str] | None = None, description: str | None = None,
    resolver: Resolver = system_resolver,
) -> Endpoint:
    """Change the URL (checked as at registration, unless given checked), the events or the
    description. Raises as `create_endpoint` does, and WebhookNotFoundError."""
    if isinstance(url, WebhookUrl):
        checked: str | None = url.url
    else:
        checked = check_registration(url, policy, resolver=resolver).url if url is not None else None
    row = conn.execute(QUERIES["endpoint_update"], {
        "id": endpoint_id, "tenant": tenant, "url": checked,
        "events": parse_events(events) if events is not None else None, "description": _description(description),
    }).fetchone()
    if row is None:
        raise WebhookNotFoundError(f"no webhook endpoint with id {endpoint_id}")
    return get_endpoint(conn, endpoint_id)


def close_open_deliveries(
    conn: psycopg.Connection[Any], endpoint_id: int, *, reason: str, except_delivery: int | None = None,
) -> int:
    """Cancel the endpoint's deliveries still to be sent (but `except_delivery`) and their jobs,
    without waiting on a job whose completion another transaction is committing right now (that
    one sees the endpoint disabled in its own commit). Returns how many deliveries were closed."""
    rows = conn.execute(QUERIES["endpoint_open_deliveries"],
                        {"endpoint_id": endpoint_id, "except_id": except_delivery}).fetchall()
    if not rows:
        return 0
    cancel_many(conn, [int(job_id) for _, job_id in rows if job_id is not None], reason=reason)
    return conn.execute(QUERIES["deliveries_close"], {
        "ids": [int(delivery_id) for delivery_id, _ in rows], "state": "cancelled", "reason": reason}).rowcount


def set_enabled(
    conn: psycopg.Connection[Any], endpoint_id: int, enabled: bool, *, tenant: str | None = None,
    reason: str = "disabled by hand",
) -> Endpoint:
    """Enable (its count of failures starts again) or disable the endpoint; disabling cancels what
    it still had to send (`redeliver` sends it later). Raises WebhookNotFoundError."""
    with conn.transaction():
        row = conn.execute(QUERIES["endpoint_set_enabled"], {
            "id": endpoint_id, "tenant": tenant, "enabled": enabled, "reason": reason}).fetchone()
        if row is None:
            raise WebhookNotFoundError(f"no webhook endpoint with id {endpoint_id}")
        if not enabled:
            close_open_deliveries(conn, endpoint_id, reason=f"the endpoint was disabled: {reason}")
    return get_endpoint(conn, endpoint_id)


def remove_endpoint(conn: psycopg.Connection[Any], endpoint_id: int, *, tenant: str | None = None) -> None:
    """Remove the endpoint (its deliveries stay in the log; what it still had to send is cancelled).
    Raises WebhookNotFoundError."""
    with conn.transaction():
        if conn.execute(QUERIES["endpoint_remove"], {"id": endpoint_id, "tenant": tenant}).fetchone() is None:
            raise WebhookNotFoundError(f"no webhook endpoint with id {endpoint_id}")
        close_open_deliveries(conn, endpoint_id, reason="the endpoint was removed")


def rotate_secret(
    conn: psycopg.Connection[Any], endpoint_id: int, *, tenant: str | None = None,
    keep_old_seconds: float = ROTATION_OVERLAP_SECONDS,
) -> str:
    """A new secret for the endpoint (returned: shown once). The old one still signs every request
    beside the new one for `keep_old_seconds` (0: not at all), so the receiver can switch without
    refusing a request. Raises WebhookNotFoundError."""
    if keep_old_seconds < 0:
        raise WebhookError("the old secret cannot be kept for a negative time")
    secret = new_secret()
    row = conn.execute(QUERIES["endpoint_rotate"], {
        "id": endpoint_id, "tenant": tenant, "secret": secret, "keep_seconds": keep_old_seconds}).fetchone()
    if row is None:
        raise WebhookNotFoundError(f"no webhook endpoint with id {endpoint_id}")
    return secret
