"""`tenderflow worker` (local or remote pools, one or many processes) and `tenderflow serve`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import structlog
import typer

from tenderflow import migrations
from tenderflow.cli.output import JsonOption, err_console, fail, print_json, print_table
from tenderflow.cli.runtime import Runtime, runtime
from tenderflow.database import redact
from tenderflow.errors import TenderflowError
from tenderflow.stages.contract import Pool

if TYPE_CHECKING:
    from tenderflow.handlers.preflight import Check


def worker(
    ctx: typer.Context,
    pool: Annotated[Pool, typer.Option(help="Which job types to run.")] = Pool.ALL,
    processes: Annotated[int, typer.Option(min=1, help="Worker processes (one per core for OCR).")] = 1,
    threads: Annotated[int, typer.Option(min=1, help="Jobs run at once by each process.")] = 1,
    remote: Annotated[str | None, typer.Option(
        help="Pull jobs from this API server (https://…) instead of the database: no database or "
             "storage access needed here, only --token.")] = None,
    token: Annotated[str | None, typer.Option(
        envvar="TENDERFLOW_WORKER_TOKEN", show_envvar=True,
        help="Worker token for --remote (`tenderflow worker-tokens create`).")] = None,
    burst: Annotated[bool, typer.Option(
        help="Run until no job of the pool is left (queued, waiting to retry, or running), then exit 0: "
             "for cron jobs and CI.")] = False,
) -> None:
    """Run a worker pool until SIGTERM/Ctrl-C (graceful; a second Ctrl-C is immediate), or with
    --burst until its work is done."""
    from tenderflow.queue.supervisor import run_worker_in_process, self_command, supervise
    from tenderflow.runtime import build_local_worker

    rt = runtime(ctx)
    if remote is not None:
        from tenderflow.remote.client import server_url_problem

        refusal, warning = server_url_problem(remote)
        if refusal:
            raise fail(refusal, code=2)
        if warning:
            err_console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False, soft_wrap=True)
            structlog.get_logger("tenderflow.remote").warning("remote.plain_http", url=remote)
        if burst:  # a usage error: said before anything is checked or connected
            raise fail("--burst needs the database (a remote worker cannot see what is left to run)", code=2)
    refuse_unless_ready(rt, pool, local=remote is None)
    if remote is not None:
        from tenderflow.remote.worker import build_remote_worker

        if not token:
            raise fail("--remote needs --token (or TENDERFLOW_WORKER_TOKEN)")
        if processes > 1:
            import os

            os.environ["TENDERFLOW_WORKER_TOKEN"] = token  # children read it there, not from argv (ps)
            argv = [*self_command(), "worker", "--remote", remote, "--pool", pool, "--processes", "1",
                    "--threads", str(threads)]
            raise typer.Exit(supervise(argv, processes))
        remote_worker = build_remote_worker(rt.settings, url=remote, token=token, pool=pool, threads=threads)
        raise typer.Exit(run_worker_in_process(remote_worker))
    if processes > 1:
        # Make the children use the same database (the embedded server is started once, here).
        import os

        os.environ.setdefault("TENDERFLOW_DATABASE_URL", rt.database_url)
        argv = [*self_command(), "worker", "--pool", pool, "--processes", "1", "--threads", str(threads),
                *(["--burst"] if burst else [])]
        raise typer.Exit(supervise(argv, processes, until_done=burst))
    # The pool migrated, or the command ends saying `tenderflow db migrate`.
    raise typer.Exit(run_worker_in_process(build_local_worker(rt, pool, threads=threads, burst=burst)))


def refuse_unless_ready(rt: Runtime, pool: Pool, *, local: bool) -> None:
    """Refuse to start, one line per missing thing, rather than fail every job of the pool five times."""
    from tenderflow.handlers.preflight import preflight

    failed = [check for check in preflight(rt.settings, pool, rt.storage if local else None) if not check.ok]
    if failed:
        raise fail("the worker cannot run its pool's jobs here (`tenderflow doctor` shows every check):\n"
                   + "\n".join(f"  {check.name}: {check.detail}" for check in failed))


def doctor(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Check everything the pipeline needs here: database, storage, programs, language packs, LLM."""
    from tenderflow.handlers.preflight import Check, preflight

    rt = runtime(ctx)
    checks: list[Check] = []
    try:
        with rt.connection(migrated=False) as conn:
            pending = [migration.label for migration in migrations.pending_migrations(conn)]
        where = redact(rt.database_url) + (" (embedded)" if rt.settings.database_url is None else "")
        checks.append(Check("database", not pending, where if not pending else
                            f"{where}: migrations pending: {', '.join(pending)} (run `tenderflow db migrate`)"))
        if not pending:
            checks.append(workers_check(rt))
    except TenderflowError as exc:
        checks.append(Check("database", False, str(exc)))
    checks += preflight(rt.settings, Pool.ALL, rt.storage)
    rows = [{"check": c.name, "ok": ("warn" if c.warning else "yes") if c.ok else "NO", "detail": c.detail}
            for c in checks]
    if as_json:
        print_json([{"check": c.name, "ok": c.ok, "warning": c.warning, "detail": c.detail} for c in checks])
    else:
        print_table("doctor", rows, ["check", "ok", "detail"])
    if not all(c.ok for c in checks):
        raise typer.Exit(1)


def workers_check(rt: Runtime) -> Check:
    """Whether the live workers run everything: none at all is said (start one), not failed (doctor
    runs before the first worker too); some, yet a pool's stages or the tasks only local workers run
    (webhooks, watches, deletions, retention) left to nobody, fails, naming what to start."""
    from tenderflow.handlers import preflight
    from tenderflow.handlers.coverage import unserved
    from tenderflow.queue.stats import live_worker_count

    dead_after = rt.settings.worker_dead_after_seconds
    with rt.connection() as conn:
        live = live_worker_count(conn, dead_after_seconds=dead_after)
        waiting = unserved(conn, dead_after_seconds=dead_after)
    if live == 0:
        return preflight.Check("workers", True, "none running now: start one (`tenderflow worker --pool all`, "
                               "or a pool's workers) to process documents")
    if waiting:
        return preflight.Check("workers", False,
                               f"{live} live; " + "; ".join(unrun.sentence() for unrun in waiting))
    return preflight.Check("workers", True, f"{live} live; every stage and task has a worker")


_SECRET_SETTINGS = ("admin_token", "llm_api_key")


def config(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """The settings in effect (environment, else defaults), secrets masked, with where each came from."""
    settings = runtime(ctx).settings
    rows = []
    for name, field in type(settings).model_fields.items():
        value = getattr(settings, name)
        if value is not None and name in _SECRET_SETTINGS:
            shown: object = f"set ({len(str(value))} characters)"
        elif isinstance(value, str) and "://" in value and name.endswith("_url"):
            shown = redact(value) if name == "database_url" else value
        else:
            shown = str(value) if value is not None else None
        rows.append({"setting": f"TENDERFLOW_{name.upper()}", "value": shown,
                     "from": "environment" if name in settings.model_fields_set else "default",
                     "meaning": field.description or ""})
    if as_json:
        print_json(rows)
    else:
        print_table("settings", rows, ["setting", "value", "from", "meaning"])


def serve(
    ctx: typer.Context,
    host: Annotated[str | None, typer.Option(help="Address to listen on (default: TENDERFLOW_API_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default: TENDERFLOW_API_PORT).")] = None,
) -> None:
    """Run the HTTP API, the remote workers' endpoints, the dashboard and /metrics (uvicorn)."""
    from tenderflow.api.server import serve as serve_api

    settings = runtime(ctx).settings
    raise typer.Exit(serve_api(settings, host=host or settings.api_host, port=port or settings.api_port))
