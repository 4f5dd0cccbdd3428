"""Who is calling: a tenant (API key), a remote worker (worker token) or an operator (admin session).

    tenant     Authorization: Bearer <tenant API key>   -> the tenant's name (tenderflow.tenants.keys)
    worker     Authorization: Bearer tfw_…  + X-Tenderflow-Worker: <instance>   -> RemoteCaller
    operator   the dashboard's session cookie, signed with an HMAC keyed by the admin token; or
               Authorization: Bearer <admin token> (Prometheus scraping /metrics)

Operator sessions need no table: the cookie holds its expiry and a random nonce, signed. Changing
the admin token ends every session. The dashboard's forms carry a CSRF token derived from the
session (an HMAC of its nonce), and the cookie is SameSite=Strict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import psycopg
from fastapi import Depends, Header, HTTPException, Request, Security, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from tenderflow.api.services import ApiServices
from tenderflow.api.sessions import OperatorSessions
from tenderflow.api.worker_tokens import WorkerToken, verify_token
from tenderflow.remote.protocol import INSTANCE_PATTERN, WORKER_INSTANCE_HEADER
from tenderflow.tenants.keys import check_api_key

SESSION_COOKIE = "tenderflow_session"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
OTHER_CREDENTIALS = ("tfk_", "tfw_")
"""How tenants' API keys and worker tokens begin: sent to an operator's route, not a guess at the admin token."""


def get_services(request: Request) -> ApiServices:
    services = request.app.state.services
    assert isinstance(services, ApiServices)
    return services


Services = Annotated[ApiServices, Depends(get_services)]

tenant_bearer = HTTPBearer(
    auto_error=False, scheme_name="TenantKey", description="A tenant API key (`tenderflow keys create`)."
)
worker_bearer = HTTPBearer(
    auto_error=False, scheme_name="WorkerToken", description="A worker token (`tenderflow worker-tokens create`)."
)
operator_bearer = HTTPBearer(auto_error=False, scheme_name="AdminToken", description="The admin token.")


def _unauthorized(detail: str) -> HTTPException:
    return HTTPException(status.HTTP_401_UNAUTHORIZED, detail=detail, headers={"WWW-Authenticate": "Bearer"})


T = TypeVar("T")


def _presented(
    services: ApiServices, credentials: HTTPAuthorizationCredentials | None,
    look_up: Callable[[psycopg.Connection[Any], str], T | None], *, what: str, example: str,
) -> T:
    """What the Bearer credential sent stands for, as `look_up` finds it in the database; 401 when
    none is sent (the message shows the header with `example`), or for one it does not find."""
    if credentials is None:
        raise _unauthorized(f"missing {what}: send 'Authorization: Bearer {example}'")
    with services.pool.connection() as conn:
        found = look_up(conn, credentials.credentials)
    if found is None:
        raise _unauthorized(f"invalid or revoked {what}")
    return found


# --- tenants ------------------------------------------------------------------------------------


READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def current_tenant(
    request: Request, services: Services,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Security(tenant_bearer)],
) -> str:
    """The tenant whose API key is presented; 401 without a valid one (or with an expired one), 403
    for a read-only key asked to change something (any method but GET/HEAD)."""
    check = _presented(services, credentials, check_api_key, what="API key", example="<key>")
    if check.expired:
        when = check.expires_at.strftime("%Y-%m-%d %H:%M UTC") if check.expires_at else "?"
        raise _unauthorized(f"API key {check.key_id} expired on {when}; ask the operator for a new one")
    if check.scope != "write" and request.method not in READ_METHODS:
        raise HTTPException(status.HTTP_403_FORBIDDEN,
                            detail=f"API key {check.key_id} is read-only (scope {check.scope}): it can list, read, "
                                   "search and export, not upload or reprocess")
    return check.tenant


Tenant = Annotated[str, Depends(current_tenant)]


# --- remote workers -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RemoteCaller:
    """A remote worker: its token, its instance name, and the worker_id its claims carry."""

    token: WorkerToken
    instance: str

    @property
    def worker_id(self) -> str:
        """remote:<token name>@<token id>:<instance>. The id, not the name, makes a claim the token's:
        a token re-created under a revoked one's name inherits none of its claims (review D13)."""
        return f"remote:{self.token.name}@{self.token.id}:{self.instance}"


def current_worker(
    services: Services,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Security(worker_bearer)],
    instance: Annotated[str | None, Header(alias=WORKER_INSTANCE_HEADER)] = None,
) -> RemoteCaller:
    """The remote worker calling; 401 for a missing, unknown or revoked token, 400 without an instance."""
    token = _presented(services, credentials, verify_token, what="worker token", example="tfw_…")
    if instance is None or not INSTANCE_PATTERN.fullmatch(instance):
        raise HTTPException(
            status.HTTP_400_BAD_REQUEST,
            detail=f"send a {WORKER_INSTANCE_HEADER} header naming this worker process (e.g. host:pid:abc123)",
        )
    return RemoteCaller(token, instance)


Worker = Annotated[RemoteCaller, Depends(current_worker)]


# --- operators ----------------------------------------------------------------------------------


class LoginRequiredError(Exception):
    """An operator page was asked for without a valid session: the app redirects to the login form."""


def operator_sessions(services: Services) -> OperatorSessions:
    if services.sessions is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            detail="the dashboard and /metrics are off: set TENDERFLOW_ADMIN_TOKEN to turn them on",
        )
    return services.sessions


Sessions = Annotated[OperatorSessions, Depends(operator_sessions)]


def operator_session(request: Request, sessions: Sessions, services: Services) -> str:
    """The operator's session nonce; redirects to the login page without one, or when it was
    logged out (review D9: logout used to end the session in the browser only)."""
    session = sessions.verify(request.cookies.get(SESSION_COOKIE))
    if session is None:
        raise LoginRequiredError()
    with services.pool.connection() as conn:
        if sessions.is_ended(conn, session):
            raise LoginRequiredError()
    return session


OperatorSession = Annotated[str, Depends(operator_session)]


def operator_or_scraper(
    request: Request,
    sessions: Sessions,
    services: Services,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Security(operator_bearer)],
) -> None:
    """/metrics and the operators' API (schedules, tenants' limits): the admin token as a Bearer
    token (Prometheus, scripts) or an operator's session cookie (with its CSRF token for a change).

    The right token and a valid session always pass (review security-2, D-N5). A wrong admin token
    counts against the client like a wrong login: past the limit it is answered 429 instead of 401.
    A tenant's API key or a worker token sent here is a credential of another kind: 401, not
    counted as a guess at the admin token."""
    client = request.client.host if request.client else "unknown"
    if credentials is not None and sessions.token_matches(credentials.credentials):
        sessions.throttle.succeeded(client)
        return
    session = sessions.verify(request.cookies.get(SESSION_COOKIE))
    if session is not None:
        with services.pool.connection() as conn:
            if sessions.is_ended(conn, session):
                session = None
    if session is not None:
        # A browser sends the cookie with any request a page makes to this origin: a change asked
        # for with the cookie alone must also carry the session's CSRF token (the dashboard's
        # forms carry it as a field), or another site's page could make it.
        if request.method not in SAFE_METHODS and not sessions.csrf_matches(
                session, request.headers.get(CSRF_HEADER, "")):
            raise HTTPException(status.HTTP_403_FORBIDDEN, detail=(
                f"a change made with the operator's session cookie needs its CSRF token in the {CSRF_HEADER} "
                "header; or send the admin token: 'Authorization: Bearer <TENDERFLOW_ADMIN_TOKEN>'"))
        return
    if credentials is not None and credentials.credentials.startswith(OTHER_CREDENTIALS):
        raise _unauthorized("that is a tenant's API key or a worker token; this route takes the admin token: "
                            "'Authorization: Bearer <TENDERFLOW_ADMIN_TOKEN>'")
    if credentials is not None:
        wait = sessions.throttle.wait_seconds(client)
        if wait > 0:
            raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS, detail="too many wrong admin tokens from this "
                                "address; try again later", headers={"Retry-After": str(int(wait) + 1)})
        sessions.throttle.failed(client)
    raise _unauthorized("send the admin token: 'Authorization: Bearer <TENDERFLOW_ADMIN_TOKEN>'")
