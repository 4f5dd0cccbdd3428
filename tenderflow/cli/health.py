"""`tenderflow health`: is what runs in this container (or on this host) alive? For health checks.

The API is alive when its `/healthz` answers on this host. A worker is alive when one of its
processes on this host heartbeated within `TENDERFLOW_WORKER_DEAD_AFTER_SECONDS`: the heartbeat comes
from the worker's own thread, so a wedged or dead worker turns unhealthy even while the database
answers (which is all `tenderflow db status` shows).
"""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from typing import Annotated

import typer

from tenderflow.cli.output import fail, print_note
from tenderflow.cli.runtime import runtime
from tenderflow.errors import TenderflowError
from tenderflow.queue.stats import workers_on_host


def _api_answers(port: int, timeout: float) -> str | None:
    """None when the API's /healthz on this host answered 200; else why not."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as answer:  # noqa: S310
            return None if answer.status == 200 else f"/healthz answered {answer.status}"
    except urllib.error.HTTPError as exc:
        return f"/healthz answered {exc.code}"
    except (OSError, urllib.error.URLError) as exc:
        return f"nothing answers on 127.0.0.1:{port} ({getattr(exc, 'reason', exc)})"


def health(
    ctx: typer.Context,
    api: Annotated[bool, typer.Option("--api", help="Check the API (`tenderflow serve`) on this host.")] = False,
    worker: Annotated[bool, typer.Option("--worker", help="Check the worker processes of this host.")] = False,
    port: Annotated[int | None, typer.Option(
        help="The API's port (default: TENDERFLOW_API_PORT).", show_default=False)] = None,
    host: Annotated[str | None, typer.Option(
        help="The workers' host name (default: this one's).", show_default=False)] = None,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the API.")] = 3.0,
) -> None:
    """Exit 0 when what runs here is alive (the API answers, a worker heartbeats), else 1 saying why."""
    rt = runtime(ctx)
    settings = rt.settings
    api_port = port or settings.api_port
    worker_host = host or socket.gethostname()
    problems: list[str] = []
    checked: list[str] = []
    bare = not api and not worker  # whatever runs here: the API if it answers, this host's workers if any
    api_answers = False
    if api or bare:
        api_problem = _api_answers(api_port, timeout)
        api_answers = api_problem is None
        if api_answers:
            checked.append(f"api on port {api_port}: ok")
        elif api:
            problems.append(f"api: {api_problem}")
    if worker or bare:
        try:
            with rt.connection() as conn:
                registered, live = workers_on_host(conn, worker_host,
                                                   dead_after_seconds=settings.worker_dead_after_seconds)
        except TenderflowError as exc:
            registered, live = -1, 0
            problems.append(f"worker: {exc}")
        if live:
            checked.append(f"worker on {worker_host}: {live} of {registered} process(es) heartbeating")
        elif registered > 0:
            problems.append(f"worker: none of the {registered} worker process(es) on {worker_host} is alive (none "
                            f"heartbeated within {settings.worker_dead_after_seconds:g} s with its process "
                            "still connected)")
        elif registered == 0 and worker:
            problems.append(f"worker: no worker process runs on {worker_host}")
        elif registered == 0 and not api_answers:
            problems.append(f"nothing runs here: no API on port {api_port}, no worker on {worker_host}")
    if problems:
        raise fail("; ".join(problems))
    print_note("; ".join(checked))
