"""The operator's commands over the queue: `tenderflow db migrate`, `jobs list|show|stats|retry|cancel|
prune`, `workers` (every read command's --json parses), and the worker's refusal to start on a
database with pending migrations."""

from __future__ import annotations

import json
from typing import Any

import psycopg
from click.testing import Result
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.migrations import available_migrations
from tenderflow.queue import Failure, JobSpec, claim, enqueue, enqueue_many, fail, set_tenant_priority
from tenderflow.queue.jobs import get

Conn = psycopg.Connection[Any]
TASK = "test.task"


def run_cli(database_url: str, *arguments: str) -> Result:
    """`tenderflow ARGUMENTS` in this process, against the test's database."""
    return CliRunner().invoke(
        app, list(arguments), env={"DATABASE_URL": database_url, "TENDERFLOW_DATABASE_URL": None},
    )


def succeeded(result: Result) -> Result:
    assert result.exit_code == 0, f"exit {result.exit_code}: {result.output}\n{result.exception!r}"
    return result


def json_of(result: Result) -> Any:
    return json.loads(succeeded(result).stdout)


def flat(text: str) -> str:
    """Output with the terminal's line wrapping undone."""
    return " ".join(text.split())


def failed_job(conn: Conn, *, error: str = "boom") -> int:
    job_id = enqueue(conn, JobSpec(TASK, max_attempts=1, priority=100))  # first among its tenant's jobs
    set_tenant_priority(conn, "default", 1000)  # the operator's priority: claimed before any other tenant's
    [job] = claim(conn, worker_id="w1", types=[TASK], limit=1, lease_seconds=30)
    assert job.id == job_id
    fail(conn, [Failure(job, error, permanent=True, retry_seconds=0)])
    return job_id


# --- db ----------------------------------------------------------------------------------------------


def test_db_migrate_on_an_empty_database_applies_every_migration_once(empty_database_url: str) -> None:
    first = succeeded(run_cli(empty_database_url, "db", "migrate"))
    applied = [line.removeprefix("applied ") for line in first.output.splitlines() if line.startswith("applied ")]
    assert applied[0] == "queue/0001_queue" and "0002_documents" in applied  # the queue's line first
    assert len(applied) == len(available_migrations())
    status = json_of(run_cli(empty_database_url, "db", "status", "--json"))
    assert status["pending"] == [] and status["embedded"] is False
    assert "up to date" in succeeded(run_cli(empty_database_url, "db", "migrate")).output
    with psycopg.connect(empty_database_url) as conn:
        assert conn.execute("SELECT to_regclass('jobs') IS NOT NULL").fetchone() == (True,)


def test_db_status_lists_pending_migrations_of_an_empty_database(empty_database_url: str) -> None:
    status = json_of(run_cli(empty_database_url, "db", "status", "--json"))
    assert status["pending"] == [migration.label for migration in available_migrations()]
    assert status["pending"][:2] == ["queue/0001_queue", "queue/0002_tenant_priority"]


def test_worker_refuses_to_start_while_migrations_are_pending(empty_database_url: str) -> None:
    result = run_cli(empty_database_url, "worker")
    assert result.exit_code != 0
    assert "tenderflow db migrate" in flat(result.output)


# --- jobs: reads -----------------------------------------------------------------------------------


def test_jobs_list_json_is_newest_first_and_filters(database_url: str, conn: Conn) -> None:
    queued = enqueue_many(conn, [JobSpec(TASK, tenant="acme"), JobSpec(TASK, tenant="globex"), JobSpec("other.task")])
    failed_id = failed_job(conn)

    everything = json_of(run_cli(database_url, "jobs", "list", "--json"))
    assert [row["id"] for row in everything] == sorted([*queued, failed_id], reverse=True)
    by_state = json_of(run_cli(database_url, "jobs", "list", "--state", "failed", "--json"))
    assert [(row["id"], row["state"], row["last_error"]) for row in by_state] == [(failed_id, "failed", "boom")]
    by_tenant = json_of(run_cli(database_url, "jobs", "list", "--tenant", "globex", "--json"))
    assert [row["id"] for row in by_tenant] == [queued[1]]
    by_type = json_of(run_cli(database_url, "jobs", "list", "--type", "other.task", "--json"))
    assert [row["id"] for row in by_type] == [queued[2]]
    limited = json_of(run_cli(database_url, "jobs", "list", "--limit", "2", "--json"))
    assert len(limited) == 2
    # Not a terminal here: TSV, a header line and one line per job, the id first and never cut.
    lines = succeeded(run_cli(database_url, "jobs", "list")).output.splitlines()
    header = lines[0].split("\t")
    assert header[0] == "id" and "state" in header
    assert sorted(int(line.split("\t")[0]) for line in lines[1:]) == sorted([*queued, failed_id])


def test_jobs_list_refuses_an_unknown_state(database_url: str) -> None:
    result = run_cli(database_url, "jobs", "list", "--state", "exploded")
    assert result.exit_code == 2  # a usage error, with the choices
    assert "'exploded' is not one of" in flat(result.output) and "cancelled" in flat(result.output)


def test_jobs_show_json_has_every_column(database_url: str, conn: Conn) -> None:
    job_id = enqueue(conn, JobSpec(TASK, {"document_id": 7}, tenant="acme", priority=3, unique_key="doc:7"))
    shown = json_of(run_cli(database_url, "jobs", "show", str(job_id), "--json"))
    assert {key: shown[key] for key in ("id", "type", "payload", "tenant", "priority", "state", "unique_key")} == {
        "id": job_id, "type": TASK, "payload": {"document_id": 7}, "tenant": "acme", "priority": 3,
        "state": "queued", "unique_key": "doc:7",
    }
    assert set(shown) >= {"attempts", "max_attempts", "run_after", "leased_until", "worker_id", "last_error",
                          "created_at", "started_at", "finished_at"}
    assert TASK in succeeded(run_cli(database_url, "jobs", "show", str(job_id))).output


def test_jobs_show_of_an_unknown_job_fails_with_a_message(database_url: str) -> None:
    result = run_cli(database_url, "jobs", "show", "424242", "--json")
    assert result.exit_code == 1
    assert "no job with id 424242" in flat(result.output)


def test_jobs_stats_json_reports_the_queue(database_url: str, conn: Conn) -> None:
    enqueue_many(conn, [JobSpec(TASK) for _ in range(3)])
    failed_job(conn)
    conn.execute("INSERT INTO workers (id, host, pid, pools, threads) VALUES ('w-live', 'h', 1, '{test.task}', 2)")

    stats = json_of(run_cli(database_url, "jobs", "stats", "--json"))

    [task_row] = [row for row in stats["by_type"] if row["type"] == TASK]
    assert (task_row["queued"], task_row["running"], task_row["failed_last_hour"]) == (3, 0, 1)
    assert [(row["type"], row["failed"]) for row in stats["failures_by_hour"]] == [(TASK, 1)]
    assert stats["oldest_queued_seconds"] is not None and stats["oldest_queued_seconds"] >= 0
    assert (stats["expired_leases"], stats["live_workers"], stats["dead_workers"]) == (0, 1, 0)
    assert "oldest queued job" in succeeded(run_cli(database_url, "jobs", "stats")).output


def test_workers_json_shows_live_dead_and_stopped_workers(database_url: str, conn: Conn) -> None:
    conn.execute("""
        INSERT INTO workers (id, host, pid, pools, threads, last_seen_at, stopped_at) VALUES
            ('w-live', 'h1', 1, '{ocr}', 2, now(), NULL),
            ('w-dead', 'h2', 2, '{ocr}', 2, now() - interval '1 hour', NULL),
            ('w-stopped', 'h3', 3, '{ocr}', 2, now(), now())
    """)
    rows = json_of(run_cli(database_url, "workers", "--json"))
    assert {row["id"]: row["status"] for row in rows} == {"w-live": "live", "w-dead": "dead", "w-stopped": "stopped"}
    assert {row["id"]: row["pools"] for row in rows}["w-live"] == ["ocr"]
    assert "w-dead" in succeeded(run_cli(database_url, "workers")).output


# --- jobs: writes ----------------------------------------------------------------------------------


def test_jobs_retry_queues_a_failed_job_with_more_attempts(database_url: str, conn: Conn) -> None:
    job_id = failed_job(conn)
    result = succeeded(run_cli(database_url, "jobs", "retry", str(job_id), "--attempts", "2"))
    assert f"job {job_id} queued again" in result.output
    job = get(conn, job_id)
    assert (job["state"], job["attempts"], job["max_attempts"], job["finished_at"]) == ("queued", 1, 3, None)


def test_jobs_retry_of_a_queued_job_fails_and_changes_nothing(database_url: str, conn: Conn) -> None:
    job_id = enqueue(conn, JobSpec(TASK))
    before = get(conn, job_id)
    result = run_cli(database_url, "jobs", "retry", str(job_id))
    assert result.exit_code == 1
    assert "only failed or cancelled jobs can be retried" in flat(result.output)
    assert get(conn, job_id) == before


def test_jobs_cancel_cancels_queued_and_running_jobs(database_url: str, conn: Conn) -> None:
    queued_id, running_id = enqueue_many(conn, [JobSpec(TASK), JobSpec(TASK)])
    claim(conn, worker_id="w1", types=[TASK], limit=1, lease_seconds=30)
    result = succeeded(run_cli(database_url, "jobs", "cancel", str(queued_id), str(running_id)))
    assert f"job {queued_id} cancelled" in result.output
    assert (get(conn, queued_id)["state"], get(conn, running_id)["state"]) == ("cancelled", "cancelled")


def test_jobs_cancel_of_an_ended_job_fails_with_its_state(database_url: str, conn: Conn) -> None:
    job_id = failed_job(conn)
    result = run_cli(database_url, "jobs", "cancel", str(job_id))
    assert result.exit_code == 1
    assert f"job {job_id} is failed" in flat(result.output)
    assert get(conn, job_id)["state"] == "failed"


def test_jobs_prune_deletes_old_finished_jobs_only(database_url: str, conn: Conn) -> None:
    conn.execute("""
        INSERT INTO jobs (type, state, attempts, started_at, finished_at)
        SELECT 'test.task', 'succeeded', 1, now() - interval '40 days', now() - interval '30 days'
          FROM generate_series(1, 12)
    """)
    recent_failed = failed_job(conn)
    queued = enqueue(conn, JobSpec(TASK))
    result = succeeded(run_cli(database_url, "jobs", "prune", "--older-than-days", "7"))
    assert "deleted 12 finished job(s) older than 7 day(s)" in flat(result.output)
    remaining = {row[0] for row in conn.execute("SELECT id FROM jobs").fetchall()}
    assert remaining == {recent_failed, queued}
