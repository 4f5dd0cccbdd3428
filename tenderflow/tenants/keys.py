"""Tenant API keys: how applications authenticate to the HTTP API as one tenant.

A key reads `tfk_<id>_<secret>`: `tfk_` makes a leaked key easy to find for secret scanners
(`KEY_PATTERN`), `id` (12 hex digits, public: `keys list` shows it) finds its row, and `secret` is
40 random characters of [0-9A-Za-z] (~238 bits). The key is shown once, at creation. Only
SHA-256(key) is stored: a slow password hash (bcrypt, argon2) protects low-entropy secrets against
guessing, which a 238-bit random secret does not need, and it would cost CPU on every request.
The stored and presented hashes are compared with `hmac.compare_digest` (constant time).

Revoked keys keep their row (so the record says who had access when) and never verify again.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import psycopg
from psycopg.rows import dict_row

from tenderflow.errors import TenderflowError
from tenderflow.tenants.queries import QUERIES
from tenderflow.tenants.tenants import get_tenant

KEY_PREFIX = "tfk_"
KEY_PATTERN = r"tfk_[0-9a-f]{12}_[0-9A-Za-z]{40}"
_KEY = re.compile(r"tfk_(?P<id>[0-9a-f]{12})_(?P<secret>[0-9A-Za-z]{40})")
_SECRET_ALPHABET = string.ascii_letters + string.digits
_SECRET_LENGTH = 40


class ApiKeyNotFoundError(TenderflowError):
    """No API key has this id."""

    http_status: ClassVar[int] = 404


@dataclass(frozen=True)
class CreatedApiKey:
    """A new key. `key` is the only copy of the secret: show it once, never store or log it."""

    id: str
    tenant: str
    name: str
    key: str
    created_at: datetime
    scope: str = "write"
    expires_at: datetime | None = None


def _digest(raw_key: str) -> bytes:
    return hashlib.sha256(raw_key.encode("ascii")).digest()


SCOPES = ("read", "write")
"""What a key may do: `write` everything a tenant can (upload, reprocess, read); `read` only read
(GET requests: documents, text, fields, search, export, the account)."""


@dataclass(frozen=True)
class KeyCheck:
    """A presented key's secret matched: whose it is, what it may do, whether it has expired."""

    key_id: str
    tenant: str
    scope: str
    expires_at: datetime | None
    expired: bool


def create_api_key(conn: psycopg.Connection[Any], tenant: str, *, name: str = "", scope: str = "write",
                   expires_after_days: int | None = None) -> CreatedApiKey:
    """A new key for `tenant`, of `scope` (read or write), valid for `expires_after_days` days from
    now (None: until revoked). Raises TenantNotFoundError, ValueError for a scope or a day count
    that is not one."""
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    if expires_after_days is not None and not 1 <= expires_after_days <= 36_500:
        raise ValueError("a key expires after 1 to 36,500 days (or never)")
    get_tenant(conn, tenant)
    key_id = secrets.token_hex(6)
    secret = "".join(secrets.choice(_SECRET_ALPHABET) for _ in range(_SECRET_LENGTH))
    raw_key = f"{KEY_PREFIX}{key_id}_{secret}"
    row = conn.execute(QUERIES["api_key_insert"], {
        "id": key_id, "tenant": tenant, "name": name, "secret_sha256": _digest(raw_key), "scope": scope,
        "expires_after_days": expires_after_days,
    }).fetchone()
    assert row is not None  # INSERT … RETURNING
    return CreatedApiKey(id=row[0], tenant=row[1], name=row[2], key=raw_key, created_at=row[3], scope=row[4],
                         expires_at=row[5])


def verify_api_key(conn: psycopg.Connection[Any], raw_key: str) -> str | None:
    """The tenant `raw_key` authenticates, or None (malformed, unknown, revoked, expired or wrong
    secret). See `check_api_key` for the scope and why a key is refused."""
    check = check_api_key(conn, raw_key)
    return None if check is None or check.expired else check.tenant


def check_api_key(conn: psycopg.Connection[Any], raw_key: str) -> KeyCheck | None:
    """What `raw_key` is, when its secret matches a key that is not revoked (None otherwise:
    malformed, unknown, revoked or wrong secret); an expired one is returned with `expired` set.

    Records the use of a key that verifies (`last_used_at`, at most once a minute). Whether a key id
    exists can be told from timing; the id is not a secret (it is listed and logged), the secret's
    check is constant-time.
    """
    match = _KEY.fullmatch(raw_key)
    if match is None:
        return None
    row = conn.execute(QUERIES["api_key_get"], {"id": match["id"]}).fetchone()
    if row is None:
        return None
    key_id, tenant, stored, scope, expires_at, expired = row
    if not hmac.compare_digest(bytes(stored), _digest(raw_key)):
        return None
    if not expired:
        conn.execute(QUERIES["api_key_touch"], {"id": key_id})
    return KeyCheck(key_id=str(key_id), tenant=str(tenant), scope=str(scope), expires_at=expires_at,
                    expired=bool(expired))


def list_api_keys(
    conn: psycopg.Connection[Any], *, tenant: str | None = None, include_revoked: bool = True
) -> list[dict[str, Any]]:
    """Keys without their secrets (nothing stored could give one back), oldest first."""
    rows = conn.cursor(row_factory=dict_row).execute(
        QUERIES["api_key_list"], {"tenant": tenant, "include_revoked": include_revoked}).fetchall()
    for row in rows:
        row["key"] = f"{KEY_PREFIX}{row['id']}_…"
    return rows


def revoke_api_key(conn: psycopg.Connection[Any], key_id: str) -> dict[str, Any]:
    """active -> revoked (revoking a revoked key keeps its first revocation time).

    Raises ApiKeyNotFoundError.
    """
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["api_key_revoke"], {"id": key_id}).fetchone()
    if row is None:
        raise ApiKeyNotFoundError(f"no API key with id {key_id!r}")
    return row
