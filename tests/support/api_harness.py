"""Serving the real API in tests: uvicorn in a thread (same process) or `tenderflow serve` as a process.

    with serve_in_thread(settings) as api:           # api.url, api.client (httpx), api.services
        ...
    server = ApiProcess(settings_env(settings), port)   # python -m tenderflow serve
    server.start(); server.wait_ready(); server.kill()

Both speak real HTTP on 127.0.0.1. Tenants and their API keys come from tenderflow.tenants.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psycopg
import uvicorn

from tenderflow.api.app import create_app
from tenderflow.api.services import ApiServices
from tenderflow.config import Settings
from tenderflow.tenants.keys import create_api_key
from tenderflow.tenants.tenants import create_tenant

ADMIN_TOKEN = "test-admin-token-0123456789"
REPO_ROOT = Path(__file__).resolve().parents[2]


def api_settings(database_url: str, tmp_path: Path, **overrides: Any) -> Settings:
    """Settings for an API under test: its own files, quick heartbeats and reclaims, an admin token."""
    values: dict[str, Any] = {
        "database_url": database_url, "data_dir": tmp_path / "data",
        "storage_url": (tmp_path / "objects").as_uri(), "ocr_batch_pages": 2, "ocr_dpi": 150,
        "ocr_languages": "eng", "tool_timeout_seconds": 60, "admin_token": ADMIN_TOKEN,
        "lease_seconds": 30.0, "heartbeat_seconds": 1.0, "poll_seconds": 1.0, "maintenance_seconds": 1.0,
        "claim_wait_seconds": 5.0, "api_threads": 32, "dashboard_refresh_seconds": 0,
        "shutdown_grace_seconds": 10.0,
    }
    values.update(overrides)
    return Settings(**values)


def settings_env(settings: Settings) -> dict[str, str]:
    """The environment that makes a child process build the same Settings (TENDERFLOW_*)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("TENDERFLOW_")}
    for name, value in settings.model_dump().items():
        if value is not None:
            env[f"TENDERFLOW_{name.upper()}"] = str(value).lower() if isinstance(value, bool) else str(value)
    env.pop("DATABASE_URL", None)
    env["PYTHONPATH"] = str(REPO_ROOT)
    env["TENDERFLOW_LOG_JSON"] = "true"
    return env


def tenant_with_key(conn: psycopg.Connection[Any], name: str, *, credits: int = 0) -> str:
    """A new unlimited tenant (or one with `credits`) and a raw API key for it."""
    create_tenant(conn, name, credits=credits, unlimited=credits == 0)
    return create_api_key(conn, name, name="test").key


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class RunningApi:
    url: str
    port: int
    app: Any
    client: httpx.Client

    @property
    def services(self) -> ApiServices:
        services = self.app.state.services
        assert isinstance(services, ApiServices)
        return services


@contextmanager
def serve_in_thread(settings: Settings, *, socket_options: Sequence[tuple[int, int, int]] = ()) -> Iterator[RunningApi]:
    """uvicorn serving `create_app(settings)` on a loopback port, in a thread of this process; its
    listening socket (and so each accepted one) with `socket_options` (e.g. a small SO_SNDBUF)."""
    sock = socket.socket()
    for level, option, value in socket_options:
        sock.setsockopt(level, option, value)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = create_app(settings)
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the API did not start")
        time.sleep(0.02)
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=30, verify=False) as client:  # noqa: S501 (loopback, plain HTTP: no CA bundle to load)
            yield RunningApi(url, port, app, client)
    finally:
        app.state.services.begin_shutdown()
        server.should_exit = True
        thread.join(15)
        sock.close()


class ApiProcess:
    """`python -m tenderflow serve` on a fixed port; can be killed and started again on the same port."""

    def __init__(self, env: dict[str, str], port: int, log_path: Path) -> None:
        self.env = env
        self.port = port
        self.log_path = log_path
        self.url = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tenderflow", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            env=self.env, stdout=log, stderr=subprocess.STDOUT, cwd=REPO_ROOT,
        )

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        # One client for every try: each new one loads the CA bundle (~25 ms of CPU), which polling a
        # starting server ten times a second paid over and over (13 s of CPU in the pg pass, profiled).
        with httpx.Client(base_url=self.url, timeout=1, verify=False) as client:  # noqa: S501 (loopback, plain HTTP)
            while time.monotonic() < deadline:
                assert self.process is not None
                if self.process.poll() is not None:
                    raise RuntimeError(f"the API process exited with {self.process.returncode}: {self.log()}")
                try:
                    if client.get("/healthz").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
        raise RuntimeError(f"the API process did not become ready: {self.log()}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:] if self.log_path.exists() else ""


@contextmanager
def api_process(settings: Settings, tmp_path: Path, port: int | None = None) -> Iterator[ApiProcess]:
    server = ApiProcess(settings_env(settings), port or free_port(), tmp_path / "api.log")
    server.start()
    try:
        server.wait_ready()
        yield server
    finally:
        if server.process is not None and server.process.poll() is None:
            server.stop(signal.SIGKILL)

