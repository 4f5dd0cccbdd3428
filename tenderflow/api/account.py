"""`GET /v1/account`: a tenant's own credits, usage, prices and limits (its retention period
among them), read with its API key.

The same figures as the operator's `tenderflow tenants usage` and `tenants limits`, for the tenant
the key belongs to only: a tenant can see what it has left and what its documents cost without
asking the operator.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from tenderflow.api.auth import Services, Tenant
from tenderflow.api.documents import as_utc
from tenderflow.tenants import credits, limits

router = APIRouter(prefix="/v1/account", tags=["account"])


class AccountUsage(BaseModel):
    since: datetime | None = Field(description="The start of the sums (?since=), null: all time.")
    granted: int = Field(description="Credits added by the operator.")
    reserved: int = Field(description="Credits set aside ahead of work (estimates).")
    charged: int = Field(description="Credits charged for finished or content-failed documents.")
    refunded: int = Field(description="Credits given back for the service's failures.")
    versions_charged: int
    versions_refunded: int


class AccountPrices(BaseModel):
    per_document: int
    per_page: int
    per_1k_llm_tokens: int


class AccountLimits(BaseModel):
    uploads_per_minute: int = Field(description="0: no limit.")
    max_stored_bytes: int = Field(description="0: no limit.")
    stored_bytes: int = Field(description="Bytes of this tenant's stored PDFs now, failed documents included.")
    retention_days: int = Field(description="Days your documents are kept after their upload, then deleted with "
                                            "everything read from them; 0: kept for ever.")


class Account(BaseModel):
    tenant: str
    unlimited: bool = Field(description="True: credits are not counted (balance is then meaningless).")
    balance: int = Field(description="Credits left now: granted - charged - open reservations.")
    open_reserved: int = Field(description="Credits reserved by documents still being processed.")
    usage: AccountUsage
    prices: AccountPrices
    limits: AccountLimits


@router.get("", response_model=Account, summary="Your tenant's credits, usage, prices and limits")
def get_account(
    tenant: Tenant, services: Services,
    since: Annotated[datetime | None, Query(description="Sum the usage from then on (ISO 8601; UTC if no zone).")]
    = None,
) -> Account:
    settings = services.settings
    since = as_utc(since)  # not the database session's zone
    with services.pool.connection() as conn:
        used = credits.usage(conn, tenant, since=since)
        upload_limits = limits.limits_of(conn, tenant, default_per_minute=settings.tenant_uploads_per_minute,
                                         default_max_stored_bytes=settings.tenant_max_stored_bytes,
                                         default_retention_days=settings.document_retention_days)
        stored = limits.stored_bytes(conn, tenant)
    prices = services.prices
    return Account(
        tenant=tenant, unlimited=used.unlimited, balance=used.balance, open_reserved=used.open_reserved,
        usage=AccountUsage(since=since, granted=used.granted, reserved=used.reserved, charged=used.charged,
                           refunded=used.refunded, versions_charged=used.versions_charged,
                           versions_refunded=used.versions_refunded),
        prices=AccountPrices(per_document=prices.price_per_document, per_page=prices.price_per_page,
                             per_1k_llm_tokens=prices.price_per_1k_tokens),
        limits=AccountLimits(uploads_per_minute=upload_limits.uploads_per_minute,
                             max_stored_bytes=upload_limits.max_stored_bytes, stored_bytes=stored,
                             retention_days=upload_limits.retention_days),
    )
