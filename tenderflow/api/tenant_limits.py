"""`/v1/tenants/{name}/limits`: a tenant's upload limits and retention period, for operators (the admin
token as a Bearer token, or a dashboard session), as `tenderflow tenants limits` shows and sets them.

Each limit is the tenant's own when one was set, else the settings' default (the `own_…` flags say
which). The retention period is how many days a tenant's documents are kept after their upload; the
hourly `documents.retention` job deletes older ones with everything read from them
(tenderflow.pipeline.deletion). A tenant reads its own limits, retention included, at GET /v1/account.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from tenderflow.api.auth import Services, operator_or_scraper
from tenderflow.api.validation import RequestBody
from tenderflow.tenants import limits
from tenderflow.texts import Line

router = APIRouter(prefix="/v1/tenants", tags=["tenants (operators)"], dependencies=[Depends(operator_or_scraper)])

_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No tenant with that name"}}


class TenantLimits(BaseModel):
    tenant: str
    uploads_per_minute: int = Field(description="Uploads it may send per minute over the API; 0: no limit.")
    own_rate: bool = Field(description="false: the default (TENDERFLOW_TENANT_UPLOADS_PER_MINUTE).")
    max_stored_bytes: int = Field(description="Bytes of PDFs it may have stored, failed documents included; 0: no "
                                              "limit.")
    own_quota: bool = Field(description="false: the default (TENDERFLOW_TENANT_MAX_STORED_BYTES).")
    stored_bytes: int = Field(description="Bytes of its stored PDFs now.")
    retention_days: int = Field(description="Days its documents are kept after their upload, then deleted with "
                                            "everything read from them (hourly); 0: kept for ever.")
    own_retention: bool = Field(description="false: the default (TENDERFLOW_DOCUMENT_RETENTION_DAYS).")


class LimitsChange(RequestBody):
    """The limits to set: a number (0: no limit; a retention period of 0 keeps documents for ever), or
    null to go back to the settings' default. A limit left out stays as it is."""

    uploads_per_minute: int | None = Field(default=None, ge=0, le=2**31 - 1)
    max_stored_bytes: int | None = Field(default=None, ge=0, le=2**63 - 1)
    retention_days: int | None = Field(default=None, ge=0, le=limits.MAX_RETENTION_DAYS)


def _limits(services: Services, name: str, change: LimitsChange | None = None) -> TenantLimits:
    settings = services.settings
    with services.pool.connection() as conn:
        if change is not None and change.model_fields_set:
            limits.set_limits(conn, name, **{field: getattr(change, field) for field in change.model_fields_set})
        current = limits.limits_of(conn, name, default_per_minute=settings.tenant_uploads_per_minute,
                                   default_max_stored_bytes=settings.tenant_max_stored_bytes,
                                   default_retention_days=settings.document_retention_days)
        stored = limits.stored_bytes(conn, name)
    return TenantLimits(tenant=name, uploads_per_minute=current.uploads_per_minute, own_rate=current.own_rate,
                        max_stored_bytes=current.max_stored_bytes, own_quota=current.own_quota,
                        stored_bytes=stored, retention_days=current.retention_days,
                        own_retention=current.own_retention)


@router.get("/{name}/limits", response_model=TenantLimits, responses=_NOT_FOUND,
            summary="A tenant's upload limits and retention period")
def get_limits(name: Line, services: Services) -> TenantLimits:
    return _limits(services, name)


@router.patch("/{name}/limits", response_model=TenantLimits, responses=_NOT_FOUND,
              summary="Set a tenant's upload limits or retention period (null: the default)")
def change_limits(name: Line, body: LimitsChange, services: Services) -> TenantLimits:
    return _limits(services, name, body)
