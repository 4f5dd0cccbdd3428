"""`/metrics` in Prometheus format: a custom collector that reads the database on each scrape.

Nothing here is counted in process memory, so every API replica reports the same numbers and a
restart loses nothing; the source is the queue's monitoring SQL (`tenderflow.queue.stats`) plus a
few reads of our own. Jobs are pruned after the retention period, so figures read from the jobs
table are gauges (what is there now, or what finished in the last hour). The counters and
histograms come from tables that triggers increment in the transaction that ends a job, writes a
page or an extraction (the queue's migration 0004, the application's 0014): they only grow,
pruning or not, so `rate()` and `histogram_quantile()` apply. They start at zero when those migrations ran.

    tenderflow_up                                 1 when the database answered this scrape
    tenderflow_jobs{type,state}                   jobs in the table by state (queued = queue depth)
    tenderflow_jobs_runnable{type}                queued jobs whose run_after has passed
    tenderflow_oldest_queued_job_age_seconds{type}
    tenderflow_jobs_finished_last_hour{type,outcome}
    tenderflow_expired_leases{type}               running jobs whose lease ran out (dead workers)
    tenderflow_job_duration_seconds{type,outcome} gauge histogram of attempts finished in the last hour
    tenderflow_workers{kind,status}               workers by local/remote and live/dead/stopped
    tenderflow_credits_charged{tenant}            credits charged (when the tenants ledger exists)

    tenderflow_jobs_completed_total{type,outcome}         jobs that ended succeeded / failed / cancelled
    tenderflow_job_run_seconds{type,outcome}              histogram: the final attempt, claim to end
    tenderflow_pages_processed_total{source}              pages read, text_layer or ocr
    tenderflow_page_read_seconds{source}                  histogram: seconds per page (ocr: render + OCR)
    tenderflow_llm_tokens_total{backend,model,kind}       tokens the LLM reported, kind prompt / completion
    tenderflow_extractions_total{backend,model}           extractions written
    (the HTTP request counters are the process's own: tenderflow.api.http_metrics)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import psycopg
import structlog
from prometheus_client import CollectorRegistry
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeHistogramMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from psycopg_pool import ConnectionPool, PoolTimeout

from tenderflow.queue.stats import queue_stats
from tenderflow.sqlfiles import NamedQueries

QUERIES = NamedQueries("tenderflow.api", "queries.sql")
DURATION_BUCKETS = (0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
JOB_STATES = ("queued", "running", "succeeded", "failed", "cancelled")

log = structlog.get_logger("tenderflow.api.metrics")


class QueueCollector(Collector):
    """Reads the queue's state from the database whenever Prometheus scrapes."""

    def __init__(self, pool: ConnectionPool, *, dead_after_seconds: float) -> None:
        self.pool = pool
        self.dead_after_seconds = dead_after_seconds

    def describe(self) -> list[Metric]:
        return []  # unknown until read: keeps registration from scraping the database

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("tenderflow_up", "1 when the database answered this scrape.")
        try:
            with self.pool.connection(timeout=5) as conn:
                families = list(self._read(conn))
        except (psycopg.Error, PoolTimeout) as exc:
            log.warning("metrics.database_unavailable", error=str(exc))
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from families

    def _read(self, conn: psycopg.Connection[Any]) -> Iterator[Metric]:
        stats = queue_stats(conn, dead_after_seconds=self.dead_after_seconds)

        by_state = GaugeMetricFamily("tenderflow_jobs", "Jobs in the table, by type and state.",
                                     labels=["type", "state"])
        seen: dict[str, dict[str, int]] = {}
        for job_type, state, count in conn.execute(QUERIES["metrics_jobs_by_type_state"]).fetchall():
            seen.setdefault(job_type, {})[state] = int(count)
        for job_type, counts in sorted(seen.items()):
            for state in JOB_STATES:  # every state, zeros included, so series do not vanish
                by_state.add_metric([job_type, state], counts.get(state, 0))
        yield by_state

        runnable = GaugeMetricFamily("tenderflow_jobs_runnable", "Queued jobs whose run_after has passed.",
                                     labels=["type"])
        oldest = GaugeMetricFamily("tenderflow_oldest_queued_job_age_seconds",
                                   "Age of the oldest runnable queued job (0 when none).", labels=["type"])
        finished = GaugeMetricFamily("tenderflow_jobs_finished_last_hour", "Jobs that ended in the last hour.",
                                     labels=["type", "outcome"])
        expired = GaugeMetricFamily("tenderflow_expired_leases",
                                    "Running jobs whose lease ran out (their worker died); reclaimed soon.",
                                    labels=["type"])
        for row in stats.by_type:
            runnable.add_metric([row["type"]], row["runnable"])
            oldest.add_metric([row["type"]], float(row["oldest_queued_seconds"] or 0.0))
            finished.add_metric([row["type"], "succeeded"], row["succeeded_last_hour"])
            finished.add_metric([row["type"], "failed"], row["failed_last_hour"])
            expired.add_metric([row["type"]], row["expired_leases"])
        yield from (runnable, oldest, finished, expired)

        durations = GaugeHistogramMetricFamily(
            "tenderflow_job_duration_seconds",
            "Duration (claim to end) of attempts that finished in the last hour.", labels=["type", "outcome"],
        )
        for job_type, outcome, count, seconds_sum, bucket_counts in conn.execute(
            QUERIES["metrics_job_durations_last_hour"], {"bounds": list(DURATION_BUCKETS)}
        ).fetchall():
            buckets = [(str(bound), int(n)) for bound, n in zip(DURATION_BUCKETS, bucket_counts, strict=True)]
            buckets.append(("+Inf", int(count)))
            durations.add_metric([job_type, outcome], buckets, gsum_value=float(seconds_sum))
        yield durations

        workers = GaugeMetricFamily("tenderflow_workers", "Workers by kind and status (live, dead, stopped).",
                                    labels=["kind", "status"])
        counted = Counter((w["kind"], w["status"]) for w in stats.workers)
        for kind in ("local", "remote"):
            for status in ("live", "dead", "stopped"):
                workers.add_metric([kind, status], counted.get((kind, status), 0))
        yield workers

        yield from self._credits(conn)
        yield from self._counters(conn)

    def _counters(self, conn: psycopg.Connection[Any]) -> Iterator[Metric]:
        completed = CounterMetricFamily("tenderflow_jobs_completed", "Jobs that reached an end state, by outcome.",
                                        labels=["type", "outcome"])
        run_seconds = HistogramMetricFamily(
            "tenderflow_job_run_seconds", "How long the final attempt of each ended job ran (claim to end).",
            labels=["type", "outcome"])
        for row in conn.execute(QUERIES["metrics_job_outcome_counts"]).fetchall():
            job_type, outcome, count, timed, seconds_sum, seconds_le, bounds = row
            completed.add_metric([job_type, outcome], int(count))
            run_seconds.add_metric([job_type, outcome], _buckets(bounds, seconds_le, timed), sum_value=seconds_sum)
        yield from (completed, run_seconds)

        pages = CounterMetricFamily("tenderflow_pages_processed", "Pages read, by source (text_layer, ocr).",
                                    labels=["source"])
        page_seconds = HistogramMetricFamily(
            "tenderflow_page_read_seconds", "Seconds to read one page: its text layer, or render and OCR.",
            labels=["source"])
        for source, count, seconds_sum, seconds_le, bounds in conn.execute(QUERIES["metrics_page_counts"]).fetchall():
            pages.add_metric([source], int(count))
            page_seconds.add_metric([source], _buckets(bounds, seconds_le, count), sum_value=seconds_sum)
        yield from (pages, page_seconds)

        tokens = CounterMetricFamily("tenderflow_llm_tokens", "Tokens the LLM provider reported, by kind.",
                                     labels=["backend", "model", "kind"])
        extractions = CounterMetricFamily("tenderflow_extractions", "Extractions written, by backend and model.",
                                          labels=["backend", "model"])
        for backend, model, count, prompt, completion in conn.execute(
                QUERIES["metrics_llm_token_counts"]).fetchall():
            tokens.add_metric([backend, model, "prompt"], int(prompt))
            tokens.add_metric([backend, model, "completion"], int(completion))
            extractions.add_metric([backend, model], int(count))
        yield from (tokens, extractions)

    def _credits(self, conn: psycopg.Connection[Any]) -> Iterator[Metric]:
        # The ledger comes with the tenants migration; without it there is nothing to report.
        present = conn.execute(QUERIES["metrics_credit_ledger_present"]).fetchone()
        if not present or not present[0]:
            return
        charged = GaugeMetricFamily("tenderflow_credits_charged",
                                    "Credits charged for finished work, per tenant (from the ledger).",
                                    labels=["tenant"])
        for tenant, amount in conn.execute(QUERIES["metrics_credits_charged"]).fetchall():
            charged.add_metric([tenant], int(amount))
        yield charged


def _buckets(bounds: list[float], counts: list[int], total: int) -> list[tuple[str, float]]:
    """Prometheus buckets (cumulative counts at each upper bound, then +Inf) from the table's."""
    return [*((str(float(bound)), float(n)) for bound, n in zip(bounds, counts, strict=True)), ("+Inf", float(total))]


def metrics_registry(pool: ConnectionPool, *, dead_after_seconds: float) -> CollectorRegistry:
    """A registry of its own per app (not the process-global one), holding only the queue collector."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(QueueCollector(pool, dead_after_seconds=dead_after_seconds))
    return registry
