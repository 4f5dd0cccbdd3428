"""The operators' sessions: signed, expiring cookies for the admin token's holder, and their CSRF
tokens. Pure (no FastAPI): the services own one, the auth dependencies check requests with it."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

import psycopg

_SESSION_KEY_CONTEXT = b"tenderflow dashboard session v1\0"
ADMIN_TOKEN_KIND = "admin token"  # noqa: S105 (the name of a kind of credential, not one)
"""The kind of credential the login form and the operators' Bearer routes count (LoginThrottle)."""


class OperatorSessions:
    """Signed, expiring session cookies for the admin token's holder. The only server-side state is
    the list of sessions ended by logout before they expire (`end`, `is_ended`): a copied cookie
    stops working at logout, in every API process."""

    MIN_TOKEN_CHARS = 24
    """An admin token shorter than this is refused at start: it guards the whole dashboard."""

    def __init__(self, admin_token: str, *, lifetime_seconds: float) -> None:
        self._admin_token = admin_token.encode()
        self._key = hashlib.sha256(_SESSION_KEY_CONTEXT + self._admin_token).digest()
        self.lifetime_seconds = lifetime_seconds
        self.throttle = LoginThrottle()

    def end(self, conn: psycopg.Connection[Any], cookie: str | None) -> None:
        """Log out: the session of `cookie` is refused from now on (also forgets long-expired ones)."""
        if not cookie or cookie.count(".") != 2:
            return
        expires, nonce, _ = cookie.split(".")
        if not expires.isdigit():
            return
        with conn.transaction():
            conn.execute("DELETE FROM operator_sessions_ended WHERE expires_at < now()")
            conn.execute("INSERT INTO operator_sessions_ended (nonce, expires_at) VALUES (%s, to_timestamp(%s)) "
                         "ON CONFLICT (nonce) DO NOTHING", (nonce[:100], int(expires)))

    @staticmethod
    def is_ended(conn: psycopg.Connection[Any], nonce: str) -> bool:
        row = conn.execute("SELECT 1 FROM operator_sessions_ended WHERE nonce = %s", (nonce,)).fetchone()
        return row is not None

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


class LoginThrottle:
    """Wrong credentials per kind and client: after MAX_FAILURES of one kind within WINDOW_SECONDS,
    the client's next wrong ones of that kind are answered 429 until the oldest is a window old
    (review D8). It never refuses a right credential or a valid session (review security-2, D-N5:
    five wrong tries from an address once locked the operator, and Prometheus, out for a minute):
    the caller checks the credential first and asks the throttle only about a wrong one. The
    admin token is long enough (MIN_TOKEN_CHARS) that guessing it is hopeless; this keeps a client
    from trying fast. Per API process; at most MAX_CLIENTS (kind, client) pairs (the oldest go first)."""

    MAX_FAILURES = 5
    WINDOW_SECONDS = 60.0
    MAX_CLIENTS = 10_000

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failures: OrderedDict[tuple[str, str], deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait_seconds(self, client: str, kind: str = ADMIN_TOKEN_KIND) -> float:
        """How long `client`'s wrong credentials of `kind` are refused for; 0 when they are not."""
        now = self._clock()
        with self._lock:
            failures = self._failures.get((kind, client))
            if failures is None:
                return 0.0
            while failures and failures[0] <= now - self.WINDOW_SECONDS:
                failures.popleft()
            if len(failures) < self.MAX_FAILURES:
                return 0.0
            return failures[0] + self.WINDOW_SECONDS - now

    def failed(self, client: str, kind: str = ADMIN_TOKEN_KIND) -> None:
        """Count a wrong credential of `kind` from `client` (one answered 401, not one refused 429)."""
        with self._lock:
            self._failures.setdefault((kind, client), deque()).append(self._clock())
            self._failures.move_to_end((kind, client))
            while len(self._failures) > self.MAX_CLIENTS:
                self._failures.popitem(last=False)

    def succeeded(self, client: str, kind: str = ADMIN_TOKEN_KIND) -> None:
        with self._lock:
            self._failures.pop((kind, client), None)
