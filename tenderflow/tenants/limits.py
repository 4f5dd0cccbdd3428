"""Per-tenant upload limits (review D7): a rate of uploads per minute and a quota of stored bytes;
and how long the tenant's documents are kept (issue 13: older ones are deleted by
tenderflow.pipeline.deletion).

They keep uploads that fail, or that are never processed, from becoming free storage or free work:
every upload request over the API counts against the rate, refused or not, before its body is read;
every stored document counts against the quota, failed ones included (their bytes stay stored).

Each limit is the tenant's own when the operator set one (`tenderflow tenants limits`), else the
settings' default (TENDERFLOW_TENANT_UPLOADS_PER_MINUTE, TENDERFLOW_TENANT_MAX_STORED_BYTES,
TENDERFLOW_DOCUMENT_RETENTION_DAYS); 0 means no limit (for the retention period: kept for ever).
The upload limits are decided under the tenant's row lock, so concurrent uploads cannot together
pass a limit that each alone would not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from tenderflow.errors import StorageQuotaExceededError, TenantNotFoundError, UploadRateLimitedError
from tenderflow.tenants.queries import QUERIES

RATE_WINDOW_SECONDS = 60.0
MAX_RETENTION_DAYS = 36_500
"""A hundred years. Far more would put the retention sweep's cut-off before the earliest time
PostgreSQL can hold, and its query would fail for every tenant."""


@dataclass(frozen=True)
class UploadLimits:
    """The limits that apply to a tenant (0 = none), and whether each is the tenant's own."""

    uploads_per_minute: int
    max_stored_bytes: int
    own_rate: bool = False
    own_quota: bool = False
    retention_days: int = 0
    """Days its documents are kept after their upload (0: for ever)."""
    own_retention: bool = False


def limits_of(
    conn: psycopg.Connection[Any], tenant: str, *, default_per_minute: int, default_max_stored_bytes: int,
    default_retention_days: int = 0,
) -> UploadLimits:
    """The tenant's limits: its own where set, else the defaults. Raises TenantNotFoundError."""
    row = conn.execute(QUERIES["tenant_limits_get"], {"name": tenant}).fetchone()
    if row is None:
        raise TenantNotFoundError(f"no tenant named {tenant!r}")
    per_minute, max_bytes, retention = row
    return UploadLimits(
        uploads_per_minute=default_per_minute if per_minute is None else int(per_minute),
        max_stored_bytes=default_max_stored_bytes if max_bytes is None else int(max_bytes),
        own_rate=per_minute is not None, own_quota=max_bytes is not None,
        retention_days=default_retention_days if retention is None else int(retention),
        own_retention=retention is not None,
    )


_UNCHANGED: Any = object()


def set_limits(
    conn: psycopg.Connection[Any], tenant: str, *, uploads_per_minute: int | None = _UNCHANGED,
    max_stored_bytes: int | None = _UNCHANGED, retention_days: int | None = _UNCHANGED,
) -> None:
    """Set the tenant's own limits (None: back to the settings' default; 0: no limit); a limit not
    passed stays as it is. Raises TenantNotFoundError, ValueError for a negative limit or a retention
    period over MAX_RETENTION_DAYS."""
    for value in (uploads_per_minute, max_stored_bytes, retention_days):
        if value is not _UNCHANGED and value is not None and value < 0:
            raise ValueError("a limit is 0 (none) or more")
    if retention_days is not _UNCHANGED and retention_days is not None and retention_days > MAX_RETENTION_DAYS:
        raise ValueError(f"a retention period is at most {MAX_RETENTION_DAYS:,} days (0 keeps documents for ever)")
    with conn.transaction():
        if conn.execute(QUERIES["tenant_lock"], {"name": tenant}).fetchone() is None:
            raise TenantNotFoundError(f"no tenant named {tenant!r}")
        if uploads_per_minute is not _UNCHANGED:
            conn.execute(QUERIES["tenant_set_uploads_per_minute"], {"name": tenant, "value": uploads_per_minute})
        if max_stored_bytes is not _UNCHANGED:
            conn.execute(QUERIES["tenant_set_max_stored_bytes"], {"name": tenant, "value": max_stored_bytes})
        if retention_days is not _UNCHANGED:
            conn.execute(QUERIES["tenant_set_retention_days"], {"name": tenant, "value": retention_days})


def admit_upload(
    conn: psycopg.Connection[Any], tenant: str, *, default_per_minute: int, now: datetime | None = None
) -> None:
    """Count one upload request of the tenant, or refuse it when the last minute already holds its
    limit of them. Raises UploadRateLimitedError (with the seconds until one is allowed),
    TenantNotFoundError. Its own transaction: a refused upload leaves nothing but its count."""
    with conn.transaction():
        row = conn.execute(QUERIES["tenant_lock_limits"], {"name": tenant}).fetchone()
        if row is None:
            raise TenantNotFoundError(f"no tenant named {tenant!r}")
        limit = default_per_minute if row[0] is None else int(row[0])
        if limit == 0:
            return
        params = {"tenant": tenant, "now": now, "window": RATE_WINDOW_SECONDS}
        conn.execute(QUERIES["upload_requests_prune"], params)
        count, wait = conn.execute(QUERIES["upload_requests_in_window"], {**params, "limit": limit}).fetchone() \
            or (0, None)
        if int(count) >= limit:
            retry_after = max(1, math.ceil(float(wait or 0)))
            raise UploadRateLimitedError(
                f"tenant {tenant!r} has sent the {limit} uploads it may send per minute; try again in "
                f"{retry_after} s (the operator can raise the limit: `tenderflow tenants limits {tenant} "
                "--uploads-per-minute N`)", retry_after=retry_after)
        conn.execute(QUERIES["upload_request_add"], params)


def stored_bytes(conn: psycopg.Connection[Any], tenant: str) -> int:
    """Bytes of the tenant's stored PDFs: the sizes of its documents (one object each)."""
    row = conn.execute(QUERIES["tenant_stored_bytes"], {"tenant": tenant}).fetchone()
    return int(row[0]) if row is not None else 0


def check_storage(
    conn: psycopg.Connection[Any], tenant: str, *, adding: int, default_max_stored_bytes: int, lock: bool = False
) -> None:
    """Raise StorageQuotaExceededError when the tenant's stored bytes plus `adding` pass its quota.
    `lock`: take the tenant's row lock first (inside the upload's transaction: the deciding check;
    without it, the early check before the object is stored)."""
    row = conn.execute(QUERIES["tenant_lock_limits" if lock else "tenant_limits_get"], {"name": tenant}).fetchone()
    if row is None:
        raise TenantNotFoundError(f"no tenant named {tenant!r}")
    quota = default_max_stored_bytes if row[1] is None else int(row[1])
    if quota == 0:
        return
    stored = stored_bytes(conn, tenant)
    if stored + adding > quota:
        raise StorageQuotaExceededError(
            f"tenant {tenant!r} has {stored:,} bytes stored of its quota of {quota:,}; this upload needs "
            f"{adding:,} more. Documents, failed ones included, count until the operator removes them or "
            f"raises the quota (`tenderflow tenants limits {tenant} --max-stored-bytes N`)")
