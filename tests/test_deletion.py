"""Deleting documents and retention (issue 13, item 5): through the CLI and the API; what goes (the
document, its versions, pages, fields, search entries, thumbnail, stored PDF) and what stays (the
credits ledger); unfinished work cancelled and refunded; a running job's commit writes nothing; an
object shared with a newer upload of the same bytes kept; another tenant's document a 404; the
retention schedule deleting what is too old, its period set by the operator through the CLI or the API."""

from __future__ import annotations

import json
import os
import threading
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
from tenderflow.errors import ScheduleError
from tenderflow.handlers import build_job_types
from tenderflow.handlers.schedules import ensure_task_schedules, remove_schedule
from tenderflow.pipeline import commits, deletion, reads, versions
from tenderflow.pipeline.search import search
from tenderflow.pipeline.storage import object_key, open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.queue import Scheduler, Worker, claim
from tenderflow.tenants.keys import create_api_key
from tests.conftest import processed_once, wait_until
from tests.support.api_harness import ADMIN_TOKEN, RunningApi, bearer, tenant_with_key
from tests.support.pipeline_harness import drain, drain_with, worker_config
from tests.support.tenants_harness import assert_ledger_balanced
from tests.support.tender_fixtures import TENDER_PAGE, numbered_pages, text_pdf

# Every table that holds something of a document (the ledger aside: it keeps its entries).
DOCUMENT_TABLES = ("documents", "document_versions", "pages", "ocr_batches", "extractions", "document_thumbnails",
                   "version_prices", "search_documents", "search_pages")


processed_documents, uploaded = processed_once(
    "uploaded", tenants={"acme": 1000, "globex": 0}, documents=(
        ("notice", "acme", numbered_pages(3)), ("other", "acme", [TENDER_PAGE]),
        ("theirs", "globex", [TENDER_PAGE, ["Annex"]])))
"""Processed documents: two of acme's (acme pays credits), one of globex's."""


def rows_of(conn: psycopg.Connection[Any], document_id: int) -> dict[str, int]:
    counts = {}
    for table in DOCUMENT_TABLES:
        column = "id" if table == "documents" else "document_id"
        row = conn.execute(f"SELECT count(*) FROM {table} WHERE {column} = %s", (document_id,)).fetchone()  # noqa: S608
        assert row is not None
        counts[table] = int(row[0])
    return counts


def stored(settings: Settings, conn: psycopg.Connection[Any], document_id: int) -> bool:
    row = conn.execute("SELECT tenant, sha256 FROM document_deletions WHERE document_id = %s UNION ALL "
                       "SELECT tenant, sha256 FROM documents WHERE id = %s", (document_id, document_id)).fetchone()
    assert row is not None
    return open_storage(settings.resolved_storage_url).exists(object_key(row[0], row[1]))


def orphans(settings: Settings, conn: psycopg.Connection[Any]) -> set[str]:
    """What the chaos run's checker counts: stored objects no document refers to."""
    keys = {obj.key for obj in open_storage(settings.resolved_storage_url).list_objects("tenants/")}
    referenced = {object_key(tenant, sha) for tenant, sha in conn.execute("SELECT tenant, sha256 FROM documents")}
    return keys - referenced


def env_of(database_url: str, settings: Settings, **extra: str) -> dict[str, str]:
    return {"DATABASE_URL": database_url, "TENDERFLOW_DATA_DIR": str(settings.data_dir),
            "TENDERFLOW_STORAGE_URL": settings.resolved_storage_url, **extra}


def test_the_cli_deletes_a_document_with_everything_read_from_it_and_the_ledger_stays(
    database_url: str, conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings,
    uploaded: dict[str, int]
) -> None:
    notice, other = uploaded["notice"], uploaded["other"]
    before = rows_of(conn, notice)
    assert all(count > 0 for table, count in before.items() if table != "ocr_batches"), before
    ledger = conn.execute("SELECT id, kind::text, amount FROM credit_entries WHERE document_id = %s ORDER BY id",
                          (notice,)).fetchall()
    assert {kind for _, kind, _ in ledger} >= {"reserve", "charge"}
    assert [hit.document_id for hit in search(conn, "PAGE-002", tenant="acme")] == [notice]

    refused = CliRunner().invoke(app, ["documents", "delete", str(notice)], env=env_of(database_url, settings))
    assert refused.exit_code == 2 and "--yes" in refused.output  # not on a terminal: never without --yes
    assert rows_of(conn, notice) == before

    result = CliRunner().invoke(app, ["documents", "delete", str(notice), "--yes", "--json"],
                                env=env_of(database_url, settings))
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.stdout)
    assert (row["id"], row["result"], row["tenant"], row["refunded"]) == (notice, "deleted", "acme", 0)
    assert set(rows_of(conn, notice).values()) == {0}
    assert rows_of(conn, other)["pages"] == 1  # the other document is untouched
    assert search(conn, "PAGE-002", tenant="acme") == []
    # The ledger keeps every entry of the deleted document (the accounts), and still balances.
    assert conn.execute("SELECT id, kind::text, amount FROM credit_entries WHERE document_id = %s ORDER BY id",
                        (notice,)).fetchall() == ledger
    assert_ledger_balanced(conn)

    # The stored PDF: until the storage job runs it is there (and no document refers to it) ...
    assert stored(settings, conn, notice)
    drain(pool, settings, open_storage(settings.resolved_storage_url))
    # ... then it is gone, and nothing is left over that the chaos run would count as an orphan.
    assert not stored(settings, conn, notice) and orphans(settings, conn) == set()
    listed = CliRunner().invoke(app, ["documents", "deleted", "--json"], env=env_of(database_url, settings))
    [record] = json.loads(listed.stdout)
    assert (record["document_id"], record["reason"], record["object_kept"]) == (notice, "request", False)
    assert record["object_done_at"] is not None and "filename" not in record
    again = CliRunner().invoke(app, ["documents", "delete", str(notice), str(other), "--yes"],
                               env=env_of(database_url, settings))
    assert again.exit_code == 1 and "not found" in again.output  # the other one is deleted all the same
    assert rows_of(conn, other)["documents"] == 0


def test_the_api_deletes_a_tenants_own_documents_and_answers_404_for_another_tenants(
    api: RunningApi, conn: psycopg.Connection[Any], database_url: str, settings: Settings, uploaded: dict[str, int]
) -> None:
    acme, globex = create_api_key(conn, "acme", name="d").key, create_api_key(conn, "globex", name="d").key
    theirs = uploaded["theirs"]
    refused = api.client.delete(f"/v1/documents/{theirs}", headers=bearer(acme))
    assert refused.status_code == 404, refused.text
    assert rows_of(conn, theirs)["documents"] == 1  # not deleted, and nothing says it exists
    assert api.client.delete("/v1/documents/999999", headers=bearer(acme)).status_code == 404
    cli = CliRunner().invoke(app, ["documents", "delete", str(theirs), "--tenant", "acme", "--yes"],
                             env=env_of(database_url, settings))
    assert cli.exit_code == 1 and rows_of(conn, theirs)["documents"] == 1

    deleted = api.client.delete(f"/v1/documents/{theirs}", headers=bearer(globex))
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["id"] == theirs and deleted.json()["stored_pdf"] == "queued for deletion"
    assert api.client.get(f"/v1/documents/{theirs}", headers=bearer(globex)).status_code == 404
    assert api.client.delete(f"/v1/documents/{theirs}", headers=bearer(globex)).status_code == 404
    assert set(rows_of(conn, theirs).values()) == {0}


def test_deleting_an_unfinished_document_cancels_its_jobs_and_refunds_it(
    conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, tmp_path: Path
) -> None:
    storage = open_storage(settings.resolved_storage_url)
    tenant_with_key(conn, "acme", credits=100)
    outcome = upload_file(conn, storage, text_pdf(tmp_path / "a.pdf", numbered_pages(2)),
                          UploadPolicy(tenant="acme", max_bytes=10**7))
    assert outcome.document_id is not None
    balance = conn.execute("SELECT balance FROM tenants WHERE name = 'acme'").fetchone()
    assert balance is not None and balance[0] < 100  # the upload reserved the per-document price
    removed = deletion.delete_document(conn, outcome.document_id, tenant="acme")
    assert removed.jobs_cancelled == 1 and removed.refunded == 100 - balance[0]
    assert conn.execute("SELECT balance FROM tenants WHERE name = 'acme'").fetchone() == (100,)
    assert_ledger_balanced(conn)
    assert conn.execute("SELECT state::text FROM jobs WHERE type = 'ocr.plan'").fetchone() == ("cancelled",)
    drain(pool, settings, storage)  # only the storage job is left to run
    assert conn.execute("SELECT type, state::text FROM jobs WHERE state <> 'cancelled'").fetchall() == [
        ("storage.delete", "succeeded")]
    assert orphans(settings, conn) == set()


def test_a_running_job_of_a_deleted_document_commits_nothing(
    conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, tmp_path: Path
) -> None:
    """Its job is cancelled (the commit is refused: the job is no longer the worker's), and a commit
    step that runs anyway finds the document gone and writes nothing."""
    from tenderflow.queue import Backoff, JobContext
    from tenderflow.queue.completion import FinishedAttempt, commit_attempts

    storage = open_storage(settings.resolved_storage_url)
    tenant_with_key(conn, "acme")
    outcome = upload_file(conn, storage, text_pdf(tmp_path / "a.pdf", numbered_pages(2)),
                          UploadPolicy(tenant="acme", max_bytes=10**7))
    assert outcome.document_id is not None
    job_types = build_job_types(settings, pool=pool, storage=storage)
    [job] = claim(conn, worker_id="test-worker", types=["ocr.plan"], limit=1, lease_seconds=60)
    handler = job_types.handler("ocr.plan")
    plan = handler.run(job, JobContext(job))  # computed while the deletion happens
    removed = deletion.delete_document(conn, outcome.document_id)
    assert removed.jobs_cancelled == 1  # the running plan
    [committed] = commit_attempts(conn, job_types, [FinishedAttempt(job, result=plan)], backoff=Backoff(1, 1))
    assert committed.outcome == "lost"
    # The commit steps themselves, as if the job were still owned: each writes nothing (without the
    # document's row they would write rows that refer to a version that is gone, and fail).
    from dataclasses import replace

    with conn.transaction():
        handler.commit(conn, job, plan)
        batch = replace(job, payload={**job.payload, "pages": [1]})
        assert commits.record_pages(conn, batch, plan.text_pages) is False
        commits.record_extraction(conn, job, {"fields": {}, "backend": "rules"})
    assert set(rows_of(conn, outcome.document_id).values()) == {0}
    assert conn.execute("SELECT count(*) FROM jobs WHERE type IN ('ocr.pages', 'extract', 'thumbnail')"
                        ).fetchone() == (0,)


def test_a_deletion_waits_for_a_commit_that_holds_the_document(
    conn: psycopg.Connection[Any], database_url: str, uploaded: dict[str, int]
) -> None:
    notice = uploaded["notice"]
    with psycopg.connect(database_url, autocommit=True) as committing:
        committing.execute("BEGIN")
        assert versions.hold_document(committing, notice)
        done: list[Any] = []
        deleter = threading.Thread(target=lambda: done.append(deletion.delete_document(conn, notice)))
        deleter.start()
        wait_until(lambda: committing.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        ).fetchone() == (1,), message="the deletion waiting for the document's lock")
        assert done == []
        committing.execute("COMMIT")
        deleter.join(10)
        assert len(done) == 1 and done[0].document_id == notice
        assert not versions.hold_document(committing, notice)  # a commit coming after finds it gone


def test_an_object_shared_with_a_newer_upload_of_the_same_bytes_is_kept(
    conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, tmp_path: Path
) -> None:
    storage = open_storage(settings.resolved_storage_url)
    tenant_with_key(conn, "acme")
    pdf = text_pdf(tmp_path / "a.pdf", [TENDER_PAGE])
    first = upload_file(conn, storage, pdf, UploadPolicy(tenant="acme", max_bytes=10**7))
    assert first.document_id is not None
    drain(pool, settings, storage)
    deletion.delete_document(conn, first.document_id)
    again = upload_file(conn, storage, pdf, UploadPolicy(tenant="acme", max_bytes=10**7))  # before the storage job ran
    assert again.status == "created" and again.document_id not in (None, first.document_id)
    drain(pool, settings, storage)
    assert conn.execute("SELECT object_kept FROM document_deletions WHERE document_id = %s",
                        (first.document_id,)).fetchone() == (True,)
    assert stored(settings, conn, again.document_id) and orphans(settings, conn) == set()
    assert reads.get_document(conn, again.document_id)["state"] == "done"
    # The storage job is safe to run again (a crash before its commit): the object stays.
    with pool.connection() as other:
        assert not deletion.delete_stored_object(other, storage, tenant="acme",
                                                 sha256=reads.get_document(conn, again.document_id)["sha256"])


def test_a_worker_of_the_ocr_pool_alone_deletes_the_stored_pdf(
    conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, tmp_path: Path
) -> None:
    storage = open_storage(settings.resolved_storage_url)
    tenant_with_key(conn, "acme")
    uploaded = upload_file(conn, storage, text_pdf(tmp_path / "a.pdf", [TENDER_PAGE]),
                           UploadPolicy(tenant="acme", max_bytes=10**7))
    assert uploaded.document_id is not None
    drain(pool, settings, storage)
    deletion.delete_document(conn, uploaded.document_id)
    assert stored(settings, conn, uploaded.document_id)
    # `tenderflow worker --pool ocr` where no extract worker runs: the deletion does not wait for one.
    job_types = build_job_types(settings, pool=pool, storage=storage)
    assert Worker(pool, job_types, worker_config("ocr")).run_once() == 1
    assert not stored(settings, conn, uploaded.document_id) and orphans(settings, conn) == set()
    assert conn.execute("SELECT object_kept FROM document_deletions WHERE document_id = %s",
                        (uploaded.document_id,)).fetchone() == (False,)


def test_retention_deletes_documents_older_than_their_tenants_period_on_a_schedule(
    database_url: str, conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings,
    uploaded: dict[str, int]
) -> None:
    env = env_of(database_url, settings, TENDERFLOW_DOCUMENT_RETENTION_DAYS="30")
    result = CliRunner().invoke(app, ["tenants", "limits", "acme", "--retention-days", "7", "--json"], env=env)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert (shown["retention_days"], shown["own_retention"]) == (7, True)
    globex = json.loads(CliRunner().invoke(app, ["tenants", "limits", "globex", "--json"], env=env).stdout)
    assert (globex["retention_days"], globex["own_retention"]) == (30, False)  # the setting's
    # acme's notice is 8 days old (past its 7), its other 6 (kept); globex's 10 (within 30).
    for name, days in (("notice", 8), ("other", 6), ("theirs", 10)):
        conn.execute("UPDATE documents SET created_at = now() - make_interval(days => %s) WHERE id = %s",
                     (days, uploaded[name]))
    dry = CliRunner().invoke(app, ["documents", "expire", "--dry-run", "--json"], env=env)
    assert [row["document_id"] for row in json.loads(dry.stdout)] == [uploaded["notice"]]
    assert rows_of(conn, uploaded["notice"])["documents"] == 1

    # The retention task's own schedule, which workers make at start: created once, hourly.
    retention_settings = Settings(**{**settings.model_dump(), "document_retention_days": 30})
    job_types = build_job_types(retention_settings, pool=pool, storage=open_storage(settings.resolved_storage_url))
    scheduler = Scheduler(job_types)
    schedule = "SELECT next_run_at, enabled FROM job_schedules WHERE name = 'documents.retention'"
    ensure_task_schedules(conn, job_types)
    [(next_run, _)] = conn.execute(schedule).fetchall()
    assert timedelta(minutes=59) < next_run - datetime.now(UTC) <= timedelta(hours=1)
    ensure_task_schedules(conn, job_types)  # a worker starting later does not push the run back
    assert conn.execute(schedule).fetchall() == [(next_run, True)]
    scheduler.change(conn, "documents.retention", enabled=False)  # nor resume what an operator paused
    ensure_task_schedules(conn, job_types)
    assert conn.execute(schedule).fetchall() == [(next_run, False)]
    with pytest.raises(ScheduleError, match="own schedule"):  # it would come back at the next start
        remove_schedule(conn, job_types, "documents.retention")
    scheduler.change(conn, "documents.retention", enabled=True, interval_seconds=3600.0,
                     now=next_run - timedelta(hours=1))
    assert scheduler.run_once(conn, now=datetime.now(UTC)) == []  # not due yet
    [job_id] = scheduler.run_once(conn, now=next_run + timedelta(seconds=1))
    from tests.support.pipeline_harness import drain_with

    conn.execute("UPDATE jobs SET run_after = now() WHERE id = %s", (job_id,))
    drain_with(pool, job_types)
    assert rows_of(conn, uploaded["notice"])["documents"] == 0
    assert rows_of(conn, uploaded["other"])["documents"] == 1 and rows_of(conn, uploaded["theirs"])["documents"] == 1
    assert conn.execute("SELECT reason FROM document_deletions").fetchall() == [("retention",)]
    assert orphans(settings, conn) == set()

    # 0 keeps a tenant's documents for ever, whatever the setting says; 'default' goes back to it.
    CliRunner().invoke(app, ["tenants", "limits", "globex", "--retention-days", "0"], env=env)
    conn.execute("UPDATE documents SET created_at = now() - interval '400 days' WHERE id = %s", (uploaded["theirs"],))
    assert deletion.expired_documents(conn, default_days=30) == []
    CliRunner().invoke(app, ["tenants", "limits", "globex", "--retention-days", "default"], env=env)
    expired = CliRunner().invoke(app, ["documents", "expire", "--json"], env=env)
    assert [row["document_id"] for row in json.loads(expired.stdout)] == [uploaded["theirs"]]
    off = env_of(database_url, settings)  # the setting's default: off
    CliRunner().invoke(app, ["tenants", "limits", "acme", "--retention-days", "default"], env=off)
    conn.execute("UPDATE documents SET created_at = now() - interval '4000 days'")
    assert json.loads(CliRunner().invoke(app, ["documents", "expire", "--dry-run", "--json"], env=off).stdout) == []


def test_the_operator_sets_a_tenants_retention_over_the_api_and_the_retention_job_deletes_by_it(
    api: RunningApi, conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, uploaded: dict[str, int]
) -> None:
    """`PATCH /v1/tenants/{name}/limits` (the admin token) sets what `tenants limits --retention-days` sets; the
    tenant reads its period at GET /v1/account; the retention job, run through /v1/schedules, deletes by it."""
    admin = bearer(ADMIN_TOKEN)
    acme = create_api_key(conn, "acme", name="retention").key
    limits_url = "/v1/tenants/acme/limits"
    before = api.client.get(limits_url, headers=admin)
    assert before.status_code == 200, before.text
    assert (before.json()["retention_days"], before.json()["own_retention"]) == (0, False)  # the default: for ever
    assert api.client.get(limits_url).status_code == 401
    assert api.client.get(limits_url, headers=bearer(acme)).status_code == 401  # a tenant's key is no operator's
    assert api.client.patch(limits_url, headers=bearer(acme), json={"retention_days": 1}).status_code == 401

    changed = api.client.patch(limits_url, headers=admin, json={"retention_days": 7, "uploads_per_minute": 30})
    assert changed.status_code == 200, changed.text
    assert {key: changed.json()[key] for key in ("retention_days", "own_retention", "uploads_per_minute",
                                                 "own_rate", "own_quota")} == {
        "retention_days": 7, "own_retention": True, "uploads_per_minute": 30, "own_rate": True, "own_quota": False}
    only_retention = api.client.patch(limits_url, headers=admin, json={"retention_days": 7}).json()
    assert only_retention["uploads_per_minute"] == 30  # a limit left out stays as it is
    account = api.client.get("/v1/account", headers=bearer(acme))
    assert account.status_code == 200 and account.json()["limits"]["retention_days"] == 7
    for refused in ({"retention_days": -1}, {"retention_days": 36_501}, {"retention_days": "a week"},
                    {"keep_for": 7}):
        assert api.client.patch(limits_url, headers=admin, json=refused).status_code == 422, refused
    missing = api.client.patch("/v1/tenants/nobody/limits", headers=admin, json={"retention_days": 7})
    assert missing.status_code == 404 and "nobody" in missing.json()["detail"]

    # acme's notice is 8 days old (past its 7), its other 6 (kept); globex keeps its documents for ever.
    for name, days in (("notice", 8), ("other", 6), ("theirs", 400)):
        conn.execute("UPDATE documents SET created_at = now() - make_interval(days => %s) WHERE id = %s",
                     (days, uploaded[name]))
    job_types = build_job_types(settings, pool=pool, storage=open_storage(settings.resolved_storage_url))
    ensure_task_schedules(conn, job_types)  # as a worker does when it starts
    run = api.client.post("/v1/schedules/documents.retention/run", headers=admin)
    assert run.status_code == 202, run.text
    conn.execute("UPDATE jobs SET run_after = now() WHERE id = %s", (run.json()["job_id"],))
    drain_with(pool, job_types)
    assert api.client.get(f"/v1/documents/{uploaded['notice']}", headers=bearer(acme)).status_code == 404
    assert api.client.get(f"/v1/documents/{uploaded['other']}", headers=bearer(acme)).status_code == 200
    assert rows_of(conn, uploaded["notice"]) == dict.fromkeys(DOCUMENT_TABLES, 0)
    assert rows_of(conn, uploaded["theirs"])["documents"] == 1
    assert conn.execute("SELECT document_id, reason FROM document_deletions").fetchall() == [
        (uploaded["notice"], "retention")]

    # null: back to the settings' default (here 0, kept for ever); the CLI sees what the API set.
    reset = api.client.patch(limits_url, headers=admin, json={"retention_days": None}).json()
    assert (reset["retention_days"], reset["own_retention"], reset["uploads_per_minute"]) == (0, False, 30)
    conn.execute("UPDATE documents SET created_at = now() - interval '4000 days' WHERE id = %s", (uploaded["other"],))
    assert deletion.expired_documents(conn, default_days=0) == []


def test_a_retention_period_past_a_hundred_years_is_refused_as_it_would_break_the_sweep(
    database_url: str, conn: psycopg.Connection[Any], settings: Settings, uploaded: dict[str, int]
) -> None:
    """A period so long that the cut-off falls before the earliest time PostgreSQL holds made the sweep's
    query fail ("timestamp out of range"), for every tenant at once."""
    env = env_of(database_url, settings)
    refused = CliRunner().invoke(app, ["tenants", "limits", "acme", "--retention-days", "99999999"], env=env)
    assert refused.exit_code != 0 and "at most 36,500 days" in refused.output
    accepted = CliRunner().invoke(app, ["tenants", "limits", "acme", "--retention-days", "36500"], env=env)
    assert accepted.exit_code == 0, accepted.output
    assert deletion.expired_documents(conn, default_days=0) == []  # the sweep's query runs


def test_d_n7_a_deleted_documents_file_name_is_kept_nowhere_and_its_file_is_not_taken_again(
    conn: psycopg.Connection[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review security-2, D-N7: `watch_files` kept a deleted document's file name (and its id), though
    the README says nothing of a deleted document is kept; the watch's INFO log line named it too.
    Every table is searched for the name after the deletion; the watch still knows the file (by a
    fingerprint of its path), so an unchanged file is not uploaded again."""
    from tenderflow.handlers.watch import poll_options
    from tenderflow.pipeline import watches
    from tenderflow.tenants.tenants import create_tenant
    from tests.support.pipeline_harness import pipeline_settings
    from tests.support.tender_fixtures import TENDER_PAGE, text_pdf

    create_tenant(conn, "acme", credits=100)
    inbox = tmp_path / "inbox"
    (inbox / "bids").mkdir(parents=True)
    secret = text_pdf(inbox / "bids" / "confidential-harbour-bid.pdf", [TENDER_PAGE])
    os.utime(secret, (time.time() - 3600, time.time() - 3600))
    settings = pipeline_settings(conn.info.dsn, tmp_path, watch_settle_seconds=0)
    storage = open_storage((tmp_path / "objects").as_uri())
    watch = watches.create_watch(conn, Scheduler(build_job_types(settings)), tenant="acme", source=str(inbox),
                                 settle_seconds=0)
    [taken] = watches.poll(conn, storage, watch.id, poll_options(settings)).decisions
    assert taken["state"] == "uploaded"
    deletion.delete_document(conn, taken["document_id"], tenant="acme")

    tables = [row[0] for row in conn.execute(
        "SELECT format('%I.%I', table_schema, table_name) FROM information_schema.tables "
        "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'").fetchall()]
    holding = [table for table in tables if conn.execute(
        f"SELECT count(*) FROM {table} t WHERE t::text LIKE '%%confidential-harbour%%'").fetchone() != (0,)]
    assert holding == []
    assert conn.execute("SELECT count(*) FROM watch_files WHERE document_id IS NOT NULL").fetchone() == (0,)
    assert "confidential-harbour" not in capsys.readouterr().out, "an INFO line named the file"

    again = watches.poll(conn, storage, watch.id, poll_options(settings))
    assert again.decisions == [] and again.listed == 1, "the deleted document's file came back"
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (0,)
