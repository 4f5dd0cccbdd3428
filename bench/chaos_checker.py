"""The chaos run's checker (issue 11): what the database and the storage hold once everything is quiet,
counted against what the workload was told, and the tool processes still alive.

    report = check_state(conn, stored_keys, bucket="chaos-faults", expected=Expected(...))
    leaks = leaked_tool_processes(os.getpid())

`check_state` returns five sections of counts, each of which must be 0, and details beside them:

- lost: an accepted upload without its document; a deletion the workload did not ask for; a
  document without the row of its latest version, or with fewer versions than the reprocesses it
  was granted; a done version missing a page of its page count or its extraction; a document whose
  newest done version is not the one readers see; a document whose stored object is gone;
- duplicated: a page stored twice or beyond its version's page count; an extraction stored twice; two
  documents for the same bytes; a document nobody was told was accepted; more versions than asked
  for; one pipeline job (same type and payload) succeeding twice; more OCR batches than planned;
- stuck: a version not done or failed; a failed version without a reason; a job queued or running;
  a running job whose lease has expired; attempts above the job's max_attempts, or claims (attempts
  less the releases at shutdown, which are not counted) above the configured budget; a deleted
  document whose stored PDF was never dealt with;
- credit_leaks: a tenant whose balance is not grants - charges - open reservations (recomputed here
  from the ledger, not read from the product's view); a tenant below zero; an open reservation on a
  finished version or on a version that no longer exists; a version closed (charged or refunded)
  twice; a done version with prices never charged;
- orphans: a stored object no document (nor a version's searchable copy) refers to; a document the
  workload deleted still there.

Only the pipeline's own job types (`Expected.stage_types`) are held to "succeeds once": other job
types (webhook deliveries, storage deletions) are delivered at least once by design, and are held
to the rules every job is held to (not left queued or running, leases, attempts).

`leaked_tool_processes` lists the poppler / tesseract processes in the harness's process tree, and
the parts of a worker's tool sandbox (tenderflow.pdf.sandbox: the server, its sandboxed calls) whose
worker is gone: run once the queue is quiet, any such process outlived the job (or the worker) it
ran for.
The harness makes itself a child subreaper (`become_subreaper`), so the tools of a SIGKILLed worker
are reparented to it instead of to init, and stay countable.
"""

from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, LiteralString

import psycopg

# The pipeline's stages, the job types whose success writes results: the harness passes
# tenderflow.stages.compute.STAGES' names; these are the default (the checker's tests build states by hand).
STAGE_TYPES = ("ocr.plan", "ocr.pages", "thumbnail", "extract")
# What pdf/tools.py runs (prlimit execs the tool: for an instant the process is prlimit).
TOOL_NAMES = frozenset({"pdfinfo", "pdftotext", "pdftoppm", "pdftocairo", "tesseract", "prlimit"})
SECTIONS = ("lost", "duplicated", "stuck", "credit_leaks", "orphans")


@dataclass(frozen=True)
class Expected:
    """What the workload was told: the uploads accepted ((tenant, sha256) -> document id), how many
    versions each document should have (1 + the reprocesses that created a version; 1 when not
    named), the documents it deleted, and the configured attempt budget of a job."""

    documents: Mapping[tuple[str, str], int]
    versions: Mapping[int, int] = field(default_factory=dict)
    deleted: frozenset[int] = frozenset()
    max_attempts: int = 6
    stage_types: tuple[str, ...] = STAGE_TYPES


# Each count is one query returning one number; %(...)s parameters come from `Expected`.
COUNTS: dict[str, dict[str, LiteralString]] = {
    "lost": {
        "document_without_latest_version": """
            SELECT count(*) FROM documents d WHERE NOT EXISTS (
                SELECT 1 FROM document_versions v WHERE v.document_id = d.id AND v.version = d.latest_version)""",
        "versions_missing": """
            SELECT count(*) FROM documents d
              JOIN unnest(%(ids)s::bigint[], %(versions)s::integer[]) AS e(id, versions) ON e.id = d.id
             WHERE d.latest_version < e.versions""",
        "done_version_missing_pages": """
            SELECT count(*) FROM document_versions v WHERE v.state = 'done' AND (v.page_count IS NULL OR
                v.page_count <> (SELECT count(DISTINCT p.page_number) FROM pages p
                                  WHERE p.document_id = v.document_id AND p.version = v.pages_version
                                    AND p.page_number BETWEEN 1 AND v.page_count))""",
        "done_version_without_extraction": """
            SELECT count(*) FROM document_versions v WHERE v.state = 'done' AND NOT EXISTS (
                SELECT 1 FROM extractions e WHERE e.document_id = v.document_id AND e.version = v.version)""",
        # a deletion (0022's record) the workload did not ask for
        "deleted_unasked": """
            SELECT count(*) FROM document_deletions WHERE document_id <> ALL(%(deleted)s::bigint[])""",
        "done_version_not_current": """
            SELECT count(*) FROM documents d
              JOIN (SELECT document_id, max(version) AS newest FROM document_versions
                     WHERE state = 'done' GROUP BY document_id) done ON done.document_id = d.id
             WHERE d.current_version IS DISTINCT FROM done.newest""",
    },
    "duplicated": {
        "pages_stored_twice": """
            SELECT count(*) - count(DISTINCT (document_id, version, page_number)) FROM pages""",
        "pages_beyond_page_count": """
            SELECT count(*) FROM pages p JOIN document_versions v USING (document_id, version)
             WHERE v.page_count IS NOT NULL AND p.page_number > v.page_count""",
        "extractions_stored_twice": """
            SELECT count(*) - count(DISTINCT (document_id, version)) FROM extractions""",
        "documents_for_same_bytes": """
            SELECT count(*) - count(DISTINCT (tenant, sha256)) FROM documents""",
        "document_not_accepted": """
            SELECT count(*) FROM documents WHERE id <> ALL(%(ids)s::bigint[]) AND id <> ALL(%(deleted)s::bigint[])""",
        "versions_beyond_expected": """
            SELECT count(*) FROM documents d
              LEFT JOIN unnest(%(ids)s::bigint[], %(versions)s::integer[]) AS e(id, versions) ON e.id = d.id
             WHERE d.latest_version > coalesce(e.versions, 1)""",
        # a stage job's payload names its document, version (and pages): the same work done twice
        "stage_job_succeeded_twice": """
            SELECT count(*) FROM (SELECT 1 FROM jobs WHERE state = 'succeeded' AND type = ANY(%(stage_types)s)
                                   GROUP BY type, payload HAVING count(*) > 1) twice""",
        "ocr_batches_beyond_batch_count": """
            SELECT count(*) FROM document_versions v WHERE v.batch_count IS NOT NULL AND v.batch_count < (
                SELECT count(*) FROM ocr_batches b WHERE b.document_id = v.document_id AND b.version = v.version)""",
    },
    "stuck": {
        "version_not_final": "SELECT count(*) FROM document_versions WHERE state NOT IN ('done', 'failed')",
        "failed_without_reason": """
            SELECT count(*) FROM document_versions WHERE state = 'failed' AND coalesce(btrim(error), '') = ''""",
        "job_queued_or_running": "SELECT count(*) FROM jobs WHERE state IN ('queued', 'running')",
        "running_with_expired_lease": """
            SELECT count(*) FROM jobs WHERE state = 'running' AND leased_until < now()""",
        "attempts_above_max": "SELECT count(*) FROM jobs WHERE attempts > max_attempts",
        "attempts_beyond_budget": """
            SELECT count(*) FROM jobs WHERE attempts - releases > %(max_attempts)s""",
        # a deleted document's stored PDF never dealt with (its storage.delete job did not run)
        "deletion_object_pending": "SELECT count(*) FROM document_deletions WHERE object_done_at IS NULL",
    },
    "credit_leaks": {
        "balance_not_ledger": """
            WITH closed AS (SELECT DISTINCT document_id, version FROM credit_entries
                             WHERE kind IN ('charge', 'refund')),
            ledger AS (
                SELECT e.tenant,
                       coalesce(sum(e.amount) FILTER (WHERE e.kind IN ('grant', 'adjust')), 0)
                       - coalesce(sum(e.amount) FILTER (WHERE e.kind = 'charge'), 0)
                       - coalesce(sum(e.amount) FILTER (WHERE e.kind = 'reserve' AND c.document_id IS NULL), 0)
                       AS balance
                  FROM credit_entries e
                  LEFT JOIN closed c ON c.document_id = e.document_id AND c.version = e.version
                 GROUP BY e.tenant)
            SELECT count(*) FROM tenants t LEFT JOIN ledger l ON l.tenant = t.name
             WHERE t.balance <> coalesce(l.balance, 0)""",
        "below_zero": "SELECT count(*) FROM tenants WHERE NOT unlimited AND balance < 0",
        "open_reservation_on_finished_version": """
            SELECT count(DISTINCT (e.document_id, e.version)) FROM credit_entries e
              JOIN document_versions v ON v.document_id = e.document_id AND v.version = e.version
             WHERE e.kind = 'reserve' AND v.state IN ('done', 'failed') AND NOT EXISTS (
                   SELECT 1 FROM credit_entries c WHERE c.document_id = e.document_id AND c.version = e.version
                      AND c.kind IN ('charge', 'refund'))""",
        "open_reservation_without_version": """
            SELECT count(DISTINCT (e.document_id, e.version)) FROM credit_entries e
             WHERE e.kind = 'reserve' AND NOT EXISTS (
                   SELECT 1 FROM document_versions v WHERE v.document_id = e.document_id AND v.version = e.version)
               AND NOT EXISTS (
                   SELECT 1 FROM credit_entries c WHERE c.document_id = e.document_id AND c.version = e.version
                      AND c.kind IN ('charge', 'refund'))""",
        "version_closed_twice": """
            SELECT count(*) FROM (SELECT 1 FROM credit_entries WHERE kind IN ('charge', 'refund')
                                   GROUP BY document_id, version HAVING count(*) > 1) twice""",
        "done_version_not_charged": """
            SELECT count(*) FROM document_versions v
              JOIN version_prices p ON p.document_id = v.document_id AND p.version = v.version
             WHERE v.state = 'done' AND NOT EXISTS (
                   SELECT 1 FROM credit_entries c WHERE c.document_id = v.document_id AND c.version = v.version
                      AND c.kind = 'charge')""",
    },
    "orphans": {
        "deleted_document_still_there": """
            SELECT count(*) FROM documents WHERE id = ANY(%(deleted)s::bigint[])""",
    },
}

DETAILS: dict[str, LiteralString] = {
    "versions": "SELECT state::text, count(*) FROM document_versions GROUP BY 1 ORDER BY 1",
    "jobs": "SELECT type || ' ' || state::text, count(*) FROM jobs GROUP BY 1 ORDER BY 1",
    "attempts": "SELECT attempts - releases, count(*) FROM jobs GROUP BY 1 ORDER BY 1",
    "failure_reasons": """
        SELECT left(error, 200), count(*) FROM document_versions WHERE state = 'failed'
         GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20""",
    # a job that used all of its attempts: whatever it says, it is worth reading
    "jobs_out_of_attempts": """
        SELECT type || ' ' || state::text || ': ' || left(coalesce(last_error, ''), 200), count(*) FROM jobs
         WHERE attempts - releases >= %(max_attempts)s GROUP BY 1 ORDER BY 2 DESC LIMIT 20""",
    # a reason a person reads should not carry terminal escapes or bidi overrides
    "reasons_with_control_characters": """
        SELECT left(error, 200), count(*) FROM document_versions
         WHERE error ~ '[\\x01-\\x08\\x0b-\\x1f\\x7f\\u202a-\\u202e\\u2066-\\u2069]'
         GROUP BY 1 ORDER BY 2 DESC LIMIT 10""",
}


def _scalar(conn: psycopg.Connection[Any], query: LiteralString, params: Mapping[str, Any]) -> int:
    row = conn.execute(query, params).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def check_state(
    conn: psycopg.Connection[Any], stored_keys: Iterable[str], *, bucket: str, expected: Expected
) -> dict[str, Any]:
    """The counts (five sections of name -> count) and the details of the quiet state. `stored_keys`
    is every key in the bucket; documents refer to theirs as s3://<bucket>/<key>."""
    live = {key: document_id for key, document_id in expected.documents.items()
            if document_id not in expected.deleted}
    ids = sorted(set(live.values()))
    params = {"ids": ids, "versions": [expected.versions.get(i, 1) for i in ids],
              "deleted": sorted(expected.deleted), "max_attempts": expected.max_attempts,
              "stage_types": list(expected.stage_types)}
    report: dict[str, Any] = {section: {name: _scalar(conn, query, params) for name, query in queries.items()}
                              for section, queries in COUNTS.items()}
    found = {(str(tenant), str(sha), int(document_id))
             for tenant, sha, document_id in conn.execute("SELECT tenant, sha256, id FROM documents").fetchall()}
    report["lost"]["accepted_without_document"] = sum(
        1 for (tenant, sha), document_id in live.items() if (tenant, sha, document_id) not in found)
    prefix = f"s3://{bucket}/"
    referenced = {str(url).removeprefix(prefix)
                  for (url,) in conn.execute("SELECT storage_url FROM documents").fetchall()}
    # the searchable copies (PDFs back) a version refers to by key
    referenced |= {str(key) for (key,) in conn.execute(
        "SELECT searchable_key FROM document_versions WHERE searchable_key IS NOT NULL").fetchall()}
    keys = set(stored_keys)
    report["lost"]["document_object_missing"] = len(referenced - keys)
    report["orphans"]["object_without_document"] = len(keys - referenced)
    for name, query in DETAILS.items():
        report[name] = {str(label): int(number) for label, number in conn.execute(query, params).fetchall()}
    report["pages"] = _scalar(conn, "SELECT count(*) FROM pages", params)
    report["objects"] = len(keys)
    return report


def totals(report: Mapping[str, Any]) -> dict[str, int]:
    """Each section's sum: the numbers of the JSON line."""
    return {section: sum(report[section].values()) for section in SECTIONS}


def nonzero(report: Mapping[str, Any]) -> dict[str, int]:
    """Every count above 0, as "section.name": the ones a reader must look at."""
    return {f"{section}.{name}": count for section in SECTIONS for name, count in report[section].items() if count}


# --- tool processes --------------------------------------------------------------------------------

_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process the one orphaned descendants are reparented to (Linux prctl), so that the
    tools of a SIGKILLed worker stay in its tree. False where the call is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


@dataclass(frozen=True)
class ProcessInfo:
    pid: int
    ppid: int
    name: str
    state: str
    started_ticks: int

    def cmdline(self) -> str:
        try:
            raw = Path(f"/proc/{self.pid}/cmdline").read_bytes()
        except OSError:
            return ""
        return " ".join(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)


def processes() -> dict[int, ProcessInfo]:
    """Every process on the machine, from /proc (those that vanish while it is read are skipped)."""
    found: dict[int, ProcessInfo] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split at the last ")"
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        rest = stat[stat.rindex(")") + 2:].split()
        found[int(entry.name)] = ProcessInfo(int(entry.name), int(rest[1]), name, rest[0], int(rest[19]))
    return found


def descendants(root: int, table: Mapping[int, ProcessInfo]) -> list[ProcessInfo]:
    children: dict[int, list[ProcessInfo]] = {}
    for info in table.values():
        children.setdefault(info.ppid, []).append(info)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child.pid)
    return found


SANDBOX_MARK = "tenderflow.pdf.sandbox"  # in the command line of a worker's tool sandbox (and its calls)


def is_leak(info: ProcessInfo, root: int) -> bool:
    """A tool process (none should run once the queue is quiet), or a part of a worker's tool sandbox
    whose worker is gone (reparented to `root`, the subreaper: a live worker's sandbox is its child)."""
    if info.state == "Z":
        return False
    return info.name in TOOL_NAMES or (info.ppid == root and SANDBOX_MARK in info.cmdline())


def leaked_tool_processes(root: int) -> list[dict[str, Any]]:
    """The leaked processes (`is_leak`) in `root`'s tree: pid, parent, how long alive, command line."""
    ticks = os.sysconf("SC_CLK_TCK")
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return [{"pid": info.pid, "ppid": info.ppid, "orphaned": info.ppid == root,
             "alive_seconds": round(uptime - info.started_ticks / ticks, 1), "cmdline": info.cmdline()[:300]}
            for info in descendants(root, processes()) if is_leak(info, root)]


def reap_orphans(root: int, names: frozenset[str]) -> int:
    """Collect the exit status of orphaned children of `root` (this process) named in `names` that
    have ended, so they do not stay zombies. Only those: the harness's own children are waited for
    by whoever started them. Returns how many were reaped."""
    reaped = 0
    for info in processes().values():
        if info.ppid == root and info.state == "Z" and info.name in names:
            try:
                if os.waitpid(info.pid, os.WNOHANG)[0]:
                    reaped += 1
            except ChildProcessError:
                pass
    return reaped


@dataclass
class OrphanWatch:
    """Samples the tool processes reparented to `root` (orphaned by a killed worker): how many were
    seen, and how long the longest lived on after its worker."""

    root: int
    first_seen: dict[int, float] = field(default_factory=dict)
    last_seen: dict[int, float] = field(default_factory=dict)
    commands: dict[int, str] = field(default_factory=dict)

    def sample(self) -> None:
        now = time.monotonic()
        for info in processes().values():
            if info.ppid == self.root and is_leak(info, self.root):
                self.first_seen.setdefault(info.pid, now)
                self.last_seen[info.pid] = now
                if info.pid not in self.commands:
                    self.commands[info.pid] = info.cmdline()[:300]

    def summary(self) -> dict[str, Any]:
        lived = {pid: self.last_seen[pid] - self.first_seen[pid] for pid in self.first_seen}
        longest = sorted(lived, key=lambda pid: -lived[pid])[:5]
        return {"orphaned_tool_processes": len(lived),
                "longest_orphan_seconds": round(max(lived.values(), default=0.0), 1),
                "longest": [{"seconds": round(lived[pid], 1), "cmdline": self.commands.get(pid, "")}
                            for pid in longest]}
