"""The tenant API of tenders (tenderflow.tenders) and the calendar feed.

    POST   /v1/tenders                              make one (a name, documents already uploaded)
    GET    /v1/tenders                              list, newest first (merged deadline filters)
    GET    /v1/tenders/{id}                         members, merged fields with provenance, conflicts
    GET    /v1/tenders/{id}/history                 every revision: cause, changes (sentences), snapshot
    PATCH  /v1/tenders/{id}                         rename;  DELETE: delete (its documents stay)
    POST   /v1/tenders/{id}/documents               upload a PDF or a ZIP package into it (one transaction)
    PUT    /v1/tenders/{id}/documents/{document}    add a document already uploaded
    PATCH  /v1/tenders/{id}/documents/{document}    set its kind by hand ({"kind": null}: read it again)
    DELETE /v1/tenders/{id}/documents/{document}    take it out
    PUT    /v1/tenders/{id}/choices/{field}         settle a conflict: the field from this document
    GET    /v1/tenders/proposals                    proposals from reference numbers; POST …/{id}/accept|reject|undo
    GET    /v1/tenders/search, /v1/tenders/export   tender-level search and exports (CSV, XLSX, JSONL, OCDS)
    GET    /v1/calendar.ics                         the deadlines (an API key, or ?token= for calendar apps)
    POST   /v1/calendar/token                       a new calendar token and the URL to subscribe to

Every route takes the tenant from its API key; another tenant's tender, document or proposal answers
404 like one that does not exist. Uploads into a tender are streamed and capped like `POST
/v1/documents` (a ZIP up to TENDERFLOW_PACKAGE_MAX_BYTES) and count against the uploads per minute.
"""

from __future__ import annotations

import io
from datetime import date, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request, Response, Security, status
from fastapi.responses import StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from tenderflow.api.auth import Services, Tenant, current_tenant, tenant_bearer
from tenderflow.api.documents import as_utc
from tenderflow.api.export import MEDIA_TYPES, SUFFIXES, streamed
from tenderflow.api.services import ApiServices
from tenderflow.api.upload_stream import removed_afterwards, spool_pdf_upload
from tenderflow.api.validation import RequestBody
from tenderflow.database import Database
from tenderflow.pipeline.uploads import UploadPolicy
from tenderflow.tenants import limits
from tenderflow.tenders import calendar, proposals, records
from tenderflow.tenders.export import exported_tenders, write_tenders
from tenderflow.tenders.merging import FIELD_NAMES
from tenderflow.tenders.packages import PackageLimits
from tenderflow.tenders.search import search_tenders
from tenderflow.tenders.uploads import upload_to_tender
from tenderflow.texts import Line

router = APIRouter(tags=["tenders"])

DocumentKind = Literal["addendum", "notice", "specification", "form", "other"]


class TenderRequest(RequestBody):
    name: Line | None = Field(default=None, max_length=300, description="A name for people (default: the title).")
    document_ids: list[int] = Field(default_factory=list, max_length=1000,
                                    description="Documents already uploaded that join it at once.")


class RenameRequest(RequestBody):
    name: Line | None = Field(max_length=300, description="null: the merged title again.")


class KindRequest(RequestBody):
    kind: DocumentKind | None = Field(description="What the document is; null: read it from the document again.")


class ChoiceRequest(RequestBody):
    document_id: int | None = Field(description="Take the field's value from this member; null: precedence decides.")


class MergeResult(BaseModel):
    tender_id: int
    revision: int | None = Field(description="The revision this made; null: nothing changed.")
    changes: list[dict[str, Any]] = Field(description="Each change with its sentence: 'submission deadline moved "
                                                      "from … to … by addendum 2, page 1'.")


class TenderSummary(BaseModel):
    id: int
    name: str | None
    title: str | None
    reference: str | None
    submission_deadline: str | None = Field(description="As the documents print it (local time, or a date).")
    questions_deadline: str | None
    documents: int
    conflicts: int = Field(description="Conflicts no choice settled yet.")
    revision: int
    created_at: datetime
    updated_at: datetime


class TenderList(BaseModel):
    tenders: list[TenderSummary]
    next_cursor: int | None


class TenderDetail(TenderSummary):
    country: str | None
    buyer_name: str | None
    members: list[dict[str, Any]] = Field(description="Each document with its kind (and what decided it), state, "
                                                      "number, date of issue and where it was in its package.")
    fields: dict[str, Any] = Field(description="Each merged field: value, page, quote, document_id, kind, label, "
                                               "history (the values it replaced), conflict, alternatives.")
    conflict_list: list[dict[str, Any]]


class TenderUploadResult(BaseModel):
    tender_id: int
    created_tender: bool
    documents: list[int]
    outcomes: list[dict[str, Any]] = Field(description="Each file or package member: created, existing, duplicate "
                                                       "or rejected (with why: a refused member is not charged).")


class CalendarToken(BaseModel):
    token: str = Field(description="Shown once. The token before it stops working.")
    url: str = Field(description="What a calendar app subscribes to.")


def _merge(outcome: records.MergeOutcome) -> MergeResult:
    return MergeResult(tender_id=outcome.tender_id, revision=outcome.revision, changes=outcome.changes)


def _detail(row: dict[str, Any]) -> TenderDetail:
    return TenderDetail.model_validate({key: row.get(key) for key in TenderDetail.model_fields})


# --- proposals, search, export (before /{tender_id}, whose id is a number) ------------------------


@router.get("/v1/tenders/proposals", summary="Documents proposed to join a tender (same reference number)")
def list_proposals(
    tenant: Tenant, services: Services,
    state: Literal["proposed", "accepted", "rejected", "undone"] | None = "proposed",
) -> list[dict[str, Any]]:
    with services.pool.connection() as conn:
        return proposals.list_proposals(conn, tenant=tenant, state=state)


@router.post("/v1/tenders/proposals/{proposal_id}/{decision}", summary="Accept, reject or undo a proposal",
             responses={404: {"description": "No such proposal of yours"},
                        409: {"description": "Not in a state this decision starts from"}})
def decide_proposal(
    proposal_id: int, decision: Literal["accept", "reject", "undo"], tenant: Tenant, services: Services,
) -> dict[str, Any]:
    with services.pool.connection() as conn:
        if decision == "accept":
            tender_id: int | None = proposals.accept(conn, proposal_id, tenant=tenant)
        elif decision == "reject":
            proposals.reject(conn, proposal_id, tenant=tenant)
            tender_id = None
        else:
            tender_id = proposals.undo(conn, proposal_id, tenant=tenant)
        return {**proposals.get_proposal(conn, proposal_id, tenant=tenant), "tender_id": tender_id}


@router.get("/v1/tenders/search", summary="Tenders whose documents match a query, best first")
def search(
    tenant: Tenant, services: Services,
    q: Annotated[Line, Query(min_length=1, max_length=500, description="websearch syntax: words, \"a phrase\", -not")],
    deadline_after: date | None = None, deadline_before: date | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> list[dict[str, Any]]:
    with services.pool.connection() as conn:
        hits = search_tenders(conn, q, tenant=tenant, deadline_after=deadline_after, deadline_before=deadline_before,
                              limit=limit)
    return [{**{k: v for k, v in vars(hit).items() if k != "hits"}, "hits": [vars(h) for h in hit.hits]}
            for hit in hits]


@router.get("/v1/tenders/export", summary="Your tenders as CSV, XLSX, JSON Lines or OCDS (a release per change)",
            responses={200: {"content": {media: {} for media in MEDIA_TYPES.values()}}})
def export(
    tenant: Tenant, services: Services,
    format: Literal["csv", "xlsx", "jsonl", "ocds"] = "csv",  # noqa: A002 (the parameter's name)
    since: Annotated[datetime | None, Query(description="Only tenders changed since then.")] = None,
) -> Response:
    settings = services.settings
    options: dict[str, Any] = {"prefix": settings.ocds_ocid_prefix, "publisher": settings.ocds_publisher_name,
                               "public_url": settings.public_url}
    headers = {"Content-Disposition": f'attachment; filename="tenderflow-tenders.{SUFFIXES[format]}"'}
    revisions = format in ("ocds", "jsonl")
    if format == "xlsx":
        # Read in batches, each on a connection of its own; built with none held (review security-2, D-N2).
        buffer = io.BytesIO()
        rows = list(exported_tenders(services.pool, tenant=tenant, since=as_utc(since)))
        write_tenders(iter(rows), buffer, "xlsx", **options)
        return Response(buffer.getvalue(), media_type=MEDIA_TYPES["xlsx"], headers=headers)

    def produce(database: Database, put: Any) -> None:
        write_tenders(exported_tenders(database, tenant=tenant, since=as_utc(since), with_revisions=revisions), put,
                      format, **options)

    return StreamingResponse(streamed(services, produce), media_type=MEDIA_TYPES[format], headers=headers)


# --- tenders ------------------------------------------------------------------------------------


@router.post("/v1/tenders", status_code=status.HTTP_201_CREATED, response_model=TenderDetail,
             summary="Make a tender (empty, or with documents already uploaded)")
def create_tender(request: TenderRequest, tenant: Tenant, services: Services, response: Response) -> TenderDetail:
    with services.pool.connection() as conn:
        with conn.transaction():
            tender_id = records.create_tender(conn, tenant, name=request.name)
            if request.document_ids:
                records.add_documents(conn, tender_id, request.document_ids, tenant=tenant)
        row = records.get_tender(conn, tender_id, tenant=tenant)
    response.headers["Location"] = f"/v1/tenders/{tender_id}"
    return _detail(row)


@router.get("/v1/tenders", response_model=TenderList, summary="Your tenders, newest first")
def list_tenders(
    tenant: Tenant, services: Services,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[int | None, Query(ge=1, description="next_cursor of the previous page.")] = None,
    deadline_after: Annotated[date | None, Query(description="Merged submission deadline on or after.")] = None,
    deadline_before: Annotated[date | None, Query(description="Merged submission deadline before.")] = None,
) -> TenderList:
    with services.pool.connection() as conn:
        rows = records.list_tenders(conn, tenant=tenant, limit=limit + 1, before_id=cursor,
                                    deadline_after=deadline_after.isoformat() if deadline_after else None,
                                    deadline_before=deadline_before.isoformat() if deadline_before else None)
    page = rows[:limit]
    return TenderList(tenders=[TenderSummary.model_validate({k: r[k] for k in TenderSummary.model_fields})
                               for r in page],
                      next_cursor=int(page[-1]["id"]) if len(rows) > limit else None)


@router.get("/v1/tenders/{tender_id}", response_model=TenderDetail, summary="A tender, merged, with provenance")
def get_tender(tender_id: int, tenant: Tenant, services: Services) -> TenderDetail:
    with services.pool.connection() as conn:
        return _detail(records.get_tender(conn, tender_id, tenant=tenant))


@router.get("/v1/tenders/{tender_id}/history", summary="Every revision of a tender: when, why, what changed")
def tender_history(tender_id: int, tenant: Tenant, services: Services) -> list[dict[str, Any]]:
    with services.pool.connection() as conn:
        return records.tender_revisions(conn, tender_id, tenant=tenant)


@router.patch("/v1/tenders/{tender_id}", response_model=TenderDetail, summary="Rename a tender")
def rename_tender(tender_id: int, request: RenameRequest, tenant: Tenant, services: Services) -> TenderDetail:
    with services.pool.connection() as conn:
        records.rename_tender(conn, tender_id, request.name, tenant=tenant)
        return _detail(records.get_tender(conn, tender_id, tenant=tenant))


@router.delete("/v1/tenders/{tender_id}", status_code=status.HTTP_204_NO_CONTENT, response_class=Response,
               summary="Delete a tender (its documents stay documents)")
def delete_tender(tender_id: int, tenant: Tenant, services: Services) -> Response:
    with services.pool.connection() as conn:
        records.delete_tender(conn, tender_id, tenant=tenant)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


def _upload(services: ApiServices, tenant: str, tender_id: int, path: Any, filename: str, priority: int,
            languages: str | None) -> dict[str, Any]:
    settings = services.settings
    # The pool: no connection is held while a package is unpacked or stored (review security-2, D-N2).
    uploaded = upload_to_tender(
        services.pool, services.storage, [path],
        UploadPolicy.from_settings(settings, tenant=tenant, priority=priority, languages=languages),
        tender=tender_id, filenames=[filename], package_limits=PackageLimits.from_settings(settings),
        work_dir=services.upload_spool_dir)
    return {"tender_id": uploaded.tender_id, "created_tender": uploaded.created_tender,
            "documents": uploaded.documents, "outcomes": [vars(outcome) for outcome in uploaded.outcomes]}


@router.post(
    "/v1/tenders/{tender_id}/documents", status_code=status.HTTP_201_CREATED, response_model=TenderUploadResult,
    summary="Upload a PDF or a ZIP package into a tender (multipart 'file' part, or the body itself)",
    responses={400: {"description": "A package refused whole (a zip bomb, a path leaving it, encrypted, corrupt, "
                                    "no PDF in it), or nothing in it that can be taken"},
               402: {"description": "Not enough credits for every document of the package"},
               404: {"description": "No such tender of yours"},
               413: {"description": "Over the size limit, or the tenant's quota of stored bytes"},
               415: {"description": "Neither a PDF nor a ZIP"}, 429: {"description": "Over the uploads per minute"}},
    openapi_extra={"requestBody": {"required": True, "content": {
        "multipart/form-data": {"schema": {"type": "object", "required": ["file"],
                                           "properties": {"file": {"type": "string", "format": "binary"}}}},
        "application/pdf": {"schema": {"type": "string", "format": "binary"}},
        "application/zip": {"schema": {"type": "string", "format": "binary"}}}}},
)
async def upload_into_tender(
    tender_id: int, request: Request, tenant: Tenant, services: Services,
    priority: Annotated[int, Query(ge=-32768, le=32767)] = 0,
    languages: Annotated[Line | None, Query(max_length=200)] = None,
    filename: Annotated[Line | None, Query(max_length=500)] = None,
) -> TenderUploadResult:
    """All of it or none of it: the package's documents, their OCR jobs and reservations and their
    memberships in one transaction. A refused member (not a PDF, over the limit) is listed with why and
    not charged; the same bytes twice are one document."""
    settings = services.settings
    await run_in_threadpool(_check_tender, services, tenant, tender_id)
    spooled = await spool_pdf_upload(
        request.headers.get("content-type"), request.headers.get("content-length"), request.stream(),
        max_bytes=max(settings.package_max_bytes, settings.max_upload_bytes), directory=services.upload_spool_dir,
        content_disposition=request.headers.get("content-disposition"), default_filename=filename, zip_too=True)
    with removed_afterwards(spooled.path):
        result = await run_in_threadpool(_upload, services, tenant, tender_id, spooled.path, spooled.filename,
                                         priority, languages)
    return TenderUploadResult.model_validate(result)


def _check_tender(services: ApiServices, tenant: str, tender_id: int) -> None:
    """Before a byte of the body is read: the upload counts against the tenant's uploads per minute
    (429 past it, as `POST /v1/documents`), and the tender is the tenant's (else 404)."""
    with services.pool.connection() as conn:
        limits.admit_upload(conn, tenant, default_per_minute=services.settings.tenant_uploads_per_minute)
        records.get_tender(conn, tender_id, tenant=tenant)


@router.put("/v1/tenders/{tender_id}/documents/{document_id}", response_model=MergeResult,
            summary="Add a document already uploaded to a tender")
def add_document(tender_id: int, document_id: int, tenant: Tenant, services: Services) -> MergeResult:
    with services.pool.connection() as conn:
        return _merge(records.add_documents(conn, tender_id, [document_id], tenant=tenant))


@router.patch("/v1/tenders/{tender_id}/documents/{document_id}", response_model=MergeResult,
              summary="Say what a member document is (its kind decides precedence)")
def set_kind(tender_id: int, document_id: int, request: KindRequest, tenant: Tenant, services: Services) -> MergeResult:
    with services.pool.connection() as conn:
        return _merge(records.set_kind(conn, tender_id, document_id, request.kind, tenant=tenant))


@router.delete("/v1/tenders/{tender_id}/documents/{document_id}", response_model=MergeResult,
               summary="Take a document out of a tender (it stays a document)")
def remove_document(tender_id: int, document_id: int, tenant: Tenant, services: Services) -> MergeResult:
    with services.pool.connection() as conn:
        return _merge(records.remove_document(conn, tender_id, document_id, tenant=tenant))


@router.put("/v1/tenders/{tender_id}/choices/{field}", response_model=MergeResult,
            summary="Settle a field: take its value from this member document")
def choose(tender_id: int, field: Line, request: ChoiceRequest, tenant: Tenant, services: Services) -> MergeResult:
    if field not in FIELD_NAMES:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no field {field!r}; fields: {', '.join(FIELD_NAMES)}")
    with services.pool.connection() as conn:
        return _merge(records.choose(conn, tender_id, field, request.document_id, tenant=tenant))


# --- the calendar -------------------------------------------------------------------------------


def _calendar_tenant(request: Request, services: ApiServices, token: str | None,
                     credentials: HTTPAuthorizationCredentials | None) -> str:
    if token is not None:
        with services.pool.connection() as conn:
            tenant = calendar.tenant_of_token(conn, token)
        if tenant is None:
            raise HTTPException(status.HTTP_401_UNAUTHORIZED, detail="invalid or revoked calendar token")
        return tenant
    return current_tenant(request, services, credentials)


@router.get("/v1/calendar.ics", response_class=Response, tags=["calendar"],
            summary="Your tenders' deadlines as an iCalendar feed (RFC 5545)",
            responses={200: {"content": {"text/calendar": {}}},
                       401: {"description": "Neither an API key nor a valid ?token="}})
def calendar_feed(
    request: Request, services: Services,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Security(tenant_bearer)],
    token: Annotated[Line | None, Query(max_length=100, description="A calendar token (POST /v1/calendar/token), "
                                                                   "for apps that cannot send a key.")] = None,
) -> Response:
    """One event per submission or questions deadline, its UID stable so that a moved deadline updates
    the same event (its SEQUENCE counts the moves); in the buyer's time zone, or a floating local time
    when the buyer's country is unknown."""
    tenant = _calendar_tenant(request, services, token, credentials)
    settings = services.settings
    with services.pool.connection() as conn:
        text = calendar.feed(conn, tenant, domain=calendar.calendar_domain(settings.public_url),
                             public_url=settings.public_url)
    return Response(text, media_type="text/calendar; charset=utf-8",
                    headers={"Content-Disposition": 'inline; filename="tenderflow-deadlines.ics"',
                             "Cache-Control": "private, max-age=300"})


@router.post("/v1/calendar/token", response_model=CalendarToken, tags=["calendar"],
             summary="A new calendar token (the one before stops working)")
def calendar_token(request: Request, tenant: Tenant, services: Services) -> CalendarToken:
    with services.pool.connection() as conn:
        token = calendar.create_token(conn, tenant)
    base = (services.settings.public_url or str(request.base_url)).rstrip("/")
    return CalendarToken(token=token, url=f"{base}/v1/calendar.ics?token={token}")
