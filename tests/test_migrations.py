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


def test_migrate_applies_every_file_once(empty_database_url: str) -> None:
    with psycopg.connect(empty_database_url, autocommit=True) as conn:
        first = migrations.migrate(conn)
        second = migrations.migrate(conn)
        recorded = conn.execute("SELECT version, checksum FROM schema_migrations ORDER BY version").fetchall()
    assert [m.version for m in first] == [m.version for m in migrations.available_migrations()]
    assert second == []
    assert recorded == [(m.version, m.checksum) for m in migrations.available_migrations()]


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
    ("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1", migrations.migrate,
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
