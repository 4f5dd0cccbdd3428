"""The operators' dashboard pages of tenders (tenderflow.tenders), server-rendered like the others.

    /dashboard/tenders                 every tender (filter by tenant), the proposals waiting for a
                                       decision, and a form that uploads a ZIP package or a PDF as a
                                       new tender
    /dashboard/tenders/{id}            one tender: its documents with their kinds (set one by hand),
                                       its merged fields with the document, page and quote each came
                                       from, its conflicts (choose the value), each field's history in
                                       sentences, the revisions, and a form to upload more into it
    POST …/upload, …/{id}/upload, …/{id}/documents/{doc}/kind, …/{id}/choices,
         /dashboard/tenders/proposals/{id}/{accept|reject|undo}

Every POST is a form with the session's CSRF token; no page has a script (the dashboard's CSP).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Form, HTTPException, Query, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from tenderflow.api.auth import OperatorSession, Services, Sessions

# The dashboard's own helpers: the page, the CSRF check and the redirect every page of it uses.
from tenderflow.api.dashboard import _blank_as_none, _check_csrf, _page, _redirect
from tenderflow.errors import TenderflowError
from tenderflow.tenants.tenants import list_tenants
from tenderflow.tenders import calendar, proposals, records
from tenderflow.tenders.kinds import Kind
from tenderflow.tenders.merging import FIELD_NAMES, describe_conflict, display_value, history_sentences
from tenderflow.tenders.packages import PackageLimits
from tenderflow.texts import Line

router = APIRouter(prefix="/dashboard/tenders", include_in_schema=False)

TENDERS_PER_PAGE = 50


def _tenders_page(request: Request, services: Any, session: str, *, tenant: str | None = None,
                  before: int | None = None, upload_error: str | None = None,
                  status_code: int = status.HTTP_200_OK) -> HTMLResponse:
    with services.pool.connection() as conn:
        rows = records.list_tenders(conn, tenant=tenant, limit=TENDERS_PER_PAGE + 1, before_id=before)
        waiting = proposals.list_proposals(conn, tenant=tenant, state="proposed", limit=50)
        tenants = [t.name for t in list_tenants(conn)]
    shown = rows[:TENDERS_PER_PAGE]
    filters = {"tenant": tenant} if tenant else {}
    next_url = (f"/dashboard/tenders?{urlencode({**filters, 'before': shown[-1]['id']})}"
                if len(rows) > TENDERS_PER_PAGE else None)
    response = _page(request, "tenders.html", services, session, tenders=shown, proposals=waiting, tenants=tenants,
                     tenant=tenant or "", next_url=next_url, upload_error=upload_error,
                     max_package_bytes=services.settings.package_max_bytes)
    response.status_code = status_code
    return response


@router.get("", response_class=HTMLResponse)
def tender_list(request: Request, services: Services, session: OperatorSession,
                tenant: Annotated[Line | None, Query(max_length=200)] = None,
                before: int | None = None) -> HTMLResponse:
    return _tenders_page(request, services, session, tenant=_blank_as_none(tenant), before=before)


def _tender_page(request: Request, services: Any, session: str, tender_id: int, *, notice: str | None = None,
                 upload_error: str | None = None, status_code: int = status.HTTP_200_OK) -> HTMLResponse:
    with services.pool.connection() as conn:
        tender = records.get_tender(conn, tender_id)
        revisions = records.tender_revisions(conn, tender_id)
    fields = []
    for name, entry in tender["fields"].items():
        fields.append({
            "name": name, "value": display_value(entry.get("value")), "entry": entry,
            "history": history_sentences(name, entry) if entry.get("history") else [],
            "alternatives": [{"value": display_value(a.get("value")), **a} for a in entry.get("alternatives", [])],
        })
    conflicts = [{**c, "sentence": describe_conflict(c["field"], c),
                  "choices": [{"document_id": v["document_id"], "label": v.get("label"),
                               "value": display_value(v.get("value"))} for v in c.get("values", [])]}
                 for c in tender["conflict_list"]]
    events = calendar.events_of(tender, domain=calendar.calendar_domain(services.settings.public_url))
    response = _page(request, "tender.html", services, session, tender=tender, fields=fields, conflicts=conflicts,
                     events=events,
                     revisions=list(reversed(revisions)), kinds=[kind.value for kind in Kind], notice=notice,
                     upload_error=upload_error, field_names=FIELD_NAMES,
                     max_package_bytes=services.settings.package_max_bytes)
    response.status_code = status_code
    return response


@router.get("/{tender_id}", response_class=HTMLResponse)
def tender_detail(request: Request, services: Services, session: OperatorSession, tender_id: int,
                  done: Annotated[Line | None, Query(max_length=40)] = None) -> HTMLResponse:
    notices = {"uploaded": "The files are in the tender: its fields are merged as each document is read.",
               "merged": "Merged again.", "accepted": "Proposal accepted."}
    try:
        return _tender_page(request, services, session, tender_id, notice=notices.get(done or ""))
    except TenderflowError as exc:
        raise HTTPException(exc.http_status, detail=str(exc)) from exc


async def _upload(request: Request, services: Any, sessions: Any, session: str, tender_id: int | None) -> Response:
    """A PDF or ZIP from the browser into a tender (a new one for tender_id None), as `tenderflow
    upload --tender` does; a refusal shows the page again with the reason."""
    from tenderflow.api.upload_stream import removed_afterwards, spool_pdf_upload
    from tenderflow.pipeline.uploads import UploadPolicy
    from tenderflow.tenders.uploads import upload_to_tender

    settings = services.settings

    def again(reason: str, code: int) -> HTMLResponse:
        if tender_id is None:
            return _tenders_page(request, services, session, upload_error=reason, status_code=code)
        return _tender_page(request, services, session, tender_id, upload_error=reason, status_code=code)

    try:
        spooled = await spool_pdf_upload(
            request.headers.get("content-type"), request.headers.get("content-length"), request.stream(),
            max_bytes=max(settings.package_max_bytes, settings.max_upload_bytes), directory=services.upload_spool_dir,
            zip_too=True)
    except HTTPException as exc:
        reason = str(exc.detail)
        if exc.status_code == status.HTTP_400_BAD_REQUEST and "no 'file' part" in reason:
            reason = "choose a ZIP package or a PDF to upload"
        return await run_in_threadpool(again, reason, exc.status_code)
    with removed_afterwards(spooled.path):
        _check_csrf(sessions, session, spooled.fields.get("csrf_token", ""))
        tenant = spooled.fields.get("tenant", "").strip()

        def store() -> Response:
            try:
                with services.pool.connection() as conn:
                    owner = tenant if tender_id is None else str(records.get_tender(conn, tender_id)["tenant"])
                if not owner:
                    raise ValueError("choose the tenant the tender belongs to")
                # The pool: no connection is held while a package is unpacked or stored (review D-N2).
                uploaded = upload_to_tender(
                    services.pool, services.storage, [spooled.path], UploadPolicy.from_settings(settings, tenant=owner),
                    tender=tender_id, name=_blank_as_none(spooled.fields.get("name")), filenames=[spooled.filename],
                    package_limits=PackageLimits.from_settings(settings), work_dir=services.upload_spool_dir)
            except (TenderflowError, ValueError) as exc:
                code = getattr(exc, "http_status", status.HTTP_400_BAD_REQUEST)
                return again(str(exc), code if code < 500 else status.HTTP_400_BAD_REQUEST)
            return _redirect(f"/dashboard/tenders/{uploaded.tender_id}?done=uploaded")

        return await run_in_threadpool(store)


@router.post("/upload", response_model=None)
async def upload_new(request: Request, services: Services, sessions: Sessions, session: OperatorSession) -> Response:
    return await _upload(request, services, sessions, session, None)


@router.post("/{tender_id}/upload", response_model=None)
async def upload_more(request: Request, services: Services, sessions: Sessions, session: OperatorSession,
                      tender_id: int) -> Response:
    return await _upload(request, services, sessions, session, tender_id)


def _act(sessions: Any, session: str, csrf_token: str, action: Callable[[], str]) -> RedirectResponse:
    """A form's change: its CSRF token checked, `action` run, then the page it returns the address of."""
    _check_csrf(sessions, session, csrf_token)
    try:
        return _redirect(action())
    except TenderflowError as exc:
        raise HTTPException(exc.http_status, detail=str(exc)) from exc


@router.post("/{tender_id}/documents/{document_id}/kind")
def set_kind(services: Services, sessions: Sessions, session: OperatorSession, tender_id: int, document_id: int,
             csrf_token: Annotated[Line, Form(max_length=200)],
             kind: Annotated[Line, Form(max_length=20)]) -> RedirectResponse:
    def action() -> str:
        with services.pool.connection() as conn:
            records.set_kind(conn, tender_id, document_id, None if kind == "auto" else kind)
        return f"/dashboard/tenders/{tender_id}?done=merged"

    return _act(sessions, session, csrf_token, action)


@router.post("/{tender_id}/choices")
def choose(services: Services, sessions: Sessions, session: OperatorSession, tender_id: int,
           csrf_token: Annotated[Line, Form(max_length=200)], field: Annotated[Line, Form(max_length=60)],
           document_id: Annotated[Line, Form(max_length=20)]) -> RedirectResponse:
    def action() -> str:
        with services.pool.connection() as conn:
            records.choose(conn, tender_id, field, int(document_id) if document_id.isdigit() else None)
        return f"/dashboard/tenders/{tender_id}?done=merged"

    return _act(sessions, session, csrf_token, action)


@router.post("/proposals/{proposal_id}/{decision}")
def decide(services: Services, sessions: Sessions, session: OperatorSession, proposal_id: int,
           decision: Literal["accept", "reject", "undo"],
           csrf_token: Annotated[Line, Form(max_length=200)]) -> RedirectResponse:
    def action() -> str:
        with services.pool.connection() as conn:
            if decision == "accept":
                return f"/dashboard/tenders/{proposals.accept(conn, proposal_id)}?done=accepted"
            if decision == "reject":
                proposals.reject(conn, proposal_id)
            else:
                proposals.undo(conn, proposal_id)
        return "/dashboard/tenders"

    return _act(sessions, session, csrf_token, action)
