"""Credits: what tenants pay for OCR pages and LLM tokens, as an append-only ledger.

The life of one document version's money, each step in the transaction of the state change it
pays for (so it commits or rolls back with it):

    accepted  (upload / reprocess)      reserve per-document price (+ LLM estimate)   `reserve_accepted`
    planned   (ocr.plan commit)         reserve pages × (page price + LLM estimate)   `reserve_pages`
    done      (extract commit)          charge the actual cost; reservations close    `charge_version`
    failed    (job failed, reaped on its final attempt, or cancelled)
                                        refund every reservation in full              `refund_version`

Every entry has a unique `entry_key` naming the version and step, so writing it twice (a job
rerun by hand, a commit retried after a lost connection) changes nothing: a version is charged
at most once, and closed (charged or refunded) at most once — a unique index says so too.

Every write locks the tenant's row first, so two uploads that together exceed the balance are
decided one after the other: one is refused, the balance never goes below zero (a CHECK says so).
For every tenant: balance = grants and adjustments − charges − open reservations
(`tenant_credit_summary.ledger_balance`).

A charge is the actual cost (pages the version read × price per page + LLM tokens / 1000 × price
per 1k tokens + price per document) but never more than was reserved: the reservation is the
ceiling the tenant agreed to. The amount the estimate missed is kept in the entry's detail.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from tenderflow.config import Settings
from tenderflow.errors import InsufficientCreditsError, TenantNotFoundError
from tenderflow.tenants.queries import QUERIES

# LLM usage reserved ahead when extraction uses an LLM: a tender page is ~3,500 characters
# (~900 tokens) and each request adds instructions and a JSON answer. Estimates only: the
# charge uses the tokens the backend reports.
LLM_TOKENS_PER_DOCUMENT_ESTIMATE = 3_000
LLM_TOKENS_PER_PAGE_ESTIMATE = 1_500


@dataclass(frozen=True)
class Prices:
    """A price list, fixed for a version when it is accepted (stored in `version_prices`).

    The defaults are the settings' defaults with the offline extractor (no LLM tokens to reserve).
    """

    price_per_document: int = 1
    price_per_page: int = 1
    price_per_1k_tokens: int = 1
    llm_tokens_per_document: int = 0
    llm_tokens_per_page: int = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> Prices:
        uses_llm = settings.extraction_backend != "rules"
        return cls(
            price_per_document=settings.price_per_document, price_per_page=settings.price_per_page,
            price_per_1k_tokens=settings.price_per_1k_tokens,
            llm_tokens_per_document=LLM_TOKENS_PER_DOCUMENT_ESTIMATE if uses_llm else 0,
            llm_tokens_per_page=LLM_TOKENS_PER_PAGE_ESTIMATE if uses_llm else 0,
        )

    def tokens_cost(self, tokens: int) -> int:
        """Credits for `tokens` LLM tokens, rounded up."""
        return -(-tokens * self.price_per_1k_tokens // 1000)

    def on_acceptance(self, *, reused_pages: int = 0) -> int:
        """Reserved when a version is accepted: the per-document price and the LLM's per-document
        estimate; a version that extracts from pages already read also reserves their LLM estimate."""
        return (self.price_per_document
                + self.tokens_cost(self.llm_tokens_per_document + reused_pages * self.llm_tokens_per_page))

    def on_plan(self, page_count: int) -> int:
        """Reserved when the page count is known: each page's price and its LLM estimate."""
        return page_count * self.price_per_page + self.tokens_cost(page_count * self.llm_tokens_per_page)

    def actual(self, *, pages_read: int, llm_tokens: int) -> int:
        """What a finished version's work cost."""
        return self.price_per_document + pages_read * self.price_per_page + self.tokens_cost(llm_tokens)


DEFAULT_PRICES = Prices()


@dataclass(frozen=True)
class Usage:
    """A tenant's ledger sums since a time, and its balance and open reservations now."""

    tenant: str
    since: datetime | None
    granted: int
    reserved: int
    charged: int
    refunded: int
    versions_charged: int
    versions_refunded: int
    open_reserved: int
    balance: int
    unlimited: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _lock_tenant(conn: psycopg.Connection[Any], tenant: str) -> tuple[int, bool]:
    row = conn.execute(QUERIES["tenant_lock"], {"name": tenant}).fetchone()
    if row is None:
        raise TenantNotFoundError(
            f"no tenant named {tenant!r}; create it with `tenderflow tenants create {tenant} --credits N`")
    return int(row[0]), bool(row[1])


def _refusal(tenant: str, balance: int, amount: int, what: str) -> InsufficientCreditsError:
    return InsufficientCreditsError(
        f"tenant {tenant!r} has {max(balance, 0)} credits available and {what} needs {amount}; "
        f"add credits with `tenderflow tenants credits add {tenant} N`"
    )


def check_affordable(conn: psycopg.Connection[Any], tenant: str, amount: int, *, what: str) -> None:
    """An early, unlocked check (e.g. before an upload stores its object); the reservation decides.

    Raises TenantNotFoundError or InsufficientCreditsError.
    """
    row = conn.execute(QUERIES["tenant_balance"], {"name": tenant}).fetchone()
    if row is None:
        raise TenantNotFoundError(
            f"no tenant named {tenant!r}; create it with `tenderflow tenants create {tenant} --credits N`")
    balance, unlimited = int(row[0]), bool(row[1])
    if not unlimited and balance < amount:
        raise _refusal(tenant, balance, amount, what)


def _add_entry(
    conn: psycopg.Connection[Any], *, tenant: str, kind: str, amount: int, balance_delta: int, entry_key: str,
    document_id: int | None = None, version: int | None = None, detail: dict[str, Any] | None = None,
) -> int | None:
    """Write one entry and move the balance by `balance_delta`: the new balance, or None if an
    entry with this key exists (then nothing changed)."""
    row = conn.execute(QUERIES["credit_entry_add"], {
        "tenant": tenant, "kind": kind, "amount": amount, "balance_delta": balance_delta, "entry_key": entry_key,
        "document_id": document_id, "version": version, "detail": Jsonb(detail or {}),
    }).fetchone()
    return None if row is None else int(row[0])


def grant(conn: psycopg.Connection[Any], tenant: str, amount: int, *, entry_key: str | None = None,
          note: str = "") -> int:
    """Add `amount` credits; returns the new balance. A given `entry_key` makes a repeat a no-op.

    Raises ValueError for amount <= 0, TenantNotFoundError.
    """
    if amount <= 0:
        raise ValueError("credits to add must be positive")
    with conn.transaction():
        balance, _ = _lock_tenant(conn, tenant)
        added = _add_entry(conn, tenant=tenant, kind="grant", amount=amount, balance_delta=amount,
                           entry_key=entry_key or f"grant:{tenant}:{uuid.uuid4().hex}",
                           detail={"note": note} if note else {})
    return balance if added is None else added


def set_balance(conn: psycopg.Connection[Any], tenant: str, amount: int) -> int:
    """Make the tenant's available balance `amount` (it becomes limited): an `adjust` entry records
    the difference. Open reservations stay as they are. Raises ValueError, TenantNotFoundError."""
    if amount < 0:
        raise ValueError("a balance cannot be set below 0")
    with conn.transaction():
        balance, unlimited = _lock_tenant(conn, tenant)
        _add_entry(conn, tenant=tenant, kind="adjust", amount=amount - balance, balance_delta=amount - balance,
                   entry_key=f"adjust:{tenant}:{uuid.uuid4().hex}",
                   detail={"from": balance, "to": amount, "was_unlimited": unlimited})
        conn.execute(QUERIES["tenant_set_unlimited"], {"name": tenant, "unlimited": False})
    return amount


def set_unlimited(conn: psycopg.Connection[Any], tenant: str) -> None:
    """Never refuse this tenant's work; its balance keeps recording what it spends."""
    with conn.transaction():
        _lock_tenant(conn, tenant)
        conn.execute(QUERIES["tenant_set_unlimited"], {"name": tenant, "unlimited": True})


def _reserve(
    conn: psycopg.Connection[Any], *, tenant: str, amount: int, document_id: int, version: int, part: str,
    what: str, detail: dict[str, Any],
) -> bool:
    """Hold `amount` for a version; False if this part was reserved already (nothing changes)."""
    entry_key = f"reserve:{document_id}:{version}:{part}"
    balance, unlimited = _lock_tenant(conn, tenant)
    if conn.execute(QUERIES["credit_entry_exists"], {"entry_key": entry_key}).fetchone() is not None:
        return False
    if not unlimited and balance < amount:
        raise _refusal(tenant, balance, amount, what)
    return _add_entry(conn, tenant=tenant, kind="reserve", amount=amount, balance_delta=-amount,
                      entry_key=entry_key, document_id=document_id, version=version, detail=detail) is not None


def reserve_accepted(
    conn: psycopg.Connection[Any], tenant: str, *, document_id: int, version: int, prices: Prices,
    reused_pages: int = 0, what: str = "this document",
) -> int:
    """A version was accepted (its row and first job are being written in this transaction): fix its
    prices and reserve `prices.on_acceptance`. Returns the amount reserved.

    Raises InsufficientCreditsError (the caller's transaction must then roll back: nothing stored),
    TenantNotFoundError.
    """
    amount = prices.on_acceptance(reused_pages=reused_pages)
    with conn.transaction():
        conn.execute(QUERIES["version_prices_insert"], {
            "document_id": document_id, "version": version, **asdict(prices),
        })
        _reserve(conn, tenant=tenant, amount=amount, document_id=document_id, version=version, part="accepted",
                 what=what, detail={"reused_pages": reused_pages} if reused_pages else {})
    return amount


def _prices_of(conn: psycopg.Connection[Any], document_id: int, version: int) -> tuple[str, Prices] | None:
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["version_prices_get"], {"document_id": document_id, "version": version}).fetchone()
    if row is None:
        return None
    tenant = row.pop("tenant")
    return tenant, Prices(**row)


def reserve_pages(conn: psycopg.Connection[Any], *, document_id: int, version: int, page_count: int) -> int:
    """The version's page count is known (its plan is committing, its row locked): reserve the
    pages. Returns the amount (0 for a version accepted before credits existed: it is free).

    Raises InsufficientCreditsError.
    """
    quoted = _prices_of(conn, document_id, version)
    if quoted is None:
        return 0
    tenant, prices = quoted
    amount = prices.on_plan(page_count)
    with conn.transaction():
        _reserve(conn, tenant=tenant, amount=amount, document_id=document_id, version=version, part="pages",
                 what=f"document {document_id} ({page_count} pages)", detail={"pages": page_count})
    return amount


def _close(
    conn: psycopg.Connection[Any], *, tenant: str, kind: str, document_id: int, version: int, spent: int | None,
    detail: dict[str, Any],
) -> int | None:
    """Close the version's reservations with a charge of `spent` (capped at what was reserved) or,
    with `spent` None, a refund of all of it. Returns the entry's amount, None if nothing changed."""
    with conn.transaction():
        _lock_tenant(conn, tenant)
        row = conn.execute(QUERIES["version_reserved"], {"document_id": document_id, "version": version}).fetchone()
        if row is None:
            return None  # nothing reserved
        reserved = int(row[1])
        amount = reserved if spent is None else min(spent, reserved)
        closed = conn.execute(QUERIES["credit_close"], {
            "tenant": tenant, "kind": kind, "amount": amount, "entry_key": f"{kind}:{document_id}:{version}",
            "document_id": document_id, "version": version, "reserved": reserved,
            "spent": 0 if spent is None else amount, "detail": Jsonb({**detail, "reserved": reserved}),
        }).fetchone()
    return amount if closed is not None else None


def charge_version(conn: psycopg.Connection[Any], *, document_id: int, version: int) -> int | None:
    """The version is done (its extraction is committing, its row locked): charge what its work
    cost, at most what it reserved, and close its reservations. Returns the amount charged, or
    None when nothing changed (charged before, or nothing reserved)."""
    quoted = _prices_of(conn, document_id, version)
    if quoted is None:
        return None  # accepted before credits existed: free
    tenant, prices = quoted
    used = conn.execute(QUERIES["version_usage"], {"document_id": document_id, "version": version}).fetchone()
    assert used is not None  # scalar subqueries: always one row
    pages_read, llm_tokens = int(used[0]), int(used[1])
    actual = prices.actual(pages_read=pages_read, llm_tokens=llm_tokens)
    return _close(conn, tenant=tenant, kind="charge", document_id=document_id, version=version, spent=actual,
                  detail={"pages_read": pages_read, "llm_tokens": llm_tokens, "actual": actual})


def refund_version(conn: psycopg.Connection[Any], *, document_id: int, version: int, reason: str = "") -> int | None:
    """The version failed (in the transaction that failed its job, its row locked): give back every
    reservation. Returns the amount refunded, or None when nothing changed."""
    quoted = _prices_of(conn, document_id, version)
    if quoted is None:
        return None
    tenant, _ = quoted
    return _close(conn, tenant=tenant, kind="refund", document_id=document_id, version=version, spent=None,
                  detail={"reason": reason[:500]} if reason else {})


def usage(conn: psycopg.Connection[Any], tenant: str, *, since: datetime | None = None) -> Usage:
    """Reserved, charged, refunded and granted since `since` (all time if None); balance now."""
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["tenant_usage"], {"name": tenant, "since": since}).fetchone()
    if row is None:
        raise TenantNotFoundError(f"no tenant named {tenant!r}")
    return Usage(
        tenant=row["tenant"], since=since, granted=int(row["granted"]), reserved=int(row["reserved"]),
        charged=int(row["charged"]), refunded=int(row["refunded"]), versions_charged=int(row["versions_charged"]),
        versions_refunded=int(row["versions_refunded"]), open_reserved=int(row["open_reserved"]),
        balance=int(row["balance"]), unlimited=bool(row["unlimited"]),
    )


def credit_summary(conn: psycopg.Connection[Any]) -> list[dict[str, Any]]:
    """Every tenant's balance beside the balance recomputed from the ledger (they must be equal)."""
    return conn.cursor(row_factory=dict_row).execute(QUERIES["tenant_credit_summary"]).fetchall()


def ledger_of(conn: psycopg.Connection[Any], tenant: str) -> list[dict[str, Any]]:
    """The tenant's ledger entries, oldest first."""
    return conn.cursor(row_factory=dict_row).execute(
        QUERIES["credit_entries_of_tenant"], {"tenant": tenant}).fetchall()
