"""No API request holds a pooled database connection across network I/O or long work (review
security-2, D-N2): a webhook ping, a registration's DNS lookup, storing an upload, building a
searchable PDF, a remote worker's input and result, an export a client reads slowly. A tenant's slow
webhook endpoint once kept another tenant's `GET /v1/documents` waiting 22 s; pings are rate-limited
per tenant too.

`HeldConnections` watches the real API served in this process: which request thread holds one of
the pool's connections, and every outbound connection, name lookup, object-storage call and sandbox
run a thread makes while it holds one."""

from __future__ import annotations

import re
import socket
import threading
import time
import traceback
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from psycopg_pool import ConnectionPool

from tenderflow.api.worker_tokens import create_token
from tenderflow.config import Settings
from tenderflow.pdf import launcher
from tenderflow.remote.client import RemoteQueueClient, ResultRefusedError
from tenderflow.remote.protocol import WorkerHello
from tests.conftest import wait_until
from tests.support.api_harness import ADMIN_TOKEN, RunningApi, api_settings, bearer, serve_in_thread, tenant_with_key
from tests.support.pipeline_harness import drain
from tests.support.tender_fixtures import TENDER_PAGE, scanned_pdf, text_pdf
from tests.support.webhook_receiver import WebhookReceiver

Conn = psycopg.Connection[Any]
_BACKGROUND_THREADS = ("api-maintenance", "api-storage-sweep")  # one connection each, by design


class HeldConnections:
    """Which threads hold a connection of `pool`, and the I/O made while one is held (`violations`)."""

    def __init__(self, pool: ConnectionPool, monkeypatch: pytest.MonkeyPatch) -> None:
        self.held: dict[int, set[int]] = {}
        self.violations: list[str] = []
        self._lock = threading.Lock()
        getconn, putconn = pool.getconn, pool.putconn

        def tracked_getconn(timeout: float | None = None) -> Any:
            conn = getconn(timeout)
            with self._lock:
                self.held.setdefault(threading.get_ident(), set()).add(id(conn))
            return conn

        def tracked_putconn(conn: Any) -> None:
            with self._lock:
                self.held.get(threading.get_ident(), set()).discard(id(conn))
            putconn(conn)

        monkeypatch.setattr(pool, "getconn", tracked_getconn)
        monkeypatch.setattr(pool, "putconn", tracked_putconn)

    def io(self, what: str) -> None:
        if threading.current_thread().name.startswith(_BACKGROUND_THREADS):
            return
        with self._lock:
            holding = bool(self.held.get(threading.get_ident()))
        if holding:
            where = [f"{frame.filename.rsplit('/tenderflow/', 1)[-1]}:{frame.lineno} {frame.name}"
                     for frame in traceback.extract_stack()[:-2] if "/tenderflow/" in frame.filename
                     and "/tests/" not in frame.filename]
            self.violations.append(f"{what} while holding a connection, at {' < '.join(reversed(where[-4:]))}")

    def watch(self, owner: Any, name: str, what: str, monkeypatch: pytest.MonkeyPatch) -> None:
        original: Callable[..., Any] = getattr(owner, name)

        def watched(*args: Any, **kwargs: Any) -> Any:
            self.io(what)
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, watched)


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return api_settings(database_url, tmp_path, webhook_allow_networks="127.0.0.0/8,::1/128",
                        webhook_timeout_seconds=3, ocr_detect_languages=False)


@pytest.fixture
def api(settings: Settings) -> Iterator[RunningApi]:
    with serve_in_thread(settings) as running:
        yield running


@pytest.fixture
def held(api: RunningApi, monkeypatch: pytest.MonkeyPatch) -> HeldConnections:
    held = HeldConnections(api.services.pool, monkeypatch)
    real_connect = socket.socket.connect

    def connect(sock: socket.socket, address: Any) -> Any:
        if sock.family != socket.AF_UNIX:
            held.io(f"a connection to {address}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    held.watch(socket, "getaddrinfo", "a name lookup", monkeypatch)
    held.watch(launcher, "run", "a sandboxed program", monkeypatch)
    storage = api.services.storage
    for method in ("put_file", "put_stream", "download_to", "exists", "delete"):
        held.watch(storage, method, f"storage.{method}", monkeypatch)
    return held


def upload(api: RunningApi, key: str, path: Path) -> int:
    with path.open("rb") as handle:
        response = api.client.post("/v1/documents", headers=bearer(key),
                                   files={"file": (path.name, handle, "application/pdf")})
    assert response.status_code in (200, 201), response.text
    return int(response.json()["id"])


def test_d_n2_no_request_holds_a_connection_across_network_io_storage_or_the_sandbox(
    api: RunningApi, held: HeldConnections, conn: Conn, pool: ConnectionPool, settings: Settings, tmp_path: Path
) -> None:
    """D-N2: every route that reaches the network, the object storage or the tool sandbox, once each
    (a tender's package too: it is unpacked and stored holding no connection)."""
    alpha = tenant_with_key(conn, "alpha")
    scan = upload(api, alpha, scanned_pdf(tmp_path / "scan.pdf", [TENDER_PAGE]))
    upload(api, alpha, text_pdf(tmp_path / "text.pdf", [TENDER_PAGE, ["Title: a second notice"]]))
    drain(pool, settings, api.services.storage)

    with WebhookReceiver() as receiver:
        created = api.client.post("/v1/webhooks", headers=bearer(alpha),
                                  json={"url": f"http://localhost:{receiver.port}/hook"})
        assert created.status_code == 201, created.text
        endpoint = created.json()["id"]
        moved = api.client.patch(f"/v1/webhooks/{endpoint}", headers=bearer(alpha),
                                 json={"url": f"http://localhost:{receiver.port}/other"})
        assert moved.status_code == 200, moved.text
        ping = api.client.post(f"/v1/webhooks/{endpoint}/ping", headers=bearer(alpha))
        assert ping.status_code == 200 and ping.json()["delivered"], ping.text

    assert api.client.get(f"/v1/documents/{scan}/searchable.pdf", headers=bearer(alpha)).status_code == 200
    assert api.client.get(f"/v1/documents/{scan}/pdf", headers=bearer(alpha)).status_code == 200
    for format in ("csv", "jsonl", "ocds", "xlsx"):
        assert api.client.get("/v1/export", headers=bearer(alpha), params={"format": format}).status_code == 200
    login = api.client.post("/dashboard/login", data={"token": ADMIN_TOKEN})
    assert login.status_code == 303
    assert api.client.get(f"/dashboard/documents/{scan}/pages/1.png").status_code == 200
    assert api.client.get(f"/dashboard/documents/{scan}/searchable.pdf").status_code == 200
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', api.client.get("/dashboard/documents").text)
    assert csrf is not None
    with (tmp_path / "text.pdf").open("rb") as handle:
        stored = api.client.post("/dashboard/upload", data={"tenant": "alpha", "csrf_token": csrf[1]},
                                 files={"file": ("again.pdf", handle, "application/pdf")})
    assert stored.status_code == 303, stored.text

    tender = api.client.post("/v1/tenders", headers=bearer(alpha), json={"name": "Harbour"})
    assert tender.status_code == 201, tender.text
    package = tmp_path / "package.zip"
    with zipfile.ZipFile(package, "w") as archive:
        archive.write(text_pdf(tmp_path / "a.pdf", [TENDER_PAGE, ["Title: a packaged notice"]]), "notice.pdf")
        archive.write(text_pdf(tmp_path / "b.pdf", [TENDER_PAGE, ["Title: its addendum"]]), "addendum.pdf")
    with package.open("rb") as handle:
        packed = api.client.post(f"/v1/tenders/{tender.json()['id']}/documents", headers=bearer(alpha),
                                 files={"file": ("package.zip", handle, "application/zip")})
    assert packed.status_code == 201, packed.text
    assert api.client.get("/v1/tenders/export", headers=bearer(alpha), params={"format": "jsonl"}).status_code == 200

    upload(api, alpha, text_pdf(tmp_path / "remote.pdf", [TENDER_PAGE, ["Title: for a remote worker"]]))
    worker = RemoteQueueClient(api.url, create_token(conn, "scanner-pc", ["ocr"]).raw, instance="pc:1:aaaaaa")
    [job] = worker.claim(WorkerHello(host="pc", pid=1, pool="ocr", threads=1), limit=1, wait_seconds=0).jobs
    assert worker.download_pdf(job, tmp_path / "input.pdf") > 0
    with pytest.raises(ResultRefusedError):
        worker.complete(job, {"page_count": 9, "text_pages": [], "ocr_pages": list(range(1, 10))})

    assert held.violations == [], "\n".join(held.violations)


def test_d_n2_slow_webhook_pings_hold_no_connection_and_are_limited_per_tenant(
    database_url: str, conn: Conn, tmp_path: Path
) -> None:
    """D-N2, the review's H8: 60 pings to an endpoint that answers after 9 s made another tenant's
    `GET /v1/documents` take 22.75 s. Here a pool of 2 connections and pings that wait 3 s."""
    settings = api_settings(database_url, tmp_path, webhook_allow_networks="127.0.0.0/8",
                            webhook_timeout_seconds=3, pool_max_size=2, api_threads=40)
    alpha, beta = tenant_with_key(conn, "alpha"), tenant_with_key(conn, "beta")
    with serve_in_thread(settings) as api, WebhookReceiver(["hang", "hang"], then="200") as receiver:
        endpoint = api.client.post("/v1/webhooks", headers=bearer(alpha), json={"url": receiver.url}).json()["id"]
        with ThreadPoolExecutor(6) as pings:
            answers = pings.map(lambda _: api.client.post(f"/v1/webhooks/{endpoint}/ping", headers=bearer(alpha)),
                                range(6))
            wait_until(lambda: len(receiver.requests) >= 2, message="two pings wait on the receiver")
            started = time.monotonic()
            listed = httpx.get(f"{api.url}/v1/documents", headers=bearer(beta), timeout=10)
            beta_waited = time.monotonic() - started
            statuses = sorted(answer.status_code for answer in answers)
        assert listed.status_code == 200 and beta_waited < 1.0, f"beta waited {beta_waited:.2f} s"
        assert statuses == [200, 200, 429, 429, 429, 429], statuses

        more = [api.client.post(f"/v1/webhooks/{endpoint}/ping", headers=bearer(alpha)) for _ in range(8)]
        assert [answer.status_code for answer in more] == [200] * 8, "two at a time, ten a minute"
        over = api.client.post(f"/v1/webhooks/{endpoint}/ping", headers=bearer(alpha))
        assert over.status_code == 429 and int(over.headers["Retry-After"]) > 0, over.text
        assert "pings" in over.json()["detail"]
        other = api.client.post("/v1/webhooks", headers=bearer(beta), json={"url": receiver.url}).json()["id"]
        assert api.client.post(f"/v1/webhooks/{other}/ping", headers=bearer(beta)).status_code == 200, \
            "the limit is alpha's alone"


def test_d_n2_an_export_read_slowly_holds_no_connection(database_url: str, conn: Conn, tmp_path: Path) -> None:
    """D-N2, the review's S6: a streamed export's thread kept its connection until the client had
    read everything. With a pool of one connection and small socket buffers, another request
    answers while an export of 1200 documents (three of its batches of 500; 0.5 MB, a hundred times
    what the buffers hold) waits on its reader. The reader then takes everything through the 4 KB
    buffers, at about 30 KB/s: the size is what keeps the test's time down."""
    from tenderflow.pipeline.versions import VersionRef, insert_version

    settings = api_settings(database_url, tmp_path, pool_max_size=1, pool_min_size=1)
    alpha = tenant_with_key(conn, "alpha")
    with conn.transaction():
        ids = [row[0] for row in conn.execute(
            "INSERT INTO documents (tenant, sha256, filename, size_bytes, storage_url) "
            "SELECT 'alpha', lpad(to_hex(n), 64, '0'), repeat('x', 400) || n || '.pdf', 1000, 'file:///nowhere' "
            "FROM generate_series(1, 1200) AS n RETURNING id").fetchall()]
        for document_id in ids:
            insert_version(conn, VersionRef(document_id, 1))
    small = [(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)]
    reader = httpx.HTTPTransport(socket_options=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)])
    with serve_in_thread(settings, socket_options=small) as api, \
            httpx.Client(base_url=api.url, timeout=30, transport=reader) as client:
        with client.stream("GET", "/v1/export", headers=bearer(alpha), params={"format": "jsonl"}) as export:
            chunks = export.iter_bytes()
            first = next(chunks)
            assert first
            started = time.monotonic()
            account = httpx.get(f"{api.url}/v1/account", headers=bearer(alpha), timeout=10)
            waited = time.monotonic() - started
            assert account.status_code == 200 and waited < 2.0, f"waited {waited:.2f} s"
            rows = (first + b"".join(chunks)).count(b"\n")
    assert rows == 1200
