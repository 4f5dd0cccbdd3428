"""The operators' dashboard: server-rendered pages (Jinja2, no build step) that refresh themselves.

    /dashboard                   queue health, workers (local and remote, live and dead; stopped ones
                                 for an hour), documents by state, failed documents with their errors,
                                 failed jobs (Retry, unless the document's own content failed it)
    /dashboard/documents         every document: search by file name, filter by tenant and state,
                                 50 a page (cursor: `before`, the last id shown)
    /dashboard/documents/{id}    one document: its fields as a table, each page's picture beside its
                                 text with the fields' quotes marked
    /dashboard/documents/{id}/pages/{n}.png   one page as a PNG (rendered on demand, kept in memory)
    /dashboard/documents/{id}/pdf, …/searchable.pdf   its PDF as uploaded, and the searchable copy
                                 (tenderflow.api.document_pdfs: what the tenant's API sends)
    /dashboard/search            full-text search over every tenant's documents (tenderflow.pipeline.search):
                                 pages best first, the snippet's matches marked, each a link to its page
    /dashboard/upload            POST: a PDF uploaded from the browser for a tenant (the API's
                                 streaming reader: capped while read, sniffed, the same checks)
    /dashboard/tenants           every tenant: balance, open reservations, charged, caps, limits,
                                 stored bytes
    /dashboard/tenants/{name}    one tenant: usage (all time, last 30 days), limits, API keys, the
                                 newest ledger entries
    /dashboard/login, /logout    the admin token (TENDERFLOW_ADMIN_TOKEN) buys a signed session cookie

Writes (retry a job, reprocess a document from OCR or from its pages already read, upload a PDF,
log out) are POSTed forms that carry a CSRF token
derived from the session; the session cookie is HttpOnly and SameSite=Strict. Without an admin
token configured, every page answers 404 saying how to turn the dashboard on.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, HTTPException, Query, Request, status
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, PackageLoader, select_autoescape

from tenderflow.api import document_pdfs
from tenderflow.api.auth import SESSION_COOKIE, OperatorSession, Services, Sessions
from tenderflow.api.document_view import candidate_rows, field_rows, marked_page_text, quotes_by_page
from tenderflow.api.worker_tokens import list_tokens
from tenderflow.errors import (
    DocumentNotFoundError,
    InsufficientCreditsError,
    JobNotFoundError,
    JobStateError,
    SearchQueryError,
)
from tenderflow.pdf.languages import missing_pack_note
from tenderflow.pipeline import reads, versions
from tenderflow.pipeline.reprocess import reprocess
from tenderflow.pipeline.search import MAX_QUERY_CHARS, SearchFilters, SearchHit, search
from tenderflow.queue import jobs, retry
from tenderflow.queue.stats import queue_stats
from tenderflow.tenants.tenants import list_tenants
from tenderflow.texts import Line

router = APIRouter(prefix="/dashboard", include_in_schema=False)
templates = Jinja2Templates(env=Environment(
    loader=PackageLoader("tenderflow.api", "templates"), autoescape=select_autoescape(default=True),
))
templates.env.globals["missing_pack_note"] = missing_pack_note

NOTICES = {
    "retried": "Job {id} is queued again.",
    "retried-version-failed": "Job {id} is queued again.",  # and the page says why that will not help
    "not-retried": "Job {id} was not retried: only failed or cancelled jobs can be.",
    "reprocessing": "Document {id}: a new version is queued.",
    "in-flight": "Document {id}: a version is already being processed.",
    "no-credits": "Document {id} was not reprocessed: its tenant has not enough credits.",
    "no-pages": "Document {id} was not extracted again: no version has all its pages read; reprocess it from OCR.",
}


STOPPED_WORKERS_SHOWN_SECONDS = 3600
"""Stopped workers stay on the overview this long; older ones are only counted (they are pruned
after 7 days). Every `worker --burst` or restart leaves one, and they would outnumber the live."""
DOCUMENTS_PER_PAGE = 50
RECENT_DOCUMENTS = 15
TENANT_LEDGER_ENTRIES = 100


def _redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=status.HTTP_303_SEE_OTHER)


def _check_csrf(sessions: Any, session: str, csrf_token: str) -> None:
    if not sessions.csrf_matches(session, csrf_token):
        raise HTTPException(status.HTTP_403_FORBIDDEN, detail="stale or missing form token: reload the page")


def _page(request: Request, template: str, services: Any, session: str | None, **context: Any) -> HTMLResponse:
    sessions = services.sessions
    return templates.TemplateResponse(request, template, {
        "refresh_seconds": services.settings.dashboard_refresh_seconds,
        "csrf_token": sessions.csrf_token(session) if session else "",
        "logged_in": session is not None,
        **context,
    })


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, services: Services, sessions: Sessions) -> HTMLResponse:
    return _page(request, "login.html", services, None, error=None)


@router.post("/login", response_model=None)
def login(
    request: Request, services: Services, sessions: Sessions, token: Annotated[Line, Form(max_length=1000)]
) -> Response:
    response: Response
    client = request.client.host if request.client else "unknown"
    # The right token always logs in (review security-2, D-N5); wrong ones past the limit get 429.
    wait = 0.0 if sessions.token_matches(token) else sessions.throttle.wait_seconds(client)
    if wait > 0:
        response = _page(request, "login.html", services, None,
                         error=f"Too many wrong tokens from this address; try again in {wait:.0f} s.")
        response.status_code = status.HTTP_429_TOO_MANY_REQUESTS
        response.headers["Retry-After"] = str(int(wait) + 1)
        return response
    if not sessions.token_matches(token):
        sessions.throttle.failed(client)
        response = _page(request, "login.html", services, None, error="That is not the admin token.")
        response.status_code = status.HTTP_401_UNAUTHORIZED
        return response
    sessions.throttle.succeeded(client)
    response = _redirect("/dashboard")
    response.set_cookie(
        SESSION_COOKIE, sessions.issue(), max_age=int(sessions.lifetime_seconds), httponly=True,
        samesite="strict", path="/",
        secure=request.url.scheme == "https" or (services.settings.public_url or "").startswith("https://"),
    )
    return response


@router.post("/logout")
def logout(
    request: Request, services: Services, sessions: Sessions, session: OperatorSession,
    csrf_token: Annotated[Line, Form(max_length=200)],
) -> RedirectResponse:
    _check_csrf(sessions, session, csrf_token)
    with services.pool.connection() as conn:
        sessions.end(conn, request.cookies.get(SESSION_COOKIE))
    response = _redirect("/dashboard/login")
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("", response_class=HTMLResponse)
def overview(
    request: Request, services: Services, session: OperatorSession,
    notice: Annotated[Line | None, Query(max_length=50)] = None, subject: int | None = None,
) -> HTMLResponse:
    settings = services.settings
    with services.pool.connection() as conn:
        failed_version = None
        if notice == "retried-version-failed" and subject is not None:
            try:
                failed_version = versions.failed_version_of_job(conn, subject)
            except JobNotFoundError:
                pass  # pruned since: the notice alone stays true
        stats = queue_stats(conn, dead_after_seconds=settings.worker_dead_after_seconds)
        database_now = conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]  # one row, always
        counts = reads.document_counts(conn)
        failed_documents = reads.list_documents(conn, state="failed", limit=20)
        recent_documents = reads.list_documents(conn, limit=RECENT_DOCUMENTS)
        failed_jobs = jobs.list_jobs(conn, state="failed", limit=50)
        content_failures = versions.jobs_failed_for_content(conn, [int(j["id"]) for j in failed_jobs])
        tokens = list_tokens(conn)
    shown_since = database_now - timedelta(seconds=STOPPED_WORKERS_SHOWN_SECONDS)
    workers = [w for w in stats.workers if w["stopped_at"] is None or w["stopped_at"] >= shown_since]
    message = NOTICES[notice].format(id=subject) if notice in NOTICES and subject is not None else None
    return _page(request, "overview.html", services, session, stats=stats, counts=counts, workers=workers,
                 older_stopped_workers=len(stats.workers) - len(workers),
                 failed_documents=failed_documents, recent_documents=recent_documents,
                 failed_jobs=failed_jobs, content_failures=content_failures, tokens=tokens, notice=message,
                 failed_version=failed_version)


def _blank_as_none(value: str | None) -> str | None:
    return value.strip() or None if value is not None else None


@router.get("/documents", response_class=HTMLResponse)
def document_list(
    request: Request, services: Services, session: OperatorSession,
    q: Annotated[Line | None, Query(max_length=200)] = None,
    tenant: Annotated[Line | None, Query(max_length=200)] = None,
    state: Annotated[Line | None, Query(max_length=20)] = None,
    before: int | None = None,
) -> HTMLResponse:
    """Every document, newest first, DOCUMENTS_PER_PAGE at a time: `before` is the cursor (the last
    id of the previous page), so pages stay stable while uploads arrive."""
    return _documents_page(request, services, session, q=q, tenant=tenant, state=state, before=before)


def _documents_page(
    request: Request, services: Any, session: str, *, q: str | None = None, tenant: str | None = None,
    state: str | None = None, before: int | None = None, upload_error: str | None = None,
    upload_tenant: str | None = None, status_code: int = status.HTTP_200_OK,
) -> HTMLResponse:
    q, tenant, state = _blank_as_none(q), _blank_as_none(tenant), _blank_as_none(state)
    if state is not None and state not in versions.VersionState.__members__.values():
        raise HTTPException(status.HTTP_400_BAD_REQUEST,
                            detail=f"no state {state!r}: one of {', '.join(versions.VersionState)}")
    with services.pool.connection() as conn:
        rows = reads.list_documents(conn, tenant=tenant, state=state, filename=q, before_id=before,
                                        limit=DOCUMENTS_PER_PAGE + 1)
        tenants = [t.name for t in list_tenants(conn)]
    shown = rows[:DOCUMENTS_PER_PAGE]
    filters = {key: value for key, value in (("q", q), ("tenant", tenant), ("state", state)) if value}
    next_url = (f"/dashboard/documents?{urlencode({**filters, 'before': shown[-1]['id']})}"
                if len(rows) > DOCUMENTS_PER_PAGE else None)
    first_url = f"/dashboard/documents?{urlencode(filters)}" if before is not None else None
    response = _page(request, "documents.html", services, session, documents=shown, q=q or "", tenant=tenant or "",
                     state=state or "", tenants=tenants, states=list(versions.VersionState), next_url=next_url,
                     first_url=first_url, upload_error=upload_error,
                     upload_tenant=upload_tenant or tenant or "",
                     max_upload_bytes=services.settings.max_upload_bytes)
    response.status_code = status_code
    return response


@router.post("/upload", response_model=None)
async def upload_document(request: Request, services: Services, sessions: Sessions,
                          session: OperatorSession) -> Response:
    """A PDF from the browser, stored for the tenant the form names, as `tenderflow upload` would
    (the same checks, credits and quota; the operator's uploads do not count against the tenant's
    uploads per minute). The body is read by the API's streaming reader, capped while it arrives;
    then the document's page. A refusal shows the documents page again with the reason."""
    from starlette.concurrency import run_in_threadpool

    from tenderflow.api.upload_stream import removed_afterwards, spool_pdf_upload
    from tenderflow.errors import TenderflowError
    from tenderflow.pipeline.uploads import UploadPolicy, check_languages, upload_file

    settings = services.settings
    try:
        spooled = await spool_pdf_upload(
            request.headers.get("content-type"), request.headers.get("content-length"), request.stream(),
            max_bytes=settings.max_upload_bytes, directory=services.upload_spool_dir)
    except HTTPException as exc:
        reason, code = str(exc.detail), exc.status_code
        if code == status.HTTP_400_BAD_REQUEST and ("no 'file' part" in reason or "a file in a part named" in reason):
            reason = "choose a PDF file to upload"
        return await run_in_threadpool(
            lambda: _documents_page(request, services, session, upload_error=reason, status_code=code))
    with removed_afterwards(spooled.path):
        _check_csrf(sessions, session, spooled.fields.get("csrf_token", ""))
        tenant = spooled.fields.get("tenant", "").strip()

        def store() -> Response:
            try:
                if not tenant:
                    raise ValueError("choose the tenant the document belongs to")
                languages = check_languages(_blank_as_none(spooled.fields.get("languages")))
                policy = UploadPolicy.from_settings(settings, tenant=tenant, languages=languages)
                outcome = upload_file(services.pool, services.storage, spooled.path, policy,
                                      filename=spooled.filename)
            except (TenderflowError, ValueError) as exc:
                code = getattr(exc, "http_status", status.HTTP_400_BAD_REQUEST)
                return _documents_page(request, services, session, upload_error=str(exc), upload_tenant=tenant,
                                       status_code=code if code < 500 else status.HTTP_400_BAD_REQUEST)
            if outcome.document_id is None:  # refused by the upload's own checks (empty, not a PDF…)
                return _documents_page(request, services, session, upload_error=outcome.error or "not uploaded",
                                       upload_tenant=tenant, status_code=status.HTTP_400_BAD_REQUEST)
            return _redirect(f"/dashboard/documents/{outcome.document_id}?uploaded={outcome.status}")

        return await run_in_threadpool(store)


@router.get("/tenants", response_class=HTMLResponse)
def tenant_list(request: Request, services: Services, session: OperatorSession) -> HTMLResponse:
    """Every tenant with its credits (balance, open reservations, charged), caps and upload limits."""
    from tenderflow.tenants import limits

    settings = services.settings
    with services.pool.connection() as conn:
        rows = []
        for tenant in list_tenants(conn):
            upload_limits = limits.limits_of(conn, tenant.name, default_per_minute=settings.tenant_uploads_per_minute,
                                             default_max_stored_bytes=settings.tenant_max_stored_bytes)
            rows.append({"tenant": tenant, "limits": upload_limits,
                         "stored_bytes": limits.stored_bytes(conn, tenant.name),
                         "documents": sum(reads.document_counts(conn, tenant=tenant.name).values())})
    return _page(request, "tenants.html", services, session, rows=rows,
                 default_max_running=settings.tenant_max_running)


@router.get("/tenants/{name}", response_class=HTMLResponse)
def tenant_page(request: Request, name: Line, services: Services, session: OperatorSession) -> HTMLResponse:
    """One tenant: usage all time and over the last 30 days, its limits, API keys and newest ledger entries."""
    from tenderflow.errors import TenantNotFoundError
    from tenderflow.tenants import credits, limits
    from tenderflow.tenants.keys import list_api_keys
    from tenderflow.tenants.tenants import get_tenant

    settings = services.settings
    with services.pool.connection() as conn:
        try:
            tenant = get_tenant(conn, name)
        except TenantNotFoundError as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from exc
        database_now = conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]  # one row, always
        all_time = credits.usage(conn, name)
        last_30_days = credits.usage(conn, name, since=database_now - timedelta(days=30))
        upload_limits = limits.limits_of(conn, name, default_per_minute=settings.tenant_uploads_per_minute,
                                         default_max_stored_bytes=settings.tenant_max_stored_bytes)
        stored = limits.stored_bytes(conn, name)
        keys = list_api_keys(conn, tenant=name)
        entries = credits.recent_entries(conn, name, limit=TENANT_LEDGER_ENTRIES)
        counts = reads.document_counts(conn, tenant=name)
    return _page(request, "tenant.html", services, session, tenant=tenant, all_time=all_time,
                 last_30_days=last_30_days, limits=upload_limits, stored_bytes=stored, keys=keys, entries=entries,
                 counts=counts, prices=services.prices,
                 default_max_running=settings.tenant_max_running, ledger_limit=TENANT_LEDGER_ENTRIES)


UPLOAD_NOTICES = {
    "created": "Uploaded: the document is queued for OCR.",
    "existing": "These bytes were uploaded before for this tenant: this is that document.",
    "reprocessing": "Uploaded again: a new version is queued.",
    "in flight": "These bytes were uploaded before and are being processed.",
}


SEARCH_RESULTS = 50


def snippet_pieces(hit: SearchHit) -> list[tuple[str, bool]]:
    """The snippet as (text, marked) pieces, in order: the template escapes each and marks the matches."""
    pieces: list[tuple[str, bool]] = []
    position = 0
    for start, end in sorted(hit.highlights):
        if start < position or end > len(hit.snippet):
            continue
        if start > position:
            pieces.append((hit.snippet[position:start], False))
        pieces.append((hit.snippet[start:end], True))
        position = end
    if position < len(hit.snippet):
        pieces.append((hit.snippet[position:], False))
    return pieces


@router.get("/search", response_class=HTMLResponse)
def text_search(
    request: Request, services: Services, session: OperatorSession,
    q: Annotated[Line | None, Query(max_length=MAX_QUERY_CHARS)] = None,
    tenant: Annotated[Line | None, Query(max_length=200)] = None,
    state: Annotated[Line | None, Query(max_length=20)] = None,
    cpv: Annotated[Line | None, Query(max_length=20)] = None,
    buyer: Annotated[Line | None, Query(max_length=200)] = None,
    deadline_after: Annotated[Line | None, Query(max_length=10)] = None,
    deadline_before: Annotated[Line | None, Query(max_length=10)] = None,
) -> HTMLResponse:
    """The text of every document's readable version: the SEARCH_RESULTS best pages for the words,
    with the search's filters. A query or filter that cannot be used is said on the page (400)."""
    from datetime import date

    q, tenant, state, cpv, buyer = (_blank_as_none(value) for value in (q, tenant, state, cpv, buyer))
    after, before = _blank_as_none(deadline_after), _blank_as_none(deadline_before)
    hits: list[dict[str, Any]] = []
    error = None
    with services.pool.connection() as conn:
        tenants = [t.name for t in list_tenants(conn)]
        if q is not None:
            try:
                if state is not None and state not in versions.VersionState.__members__.values():
                    raise SearchQueryError(f"no state {state!r}: one of {', '.join(versions.VersionState)}")
                try:
                    days = [date.fromisoformat(day) if day else None for day in (after, before)]
                except ValueError as exc:
                    raise SearchQueryError(f"a deadline is a day like 2026-03-01: {exc}") from exc
                filters = SearchFilters(state=versions.VersionState(state) if state else None,
                                        deadline_after=days[0], deadline_before=days[1], cpv_prefix=cpv, buyer=buyer)
                hits = [{**vars(hit), "pieces": snippet_pieces(hit)}
                        for hit in search(conn, q, tenant=tenant, filters=filters, limit=SEARCH_RESULTS)]
            except SearchQueryError as exc:
                error = str(exc)
    response = _page(request, "search.html", services, session, q=q or "", tenant=tenant or "", state=state or "",
                     cpv=cpv or "", buyer=buyer or "", deadline_after=after or "", deadline_before=before or "",
                     tenants=tenants, states=list(versions.VersionState), hits=hits, error=error,
                     limit=SEARCH_RESULTS, refresh_seconds=0)
    if error:
        response.status_code = status.HTTP_400_BAD_REQUEST
    return response


@router.get("/documents/{document_id}", response_class=HTMLResponse)
def document_page(request: Request, document_id: int, services: Services, session: OperatorSession,
                  uploaded: Annotated[Line | None, Query(max_length=20)] = None) -> HTMLResponse:
    with services.pool.connection() as conn:
        try:
            # The latest version's pages as they arrive; the fields of the newest finished version.
            view = reads.read_document(conn, document_id, pages="latest")
        except DocumentNotFoundError as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from exc
        has_thumbnail = reads.read_thumbnail(conn, document_id) is not None
        # A failed document whose pages were all read (its extraction failed) can be extracted
        # again without reading them again, as `reprocess --from extract` would.
        extract_again = view.document.state == versions.VersionState.FAILED and (
            view.readable_version is not None
            or versions.newest_failed_version_with_pages(conn, document_id) is not None)
    extraction = view.extraction
    rows = field_rows(extraction.fields, extraction.provenance) if extraction else []
    candidates = candidate_rows(extraction.provenance) if extraction else []
    quotes = quotes_by_page(rows)
    texts = {page.page_number: marked_page_text(page.text, quotes.get(page.page_number, []))
             for page in view.pages}
    return _page(request, "document.html", services, session, document=view.document, pages=view.pages,
                 texts=texts, extraction=extraction, field_rows=rows, candidate_rows=candidates,
                 readable_version=view.readable_version,
                 has_thumbnail=has_thumbnail,
                 extract_again=extract_again, notice=UPLOAD_NOTICES.get(uploaded or ""))


@router.get("/documents/{document_id}/pages/{page}.png", response_class=Response)
def document_page_image(document_id: int, page: int, services: Services, session: OperatorSession) -> Response:
    """Page `page` of the stored PDF as a PNG, its longer side PAGE_IMAGE_LONGER_SIDE pixels."""
    with services.pool.connection() as conn:
        try:
            document = reads.get_document(conn, document_id)
        except DocumentNotFoundError as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from exc
    if not 1 <= page <= (document["page_count"] or 0):
        raise HTTPException(status.HTTP_404_NOT_FOUND,
                            detail=f"document {document_id} has no page {page} (or its pages are not counted yet)")
    png = services.page_images.png(document["tenant"], document["sha256"], page)
    return Response(png, media_type="image/png")


@router.get("/documents/{document_id}/pdf", response_class=FileResponse)
def document_pdf(document_id: int, services: Services, session: OperatorSession) -> FileResponse:
    """The document's PDF as it was uploaded (what the tenant's GET /v1/documents/{id}/pdf sends)."""
    return document_pdfs.original_pdf_response(services, document_id, tenant=None)


@router.get("/documents/{document_id}/searchable.pdf", response_class=FileResponse)
async def document_searchable_pdf(document_id: int, services: Services, session: OperatorSession) -> FileResponse:
    """Its newest finished version's pages with an invisible text layer where OCR read them (made on
    the first request, then stored); 409 while no version is finished."""
    return await document_pdfs.searchable_pdf_response(services, document_id, tenant=None)


@router.get("/documents/{document_id}/thumbnail.png", response_class=Response)
def document_thumbnail(document_id: int, services: Services, session: OperatorSession) -> Response:
    """The document's first page as a small PNG (404 until the thumbnail stage has made it)."""
    with services.pool.connection() as conn:
        try:
            png = reads.read_thumbnail(conn, document_id)
        except DocumentNotFoundError as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from exc
    if png is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"document {document_id} has no thumbnail yet")
    return Response(png, media_type="image/png", headers={"Cache-Control": "private, no-store"})


@router.post("/jobs/{job_id}/retry")
def retry_job(
    job_id: int, services: Services, sessions: Sessions, session: OperatorSession,
    csrf_token: Annotated[Line, Form(max_length=200)],
) -> RedirectResponse:
    """failed | cancelled -> queued, with one more attempt (as `tenderflow jobs retry`). When the job's
    document version has already failed, the page it lands on says so and offers Reprocess instead
    (the notice sits at the top, so no jump down to the failed jobs)."""
    _check_csrf(sessions, session, csrf_token)
    with services.pool.connection() as conn:
        try:
            with conn.transaction():
                retry(conn, job_id)
        except JobNotFoundError as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from exc
        except JobStateError:
            return _redirect(f"/dashboard?notice=not-retried&subject={job_id}#failed-jobs")
        if versions.failed_version_of_job(conn, job_id) is not None:
            return _redirect(f"/dashboard?notice=retried-version-failed&subject={job_id}")
    return _redirect(f"/dashboard?notice=retried&subject={job_id}#failed-jobs")


@router.post("/documents/{document_id}/reprocess")
def reprocess_document(
    document_id: int, services: Services, sessions: Sessions, session: OperatorSession,
    csrf_token: Annotated[Line, Form(max_length=200)],
    start_from: Annotated[versions.StartPoint, Form()] = versions.StartPoint.OCR,
) -> RedirectResponse:
    """A new version of the document, from OCR or, reading the pages already read, from extraction
    (as `tenderflow reprocess --from`)."""
    _check_csrf(sessions, session, csrf_token)
    with services.pool.connection() as conn:
        try:
            outcome = reprocess(conn, document_id, start_from=start_from,
                                prices=services.prices,
                                max_attempts=services.settings.max_attempts)
        except DocumentNotFoundError as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from exc
        except InsufficientCreditsError:
            return _redirect(f"/dashboard?notice=no-credits&subject={document_id}")
        except JobStateError:  # from extraction, but no version has all its pages
            return _redirect(f"/dashboard?notice=no-pages&subject={document_id}")
    notice = "reprocessing" if outcome.created else "in-flight"
    return _redirect(f"/dashboard?notice={notice}&subject={document_id}")
