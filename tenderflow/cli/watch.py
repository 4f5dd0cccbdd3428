"""`tenderflow watch` and `tenderflow watches …`: folders and S3 prefixes whose new files become a
tenant's documents, polled by recurring schedules on the queue (tenderflow.pipeline.watches)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tenderflow.cli.durations import new_timing, parse_duration, shown, timing, timing_shown
from tenderflow.cli.output import JsonOption, console, errors_reported, print_json, print_note, print_table
from tenderflow.cli.runtime import runtime
from tenderflow.cli.schedules import scheduler
from tenderflow.pipeline import watches

watches_app = typer.Typer(help="Watched folders and S3 prefixes: list them, their files, poll now, pause, remove.",
                          no_args_is_help=True)

WatchArgument = Annotated[int, typer.Argument(metavar="WATCH_ID", help="The watch's id (`tenderflow watches list`).")]
EveryOption = Annotated[str | None, typer.Option(
    "--every", help="Poll this often: 30s, 5m, 1h (default 1m).")]
CronOption = Annotated[str | None, typer.Option(
    "--cron", help='Poll at these times instead, a cron expression read in UTC ("*/10 7-19 * * 1-5").')]


def _watch_row(watch: watches.Watch) -> dict[str, Any]:
    polled = timing_shown(watch.interval_seconds, watch.cron) + ("" if watch.enabled else ", paused")
    return {**watch.as_dict(), "polled": polled,
            "files": ", ".join(f"{count} {state}" for state, count in sorted(watch.files.items())) or "none yet"}


def watch_command(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(metavar="SOURCE", help="A folder (on the workers' machines) or s3://bucket/prefix.")],
    tenant: Annotated[str, typer.Option(help="Whose documents its files become.")] = "default",
    every: EveryOption = None,
    cron: CronOption = None,
    settle: Annotated[str | None, typer.Option(
        help="Take a file once unchanged this long, so one still being written is not taken half-way "
             "(default TENDERFLOW_WATCH_SETTLE_SECONDS).")] = None,
    priority: Annotated[int, typer.Option(help="The uploads' priority among the tenant's own jobs.")] = 0,
    languages: Annotated[str | None, typer.Option(help="OCR languages of its files, e.g. fra+eng (default: "
                                                        "the tenant's, else detected).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Watch a folder or an S3 prefix: every new file in it becomes one of the tenant's documents,
    once (deduplicated by content); bad files are reported once."""
    rt = runtime(ctx)
    interval, cron_text = timing(every, cron)
    if "://" not in source:
        source = str(Path(source).expanduser().absolute())
    settle_seconds = parse_duration(settle) if settle is not None else rt.settings.watch_settle_seconds
    with errors_reported(code=2), rt.connection() as conn:
        watch = watches.create_watch(conn, scheduler(ctx), tenant=tenant, source=source, interval_seconds=interval,
                                     cron=cron_text, settle_seconds=settle_seconds, priority=priority,
                                     languages=languages)
    if as_json:
        print_json(watch.as_dict())
        return
    row = _watch_row(watch)
    console.print(f"watch {watch.id}: {watch.source} for {watch.tenant}, polled {row['polled']}; files unchanged "
                  f"for {shown(watch.settle_seconds)} are taken", highlight=False)
    print_note(f"a worker of the extract pool polls it; see what it took: tenderflow watches files {watch.id}")


@watches_app.command("list")
def watches_list(
    ctx: typer.Context,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Every watch with its schedule, its last poll and its files counted by state."""
    with errors_reported(), runtime(ctx).connection() as conn:
        found = watches.list_watches(conn, tenant=tenant)
    if as_json:
        print_json([watch.as_dict() for watch in found])
        return
    print_table("watches", [_watch_row(w) for w in found],
                ["id", "tenant", "source", "polled", "next_run_at", "last_polled_at", "files", "last_error"])


@watches_app.command("files")
def watches_files(
    ctx: typer.Context, watch_id: WatchArgument,
    state: Annotated[str | None, typer.Option(help="Only in this state: waiting, uploaded, existing, rejected.")]
    = None,
    limit: Annotated[int, typer.Option(min=1, max=10000)] = 100,
    as_json: JsonOption = False,
) -> None:
    """The files a watch has seen, the most recently decided first: what each became, or why not."""
    with errors_reported(), runtime(ctx).connection() as conn:
        rows = watches.watch_files(conn, watch_id, state=state, limit=limit)
    if as_json:
        print_json(rows)
        return
    print_table(f"watch {watch_id}: files", rows, ["path", "state", "document_id", "reason", "size", "decided_at"])


@watches_app.command("poll")
def watches_poll(
    ctx: typer.Context, watch_id: WatchArgument,
    here: Annotated[bool, typer.Option("--here", help="Poll in this process now (it must see the folder), "
                                                      "and print what it decided, instead of queueing a run.")]
    = False,
    as_json: JsonOption = False,
) -> None:
    """Poll a watch now, beside its schedule."""
    rt = runtime(ctx)
    if not here:
        with errors_reported(), rt.connection() as conn:
            watches.get_watch(conn, watch_id)
            job_id = scheduler(ctx).run_now(conn, watches.schedule_name(watch_id))
        console.print(f"poll of watch {watch_id} queued (job {job_id})", highlight=False)
        return
    from tenderflow.handlers.watch import poll_options

    with errors_reported(), rt.connection() as conn:
        summary = watches.poll(conn, rt.storage, watch_id, poll_options(rt.settings))
        watches.record_poll(conn, summary)
    if as_json:
        print_json({**summary.counts(), "watch_id": watch_id, "decisions": summary.decisions})
        return
    if summary.skipped:
        console.print(f"watch {watch_id}: {summary.skipped}", highlight=False)
        return
    if summary.decisions:
        print_table(f"watch {watch_id}: this poll", summary.decisions, ["path", "state", "document_id", "reason"])
    counts = summary.counts()
    print_note(", ".join(f"{counts[key]} {key}" for key in ("listed", "uploaded", "existing", "rejected", "waiting",
                                                           "deferred")))


def _change(ctx: typer.Context, watch_id: int, **change: Any) -> watches.Watch:
    with errors_reported(code=2), runtime(ctx).connection() as conn:
        watches.get_watch(conn, watch_id)
        scheduler(ctx).change(conn, watches.schedule_name(watch_id), **change)
        return watches.get_watch(conn, watch_id)


@watches_app.command("pause")
def watches_pause(ctx: typer.Context, watch_id: WatchArgument) -> None:
    """Stop polling a watch until `resume` (what it saw is kept)."""
    _change(ctx, watch_id, enabled=False)
    console.print(f"watch {watch_id} paused", highlight=False)


@watches_app.command("resume")
def watches_resume(ctx: typer.Context, watch_id: WatchArgument) -> None:
    """Poll a paused watch again."""
    watch = _change(ctx, watch_id, enabled=True)
    console.print(f"watch {watch_id} resumed; next poll {watch.next_run_at}", highlight=False)


@watches_app.command("set")
def watches_set(
    ctx: typer.Context, watch_id: WatchArgument, every: EveryOption = None, cron: CronOption = None
) -> None:
    """Poll a watch at another interval, or at cron times."""
    interval, cron_text = new_timing(every, cron)
    watch = _change(ctx, watch_id, interval_seconds=interval, cron=cron_text)
    console.print(f"watch {watch_id} polled {_watch_row(watch)['polled']}; next poll {watch.next_run_at}",
                  highlight=False)


@watches_app.command("remove")
def watches_remove(ctx: typer.Context, watch_id: WatchArgument) -> None:
    """Stop watching (the documents it made stay)."""
    with errors_reported(), runtime(ctx).connection() as conn:
        watches.remove_watch(conn, scheduler(ctx), watch_id)
    console.print(f"watch {watch_id} removed", highlight=False)
