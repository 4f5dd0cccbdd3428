"""Enqueue: joins the caller's transaction, idempotent by unique_key, many jobs in one statement,
bad input refused with nothing written, NOTIFY delivered only when the caller commits."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from tenderflow.errors import EnqueueError
from tenderflow.queue import JobSpec, JobTypes, enqueue, enqueue_many
from tenderflow.queue.jobs import NOTIFY_CHANNEL, get, parse_notification

Conn = psycopg.Connection[Any]


@pytest.fixture
def job_types() -> JobTypes:
    registry = JobTypes()
    registry.register("ocr")
    registry.register("extract")
    return registry


@pytest.fixture
def listener(database_url: str) -> Iterator[Conn]:
    """A second connection LISTENing on the queue's channel."""
    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute(psycopg.sql.SQL("LISTEN {}").format(psycopg.sql.Identifier(NOTIFY_CHANNEL)))
        yield connection


def notifications(listener: Conn, *, timeout: float) -> list[str]:
    """Payloads delivered to `listener` within `timeout` seconds (returns early after the first)."""
    return [n.payload for n in listener.notifies(timeout=timeout, stop_after=1)]


def job_count(conn: Conn) -> int:
    row = conn.execute("SELECT count(*) FROM jobs").fetchone()
    assert row is not None
    return int(row[0])


def test_enqueue_rolled_back_with_the_callers_transaction_leaves_no_job(conn: Conn, job_types: JobTypes) -> None:
    with conn.transaction():
        job_id = enqueue(conn, JobSpec("ocr", {"document_id": 7}), known_types=job_types)
        assert get(conn, job_id)["state"] == "queued"  # visible inside the caller's transaction
        raise psycopg.Rollback()
    assert job_count(conn) == 0


def test_enqueue_commits_with_the_callers_transaction(database_url: str, conn: Conn, job_types: JobTypes) -> None:
    with psycopg.connect(database_url, autocommit=True) as other:
        with conn.transaction():
            conn.execute("CREATE TABLE test_orders (id int PRIMARY KEY)")
            conn.execute("INSERT INTO test_orders VALUES (7)")
            job_id = enqueue(conn, JobSpec("ocr", {"document_id": 7}), known_types=job_types)
            assert job_count(other) == 0  # not visible before the caller commits
        assert get(other, job_id)["payload"] == {"document_id": 7}


def test_unique_key_makes_enqueue_idempotent(conn: Conn, job_types: JobTypes) -> None:
    spec = JobSpec("ocr", {"document_id": 7}, unique_key="ocr:7")
    first = enqueue(conn, spec, known_types=job_types)
    second = enqueue(conn, JobSpec("ocr", {"document_id": 8}, unique_key="ocr:7"), known_types=job_types)
    assert second == first
    assert job_count(conn) == 1
    assert get(conn, first)["payload"] == {"document_id": 7}  # the first enqueue wins


def test_batch_enqueue_with_repeated_and_existing_keys_returns_one_id_per_spec(conn: Conn) -> None:
    existing = enqueue(conn, JobSpec("ocr", {"n": 0}, unique_key="k0"))
    ids = enqueue_many(conn, [
        JobSpec("ocr", {"n": 1}),
        JobSpec("ocr", {"n": 2}, unique_key="k0"),
        JobSpec("ocr", {"n": 3}, unique_key="k3"),
        JobSpec("ocr", {"n": 4}, unique_key="k3"),
        JobSpec("ocr", {"n": 5}),
    ])
    assert ids[1] == existing
    assert ids[2] == ids[3] != existing
    assert len({ids[0], ids[2], ids[4], existing}) == 4
    assert [get(conn, job_id)["payload"]["n"] for job_id in ids] == [1, 0, 3, 3, 5]
    assert job_count(conn) == 4


def test_batch_enqueue_inserts_every_job_in_one_statement(conn: Conn) -> None:
    specs = [JobSpec("ocr", {"n": n}, tenant=f"t{n % 3}", priority=n % 4) for n in range(300)]
    ids = enqueue_many(conn, specs)
    assert len(set(ids)) == 300
    # Rows written by one statement share the transaction id and the command id.
    assert conn.execute("SELECT count(DISTINCT xmin::text), count(DISTINCT cmin::text) FROM jobs").fetchone() == (1, 1)
    rows = conn.execute("SELECT id, payload, tenant, priority FROM jobs").fetchall()
    by_id = {row[0]: row[1:] for row in rows}
    assert [by_id[job_id] for job_id in ids] == [({"n": s.payload["n"]}, s.tenant, s.priority) for s in specs]


def test_enqueue_applies_defaults_and_the_registry_default_attempts(conn: Conn) -> None:
    job_id = enqueue(conn, JobSpec("ocr"), default_max_attempts=7)
    job = get(conn, job_id)
    assert (job["state"], job["attempts"], job["max_attempts"], job["tenant"], job["priority"]) == (
        "queued", 0, 7, "default", 0)
    assert job["payload"] == {}


class NotJson:
    pass


@pytest.mark.parametrize(("bad_spec", "message"), [
    (JobSpec("ocr", {"file": NotJson()}), "not JSON-serialisable"),
    (JobSpec("ocr", {"ratio": float("nan")}), "not JSON-serialisable"),
    (JobSpec("ocr", {"blob": "x" * 70_000}), "bytes"),
    (JobSpec("render"), "unknown job type 'render'"),
    (JobSpec("ocr", max_attempts=0), "max_attempts must be a positive integer"),
    (JobSpec("ocr", max_attempts=-3), "max_attempts must be a positive integer"),
    (JobSpec("ocr", tenant=""), "tenant"),
], ids=["object", "nan", "too-large", "unknown-type", "zero-attempts", "negative-attempts", "empty-tenant"])
def test_bad_input_raises_enqueue_error_and_writes_nothing(
    conn: Conn, job_types: JobTypes, listener: Conn, bad_spec: JobSpec, message: str
) -> None:
    good = JobSpec("ocr", {"document_id": 1})
    with pytest.raises(EnqueueError, match=message):
        enqueue_many(conn, [good, bad_spec, good], known_types=job_types)
    assert job_count(conn) == 0
    assert notifications(listener, timeout=0.2) == []


def test_notify_is_delivered_only_when_the_enqueue_commits(conn: Conn, job_types: JobTypes, listener: Conn) -> None:
    with conn.transaction():
        job_id = enqueue(conn, JobSpec("ocr"), known_types=job_types)
        assert notifications(listener, timeout=0.3) == []  # nothing while the transaction is open
    assert notifications(listener, timeout=5) == [f"ocr:{job_id}"]


def test_rolled_back_enqueue_notifies_nobody(conn: Conn, job_types: JobTypes, listener: Conn) -> None:
    with conn.transaction():
        enqueue(conn, JobSpec("extract"), known_types=job_types)
        raise psycopg.Rollback()
    assert notifications(listener, timeout=0.5) == []
    job_id = enqueue(conn, JobSpec("ocr"), known_types=job_types)  # the channel itself works
    assert notifications(listener, timeout=5) == [f"ocr:{job_id}"]


def test_enqueue_notifies_once_per_job_type_in_the_batch(conn: Conn, listener: Conn) -> None:
    enqueue_many(conn, [JobSpec("ocr"), JobSpec("extract"), JobSpec("ocr")])
    payloads = [n.payload for n in listener.notifies(timeout=0.5, stop_after=3)]
    assert sorted(payloads) == ["extract", "ocr"]  # no ids: a batch is claimed by the usual search


def test_a_job_due_later_wakes_nobody_and_a_batch_notifies_only_the_types_due_now(conn: Conn, listener: Conn) -> None:
    """A wake-up for a job not yet due finds nothing to claim: the workers' polls take it when due."""
    later = datetime.now(UTC) + timedelta(hours=1)
    enqueue(conn, JobSpec("ocr", run_after=later))
    enqueue_many(conn, [JobSpec("ocr", run_after=later), JobSpec("extract", run_after=later)])
    assert notifications(listener, timeout=0.5) == []
    enqueue_many(conn, [JobSpec("ocr", run_after=later), JobSpec("extract")])
    assert [n.payload for n in listener.notifies(timeout=0.5, stop_after=2)] == ["extract"]
    # the clock a test passes decides what is due, as it does for claims
    job_id = enqueue(conn, JobSpec("ocr", run_after=later), now=later)
    assert notifications(listener, timeout=5) == [f"ocr:{job_id}"]


def test_a_notification_names_the_type_and_for_a_job_enqueued_alone_its_id() -> None:
    assert parse_notification("ocr.pages:1234") == ("ocr.pages", 1234)
    assert parse_notification("ocr.pages") == ("ocr.pages", None)
    assert parse_notification("extract:") == ("extract", None)
    assert parse_notification("extract:12x") == ("extract", None)  # not an id: claimed as usual


def statements_sent(conn: Conn, tmp_path: Any, action: Any) -> list[str]:
    """The messages the client sent to the server while `action()` ran (libpq's protocol trace)."""
    trace = tmp_path / "libpq.trace"
    with trace.open("w") as file:
        conn.pgconn.trace(file.fileno())
        try:
            action()
        finally:
            conn.pgconn.untrace()
    fields = [line.split("\t") for line in trace.read_text().splitlines()]
    return [field[3] for field in fields if len(field) > 3 and field[1] == "F"]


def test_single_enqueue_on_an_autocommit_connection_is_one_round_trip(
    conn: Conn, listener: Conn, tmp_path: Any
) -> None:
    sent = statements_sent(conn, tmp_path, lambda: enqueue(conn, JobSpec("ocr", {"document": 7})))
    # One statement (Parse/Bind/Describe/Execute once, one Sync): the insert and its NOTIFY, no BEGIN/COMMIT.
    assert sent.count("Sync") + sent.count("Query") == 1 and sent.count("Execute") == 1, sent
    job_id = conn.execute("SELECT id FROM jobs").fetchone()
    assert job_id is not None and notifications(listener, timeout=2.0) == [f"ocr:{job_id[0]}"]
    assert job_count(conn) == 1


def test_the_database_takes_exactly_the_job_types_of_the_rule_a_letter_then_letters_digits_and_dots(
    conn: Conn,
) -> None:
    """jobs_type_check (migration 0055: no regular expression) lets in what '^[a-z][a-z0-9_.-]{0,62}$'
    does, whatever the database's collation: no capital, no accent, no space, 63 characters at most."""
    rule = re.compile(r"[a-z][a-z0-9_.-]{0,62}")
    candidates = ["ocr.pages", "a", "webhook.deliver", "x" * 63, "x" * 64, "", "Ocr", "ocR", "1ocr", "_ocr",
                  ".ocr", "-a", "ocr pages", "ocré", "éocr", "ocr/pages", "a" + "b" * 62, "zz-9_.x", "ocr\n",
                  "B", "b", "ocr.pages.", "ǆ", "a\u0301"]
    for candidate in candidates:
        try:
            with conn.transaction():
                conn.execute("INSERT INTO jobs (type) VALUES (%s)", (candidate,))
            taken = True
        except psycopg.errors.CheckViolation:
            taken = False
        assert taken == bool(rule.fullmatch(candidate)), candidate
