"""`tenderflow tenants …` and `tenderflow keys …`: tenants, their credits and usage, their API keys.

The typer apps are registered on the main app in tenderflow/cli/__init__.py; the commands reach the
process's Runtime (settings, pool) through the typer context, as every other command does.
"""

from __future__ import annotations

import enum
import re
from datetime import UTC, datetime
from typing import Annotated, Any

import typer

from tenderflow.cli.output import JsonOption, cell, console, errors_reported, fail, print_json, print_note, print_table
from tenderflow.cli.runtime import runtime
from tenderflow.tenants import credits as ledger
from tenderflow.tenants import keys as api_keys
from tenderflow.tenants import limits, tenants


class KeyScope(enum.StrEnum):
    """What an API key may do (tenderflow.tenants.keys.SCOPES)."""

    WRITE = "write"
    READ = "read"

tenants_app = typer.Typer(help="Tenants: credits, caps on running jobs, usage.", no_args_is_help=True)
credits_app = typer.Typer(help="A tenant's credits.", no_args_is_help=True)
keys_app = typer.Typer(help="Tenant API keys for the HTTP API (shown once, stored hashed).", no_args_is_help=True)
tenants_app.add_typer(credits_app, name="credits")

TenantArgument = Annotated[str, typer.Argument(metavar="NAME", help="The tenant's name.")]
LanguagesOption = Annotated[str | None, typer.Option(
    help="Tesseract languages its uploads are OCRed with unless an upload names its own, e.g. fra+eng "
         "(default: auto, each document's language is detected).")]
DATE_FORMATS = ["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"]


def _cap(tenant: tenants.Tenant, default_cap: int) -> str:
    if tenant.max_running is None:
        return f"default ({default_cap or 'no cap'})"
    return str(tenant.max_running or "no cap")


def _tenant_row(tenant: tenants.Tenant, default_cap: int) -> dict[str, Any]:
    return {**tenant.as_dict(), "credits": "unlimited" if tenant.unlimited else tenant.balance,
            "cap": _cap(tenant, default_cap), "languages": tenant.ocr_languages or "auto (detected)"}


# --- tenants ----------------------------------------------------------------------------------


@tenants_app.command("create", epilog=(
    "Examples: tenderflow tenants create acme --credits 1000  ·  tenderflow tenants create internal --unlimited "
    "--max-running 4  ·  tenderflow tenants create ville-de-lyon --credits 500 --languages fra+eng"))
def tenants_create(
    ctx: typer.Context,
    name: TenantArgument,
    credits: Annotated[int, typer.Option(min=0, help="Credits to start with.")] = 0,
    unlimited: Annotated[bool, typer.Option("--unlimited", help="Never refuse this tenant's work.")] = False,
    max_running: Annotated[int | None, typer.Option(
        min=0, help="Most jobs of this tenant running at once, across all pools (0 = no cap). "
                    "Default: TENDERFLOW_TENANT_MAX_RUNNING.")] = None,
    languages: LanguagesOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a tenant (its name is what `upload --tenant` and the API keys refer to)."""
    rt = runtime(ctx)
    with errors_reported(also=(ValueError,)), rt.connection() as conn:
        tenant = tenants.create_tenant(conn, name, credits=credits, unlimited=unlimited,
                                       max_running=max_running, languages=languages)
    if as_json:
        print_json(tenant.as_dict())
        return
    row = _tenant_row(tenant, rt.settings.tenant_max_running)
    console.print(f"tenant {tenant.name} created: credits {row['credits']}, running cap {row['cap']}, "
                  f"OCR languages {row['languages']}", highlight=False)
    if not unlimited and credits == 0:
        print_note(f"note: {tenant.name} has no credits yet, so its uploads will be refused; add some with "
                   f"`tenderflow tenants credits add {tenant.name} N` (or create it with --credits N or --unlimited)")


@tenants_app.command("list")
def tenants_list(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Every tenant with its credits, open reservations, running cap and active keys."""
    rt = runtime(ctx)
    with rt.connection() as conn:
        found = tenants.list_tenants(conn)
    if as_json:
        print_json([tenant.as_dict() for tenant in found])
        return
    print_table("tenants", [_tenant_row(t, rt.settings.tenant_max_running) for t in found],
                 ["name", "credits", "open_reserved", "charged", "cap", "priority", "languages", "active_keys",
                  "created_at"])


@tenants_app.command("show")
def tenants_show(ctx: typer.Context, name: TenantArgument, as_json: JsonOption = False) -> None:
    """One tenant."""
    rt = runtime(ctx)
    with errors_reported(), rt.connection() as conn:
        tenant = tenants.get_tenant(conn, name)
    if as_json:
        print_json(tenant.as_dict())
        return
    row = _tenant_row(tenant, rt.settings.tenant_max_running)
    print_table(f"tenant {name}", [{"field": key.replace("_", " "), "value": row[key]} for key in (
        "name", "credits", "open_reserved", "charged", "cap", "priority", "languages", "active_keys",
        "created_at")],
        ["field", "value"])


@tenants_app.command("max-running")
def tenants_max_running(
    ctx: typer.Context, name: TenantArgument,
    max_running: Annotated[int, typer.Argument(
        metavar="MAX_RUNNING", min=0, help="Most jobs running at once (0 = no cap).")],
) -> None:
    """Set a tenant's cap on running jobs across all pools; workers apply it at their next claim."""
    with errors_reported(), runtime(ctx).connection() as conn:
        tenants.set_max_running(conn, name, max_running)
    console.print(f"tenant {name}: at most {max_running or 'any number of'} running job(s)", highlight=False)


@tenants_app.command("priority")
def tenants_priority(
    ctx: typer.Context, name: TenantArgument,
    priority: Annotated[int, typer.Argument(
        metavar="PRIORITY", min=-1000, max=1000, help="Higher runs first (default 0).")],
) -> None:
    """Set the priority of a tenant's jobs over other tenants' (the operator's call: an upload's own
    priority only orders that tenant's jobs)."""
    with errors_reported(also=(ValueError,)), runtime(ctx).connection() as conn:
        tenants.set_priority(conn, name, priority)
    console.print(f"tenant {name}: priority {priority}", highlight=False)


_SIZE = re.compile(r"(\d+)\s*([kmgt]i?b|b)?", re.IGNORECASE)
_UNITS = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
          "kib": 1024, "mib": 1024**2, "gib": 1024**3, "tib": 1024**4}


def parse_limit(text: str, *, sizes: bool = False) -> int | None:
    """A limit as typed: a number (with sizes, a unit: 500MB, 10GiB), 0 for none, or "default" (None)."""
    if text.strip().lower() == "default":
        return None
    match = _SIZE.fullmatch(text.strip())
    if match is None or (match[2] and not sizes):
        raise typer.BadParameter(f"{text!r} is not a number{' of bytes (e.g. 500MB, 10GiB)' if sizes else ''} "
                                 "or 'default'")
    return int(match[1]) * _UNITS[(match[2] or "b").lower()]


def _limit_text(value: int, own: bool, unit: str) -> str:
    shown = "no limit" if value == 0 else f"{value:,} {unit}"
    return shown if own else f"{shown} (default)"


@tenants_app.command("limits")
def tenants_limits(
    ctx: typer.Context, name: TenantArgument,
    uploads_per_minute: Annotated[str | None, typer.Option(
        help="Uploads it may send per minute over the API: a number, 0 for no limit, or 'default' "
             "(TENDERFLOW_TENANT_UPLOADS_PER_MINUTE).")] = None,
    max_stored_bytes: Annotated[str | None, typer.Option(
        help="Bytes of PDFs it may have stored, failed documents included: e.g. 500MB or 20GiB, 0 for no limit, "
             "or 'default' (TENDERFLOW_TENANT_MAX_STORED_BYTES).")] = None,
    retention_days: Annotated[str | None, typer.Option(
        help="Days its documents are kept after their upload, then deleted with everything read from them "
             "(hourly): a number, 0 to keep them for ever, or 'default' (TENDERFLOW_DOCUMENT_RETENTION_DAYS).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Show a tenant's upload limits, stored bytes and retention period; set its own with the options."""
    rt = runtime(ctx)
    changes: dict[str, Any] = {}
    if retention_days is not None:
        changes["retention_days"] = parse_limit(retention_days)
    if uploads_per_minute is not None:
        changes["uploads_per_minute"] = parse_limit(uploads_per_minute)
    if max_stored_bytes is not None:
        changes["max_stored_bytes"] = parse_limit(max_stored_bytes, sizes=True)
    with errors_reported(also=(ValueError,)), rt.connection() as conn:
        if changes:
            limits.set_limits(conn, name, **changes)
        current = limits.limits_of(conn, name, default_per_minute=rt.settings.tenant_uploads_per_minute,
                                   default_max_stored_bytes=rt.settings.tenant_max_stored_bytes,
                                   default_retention_days=rt.settings.document_retention_days)
        stored = limits.stored_bytes(conn, name)
    if as_json:
        print_json({"tenant": name, **vars(current), "stored_bytes": stored})
        return
    kept = "for ever" if current.retention_days == 0 else f"{current.retention_days:,} days"
    console.print(f"tenant {name}: uploads per minute "
                  f"{_limit_text(current.uploads_per_minute, current.own_rate, 'uploads')}; stored "
                  f"{stored:,} bytes of {_limit_text(current.max_stored_bytes, current.own_quota, 'bytes')}; "
                  f"documents kept {kept}{'' if current.own_retention else ' (default)'}", highlight=False)


@tenants_app.command("languages")
def tenants_languages(
    ctx: typer.Context, name: TenantArgument,
    languages: Annotated[str, typer.Argument(
        metavar="LANGUAGES",
        help="Tesseract languages joined by '+', e.g. fra+eng, or 'auto' to detect each document's language.")],
) -> None:
    """Set the OCR languages of a tenant's uploads that name none; versions started from then on use them."""
    with errors_reported(also=(ValueError,)), runtime(ctx).connection() as conn:
        tenant = tenants.set_languages(conn, name, languages)
    languages = tenant.ocr_languages or "auto (detected per document)"
    console.print(f"tenant {name}: OCR languages {languages}", highlight=False)


def _utc(value: datetime | None) -> datetime | None:
    """Dates given without a zone are UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


@tenants_app.command("usage")
def tenants_usage(
    ctx: typer.Context, name: TenantArgument,
    since: Annotated[datetime | None, typer.Option(formats=DATE_FORMATS, metavar="DATE",
                                                   help="Only entries from then on (UTC): YYYY-MM-DD, or with a time.")]
    = None,
    as_json: JsonOption = False,
) -> None:
    """Credits reserved, charged and refunded (since a date), and the balance now."""
    with errors_reported(), runtime(ctx).connection() as conn:
        used = ledger.usage(conn, name, since=_utc(since))
    if as_json:
        print_json(used.as_dict())
        return
    period = f"since {used.since:%Y-%m-%d %H:%M} UTC" if used.since else "all time"
    rows: list[dict[str, Any]] = [
        {"": "granted", "credits": used.granted},
        {"": "reserved", "credits": used.reserved},
        {"": "charged", "credits": used.charged, "versions": used.versions_charged},
        {"": "refunded", "credits": used.refunded, "versions": used.versions_refunded},
        {"": "open reservations (now)", "credits": used.open_reserved},
        {"": "balance (now)", "credits": f"{used.balance} (unlimited)" if used.unlimited else used.balance},
    ]
    print_table(f"usage of {name}, {period}", rows, ["", "credits", "versions"])


# --- credits ----------------------------------------------------------------------------------


@credits_app.command("add")
def credits_add(
    ctx: typer.Context, name: TenantArgument,
    amount: Annotated[int, typer.Argument(metavar="AMOUNT", min=1, help="Credits to add.")],
) -> None:
    """Add credits to a tenant's balance."""
    with errors_reported(also=(ValueError,)), runtime(ctx).connection() as conn:
        balance = ledger.grant(conn, name, amount)
    console.print(f"tenant {name}: {amount} credits added, balance {balance}", highlight=False)


@credits_app.command("set")
def credits_set(
    ctx: typer.Context, name: TenantArgument,
    amount: Annotated[int | None, typer.Argument(
        metavar="AMOUNT", min=0, help="The new balance (the tenant becomes limited).")]
    = None,
    unlimited: Annotated[bool, typer.Option("--unlimited", help="Never refuse this tenant's work.")] = False,
) -> None:
    """Set a tenant's available balance, or make it unlimited; the ledger records the difference."""
    if (amount is None) == (not unlimited):
        raise fail("give either a balance or --unlimited")
    with errors_reported(also=(ValueError,)), runtime(ctx).connection() as conn:
        if amount is None:
            ledger.set_unlimited(conn, name)
        else:
            ledger.set_balance(conn, name, amount)
    console.print(f"tenant {name}: credits {'unlimited' if amount is None else amount}", highlight=False)


# --- keys -------------------------------------------------------------------------------------


@keys_app.command("create", epilog=(
    "Examples: KEY=$(tenderflow keys create --tenant acme --name bid-portal)  ·  "
    "tenderflow keys create --tenant acme --scope read --expires-after-days 90"))
def keys_create(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option(help="The tenant the key acts as.")],
    name: Annotated[str, typer.Option(help="A label for people: who or what uses the key.")] = "",
    scope: Annotated[KeyScope, typer.Option(
        help="write: upload, reprocess and read; read: only list, read, search and export (GET requests).")]
    = KeyScope.WRITE,
    expires_after_days: Annotated[int | None, typer.Option(
        min=1, max=36_500, help="The key stops working this many days from now (default: when revoked).",
        show_default=False)] = None,
    as_json: JsonOption = False,
) -> None:
    """Create an API key. It is printed once: store it now, it cannot be shown again."""
    with errors_reported(), runtime(ctx).connection() as conn:
        created = api_keys.create_api_key(conn, tenant, name=name, scope=scope.value,
                                          expires_after_days=expires_after_days)
    if as_json:
        print_json({"id": created.id, "tenant": created.tenant, "name": created.name, "key": created.key,
                     "scope": created.scope, "created_at": created.created_at, "expires_at": created.expires_at})
        return
    typer.echo(created.key)
    until = f", until {cell(created.expires_at)}" if created.expires_at else ""
    typer.echo(f"key {created.id} for tenant {created.tenant} ({created.scope}{until}): shown once, store it now "
               "(send it as `Authorization: Bearer <key>`)", err=True)


@keys_app.command("list")
def keys_list(
    ctx: typer.Context,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's keys.")] = None,
    as_json: JsonOption = False,
) -> None:
    """API keys, without their secrets."""
    with runtime(ctx).connection() as conn:
        rows = api_keys.list_api_keys(conn, tenant=tenant)
    if as_json:
        print_json(rows)
        return
    print_table("API keys", rows, ["id", "tenant", "name", "scope", "status", "created_at", "last_used_at",
                                   "expires_at", "revoked_at"], optional=["revoked_at", "created_at", "name"])


@keys_app.command("revoke")
def keys_revoke(ctx: typer.Context, key_id: Annotated[str, typer.Argument(
    metavar="KEY_ID", help="The key's id.")]) -> None:
    """Revoke an API key: it is refused from its next request on."""
    with errors_reported(), runtime(ctx).connection() as conn:
        row = api_keys.revoke_api_key(conn, key_id)
    console.print(f"key {row['id']} of tenant {row['tenant']} revoked", highlight=False)
