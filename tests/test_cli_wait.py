"""Knowing when work is done (issue 12): `worker --burst` drains what its pool has to run and exits 0,
`upload --wait` follows its documents to the end and says in its exit code whether any failed, and a
document waiting to be retried says why."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.pipeline import documents
from tenderflow.queue import jobs
from tests.tender_fixtures import TENDER_PAGE, text_pdf


@pytest.fixture
def cli_env(database_url: str, tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TENDERFLOW_")}
    env.update({
        "DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri(),
        "TENDERFLOW_DATA_DIR": str(tmp_path / "data"), "TENDERFLOW_OCR_LANGUAGES": "eng",
        "TENDERFLOW_POLL_SECONDS": "0.2", "TENDERFLOW_LOG_JSON": "true",
    })
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
    assert result.exit_code == 1 and "--burst needs the database" in result.output


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


def test_a_document_waiting_to_be_retried_says_why(
    cli_env: dict[str, str], conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    uploaded = json.loads(invoke(cli_env, "upload", str(text_pdf(tmp_path / "t.pdf", [TENDER_PAGE])),
                                 "--json").stdout)[0]
    [job] = jobs.claim(conn, worker_id="w", types=[documents.JOB_OCR_PLAN], limit=1, lease_seconds=30)
    jobs.fail(conn, [jobs.Failure(job, "storage unreachable: timed out", permanent=False, retry_seconds=600)])
    shown = invoke(cli_env, "show", str(uploaded["document_id"]))
    assert "waiting to run again: retry 2/5: storage unreachable: timed out" in shown.stdout
    [progress] = documents.versions_progress(conn, [documents.VersionRef(uploaded["document_id"], 1)])
    assert (progress.state, progress.finished, progress.retrying) == (
        documents.VersionState.QUEUED, False, "retry 2/5: storage unreachable: timed out")
