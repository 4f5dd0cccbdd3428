"""Keeping the jobs table small and cheap: pruning finished jobs in batches, per-table autovacuum
settings, and heartbeats that stay HOT updates."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import psycopg

from tenderflow.queue import JobSpec, claim, enqueue_many, heartbeat, prune
from tests.support.database import db_now

Conn = psycopg.Connection[Any]
DAY = 86_400.0


def insert_finished_jobs(conn: Conn, count: int, *, state: str, finished_days_ago: float) -> None:
    conn.execute("""
        INSERT INTO jobs (type, state, attempts, started_at, finished_at, last_error)
        SELECT 'ocr', %(state)s::job_state, 1, now() - make_interval(days => 30),
               now() - make_interval(secs => %(ago)s * 86400), 'seeded'
          FROM generate_series(1, %(count)s)
    """, {"state": state, "ago": finished_days_ago, "count": count})


def log_delete_statements(conn: Conn) -> None:
    """Record how many rows each DELETE statement on jobs removes."""
    conn.execute("CREATE TABLE test_delete_statements (n integer NOT NULL)")
    conn.execute("""
        CREATE FUNCTION test_log_delete() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO test_delete_statements SELECT count(*) FROM deleted_rows;
            RETURN NULL;
        END $$
    """)
    conn.execute("""
        CREATE TRIGGER test_log_delete AFTER DELETE ON jobs REFERENCING OLD TABLE AS deleted_rows
        FOR EACH STATEMENT EXECUTE FUNCTION test_log_delete()
    """)


def test_prune_deletes_only_finished_jobs_older_than_retention_in_batches(conn: Conn) -> None:
    for state in ("succeeded", "failed", "cancelled"):
        insert_finished_jobs(conn, 50, state=state, finished_days_ago=20)
        insert_finished_jobs(conn, 5, state=state, finished_days_ago=2)
    old_but_open = enqueue_many(conn, [JobSpec("ocr") for _ in range(8)])
    conn.execute("UPDATE jobs SET created_at = now() - interval '60 days', run_after = now() - interval '60 days' "
                 "WHERE id = ANY(%s)", (old_but_open,))
    claim(conn, worker_id="w1", types=["ocr"], limit=3, lease_seconds=30,
          now=db_now(conn) - timedelta(days=59))  # running, started long ago
    log_delete_statements(conn)

    deleted = prune(conn, retention_seconds=14 * DAY, batch_size=7)

    assert deleted == 150
    remaining = dict(conn.execute("SELECT state::text, count(*) FROM jobs GROUP BY state").fetchall())
    assert remaining == {"succeeded": 5, "failed": 5, "cancelled": 5, "queued": 5, "running": 3}
    assert conn.execute("SELECT count(*) FROM jobs WHERE finished_at < now() - interval '14 days'").fetchone() == (0,)
    batches = [n for (n,) in conn.execute("SELECT n FROM test_delete_statements").fetchall()]
    assert max(batches) == 7 and sum(batches) == 150
    assert len(batches) == 150 // 7 + 1


def test_prune_with_injected_now_uses_that_clock(conn: Conn) -> None:
    insert_finished_jobs(conn, 10, state="succeeded", finished_days_ago=2)
    assert prune(conn, retention_seconds=14 * DAY) == 0
    assert prune(conn, retention_seconds=14 * DAY, now=db_now(conn) + timedelta(days=13)) == 10


def test_jobs_table_carries_its_own_autovacuum_settings(conn: Conn) -> None:
    row = conn.execute("SELECT reloptions FROM pg_class WHERE oid = 'jobs'::regclass").fetchone()
    assert row is not None
    options = dict(option.split("=", 1) for option in row[0])
    assert float(options["autovacuum_vacuum_scale_factor"]) <= 0.05
    assert float(options["autovacuum_analyze_scale_factor"]) <= 0.05
    assert "autovacuum_vacuum_threshold" in options
    assert int(options["fillfactor"]) < 100  # room on each page for HOT heartbeats


def test_leased_until_is_not_indexed(conn: Conn) -> None:
    indexes = conn.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'jobs'").fetchall()
    assert indexes and not any("leased_until" in indexdef for (indexdef,) in indexes)


def claim_jobs_on_a_page_with_room(conn: Conn, count: int) -> list[Any]:
    """Claim `count` jobs that share one heap page with room for a few more versions of each.

    A HOT update needs the new row version to fit on the same page. Beyond that room, staying HOT
    depends on page pruning, which any snapshot on the server may hold back for a moment (a
    connection starting up, an autoanalyze): these tests measure the heartbeat, not the server."""
    enqueue_many(conn, [JobSpec("ocr", {"n": n}) for n in range(count)])
    held = claim(conn, worker_id="w1", types=["ocr"], limit=count, lease_seconds=30)
    assert len(held) == count
    pages = conn.execute("SELECT count(DISTINCT (ctid::text::point)[0]) FROM jobs").fetchone()
    assert pages == (1,)
    return held


# 5 jobs of ~140 bytes: their inserted, claimed and 2 heartbeat versions (20 tuples, ~3 KB) fit in one
# 8 KB page WITHOUT any pruning, so HOT-ness here never depends on other sessions' snapshots.
HEARTBEATS_THAT_FIT = 2
JOBS_ON_THE_PAGE = 5


def transaction_update_counts(conn: Conn) -> tuple[int, int]:
    """(updates, HOT updates) on jobs counted by this session and not yet flushed to the statistics."""
    row = conn.execute(
        "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relid = 'jobs'::regclass"
    ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def test_every_heartbeat_is_a_hot_update(conn: Conn) -> None:
    held = claim_jobs_on_a_page_with_room(conn, JOBS_ON_THE_PAGE)
    per_heartbeat = []
    for _ in range(HEARTBEATS_THAT_FIT):
        with conn.transaction():  # nothing is flushed mid-transaction, so the difference is this heartbeat's
            before = transaction_update_counts(conn)
            assert heartbeat(conn, held, lease_seconds=30) == {job.id for job in held}
            after = transaction_update_counts(conn)
        per_heartbeat.append((after[0] - before[0], after[1] - before[1]))
    assert per_heartbeat == [(JOBS_ON_THE_PAGE, JOBS_ON_THE_PAGE)] * HEARTBEATS_THAT_FIT


def test_heartbeats_show_as_hot_updates_in_the_table_statistics(conn: Conn) -> None:
    held = claim_jobs_on_a_page_with_room(conn, JOBS_ON_THE_PAGE)

    def flushed_update_counts() -> tuple[int, int]:
        conn.execute("SELECT pg_stat_force_next_flush()")  # this session's counts, flushed as it goes idle
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass"
        ).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    before = flushed_update_counts()
    for _ in range(HEARTBEATS_THAT_FIT):
        heartbeat(conn, held, lease_seconds=30)
    after = flushed_update_counts()
    assert (after[0] - before[0], after[1] - before[1]) == (JOBS_ON_THE_PAGE * HEARTBEATS_THAT_FIT,) * 2


def test_claim_is_not_hot_but_a_heartbeat_is(conn: Conn) -> None:
    # The control: changing `state` (in the partial indexes' predicates) cannot be HOT, so the
    # counters above do tell HOT from non-HOT updates.
    enqueue_many(conn, [JobSpec("ocr") for _ in range(5)])
    with conn.transaction():
        before = transaction_update_counts(conn)
        held = claim(conn, worker_id="w1", types=["ocr"], limit=5, lease_seconds=30)
        after_claim = transaction_update_counts(conn)
    assert (after_claim[0] - before[0], after_claim[1] - before[1]) == (5, 0)
    with conn.transaction():
        before = transaction_update_counts(conn)
        heartbeat(conn, held, lease_seconds=30)
        after = transaction_update_counts(conn)
    assert (after[0] - before[0], after[1] - before[1]) == (5, 5)


def test_maintenance_prunes_at_most_once_per_interval(conn: psycopg.Connection[Any]) -> None:
    from datetime import UTC, datetime, timedelta

    from tenderflow.queue import JobSpec, JobTypes, enqueue_many
    from tenderflow.queue.maintenance import Maintenance

    job_types = JobTypes()
    job_types.register("noop")
    enqueue_many(conn, [JobSpec("noop") for _ in range(3)], known_types=job_types)
    conn.execute("UPDATE jobs SET state = 'succeeded', attempts = 1, finished_at = now() - interval '2 days'")
    clock = [1000.0]
    maintenance = Maintenance(job_types, retention_seconds=86400)
    assert maintenance.pruner is not None
    maintenance.pruner.clock = lambda: clock[0]
    maintenance.run_once(conn)
    assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (0,)
    enqueue_many(conn, [JobSpec("noop")], known_types=job_types)
    conn.execute("UPDATE jobs SET state = 'succeeded', attempts = 1, finished_at = now() - interval '2 days'")
    clock[0] += 60  # not yet an hour later: no second prune
    maintenance.run_once(conn, now=datetime.now(UTC) + timedelta(seconds=1))
    assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (1,)
    clock[0] += 3600
    maintenance.run_once(conn)
    assert conn.execute("SELECT count(*) FROM jobs").fetchone() == (0,)


def test_the_pruner_forgets_workers_stopped_or_unseen_for_a_week(conn: psycopg.Connection[Any]) -> None:
    """Every process ever started left a `workers` row (its named query to prune them was unused)."""
    from tenderflow.queue.maintenance import Pruner

    register = ("INSERT INTO workers (id, host, pid, pools, threads, kind, started_at, last_seen_at, stopped_at) "
                "VALUES (%s, 'h', 1, '{}', 1, 'local', now() - %s::interval, now() - %s::interval, %s)")
    conn.execute(register, ("gone", "10 days", "9 days", None))
    conn.execute(register, ("stopped-long-ago", "20 days", "8 days", datetime.now() - timedelta(days=8)))
    conn.execute(register, ("stopped-yesterday", "3 days", "1 day", datetime.now() - timedelta(days=1)))
    conn.execute(register, ("alive", "30 days", "1 minute", None))
    Pruner(86400).run_once(conn)
    assert [row[0] for row in conn.execute("SELECT id FROM workers ORDER BY id")] == ["alive", "stopped-yesterday"]
