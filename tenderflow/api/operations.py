"""The operations routes: `/healthz` (liveness and database reachability, for load balancers and
compose), `/readyz` (readiness: the database and the object storage both answer), `/metrics`
(Prometheus, the admin token as Bearer), and `/`, which leads to the OpenAPI pages."""

from __future__ import annotations

import psycopg
import structlog
from fastapi import APIRouter, Depends, Request, status
from fastapi.responses import JSONResponse, RedirectResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from psycopg_pool import PoolTimeout

from tenderflow.api.auth import Services, operator_or_scraper

router = APIRouter()

log = structlog.get_logger("tenderflow.api")


@router.get("/healthz", tags=["operations"], summary="Liveness and database reachability")
def healthz(services: Services) -> JSONResponse:
    try:
        with services.pool.connection(timeout=5) as conn:
            conn.execute("SELECT 1")
    except (psycopg.Error, PoolTimeout) as exc:
        return JSONResponse({"status": "unavailable", "detail": f"database: {exc}"},
                            status_code=status.HTTP_503_SERVICE_UNAVAILABLE)
    return JSONResponse({"status": "ok"})


@router.get("/readyz", tags=["operations"], summary="Readiness: the database and the object storage answer")
def readyz(services: Services) -> JSONResponse:
    """200 when an upload could be taken now: the database answers a query and the storage a
    lookup; else 503 naming which does not (the reasons go to the log, not to the caller: they
    name hosts and buckets)."""
    from tenderflow.handlers.preflight import check_storage

    checks: dict[str, str] = {}
    try:
        with services.pool.connection(timeout=5) as conn:
            conn.execute("SELECT 1")
        checks["database"] = "ok"
    except (psycopg.Error, PoolTimeout) as exc:
        log.warning("api.not_ready", part="database", error=f"{type(exc).__name__}: {exc}")
        checks["database"] = "unavailable"
    storage = check_storage(services.storage)
    if not storage.ok:
        log.warning("api.not_ready", part="storage", error=storage.detail)
    checks["storage"] = "ok" if storage.ok else "unavailable"
    ready = all(value == "ok" for value in checks.values())
    return JSONResponse({"status": "ok" if ready else "unavailable", **checks},
                        status_code=status.HTTP_200_OK if ready else status.HTTP_503_SERVICE_UNAVAILABLE,
                        headers=None if ready else {"Retry-After": "5"})


@router.get("/metrics", tags=["operations"], summary="Prometheus metrics (admin token as Bearer)",
            dependencies=[Depends(operator_or_scraper)])
def metrics(request: Request) -> Response:
    body = generate_latest(request.app.state.metrics) + generate_latest(request.app.state.http_metrics)
    return Response(body, media_type=CONTENT_TYPE_LATEST)


@router.get("/", include_in_schema=False)
def root() -> RedirectResponse:
    return RedirectResponse("/docs")
