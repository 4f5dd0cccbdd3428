"""Worker tokens: the credentials of remote pull workers, separate from tenant API keys.

    create   a token for a name and its pools; the raw token is returned once and never stored
    verify   raw token -> the token's name and pools, or None (unknown, wrong secret, revoked)
    list     every token without its secret; revoke by name

A raw token reads `tfw_<id>_<secret>`: the recognisable prefix lets secret scanners find leaked
ones, `id` (12 characters, public) finds the row, and the secret (256 random bits) is stored only
as its SHA-256 and compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import psycopg
from psycopg.rows import dict_row

from tenderflow.errors import TenderflowError
from tenderflow.sqlfiles import NamedQueries
from tenderflow.stages.compute import POOLS

QUERIES = NamedQueries("tenderflow.api", "queries.sql")
TOKEN_PREFIX = "tfw_"  # noqa: S105 (the public prefix of every token, not a secret)
_ID_ALPHABET = string.ascii_lowercase + string.digits
_ID_LENGTH = 12
_RAW_TOKEN = re.compile(r"tfw_([a-z0-9]{12})_([A-Za-z0-9_\-]{43})")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,62}")
# The pools a token can be scoped to: the concrete ones ('all' is a worker's shorthand for both).
TOKEN_POOLS = tuple(name for name in POOLS if name != "all")


class WorkerTokenError(TenderflowError):
    """A worker token cannot be created or revoked as asked (bad name or pools, name taken, unknown)."""

    http_status: ClassVar[int] = 400


@dataclass(frozen=True)
class WorkerToken:
    """A verified token: who it is, which pools' jobs it may take, and whose (None: every tenant's)."""

    id: str
    name: str
    pools: tuple[str, ...]
    tenants: tuple[str, ...] | None = None

    def job_types(self) -> frozenset[str]:
        return frozenset(job_type for pool in self.pools for job_type in POOLS[pool])

    def may_run(self, pool: str) -> bool:
        """Whether every job type of `pool` is within this token's scope."""
        return pool in POOLS and set(POOLS[pool]) <= self.job_types()


@dataclass(frozen=True)
class CreatedToken:
    token: WorkerToken
    raw: str
    created_at: datetime


def _secret_digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("ascii")).digest()


def normalise_pools(pools: Sequence[str]) -> tuple[str, ...]:
    """Pools as stored: known names, 'all' expanded, deduplicated, in a stable order."""
    wanted: set[str] = set()
    for pool in pools:
        pool = pool.strip()
        if pool == "all":
            wanted.update(TOKEN_POOLS)
        elif pool in TOKEN_POOLS:
            wanted.add(pool)
        else:
            raise WorkerTokenError(f"unknown pool {pool!r}; choose from {', '.join((*TOKEN_POOLS, 'all'))}")
    if not wanted:
        raise WorkerTokenError("a worker token needs at least one pool")
    return tuple(pool for pool in TOKEN_POOLS if pool in wanted)


def create_token(
    conn: psycopg.Connection[Any], name: str, pools: Sequence[str], *, tenants: Sequence[str] | None = None
) -> CreatedToken:
    """Store a new token for `name` scoped to `pools` and, when given, to `tenants` (their jobs
    only); the raw token is in the answer, and only there.

    Raises WorkerTokenError for a bad name, unknown pools or tenants, or a name a live token already has.
    """
    if not _NAME.fullmatch(name):
        raise WorkerTokenError(
            f"token name {name!r} must be 1-63 of A-Z a-z 0-9 _ . -, starting with a letter or digit"
        )
    scoped = normalise_pools(pools)
    scoped_tenants = _existing_tenants(conn, tenants) if tenants is not None else None
    token_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(_ID_LENGTH))
    secret = secrets.token_urlsafe(32)
    try:
        row = conn.execute(QUERIES["worker_token_insert"], {
            "id": token_id, "name": name, "secret_sha256": _secret_digest(secret), "pools": list(scoped),
            "tenants": list(scoped_tenants) if scoped_tenants is not None else None,
        }).fetchone()
    except psycopg.errors.UniqueViolation as exc:
        raise WorkerTokenError(f"a live worker token is already named {name!r}; revoke it first") from exc
    assert row is not None
    return CreatedToken(WorkerToken(token_id, name, scoped, scoped_tenants), f"{TOKEN_PREFIX}{token_id}_{secret}",
                        row[3])


def _existing_tenants(conn: psycopg.Connection[Any], tenants: Sequence[str]) -> tuple[str, ...]:
    wanted = tuple(sorted({tenant.strip() for tenant in tenants if tenant.strip()}))
    if not wanted:
        raise WorkerTokenError("a token scoped to tenants needs at least one tenant name")
    known = {row[0] for row in conn.execute("SELECT name FROM tenants WHERE name = ANY(%s)", (list(wanted),))}
    unknown = [tenant for tenant in wanted if tenant not in known]
    if unknown:
        raise WorkerTokenError(f"no tenant named {', '.join(unknown)}")
    return wanted


def verify_token(conn: psycopg.Connection[Any], raw: str) -> WorkerToken | None:
    """The live token `raw` stands for, recording its use; None for anything else."""
    match = _RAW_TOKEN.fullmatch(raw)
    if match is None:
        return None
    token_id, secret = match.groups()
    row = conn.execute(QUERIES["worker_token_get"], {"id": token_id}).fetchone()
    if row is None:
        return None
    _, name, stored_digest, pools, tenants, revoked_at = row
    if not hmac.compare_digest(bytes(stored_digest), _secret_digest(secret)) or revoked_at is not None:
        return None
    conn.execute(QUERIES["worker_token_touch"], {"id": token_id})
    return WorkerToken(token_id, name, tuple(pools), tuple(tenants) if tenants is not None else None)


def list_tokens(conn: psycopg.Connection[Any], *, include_revoked: bool = False) -> list[dict[str, Any]]:
    """Every token without its secret: id, name, pools, created/last used/revoked, status."""
    cursor = conn.cursor(row_factory=dict_row)
    return cursor.execute(QUERIES["worker_token_list"], {"include_revoked": include_revoked}).fetchall()


def revoke_token(conn: psycopg.Connection[Any], name: str) -> str:
    """Revoke the live token named `name`; its next call is refused. Returns its id.

    Raises WorkerTokenError when no live token has that name.
    """
    row = conn.execute(QUERIES["worker_token_revoke"], {"name": name}).fetchone()
    if row is None:
        raise WorkerTokenError(f"no live worker token is named {name!r}")
    return str(row[0])
