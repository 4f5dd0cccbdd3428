"""`tenderflow schedules …`: the queue's recurring schedules (tenderflow.queue.Scheduler), fired by
every worker's maintenance thread and by the API server: list, add, retime, pause, resume, run now,
remove. Which job types may be scheduled is declared by the tasks (tenderflow.handlers.schedules)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from tenderflow.cli.durations import new_timing, timing, timing_shown
from tenderflow.cli.output import JsonOption, console, errors_reported, fail, print_json, print_table
from tenderflow.cli.runtime import runtime
from tenderflow.queue import Scheduler, ScheduleRow

schedules_app = typer.Typer(help="Recurring schedules on the queue: list, add, retime, pause, resume, run now.",
                            no_args_is_help=True)

NameArgument = Annotated[str, typer.Argument(metavar="NAME", help="The schedule's name (`tenderflow schedules list`).")]
EveryOption = Annotated[str | None, typer.Option("--every", help="Run this often: 30s, 5m, 1h, 1d.")]
CronOption = Annotated[str | None, typer.Option(
    "--cron", help='Run at these times instead, a cron expression read in UTC ("0 6 * * 1-5").')]


def _job_types(ctx: typer.Context) -> Any:
    from tenderflow.handlers import build_job_types

    return build_job_types(runtime(ctx).settings)


def scheduler(ctx: typer.Context) -> Scheduler:
    """The queue's scheduler over the product's job types (names only: enough to schedule them)."""
    return Scheduler(_job_types(ctx))


def _row(schedule: ScheduleRow) -> dict[str, Any]:
    last = (None if schedule.last_job_id is None
            else f"job {schedule.last_job_id}: {schedule.last_job_state or 'pruned'}")
    return {**schedule.__dict__, "timing": timing_shown(schedule.interval_seconds, schedule.cron),
            "state": "active" if schedule.enabled else "paused",
            "last_run": last, "payload": json.dumps(schedule.payload)}


@schedules_app.command("list")
def schedules_list(
    ctx: typer.Context,
    prefix: Annotated[str | None, typer.Option(help="Only those whose name starts with this (watch:).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Every schedule: what it runs, when next, and what its last run did."""
    with errors_reported(), runtime(ctx).connection() as conn:
        found = scheduler(ctx).list_schedules(conn, prefix=prefix)
    if as_json:
        print_json([schedule.__dict__ for schedule in found])
        return
    print_table("schedules", [_row(s) for s in found],
                ["name", "type", "tenant", "payload", "timing", "state", "next_run_at", "last_run_at", "last_run"])


@schedules_app.command("add")
def schedules_add(
    ctx: typer.Context,
    name: NameArgument,
    job_type: Annotated[str, typer.Option("--type", help="The job type each run enqueues (one that can be "
                                                           "scheduled: watch.poll).")],
    payload: Annotated[str, typer.Option(help='The job\'s payload as JSON, e.g. \'{"watch_id": 3}\'.')] = "{}",
    tenant: Annotated[str, typer.Option(help="Whose job each run is (fairness, caps).")] = "default",
    every: EveryOption = None,
    cron: CronOption = None,
    priority: Annotated[int, typer.Option(help="Each run's priority among the tenant's jobs.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Create (or replace) a schedule: a job of --type every --every, or at --cron times (UTC)."""
    from tenderflow.handlers.schedules import add_schedule

    interval, cron_text = timing(every, cron)
    try:
        parsed = json.loads(payload)
    except json.JSONDecodeError as exc:
        raise fail(f"--payload is not JSON: {exc}", code=2) from exc
    if not isinstance(parsed, dict):
        raise fail("--payload must be a JSON object", code=2)
    with errors_reported(code=2), runtime(ctx).connection() as conn:
        schedule = add_schedule(conn, _job_types(ctx), name=name, job_type=job_type, payload=parsed, tenant=tenant,
                                interval_seconds=interval, cron=cron_text, priority=priority)
    if as_json:
        print_json(schedule.__dict__)
        return
    console.print(f"schedule {schedule.name}: {schedule.type} {_row(schedule)['timing']}; first run "
                  f"{schedule.next_run_at}", highlight=False)


def _change(ctx: typer.Context, name: str, **change: Any) -> ScheduleRow:
    with errors_reported(code=2), runtime(ctx).connection() as conn:
        schedules = scheduler(ctx)
        schedules.change(conn, name, **change)
        return schedules.get(conn, name)


@schedules_app.command("set")
def schedules_set(ctx: typer.Context, name: NameArgument, every: EveryOption = None, cron: CronOption = None) -> None:
    """Run a schedule at another interval, or at cron times; its next run is counted from now."""
    interval, cron_text = new_timing(every, cron)
    schedule = _change(ctx, name, interval_seconds=interval, cron=cron_text)
    console.print(f"schedule {name}: {_row(schedule)['timing']}; next run {schedule.next_run_at}", highlight=False)


@schedules_app.command("pause")
def schedules_pause(ctx: typer.Context, name: NameArgument) -> None:
    """Stop a schedule's runs until `resume`."""
    _change(ctx, name, enabled=False)
    console.print(f"schedule {name} paused", highlight=False)


@schedules_app.command("resume")
def schedules_resume(ctx: typer.Context, name: NameArgument) -> None:
    """Start a paused schedule again (runs missed meanwhile are not caught up)."""
    schedule = _change(ctx, name, enabled=True)
    console.print(f"schedule {name} resumed; next run {schedule.next_run_at}", highlight=False)


@schedules_app.command("run")
def schedules_run(ctx: typer.Context, name: NameArgument) -> None:
    """Enqueue a run of a schedule now, beside its timed runs."""
    with errors_reported(), runtime(ctx).connection() as conn:
        job_id = scheduler(ctx).run_now(conn, name)
    console.print(f"schedule {name}: job {job_id} queued", highlight=False)


@schedules_app.command("remove")
def schedules_remove(ctx: typer.Context, name: NameArgument) -> None:
    """Delete a schedule (a watch's goes with its watch: `tenderflow watches remove`)."""
    from tenderflow.handlers.schedules import remove_schedule

    with errors_reported(code=2), runtime(ctx).connection() as conn:
        remove_schedule(conn, _job_types(ctx), name)
    console.print(f"schedule {name} removed", highlight=False)
