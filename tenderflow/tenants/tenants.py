"""Tenants: the customers one tenderflow serves, each with credits and a cap on running jobs.

A tenant's name is the `tenant` text on its jobs and documents and a segment of its storage keys,
so it follows `tenderflow.pipeline.storage.object_key`'s rule (`TENANT_NAME`; the tenants table's
CHECK says the same, and a test keeps the three equal). The running cap is the queue's own
(`job_tenant_limits`, enforced exactly by the claim); a tenant without one gets the workers'
default (`TENDERFLOW_TENANT_MAX_RUNNING`).

The `default` tenant (created by the migration) serves single-tenant use: it has unlimited
credits until `tenants credits set default N` gives it a balance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row

from tenderflow.errors import TenantExistsError, TenantNotFoundError
from tenderflow.queue import set_tenant_cap, set_tenant_priority
from tenderflow.tenants import credits as ledger
from tenderflow.tenants.queries import QUERIES

DEFAULT_TENANT = "default"
TENANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]{0,62}")


@dataclass(frozen=True)
class Tenant:
    """A tenant as operators see it. `max_running` None: the workers' default cap applies."""

    name: str
    balance: int
    unlimited: bool
    max_running: int | None
    open_reserved: int
    charged: int
    active_keys: int
    created_at: datetime
    ocr_languages: str | None = None
    """Tesseract languages its uploads are OCRed with unless an upload names its own; None: detected."""
    priority: int = 0
    """The operator's priority of its jobs over other tenants' (a job's own priority orders only its
    tenant's jobs)."""

    def as_dict(self) -> dict[str, Any]:
        return dict(vars(self))


def validate_tenant_name(name: str) -> str:
    """Return `name` if it can name a tenant, else raise ValueError saying the rule."""
    if not TENANT_NAME.fullmatch(name):
        raise ValueError(
            f"{name!r} cannot name a tenant: a tenant name is 1 to 63 letters (a-z, A-Z), digits, '_' or '-', "
            "and starts with a letter or a digit"
        )
    return name


def _tenant(row: dict[str, Any]) -> Tenant:
    return Tenant(
        name=row["name"], balance=int(row["balance"]), unlimited=bool(row["unlimited"]),
        max_running=row["max_running"], open_reserved=int(row["open_reserved"]), charged=int(row["charged"]),
        active_keys=int(row["active_keys"]), created_at=row["created_at"], ocr_languages=row["ocr_languages"],
        priority=int(row["priority"]),
    )


def create_tenant(
    conn: psycopg.Connection[Any], name: str, *, credits: int = 0, unlimited: bool = False,
    max_running: int | None = None, languages: str | None = None,
) -> Tenant:
    """Create a tenant with `credits` granted and, if given, its own running cap and default OCR
    languages (see `set_languages`); one transaction.

    Raises ValueError for a bad name, negative numbers or languages that are refused (LanguageError),
    TenantExistsError for a taken name.
    """
    validate_tenant_name(name)
    ocr_languages = _checked_languages(languages)
    if credits < 0:
        raise ValueError("credits must be 0 or more")
    if max_running is not None and max_running < 0:
        raise ValueError("max_running must be 0 (no cap) or positive")
    with conn.transaction():
        if conn.execute(QUERIES["tenant_insert"], {"name": name, "unlimited": unlimited}).fetchone() is None:
            raise TenantExistsError(f"tenant {name!r} already exists")
        if credits:
            ledger.grant(conn, name, credits, entry_key=f"grant:{name}:created", note="tenant created")
        if max_running is not None:
            set_tenant_cap(conn, name, max_running)
        if ocr_languages is not None:
            conn.execute(QUERIES["tenant_set_languages"], {"name": name, "ocr_languages": ocr_languages})
    return get_tenant(conn, name)


def get_tenant(conn: psycopg.Connection[Any], name: str) -> Tenant:
    """The tenant with its credits, cap and keys. Raises TenantNotFoundError."""
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["tenant_get"], {"name": name}).fetchone()
    if row is None:
        raise TenantNotFoundError(f"no tenant named {name!r}; create it with `tenderflow tenants create {name}`")
    return _tenant(row)


def list_tenants(conn: psycopg.Connection[Any]) -> list[Tenant]:
    return [_tenant(row) for row in conn.cursor(row_factory=dict_row).execute(QUERIES["tenant_list"]).fetchall()]


def set_max_running(conn: psycopg.Connection[Any], name: str, max_running: int) -> Tenant:
    """Cap the tenant's running jobs across all pools (0 = no cap). Raises TenantNotFoundError."""
    with conn.transaction():
        get_tenant(conn, name)
        set_tenant_cap(conn, name, max_running)
    return get_tenant(conn, name)


def set_priority(conn: psycopg.Connection[Any], name: str, priority: int) -> Tenant:
    """The operator's priority of the tenant's jobs over other tenants' (-1000..1000; 0 for all by
    default). Raises TenantNotFoundError, ValueError."""
    with conn.transaction():
        get_tenant(conn, name)
        set_tenant_priority(conn, name, priority)
    return get_tenant(conn, name)


def _checked_languages(languages: str | None) -> str | None:
    if languages is None:
        return None
    from tenderflow.pdf.languages import parse_languages

    return parse_languages(languages)


def set_languages(conn: psycopg.Connection[Any], name: str, languages: str | None) -> Tenant:
    """Set the tesseract languages the tenant's uploads are OCRed with when the upload names none
    ("fra+eng"; None or "auto": detect each document's language). Applies to versions started
    from then on. Raises TenantNotFoundError, LanguageError (a ValueError) naming the installed
    languages for an unknown or missing one."""
    ocr_languages = _checked_languages(languages)
    with conn.transaction():
        get_tenant(conn, name)
        conn.execute(QUERIES["tenant_set_languages"], {"name": name, "ocr_languages": ocr_languages})
    return get_tenant(conn, name)
