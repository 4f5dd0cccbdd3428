"""/metrics over real HTTP: what Prometheus would scrape, read back with its own text parser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tenderflow.config import Settings
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.queue import Failure, claim, complete, fail, jobs
from tenderflow.tenants.credits import Prices
from tests.support.api_harness import ADMIN_TOKEN, RunningApi, bearer
from tests.support.pipeline_harness import drain_in_workers
from tests.support.tender_fixtures import numbered_pages, text_pdf

    # No reclaiming by the API while the test looks at an expired lease.
pytestmark = pytest.mark.settings(maintenance_seconds=600)


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
    upload_file(conn, storage, text_pdf(tmp_path / "a.pdf", numbered_pages(3)),
                UploadPolicy(tenant="acme", max_bytes=10**7, prices=prices))
    # One document done (its plan, text layer, and extraction) by a real worker, stopped since.
    drain_in_workers(api.services.pool, settings, storage, workers=1)
    for n in range(3):
        upload_file(conn, storage, text_pdf(tmp_path / f"q{n}.pdf", [[f"Queued {n}"]]),
                    UploadPolicy(tenant="acme", max_bytes=10**7, prices=prices))
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


def _histogram(samples: dict[Any, float], name: str, **labels: str) -> list[tuple[float, float]]:
    """(le, cumulative count) of one histogram series, in order of le."""
    return sorted((float(dict(key)["le"]), v) for (metric, key), v in samples.items()
                  if metric == f"{name}_bucket" and {k: w for k, w in dict(key).items() if k != "le"} == labels)


def test_counters_and_histograms_only_grow_and_survive_pruning(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    from tenderflow.queue.jobs import prune

    storage = open_storage(settings.resolved_storage_url)
    upload_file(conn, storage, text_pdf(tmp_path / "a.pdf", numbered_pages(3)), UploadPolicy(max_bytes=10**7))
    drain_in_workers(api.services.pool, settings, storage, workers=1)
    upload_file(conn, storage, text_pdf(tmp_path / "b.pdf", [["refused"]]), UploadPolicy(max_bytes=10**7))
    [refused] = claim(conn, worker_id="metrics-test", types=["ocr.plan"], limit=1, lease_seconds=60)
    fail(conn, [Failure(refused, "not a PDF", permanent=True, retry_seconds=0)])

    response = api.client.get("/metrics", headers=bearer(ADMIN_TOKEN))
    assert "# TYPE tenderflow_jobs_completed_total counter" in response.text
    assert "# TYPE tenderflow_job_run_seconds histogram" in response.text
    assert "# TYPE tenderflow_page_read_seconds histogram" in response.text
    before = scrape(api)
    assert value(before, "tenderflow_jobs_completed_total", type="ocr.plan", outcome="succeeded") == 1
    assert value(before, "tenderflow_jobs_completed_total", type="ocr.plan", outcome="failed") == 1
    assert value(before, "tenderflow_jobs_completed_total", type="extract", outcome="succeeded") == 1
    run = _histogram(before, "tenderflow_job_run_seconds", type="extract", outcome="succeeded")
    assert len(run) == 13 and run[-1] == (float("inf"), 1) and [v for _, v in run] == sorted(v for _, v in run)
    assert value(before, "tenderflow_job_run_seconds_count", type="extract", outcome="succeeded") == 1
    assert value(before, "tenderflow_pages_processed_total", source="text_layer") == 3
    pages = _histogram(before, "tenderflow_page_read_seconds", source="text_layer")
    assert pages[-1] == (float("inf"), 3) and [v for _, v in pages] == sorted(v for _, v in pages)
    page_seconds = conn.execute("SELECT sum(seconds) FROM pages").fetchone()[0]  # type: ignore[index]
    assert value(before, "tenderflow_page_read_seconds_sum", source="text_layer") == pytest.approx(page_seconds)
    assert value(before, "tenderflow_extractions_total", backend="rules", model="") == 1
    assert value(before, "tenderflow_llm_tokens_total", backend="rules", model="", kind="prompt") == 0

    # An extraction written again with the tokens an LLM reported: counted again, tokens added.
    conn.execute("UPDATE extractions SET backend = 'openai', model = 'm', prompt_tokens = 1200, "
                 "completion_tokens = 300")
    # Every finished job pruned: the gauges read from the jobs table drop, the counters do not.
    conn.execute("UPDATE jobs SET finished_at = now() - interval '30 days' WHERE finished_at IS NOT NULL")
    assert prune(conn, retention_seconds=86400) >= 5
    after = scrape(api)
    assert after.get(("tenderflow_jobs", (("state", "succeeded"), ("type", "ocr.plan"))), 0) == 0
    for key, count in before.items():
        if key[0].startswith(("tenderflow_jobs_completed", "tenderflow_job_run_seconds", "tenderflow_pages_processed",
                              "tenderflow_page_read_seconds", "tenderflow_extractions", "tenderflow_llm_tokens")):
            assert after.get(key, 0) >= count, f"{key} went down from {count} to {after.get(key)}"
    assert value(after, "tenderflow_jobs_completed_total", type="ocr.plan", outcome="succeeded") == 1
    assert value(after, "tenderflow_llm_tokens_total", backend="openai", model="m", kind="prompt") == 1200
    assert value(after, "tenderflow_llm_tokens_total", backend="openai", model="m", kind="completion") == 300


def test_http_requests_are_counted_by_route_template_and_status(api: RunningApi) -> None:
    before = scrape(api)
    for document_id in (1, 2, 3):
        assert api.client.get(f"/v1/documents/{document_id}").status_code == 401
    assert api.client.get("/no/such/path").status_code == 404
    after = scrape(api)

    def grown(**labels: str) -> float:
        key = ("tenderflow_http_requests_total", tuple(sorted(labels.items())))
        return after.get(key, 0) - before.get(key, 0)

    assert grown(method="GET", route="/v1/documents/{document_id}", status="401") == 3
    assert grown(method="GET", route="unmatched", status="404") == 1
    assert grown(method="GET", route="/metrics", status="200") == 1  # the first scrape
    assert value(after, "tenderflow_http_request_duration_seconds_count", method="GET",
                 route="/v1/documents/{document_id}") >= 3


def test_a_statement_writing_many_pages_counts_each_once_by_source_and_seconds(
    conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """The pages counter runs once per statement (migration 0020): one statement writing 300 pages,
    then overwriting them, adds exactly those pages and their seconds to the counter and histogram."""
    from dataclasses import dataclass

    from tenderflow.pipeline.commits import upsert_pages
    from tenderflow.pipeline.versions import VersionRef

    @dataclass(frozen=True)
    class Page:
        number: int
        text: str
        source: str
        confidence: float | None
        rotation: int
        seconds: float

    def counts() -> dict[str, tuple[int, float, list[int]]]:
        rows = conn.execute("SELECT source, sum(pages), sum(seconds_sum), ARRAY(SELECT sum(x.le)::bigint FROM "
                            "page_counts s, unnest(s.seconds_le) WITH ORDINALITY AS x(le, n) WHERE s.source = c.source "
                            "GROUP BY x.n ORDER BY x.n) FROM page_counts c GROUP BY source").fetchall()
        return {str(source): (int(pages), float(seconds), [int(v) for v in le]) for source, pages, seconds, le in rows}

    storage = open_storage(settings.resolved_storage_url)
    outcome = upload_file(conn, storage, text_pdf(tmp_path / "a.pdf", numbered_pages(1)), UploadPolicy(max_bytes=10**7))
    assert outcome.document_id is not None
    ref = VersionRef(outcome.document_id, 1)
    pages = [Page(n, f"page {n}", "ocr" if n % 3 == 0 else "text_layer", None, 0, 0.1 if n % 2 else 3.0)
             for n in range(1, 301)]
    before = counts()
    assert before == {}
    with conn.transaction():
        upsert_pages(conn, ref, pages)
    first = counts()
    # 100 OCR pages (n divisible by 3), half of them odd (0.1 s) and half even (3 s); 200 text-layer pages.
    assert first["ocr"][0] == 100 and first["text_layer"][0] == 200
    assert first["ocr"][1] == pytest.approx(50 * 0.1 + 50 * 3.0)
    bounds = conn.execute("SELECT page_seconds_bounds()").fetchone()
    assert bounds is not None and list(bounds[0][:6]) == [0.05, 0.25, 0.5, 1, 2, 4]
    # 0.1 s counts under 0.25 and every bound above it; 3 s under 4 and above.
    assert first["ocr"][2][:2] == [0, 50] and first["ocr"][2][4] == 50 and first["ocr"][2][5:] == [100] * 6
    with conn.transaction():
        upsert_pages(conn, ref, pages)  # read again: every page counts again (INSERT … ON CONFLICT DO UPDATE)
    again = counts()
    assert again["ocr"][0] == 200 and again["text_layer"][0] == 400
    assert again["text_layer"][2] == [2 * value for value in first["text_layer"][2]]
