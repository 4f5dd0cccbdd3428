"""`tenderflow search`: full-text search over the documents' pages and extracted fields
(tenderflow.pipeline.search)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer
from rich.text import Text

from tenderflow.cli.output import JsonOption, console, errors_reported, print_json, print_table, safe
from tenderflow.cli.runtime import runtime
from tenderflow.pipeline.search import MAX_RESULTS, SearchFilters, search
from tenderflow.pipeline.versions import VersionState


def search_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help='Words (all of them), "a phrase", or, -without.')],
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's documents.")] = None,
    state: Annotated[VersionState | None, typer.Option(help="Only documents in this state.")] = None,
    deadline_after: Annotated[datetime | None, typer.Option(
        formats=["%Y-%m-%d"], help="Submission deadline on or after this day (YYYY-MM-DD).")] = None,
    deadline_before: Annotated[datetime | None, typer.Option(
        formats=["%Y-%m-%d"], help="Submission deadline before this day (YYYY-MM-DD).")] = None,
    cpv: Annotated[str | None, typer.Option(help="CPV code prefix, e.g. 4523.")] = None,
    buyer: Annotated[str | None, typer.Option(help="Part of the buyer's name.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=MAX_RESULTS, help="At most this many hits.")] = 20,
    as_json: JsonOption = False,
) -> None:
    """Search the text and extracted fields of every document's readable version: best first, with a snippet."""
    filters = SearchFilters(state=state, deadline_after=deadline_after.date() if deadline_after else None,
                            deadline_before=deadline_before.date() if deadline_before else None,
                            cpv_prefix=cpv, buyer=buyer)
    with errors_reported(code=2):
        with runtime(ctx).connection() as conn:
            hits = search(conn, query, tenant=tenant, filters=filters, limit=limit)
    if as_json:
        print_json([vars(hit) for hit in hits])
        return
    if not console.is_terminal:
        print_table("search", [vars(hit) for hit in hits],
                    ["document_id", "page", "field", "rank", "tenant", "filename", "state", "snippet"])
        return
    if not hits:
        console.print(f"no page or field matches {query!r}", highlight=False)
        return
    for hit in hits:
        snippet = safe(hit.snippet)
        for start, end in hit.highlights:
            snippet.stylize("bold yellow", start, end)
        where = f" {hit.field} (page {hit.page})  " if hit.field else f" page {hit.page}  "
        console.print(Text.assemble((f"document {hit.document_id}", "bold"), where,
                                    safe(hit.filename), f"  [{hit.state}, {hit.tenant}]  rank {hit.rank:g}"))
        console.print(Text("  ") + snippet)
