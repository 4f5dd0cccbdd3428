"""The migration runner: applies once, records checksums, refuses edits and unknown versions."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, LiteralString

import psycopg
import pytest

from tenderflow import migrations
from tenderflow.errors import MigrationError
from tenderflow.pipeline.versions import VersionState
from tenderflow.queue import JobState
from tenderflow.stages.compute import POOLS
from tenderflow.stages.contract import Pool


def _record(conn: psycopg.Connection[Any], table: LiteralString) -> list[tuple[int, str]]:
    return conn.execute(f"SELECT version, checksum FROM {table} ORDER BY version").fetchall()


def test_migrate_applies_every_file_once_the_queues_line_first(empty_database_url: str) -> None:
    available = migrations.available_migrations()
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        first = migrations.migrate(conn)
        second = migrations.migrate(conn)
        queue_record, application_record = _record(conn, "queue_migrations"), _record(conn, "schema_migrations")
    assert first == available
    assert second == []
    lines = [m.line for m in first]
    assert lines == sorted(lines, key=lambda line: line != "queue") and {"queue", "tenderflow"} == set(lines)
    assert queue_record == [(m.version, m.checksum) for m in available if m.line == "queue"]
    assert application_record == [(m.version, m.checksum) for m in available if m.line == "tenderflow"]


def test_concurrent_migrate_applies_each_file_once(empty_database_url: str) -> None:
    results: list[int] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with psycopg.connect(empty_database_url, autocommit=True) as conn:
                results.append(len(migrations.migrate(conn)))
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(results) == [0, 0, 0, len(migrations.available_migrations())]


@pytest.mark.parametrize(("change", "check", "refusal"), [
    ("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 2", migrations.migrate,
     "edited after it was applied"),
    ("INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, 'future', 'x')",
     migrations.ensure_migrated, "does not know"),
], ids=["edited-applied-migration", "unknown-applied-version"])
def test_a_record_of_applied_migrations_that_the_files_disagree_with_is_refused(
    empty_database_url: str, change: LiteralString, check: Callable[[psycopg.Connection[Any]], object], refusal: str
) -> None:
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        migrations.migrate(conn)
        conn.execute(change)
        with pytest.raises(MigrationError, match=refusal):
            check(conn)


def test_pending_migrations_say_what_to_run(empty_database_url: str) -> None:
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        with pytest.raises(MigrationError, match="tenderflow db migrate"):
            migrations.ensure_migrated(conn)


def test_job_state_enum_matches_database(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    labels = conn.execute(
        "SELECT enumlabel FROM pg_enum WHERE enumtypid = 'job_state'::regtype ORDER BY enumsortorder"
    ).fetchall()
    assert [label for (label,) in labels] == [state.value for state in JobState]


def test_version_state_enum_matches_database(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    labels = conn.execute(
        "SELECT enumlabel FROM pg_enum WHERE enumtypid = 'version_state'::regtype ORDER BY enumsortorder"
    ).fetchall()
    assert [label for (label,) in labels] == [state.value for state in VersionState]


def test_the_pools_are_the_pool_choices() -> None:
    assert set(POOLS) == {pool.value for pool in Pool}


# --- a database migrated before the queue had a line of its own -----------------------------------------

# What `schema_migrations` said of the queue's files before they were moved (version: name, checksum):
# the files' names and SHA-256 when they were the application's, as the runner recorded them.
_BEFORE_THE_QUEUES_LINE = {
    1: ("queue", "4560121a63758819403173ba68aa097dcc17cfb6399ef9baf85cf6cacb472f67"),
    6: ("tenant_priority", "8d323b7372348b41f6301d26b9e7a68d8d3ca8f95fba075a3a625130ffbab02b"),
    8: ("job_releases", "4ca706c66963360a1fe1c1095a89b3cf1e40aad6624dc77e77f7cff39973d859"),
    13: ("job_outcome_counts", "9af31cc70dcec994157278b278993e2f55d724f696d7857a41537398617b6c3f"),
    17: ("watches", "2f1afe41833abb3b238a424446f991d57275308f2e175dae6770e49d426da483"),
    35: ("worker_liveness", "caed907d5bfe621953af36fc7d90fb7b55796a77aeb7ecf686dd18231fc5f27f"),
    40: ("job_outcomes_counted_by_the_verbs", "28b4594946de42ee317440a4e8b8bfdc1d76e4ee819b5ed14b7e5138c64c68d5"),
    50: ("job_outcomes_bucketed_once", "804643a6c7e68b343a4f8a6b8572d2c21fec99a43d6a0cae5d4d8e34b8d9f5a3"),
    55: ("job_type_check_without_a_regex", "d7a0d6161370cf5ec751bcf96bd9c4dee1cd537a528d190b4ff2a0ca3877c6ca"),
    71: ("worker_lock_held", "1a4d565a6efd426cdb91daf07f421a621d51499d5a677a08d9a297b60b77cd10"),
}
_OLD_CREATE = """CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
    checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"""


def _migrate_as_before_the_queues_line(conn: psycopg.Connection[Any], *, up_to: int = 10_000) -> None:
    """Apply the files in the one sequence they had, and record them as the runner did then."""
    queue = {m.name: m for m in migrations.available_migrations() if m.line == "queue"}
    application = {m.version: m for m in migrations.available_migrations() if m.line == "tenderflow"}
    conn.execute(_OLD_CREATE)
    for version in sorted(set(application) | set(_BEFORE_THE_QUEUES_LINE)):
        if version > up_to:
            break
        name, checksum = _BEFORE_THE_QUEUES_LINE.get(version, ("", ""))
        steps = [queue["schedules_remember_their_last_run" if version == 17 else name]] if name else []
        if version in application:  # 0017: the queue's statement first, then the watches
            steps.append(application[version])
            name, checksum = name or application[version].name, checksum or application[version].checksum
        for step in steps:
            conn.execute(step.sql)  # package data
        conn.execute("INSERT INTO schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                     (version, name, checksum))


_CATALOG: tuple[LiteralString, ...] = (
    """SELECT table_name, ordinal_position::text, column_name, data_type, coalesce(column_default, ''), is_nullable
         FROM information_schema.columns WHERE table_schema = 'public'
          AND table_name NOT IN ('schema_migrations', 'queue_migrations')""",
    "SELECT indexname, indexdef, '', '', '', '' FROM pg_indexes WHERE schemaname = 'public'",
    """SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), '', '', ''
         FROM pg_constraint WHERE connamespace = 'public'::regnamespace""",
    """SELECT proname, pg_get_function_identity_arguments(oid), md5(prosrc), '', '', ''
         FROM pg_proc WHERE pronamespace = 'public'::regnamespace""",
    "SELECT tgname, pg_get_triggerdef(oid), '', '', '', '' FROM pg_trigger WHERE NOT tgisinternal",
    "SELECT viewname, definition, '', '', '', '' FROM pg_views WHERE schemaname = 'public'",
    """SELECT t.typname, e.enumsortorder::text, e.enumlabel, '', '', ''
         FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid""",
)


def _catalog(conn: psycopg.Connection[Any]) -> list[tuple[str, ...]]:
    """The schema's tables, columns in order, indexes, constraints, functions, triggers, views, enums."""
    return sorted(row for query in _CATALOG for row in conn.execute(query).fetchall())


@pytest.mark.parametrize("up_to", [10_000, 30], ids=["every-file-applied", "migrated-to-0030"])
def test_a_database_migrated_before_the_queues_line_is_handed_over_and_applied_nothing_twice(
    empty_database_url: str, conn: psycopg.Connection[Any], up_to: int
) -> None:
    with psycopg.connect(empty_database_url, autocommit=True) as old:
        _migrate_as_before_the_queues_line(old, up_to=up_to)
        pending = [m.label for m in migrations.pending_migrations(old)]  # read only: nothing is moved yet
        assert _record(old, "schema_migrations")[0][0] == 1
        applied = migrations.migrate(old)
        assert [m.label for m in applied] == pending
        migrations.ensure_migrated(old)
        queue_record, application_record = _record(old, "queue_migrations"), _record(old, "schema_migrations")
        catalog = _catalog(old)
    available = migrations.available_migrations()
    assert queue_record == [(m.version, m.checksum) for m in available if m.line == "queue"]
    assert application_record == [(m.version, m.checksum) for m in available if m.line == "tenderflow"]
    assert catalog == _catalog(conn)  # the same schema as a database migrated from empty today
    if up_to == 30:
        assert pending[:5] == ["queue/0006_worker_liveness", "queue/0007_job_outcomes_counted_by_the_verbs",
                               "queue/0008_job_outcomes_bucketed_once", "queue/0009_job_type_check_without_a_regex",
                               "queue/0010_worker_lock_held"]
        assert pending[5].startswith("0045_") and all(int(label[:4]) > 30 for label in pending[5:])
    else:
        assert pending == []


def test_a_record_from_before_the_queues_line_with_an_edited_file_is_refused_and_left_as_it_was(
    empty_database_url: str
) -> None:
    with psycopg.connect(empty_database_url, autocommit=True) as old:
        _migrate_as_before_the_queues_line(old)
        old.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 17")
        before = _record(old, "schema_migrations")
        with pytest.raises(MigrationError, match="0017_watches.sql was edited after it was applied"):
            migrations.migrate(old)
        assert _record(old, "schema_migrations") == before
        assert _record(old, "queue_migrations") == []


def test_the_queues_record_refuses_an_edited_or_unknown_file_as_the_applications_does(empty_database_url: str) -> None:
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        migrations.migrate(conn)
        conn.execute("UPDATE queue_migrations SET checksum = 'edited' WHERE version = 6")
        with pytest.raises(MigrationError, match="queue/0006_worker_liveness.sql was edited"):
            migrations.ensure_migrated(conn)
        conn.execute("UPDATE queue_migrations SET checksum = %s WHERE version = 6",
                     (next(m.checksum for m in migrations.available_migrations() if m.label.startswith("queue/0006")),))
        conn.execute("INSERT INTO queue_migrations (version, name, checksum) VALUES (999, 'future', 'x')")
        with pytest.raises(MigrationError, match="does not know: queue/0999"):
            migrations.migrate(conn)
