"""`/v1/webhooks`: a tenant's webhook endpoints and the log of their deliveries (tenderflow.webhooks).

Every route acts for the tenant of the API key; another tenant's endpoint or delivery answers 404.
A URL that is not http(s), or that reaches a private, loopback or link-local address the operator
has not allowed, answers 400 with the reason.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Response, status
from pydantic import BaseModel, Field

from tenderflow.api.auth import Services, Tenant
from tenderflow.api.validation import RequestBody
from tenderflow.handlers.webhooks import address_policy
from tenderflow.texts import Line
from tenderflow.webhooks import deliveries, endpoints
from tenderflow.webhooks.addresses import check_registration

router = APIRouter(prefix="/v1/webhooks", tags=["webhooks"])

EventType = Literal["document.done", "document.failed", "tender.updated", "tender.deadline_changed"]
DeliveryState = Literal["pending", "retrying", "delivered", "failed", "skipped", "cancelled"]
_BAD_URL: dict[int | str, dict[str, Any]] = {
    400: {"description": "The URL is refused (not http(s), a private address…) or the events unknown"}}
_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such endpoint or delivery for this tenant"}}


class EndpointRequest(RequestBody):
    url: Line = Field(max_length=2000, description="Where events are POSTed: https://… (or http://).")
    events: list[EventType] | None = Field(
        default=None, description="Default: document.done and document.failed (tender events are asked for by name).")
    description: Line = Field(default="", max_length=200)


class EndpointChange(RequestBody):
    url: Line | None = Field(default=None, max_length=2000)
    events: list[EventType] | None = None
    description: Line | None = Field(default=None, max_length=200)
    enabled: bool | None = Field(default=None, description="false: stop telling it (its pending deliveries are "
                                 "cancelled); true: tell it again, its count of failures started afresh.")


class EndpointView(BaseModel):
    id: int
    url: str
    events: list[str]
    description: str
    enabled: bool
    disabled_reason: str | None
    consecutive_failures: int = Field(description="Failed attempts since the last delivered one.")
    last_delivered_at: datetime | None
    created_at: datetime
    rotating: bool = Field(description="The previous secret still signs too (after a rotation).")


class CreatedEndpointView(EndpointView):
    secret: str = Field(description="The signing secret, shown this once: verify Tenderflow-Signature with it.")


class SecretView(BaseModel):
    id: int
    secret: str = Field(description="The new signing secret, shown this once.")
    old_secret_valid_seconds: float


class Attempt(BaseModel):
    attempt: int
    at: datetime
    outcome: Literal["delivered", "failed"]
    status_code: int | None
    error: str | None
    address: str | None = Field(description="The address connected to.")
    duration_ms: int
    response: str = Field(description="The start of the receiver's answer.")


class DeliveryView(BaseModel):
    id: int
    endpoint_id: int
    url: str
    event_id: str = Field(description="The event's id: the Idempotency-Key of every attempt and redelivery.")
    event_type: str
    document_id: int | None
    version: int | None
    tender_id: int | None = Field(default=None, description="A tender event's tender (and its revision).")
    revision: int | None = None
    state: DeliveryState
    attempts: int
    redeliveries: int
    last_status: int | None
    last_error: str | None
    next_attempt_at: datetime | None
    created_at: datetime
    finished_at: datetime | None


class DeliveryDetail(DeliveryView):
    attempts_made: list[Attempt]


class DeliveryList(BaseModel):
    deliveries: list[DeliveryView]
    next_cursor: int | None = Field(description="Pass as ?cursor= for the next page; null on the last one.")


class PingResult(BaseModel):
    delivery_id: int
    delivered: bool
    status_code: int | None
    error: str | None
    address: str | None
    duration_ms: int
    response: str


class Redelivered(BaseModel):
    job_ids: list[int]


def _view(endpoint: endpoints.Endpoint) -> EndpointView:
    return EndpointView(**{key: value for key, value in endpoint.as_dict().items() if key != "tenant"})


# The deliveries' routes come first: /deliveries is not an endpoint id.


@router.get("/deliveries", response_model=DeliveryList, summary="The log of deliveries, newest first")
def list_deliveries(
    tenant: Tenant, services: Services,
    endpoint: Annotated[int | None, Query(description="Only this endpoint's.")] = None,
    state: DeliveryState | None = None,
    document: Annotated[int | None, Query(description="Only this document's.")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[int | None, Query(ge=1, description="next_cursor of the previous page.")] = None,
) -> DeliveryList:
    with services.pool.connection() as conn:
        rows = deliveries.list_deliveries(conn, tenant=tenant, endpoint_id=endpoint, state=state,
                                          document_id=document, limit=limit + 1, before_id=cursor)
    page = rows[:limit]
    return DeliveryList(deliveries=[DeliveryView(**row) for row in page],
                        next_cursor=int(page[-1]["id"]) if len(rows) > limit else None)


@router.get("/deliveries/{delivery_id}", response_model=DeliveryDetail, responses=_NOT_FOUND,
            summary="One delivery with every attempt")
def get_delivery(delivery_id: int, tenant: Tenant, services: Services) -> DeliveryDetail:
    with services.pool.connection() as conn:
        row = deliveries.get_delivery(conn, delivery_id, tenant=tenant)
    return DeliveryDetail(**{key: value for key, value in row.items() if key != "attempt_log"},
                          attempts_made=[Attempt(**attempt) for attempt in row["attempt_log"]])


@router.post("/deliveries/{delivery_id}/redeliver", status_code=status.HTTP_202_ACCEPTED,
             response_model=Redelivered, responses={**_NOT_FOUND, 400: {"description": "It is still being sent"}},
             summary="Send a delivery again (the same event id)")
def redeliver(delivery_id: int, tenant: Tenant, services: Services) -> Redelivered:
    with services.pool.connection() as conn:
        return Redelivered(job_ids=deliveries.redeliver(conn, [delivery_id], tenant=tenant))


@router.post("", status_code=status.HTTP_201_CREATED, response_model=CreatedEndpointView, responses=_BAD_URL,
             summary="Register an endpoint (its secret is shown once)")
def create_endpoint(
    body: EndpointRequest, tenant: Tenant, services: Services, response: Response
) -> CreatedEndpointView:
    """The endpoint is told of your documents' `document.done` and `document.failed` events by signed
    POSTs (see docs/webhooks.md), retried with backoff until a 2xx answer."""
    policy = address_policy(services.settings)
    checked = check_registration(body.url, policy)  # its DNS lookup holds no connection (review D-N2)
    with services.pool.connection() as conn:
        created = endpoints.create_endpoint(conn, tenant, checked, policy=policy, events=body.events,
                                            description=body.description)
    response.headers["Location"] = f"/v1/webhooks/{created.endpoint.id}"
    return CreatedEndpointView(**_view(created.endpoint).model_dump(), secret=created.secret)


@router.get("", response_model=list[EndpointView], summary="Your endpoints (never their secrets)")
def list_endpoints(tenant: Tenant, services: Services) -> list[EndpointView]:
    with services.pool.connection() as conn:
        return [_view(endpoint) for endpoint in endpoints.list_endpoints(conn, tenant=tenant)]


@router.get("/{endpoint_id}", response_model=EndpointView, responses=_NOT_FOUND, summary="One endpoint")
def get_endpoint(endpoint_id: int, tenant: Tenant, services: Services) -> EndpointView:
    with services.pool.connection() as conn:
        return _view(endpoints.get_endpoint(conn, endpoint_id, tenant=tenant))


@router.patch("/{endpoint_id}", response_model=EndpointView, responses={**_NOT_FOUND, **_BAD_URL},
              summary="Change an endpoint, or disable and enable it")
def change_endpoint(endpoint_id: int, body: EndpointChange, tenant: Tenant, services: Services) -> EndpointView:
    policy = address_policy(services.settings)
    with services.pool.connection() as conn:
        endpoints.get_endpoint(conn, endpoint_id, tenant=tenant)  # another tenant's id: 404 before any lookup
    checked = check_registration(body.url, policy) if body.url is not None else None  # no connection held
    with services.pool.connection() as conn:
        endpoint = endpoints.get_endpoint(conn, endpoint_id, tenant=tenant)
        if checked is not None or body.events is not None or body.description is not None:
            endpoint = endpoints.update_endpoint(conn, endpoint_id, tenant=tenant, policy=policy, url=checked,
                                                 events=body.events, description=body.description)
        if body.enabled is not None and body.enabled != endpoint.enabled:
            endpoint = endpoints.set_enabled(conn, endpoint_id, body.enabled, tenant=tenant,
                                             reason="disabled through the API")
        return _view(endpoint)


@router.delete("/{endpoint_id}", status_code=status.HTTP_204_NO_CONTENT, responses=_NOT_FOUND,
               summary="Remove an endpoint (its deliveries stay in the log)")
def remove_endpoint(endpoint_id: int, tenant: Tenant, services: Services) -> Response:
    with services.pool.connection() as conn:
        endpoints.remove_endpoint(conn, endpoint_id, tenant=tenant)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{endpoint_id}/rotate-secret", response_model=SecretView, responses=_NOT_FOUND,
             summary="A new signing secret (the old one signs too for a while)")
def rotate_secret(
    endpoint_id: int, tenant: Tenant, services: Services,
    keep_old_seconds: Annotated[float, Query(ge=0, le=7 * 86400, description=(
        "How long the old secret still signs beside the new one."))] = endpoints.ROTATION_OVERLAP_SECONDS,
) -> SecretView:
    with services.pool.connection() as conn:
        secret = endpoints.rotate_secret(conn, endpoint_id, tenant=tenant, keep_old_seconds=keep_old_seconds)
    return SecretView(id=endpoint_id, secret=secret, old_secret_valid_seconds=keep_old_seconds)


@router.post("/{endpoint_id}/ping", response_model=PingResult,
             responses={**_NOT_FOUND, 429: {"description": "Two pings of yours are under way, or ten were sent in "
                                                           "the last minute (Retry-After says when to try again)"}},
             summary="Send a signed ping event now, and see the answer")
def ping(endpoint_id: int, tenant: Tenant, services: Services) -> PingResult:
    # The pool: no connection is held while the receiver is waited on (review security-2, D-N2).
    result = deliveries.send_ping(services.pool, endpoint_id, tenant=tenant, policy=address_policy(services.settings),
                                  timeout_seconds=services.settings.webhook_timeout_seconds)
    outcome = result.outcome
    return PingResult(delivery_id=result.delivery_id, delivered=outcome.delivered, status_code=outcome.status_code,
                      error=outcome.failure(), address=outcome.address, duration_ms=outcome.duration_ms,
                      response=outcome.response)


@router.post("/{endpoint_id}/redeliver", status_code=status.HTTP_202_ACCEPTED, response_model=Redelivered,
             responses=_NOT_FOUND, summary="Send again every failed or cancelled delivery of an endpoint")
def redeliver_failed(endpoint_id: int, tenant: Tenant, services: Services) -> Redelivered:
    with services.pool.connection() as conn:
        return Redelivered(job_ids=deliveries.redeliver_failed(conn, endpoint_id, tenant=tenant))
