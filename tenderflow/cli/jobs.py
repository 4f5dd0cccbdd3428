"""`tenderflow jobs …` and `tenderflow workers`: the job queue as an operator sees it."""

from __future__ import annotations

from typing import Annotated, Any

import psycopg
import typer

from tenderflow import queue as job_queue
from tenderflow.cli.output import JsonOption, cell, console, errors_reported, print_json, print_note, print_table
from tenderflow.cli.runtime import runtime
from tenderflow.queue import jobs as queue_jobs
from tenderflow.queue.jobs import JobState
from tenderflow.queue.stats import list_workers, queue_stats

jobs_app = typer.Typer(help="The job queue: list, inspect, retry, cancel, prune.", no_args_is_help=True)
JobId = Annotated[int, typer.Argument(metavar="JOB_ID", help="The job's id (`tenderflow jobs list`).")]
JobIds = Annotated[list[int], typer.Argument(metavar="JOB_ID...", help="The jobs' ids (`tenderflow jobs list`).")]


@jobs_app.command("list", epilog=(
    "Examples: tenderflow jobs list --state failed  ·  tenderflow jobs list --type ocr.pages --tenant acme  ·  "
    "tenderflow jobs show 17"))
def jobs_list(
    ctx: typer.Context,
    state: Annotated[JobState | None, typer.Option(help="Only jobs in this state.")] = None,
    type: Annotated[str | None, typer.Option(help="Only this job type.")] = None,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10000, help="At most this many, newest first.")] = 50,
    as_json: JsonOption = False,
) -> None:
    """The newest jobs, filtered."""
    with runtime(ctx).connection() as conn:
        rows = queue_jobs.list_jobs(conn, state=state, type=type, tenant=tenant, limit=limit)
    if as_json:
        print_json(rows)
        return
    print_table("jobs", rows, ["id", "type", "tenant", "state", "attempts", "max_attempts", "run_after",
                               "worker_id", "last_error"],
                optional=["tenant", "max_attempts", "worker_id", "run_after"])


@jobs_app.command("show")
def jobs_show(ctx: typer.Context, job_id: JobId, as_json: JsonOption = False) -> None:
    """One job, every column."""
    with errors_reported():
        with runtime(ctx).connection() as conn:
            row = queue_jobs.get(conn, job_id)
    if as_json:
        print_json(row)
        return
    # One row per column of the job, each value as `cell` writes it (times to the second); piped,
    # `field<TAB>value` lines.
    print_table(f"job {job_id}", [{"field": key, "value": None if value is None else cell(value)}
                                  for key, value in row.items()], ["field", "value"])


@jobs_app.command("stats")
def jobs_stats(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Queue health: depth, oldest queued age, failures, expired leases, durations, workers."""
    rt = runtime(ctx)
    with rt.connection() as conn:
        stats = queue_stats(conn, dead_after_seconds=rt.settings.worker_dead_after_seconds)
    if as_json:
        print_json(stats.as_dict())
        return
    print_table("jobs by type (succeeded, failed: in the last hour; p50, p95: duration)", stats.by_type, [
        "type", "queued", "runnable", "running", "expired_leases", "succeeded_last_hour", "failed_last_hour",
        "oldest_queued_seconds", "attempts_per_success", "duration_p50_seconds", "duration_p95_seconds",
    ], labels={"expired_leases": "expired", "succeeded_last_hour": "succeeded", "failed_last_hour": "failed",
               "oldest_queued_seconds": "oldest (s)", "attempts_per_success": "tries/ok",
               "duration_p50_seconds": "p50 (s)", "duration_p95_seconds": "p95 (s)"},
       optional=["attempts_per_success", "expired_leases", "oldest_queued_seconds"])
    if stats.failures_by_hour:
        print_table("failures per hour (24 h)", stats.failures_by_hour, ["hour", "type", "failed"])
    oldest = "none" if stats.oldest_queued_seconds is None else f"{stats.oldest_queued_seconds:.1f} s"
    print_note(f"oldest queued job: {oldest}   expired leases: {stats.expired_leases}   "
               f"workers: {stats.live_workers} live, {stats.dead_workers} dead")


@jobs_app.command("retry")
def jobs_retry(
    ctx: typer.Context, job_ids: JobIds,
    attempts: Annotated[int, typer.Option(min=1, help="Attempts to grant.")] = 1,
) -> None:
    """Queue failed or cancelled jobs again."""
    with runtime(ctx).connection() as conn:
        for job_id in job_ids:
            with errors_reported():
                job_queue.retry(conn, job_id, extra_attempts=attempts)
                console.print(f"job {job_id} queued again")
            note = pipeline_retry_note(conn, job_id)
            if note:
                print_note(f"note: {note}")


def pipeline_retry_note(conn: psycopg.Connection[Any], job_id: int) -> str | None:
    """A retried pipeline job cannot revive a document version that already failed: say what does."""
    from tenderflow.pipeline.versions import failed_version_of_job

    failed = failed_version_of_job(conn, job_id)
    if failed is None:
        return None
    ref = failed.ref
    return (f"document {ref.document_id} version {ref.version} has already failed, so this job's result will "
            f"not be used; to process the document again run `tenderflow reprocess {ref.document_id} "
            f"--from {failed.reprocess_from}`")


@jobs_app.command("cancel")
def jobs_cancel(ctx: typer.Context, job_ids: JobIds) -> None:
    """Cancel queued or running jobs (a running job's worker stops at its next heartbeat)."""
    from tenderflow.handlers import build_job_types

    rt = runtime(ctx)
    job_types = build_job_types(rt.settings)
    with rt.connection() as conn:
        for job_id in job_ids:
            with errors_reported():
                with conn.transaction():
                    ended = job_queue.cancel(conn, job_id)
                    job_types.run_ended_hooks(conn, [ended])
                console.print(f"job {job_id} cancelled")


@jobs_app.command("prune")
def jobs_prune(
    ctx: typer.Context,
    older_than_days: Annotated[float | None, typer.Option(help="Default: the retention setting.")] = None,
) -> None:
    """Delete finished jobs older than the retention period, in batches."""
    rt = runtime(ctx)
    days = rt.settings.retention_days if older_than_days is None else older_than_days
    with rt.connection() as conn:
        deleted = job_queue.prune(conn, retention_seconds=days * 86400)
    console.print(f"deleted {deleted} finished job(s) older than {days:g} day(s)")


def workers(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Worker processes: live (heartbeating), dead (silent), stopped."""
    rt = runtime(ctx)
    with rt.connection() as conn:
        rows = list_workers(conn, dead_after_seconds=rt.settings.worker_dead_after_seconds)
    if as_json:
        print_json(rows)
        return
    print_table("workers", rows, ["id", "kind", "status", "pools", "threads", "running_jobs", "started_at",
                                  "last_seen_at"], optional=["threads", "started_at"])
