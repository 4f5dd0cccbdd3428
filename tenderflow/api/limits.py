"""A cap on request bodies, enforced while they arrive (pure ASGI middleware).

FastAPI reads a JSON or form body whole into memory before the endpoint runs, and trusts nothing
but the bytes: a missing or false Content-Length does not stop it. This middleware counts the bytes
each request actually delivers and answers 413 once a route's cap is passed (at once when the
declared Content-Length is already over it). The upload route is exempt: it enforces its own cap
while streaming the file to disk (tenderflow.api.upload_stream).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class _BodyTooLarge(HTTPException):
    """Raised from `receive`: an HTTPException, so the framework's body readers pass it on as a 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, detail=_detail(limit))


def _detail(limit: int) -> str:
    return f"request body is larger than this route's limit of {limit:,} bytes"


class BodySizeLimit:
    """`limit_for(method, path)` gives a route's cap in bytes, or None for no cap here."""

    def __init__(self, app: ASGIApp, limit_for: Callable[[str, str], int | None]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["method"], scope["path"])
        if limit is None:
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _send_413(send, limit)
            return
        received = 0
        response_started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _BodyTooLarge(limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _BodyTooLarge:
            if not response_started:
                await _send_413(send, limit)


async def _send_413(send: Send, limit: int) -> None:
    body = json.dumps({"detail": _detail(limit)}).encode()
    await send({"type": "http.response.start", "status": 413, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]})
    await send({"type": "http.response.body", "body": body})
