"""Monitoring as SQL: the queue_stats snapshot (oldest queued age, failures per hour by type, expired
leases, attempts per success, duration percentiles, counts by type) and live/dead/stopped workers."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import psycopg
import pytest

from tenderflow.queue.stats import list_workers, queue_stats
from tests.support.database import db_now

Conn = psycopg.Connection[Any]


def seed_jobs(conn: Conn) -> None:
    """A known mix of jobs, timed relative to the database clock."""
    conn.execute("""
        INSERT INTO jobs (type, state, run_after) VALUES
            ('ocr', 'queued', now() - interval '100 seconds'),
            ('ocr', 'queued', now() - interval '50 seconds'),
            ('ocr', 'queued', now() + interval '100 seconds')
    """)
    conn.execute("""
        INSERT INTO jobs (type, state, attempts, worker_id, started_at, leased_until) VALUES
            ('ocr', 'running', 1, 'w-gone', now() - interval '40 seconds', now() - interval '10 seconds'),
            ('ocr', 'running', 1, 'w-live', now() - interval '5 seconds', now() + interval '20 seconds')
    """)
    # 20 successes lasting 1..20 s; half needed a second attempt
    conn.execute("""
        INSERT INTO jobs (type, state, attempts, started_at, finished_at)
        SELECT 'ocr', 'succeeded', 1 + (d % 2), now() - interval '1000 seconds',
               now() - interval '1000 seconds' + make_interval(secs => d)
          FROM generate_series(1, 20) AS d
    """)
    conn.execute("""
        INSERT INTO jobs (type, state, attempts, started_at, finished_at, last_error) VALUES
            ('extract', 'failed', 1, now() - interval '11 minutes', now() - interval '10 minutes', 'bad'),
            ('extract', 'failed', 1, now() - interval '11 minutes', now() - interval '10 minutes', 'bad'),
            ('extract', 'failed', 1, now() - interval '181 minutes', now() - interval '180 minutes', 'bad'),
            ('extract', 'failed', 1, now() - interval '30 hours', now() - interval '30 hours', 'too old')
    """)


def seed_workers(conn: Conn) -> None:
    conn.execute("""
        INSERT INTO workers (id, host, pid, pools, threads, started_at, last_seen_at, stopped_at) VALUES
            ('w-live', 'h1', 11, '{ocr}', 4, now() - interval '1 hour', now(), NULL),
            ('w-gone', 'h2', 12, '{ocr}', 4, now() - interval '1 hour', now() - interval '10 minutes', NULL),
            ('w-done', 'h3', 13, '{ocr}', 4, now() - interval '1 hour', now() - interval '5 minutes',
             now() - interval '5 minutes'),
            ('w-long-done', 'h4', 14, '{ocr}', 4, now() - interval '3 days', now() - interval '2 days',
             now() - interval '2 days')
    """)


def test_queue_stats_reports_depth_age_failures_leases_attempts_and_durations(conn: Conn) -> None:
    seed_jobs(conn)
    seed_workers(conn)

    stats = queue_stats(conn, dead_after_seconds=60)

    by_type = {row["type"]: row for row in stats.by_type}
    ocr, extract = by_type["ocr"], by_type["extract"]
    assert (ocr["queued"], ocr["runnable"], ocr["running"], ocr["expired_leases"]) == (3, 2, 2, 1)
    assert (ocr["succeeded_last_hour"], ocr["failed_last_hour"]) == (20, 0)
    assert float(ocr["attempts_per_success"]) == pytest.approx(1.5)
    assert ocr["duration_p50_seconds"] == pytest.approx(10.5)
    assert ocr["duration_p95_seconds"] == pytest.approx(19.05)
    assert 100 <= ocr["oldest_queued_seconds"] < 130
    assert (extract["queued"], extract["running"], extract["failed_last_hour"]) == (0, 0, 2)
    assert extract["oldest_queued_seconds"] is None

    failures = [(row["type"], row["failed"]) for row in stats.failures_by_hour]
    assert sorted(failures) == [("extract", 1), ("extract", 2)]  # the 30-hour-old failure is out of range
    assert 100 <= (stats.oldest_queued_seconds or 0) < 130
    assert stats.expired_leases == 1
    assert (stats.live_workers, stats.dead_workers) == (1, 1)
    assert stats.as_dict()["expired_leases"] == 1


def test_queue_stats_of_an_empty_queue(conn: Conn) -> None:
    stats = queue_stats(conn)
    assert (stats.by_type, stats.failures_by_hour, stats.oldest_queued_seconds, stats.expired_leases) == (
        [], [], None, 0)


def test_list_workers_marks_a_silent_worker_dead_by_the_injected_clock(conn: Conn) -> None:
    seed_workers(conn)
    now = db_now(conn)

    def statuses(at: datetime | None) -> dict[str, str]:
        return {row["id"]: row["status"] for row in list_workers(conn, dead_after_seconds=60, now=at)}

    assert statuses(None) == {"w-live": "live", "w-gone": "dead", "w-done": "stopped"}
    assert statuses(now + timedelta(seconds=59)) == {"w-live": "live", "w-gone": "dead", "w-done": "stopped"}
    assert statuses(now + timedelta(seconds=61))["w-live"] == "dead"
    assert statuses(now - timedelta(minutes=11))["w-gone"] == "live"


def test_list_workers_counts_each_workers_running_jobs(conn: Conn) -> None:
    seed_workers(conn)
    seed_jobs(conn)
    running = {row["id"]: row["running_jobs"] for row in list_workers(conn, dead_after_seconds=60)}
    assert running == {"w-live": 1, "w-gone": 1, "w-done": 0}


def outcome_counts(conn: Conn) -> dict[tuple[str, str], tuple[int, int]]:
    """(type, outcome) -> (jobs, timed), the stripes summed, as /metrics reads them."""
    rows = conn.execute("SELECT type, outcome, sum(jobs), sum(timed) FROM job_outcome_counts "
                        "GROUP BY type, outcome").fetchall()
    return {(row[0], row[1]): (int(row[2]), int(row[3])) for row in rows}


def test_every_verb_that_ends_a_job_counts_it_once_and_no_other_transition_does(conn: Conn) -> None:
    from tenderflow.queue import jobs

    def claimed(job_type: str, count: int = 1, worker: str = "w") -> list[jobs.ClaimedJob]:
        return jobs.claim(conn, worker_id=worker, types=[job_type], limit=count, lease_seconds=30)

    specs = [jobs.JobSpec("done")] * 3 + [jobs.JobSpec("retried", max_attempts=2), jobs.JobSpec("refused"),
                                          jobs.JobSpec("lost", max_attempts=1), jobs.JobSpec("stopped"),
                                          jobs.JobSpec("released", max_attempts=1)] + [jobs.JobSpec("swept")] * 2
    jobs.enqueue_many(conn, specs)
    done = claimed("done", 3)
    jobs.heartbeat(conn, done, lease_seconds=30)  # claims and heartbeats end nothing
    assert outcome_counts(conn) == {}
    assert jobs.complete(conn, done) == {job.id for job in done}
    assert jobs.complete(conn, done) == set()  # already succeeded: not counted again
    [retried] = claimed("retried")
    jobs.fail(conn, [jobs.Failure(retried, "flaky", permanent=False, retry_seconds=0)])  # queued again
    [refused] = claimed("refused")
    jobs.fail(conn, [jobs.Failure(refused, "not a PDF", permanent=True, retry_seconds=0)])
    [lost] = claimed("lost")
    later = db_now(conn) + timedelta(minutes=5)
    assert [job.state for job in jobs.reclaim(conn, now=later)] == ["failed"]
    jobs.cancel(conn, jobs.enqueue(conn, jobs.JobSpec("stopped")))  # never claimed: counted, not timed
    [released] = claimed("released")
    conn.execute("UPDATE jobs SET releases = %s WHERE id = %s", (jobs.MAX_RELEASES, released.id))
    assert [job.state for job in jobs.release_ended(conn, [released])] == ["failed"]
    swept = [row[0] for row in conn.execute("SELECT id FROM jobs WHERE type = 'swept' ORDER BY id")]
    [running_swept] = claimed("swept")
    assert len(jobs.cancel_many(conn, swept, reason="endpoint disabled")) == 2  # one queued, one running
    assert jobs.cancel_many(conn, swept, reason="again") == []  # already cancelled: not counted again

    assert outcome_counts(conn) == {
        ("swept", "cancelled"): (2, 1),
        ("done", "succeeded"): (3, 3), ("refused", "failed"): (1, 1), ("lost", "failed"): (1, 1),
        ("stopped", "cancelled"): (1, 0), ("released", "failed"): (1, 1),
    }
    row = conn.execute("SELECT sum(seconds_le[array_length(seconds_le, 1)]) FROM job_outcome_counts "
                       "WHERE type = 'done'").fetchone()
    assert row is not None and row[0] == 3  # every timed success is in the histogram's last bucket


def test_the_duration_histogram_puts_each_job_in_the_first_bucket_whose_bound_it_is_at_most(conn: Conn) -> None:
    """job_outcomes_add (migration 0050: one bucket per duration, by width_bucket) counts as the
    Prometheus `le` buckets mean: a duration equal to a bound is in that bound's bucket, one past the
    last bound in none (but the totals), an untimed job in the totals only; groups stay apart and
    calls add up."""
    bounds = conn.execute("SELECT job_duration_bounds()").fetchone()[0]
    calls = [
        [("a", "succeeded", 0.0), ("a", "succeeded", 0.1), ("a", "succeeded", 0.10000001), ("a", "succeeded", 1.0),
         ("a", "succeeded", 1800.0), ("a", "succeeded", 1800.5), ("a", "succeeded", None), ("a", "failed", 2.5),
         ("b", "succeeded", -0.2)],
        [("a", "succeeded", 0.5), ("a", "succeeded", 29.9), ("b", "cancelled", None)],
    ]
    for call in calls:
        types, outcomes, seconds = (list(column) for column in zip(*call, strict=True))
        conn.execute("SELECT job_outcomes_add(%s::text[], %s::text[], %s::float8[])", (types, outcomes, seconds))
    expected: dict[tuple[str, str], tuple[int, int, float, list[int]]] = {}
    for call in calls:
        for job_type, outcome, duration in call:
            jobs, timed, total, le = expected.get((job_type, outcome), (0, 0, 0.0, [0] * len(bounds)))
            if duration is not None:
                le = [count + (duration <= bound) for count, bound in zip(le, bounds, strict=True)]
            expected[(job_type, outcome)] = (jobs + 1, timed + (duration is not None), total + (duration or 0.0), le)
    rows = conn.execute(
        "SELECT type, outcome, sum(jobs)::int, sum(timed)::int, sum(seconds_sum), "
        "       array_agg(seconds_le) FROM job_outcome_counts GROUP BY 1, 2").fetchall()
    found = {(t, o): (jobs, timed, round(total, 6), [sum(column) for column in zip(*les, strict=True)])
             for t, o, jobs, timed, total, les in rows}
    assert found == {key: (jobs, timed, round(total, 6), le) for key, (jobs, timed, total, le) in expected.items()}
    assert found[("a", "succeeded")][3][:3] == [2, 4, 5]  # 0 and 0.1 by 0.1; 0.10000001 and 0.5 by 0.5; 1.0 by 1
