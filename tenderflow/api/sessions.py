"""The operators' sessions: signed, expiring cookies for the admin token's holder, and their CSRF
tokens. Pure (no FastAPI): the services own one, the auth dependencies check requests with it."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

_SESSION_KEY_CONTEXT = b"tenderflow dashboard session v1\0"


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
