"""Knowing when work is done (issue 12): `worker --burst` drains what its pool has to run and exits 0,
`upload --wait` follows its documents to the end and says in its exit code whether any failed, a
document waiting to be retried says why, and `status` shows the unfinished documents' pages, the
pace and when their pages should be read (redrawn with --watch)."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.handlers import build_job_types
from tenderflow.pipeline import reads, versions
from tenderflow.pipeline.storage import open_storage
from tenderflow.queue import Worker, jobs
from tenderflow.stages.contract import JOB_OCR_PLAN
from tests.conftest import wait_until
from tests.support.pipeline_harness import pipeline_settings, worker_config
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf


@pytest.fixture
def cli_env(cli_env: dict[str, str]) -> dict[str, str]:
    """The shared CLI environment over this process's own (less its TENDERFLOW_*), for a child process."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("TENDERFLOW_")}
    env.update({**cli_env, "TENDERFLOW_OCR_LANGUAGES": "eng", "TENDERFLOW_POLL_SECONDS": "0.2",
                "TENDERFLOW_LOG_JSON": "true"})
    return env


def invoke(env: dict[str, str], *args: str) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


def broken_pdf(path: Path) -> Path:
    path.write_bytes(b"%PDF-1.7\n% nothing else: no objects, no xref\n")
    return path


def worker(env: dict[str, str], log: Path, *args: str) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "tenderflow", "worker", "--pool", "all", *args],
                                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture
def running_worker(cli_env: dict[str, str], tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    process = worker(cli_env, tmp_path / "worker.log", "--threads", "2")
    yield process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def test_worker_burst_drains_every_stage_then_exits_0(
    cli_env: dict[str, str], conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    good = [text_pdf(tmp_path / f"good{n}.pdf", [TENDER_PAGE, [f"Annex {n}"]]) for n in range(3)]
    uploaded = invoke(cli_env, "upload", *map(str, good), str(broken_pdf(tmp_path / "broken.pdf")), "--json")
    assert uploaded.exit_code == 0, uploaded.output
    # Two processes: each exits once nothing of its pool is queued or running anywhere (a running plan
    # enqueues the pages and the extraction, so a process that finds the queue empty for a moment
    # while the other still works does not leave early).
    process = worker(cli_env, tmp_path / "burst.log", "--burst", "--processes", "2")
    try:
        assert process.wait(180) == 0, (tmp_path / "burst.log").read_text()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert conn.execute("SELECT count(*) FROM jobs WHERE state IN ('queued', 'running')").fetchone() == (0,)
    states = dict(conn.execute("SELECT d.filename, v.state::text FROM documents d JOIN document_versions v "
                               "ON v.document_id = d.id AND v.version = d.latest_version").fetchall())
    assert states == {"good0.pdf": "done", "good1.pdf": "done", "good2.pdf": "done", "broken.pdf": "failed"}
    log = (tmp_path / "burst.log").read_text()
    assert log.count('"worker.drained"') == 2, log
    # Every job line names its document and tenant; a failure is an error, not an info line.
    lines = [json.loads(text) for text in log.splitlines() if text.startswith("{")]
    finished = [line for line in lines if line["event"] == "job.finished"]
    ids = dict(conn.execute("SELECT filename, id FROM documents").fetchall())
    assert all(line["tenant"] == "default" and line["document_id"] in ids.values() for line in finished)
    [broken] = [line for line in finished if line["document_id"] == ids["broken.pdf"]]
    assert (broken["type"], broken["outcome"], broken["level"]) == ("ocr.plan", "failed", "error")
    assert {line["level"] for line in finished if line["outcome"] == "succeeded"} == {"info"}


def test_burst_refuses_a_remote_worker(cli_env: dict[str, str]) -> None:
    result = invoke(cli_env, "worker", "--remote", "http://127.0.0.1:9", "--token", "tfw_x", "--burst")
    assert result.exit_code == 2 and "--burst needs the database" in result.output  # a usage error


def test_upload_wait_follows_documents_to_the_end_and_its_exit_code_says_if_any_failed(
    cli_env: dict[str, str], running_worker: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    good = text_pdf(tmp_path / "good.pdf", [TENDER_PAGE, ["Annex", "page 2"]])
    done = invoke(cli_env, "upload", str(good), "--wait", "--json")
    assert done.exit_code == 0, done.output
    [row] = json.loads(done.stdout)
    assert (Path(row["source"]).name, row["status"], row["state"], row["pages"], row["error"]) == (
        "good.pdf", "created", "done", 2, None)

    mixed = invoke(cli_env, "upload", str(text_pdf(tmp_path / "other.pdf", [TENDER_PAGE])),
                   str(broken_pdf(tmp_path / "broken.pdf")), "--wait")
    assert mixed.exit_code == 1, mixed.output  # one of them failed
    assert "1 done, 1 failed" in mixed.output
    assert "cannot be read" in mixed.output  # the failed one's reason, in the final table


def test_upload_wait_says_once_when_no_worker_runs_and_ends_when_one_has_done_the_work(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """`upload --wait` with no worker alive would wait for ever in silence: after WORKER_GRACE_SECONDS
    it says so (on stderr, once) and goes on waiting; a worker started then does the work and the
    wait ends, exit 0."""
    pdf = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE])
    notes = tmp_path / "upload.stderr"
    with notes.open("wb") as stderr:
        waiting = subprocess.Popen([sys.executable, "-m", "tenderflow", "upload", str(pdf), "--wait", "--json"],
                                   env=cli_env, stdout=subprocess.PIPE, stderr=stderr, start_new_session=True)
    burst = None
    try:
        wait_until(lambda: "no worker has reported" in notes.read_text(), timeout=90,
                   message="upload --wait says no worker runs")
        assert waiting.poll() is None  # still waiting
        burst = worker(cli_env, tmp_path / "burst.log", "--burst")
        stdout, _ = waiting.communicate(timeout=180)
        assert waiting.returncode == 0, notes.read_text()
        [row] = json.loads(stdout)
        assert (row["status"], row["state"], row["pages"]) == ("created", "done", 1)
        assert notes.read_text().count("no worker has reported") == 1
        assert "tenderflow worker --burst" in " ".join(notes.read_text().split())  # what to run
    finally:
        for process in (waiting, burst):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)


def test_upload_wait_gives_a_starting_worker_time_and_says_when_one_comes(
    cli_env: dict[str, str], conn: psycopg.Connection[Any], database_url: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The review's worker took 13 s to come up, and `upload --wait` said none ran meanwhile. Time
    is injected: a worker reporting within the grace is never said to be missing; one reporting
    after it is announced once it does."""
    from tenderflow.cli.documents import WORKER_GRACE_SECONDS, wait_for_versions
    from tenderflow.cli.runtime import Runtime
    from tenderflow.config import Settings

    uploaded = json.loads(invoke(cli_env, "upload", str(text_pdf(tmp_path / "a.pdf", [TENDER_PAGE])),
                                 "--json").stdout)[0]
    ref = versions.VersionRef(uploaded["document_id"], uploaded["version"])
    rt = Runtime(Settings(database_url=database_url, data_dir=tmp_path / "data"))
    for reports_at in (WORKER_GRACE_SECONDS / 2, WORKER_GRACE_SECONDS + 5):
        now = [0.0]
        conn.execute("DELETE FROM workers")
        conn.execute("UPDATE document_versions SET state = 'queued', finished_at = NULL WHERE document_id = %s",
                     (ref.document_id,))

        def sleep(seconds: float, reports_at: float = reports_at, now: list[float] = now) -> None:
            now[0] += 1
            if now[0] == reports_at:
                conn.execute(jobs.QUERIES["worker_register"], {
                    "id": "starting", "host": "here", "pid": 1, "pools": ["ocr.plan"], "threads": 1, "kind": "local",
                    "now": None, "liveness_lock": None})
            if now[0] == WORKER_GRACE_SECONDS + 10:
                conn.execute("UPDATE document_versions SET state = 'done', finished_at = now() WHERE document_id = %s",
                             (ref.document_id,))

        current, interrupted = wait_for_versions(rt, [ref], quiet=True, clock=lambda now=now: now[0], sleep=sleep)
        said = capsys.readouterr().err
        assert not interrupted and current[0].state == versions.VersionState.DONE
        if reports_at < WORKER_GRACE_SECONDS:
            assert said == ""
        else:
            assert said.count("no worker has reported") == 1 and "a worker is running now" in said
    rt.close()


def test_ctrl_c_during_upload_wait_prints_what_was_uploaded(cli_env: dict[str, str], tmp_path: Path,
                                                            conn: psycopg.Connection[Any]) -> None:
    """The review's Ctrl-C left stdout empty: the new documents' ids were lost."""
    pdf = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE])
    waiting = subprocess.Popen([sys.executable, "-m", "tenderflow", "upload", str(pdf), "--wait", "--json"],
                               env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_until(lambda: conn.execute("SELECT id FROM documents").fetchone(), timeout=60,
                   message="the upload is recorded")
        time.sleep(1)  # into the wait's polling (a signal is the only way in; nothing to inject)
        waiting.send_signal(signal.SIGINT)
        stdout, stderr = waiting.communicate(timeout=60)
    finally:
        if waiting.poll() is None:
            os.killpg(waiting.pid, signal.SIGKILL)
            waiting.wait(10)
    assert waiting.returncode == 130, stderr
    [row] = json.loads(stdout)
    [(document_id,)] = conn.execute("SELECT id FROM documents").fetchall()
    assert (row["status"], row["document_id"], row["state"]) == ("created", document_id, "queued")
    assert b"stopped waiting" in stderr


def test_a_document_waiting_to_be_retried_says_why(
    cli_env: dict[str, str], conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    uploaded = json.loads(invoke(cli_env, "upload", str(text_pdf(tmp_path / "t.pdf", [TENDER_PAGE])),
                                 "--json").stdout)[0]
    [job] = jobs.claim(conn, worker_id="w", types=[JOB_OCR_PLAN], limit=1, lease_seconds=30)
    jobs.fail(conn, [jobs.Failure(job, "storage unreachable: timed out", permanent=False, retry_seconds=600)])
    shown = invoke(cli_env, "show", str(uploaded["document_id"]))
    assert "waiting to run again: retry 2/5: storage unreachable: timed out" in shown.stdout
    [progress] = reads.versions_progress(conn, [versions.VersionRef(uploaded["document_id"], 1)])
    assert (progress.state, progress.finished, progress.retrying) == (
        versions.VersionState.QUEUED, False, "retry 2/5: storage unreachable: timed out")


def test_status_shows_unfinished_pages_the_pace_and_when_they_should_be_read(
    cli_env: dict[str, str], pool: ConnectionPool, conn: psycopg.Connection[Any], database_url: str, tmp_path: Path
) -> None:
    # Three pages with text and a blank one the plan leaves to OCR: after the plan alone, 3 of 4 are read.
    pdf = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE, TENDER_PAGE, TENDER_PAGE, []])
    uploaded = json.loads(invoke(cli_env, "upload", str(pdf), "--json").stdout)[0]
    queued = json.loads(invoke(cli_env, "status", "--json").stdout)["progress"]
    assert (queued["unfinished"], queued["pages_left"], queued["unplanned"], queued["eta_seconds"]) == (1, 0, 1, None)
    settings = pipeline_settings(database_url, tmp_path)
    job_types = build_job_types(settings, pool=pool, storage=open_storage(settings.resolved_storage_url),
                                cache_dir=tmp_path / "cache")
    assert Worker(pool, job_types, replace(worker_config(), types=(JOB_OCR_PLAN,))).run_once()

    progress = json.loads(invoke(cli_env, "status", "--json").stdout)["progress"]
    assert [(row["document_id"], row["state"], row["pages_done"], row["page_count"]) for row in progress["shown"]] == [
        (uploaded["document_id"], "ocr", 3, 4)]
    assert (progress["pages_left"], progress["unplanned"]) == (1, 0)
    assert progress["pages_per_minute"] > 0 and progress["eta_seconds"] > 0
    piped = invoke(cli_env, "status")
    assert f"{uploaded['document_id']}\t1\tdefault\tnotice.pdf\tocr\t3/4" in piped.stdout.splitlines()
    assert re.search(r"pace: [\d.]+ pages/min \(last 5 min\); 1 page\(s\) left, read in about \d+ s", piped.stderr)

    # The pace over the window, from the first page stored in it: a minute later, 3 pages a minute,
    # so the page left in 20 s; past the window nothing was read lately, and no time is promised.
    [stored] = conn.execute("SELECT min(created_at) FROM pages").fetchone() or [None]
    assert stored is not None
    later = reads.pipeline_progress(conn, now=stored + timedelta(minutes=1))
    assert (later.pages_per_minute, later.eta_seconds) == (3.0, 20.0)
    idle = reads.pipeline_progress(conn, now=stored + timedelta(minutes=6))
    assert (idle.pages_per_minute, idle.eta_seconds, idle.pages_left) == (None, None, 1)


_TERMINAL_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


def exit_code_reading(primary: int, process: subprocess.Popen[bytes], timeout: float) -> int | None:
    """The process's exit code, reading its terminal meanwhile as a terminal does: a live view that
    nobody reads blocks in write() once the pseudo-terminal's buffer is full, and never gets back to
    the loop that would see Ctrl-C's flag (a fresh-clone CI under load saw exactly that). None: it
    had not ended within `timeout`."""
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        if select.select([primary], [], [], 0.2)[0]:
            try:
                os.read(primary, 65536)
            except OSError:  # EIO: the process closed the terminal
                time.sleep(0.05)
    return process.poll()


def test_status_watch_redraws_what_changed_on_a_terminal_until_ctrl_c(cli_env: dict[str, str], tmp_path: Path) -> None:
    """`status --watch` on a real terminal (a pseudo-terminal: Rich's live view, not TSV) shows a
    change made after its first draw, and Ctrl-C ends it with exit code 0."""
    import pty

    invoke(cli_env, "upload", str(text_pdf(tmp_path / "first.pdf", [TENDER_PAGE])))
    primary, secondary = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tenderflow", "status", "--watch", "--interval", "0.3"],
                               env={**cli_env, "COLUMNS": "120", "LINES": "60", "TERM": "xterm"},
                               stdin=secondary, stdout=secondary, stderr=secondary, start_new_session=True)
    os.close(secondary)
    seen = bytearray()

    def screen_until(pattern: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = _TERMINAL_CODES.sub("", seen.decode(errors="replace"))
            if re.search(pattern, text):
                return text
            if time.monotonic() > deadline:
                pytest.fail(f"no {pattern!r} on the screen of status --watch: {text[-3000:]}")
            if select.select([primary], [], [], 0.5)[0]:
                try:
                    chunk = os.read(primary, 65536)
                except OSError:  # EIO: the process closed the terminal
                    chunk = b""
                if not chunk:
                    pytest.fail(f"status --watch ended (exit {process.wait()}): {text[-3000:]}")
                seen.extend(chunk)

    try:
        first = screen_until(r"Ctrl-C to stop")
        assert re.search(r"queued\s*│\s*1\s*│", first) and "┏" in first  # a table for a person
        seen.clear()
        invoke(cli_env, "upload", str(text_pdf(tmp_path / "second.pdf", [TENDER_PAGE, ["Annex"]])))
        screen_until(r"queued\s*│\s*2\s*│")  # the count, redrawn
        screen_until(r"second\.pdf")  # and the new document among those in progress
        process.send_signal(signal.SIGINT)
        assert exit_code_reading(primary, process, timeout=30) == 0
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        os.close(primary)
