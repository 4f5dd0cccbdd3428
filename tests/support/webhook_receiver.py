"""A real webhook receiver for tests: an HTTP server on a loopback port that answers by a script.

    with WebhookReceiver(["500", "hang", "200"]) as receiver:   # then 200 for every request after
        receiver.secret = created.secret                        # it verifies each signature itself
        ...
        receiver.requests[0].verified, receiver.requests[0].json()

Each request is answered with the script's next step: a status code ("500", "204"), "hang" (no
answer until the test ends: the sender's timeout must give up), or "302 <url>" (a redirect, which
must not be followed). The signature check is written out here as an integrator would write it
(docs/webhooks.md's snippet), independently of tenderflow.webhooks.signing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def verify_signature(secret: str, header: str, body: bytes, *, tolerance: int = 300) -> bool:
    """Stripe-style: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">; any v1 may match."""
    items = [part.split("=", 1) for part in header.split(",") if "=" in part]
    timestamp = next((value for key, value in items if key == "t"), None)
    if timestamp is None or not timestamp.isdigit() or abs(time.time() - int(timestamp)) > tolerance:
        return False
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(key == "v1" and hmac.compare_digest(expected, value) for key, value in items)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    verified: bool
    answered: str

    def json(self) -> Any:
        return json.loads(self.body)


class WebhookReceiver:
    def __init__(self, script: Sequence[str] = (), *, then: str = "200") -> None:
        self.script = list(script)
        self.then = then
        self.secret: str | None = None
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        self._release = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver._lock:
                    step = receiver.script.pop(0) if receiver.script else receiver.then
                    secret = receiver.secret
                    receiver.requests.append(Received(
                        path=self.path, headers={k.lower(): v for k, v in self.headers.items()}, body=body,
                        verified=secret is not None and verify_signature(
                            secret, self.headers.get("Tenderflow-Signature", ""), body),
                        answered=step))
                if step == "hang":
                    receiver._release.wait(30)
                    return
                status, _, location = step.partition(" ")
                self.send_response(int(status))
                if location:
                    self.send_header("Location", location)
                reply = b'{"ok": true}' if status.startswith("2") else b"receiver says no"
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/tenderflow"

    def __enter__(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
