"""The pipeline's CLI as a user types it: upload, status, documents list, show, reprocess, retry."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.cli.output import tsv_cell
from tenderflow.database import CONNECT_TIMEOUT_SECONDS
from tenderflow.errors import ConfigurationError
from tenderflow.pipeline.storage import open_storage
from tests.support.pipeline_harness import drain, pipeline_settings
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf


def invoke(env: dict[str, str], *args: str) -> Any:
    result = CliRunner().invoke(app, list(args), env=env)
    return result


def test_upload_reports_each_file_and_refuses_bad_ones(cli_env: dict[str, str], tmp_path: Path) -> None:
    good = text_pdf(tmp_path / "good.pdf", [TENDER_PAGE])
    bad = tmp_path / "bad.pdf"
    bad.write_text("not a pdf")
    result = invoke(cli_env, "upload", str(good), str(bad), "--json")
    assert result.exit_code == 2, result.output  # some files were refused
    rows = {Path(r["source"]).name: r for r in json.loads(result.stdout)}
    assert rows["good.pdf"]["status"] == "created"
    assert rows["bad.pdf"]["status"] == "rejected" and "not a PDF" in rows["bad.pdf"]["error"]
    again = invoke(cli_env, "upload", str(good), "--json")
    assert again.exit_code == 0
    assert json.loads(again.stdout)[0]["status"] == "existing"


def test_show_status_list_and_reprocess_after_processing(
    cli_env: dict[str, str], pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    good = text_pdf(tmp_path / "good.pdf", [TENDER_PAGE])
    uploaded = json.loads(invoke(cli_env, "upload", str(good), "--json").stdout)[0]
    settings = pipeline_settings(database_url, tmp_path)
    drain(pool, settings, open_storage(settings.resolved_storage_url))

    status = json.loads(invoke(cli_env, "status", "--json").stdout)
    assert status["documents"] == {"done": 1}
    listed = json.loads(invoke(cli_env, "documents", "list", "--state", "done", "--json").stdout)
    assert [d["id"] for d in listed] == [uploaded["document_id"]]
    shown = json.loads(invoke(cli_env, "show", str(uploaded["document_id"]), "--json").stdout)
    # one level of fields (the review's `fields.fields`), and no page's text unless --text asks for it
    assert shown["fields"]["reference_number"]["value"] == "EH-2026-0417"
    assert shown["extraction"]["backend"] == "rules" and "fields" not in shown["extraction"]
    assert shown["pages"][0]["source"] == "text_layer" and "text" not in shown["pages"][0]
    assert shown["country"]["code"] == "NL" and shown["deadlines"]["submission_deadline"] == {
        "date_time": "2026-03-15T12:00:00+01:00", "local": "2026-03-15T12:00:00", "time_zone": "Europe/Amsterdam"}
    with_text = json.loads(invoke(cli_env, "show", str(uploaded["document_id"]), "--json", "--text").stdout)
    assert "Cleaning services for municipal buildings" in with_text["pages"][0]["text"]
    text = invoke(cli_env, "show", str(uploaded["document_id"]), "--text")
    assert "Cleaning services for municipal buildings" in text.stdout
    assert "buyer's country: NL (stated in the document); deadlines in Europe/Amsterdam" in text.stdout

    first = invoke(cli_env, "reprocess", str(uploaded["document_id"]), "--from", "extract")
    second = invoke(cli_env, "reprocess", str(uploaded["document_id"]))
    assert "version 2 queued" in first.stdout
    assert "already in flight" in second.stdout
    missing = invoke(cli_env, "show", "999999")
    assert missing.exit_code == 1 and "no document with id 999999" in missing.stderr  # errors: on stderr


def test_retrying_a_job_of_a_failed_document_says_to_reprocess(
    cli_env: dict[str, str], pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n% nothing else: no objects, no xref\n")
    document_id = json.loads(invoke(cli_env, "upload", str(broken), "--json").stdout)[0]["document_id"]
    settings = pipeline_settings(database_url, tmp_path)
    drain(pool, settings, open_storage(settings.resolved_storage_url))
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute("SELECT id FROM jobs WHERE state = 'failed'").fetchone()
    assert row is not None
    result = invoke(cli_env, "jobs", "retry", str(row[0]))
    assert result.exit_code == 0
    # piped: stdout holds what a script reads (the job queued again), the advice goes to stderr
    assert result.stdout.split() == ["job", str(row[0]), "queued", "again"]
    assert f"tenderflow reprocess {document_id} --from ocr" in " ".join(result.stderr.split())


def test_what_a_tenant_supplied_is_shown_escaped_and_never_as_markup(
    cli_env: dict[str, str], database_url: str, tmp_path: Path
) -> None:
    """Review D12: a file name with terminal escapes reached the terminal raw, and Rich read markup in it."""
    good = text_pdf(tmp_path / "good.pdf", [TENDER_PAGE])
    document_id = json.loads(invoke(cli_env, "upload", str(good), "--json").stdout)[0]["document_id"]
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("UPDATE documents SET filename = %s WHERE id = %s",
                     ("evil\x1b[2J\x1b]0;pwned\x07[red]RED[/red].pdf", document_id))
    for args in (("documents", "list"), ("show", str(document_id))):
        output = invoke({**cli_env, "COLUMNS": "300"}, *args).stdout
        assert "\x1b" not in output and "\x07" not in output
        assert "\\x1b[2J" in output and "[red]RED[/red]" in output


def test_upload_of_a_missing_path_or_a_folder_without_pdfs_is_a_usage_error(
    cli_env: dict[str, str], database_url: str, tmp_path: Path
) -> None:
    """Issue 12 (bad input): a missing path was a table row; now, like an empty folder, it is a usage
    error (exit 2) said in one line, before anything is read or stored."""
    good = text_pdf(tmp_path / "good.pdf", [TENDER_PAGE])
    missing = invoke(cli_env, "upload", str(good), str(tmp_path / "nowhere.pdf"))
    assert missing.exit_code == 2 and missing.stdout == ""
    assert f"error: no such file or folder: {tmp_path / 'nowhere.pdf'}" in missing.stderr
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("not a PDF")
    empty = invoke(cli_env, "upload", str(tmp_path / "empty"))
    assert empty.exit_code == 2 and "no PDF found in" in empty.stderr
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT count(*) FROM documents").fetchone() == (0,)  # the good file was not taken


def test_upload_for_an_unknown_tenant_says_so_once_and_exits_1(cli_env: dict[str, str], tmp_path: Path) -> None:
    """The tenant is checked once for the whole batch: one error line, not one row per file."""
    files = [str(text_pdf(tmp_path / f"n{n}.pdf", [TENDER_PAGE, [f"Annex {n}"]])) for n in range(3)]
    result = invoke(cli_env, "upload", *files, "--tenant", "nobody")
    assert result.exit_code == 1 and result.stdout == ""
    [line] = [line for line in result.stderr.splitlines() if line.strip()]
    assert line.startswith("error: ") and "nobody" in line


def test_max_attempts_from_the_settings_hold_for_every_job_of_the_pipeline(
    cli_env: dict[str, str], pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    """Review D16: TENDERFLOW_MAX_ATTEMPTS was never used; every job got 5 attempts."""
    good = text_pdf(tmp_path / "good.pdf", [TENDER_PAGE])
    uploaded = json.loads(invoke({**cli_env, "TENDERFLOW_MAX_ATTEMPTS": "3"}, "upload", str(good), "--json").stdout)
    settings = pipeline_settings(database_url, tmp_path)
    drain(pool, settings, open_storage(settings.resolved_storage_url))
    document_id = str(uploaded[0]["document_id"])
    invoke({**cli_env, "TENDERFLOW_MAX_ATTEMPTS": "2"}, "reprocess", document_id, "--from", "extract")
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT type, max_attempts FROM jobs ORDER BY id").fetchall()
    assert rows[:4] == [("ocr.plan", 3), ("thumbnail", 3), ("extract", 3), ("tender.document", 3)]
    assert rows[4:] == [("extract", 2)]


def test_piped_tables_are_tsv_with_nothing_cut_and_separators_escaped(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Issue 12: piped output was an 80-column table that cut ids and names; now a header line and
    one line per row, each value whole, a tab or newline inside a value escaped so columns hold."""
    odd = text_pdf(tmp_path / ("tab\there, newline\nthere and a long name " + "x" * 80 + ".pdf"), [TENDER_PAGE])
    document_id = json.loads(invoke(cli_env, "upload", str(odd), "--json").stdout)[0]["document_id"]
    lines = invoke(cli_env, "documents", "list").stdout.splitlines()
    header = lines[0].split("\t")
    assert header[:3] == ["id", "tenant", "filename"]
    [row] = [line.split("\t") for line in lines[1:]]
    assert len(row) == len(header)
    assert row[0] == str(document_id)
    assert row[2] == "tabhere, newlinethere and a long name " + "x" * 80 + ".pdf"  # cleaned at upload, then whole
    assert tsv_cell("a\tb\nc\\d\x1b") == "a\\tb\\nc\\\\d\\x1b"  # what may still hold one is escaped


def test_through_a_real_pipe_tables_are_tsv_and_notes_go_to_stderr(cli_env: dict[str, str], tmp_path: Path) -> None:
    """`tenderflow … | cut -f1`: the process's stdout is a pipe, not a terminal (not CliRunner's buffer)."""
    import subprocess
    import sys

    pdf = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE])
    uploaded = subprocess.run([sys.executable, "-m", "tenderflow", "upload", str(pdf)], env=cli_env,
                              capture_output=True, text=True, timeout=120)
    assert uploaded.returncode == 0, uploaded.stderr
    assert uploaded.stdout.splitlines()[0].split("\t") == ["source", "status", "document_id", "version",
                                                           "size_bytes", "error"]
    assert uploaded.stdout.splitlines()[1].split("\t")[1:3] == ["created", "1"]
    assert "1 created" in uploaded.stderr and "1 created" not in uploaded.stdout  # the summary: for people
    stats = subprocess.run(f"{sys.executable} -m tenderflow jobs stats | cut -f1,2", shell=True, env=cli_env,
                           capture_output=True, text=True, timeout=120)
    assert stats.returncode == 0, stats.stderr
    assert stats.stdout.splitlines()[:2] == ["type\tqueued", "ocr.plan\t1"]
    assert "━" not in stats.stdout and "…" not in stats.stdout
    assert "oldest queued job" in stats.stderr and "oldest queued job" not in stats.stdout

    def piped(command: str) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(f"{sys.executable} -m tenderflow {command} | cat", shell=True, env=cli_env,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert not set("━┃│┏└…") & set(result.stdout), result.stdout  # no box, nothing cut
        return result

    status = piped("status")
    # TSV tables one after the other, each with its header line; the summary lines are for people.
    lines = status.stdout.splitlines()
    assert lines[:2] == ["state\tdocuments", "queued\t1"]
    assert lines[2:4] == ["document_id\tversion\ttenant\tfilename\tstate\tpages",
                          "1\t1\tdefault\tnotice.pdf\tqueued\t0/?"]  # unfinished: pages read of ? (not planned)
    assert lines[4] == "type\tqueued\trunning\tfailed_last_hour\toldest_queued_seconds"
    assert lines[5].split("\t")[:3] == ["ocr.plan", "1", "0"]
    assert "workers: 0 live, 0 dead" in status.stderr and "workers:" not in status.stdout
    job = piped("jobs show 1")
    fields = dict(line.split("\t", 1) for line in job.stdout.splitlines())
    assert fields["field"] == "value"  # the header line
    assert (fields["id"], fields["type"], fields["state"], fields["tenant"]) == ("1", "ocr.plan", "queued", "default")
    assert "object_key: tenants/default/pdf/" in fields["payload"]  # whole, on its one line


def test_errors_go_to_stderr_and_leave_stdout_empty(cli_env: dict[str, str]) -> None:
    """`tenderflow show 7 --json | jq`: an error is one `error:` line on stderr, whether the command
    says it (`fail`) or the entry point catches it (`run`: here an unreachable database), so what a
    script reads on stdout is never an error message."""
    import subprocess
    import sys

    def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tenderflow", *args], env=env, capture_output=True, text=True,
                              timeout=120)

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        refused_port = closed.getsockname()[1]
    for result in (run(cli_env, "show", "999999", "--json"),
                   run({**cli_env, "DATABASE_URL": f"postgresql://u@127.0.0.1:{refused_port}/db"}, "status")):
        assert result.returncode == 1 and result.stdout == "", result.stdout
        [error] = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert "no document with id 999999" in error or "Connection refused" in error, result.stderr


def test_an_unreachable_database_is_reported_within_seconds_with_its_reason(tmp_path: Path) -> None:
    """Issue 12: a wrong DATABASE_URL took 30 s to report ("pool initialization incomplete"); now a
    refused connection is said at once, and a server that never answers after CONNECT_TIMEOUT_SECONDS."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        refused_port = closed.getsockname()[1]  # nothing listens once it is closed
    env = {"TENDERFLOW_DATA_DIR": str(tmp_path / "data")}
    started = time.monotonic()
    refused = invoke({**env, "DATABASE_URL": f"postgresql://u@127.0.0.1:{refused_port}/db"}, "status")
    assert time.monotonic() - started < 3
    # (`tenderflow` prints a TenderflowError as one `error:` line; in process it is the exception)
    assert isinstance(refused.exception, ConfigurationError) and "Connection refused" in str(refused.exception)
    with socket.socket() as silent:  # accepts connections (the kernel's backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        started = time.monotonic()
        hung = invoke({**env, "DATABASE_URL": f"postgresql://u@127.0.0.1:{silent.getsockname()[1]}/db"}, "status")
        elapsed = time.monotonic() - started
    assert isinstance(hung.exception, ConfigurationError) and "cannot connect to PostgreSQL" in str(hung.exception)
    assert CONNECT_TIMEOUT_SECONDS - 0.5 < elapsed < CONNECT_TIMEOUT_SECONDS + 3


def test_db_stop_stops_the_embedded_server_and_the_next_command_starts_it_again(embedded_data_dir: Path) -> None:
    """Issue 12: nothing stopped the embedded PostgreSQL ("kept running"): `tenderflow db stop` does."""
    import os
    import subprocess
    import sys

    # embedded_data_dir, not pytest's tmp_path: as root, pgserver opens the data dir's parents to the
    # user that runs PostgreSQL, and any pytest session starting meanwhile closes /tmp/pytest-of-root
    # again (mode 0700), so initdb failed now and then on a machine where several suites run.
    # Without XDG_RUNTIME_DIR (root shells, containers, CI), as the review ran it: importing pgserver
    # (both to start the server and to stop it) warned on stderr on every command. pytest's own
    # warning filter hides that in process; here stderr is the real one.
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("TENDERFLOW_") and key not in ("DATABASE_URL", "XDG_RUNTIME_DIR")}
    env["TENDERFLOW_DATA_DIR"] = str(embedded_data_dir)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([sys.executable, "-m", "tenderflow", *args], env=env, capture_output=True,
                                text=True, timeout=120, check=False)
        assert "XDG_RUNTIME_DIR" not in result.stderr and "Warning" not in result.stderr, result.stderr
        return result

    pid_file = embedded_data_dir / "postgres" / "postmaster.pid"
    try:
        assert run("status", "--json").returncode == 0
        assert pid_file.exists()
        stopped = run("db", "stop")
        assert stopped.returncode == 0 and "stopped the embedded PostgreSQL" in stopped.stdout, stopped.stderr
        assert stopped.stderr == ""  # the review saw pgserver's debug lines (every pg_ctl call it makes)
        assert not pid_file.exists()
        assert "is not running" in run("db", "stop").stdout
        assert run("status", "--json").returncode == 0 and pid_file.exists()  # started again on demand
    finally:
        run("db", "stop")
    refused = subprocess.run(
        [sys.executable, "-m", "tenderflow", "db", "stop"], env={**env, "DATABASE_URL": "postgresql://x@127.0.0.1/x"},
        capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode == 1 and "stop it where it runs" in refused.stderr


def test_uploading_the_same_bytes_again_uses_up_no_document_id(cli_env: dict[str, str], tmp_path: Path) -> None:
    """The review's ids went 1, 4, 5…: every deduplicated upload had drawn an id from the sequence."""
    first = text_pdf(tmp_path / "first.pdf", [TENDER_PAGE])
    second = text_pdf(tmp_path / "second.pdf", [TENDER_PAGE, ["Annex"]])
    ids = [json.loads(invoke(cli_env, "upload", str(path), "--json").stdout)[0]["document_id"]
           for path in (first, first, first, second)]
    assert ids[1] == ids[2] == ids[0] and ids[3] == ids[0] + 1


def test_reprocessing_a_document_that_failed_for_its_own_content_is_refused_unless_forced(
    cli_env: dict[str, str], pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    """The review reprocessed an encrypted PDF from the CLI: accepted, and it failed again (the
    dashboard offers no Reprocess for it). The API answers the same refusal, 409."""
    from tests.support.pdf_fixtures import encrypted_pdf

    locked = encrypted_pdf(tmp_path / "locked.pdf", user_password="secret")
    document_id = json.loads(invoke(cli_env, "upload", str(locked), "--json").stdout)[0]["document_id"]
    settings = pipeline_settings(database_url, tmp_path)
    drain(pool, settings, open_storage(settings.resolved_storage_url))
    refused = invoke(cli_env, "reprocess", str(document_id))
    assert refused.exit_code == 1
    assert "failed for its own content" in refused.stderr and "encrypted" in refused.stderr
    assert "upload a fixed file (or --force to try anyway)" in " ".join(refused.stderr.split())
    again = invoke(cli_env, "upload", str(locked), "--reprocess", "--json")
    [row] = json.loads(again.stdout)
    assert row["status"] == "existing" and "failed for its own content" in row["error"]
    forced = invoke(cli_env, "reprocess", str(document_id), "--force")
    assert forced.exit_code == 0 and "version 2 queued" in forced.stdout
