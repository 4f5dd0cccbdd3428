"""`tenderflow webhooks …`: tenants' endpoints for document.done and document.failed, and the
deliveries' log (tenderflow.webhooks). The CLI is the operator's: it acts for any tenant."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from tenderflow.cli.durations import parse_duration
from tenderflow.cli.output import JsonOption, console, errors_reported, fail, print_json, print_note, print_table
from tenderflow.cli.runtime import runtime
from tenderflow.handlers.webhooks import address_policy
from tenderflow.webhooks import deliveries, endpoints

webhooks_app = typer.Typer(
    help="Webhooks: URLs told when a tenant's documents are done or failed, or its tenders change (signed POSTs, "
         "retried).",
    no_args_is_help=True)

EndpointArgument = Annotated[int, typer.Argument(
    metavar="ENDPOINT_ID", help="The endpoint's id (`tenderflow webhooks list`).")]
EventsOption = Annotated[str | None, typer.Option(
    help=f"Comma-separated event types: {', '.join(endpoints.EVENT_TYPES)} (default: document.done,document.failed).")]


def _events(text: str | None) -> list[str] | None:
    return None if text is None else [part for part in text.split(",") if part.strip()]


def _endpoint_row(endpoint: endpoints.Endpoint) -> dict[str, Any]:
    state = "enabled" if endpoint.enabled else f"disabled: {endpoint.disabled_reason}"
    return {**endpoint.as_dict(), "state": state, "events": ", ".join(endpoint.events)}


@webhooks_app.command("add")
def webhooks_add(
    ctx: typer.Context,
    url: Annotated[str, typer.Argument(metavar="URL", help="Where to POST events: https://… (or http://).")],
    tenant: Annotated[str, typer.Option(help="The tenant whose documents it is told of.")] = "default",
    events: EventsOption = None,
    description: Annotated[str, typer.Option(help="A note for people (at most 200 characters).")] = "",
    as_json: JsonOption = False,
) -> None:
    """Register a webhook endpoint; prints its signing secret, shown this once."""
    rt = runtime(ctx)
    with errors_reported(code=2), rt.connection() as conn:
        created = endpoints.create_endpoint(conn, tenant, url, policy=address_policy(rt.settings),
                                            events=_events(events), description=description)
    if as_json:
        print_json({**created.endpoint.as_dict(), "secret": created.secret})
        return
    endpoint = created.endpoint
    console.print(f"webhook {endpoint.id} added for {endpoint.tenant}: {endpoint.url} "
                  f"({', '.join(endpoint.events)})", highlight=False)
    console.print(f"signing secret (shown once): {created.secret}", highlight=False)
    print_note(f"check it answers: tenderflow webhooks ping {endpoint.id}")


@webhooks_app.command("list")
def webhooks_list(
    ctx: typer.Context,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Every endpoint (never its secret), with its state and failures in a row."""
    with errors_reported(), runtime(ctx).connection() as conn:
        found = endpoints.list_endpoints(conn, tenant=tenant)
    if as_json:
        print_json([endpoint.as_dict() for endpoint in found])
        return
    print_table("webhook endpoints", [_endpoint_row(e) for e in found],
                ["id", "tenant", "url", "events", "state", "consecutive_failures", "last_delivered_at", "created_at"])


@webhooks_app.command("set")
def webhooks_set(
    ctx: typer.Context,
    endpoint_id: EndpointArgument,
    url: Annotated[str | None, typer.Option(help="A new URL (checked as at registration).")] = None,
    events: EventsOption = None,
    description: Annotated[str | None, typer.Option(help="A new note.")] = None,
) -> None:
    """Change an endpoint's URL, events or description."""
    rt = runtime(ctx)
    with errors_reported(code=2), rt.connection() as conn:
        endpoint = endpoints.update_endpoint(conn, endpoint_id, policy=address_policy(rt.settings), url=url,
                                             events=_events(events), description=description)
    console.print(f"webhook {endpoint.id}: {endpoint.url} ({', '.join(endpoint.events)})", highlight=False)


@webhooks_app.command("disable")
def webhooks_disable(
    ctx: typer.Context, endpoint_id: EndpointArgument,
    reason: Annotated[str, typer.Option(help="Why (shown in `webhooks list`).")] = "disabled by the operator",
) -> None:
    """Stop telling an endpoint; what it still had to be sent is cancelled (`redeliver` sends it later)."""
    with errors_reported(), runtime(ctx).connection() as conn:
        endpoints.set_enabled(conn, endpoint_id, False, reason=reason)
    console.print(f"webhook {endpoint_id} disabled", highlight=False)


@webhooks_app.command("enable")
def webhooks_enable(
    ctx: typer.Context, endpoint_id: EndpointArgument,
    redeliver: Annotated[bool, typer.Option(help="Also send again its failed and cancelled deliveries.")] = False,
) -> None:
    """Tell an endpoint again (its count of failures starts afresh)."""
    with errors_reported(), runtime(ctx).connection() as conn:
        endpoints.set_enabled(conn, endpoint_id, True)
        sent = deliveries.redeliver_failed(conn, endpoint_id) if redeliver else []
    console.print(f"webhook {endpoint_id} enabled" + (f"; {len(sent)} deliveries sent again" if redeliver else ""),
                  highlight=False)


@webhooks_app.command("remove")
def webhooks_remove(ctx: typer.Context, endpoint_id: EndpointArgument) -> None:
    """Remove an endpoint (its deliveries stay in the log)."""
    with errors_reported(), runtime(ctx).connection() as conn:
        endpoints.remove_endpoint(conn, endpoint_id)
    console.print(f"webhook {endpoint_id} removed", highlight=False)


@webhooks_app.command("rotate-secret")
def webhooks_rotate_secret(
    ctx: typer.Context, endpoint_id: EndpointArgument,
    keep_old_for: Annotated[str, typer.Option(
        help="How long the old secret still signs beside the new one (90s, 5m, 24h; 0: not at all).")] = "24h",
    as_json: JsonOption = False,
) -> None:
    """A new signing secret, shown once; the old one keeps signing too for a while."""
    keep = parse_duration(keep_old_for)
    with errors_reported(), runtime(ctx).connection() as conn:
        secret = endpoints.rotate_secret(conn, endpoint_id, keep_old_seconds=keep)
    if as_json:
        print_json({"id": endpoint_id, "secret": secret, "old_secret_valid_seconds": keep})
        return
    console.print(f"new signing secret of webhook {endpoint_id} (shown once): {secret}", highlight=False)
    print_note(f"requests carry a signature with each secret for the next {keep_old_for}")


@webhooks_app.command("ping")
def webhooks_ping(ctx: typer.Context, endpoint_id: EndpointArgument, as_json: JsonOption = False) -> None:
    """Send a signed `ping` event to an endpoint now, and say how it answered (exit 1 if not 2xx)."""
    rt = runtime(ctx)
    with errors_reported(), rt.connection() as conn:
        result = deliveries.send_ping(conn, endpoint_id, policy=address_policy(rt.settings),
                                      timeout_seconds=rt.settings.webhook_timeout_seconds)
    outcome = result.outcome
    if as_json:
        print_json({"delivery_id": result.delivery_id, "delivered": outcome.delivered, "status": outcome.status_code,
                    "error": outcome.failure(), "address": outcome.address, "duration_ms": outcome.duration_ms,
                    "response": outcome.response})
    elif outcome.delivered:
        console.print(f"webhook {endpoint_id} answered {outcome.status_code} in {outcome.duration_ms} ms "
                      f"({outcome.address}); delivery {result.delivery_id}", highlight=False)
    else:
        console.print(f"webhook {endpoint_id}: {outcome.failure()} ({outcome.duration_ms} ms); "
                      f"delivery {result.delivery_id}", highlight=False)
    if not outcome.delivered:
        raise typer.Exit(1)


@webhooks_app.command("deliveries")
def webhooks_deliveries(
    ctx: typer.Context,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's.")] = None,
    endpoint: Annotated[int | None, typer.Option(help="Only this endpoint's.")] = None,
    state: Annotated[str | None, typer.Option(
        help=f"Only in this state: {', '.join(deliveries.DELIVERY_STATES)}.")] = None,
    document: Annotated[int | None, typer.Option(help="Only this document's.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 50,
    as_json: JsonOption = False,
) -> None:
    """The deliveries' log, newest first: each event to each endpoint, its state and attempts."""
    with errors_reported(code=2), runtime(ctx).connection() as conn:
        rows = deliveries.list_deliveries(conn, tenant=tenant, endpoint_id=endpoint, state=state,
                                          document_id=document, limit=limit)
    if as_json:
        print_json(rows)
        return
    print_table("webhook deliveries", rows, ["id", "tenant", "endpoint_id", "event_type", "document_id", "version",
                                             "tender_id", "revision", "state", "attempts", "last_status", "last_error",
                                             "created_at"], optional=["tender_id", "revision"])


@webhooks_app.command("delivery")
def webhooks_delivery(
    ctx: typer.Context,
    delivery_id: Annotated[int, typer.Argument(
        metavar="DELIVERY_ID", help="The delivery's id (`tenderflow webhooks deliveries`).")],
    as_json: JsonOption = False,
) -> None:
    """One delivery with every attempt: when, the address connected to, the answer, how long it took."""
    with errors_reported(), runtime(ctx).connection() as conn:
        delivery = deliveries.get_delivery(conn, delivery_id)
    if as_json:
        print_json(delivery)
        return
    console.print(f"delivery {delivery_id}: {delivery['event_type']} {delivery['event_id']} to {delivery['url']} — "
                  f"{delivery['state']}", highlight=False)
    print_table("attempts", delivery["attempt_log"],
                ["attempt", "at", "outcome", "status_code", "error", "address", "duration_ms", "response"])


@webhooks_app.command("redeliver")
def webhooks_redeliver(
    ctx: typer.Context,
    delivery_ids: Annotated[list[int] | None, typer.Argument(
        metavar="DELIVERY_ID...", help="Deliveries to send again.")] = None,
    endpoint: Annotated[int | None, typer.Option(
        help="Send again every failed and cancelled delivery of this endpoint.")] = None,
) -> None:
    """Send deliveries again (the same event id: receivers can tell a repeat)."""
    if not delivery_ids and endpoint is None:
        raise fail("name the deliveries to send again, or --endpoint ID for all its failed ones", code=2)
    with errors_reported(code=2), runtime(ctx).connection() as conn:
        jobs = deliveries.redeliver(conn, delivery_ids or [])
        if endpoint is not None:
            jobs += deliveries.redeliver_failed(conn, endpoint)
    console.print(f"{len(jobs)} deliveries queued to be sent again", highlight=False)
