"""/metrics over real HTTP: what Prometheus would scrape, read back with its own text parser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tenderflow.config import Settings
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import upload_file
from tenderflow.queue import Failure, claim, complete, fail, jobs
from tenderflow.tenants.credits import Prices
from tests.api_harness import ADMIN_TOKEN, RunningApi, api_settings, bearer, serve_in_thread
from tests.pipeline_harness import drain_in_workers
from tests.tender_fixtures import numbered_pages, text_pdf


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    # No reclaiming by the API while the test looks at an expired lease.
    return api_settings(database_url, tmp_path, maintenance_seconds=600)


@pytest.fixture
def api(settings: Settings) -> Iterator[RunningApi]:
    with serve_in_thread(settings) as running:
        yield running


def scrape(api: RunningApi) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = api.client.get("/metrics", headers=bearer(ADMIN_TOKEN))
    assert response.status_code == 200, response.text
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def test_metrics_need_the_admin_token(api: RunningApi) -> None:
    assert api.client.get("/metrics").status_code == 401
    assert api.client.get("/metrics", headers=bearer("not-the-token")).status_code == 401
    assert api.client.get("/metrics", headers=bearer(ADMIN_TOKEN)).status_code == 200


def test_metrics_report_depth_age_outcomes_durations_leases_workers_and_credits(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    from tenderflow.tenants.tenants import create_tenant

    create_tenant(conn, "acme", credits=1000)
    storage = open_storage(settings.resolved_storage_url)
    prices = Prices.from_settings(settings)
    upload_file(conn, storage, text_pdf(tmp_path / "a.pdf", numbered_pages(3)), tenant="acme", max_bytes=10**7,
                prices=prices)
    # One document done (its plan, text layer, and extraction) by a real worker, stopped since.
    drain_in_workers(api.services.pool, settings, storage, workers=1)
    for n in range(3):
        upload_file(conn, storage, text_pdf(tmp_path / f"q{n}.pdf", [[f"Queued {n}"]]), tenant="acme",
                    max_bytes=10**7, prices=prices)
    conn.execute("UPDATE jobs SET run_after = now() - interval '90 seconds' WHERE state = 'queued'")
    # One plan job fails for good; one is held by a worker whose lease ran out.
    [failing, expiring] = claim(conn, worker_id="metrics-test", types=["ocr.plan"], limit=2, lease_seconds=60)
    fail(conn, [Failure(failing, "not a PDF", permanent=True, retry_seconds=0)])
    conn.execute("UPDATE jobs SET leased_until = now() - interval '1 second' WHERE id = %s", (expiring.id,))

    samples = scrape(api)
    assert value(samples, "tenderflow_up") == 1
    assert value(samples, "tenderflow_jobs", type="ocr.plan", state="queued") == 1
    assert value(samples, "tenderflow_jobs", type="ocr.plan", state="running") == 1
    assert value(samples, "tenderflow_jobs", type="ocr.plan", state="failed") == 1
    assert value(samples, "tenderflow_jobs", type="extract", state="succeeded") == 1
    assert value(samples, "tenderflow_jobs", type="extract", state="cancelled") == 0
    assert value(samples, "tenderflow_jobs_runnable", type="ocr.plan") == 1
    assert 85 <= value(samples, "tenderflow_oldest_queued_job_age_seconds", type="ocr.plan") < 600
    assert value(samples, "tenderflow_jobs_finished_last_hour", type="ocr.plan", outcome="succeeded") == 1
    assert value(samples, "tenderflow_jobs_finished_last_hour", type="ocr.plan", outcome="failed") == 1
    assert value(samples, "tenderflow_expired_leases", type="ocr.plan") == 1
    # Durations: every finished attempt falls in +Inf; the buckets are cumulative.
    assert value(samples, "tenderflow_job_duration_seconds_bucket", type="ocr.plan", outcome="succeeded",
                 le="+Inf") == 1
    assert value(samples, "tenderflow_job_duration_seconds_gcount", type="ocr.plan", outcome="succeeded") == 1
    assert value(samples, "tenderflow_job_duration_seconds_gcount", type="ocr.plan", outcome="failed") == 1
    buckets = sorted((float(dict(labels)["le"]), v) for (name, labels), v in samples.items()
                     if name == "tenderflow_job_duration_seconds_bucket"
                     and dict(labels)["type"] == "extract" and dict(labels)["outcome"] == "succeeded")
    assert len(buckets) == 13 and buckets[-1] == (float("inf"), 1)
    assert [v for _, v in buckets] == sorted(v for _, v in buckets)
    assert value(samples, "tenderflow_workers", kind="local", status="stopped") == 1
    assert value(samples, "tenderflow_workers", kind="remote", status="live") == 0
    charged = value(samples, "tenderflow_credits_charged", tenant="acme")
    assert charged == conn.execute("SELECT sum(amount) FROM credit_entries WHERE kind = 'charge'").fetchone()[0]  # type: ignore[index]
    assert charged > 0
    assert jobs.get(conn, expiring.id)["state"] == "running"
    complete(conn, [expiring])  # keep the fixture's teardown quiet
