"""`tenderflow health` (issue 12, the containers' health checks): a worker is healthy while one of its
processes on the host heartbeats, not merely while the database answers; the API while /healthz
answers; with neither flag, whatever runs on the host."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.queue.jobs import QUERIES
from tests.conftest import wait_until


@pytest.fixture
def env(database_url: str, tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TENDERFLOW_")}
    env.update({"DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri(),
                "TENDERFLOW_DATA_DIR": str(tmp_path / "data"), "TENDERFLOW_LOG_JSON": "true"})
    return env


def health(env: dict[str, str], *args: str) -> Any:
    return CliRunner().invoke(app, ["health", *args], env=env)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def worker(env: dict[str, str], tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    with (tmp_path / "worker.log").open("wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "tenderflow", "worker", "--pool", "extract"],
                                   env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    yield process
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


def test_a_worker_is_healthy_while_it_heartbeats_and_not_once_it_is_killed(
    env: dict[str, str], worker: subprocess.Popen[bytes], conn: psycopg.Connection[Any]
) -> None:
    host = socket.gethostname()
    refused = health(env, "--worker", "--host", "elsewhere")
    assert refused.exit_code == 1 and "no worker process runs on elsewhere" in refused.output
    wait_until(lambda: health(env, "--worker").exit_code == 0, timeout=60, message="the worker registered")
    alive = health(env, "--worker")
    assert f"worker on {host}: 1 of 1 process(es) heartbeating" in alive.output
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(10)
    # Killed, it never says it stopped and its last heartbeat is fresh: the review's check counted it
    # live for a minute. Its connection, and the liveness lock on it, went with the process.
    dead = wait_until(lambda: (answer := health(env, "--worker")).exit_code == 1 and answer, timeout=10,
                      message="health says the killed worker is dead")
    assert f"none of the 1 worker process(es) on {host} is alive" in dead.output
    # and one that is alive but silent past the dead-after window is dead too
    conn.execute("UPDATE workers SET last_seen_at = now() - interval '2 minutes' WHERE pid = %s", [worker.pid])
    assert health(env, "--worker").exit_code == 1
    assert CliRunner().invoke(app, ["db", "status"], env=env).exit_code == 0  # the old check would say healthy


def test_the_api_is_healthy_while_healthz_answers(
    env: dict[str, str], tmp_path: Path, conn: psycopg.Connection[Any]
) -> None:
    port = free_port()
    down = health(env, "--api", "--port", str(port))
    assert down.exit_code == 1 and f"nothing answers on 127.0.0.1:{port}" in down.output
    with (tmp_path / "serve.log").open("wb") as log:
        server = subprocess.Popen([sys.executable, "-m", "tenderflow", "serve", "--port", str(port)], env=env,
                                  stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until(lambda: health(env, "--api", "--port", str(port)).exit_code == 0, timeout=60,
                   message="the API answered")
        # With neither flag (the Dockerfile's HEALTHCHECK): whatever runs here, the API this time.
        auto = health(env, "--port", str(port))
        assert auto.exit_code == 0 and f"api on port {port}: ok" in auto.output
        # ... and this host's workers too: one that stopped heartbeating is a problem though the API
        # answers (bare `health` checked only the API once it answered: review ux-2)
        conn.execute(QUERIES["worker_register"], {
            "id": "silent", "host": socket.gethostname(), "pid": 1, "pools": ["ocr"], "threads": 1,
            "kind": "local", "now": None, "liveness_lock": None})
        conn.execute("UPDATE workers SET last_seen_at = now() - interval '2 minutes' WHERE id = 'silent'")
        both = health(env, "--port", str(port))
        assert both.exit_code == 1 and "none of the 1 worker process(es)" in both.output, both.output
        conn.execute("UPDATE workers SET last_seen_at = now() WHERE id = 'silent'")
        both = health(env, "--port", str(port))
        assert both.exit_code == 0 and f"api on port {port}: ok" in both.output and "1 of 1" in both.output
        conn.execute("DELETE FROM workers WHERE id = 'silent'")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
    nothing = health(env, "--port", str(port), "--host", "no-such-host")
    assert nothing.exit_code == 1 and "nothing runs here" in nothing.output


def test_serve_that_cannot_reach_its_database_says_so_in_one_line(env: dict[str, str]) -> None:
    """Every command reports an unreachable database as one `error:` line and exit 1; `serve` printed
    uvicorn's lifespan traceback (a screen of frames, in one JSON log line) and exited 3."""
    dead = {**env, "DATABASE_URL": f"postgresql://postgres@127.0.0.1:{free_port()}/nothing"}
    started = subprocess.run([sys.executable, "-m", "tenderflow", "serve", "--port", str(free_port())], env=dead,
                             capture_output=True, text=True, timeout=60, check=False)
    assert started.returncode == 1, started.stderr
    assert "error: cannot connect to PostgreSQL" in started.stderr
    assert "Traceback" not in started.stderr + started.stdout
