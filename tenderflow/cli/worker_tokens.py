"""`tenderflow worker-tokens create|list|revoke`: the credentials of remote pull workers.

Registered on the main typer app in tenderflow/cli/__init__.py; each command takes the Runtime
(settings, pool) the main callback built.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from tenderflow.api.worker_tokens import TOKEN_POOLS, WorkerTokenError, create_token, list_tokens, revoke_token
from tenderflow.cli.output import console, err_console, fail, print_table
from tenderflow.cli.runtime import runtime

worker_tokens_app = typer.Typer(
    help="Tokens of remote pull workers (machines without database access): create, list, revoke.",
    no_args_is_help=True,
)


@worker_tokens_app.command("create")
def create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="What the token is for, e.g. office-scanner-pc.")],
    pools: Annotated[str, typer.Option(help=f"Comma-separated: {', '.join(TOKEN_POOLS)} or all.")] = "ocr",
    tenants: Annotated[str | None, typer.Option(
        help="Comma-separated tenant names: the token takes only their jobs (default: every tenant's).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Create a token; it is printed once and stored only as a hash."""
    with runtime(ctx).connection() as conn:
        try:
            created = create_token(conn, name, [p for p in pools.split(",") if p.strip()],
                                   tenants=tenants.split(",") if tenants is not None else None)
        except WorkerTokenError as exc:
            raise fail(str(exc)) from exc
    if as_json:
        sys.stdout.write(json.dumps({"name": created.token.name, "id": created.token.id,
                                     "pools": list(created.token.pools),
                                     "tenants": list(created.token.tenants) if created.token.tenants else None,
                                     "token": created.raw}) + "\n")
        return
    whose = f"tenants {', '.join(created.token.tenants)}" if created.token.tenants else "every tenant"
    # The token alone on stdout (TOKEN=$(tenderflow worker-tokens create …) captures it), the prose on
    # stderr, as `keys create` does. Token and tenant names are checked identifiers (no markup).
    err_console.print(f"worker token [bold]{created.token.name}[/bold] for pools "
                      f"{', '.join(created.token.pools)}, jobs of {whose}: shown once, store it now. "
                      "Run a worker with it:\n  TENDERFLOW_WORKER_TOKEN=<token> tenderflow worker --remote "
                      f"https://<api> --pool {created.token.pools[0]}", highlight=False)
    sys.stdout.write(created.raw + "\n")


@worker_tokens_app.command("list")
def list_command(
    ctx: typer.Context,
    include_revoked: Annotated[bool, typer.Option("--all", help="Include revoked tokens.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Tokens without their secrets: name, pools, created, last used."""
    with runtime(ctx).connection() as conn:
        rows = list_tokens(conn, include_revoked=include_revoked)
    if as_json:
        sys.stdout.write(json.dumps(rows, default=str, indent=2) + "\n")
        return
    print_table("worker tokens", [{**row, "tenants": row["tenants"] or "all"} for row in rows],
                ["name", "id", "pools", "tenants", "status", "created_at", "last_used_at", "revoked_at"])


@worker_tokens_app.command("revoke")
def revoke(ctx: typer.Context, name: Annotated[str, typer.Argument(metavar="NAME", help="The token's name.")]) -> None:
    """Revoke a token: its worker's next call is refused (its jobs' leases expire and are reclaimed)."""
    with runtime(ctx).connection() as conn:
        try:
            token_id = revoke_token(conn, name)
        except WorkerTokenError as exc:
            raise fail(str(exc)) from exc
    console.print(f"revoked worker token {name} ({token_id})")

