"""Recurring schedules: one job per period, deduped across concurrent schedulers by unique key,
cron times computed right (in UTC), missed runs collapsed into one catch-up run."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from tenderflow.queue import JobTypes, Schedule, Scheduler
from tenderflow.queue.maintenance import next_run_after

Conn = psycopg.Connection[Any]
T0 = datetime(2030, 1, 1, 10, 7, tzinfo=UTC)  # a Tuesday


def minutes(n: float) -> timedelta:
    return timedelta(minutes=n)


@pytest.fixture
def scheduler() -> Scheduler:
    job_types = JobTypes()
    job_types.register("report")
    return Scheduler(job_types)


def scheduled_jobs(conn: Conn) -> list[tuple[datetime, str]]:
    rows = conn.execute("SELECT run_after, unique_key FROM jobs ORDER BY run_after").fetchall()
    return [(run_after, unique_key) for run_after, unique_key in rows]


def next_run_at(conn: Conn, name: str) -> datetime:
    row = conn.execute("SELECT next_run_at FROM job_schedules WHERE name = %s", (name,)).fetchone()
    assert row is not None
    return row[0]


def wait_until_session_waits_on_a_lock(observer: Conn, application_name: str, timeout: float = 10.0) -> None:
    """Poll pg_stat_activity (from a session outside any transaction: its view is cached per transaction)."""
    deadline = time.monotonic() + timeout
    while not observer.execute(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = %s AND wait_event_type = 'Lock' "
        "AND datname = current_database()",
        (application_name,),
    ).fetchone():
        if time.monotonic() > deadline:
            pytest.fail(f"session {application_name!r} never waited on a lock")
        time.sleep(0.02)


def test_interval_schedule_fires_once_per_period(conn: Conn, scheduler: Scheduler) -> None:
    first = scheduler.upsert(conn, Schedule("digest", "report", {"kind": "daily"}, interval_seconds=60), now=T0)
    assert first == T0 + minutes(1)
    fired = [len(scheduler.run_once(conn, now=T0 + minutes(offset))) for offset in (0.5, 1, 1.5, 1.99, 2, 2, 2.5)]
    assert fired == [0, 1, 0, 0, 1, 0, 0]  # calling twice at the same time does not fire twice
    assert [run_after for run_after, _ in scheduled_jobs(conn)] == [T0 + minutes(1), T0 + minutes(2)]
    row = conn.execute("SELECT type, payload, unique_key FROM jobs ORDER BY run_after LIMIT 1").fetchone()
    assert row == ("report", {"kind": "daily"}, f"schedule:digest:{(T0 + minutes(1)).isoformat()}")


def test_scheduler_blocked_behind_another_schedulers_uncommitted_run_creates_no_second_job(
    database_url: str, conn: Conn, scheduler: Scheduler
) -> None:
    scheduler.upsert(conn, Schedule("digest", "report", {}, interval_seconds=60), now=T0)
    run_time = T0 + minutes(1)
    second_result: list[list[int]] = []
    errors: list[BaseException] = []

    def run_second_scheduler() -> None:
        try:
            with psycopg.connect(database_url, autocommit=True, application_name="test-scheduler-2") as other:
                second_result.append(scheduler.run_once(other, now=run_time))
        except BaseException as exc:  # reported below
            errors.append(exc)

    second = threading.Thread(target=run_second_scheduler)
    with conn.transaction(), psycopg.connect(database_url, autocommit=True) as observer:
        first_ids = scheduler.run_once(conn, now=run_time)
        second.start()  # reads the same due run, then waits on the unique key this transaction holds
        wait_until_session_waits_on_a_lock(observer, "test-scheduler-2")
    second.join(10)

    assert errors == []
    assert second_result == [first_ids]
    assert len(scheduled_jobs(conn)) == 1
    assert next_run_at(conn, "digest") == T0 + minutes(2)


def test_concurrent_schedulers_create_one_job_per_run(database_url: str, conn: Conn, scheduler: Scheduler) -> None:
    scheduler.upsert(conn, Schedule("digest", "report", {}, interval_seconds=60), now=T0)
    schedulers = 4
    in_step = threading.Barrier(schedulers)
    errors: list[BaseException] = []

    def fire_every_minute() -> None:
        try:
            with psycopg.connect(database_url, autocommit=True) as connection:
                for minute in range(1, 6):
                    in_step.wait(30)
                    scheduler.run_once(connection, now=T0 + minutes(minute))
        except BaseException as exc:
            errors.append(exc)
            in_step.abort()

    threads = [threading.Thread(target=fire_every_minute) for _ in range(schedulers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert [run_after for run_after, _ in scheduled_jobs(conn)] == [T0 + minutes(m) for m in range(1, 6)]


@pytest.mark.parametrize(("cron", "after", "expected"), [
    ("*/15 * * * *", T0, [T0.replace(minute=15), T0.replace(minute=30), T0.replace(minute=45)]),
    ("0 3 * * *", T0, [datetime(2030, 1, d, 3, 0, tzinfo=UTC) for d in (2, 3, 4)]),
    ("30 9 * * mon", T0, [datetime(2030, 1, d, 9, 30, tzinfo=UTC) for d in (7, 14, 21)]),
    ("0 0 1 * *", T0, [datetime(2030, m, 1, tzinfo=UTC) for m in (2, 3, 4)]),
], ids=["every-15-min", "daily-3am", "mondays", "monthly"])
def test_cron_next_run_times(cron: str, after: datetime, expected: list[datetime]) -> None:
    times = []
    for _ in expected:
        after = next_run_after(after=after, interval_seconds=None, cron=cron)
        times.append(after)
    assert times == expected


def test_cron_schedule_enqueues_at_its_cron_times(conn: Conn, scheduler: Scheduler) -> None:
    assert scheduler.upsert(conn, Schedule("quarterly", "report", {}, cron="*/15 * * * *"), now=T0) == (
        T0.replace(minute=15))
    assert scheduler.run_once(conn, now=T0.replace(minute=14)) == []
    assert len(scheduler.run_once(conn, now=T0.replace(minute=15))) == 1
    assert next_run_at(conn, "quarterly") == T0.replace(minute=30)
    assert len(scheduler.run_once(conn, now=T0.replace(minute=31))) == 1
    assert [run_after for run_after, _ in scheduled_jobs(conn)] == [T0.replace(minute=15), T0.replace(minute=30)]


def test_cron_schedule_runs_at_utc_times_whatever_the_session_time_zone(conn: Conn, scheduler: Scheduler) -> None:
    conn.execute("SET TimeZone = 'America/New_York'")
    first = scheduler.upsert(conn, Schedule("nightly", "report", {}, cron="0 3 * * *"), now=T0)
    assert first == datetime(2030, 1, 2, 3, 0, tzinfo=UTC)
    scheduler.run_once(conn, now=first)
    scheduler.run_once(conn, now=first + timedelta(days=1))
    assert next_run_at(conn, "nightly") == first + timedelta(days=2)
    assert [run_after for run_after, _ in scheduled_jobs(conn)] == [first, first + timedelta(days=1)]


def test_missed_interval_runs_collapse_into_one_catch_up_run(conn: Conn, scheduler: Scheduler) -> None:
    scheduler.upsert(conn, Schedule("digest", "report", {}, interval_seconds=60), now=T0)
    back_at = T0 + minutes(10) + timedelta(seconds=5)  # nothing ran for ten periods
    assert len(scheduler.run_once(conn, now=back_at)) == 1
    assert scheduler.run_once(conn, now=back_at) == []
    assert next_run_at(conn, "digest") == T0 + minutes(11)  # the next future time on the grid
    assert len(scheduler.run_once(conn, now=T0 + minutes(11))) == 1
    assert [run_after for run_after, _ in scheduled_jobs(conn)] == [T0 + minutes(1), T0 + minutes(11)]


def test_missed_cron_runs_collapse_into_one_catch_up_run(conn: Conn, scheduler: Scheduler) -> None:
    scheduler.upsert(conn, Schedule("quarterly", "report", {}, cron="*/15 * * * *"), now=T0)
    back_at = T0.replace(hour=13, minute=2)
    assert len(scheduler.run_once(conn, now=back_at)) == 1
    assert scheduler.run_once(conn, now=back_at) == []
    assert next_run_at(conn, "quarterly") == T0.replace(hour=13, minute=15)
    assert [run_after for run_after, _ in scheduled_jobs(conn)] == [T0.replace(minute=15)]


def test_disabled_by_nothing_a_schedule_upsert_replaces_its_rule(conn: Conn, scheduler: Scheduler) -> None:
    scheduler.upsert(conn, Schedule("digest", "report", {}, interval_seconds=60), now=T0)
    scheduler.upsert(conn, Schedule("digest", "report", {}, interval_seconds=3600), now=T0)
    assert next_run_at(conn, "digest") == T0 + timedelta(hours=1)
    assert conn.execute("SELECT count(*) FROM job_schedules").fetchone() == (1,)


@pytest.mark.parametrize(("schedule", "message"), [
    (Schedule("x", "unknown", {}, interval_seconds=60), "unknown job type"),
    (Schedule("x", "report", {}), "exactly one"),
    (Schedule("x", "report", {}, interval_seconds=60, cron="* * * * *"), "exactly one"),
    (Schedule("x", "report", {}, cron="every tuesday"), "not a valid cron"),
], ids=["unknown-type", "no-rule", "two-rules", "bad-cron"])
def test_invalid_schedule_is_refused(conn: Conn, scheduler: Scheduler, schedule: Schedule, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        scheduler.upsert(conn, schedule, now=T0)
    assert conn.execute("SELECT count(*) FROM job_schedules").fetchone() == (0,)
