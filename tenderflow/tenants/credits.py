"""Credits: what tenants pay for OCR pages and LLM tokens, as an append-only ledger.

The life of one document version's money, each step in the transaction of the state change it
pays for (so it commits or rolls back with it):

    accepted    (upload / reprocess)     reserve the per-document price            `reserve_accepted`
                                         (from extraction: + the reused pages' LLM estimate)
    planned     (ocr.plan commit)        reserve pages × page price                `reserve_pages`
    extracting  (its pages are all read) reserve the LLM estimate of their text    `reserve_extraction`
    done        (extract commit)         charge the actual cost                    `charge_version`
    failed      its own fault            charge what it cost so far                `charge_failed_version`
                the service's fault      refund every reservation in full          `refund_version`

The reservation is an estimate; the charge is the actual usage (review D6). The LLM estimate scales
with the text that will be sent: its characters / CHARS_PER_TOKEN, plus `llm_tokens_per_request`
(instructions, schema, answer) per request, one request per `llm_chunk_chars` of text. A charge
above what was reserved takes the difference from the balance when the balance allows (an unlimited
tenant always); when it does not, the charge takes what the reservations and the balance hold, the
unpaid rest is recorded in the entry's detail, and the version fails saying so: a charge is never
silently capped below cost.

Refunds are for the service's failures (review D7): a crash, an outage, a bug, an operator's
cancellation. A version that fails for its own content (the PDF refused by its probe: not a PDF,
encrypted, damaged, over the caps) or because the tenant cannot pay for its next step is charged the
per-document price plus the pages it read: the work it caused. See
`tenderflow.pipeline.commits.fail_versions_of_ended_jobs` for how the two are told apart.

Every entry has a unique `entry_key` naming the version and step, so writing it twice (a job
rerun by hand, a commit retried after a lost connection) changes nothing: a version is charged
at most once, and closed (charged or refunded) at most once — a unique index says so too.

Every write locks the tenant's row first, so two uploads that together exceed the balance are
decided one after the other: one is refused, the balance never goes below zero (a CHECK says so).
For every tenant: balance = grants and adjustments − charges − open reservations
(`tenant_credit_summary.ledger_balance`).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from tenderflow.config import Settings
from tenderflow.errors import InsufficientCreditsError, TenantNotFoundError
from tenderflow.tenants.queries import QUERIES

# The LLM estimate (review D6: it scales with the text). Tokenizers give ~4 characters per token
# for Latin-script prose and fewer for numbers, tables and other scripts: 3 errs on the side of
# reserving enough. Each request also carries the instructions and the answer schema (~1,500
# tokens) and gets a JSON answer back. Estimates only: the charge uses the tokens the backend reports.
CHARS_PER_TOKEN = 3
LLM_TOKENS_PER_REQUEST_ESTIMATE = 3_000


def llm_requests(page_chars: Sequence[int], chunk_chars: int) -> int:
    """How many requests the LLM backend makes for pages of these lengths: pages are packed in
    order into chunks of at most `chunk_chars` characters, a longer page split into parts of at
    most that (tenderflow.extraction.openai_backend.chunk_pages)."""
    if chunk_chars <= 0:
        return 0
    requests, size = 0, 0
    for chars in page_chars:
        for part in [chunk_chars] * (chars // chunk_chars) + ([chars % chunk_chars] if chars % chunk_chars else []):
            if requests and size + part <= chunk_chars:
                size += part
            else:
                requests, size = requests + 1, part
    return requests


@dataclass(frozen=True)
class Prices:
    """A price list, fixed for a version when it is accepted (stored in `version_prices`).

    The defaults are the settings' defaults with the offline extractor (no LLM tokens to reserve:
    `llm_chunk_chars` 0).
    """

    price_per_document: int = 1
    price_per_page: int = 1
    price_per_1k_tokens: int = 1
    llm_tokens_per_request: int = 0
    llm_chunk_chars: int = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> Prices:
        uses_llm = settings.extraction_backend != "rules"
        return cls(
            price_per_document=settings.price_per_document, price_per_page=settings.price_per_page,
            price_per_1k_tokens=settings.price_per_1k_tokens,
            llm_tokens_per_request=LLM_TOKENS_PER_REQUEST_ESTIMATE if uses_llm else 0,
            llm_chunk_chars=settings.llm_chunk_chars if uses_llm else 0,
        )

    def tokens_cost(self, tokens: int) -> int:
        """Credits for `tokens` LLM tokens, rounded up."""
        return -(-tokens * self.price_per_1k_tokens // 1000)

    def llm_tokens_estimate(self, page_chars: Sequence[int]) -> int:
        """The tokens an extraction of pages of these lengths is expected to use (0 without an LLM)."""
        if self.llm_chunk_chars <= 0:
            return 0
        return (-(-sum(page_chars) // CHARS_PER_TOKEN)
                + llm_requests(page_chars, self.llm_chunk_chars) * self.llm_tokens_per_request)

    def on_acceptance(self) -> int:
        """Reserved when a version is accepted: the per-document price."""
        return self.price_per_document

    def on_plan(self, page_count: int) -> int:
        """Reserved when the page count is known: each page's price."""
        return page_count * self.price_per_page

    def on_extraction(self, page_chars: Sequence[int]) -> int:
        """Reserved when the text to extract from is known: its LLM estimate."""
        return self.tokens_cost(self.llm_tokens_estimate(page_chars))

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
    reused_page_chars: Sequence[int] | None = None, what: str = "this document",
) -> int:
    """A version was accepted (its row and first job are being written in this transaction): fix its
    prices and reserve `prices.on_acceptance`; a version that extracts from pages read before
    (`reused_page_chars`: their lengths) also reserves their LLM estimate. Returns the amount.

    Raises InsufficientCreditsError (the caller's transaction must then roll back: nothing stored),
    TenantNotFoundError.
    """
    reused = list(reused_page_chars or [])
    amount = prices.on_acceptance() + prices.on_extraction(reused)
    detail: dict[str, Any] = {}
    if reused:
        detail = {"reused_pages": len(reused), "chars": sum(reused),
                  "llm_tokens_estimate": prices.llm_tokens_estimate(reused)}
    with conn.transaction():
        conn.execute(QUERIES["version_prices_insert"], {
            "document_id": document_id, "version": version, **asdict(prices),
        })
        _reserve(conn, tenant=tenant, amount=amount, document_id=document_id, version=version, part="accepted",
                 what=what, detail=detail)
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
                 what=f"reading document {document_id} ({page_count} pages)", detail={"pages": page_count})
    return amount


def reserve_extraction(
    conn: psycopg.Connection[Any], *, document_id: int, version: int, page_chars: Sequence[int]
) -> int:
    """Every page the version extracts from is read (its row locked, its extract job about to be
    enqueued): reserve the LLM estimate of their text (`page_chars`: each page's length). Returns
    the amount (0 without an LLM, or for a version accepted before credits existed).

    Raises InsufficientCreditsError.
    """
    quoted = _prices_of(conn, document_id, version)
    if quoted is None:
        return 0
    tenant, prices = quoted
    amount = prices.on_extraction(page_chars)
    if amount == 0:
        return 0
    tokens = prices.llm_tokens_estimate(page_chars)
    with conn.transaction():
        _reserve(conn, tenant=tenant, amount=amount, document_id=document_id, version=version, part="extraction",
                 what=f"extracting the fields of document {document_id} (~{tokens:,} LLM tokens for "
                      f"{sum(page_chars):,} characters)",
                 detail={"pages": len(page_chars), "chars": sum(page_chars), "llm_tokens_estimate": tokens})
    return amount


@dataclass(frozen=True)
class Charge:
    """A version's closing charge: `amount` taken, of `actual` cost; `unpaid`: what neither its
    reservations nor the tenant's balance could cover (then the version must not be delivered)."""

    amount: int
    actual: int
    reserved: int
    unpaid: int


def _close(
    conn: psycopg.Connection[Any], *, tenant: str, kind: str, document_id: int, version: int, spent: int | None,
    detail: dict[str, Any],
) -> Charge | None:
    """Close the version's reservations with a charge of `spent` or, with `spent` None, a refund of
    all of it. A charge above the reservations takes the rest from the balance, as far as it goes
    (an unlimited tenant's: all of it). None if nothing changed (closed before, nothing reserved)."""
    with conn.transaction():
        balance, unlimited = _lock_tenant(conn, tenant)
        row = conn.execute(QUERIES["version_reserved"], {"document_id": document_id, "version": version}).fetchone()
        if row is None:
            return None  # nothing reserved
        reserved = int(row[1])
        if spent is None:
            amount, actual = reserved, reserved
        else:
            actual = spent
            amount = spent if unlimited else min(spent, reserved + max(balance, 0))
        unpaid = 0 if spent is None else actual - amount
        extra = {"actual": actual, "unpaid": unpaid} if unpaid else {}
        closed = conn.execute(QUERIES["credit_close"], {
            "tenant": tenant, "kind": kind, "amount": amount, "entry_key": f"{kind}:{document_id}:{version}",
            "document_id": document_id, "version": version, "reserved": reserved,
            "spent": 0 if spent is None else amount, "detail": Jsonb({**detail, **extra, "reserved": reserved}),
        }).fetchone()
    return Charge(amount, actual, reserved, unpaid) if closed is not None else None


def _usage_of(conn: psycopg.Connection[Any], document_id: int, version: int) -> tuple[int, int]:
    used = conn.execute(QUERIES["version_usage"], {"document_id": document_id, "version": version}).fetchone()
    assert used is not None  # scalar subqueries: always one row
    return int(used[0]), int(used[1])


def charge_version(conn: psycopg.Connection[Any], *, document_id: int, version: int) -> Charge | None:
    """The version's extraction is committing (its row locked): charge what its work cost and close
    its reservations. Beyond what it reserved, the cost is taken from the balance as far as it goes;
    a Charge with `unpaid` > 0 says the balance fell short (the caller fails the version). None when
    nothing changed (charged before, or nothing reserved: a version from before credits is free)."""
    quoted = _prices_of(conn, document_id, version)
    if quoted is None:
        return None
    tenant, prices = quoted
    pages_read, llm_tokens = _usage_of(conn, document_id, version)
    actual = prices.actual(pages_read=pages_read, llm_tokens=llm_tokens)
    return _close(conn, tenant=tenant, kind="charge", document_id=document_id, version=version, spent=actual,
                  detail={"pages_read": pages_read, "llm_tokens": llm_tokens, "actual": actual})


def charge_failed_version(
    conn: psycopg.Connection[Any], *, document_id: int, version: int, reason: str = ""
) -> Charge | None:
    """The version failed for its own content or its tenant's balance (in the transaction that fails
    it, its row locked): charge the work it caused — the per-document price and the pages it read,
    never more than it reserved — and give the rest back. None when nothing changed."""
    quoted = _prices_of(conn, document_id, version)
    if quoted is None:
        return None
    tenant, prices = quoted
    pages_read, _ = _usage_of(conn, document_id, version)
    cost = prices.price_per_document + pages_read * prices.price_per_page
    reserved = conn.execute(QUERIES["version_reserved"], {"document_id": document_id, "version": version}).fetchone()
    spent = min(cost, int(reserved[1])) if reserved is not None else cost
    return _close(conn, tenant=tenant, kind="charge", document_id=document_id, version=version, spent=spent,
                  detail={"failed": True, "pages_read": pages_read, "cost": cost,
                          **({"reason": reason[:500]} if reason else {})})


def refund_version(conn: psycopg.Connection[Any], *, document_id: int, version: int, reason: str = "") -> int | None:
    """The version failed for the service's reasons, or was cancelled (in the transaction that fails
    its job, its row locked): give back every reservation. Returns the amount refunded, or None when
    nothing changed."""
    quoted = _prices_of(conn, document_id, version)
    if quoted is None:
        return None
    tenant, _ = quoted
    closed = _close(conn, tenant=tenant, kind="refund", document_id=document_id, version=version, spent=None,
                    detail={"reason": reason[:500]} if reason else {})
    return None if closed is None else closed.amount


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


def recent_entries(conn: psycopg.Connection[Any], tenant: str, *, limit: int = 100) -> list[dict[str, Any]]:
    """The tenant's newest ledger entries, newest first."""
    return conn.cursor(row_factory=dict_row).execute(
        QUERIES["credit_entries_recent"], {"tenant": tenant, "limit": limit}).fetchall()
