"""The CI-sized chaos run (issue 11): `bench/chaos.py` with 100 documents and the faster schedule, as
a subprocess. It starts its own PostgreSQL cluster, moto process, LLM server, API and workers, runs
the workload without faults and then with them (SIGKILLed workers, PostgreSQL restarts, S3 stopped,
the API killed, LLM faults, each kind certain to happen), and its checker reads the quiet state. Any
count above 0 fails here, and so does a declared fault that did not happen. The checker's own
ability to fail is tests/test_chaos_checker.py's (fast, on states built by hand)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COUNTS = ("lost", "duplicated", "stuck", "credit_leaks", "orphans", "unanswered", "faults_missing", "fault_errors")

pytestmark = [pytest.mark.chaos, pytest.mark.slow]


def test_chaos_run_loses_duplicates_strands_and_leaks_nothing() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bench.chaos", "--documents", "100", "--faster", "--seed", "11"],
        cwd=ROOT, capture_output=True, text=True, timeout=1200, check=False,
    )
    lines = result.stdout.strip().splitlines()
    assert lines, result.stderr[-3000:]
    summary = json.loads(lines[-1])
    print(lines[-1])  # the run's figures, shown by `pytest -rP`
    # the summary first (a CI log shows a failure's first lines): its answers say what went wrong
    report = "\n".join([lines[-1], *lines[-250:]]) + result.stderr[-3000:]
    assert {name: summary[name] for name in COUNTS} == dict.fromkeys(COUNTS, 0), report
    assert summary["baseline_clean"], report
    # Every declared fault happened (faults_missing == 0 says so; these name them): 2 PostgreSQL
    # restarts, 2 S3 outages, 1 API kill, worker kills (some holding jobs), each LLM fault kind.
    faults = summary["faults"]
    assert (faults["pg_restart"], faults["s3_outage"], faults["api_kill"]) == (2, 2, 1), report
    # as many kills as the fault-free run lasted 1.5 s (a quiet machine: ~10), each worker at least once mid-job
    assert faults["kill_worker"] >= 3 and faults["kills_holding_jobs"] >= 3, report
    assert all(count >= 2 for count in faults["llm"].values()), report  # one each for local and remote
    assert summary["uploaded"] == 100 and summary["reprocessed"] >= 4 and summary["deleted"] >= 2, report
    assert summary["accepted"] > 70 and summary["done"] > 60, report  # gamma cannot pay for all of its
    assert result.returncode == 0, report
