"""Claim: fills a worker's free slots in one call, in priority then run_after order, by type, only
runnable jobs, lease from the database clock, served by the partial index, exact per-tenant caps
under concurrency, round robin across tenants."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg import sql

from tenderflow.queue import (
    ClaimedJob,
    Failure,
    JobSpec,
    claim,
    claim_named,
    enqueue,
    enqueue_many,
    fail,
    set_tenant_cap,
    set_tenant_priority,
)
from tenderflow.queue.jobs import CLAIM_LOCK_KEY, QUERIES, complete, get
from tests.support.database import db_now

Conn = psycopg.Connection[Any]
LEASE = 30.0


def claim_for(conn: Conn, *, limit: int = 10, types: list[str] | None = None, now: datetime | None = None,
              default_tenant_cap: int = 0, worker_id: str = "w1") -> list[ClaimedJob]:
    return claim(conn, worker_id=worker_id, types=types or ["ocr"], limit=limit, lease_seconds=LEASE,
                 default_tenant_cap=default_tenant_cap, now=now)


def running_by_tenant(conn: Conn) -> dict[str, int]:
    rows = conn.execute("SELECT tenant, count(*) FROM jobs WHERE state = 'running' GROUP BY tenant").fetchall()
    return {tenant: int(count) for tenant, count in rows}


def queued_jobs_of_type(conn: Conn, kind: str) -> int:
    row = conn.execute("SELECT count(*) FROM jobs WHERE state = 'queued' AND type = %s", (kind,)).fetchone()
    assert row is not None
    return int(row[0])


def test_claim_fills_up_to_limit_in_one_call(conn: Conn) -> None:
    enqueue_many(conn, [JobSpec("ocr", {"n": n}) for n in range(10)])
    first = claim_for(conn, limit=4)
    rest = claim_for(conn, limit=10)
    assert (len(first), len(rest)) == (4, 6)
    assert len({job.id for job in first + rest}) == 10
    assert claim_for(conn, limit=10) == []
    assert running_by_tenant(conn) == {"default": 10}


def test_claim_orders_by_priority_then_run_after(conn: Conn) -> None:
    now = db_now(conn)
    # (priority, seconds before now), enqueued out of order
    shape = [(0, 30), (5, 10), (-1, 40), (5, 20), (0, 35)]
    ids = enqueue_many(conn, [
        JobSpec("ocr", {"p": p, "age": age}, priority=p, run_after=now - timedelta(seconds=age)) for p, age in shape
    ])
    claimed_order = []
    while jobs := claim_for(conn, limit=1, now=now):
        claimed_order.append(jobs[0].id)
    expected = [ids[shape.index(key)] for key in [(5, 20), (5, 10), (0, 35), (0, 30), (-1, 40)]]
    assert claimed_order == expected


def test_claim_takes_only_the_requested_types(conn: Conn) -> None:
    enqueue_many(conn, [JobSpec(kind) for kind in ["ocr", "extract", "ocr", "render", "extract"]])
    assert sorted(job.type for job in claim_for(conn, types=["extract"])) == ["extract", "extract"]
    assert sorted(job.type for job in claim_for(conn, types=["render", "ocr", "missing"])) == ["ocr", "ocr", "render"]


def test_future_job_is_not_claimed_until_now_passes_its_run_after(conn: Conn) -> None:
    now = db_now(conn)
    job_id = enqueue(conn, JobSpec("ocr", run_after=now + timedelta(seconds=60)))
    assert claim_for(conn) == []  # the database clock
    assert claim_for(conn, now=now + timedelta(seconds=59.999)) == []
    [job] = claim_for(conn, now=now + timedelta(seconds=60))
    assert job.id == job_id


def test_each_claim_increments_attempts(conn: Conn) -> None:
    job_id = enqueue(conn, JobSpec("ocr", max_attempts=3))
    [first] = claim_for(conn)
    assert first.attempts == 1 and get(conn, job_id)["attempts"] == 1
    fail(conn, [Failure(first, "try again", permanent=False, retry_seconds=0)])
    [second] = claim_for(conn)
    assert (second.id, second.attempts, second.token) == (job_id, 2, (job_id, 2, second.worker_id))
    assert get(conn, job_id)["attempts"] == 2


def test_lease_is_stamped_from_the_database_clock(conn: Conn) -> None:
    enqueue(conn, JobSpec("ocr"))
    with conn.transaction():
        transaction_now = db_now(conn)  # claim joins this transaction, so its now() is this one
        [job] = claim(conn, worker_id="w1", types=["ocr"], limit=1, lease_seconds=45)
    row = get(conn, job.id)
    assert row["started_at"] == transaction_now
    assert row["leased_until"] == transaction_now + timedelta(seconds=45)
    assert (row["state"], row["worker_id"]) == ("running", "w1")


def test_claim_with_injected_now_leases_from_that_time(conn: Conn) -> None:
    now = db_now(conn) + timedelta(hours=3)
    enqueue(conn, JobSpec("ocr"))
    [job] = claim_for(conn, now=now)
    assert get(conn, job.id)["leased_until"] == now + timedelta(seconds=LEASE)


def test_claim_plan_uses_the_partial_queued_index_not_a_seq_scan(conn: Conn) -> None:
    conn.execute("""
        INSERT INTO jobs (type, tenant, state, attempts, started_at, finished_at)
        SELECT 'ocr', 'tenant' || (i % 7), 'succeeded', 1, now(), now() FROM generate_series(1, 30000) AS i
    """)
    enqueue_many(conn, [JobSpec("ocr", tenant=f"tenant{n % 3}") for n in range(5)])
    conn.execute("ANALYZE jobs")
    params = {"lock_key": CLAIM_LOCK_KEY, "types": ["ocr"], "limit": 10, "worker_id": "w1",
              "lease_seconds": LEASE, "default_tenant_cap": 2, "now": None, "tenants": None}
    plan_rows = conn.execute(sql.SQL("EXPLAIN {}").format(sql.SQL(QUERIES["job_claim"])), params).fetchall()
    plan = "\n".join(row[0] for row in plan_rows)
    assert "jobs_queued_idx" in plan, plan
    assert "Seq Scan on jobs" not in plan, plan
    assert len(claim_for(conn, default_tenant_cap=2)) == 5


def test_concurrent_claims_of_different_pools_fill_each_tenant_exactly_to_its_cap(
    database_url: str, conn: Conn
) -> None:
    # Pools claiming different types pick different rows, so only the cap (not row locks) can stop
    # them from overshooting a tenant together.
    set_tenant_cap(conn, "capped", 3)
    set_tenant_cap(conn, "uncapped", 0)  # an explicit 0 lifts the default cap
    pools = [["ocr"], ["extract"], ["render"], ["ocr", "extract", "render"]] * 2
    enqueue_many(conn, [
        JobSpec(kind, tenant=tenant)
        for tenant in ("capped", "by-default", "uncapped") for kind in ("ocr", "extract", "render") for _ in range(10)
    ])
    round_start = threading.Barrier(len(pools))
    claimed: list[list[ClaimedJob]] = [[] for _ in pools]
    errors: list[BaseException] = []

    def claim_in_lockstep_until_nothing_left(slot: int) -> None:
        try:
            with psycopg.connect(database_url, autocommit=True) as connection:
                for _ in range(40):
                    round_start.wait(30)
                    claimed[slot] += claim_for(connection, limit=1, types=pools[slot], default_tenant_cap=2,
                                               worker_id=f"w{slot}")
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)
            round_start.abort()

    threads = [threading.Thread(target=claim_in_lockstep_until_nothing_left, args=(slot,))
               for slot in range(len(pools))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    everything = [job.id for jobs in claimed for job in jobs]
    assert len(everything) == len(set(everything))  # no job claimed twice
    assert running_by_tenant(conn) == {"capped": 3, "by-default": 2, "uncapped": 30}


def test_tenant_cap_holds_at_every_moment_while_claims_and_completions_interleave(
    database_url: str, conn: Conn
) -> None:
    caps = {"capped": 3, "by-default": 2}
    set_tenant_cap(conn, "capped", 3)
    kinds = ["ocr", "extract", "render"]
    enqueue_many(conn, [JobSpec(kind, tenant=t) for t in caps for kind in kinds for _ in range(20)])
    done = threading.Event()
    peaks: Counter[str] = Counter()
    errors: list[BaseException] = []

    def watch_running_counts() -> None:
        try:
            with psycopg.connect(database_url, autocommit=True) as connection:
                while not done.is_set():
                    for tenant, count in running_by_tenant(connection).items():
                        peaks[tenant] = max(peaks[tenant], count)
        except BaseException as exc:
            errors.append(exc)

    def claim_and_complete(slot: int) -> None:
        kind = kinds[slot % len(kinds)]
        try:
            with psycopg.connect(database_url, autocommit=True) as connection:
                held: list[ClaimedJob] = []
                while True:
                    held += claim_for(connection, limit=2, types=[kind], default_tenant_cap=2, worker_id=f"w{slot}")
                    if held:
                        with connection.transaction():
                            complete(connection, held[:1])
                        held = held[1:]
                    elif not queued_jobs_of_type(connection, kind):
                        return
        except BaseException as exc:
            errors.append(exc)

    watcher = threading.Thread(target=watch_running_counts)
    watcher.start()
    workers = [threading.Thread(target=claim_and_complete, args=(slot,)) for slot in range(6)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(60)
    done.set()
    watcher.join(10)
    assert errors == []
    assert conn.execute("SELECT count(*) FROM jobs WHERE state <> 'succeeded'").fetchone() == (0,)
    above_cap = {tenant: peaks[tenant] for tenant, cap in caps.items() if peaks[tenant] > cap}
    assert above_cap == {}
    assert peaks["capped"] >= 2, "the caps were never approached: the test proves nothing"


def test_claim_serves_tenants_round_robin(conn: Conn) -> None:
    enqueue_many(conn, [JobSpec("ocr", {"n": n}, tenant="big") for n in range(200)])
    enqueue_many(conn, [JobSpec("ocr", {"n": n}, tenant="small") for n in range(5)])  # all younger
    claimed = claim_for(conn, limit=10)
    assert Counter(job.tenant for job in claimed) == {"big": 5, "small": 5}


def test_a_jobs_priority_orders_its_own_tenants_jobs_only(conn: Conn) -> None:
    """Review D5: alpha's uploads at priority 32767 were all claimed before beta's older job."""
    enqueue(conn, JobSpec("ocr", {"n": "beta"}, tenant="beta"))
    enqueue_many(conn, [JobSpec("ocr", {"n": n}, tenant="alpha", priority=32767) for n in range(3)])
    enqueue(conn, JobSpec("ocr", {"n": "alpha-low"}, tenant="alpha", priority=-5))
    claimed = [job.tenant for job in claim_for(conn, limit=2)]
    assert sorted(claimed) == ["alpha", "beta"], "round robin across tenants, whatever their jobs' priority"
    alpha = claim_for(conn, limit=10)
    assert [job.payload["n"] for job in alpha] == [1, 2, "alpha-low"], "within a tenant, priority first"


def test_the_operators_tenant_priority_puts_a_tenant_first(conn: Conn) -> None:
    enqueue_many(conn, [JobSpec("ocr", tenant="big") for _ in range(20)])
    enqueue_many(conn, [JobSpec("ocr", tenant="urgent") for _ in range(5)])
    set_tenant_priority(conn, "urgent", 10)
    assert Counter(job.tenant for job in claim_for(conn, limit=10)) == {"urgent": 5, "big": 5}
    set_tenant_priority(conn, "big", 20)
    enqueue_many(conn, [JobSpec("ocr", tenant="urgent") for _ in range(5)])
    assert Counter(job.tenant for job in claim_for(conn, limit=10)) == {"big": 10}


def claim_named_for(conn: Conn, job_id: int, *, types: list[str] | None = None, now: datetime | None = None,
                    default_tenant_cap: int = 0, tenants: list[str] | None = None,
                    worker_id: str = "w1") -> list[ClaimedJob]:
    return claim_named(conn, job_id, worker_id=worker_id, types=types or ["ocr"], lease_seconds=LEASE,
                       default_tenant_cap=default_tenant_cap, tenants=tenants, now=now)


def test_a_named_claim_takes_that_job_alone_leased_like_any_claim(conn: Conn) -> None:
    older = enqueue(conn, JobSpec("ocr", {"n": "older"}))
    named = enqueue(conn, JobSpec("ocr", {"n": "named"}))
    start = db_now(conn)
    [job] = claim_named_for(conn, named, worker_id="w7")
    assert (job.id, job.payload, job.attempts, job.worker_id) == (named, {"n": "named"}, 1, "w7")
    row = get(conn, named)
    assert row["state"] == "running" and row["leased_until"] >= start + timedelta(seconds=LEASE)
    assert get(conn, older)["state"] == "queued"  # only the job named
    assert claim_named_for(conn, named) == []  # running already: nobody takes it twice


def test_a_named_claim_keeps_the_claims_rules_type_due_tenant_filter(conn: Conn) -> None:
    other_type = enqueue(conn, JobSpec("extract"))
    later = enqueue(conn, JobSpec("ocr", run_after=db_now(conn) + timedelta(minutes=5)))
    of_beta = enqueue(conn, JobSpec("ocr", tenant="beta"))
    assert claim_named_for(conn, other_type) == []
    assert claim_named_for(conn, later) == []
    assert [job.id for job in claim_named_for(conn, later, now=db_now(conn) + timedelta(minutes=6))] == [later]
    assert claim_named_for(conn, of_beta, tenants=["alpha"]) == []
    assert [job.id for job in claim_named_for(conn, of_beta, tenants=["beta"])] == [of_beta]
    assert claim_named_for(conn, 10**12) == []  # no such job


def test_a_named_claim_respects_the_tenants_cap_and_the_default_cap(conn: Conn) -> None:
    set_tenant_cap(conn, "capped", 1)
    first, second = (enqueue(conn, JobSpec("ocr", {"n": n}, tenant="capped")) for n in range(2))
    assert len(claim_named_for(conn, first)) == 1
    assert claim_named_for(conn, second) == []  # capped tenant at its cap
    by_default = [enqueue(conn, JobSpec("ocr", {"n": n}, tenant="plain")) for n in range(3)]
    assert [len(claim_named_for(conn, job_id, default_tenant_cap=2)) for job_id in by_default] == [1, 1, 0]
    set_tenant_cap(conn, "plain", 0)  # an explicit 0 lifts the default cap
    assert len(claim_named_for(conn, by_default[2], default_tenant_cap=2)) == 1


def test_a_named_claim_waits_for_the_claims_lock_so_its_cap_count_sees_every_earlier_claim(
    database_url: str, conn: Conn
) -> None:
    """The cap is exact only if a named claim counts a tenant's running jobs after every claim
    before it committed: it takes the same advisory lock first."""
    set_tenant_cap(conn, "capped", 1)
    job_id = enqueue(conn, JobSpec("ocr", tenant="capped"))
    outcome: list[list[ClaimedJob]] = []
    with psycopg.connect(database_url) as holder:  # a claim in progress elsewhere holds the lock
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (CLAIM_LOCK_KEY,))

        def named_claim() -> None:
            with psycopg.connect(database_url, autocommit=True) as connection:
                outcome.append(claim_named_for(connection, job_id))

        thread = threading.Thread(target=named_claim)
        thread.start()
        thread.join(0.5)
        assert thread.is_alive() and get(conn, job_id)["state"] == "queued", "it must wait for the lock"
        holder.commit()
    thread.join(30)
    assert [[job.id for job in jobs] for jobs in outcome] == [[job_id]]
