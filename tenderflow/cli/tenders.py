"""`tenderflow tenders …` (a tender's documents as one record: tenderflow.tenders) and `tenderflow calendar`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from tenderflow.cli.export import check_output, exported_note, write_export
from tenderflow.cli.output import (
    JsonOption,
    console,
    errors_reported,
    fail,
    print_json,
    print_note,
    print_table,
    safe,
)
from tenderflow.cli.runtime import runtime

tenders_app = typer.Typer(help="Tenders: a tender's documents (notice, specifications, forms, addenda) as one "
                               "record, their fields merged with where each came from.", no_args_is_help=True)

TenderArgument = Annotated[int, typer.Argument(metavar="TENDER_ID", help="The tender's id (`tenders list`).")]
TenantOption = Annotated[str | None, typer.Option(help="Act as this tenant (default: the operator, every tenant).")]
Kind = Literal["addendum", "notice", "specification", "form", "other", "auto"]


@tenders_app.command("create")
def create(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option(help="The tenant the tender belongs to.")] = "default",
    name: Annotated[str | None, typer.Option(help="A name for people (default: the merged title).")] = None,
    documents: Annotated[list[int] | None, typer.Option(
        "--document", "-d", help="A document that joins it at once (repeat for more).")] = None,
) -> None:
    """Make a tender, empty or with documents already uploaded."""
    from tenderflow.tenders import records

    with errors_reported(), runtime(ctx).connection() as conn, conn.transaction():
        tender_id = records.create_tender(conn, tenant, name=name)
        if documents:
            records.add_documents(conn, tender_id, documents, tenant=tenant)
    console.print(f"tender {tender_id} created" + (f" with documents {', '.join(map(str, documents))}"
                                                     if documents else ""), highlight=False)


@tenders_app.command("list")
def list_command(
    ctx: typer.Context,
    tenant: TenantOption = None,
    deadline_after: Annotated[datetime | None, typer.Option(
        formats=["%Y-%m-%d"], help="Merged submission deadline on or after this day.")] = None,
    deadline_before: Annotated[datetime | None, typer.Option(
        formats=["%Y-%m-%d"], help="Merged submission deadline before this day.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 50,
    as_json: JsonOption = False,
) -> None:
    """Tenders, newest first: their merged title, reference and deadlines, documents and conflicts."""
    from tenderflow.tenders import records

    with errors_reported(), runtime(ctx).connection() as conn:
        rows = records.list_tenders(conn, tenant=tenant, limit=limit,
                                    deadline_after=deadline_after.date().isoformat() if deadline_after else None,
                                    deadline_before=deadline_before.date().isoformat() if deadline_before else None)
    if as_json:
        print_json(rows)
        return
    print_table("tenders", [{**row, "name": row["name"] or row["title"]} for row in rows],
                ["id", "tenant", "name", "reference", "submission_deadline", "questions_deadline", "documents",
                 "conflicts", "revision"], optional=["questions_deadline", "revision", "tenant"])


def _value_text(entry: dict[str, Any]) -> str:
    from tenderflow.tenders.merging import display_value

    return display_value(entry.get("value"))


@tenders_app.command("show")
def show(
    ctx: typer.Context, tender_id: TenderArgument, tenant: TenantOption = None,
    history: Annotated[bool, typer.Option("--history", help="Also every revision: when and why it changed.")] = False,
    as_json: JsonOption = False,
) -> None:
    """A tender: its documents, merged fields with their sources, conflicts and history.

    Each document with its kind and what decided it; each field with the document, page and quote it
    came from; the conflicts; and, sentence by sentence, how each field came to its value."""
    from tenderflow.tenders import records
    from tenderflow.tenders.merging import describe_conflict, history_sentences

    with errors_reported(), runtime(ctx).connection() as conn:
        tender = records.get_tender(conn, tender_id, tenant=tenant)
        revisions = records.tender_revisions(conn, tender_id, tenant=tenant) if history else []
    if as_json:
        print_json({**tender, "revisions": revisions} if history else tender)
        return
    console.print(safe(f"tender {tender_id}: {tender['display_name']}  (tenant {tender['tenant']}, revision "
                       f"{tender['revision']}, {tender['documents']} documents, {tender['conflicts']} conflicts)"))
    print_table("documents", [{**m, "kind": f"{m['kind'] or '?'} ({m['kind_source'] or 'not read yet'})"}
                              for m in tender["members"]],
                ["document_id", "filename", "state", "kind", "number", "issued", "package_path"],
                optional=["package_path", "issued", "number"])
    rows = []
    for name, entry in tender["fields"].items():
        note = []
        if entry.get("conflict"):
            note.append("conflict" + (" (chosen)" if entry["conflict"].get("resolved") else ""))
        if entry.get("history"):
            note.append(f"changed {len(entry['history'])}x")
        if entry.get("alternatives"):
            note.append(f"{len(entry['alternatives'])} other reading(s)")
        rows.append({"field": name, "value": _value_text(entry), "from": entry.get("label"), "page": entry.get("page"),
                     "quote": entry.get("quote"), "note": ", ".join(note)})
    print_table("merged fields", rows, ["field", "value", "from", "page", "note", "quote"], optional=["quote"])
    for member in tender["members"]:
        if member["effect"]:
            print_note(member["effect"])
    for conflict in tender["conflict_list"]:
        print_note(describe_conflict(conflict["field"], conflict))
    for name, entry in tender["fields"].items():
        if entry.get("history"):
            for sentence in history_sentences(name, entry):
                print_note(sentence)
    for revision in revisions:
        when = f"{revision['created_at']:%Y-%m-%d %H:%M UTC}"
        print_note(f"revision {revision['revision']} ({when}): {revision['cause']}")
        for change in revision["changes"]:
            print_note(f"  {change.get('sentence')}")


@tenders_app.command("add")
def add(
    ctx: typer.Context, tender_id: TenderArgument,
    documents: Annotated[list[int], typer.Argument(metavar="DOCUMENT_ID...", help="Documents already uploaded.")],
    tenant: TenantOption = None,
) -> None:
    """Add documents already uploaded to a tender (it is merged again at once)."""
    from tenderflow.tenders import records

    with errors_reported(), runtime(ctx).connection() as conn:
        outcome = records.add_documents(conn, tender_id, documents, tenant=tenant)
    _merged(tender_id, outcome)


@tenders_app.command("remove")
def remove(
    ctx: typer.Context, tender_id: TenderArgument,
    document_id: Annotated[int, typer.Argument(metavar="DOCUMENT_ID")], tenant: TenantOption = None,
) -> None:
    """Take a document out of a tender (it stays a document)."""
    from tenderflow.tenders import records

    with errors_reported(), runtime(ctx).connection() as conn:
        outcome = records.remove_document(conn, tender_id, document_id, tenant=tenant)
    _merged(tender_id, outcome)


@tenders_app.command("kind")
def kind_command(
    ctx: typer.Context, tender_id: TenderArgument, document_id: Annotated[int, typer.Argument(metavar="DOCUMENT_ID")],
    kind: Annotated[Kind, typer.Argument(metavar="KIND", help="What the document is (notice, specification, "
                                         "addendum, form, other); auto: read it from the document again.")],
    tenant: TenantOption = None,
) -> None:
    """Say what a member document is (addendum, notice, specification, form, other): precedence follows."""
    from tenderflow.tenders import records

    with errors_reported(), runtime(ctx).connection() as conn:
        outcome = records.set_kind(conn, tender_id, document_id, None if kind == "auto" else kind, tenant=tenant)
    _merged(tender_id, outcome)


@tenders_app.command("choose")
def choose(
    ctx: typer.Context, tender_id: TenderArgument,
    field: Annotated[str, typer.Argument(metavar="FIELD", help="The field, e.g. submission_deadline or buyer.email.")],
    document: Annotated[str, typer.Argument(metavar="DOCUMENT_ID", help="Take its value from this member (its id), "
                                                                             "or `auto`: precedence decides again.")],
    tenant: TenantOption = None,
) -> None:
    """Settle a conflict: the field's value comes from this document."""
    from tenderflow.tenders import records

    if document != "auto" and not document.isdigit():
        raise fail(f"give a document id or auto, not {document!r}", code=2)
    with errors_reported(), runtime(ctx).connection() as conn:
        outcome = records.choose(conn, tender_id, field, None if document == "auto" else int(document), tenant=tenant)
    _merged(tender_id, outcome)


def _merged(tender_id: int, outcome: Any) -> None:
    if outcome.revision is None:
        print_note(f"tender {tender_id}: merged, nothing changed")
        return
    print_note(f"tender {tender_id}: revision {outcome.revision}")
    for change in outcome.changes:
        print_note(f"  {change.get('sentence')}")


@tenders_app.command("rename")
def rename(ctx: typer.Context, tender_id: TenderArgument, name: Annotated[str, typer.Argument(metavar="NAME")],
           tenant: TenantOption = None) -> None:
    """Give a tender a name for people ('' : its merged title again)."""
    from tenderflow.tenders import records

    with errors_reported(), runtime(ctx).connection() as conn:
        records.rename_tender(conn, tender_id, name or None, tenant=tenant)
    print_note(f"tender {tender_id} renamed")


@tenders_app.command("delete")
def delete(ctx: typer.Context, tender_id: TenderArgument, tenant: TenantOption = None,
           yes: Annotated[bool, typer.Option("--yes", help="Do not ask.")] = False) -> None:
    """Delete a tender, its history and proposals; its documents stay documents."""
    from tenderflow.tenders import records

    if not yes and not typer.confirm(f"delete tender {tender_id} (its documents stay)?"):
        raise typer.Exit(1)
    with errors_reported(), runtime(ctx).connection() as conn:
        records.delete_tender(conn, tender_id, tenant=tenant)
    print_note(f"tender {tender_id} deleted")


@tenders_app.command("proposals")
def proposals_command(
    ctx: typer.Context, tenant: TenantOption = None,
    state: Annotated[Literal["proposed", "accepted", "rejected", "undone", "all"], typer.Option()] = "proposed",
    as_json: JsonOption = False,
) -> None:
    """Documents proposed to join a tender because they name its reference number.

    A proposal joins a tender, or makes one with another document in no tender yet; accept, reject or
    undo it."""
    from tenderflow.tenders import proposals

    with errors_reported(), runtime(ctx).connection() as conn:
        rows = proposals.list_proposals(conn, tenant=tenant, state=None if state == "all" else state)
    if as_json:
        print_json(rows)
        return
    shown = [{**row, "join": f"tender {row['tender_id']}" if row["tender_id"] else
              f"new tender with document {row['partner_id']} ({row['partner_filename']})"} for row in rows]
    print_table("tender proposals", shown, ["id", "tenant", "document_id", "filename", "join", "reference", "state",
                                            "result_tender_id"], optional=["tenant", "result_tender_id"])


ProposalArgument = Annotated[int, typer.Argument(metavar="PROPOSAL_ID", help="`tenderflow tenders proposals`.")]


@tenders_app.command("accept")
def accept(ctx: typer.Context, proposal_id: ProposalArgument, tenant: TenantOption = None) -> None:
    """Accept a proposal: the document joins the tender (or a new tender of the pair is made)."""
    from tenderflow.tenders import proposals

    with errors_reported(), runtime(ctx).connection() as conn:
        tender_id = proposals.accept(conn, proposal_id, tenant=tenant)
    print_note(f"proposal {proposal_id} accepted: tender {tender_id}")


@tenders_app.command("reject")
def reject(ctx: typer.Context, proposal_id: ProposalArgument, tenant: TenantOption = None) -> None:
    """Reject a proposal (it is not made again)."""
    from tenderflow.tenders import proposals

    with errors_reported(), runtime(ctx).connection() as conn:
        proposals.reject(conn, proposal_id, tenant=tenant)
    print_note(f"proposal {proposal_id} rejected")


@tenders_app.command("undo")
def undo(ctx: typer.Context, proposal_id: ProposalArgument, tenant: TenantOption = None) -> None:
    """Undo an accepted proposal: the document leaves the tender again (a tender made for it goes)."""
    from tenderflow.tenders import proposals

    with errors_reported(), runtime(ctx).connection() as conn:
        tender_id = proposals.undo(conn, proposal_id, tenant=tenant)
    print_note(f"proposal {proposal_id} undone" + (f": tender {tender_id} kept" if tender_id else
                                                   ": its tender is gone"))


@tenders_app.command("search")
def search_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help='Words (all of them), "a phrase", or, -without.')],
    tenant: TenantOption = None,
    deadline_after: Annotated[datetime | None, typer.Option(formats=["%Y-%m-%d"])] = None,
    deadline_before: Annotated[datetime | None, typer.Option(formats=["%Y-%m-%d"])] = None,
    limit: Annotated[int, typer.Option(min=1, max=200)] = 20,
    as_json: JsonOption = False,
) -> None:
    """Tenders whose documents match, best first (the deadline filters read the merged deadline)."""
    from tenderflow.tenders.search import search_tenders

    try:
        with runtime(ctx).connection() as conn:
            hits = search_tenders(conn, query, tenant=tenant, limit=limit,
                                  deadline_after=deadline_after.date() if deadline_after else None,
                                  deadline_before=deadline_before.date() if deadline_before else None)
    except Exception as exc:
        from tenderflow.errors import TenderflowError

        if isinstance(exc, TenderflowError):
            raise fail(str(exc), code=2) from exc
        raise
    rows = [{"tender_id": hit.tender_id, "name": hit.name, "reference": hit.reference,
             "submission_deadline": hit.submission_deadline, "rank": hit.rank,
             "matches": "; ".join(f"document {h.document_id} p{h.page}: {h.snippet[:60]}" for h in hit.hits)}
            for hit in hits]
    if as_json:
        print_json([{**row, "hits": [vars(h) for h in hit.hits]} for row, hit in zip(rows, hits, strict=True)])
        return
    print_table("tenders", rows, ["tender_id", "name", "reference", "submission_deadline", "rank", "matches"],
                optional=["matches", "rank"])


@tenders_app.command("export")
def export_command(
    ctx: typer.Context,
    format: Annotated[Literal["csv", "xlsx", "jsonl", "ocds"], typer.Option(  # noqa: A002 (the option's name)
        "--format", help="csv or xlsx: a row per tender, each field with its page and document; jsonl: every "
                         "field with its provenance, history and the revisions; ocds: an OCDS release package, "
                         "an ocid per tender, a release per revision.")] = "csv",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here (default: stdout).")] = None,
    tenant: TenantOption = None,
    since: Annotated[datetime | None, typer.Option(
        formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"], help="Only tenders changed since then (UTC).")] = None,
) -> None:
    """Export tenders: their merged fields with provenance, or OCDS with a release per change."""
    from tenderflow.tenders.export import exported_tenders, write_tenders

    check_output(format, output)
    settings = runtime(ctx).settings
    with errors_reported(), runtime(ctx).connection() as conn:
        tenders = exported_tenders(conn, tenant=tenant, since=since.replace(tzinfo=UTC) if since else None,
                                   with_revisions=format in ("ocds", "jsonl"))
        options: dict[str, Any] = {"prefix": settings.ocds_ocid_prefix, "publisher": settings.ocds_publisher_name,
                                   "public_url": settings.public_url}
        count = write_export(format, output, lambda out: write_tenders(tenders, out, format, **options))
    exported_note(count, "release(s)" if format == "ocds" else "tender(s)", output)


def calendar_command(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option(help="Whose tenders.")] = "default",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the .ics here (default: stdout).")]
    = None,
    new_token: Annotated[bool, typer.Option(
        "--new-token", help="Instead, make the tenant's calendar token (the one before stops working) and print "
                            "the URL a calendar app subscribes to.")] = False,
    revoke_token: Annotated[bool, typer.Option("--revoke-token", help="Instead, stop the tenant's token.")] = False,
) -> None:
    """The tenant's tender deadlines as an iCalendar file (or its subscription URL).

    One event per submission or questions deadline, updated in place when a deadline moves, in the
    buyer's time zone (a floating local time when the buyer's country is unknown)."""
    from tenderflow.tenders import calendar

    settings = runtime(ctx).settings
    with errors_reported(), runtime(ctx).connection() as conn:
        if new_token:
            token = calendar.create_token(conn, tenant)
            base = (settings.public_url or f"http://{settings.api_host}:{settings.api_port}").rstrip("/")
            console.print(f"{base}/v1/calendar.ics?token={token}", highlight=False, soft_wrap=True)
            print_note("shown once: a calendar app subscribes to this URL; `--new-token` again replaces it")
            return
        if revoke_token:
            print_note(f"{calendar.revoke_tokens(conn, tenant)} token(s) of {tenant} revoked")
            return
        text = calendar.feed(conn, tenant, domain=calendar.calendar_domain(settings.public_url),
                             public_url=settings.public_url)
    if output is None:
        sys.stdout.write(text)
        return
    output.write_text(text, encoding="utf-8", newline="")
    print_note(f"{text.count('BEGIN:VEVENT')} deadline(s) written to {output}")


def upload_into_tenders(
    ctx: typer.Context, paths: list[Path], packages: list[Path], *, tender: str | None, name: str | None, tenant: str,
    priority: int, languages: str | None, wait: bool, as_json: bool, reprocess_existing: bool,
    wait_for_rows: Callable[..., tuple[dict[Any, Any], bool]],
) -> None:
    """`upload … --tender NEW|ID`, or ZIP packages: everything into one tender (or each ZIP into its own
    and the PDFs as they are), each tender's upload one transaction. Exit codes as `upload`'s;
    `wait_for_rows` is `upload --wait`'s (tenderflow.cli.documents)."""
    from tenderflow.pipeline.uploads import UploadPolicy, check_languages, find_pdfs, upload_paths
    from tenderflow.pipeline.versions import VersionState
    from tenderflow.tenders.packages import PackageLimits
    from tenderflow.tenders.uploads import upload_to_tender

    if reprocess_existing:
        raise fail("--reprocess cannot be combined with a tender's upload: reprocess its documents by id", code=2)
    if tender is not None and tender.upper() != "NEW" and not tender.isdigit():
        raise fail(f"--tender takes NEW or a tender's id, not {tender!r}", code=2)
    with errors_reported(code=2):
        asked = check_languages(languages)
        loose = list(find_pdfs([path for path in paths if path not in packages]))
    rt = runtime(ctx)
    settings = rt.settings
    policy = UploadPolicy.from_settings(settings, tenant=tenant, priority=priority, languages=asked)
    package_limits = PackageLimits.from_settings(settings)
    groups = [(None if tender.upper() == "NEW" else int(tender), [*loose, *packages], name)] if tender else \
        [(None, [package], package.stem) for package in packages]
    rows: list[dict[str, Any]] = []
    with errors_reported(), rt.connection() as conn:
        storage = rt.storage
        if tender is None and loose:
            rows += [dict(vars(outcome), tender_id=None) for outcome in upload_paths(conn, storage, loose, policy)]
        for tender_id, files, tender_name in groups:
            uploaded = upload_to_tender(conn, storage, files, policy, tender=tender_id, name=tender_name,
                                        package_limits=package_limits, work_dir=settings.data_dir / "spool")
            rows += [dict(vars(outcome), tender_id=uploaded.tender_id) for outcome in uploaded.outcomes]
            print_note(f"tender {uploaded.tender_id}{' (new)' if uploaded.created_tender else ''}: "
                       f"{len(uploaded.documents)} document(s)")
    refused = sum(row["status"] in ("rejected", "skipped") for row in rows)
    failed = interrupted = False
    if wait:
        finished, interrupted = wait_for_rows(rt, rows, quiet=as_json)
        failed = any(p.state == VersionState.FAILED for p in finished.values())
    if as_json:
        print_json(rows)
    else:
        print_table("upload", rows, ["source", "status", "tender_id", "document_id", "version",
                                     *(("state", "pages") if wait else ("size_bytes",)), "error"],
                    optional=["size_bytes", "version"])
    if interrupted:
        print_note("stopped waiting (Ctrl-C); the documents above go on: `tenderflow status`")
        raise typer.Exit(130)
    if failed:
        raise typer.Exit(1)
    if refused:
        raise typer.Exit(2)
