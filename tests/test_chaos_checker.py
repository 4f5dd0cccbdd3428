"""The chaos run's checker (bench/chaos_checker.py) can fail: a final state built by hand, right, then
broken one way at a time (a missing page, a duplicate, a leaked reservation, an orphan object, an
expired lease...), and the matching count rises while the others stay 0. Where the schema itself
forbids the broken state (a primary key, a CHECK), the test drops that constraint first: the
checker must not lean on the product's constraints, which are what it checks. And the tool
processes left alive are found, also when their parent died."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench.chaos_checker import (
    SECTIONS,
    Expected,
    check_state,
    leaked_tool_processes,
    nonzero,
    totals,
)

ROOT = Path(__file__).resolve().parent.parent

BUCKET = "chaos-test"
SHA = "a" * 64
OTHER_SHA = "b" * 64
KEY = f"tenants/alpha/pdf/aa/{SHA}.pdf"

SEARCHABLE = f"tenants/alpha/derived/aa/{SHA}/v1.pdf"

Conn = psycopg.Connection[Any]

# What deleting document 1 leaves (pipeline.deletion): its record, no rows (they cascade).
DELETED = (f"INSERT INTO document_deletions (document_id, tenant, sha256, size_bytes, uploaded_at, reason)"
           f" VALUES (1, 'alpha', '{SHA}', 1000, now(), 'request'); DELETE FROM documents")

GOOD_STATE = f"""
INSERT INTO tenants (name, balance) VALUES ('alpha', 92);
INSERT INTO credit_entries (tenant, kind, amount, entry_key) VALUES ('alpha', 'grant', 100, 'grant:1');
INSERT INTO documents (tenant, sha256, filename, size_bytes, storage_url, latest_version, current_version)
     VALUES ('alpha', '{SHA}', 'a.pdf', 1000, 's3://{BUCKET}/{KEY}', 1, 1);
INSERT INTO document_versions (document_id, version, state, pages_version, page_count, batch_count, finished_at)
     VALUES (1, 1, 'done', 1, 2, 1, now());
INSERT INTO version_prices (document_id, version, price_per_document, price_per_page, price_per_1k_tokens)
     VALUES (1, 1, 4, 1, 1);
INSERT INTO pages (document_id, version, page_number, text, source, seconds)
     VALUES (1, 1, 1, 'page one', 'text_layer', 0.1), (1, 1, 2, 'page two', 'ocr', 1.5);
INSERT INTO ocr_batches (document_id, version, first_page, last_page) VALUES (1, 1, 2, 2);
INSERT INTO extractions (document_id, version, fields, backend) VALUES (1, 1, '{{}}', 'openai');
INSERT INTO credit_entries (tenant, kind, amount, entry_key, document_id, version)
     VALUES ('alpha', 'reserve', 10, 'reserve:1:1', 1, 1), ('alpha', 'charge', 8, 'charge:1:1', 1, 1);
INSERT INTO jobs (type, payload, tenant, state, attempts, max_attempts, started_at, finished_at)
     VALUES ('ocr.plan', '{{"document_id": 1, "version": 1}}', 'alpha', 'succeeded', 1, 6, now(), now()),
            ('ocr.pages', '{{"document_id": 1, "version": 1, "pages": [2]}}', 'alpha', 'succeeded', 2, 6, now(), now()),
            ('extract', '{{"document_id": 1, "version": 1}}', 'alpha', 'succeeded', 1, 6, now(), now());
"""


def expected(**changes: Any) -> Expected:
    base: dict[str, Any] = {"documents": {("alpha", SHA): 1}, "versions": {1: 1}}
    return Expected(**{**base, **changes})


def good_state(conn: Conn) -> None:
    conn.execute(GOOD_STATE)


def run(conn: Conn, keys: set[str] | None = None, want: Expected | None = None) -> dict[str, Any]:
    return check_state(conn, {KEY} if keys is None else keys, bucket=BUCKET, expected=want or expected())


def test_the_right_final_state_counts_nothing(conn: Conn) -> None:
    good_state(conn)
    report = run(conn)
    assert totals(report) == dict.fromkeys(SECTIONS, 0), nonzero(report)
    assert report["versions"] == {"done": 1} and report["pages"] == 2 and report["objects"] == 1


# (what is broken, SQL that breaks it, the Expected and stored keys the harness would pass, the
# counts that must rise). Each case starts from GOOD_STATE.
CASES: list[tuple[str, str, dict[str, Any], set[str] | None, dict[str, int]]] = [
    ("a page missing", "DELETE FROM pages WHERE page_number = 2", {}, None,
     {"lost.done_version_missing_pages": 1}),
    ("a page stored twice", "ALTER TABLE pages DROP CONSTRAINT pages_pkey;"
     " INSERT INTO pages (document_id, version, page_number, text, source, seconds)"
     " VALUES (1, 1, 2, 'page two', 'ocr', 1.5)", {}, None, {"duplicated.pages_stored_twice": 1}),
    ("a page beyond the page count", "INSERT INTO pages (document_id, version, page_number, text, source, seconds)"
     " VALUES (1, 1, 3, 'page three', 'ocr', 1.0)", {}, None, {"duplicated.pages_beyond_page_count": 1}),
    ("an extraction missing", "DELETE FROM extractions", {}, None, {"lost.done_version_without_extraction": 1}),
    ("an extraction stored twice", "ALTER TABLE extractions DROP CONSTRAINT extractions_pkey;"
     " INSERT INTO extractions (document_id, version, fields, backend) VALUES (1, 1, '{}', 'openai')", {}, None,
     {"duplicated.extractions_stored_twice": 1}),
    ("a done version readers do not see", "UPDATE documents SET current_version = NULL", {}, None,
     {"lost.done_version_not_current": 1}),
    ("an accepted upload without its document", "", {"documents": {("alpha", SHA): 1, ("alpha", OTHER_SHA): 2}},
     None, {"lost.accepted_without_document": 1}),
    ("a document nobody was told about",
     f"INSERT INTO documents (tenant, sha256, filename, size_bytes, storage_url, latest_version)"
     f" VALUES ('alpha', '{OTHER_SHA}', 'b.pdf', 10, 's3://{BUCKET}/b', 1);"
     " INSERT INTO document_versions (document_id, version, state, pages_version, error, finished_at)"
     " VALUES (2, 1, 'failed', 1, 'refused', now())", {}, {KEY, "b"}, {"duplicated.document_not_accepted": 1}),
    ("two documents for the same bytes", "ALTER TABLE documents DROP CONSTRAINT documents_tenant_sha256_key;"
     f" INSERT INTO documents (tenant, sha256, filename, size_bytes, storage_url, latest_version)"
     f" VALUES ('alpha', '{SHA}', 'a.pdf', 1000, 's3://{BUCKET}/{KEY}', 1);"
     " INSERT INTO document_versions (document_id, version, state, pages_version, error, finished_at)"
     " VALUES (2, 1, 'failed', 1, 'x', now())", {"documents": {("alpha", SHA): 1}}, None,
     {"duplicated.documents_for_same_bytes": 1, "duplicated.document_not_accepted": 1}),
    ("a version more than was asked for",
     "INSERT INTO document_versions (document_id, version, state, pages_version, error, finished_at)"
     " VALUES (1, 2, 'failed', 2, 'x', now()); UPDATE documents SET latest_version = 2", {}, None,
     {"duplicated.versions_beyond_expected": 1}),
    ("a reprocess granted but its version missing", "", {"versions": {1: 2}}, None, {"lost.versions_missing": 1}),
    ("a document without its latest version's row", "UPDATE documents SET latest_version = 2", {"versions": {1: 2}},
     None, {"lost.document_without_latest_version": 1}),
    ("a stage job that succeeded twice",
     "INSERT INTO jobs (type, payload, tenant, state, attempts, max_attempts, started_at, finished_at)"
     " VALUES ('extract', '{\"document_id\": 1, \"version\": 1}', 'alpha', 'succeeded', 1, 6, now(), now())",
     {}, None, {"duplicated.stage_job_succeeded_twice": 1}),
    ("an OCR batch beyond the plan", "INSERT INTO ocr_batches (document_id, version, first_page, last_page)"
     " VALUES (1, 1, 1, 1)", {}, None, {"duplicated.ocr_batches_beyond_batch_count": 1}),
    ("a version not final",
     "INSERT INTO document_versions (document_id, version, state, pages_version) VALUES (1, 2, 'ocr', 2);"
     " UPDATE documents SET latest_version = 2", {"versions": {1: 2}}, None, {"stuck.version_not_final": 1}),
    ("a failed version without a reason",
     "INSERT INTO document_versions (document_id, version, state, pages_version, error, finished_at)"
     " VALUES (1, 2, 'failed', 2, '  ', now()); UPDATE documents SET latest_version = 2", {"versions": {1: 2}},
     None, {"stuck.failed_without_reason": 1}),
    ("a job still queued", "INSERT INTO jobs (type, payload, tenant) VALUES ('webhook.deliver', '{}', 'alpha')",
     {}, None, {"stuck.job_queued_or_running": 1}),
    ("a running job with an expired lease",
     "INSERT INTO jobs (type, tenant, state, attempts, leased_until, worker_id, started_at)"
     " VALUES ('extract', 'alpha', 'running', 1, now() - interval '1 minute', 'w', now())", {}, None,
     {"stuck.job_queued_or_running": 1, "stuck.running_with_expired_lease": 1}),
    ("attempts above max_attempts", "ALTER TABLE jobs DROP CONSTRAINT jobs_attempts_within_budget;"
     " UPDATE jobs SET attempts = 7 WHERE type = 'extract'", {}, None,
     {"stuck.attempts_above_max": 1, "stuck.attempts_beyond_budget": 1}),
    ("claims beyond the configured budget (max_attempts raised by releases)",
     "UPDATE jobs SET attempts = 8, max_attempts = 8, releases = 1 WHERE type = 'extract'", {}, None,
     {"stuck.attempts_beyond_budget": 1}),
    ("a balance that is not the ledger's", "UPDATE tenants SET balance = balance + 5 WHERE name = 'alpha'", {}, None,
     {"credit_leaks.balance_not_ledger": 1}),
    ("a tenant below zero", "ALTER TABLE tenants DROP CONSTRAINT tenants_balance_covers_reservations;"
     " UPDATE tenants SET balance = -1 WHERE name = 'alpha';"
     " INSERT INTO credit_entries (tenant, kind, amount, entry_key) VALUES ('alpha', 'adjust', -93, 'adjust:1')",
     {}, None, {"credit_leaks.below_zero": 1}),
    ("a leaked reservation on a finished version",
     "INSERT INTO document_versions (document_id, version, state, pages_version, error, finished_at)"
     " VALUES (1, 2, 'failed', 2, 'x', now()); UPDATE documents SET latest_version = 2;"
     " INSERT INTO credit_entries (tenant, kind, amount, entry_key, document_id, version)"
     " VALUES ('alpha', 'reserve', 4, 'reserve:1:2', 1, 2); UPDATE tenants SET balance = 88 WHERE name = 'alpha'",
     {"versions": {1: 2}}, None, {"credit_leaks.open_reservation_on_finished_version": 1}),
    ("a reservation left on a version that is gone",
     "INSERT INTO credit_entries (tenant, kind, amount, entry_key, document_id, version)"
     " VALUES ('alpha', 'reserve', 4, 'reserve:1:5', 1, 5);"
     " UPDATE tenants SET balance = 88 WHERE name = 'alpha'", {}, None,
     {"credit_leaks.open_reservation_without_version": 1}),
    ("a version charged twice", "DROP INDEX credit_entries_one_close_per_version;"
     " INSERT INTO credit_entries (tenant, kind, amount, entry_key, document_id, version)"
     " VALUES ('alpha', 'charge', 2, 'charge:1:1:again', 1, 1);"
     " UPDATE tenants SET balance = 90 WHERE name = 'alpha'", {}, None,
     {"credit_leaks.version_closed_twice": 1}),
    ("a done version never charged", "DELETE FROM credit_entries WHERE kind IN ('reserve', 'charge');"
     " UPDATE tenants SET balance = 100 WHERE name = 'alpha'", {}, None, {"credit_leaks.done_version_not_charged": 1}),
    ("an object no document refers to", "", {}, {KEY, "tenants/alpha/pdf/cc/orphan.pdf"},
     {"orphans.object_without_document": 1}),
    ("a document whose object is gone", "", {}, set(), {"lost.document_object_missing": 1}),
    ("a document deleted by the workload still there", "", {"deleted": frozenset({1})}, None,
     {"orphans.deleted_document_still_there": 1}),
    ("a deleted document whose object stayed", DELETED + "; UPDATE document_deletions SET object_done_at = now(),"
     " object_kept = false", {"deleted": frozenset({1})}, None, {"orphans.object_without_document": 1}),
    ("a deletion nobody asked for", DELETED + "; UPDATE document_deletions SET object_done_at = now(),"
     " object_kept = false", {}, set(), {"lost.deleted_unasked": 1, "lost.accepted_without_document": 1}),
    ("a deletion whose stored PDF was never dealt with", DELETED, {"deleted": frozenset({1})}, set(),
     {"stuck.deletion_object_pending": 1}),
    ("an object only a version's searchable copy refers to, gone with the version",
     DELETED + "; UPDATE document_deletions SET object_done_at = now(), object_kept = false",
     {"deleted": frozenset({1})}, {SEARCHABLE}, {"orphans.object_without_document": 1}),
]


@pytest.mark.parametrize(("breakage", "sql", "changes", "keys", "rises"), CASES, ids=[case[0] for case in CASES])
def test_each_broken_state_raises_its_count(
    conn: Conn, breakage: str, sql: str, changes: dict[str, Any], keys: set[str] | None, rises: dict[str, int]
) -> None:
    good_state(conn)
    if sql:
        conn.execute(sql)  # type: ignore[arg-type]  # each case's SQL is a literal of this file
    report = run(conn, keys, expected(**changes))
    assert nonzero(report) == {name: count for name, count in rises.items() if count}, breakage


def test_a_deleted_document_gone_with_its_object_and_rows_is_right(conn: Conn) -> None:
    """Deletion removes the document's rows and (by its storage job) its object, and records it; the
    ledger stays (it is accounts)."""
    good_state(conn)
    conn.execute(DELETED + "; UPDATE document_deletions SET object_done_at = now(), object_kept = false")
    report = run(conn, set(), expected(deleted=frozenset({1})))
    assert totals(report) == dict.fromkeys(SECTIONS, 0), nonzero(report)


def test_a_searchable_copy_its_version_refers_to_is_no_orphan(conn: Conn) -> None:
    good_state(conn)
    conn.execute(f"UPDATE document_versions SET searchable_key = '{SEARCHABLE}'")
    report = run(conn, {KEY, SEARCHABLE})
    assert totals(report) == dict.fromkeys(SECTIONS, 0), nonzero(report)


def test_jobs_that_are_no_stage_may_succeed_twice(conn: Conn) -> None:
    """Webhook deliveries and the like are at least once by design: only stages must succeed once."""
    good_state(conn)
    conn.execute("INSERT INTO jobs (type, payload, tenant, state, attempts, started_at, finished_at)"
                 " SELECT 'webhook.deliver', '{\"event\": 1}', 'alpha', 'succeeded', 1, now(), now()"
                 " FROM generate_series(1, 2)")
    assert totals(run(conn)) == dict.fromkeys(SECTIONS, 0)


def test_details_name_jobs_out_of_attempts_and_unreadable_reasons(conn: Conn) -> None:
    good_state(conn)
    conn.execute("INSERT INTO document_versions (document_id, version, state, pages_version, error, finished_at)"
                 " VALUES (1, 2, 'failed', 2, 'upstream \x1b[31mexploded', now());"
                 " UPDATE documents SET latest_version = 2;"
                 " INSERT INTO jobs (type, tenant, state, attempts, max_attempts, last_error, started_at, finished_at)"
                 " VALUES ('extract', 'alpha', 'failed', 6, 6, 'lease expired on final attempt', now(), now())")
    report = run(conn, want=expected(versions={1: 2}))
    assert report["jobs_out_of_attempts"] == {"extract failed: lease expired on final attempt": 1}
    assert report["reasons_with_control_characters"] == {"upstream \x1b[31mexploded": 1}


def _wait_for(predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := predicate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


def test_tool_processes_alive_in_the_tree_are_found(tmp_path: Path) -> None:
    """A tool still running under a child of ours is a leak; once it ends, none is left."""
    fifo = tmp_path / "never-written.pdf"
    os.mkfifo(fifo)
    # a "worker" (the shell) running the tool, which blocks opening a FIFO nobody writes
    worker = subprocess.Popen(["sh", "-c", f"pdftotext '{fifo}' -; true"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        leaks = _wait_for(lambda: [p for p in leaked_tool_processes(os.getpid()) if p["ppid"] == worker.pid])
        assert [p["orphaned"] for p in leaks] == [False] and str(fifo) in leaks[0]["cmdline"]
        os.kill(leaks[0]["pid"], 9)
        worker.wait(timeout=10)
    finally:
        worker.kill()
        worker.wait()
    assert not [p for p in leaked_tool_processes(os.getpid()) if p["ppid"] == worker.pid]


ORPHANING_SCRIPT = """
import json, os, subprocess, sys, time
from bench.chaos_checker import become_subreaper, leaked_tool_processes, processes, reap_orphans, TOOL_NAMES
assert become_subreaper()
def polled(probe):  # what probe() finds within 10 s, or the empty list
    for _ in range(200):
        found = probe()
        if found:
            return found
        time.sleep(0.05)
    return []
# a "worker" that starts a tool in its own process group, then dies by SIGKILL
worker = subprocess.Popen([sys.executable, "-c",
    "import os, subprocess, signal; subprocess.Popen(['pdftotext', __FIFO__, '-'], start_new_session=True);"
    " os.kill(os.getpid(), signal.SIGKILL)"])
worker.wait()
leaks = polled(lambda: leaked_tool_processes(os.getpid()))
for leak in leaks:
    os.kill(leak["pid"], 9)
time.sleep(0.2)
reaped = reap_orphans(os.getpid(), TOOL_NAMES)
# a worker's tool sandbox: not a leak while its worker lives, one once the worker is gone
sandbox = "import time; time.sleep(60)  # tenderflow.pdf.sandbox"  # named as a sandbox's command line is
worker = subprocess.Popen([sys.executable, "-c", "import os, subprocess, sys, time;"
    " subprocess.Popen([sys.executable, '-c', os.environ['SANDBOX']]); time.sleep(60)"],
    env={**os.environ, "SANDBOX": sandbox})
polled(lambda: [p for p in processes().values() if p.ppid == worker.pid])
with_worker = leaked_tool_processes(os.getpid())
worker.kill()
worker.wait()
orphaned = polled(lambda: leaked_tool_processes(os.getpid()))
for leak in orphaned:
    os.kill(leak["pid"], 9)
print(json.dumps({"leaks": leaks, "reaped": reaped, "after": with_worker, "sandbox_orphaned": orphaned}))
"""


def test_a_tool_orphaned_by_a_killed_worker_is_found_and_reaped(tmp_path: Path) -> None:
    """Made a subreaper, the harness finds the tool of a SIGKILLed worker reparented to it, and the
    tool sandbox of a worker that is gone (but not that of a live one)."""
    fifo = tmp_path / "never-written.pdf"
    os.mkfifo(fifo)
    script = ORPHANING_SCRIPT.replace("__FIFO__", repr(str(fifo)))
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                            timeout=60, check=True)
    outcome = json.loads(result.stdout)
    assert [leak["orphaned"] for leak in outcome["leaks"]] == [True], outcome
    assert str(fifo) in outcome["leaks"][0]["cmdline"]
    assert outcome["reaped"] == 1 and outcome["after"] == []  # the live worker's sandbox is no leak
    assert [leak["orphaned"] for leak in outcome["sandbox_orphaned"]] == [True], outcome  # its orphan is
    assert "tenderflow.pdf.sandbox" in outcome["sandbox_orphaned"][0]["cmdline"]
