"""Watched folders and S3 prefixes (issue 13, item 6): a real folder and moto's S3 server, polled by
`tenderflow watches poll --here`, by `watches.poll` with an injected clock, and by the schedule
on the queue. Each new file is uploaded once (deduplicated by content), a file still being
written is not taken half-way, a bad file is reported once and not retried for ever."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.config import Settings
from tenderflow.handlers import build_job_types
from tenderflow.handlers.watch import poll_options
from tenderflow.ids import sha256_of
from tenderflow.pipeline import watches
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.queue import Scheduler
from tenderflow.tenants.tenants import create_tenant
from tests.support.pipeline_harness import drain, pipeline_idle, pipeline_settings
from tests.support.s3_server import s3_bucket
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf

Conn = psycopg.Connection[Any]
AN_HOUR_AGO = time.time() - 3600


def invoke(env: dict[str, str], *args: str) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


def aged(path: Path, when: float = AN_HOUR_AGO) -> Path:
    os.utime(path, (when, when))
    return path


def tender(path: Path, title: str) -> Path:
    return text_pdf(path, [TENDER_PAGE, [title]])


def decisions(result: Any) -> dict[str, tuple[str, str | None]]:
    assert result.exit_code == 0, result.output
    return {d["path"]: (d["state"], d["reason"]) for d in json.loads(result.stdout)["decisions"]}


def documents_count(conn: Conn) -> int:
    row = conn.execute("SELECT count(*) FROM documents").fetchone()
    assert row is not None
    return int(row[0])


def new_watch(conn: Conn, database_url: str, tmp_path: Path, **options: Any) -> tuple[watches.Watch, Settings, Path]:
    """The tenant acme, its empty inbox folder watched, and the settings a poll runs with."""
    create_tenant(conn, "acme", unlimited=True)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    settings = pipeline_settings(database_url, tmp_path)
    watch = watches.create_watch(conn, Scheduler(build_job_types(settings)), tenant="acme", source=str(inbox),
                                 **options)
    return watch, settings, inbox


def test_a_watched_folder_takes_each_new_file_once_and_reports_bad_ones_once(
    cli_env: dict[str, str], conn: Conn, tmp_path: Path
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    inbox = tmp_path / "inbox"
    (inbox / "2026" / "march").mkdir(parents=True)
    good = aged(tender(inbox / "notice.pdf", "Notice one"))
    copy = inbox / "2026" / "march" / "copy of notice.pdf"
    copy.write_bytes(good.read_bytes())
    aged(copy, AN_HOUR_AGO + 10)  # after the original: files are taken oldest first
    aged(tender(inbox / "2026" / "second.pdf", "Notice two"))
    (inbox / "empty.pdf").touch()
    aged(inbox / "empty.pdf")
    notes = inbox / "notes.txt"
    notes.write_text("call the buyer on Monday")
    aged(notes)
    (inbox / "link.pdf").symlink_to(good)
    tender(inbox / "just-arrived.pdf", "Notice three")  # modified now: still being written, perhaps
    tender(inbox / ".hidden.pdf", "hidden")
    tender(inbox / "download.pdf.part", "a copy in progress")

    made = invoke(cli_env, "watch", str(inbox), "--tenant", "acme", "--every", "2m", "--settle", "30s", "--json")
    assert made.exit_code == 0, made.output
    watch = json.loads(made.stdout)
    assert (watch["kind"], watch["source"], watch["interval_seconds"], watch["settle_seconds"]) == (
        "folder", str(inbox), 120.0, 30.0)

    first = decisions(invoke(cli_env, "watches", "poll", str(watch["id"]), "--here", "--json"))
    assert first["notice.pdf"] == ("uploaded", None)
    assert first["2026/second.pdf"] == ("uploaded", None)
    assert first["2026/march/copy of notice.pdf"] == ("existing", None), "the same bytes are one document"
    assert first["empty.pdf"] == ("rejected", "the file is empty")
    assert first["notes.txt"] == ("rejected", "not a PDF (no %PDF- header)")
    assert first["link.pdf"] == ("rejected", "a symbolic link: links are not followed")
    assert first["just-arrived.pdf"][0] == "waiting" and "unchanged for 30 s" in (first["just-arrived.pdf"][1] or "")
    assert ".hidden.pdf" not in first and "download.pdf.part" not in first
    assert documents_count(conn) == 2

    second = decisions(invoke(cli_env, "watches", "poll", str(watch["id"]), "--here", "--json"))
    assert list(second) == ["just-arrived.pdf"], "decided files are not looked at again, bad ones not reported again"
    assert documents_count(conn) == 2

    # A bad file that is mended (its bytes change) is a new file, and is taken.
    tender(notes, "Notice four")
    aged(notes)
    third = decisions(invoke(cli_env, "watches", "poll", str(watch["id"]), "--here", "--json"))
    assert third["notes.txt"] == ("uploaded", None)
    rejected = json.loads(invoke(cli_env, "watches", "files", str(watch["id"]), "--state", "rejected",
                                 "--json").stdout)
    assert sorted(row["path"] for row in rejected) == ["empty.pdf", "link.pdf"]
    listed = json.loads(invoke(cli_env, "watches", "list", "--json").stdout)
    assert listed[0]["files"] == {"uploaded": 3, "existing": 1, "rejected": 2, "waiting": 1}
    assert listed[0]["last_summary"]["uploaded"] == 1 and listed[0]["last_error"] is None
    names = {row[0] for row in conn.execute("SELECT filename FROM documents").fetchall()}
    assert names == {"notice.pdf", "second.pdf", "notes.txt"}


def test_a_file_still_being_written_is_taken_whole_once_it_settles(
    conn: Conn, storage: ObjectStorage, database_url: str, tmp_path: Path
) -> None:
    watch, settings, inbox = new_watch(conn, database_url, tmp_path, settle_seconds=10)
    whole = tender(tmp_path / "whole.pdf", "A long tender").read_bytes()
    arriving = inbox / "arriving.pdf"
    arriving.write_bytes(whole[: len(whole) // 2])  # a copy half done, paused
    start = datetime.now(UTC)
    options = poll_options(settings)

    now = start + timedelta(seconds=1)
    summary = watches.poll(conn, storage, watch.id, options, now=now)
    assert summary.decisions == [{"path": "arriving.pdf", "state": "waiting", "document_id": None,
                                  "reason": "changed 1 s ago: waiting until it has been unchanged for 10 s"}]
    # Settled by its time, but without the end of a PDF: it waits until unchanged for twice as long.
    now = start + timedelta(seconds=11)
    summary = watches.poll(conn, storage, watch.id, options, now=now)
    assert summary.decisions[0]["state"] == "waiting" and "no %%EOF" in summary.decisions[0]["reason"]
    assert documents_count(conn) == 0
    # The copy goes on and ends: the file changed, so it settles again, then is taken whole.
    arriving.write_bytes(whole)
    written = arriving.stat().st_mtime
    summary = watches.poll(conn, storage, watch.id, options,
                           now=datetime.fromtimestamp(written, UTC) + timedelta(seconds=3))
    assert summary.decisions[0]["state"] == "waiting"
    summary = watches.poll(conn, storage, watch.id, options,
                           now=datetime.fromtimestamp(written, UTC) + timedelta(seconds=12))
    assert summary.decisions[0]["state"] == "uploaded"
    stored = conn.execute("SELECT sha256, size_bytes FROM documents").fetchall()
    assert stored == [(sha256_of(arriving), len(whole))], "the document is the whole file, not half of it"


def test_a_truncated_pdf_that_stays_unchanged_is_taken_and_failed_by_the_pipeline(
    conn: Conn, storage: ObjectStorage, pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    watch, settings, inbox = new_watch(conn, database_url, tmp_path, settle_seconds=10)
    whole = tender(tmp_path / "whole.pdf", "Cut short").read_bytes()
    (inbox / "cut.pdf").write_bytes(whole[:300])
    aged(inbox / "cut.pdf")
    now = datetime.now(UTC)
    assert watches.poll(conn, storage, watch.id, poll_options(settings), now=now).decisions[0]["state"] == "waiting"
    later = watches.poll(conn, storage, watch.id, poll_options(settings), now=now + timedelta(seconds=1))
    assert later.decisions[0]["state"] == "uploaded"
    drain(pool, settings, storage)
    state, error = conn.execute("SELECT state::text, error FROM document_versions").fetchone() or ("", "")
    assert state == "failed" and error, "the pipeline says why a damaged PDF cannot be read"


def test_the_schedule_polls_the_watch_through_the_queue_and_the_queue_becomes_quiet(
    conn: Conn, storage: ObjectStorage, pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    aged(tender(inbox / "notice.pdf", "By the schedule"))
    settings = pipeline_settings(database_url, tmp_path)
    job_types = build_job_types(settings)
    scheduler = Scheduler(job_types)
    made_at = datetime.now(UTC) - timedelta(seconds=300)  # five minutes ago: its first run is due now
    watch = watches.create_watch(conn, scheduler, tenant="acme", source=str(inbox), interval_seconds=300,
                                 now=made_at)
    assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (0,), "nothing is queued between runs"
    [schedule] = scheduler.list_schedules(conn, prefix="watch:")
    assert (schedule.name, schedule.type, schedule.payload, schedule.max_attempts) == (
        f"watch:{watch.id}", "watch.poll", {"watch_id": watch.id}, 1)
    assert schedule.next_run_at == made_at + timedelta(seconds=300)
    [job_id] = scheduler.run_once(conn)
    assert scheduler.run_once(conn) == [], "one job per run"
    drain(pool, settings, storage)
    assert conn.execute("SELECT state::text FROM jobs WHERE id = %s", (job_id,)).fetchone() == ("succeeded",)
    assert conn.execute("SELECT v.state::text FROM document_versions v").fetchall() == [("done",)]
    polled = watches.get_watch(conn, watch.id)
    assert polled.last_polled_at is not None and polled.last_summary["uploaded"] == 1
    assert scheduler.get(conn, f"watch:{watch.id}").last_job_id == job_id
    assert pipeline_idle(pool)


def test_a_poll_that_cannot_read_its_folder_fails_once_and_says_why_on_the_watch(
    conn: Conn, storage: ObjectStorage, pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    watch, settings, inbox = new_watch(conn, database_url, tmp_path)
    scheduler = Scheduler(build_job_types(settings))
    inbox.rmdir()  # an unmounted share
    scheduler.run_now(conn, f"watch:{watch.id}")
    drain(pool, settings, storage)
    job = conn.execute("SELECT state::text, attempts FROM jobs WHERE type = 'watch.poll'").fetchone()
    assert job == ("failed", 1), "one attempt: the next scheduled run tries again"
    assert "does not exist here" in (watches.get_watch(conn, watch.id).last_error or "")


def test_a_tenant_out_of_credits_leaves_its_files_waiting_until_it_can_pay(
    conn: Conn, storage: ObjectStorage, database_url: str, tmp_path: Path
) -> None:
    from tenderflow.tenants import credits

    create_tenant(conn, "acme", credits=0)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    aged(tender(inbox / "a.pdf", "Notice A"))
    aged(tender(inbox / "b.pdf", "Notice B"), AN_HOUR_AGO + 1)
    settings = pipeline_settings(database_url, tmp_path)
    watch = watches.create_watch(conn, Scheduler(build_job_types(settings)), tenant="acme", source=str(inbox))
    summary = watches.poll(conn, storage, watch.id, poll_options(settings))
    assert [d["state"] for d in summary.decisions] == ["waiting"] and summary.deferred == 1
    assert "has 0 credits available" in (summary.decisions[0]["reason"] or "") and summary.stopped
    credits.grant(conn, "acme", 100)
    again = watches.poll(conn, storage, watch.id, poll_options(settings))
    assert sorted(d["state"] for d in again.decisions) == ["uploaded", "uploaded"]


def test_one_poll_of_a_watch_at_a_time(conn: Conn, storage: ObjectStorage, database_url: str, tmp_path: Path) -> None:
    watch, settings, _ = new_watch(conn, database_url, tmp_path)
    with psycopg.connect(database_url, autocommit=True) as other:
        assert other.execute("SELECT pg_try_advisory_lock(7241004, %s)", (watch.id,)).fetchone() == (True,)
        summary = watches.poll(conn, storage, watch.id, poll_options(settings))
    assert summary.skipped == "another poll of this watch is running" and summary.decisions == []


def test_an_s3_prefix_is_watched_like_a_folder(
    conn: Conn, storage: ObjectStorage, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    with s3_bucket(monkeypatch) as (endpoint, bucket, client):
        pdf = tender(tmp_path / "notice.pdf", "From the bucket").read_bytes()
        client.put_object(Bucket=bucket, Key="acme/in/Tender (final) #3.pdf", Body=pdf)
        client.put_object(Bucket=bucket, Key="acme/in/again.pdf", Body=pdf)
        client.put_object(Bucket=bucket, Key="acme/in/readme.html", Body=b"<html>not a tender</html>")
        client.put_object(Bucket=bucket, Key="acme/other/elsewhere.pdf", Body=pdf)
        settings = pipeline_settings(database_url, tmp_path, s3_endpoint_url=endpoint, s3_region="us-east-1",
                                     watch_settle_seconds=0)
        watch = watches.create_watch(conn, Scheduler(build_job_types(settings)), tenant="acme",
                                     source=f"s3://{bucket}/acme/in/", settle_seconds=0)
        assert watch.kind == "s3"
        summary = watches.poll(conn, storage, watch.id, poll_options(settings))
        again = watches.poll(conn, storage, watch.id, poll_options(settings))
    states = {d["path"]: d["state"] for d in summary.decisions}
    assert states == {"Tender (final) #3.pdf": "uploaded", "again.pdf": "existing", "readme.html": "rejected"}, states
    assert again.decisions == [] and documents_count(conn) == 1
    assert conn.execute("SELECT filename FROM documents").fetchone() == ("Tender (final) #3.pdf",)


def test_cli_refuses_a_relative_a_missing_or_a_doubly_watched_folder(
    cli_env: dict[str, str], conn: Conn, tmp_path: Path
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    missing = invoke(cli_env, "watch", str(tmp_path / "nowhere"), "--tenant", "acme")
    assert missing.exit_code == 2 and "is not a folder here" in missing.output
    web = invoke(cli_env, "watch", "https://example.com/inbox", "--tenant", "acme")
    assert web.exit_code == 2 and "watch a folder (an absolute path) or an S3 prefix" in web.output
    (tmp_path / "inbox").mkdir()
    both = invoke(cli_env, "watch", str(tmp_path / "inbox"), "--tenant", "acme", "--every", "1m", "--cron", "* * * * *")
    assert both.exit_code == 2 and "not both" in both.output
    bad_cron = invoke(cli_env, "watch", str(tmp_path / "inbox"), "--tenant", "acme", "--cron", "every day")
    assert bad_cron.exit_code == 2 and "not a valid cron expression" in bad_cron.output
    first = invoke(cli_env, "watch", str(tmp_path / "inbox"), "--tenant", "acme", "--json")
    assert first.exit_code == 0, first.output
    twice = invoke(cli_env, "watch", str(tmp_path / "inbox"), "--tenant", "acme")
    assert twice.exit_code == 2 and f"is already watched for acme (watch {json.loads(first.stdout)['id']})" in \
        twice.output
    nobody = invoke(cli_env, "watch", str(tmp_path / "inbox"), "--tenant", "ghost")
    assert nobody.exit_code == 2 and "ghost" in nobody.output
    assert conn.execute("SELECT count(*) FROM watches").fetchone() == (1,)
    assert conn.execute("SELECT count(*) FROM job_schedules").fetchone() == (1,)


def test_a_poll_job_whose_payload_carries_more_reads_its_watch_id(
    conn: Conn, storage: ObjectStorage, pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    """A trace adds its traceparent to every job's payload: the poll must not refuse it."""
    from tenderflow.queue import JobSpec, enqueue

    watch, settings, inbox = new_watch(conn, database_url, tmp_path)
    aged(tender(inbox / "notice.pdf", "Traced"))
    enqueue(conn, JobSpec("watch.poll", {"watch_id": watch.id,
                                         "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
                          tenant="acme", max_attempts=1))
    enqueue(conn, JobSpec("watch.poll", {"watch": watch.id}, tenant="acme", max_attempts=1))
    drain(pool, settings, storage)
    states = conn.execute("SELECT state::text, last_error FROM jobs WHERE type = 'watch.poll' ORDER BY id").fetchall()
    assert states[0] == ("succeeded", None)
    assert states[1][0] == "failed" and "needs a watch_id" in states[1][1]
    assert documents_count(conn) == 1
