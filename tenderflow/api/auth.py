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

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request, Security, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from tenderflow.api.services import ApiServices
from tenderflow.api.worker_tokens import WorkerToken, verify_token
from tenderflow.remote.protocol import INSTANCE_PATTERN, WORKER_INSTANCE_HEADER
from tenderflow.tenants.keys import verify_api_key

SESSION_COOKIE = "tenderflow_session"
_SESSION_KEY_CONTEXT = b"tenderflow dashboard session v1\0"


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


# --- tenants ------------------------------------------------------------------------------------


def current_tenant(
    services: Services, credentials: Annotated[HTTPAuthorizationCredentials | None, Security(tenant_bearer)]
) -> str:
    """The tenant whose API key is presented; 401 without a valid one."""
    if credentials is None:
        raise _unauthorized("missing API key: send 'Authorization: Bearer <key>'")
    with services.pool.connection() as conn:
        tenant = verify_api_key(conn, credentials.credentials)
    if tenant is None:
        raise _unauthorized("invalid or revoked API key")
    return tenant


Tenant = Annotated[str, Depends(current_tenant)]


# --- remote workers -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RemoteCaller:
    """A remote worker: its token, its instance name, and the worker_id its claims carry."""

    token: WorkerToken
    instance: str

    @property
    def worker_id(self) -> str:
        return f"remote:{self.token.name}:{self.instance}"


def current_worker(
    services: Services,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Security(worker_bearer)],
    instance: Annotated[str | None, Header(alias=WORKER_INSTANCE_HEADER)] = None,
) -> RemoteCaller:
    """The remote worker calling; 401 for a missing, unknown or revoked token, 400 without an instance."""
    if credentials is None:
        raise _unauthorized("missing worker token: send 'Authorization: Bearer tfw_…'")
    with services.pool.connection() as conn:
        token = verify_token(conn, credentials.credentials)
    if token is None:
        raise _unauthorized("invalid or revoked worker token")
    if instance is None or not INSTANCE_PATTERN.fullmatch(instance):
        raise HTTPException(
            status.HTTP_400_BAD_REQUEST,
            detail=f"send a {WORKER_INSTANCE_HEADER} header naming this worker process (e.g. host:pid:abc123)",
        )
    return RemoteCaller(token, instance)


Worker = Annotated[RemoteCaller, Depends(current_worker)]


# --- operators ----------------------------------------------------------------------------------


class OperatorSessions:
    """Signed, expiring session cookies for the admin token's holder; no server-side state."""

    def __init__(self, admin_token: str, *, lifetime_seconds: float) -> None:
        self._admin_token = admin_token.encode()
        self._key = hashlib.sha256(_SESSION_KEY_CONTEXT + self._admin_token).digest()
        self.lifetime_seconds = lifetime_seconds

    def token_matches(self, presented: str) -> bool:
        return hmac.compare_digest(presented.encode(), self._admin_token)

    def _sign(self, text: str) -> str:
        return hmac.new(self._key, text.encode(), hashlib.sha256).hexdigest()

    def issue(self, *, now: float | None = None) -> str:
        expires = int((now or time.time()) + self.lifetime_seconds)
        body = f"{expires}.{secrets.token_urlsafe(16)}"
        return f"{body}.{self._sign(body)}"

    def verify(self, cookie: str | None, *, now: float | None = None) -> str | None:
        """The session's nonce if `cookie` is a live session this key signed, else None."""
        if not cookie or cookie.count(".") != 2:
            return None
        expires, nonce, signature = cookie.split(".")
        if not hmac.compare_digest(signature.encode(), self._sign(f"{expires}.{nonce}").encode()):
            return None
        if not expires.isdigit() or int(expires) < (now or time.time()):
            return None
        return nonce

    def csrf_token(self, session: str) -> str:
        return self._sign(f"csrf.{session}")

    def csrf_matches(self, session: str, presented: str) -> bool:
        # bytes, not str: compare_digest raises TypeError on non-ASCII text (a 500, review D11)
        return hmac.compare_digest(self.csrf_token(session).encode(), presented.encode())


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


def operator_session(request: Request, sessions: Sessions) -> str:
    """The operator's session nonce; redirects to the login page without one."""
    session = sessions.verify(request.cookies.get(SESSION_COOKIE))
    if session is None:
        raise LoginRequiredError()
    return session


OperatorSession = Annotated[str, Depends(operator_session)]


def operator_or_scraper(
    request: Request,
    sessions: Sessions,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Security(operator_bearer)],
) -> None:
    """/metrics: the admin token as a Bearer token (Prometheus) or an operator's session cookie."""
    if credentials is not None and sessions.token_matches(credentials.credentials):
        return
    if sessions.verify(request.cookies.get(SESSION_COOKIE)) is not None:
        return
    raise _unauthorized("send the admin token: 'Authorization: Bearer <TENDERFLOW_ADMIN_TOKEN>'")
