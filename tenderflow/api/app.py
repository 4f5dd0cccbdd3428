"""The FastAPI application: `create_app(settings)` builds it; its lifespan opens what it needs.

    /v1/documents…   tenants' API (tenderflow.api.documents)
    /v1/account      a tenant's own credits, usage, prices and limits (tenderflow.api.account)
    /v1/tenders…     tenants' tenders: documents as one record, packages, proposals (tenderflow.api.tenders)
    /v1/calendar.ics a tenant's tender deadlines as iCalendar (an API key, or a calendar token)
    /v1/webhooks…    tenants' webhook endpoints and deliveries (tenderflow.api.webhooks)
    /v1/watches…     tenants' watched folders and S3 prefixes (tenderflow.api.watches)
    /v1/schedules…   operators: the queue's recurring schedules (tenderflow.api.schedules)
    /v1/tenants/…    operators: a tenant's upload limits and retention period (tenderflow.api.tenant_limits)
    /v1/worker/…     remote pull workers (tenderflow.api.remote_workers)
    /dashboard…      operators (tenderflow.api.dashboard; its tenders' pages tenderflow.api.dashboard_tenders)
    /metrics         Prometheus (tenderflow.api.metrics; the route in tenderflow.api.operations)
    /healthz         liveness + database reachability, for load balancers and compose (tenderflow.api.operations)
    /readyz          readiness: the database and the object storage both answer (tenderflow.api.operations)
    /docs            OpenAPI

Endpoints are synchronous and run on the thread pool, borrowing connections from the one psycopg
pool (see STYLE.md); the pool size and the thread count are settings. Errors are JSON with a
`detail` saying what went wrong; tenderflow's own errors map to status codes below, and a request
that does not fit its route answers 422 in words (tenderflow.api.validation).
"""

from __future__ import annotations

import math
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
import psycopg
import structlog
from fastapi import FastAPI, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from psycopg_pool import PoolTimeout
from starlette.concurrency import run_in_threadpool

from tenderflow.api import (
    account,
    dashboard,
    dashboard_tenders,
    document_pdfs,
    documents,
    export,
    operations,
    remote_workers,
    search,
    tenant_limits,
    tenders,
)
from tenderflow.api import schedules as schedule_routes
from tenderflow.api import watches as watch_routes
from tenderflow.api import webhooks as webhook_routes
from tenderflow.api.access_log import AccessLog
from tenderflow.api.auth import LoginRequiredError
from tenderflow.api.http_metrics import http_registry
from tenderflow.api.limits import BodySizeLimit
from tenderflow.api.metrics import metrics_registry
from tenderflow.api.services import ApiServices, open_services
from tenderflow.api.validation import document_validation_answers, validation_error
from tenderflow.config import Settings
from tenderflow.errors import (
    TenderflowError,
)

API_DESCRIPTION = """\
Tender PDFs in, searchable text and structured fields out.

* **Tenants** authenticate with an API key: `Authorization: Bearer tfk_…`. Upload PDFs, follow
  their processing, read their text and fields. Another tenant's documents do not exist for you.
* **Remote workers** authenticate with a worker token: `Authorization: Bearer tfw_…`.
"""

log = structlog.get_logger("tenderflow.api")


OPERATOR_PAGE_HEADERS: dict[str, str] = {
    # The dashboard has no script and no inline style: nothing but its own stylesheet may load, no
    # page may frame it, and no proxy or browser keeps a copy (review D17).
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

_COMPLETE_PATH = re.compile(r"/v1/worker/jobs/\d+/complete")
_TENDER_UPLOAD_PATH = re.compile(r"/v1/tenders/\d+/documents|/dashboard/tenders/\d+/upload")
SMALL_BODY_BYTES = 1024 * 1024


def body_limit_for(settings: Settings) -> Any:
    """Each route's body cap. The upload is exempt: it streams to disk under its own cap (the file's
    size and the whole body's), with a message naming the upload limit. Remote workers' results may be
    large, up to TENDERFLOW_MAX_RESULT_BYTES."""

    def limit_for(method: str, path: str) -> int | None:
        if method == "POST" and (path.rstrip("/") in ("/v1/documents", "/dashboard/upload")
                                  or _TENDER_UPLOAD_PATH.fullmatch(path.rstrip("/"))):
            return None
        if _COMPLETE_PATH.fullmatch(path):
            return settings.max_result_bytes
        return SMALL_BODY_BYTES

    return limit_for


def create_app(settings: Settings, *, opened: ApiServices | None = None) -> FastAPI:
    """The application for `settings`. Its lifespan opens its services, or takes `opened` (what
    `tenderflow serve` opened before uvicorn, so that a database it cannot reach is one line on
    stderr, not a traceback), and closes them when it ends."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Each waiting remote claim holds a thread (not a connection): make room for them.
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.api_threads
        services = opened if opened is not None else await run_in_threadpool(open_services, settings)
        app.state.services = services
        app.state.metrics = metrics_registry(services.pool, dead_after_seconds=settings.worker_dead_after_seconds)
        try:
            yield
        finally:
            await run_in_threadpool(services.close)

    # /docs and /redoc from assets the package ships (fastapi-offline), not from a CDN: they work on
    # an offline or air-gapped network, which the embedded, no-services setup invites.
    app = FastAPIOffline(title="tenderflow", version="0.1.0", description=API_DESCRIPTION, lifespan=lifespan)
    _add_middleware(app, settings)
    _include_routes(app)
    _install_error_handlers(app)
    return app


def _add_middleware(app: FastAPI, settings: Settings) -> None:
    """Each route's body cap, the access log and request metrics (the outermost), and the operator
    pages' security headers."""
    app.add_middleware(BodySizeLimit, limit_for=body_limit_for(settings))
    http_metrics, requests, durations = http_registry()
    app.state.http_metrics = http_metrics
    app.add_middleware(AccessLog, requests=requests, durations=durations)  # added last: the outermost

    @app.middleware("http")
    async def operator_page_headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        if request.url.path.startswith(("/dashboard", "/metrics")):
            response.headers.update(OPERATOR_PAGE_HEADERS)
        return response


def _include_routes(app: FastAPI) -> None:
    """The routers of the module docstring's table, the dashboard's stylesheet, the operations routes."""
    for routes in (documents, tenders, account, document_pdfs, search, export, webhook_routes, watch_routes,
                   schedule_routes, tenant_limits, remote_workers, dashboard_tenders, dashboard):
        app.include_router(routes.router)
    app.mount("/dashboard/static", StaticFiles(packages=[("tenderflow.api", "static")]), name="static")
    app.include_router(operations.router)


def _install_error_handlers(app: FastAPI) -> None:
    """Errors as JSON with a `detail` in words: a request that does not fit its route 422 (and the
    OpenAPI schema says so), tenderflow's own errors their status (errors.py), the database's 503 or
    500 without its SQL; a dashboard page without a session leads to the login."""
    # A parameter or body that does not fit: 422 in plain words, naming the choices (not pydantic's dump).
    app.add_exception_handler(RequestValidationError, validation_error)
    default_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        return document_validation_answers(default_openapi())

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to change the schema

    @app.exception_handler(TenderflowError)
    def tenderflow_error(request: Request, exc: TenderflowError) -> JSONResponse:
        if exc.http_status >= 500:
            # The service's own trouble (storage, database, migrations): its text names paths,
            # buckets and endpoints, which go to the log, not to the caller (review D14).
            log.error("api.server_error", path=request.url.path, error=f"{type(exc).__name__}: {exc}")
            return JSONResponse({"detail": "the service cannot do this right now; try again later"},
                                status_code=exc.http_status, headers={"Retry-After": "5"})
        retry_after = getattr(exc, "retry_after", None)  # e.g. UploadRateLimitedError's
        headers = {"Retry-After": str(math.ceil(retry_after))} if retry_after is not None else None
        return JSONResponse({"detail": str(exc)}, status_code=exc.http_status, headers=headers)  # errors.py

    @app.exception_handler(psycopg.OperationalError)
    @app.exception_handler(PoolTimeout)
    def database_unavailable(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": "the database is unavailable; try again shortly"},
                            status_code=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": "5"})

    @app.exception_handler(psycopg.Error)
    def database_refused(request: Request, exc: psycopg.Error) -> JSONResponse:
        # Any other database error (a constraint, bad data): an answer, never a dropped connection,
        # and never the SQL's text for the caller (it goes to the log).
        log.error("api.database_error", path=request.url.path, error=f"{type(exc).__name__}: {exc}")
        return JSONResponse({"detail": "the request could not be carried out; nothing was changed"},
                            status_code=status.HTTP_500_INTERNAL_SERVER_ERROR)

    @app.exception_handler(LoginRequiredError)
    def login_required(request: Request, exc: LoginRequiredError) -> RedirectResponse:
        return RedirectResponse("/dashboard/login", status_code=status.HTTP_303_SEE_OTHER)
