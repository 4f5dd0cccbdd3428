"""`GET /v1/search`: a tenant's full-text search over its documents (tenderflow.pipeline.search)."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from tenderflow.api.auth import Services, Tenant
from tenderflow.pipeline.search import MAX_QUERY_CHARS, MAX_RESULTS, SearchFilters, search
from tenderflow.pipeline.versions import VersionState
from tenderflow.texts import Line

router = APIRouter(prefix="/v1", tags=["search"])


class SearchResult(BaseModel):
    document_id: int
    filename: str
    state: str = Field(description="The state of the document's latest version.")
    version: int = Field(description="The version whose pages matched: the document's readable one.")
    page: int = Field(description="The page that matched, or the page a matching field was read on.")
    field: str | None = Field(default=None, description=(
        "The extracted field that matched (title, buyer_name, reference_number, place_of_performance, "
        "buyer_address, lot_title, award_criterion): the snippet is its value. null: the page's text matched."))
    rank: float = Field(description="ts_rank_cd: higher is better; only comparable within one search. A field's "
                                    "words weigh more than a page's (title, buyer, reference most).")
    snippet: str = Field(description="Up to two fragments of the page around the matches, or the field's value.")
    highlights: list[tuple[int, int]] = Field(description="[start, end) offsets in `snippet` of matched words.")


class SearchResults(BaseModel):
    query: str
    results: list[SearchResult]


@router.get("/search", response_model=SearchResults, summary="Search the text and fields of your documents",
            responses={400: {"description": "An empty or unusable query or filter"}})
def search_documents(
    tenant: Tenant,
    services: Services,
    q: Annotated[Line, Query(min_length=1, max_length=MAX_QUERY_CHARS, description=(
        'websearch syntax: words (all of them), "a phrase", or, -without'))],
    state: VersionState | None = None,
    deadline_after: Annotated[date | None, Query(description="Submission deadline on or after this day.")] = None,
    deadline_before: Annotated[date | None, Query(description="Submission deadline before this day.")] = None,
    cpv: Annotated[Line | None, Query(max_length=10, description="CPV code prefix, e.g. 4523.")] = None,
    buyer: Annotated[Line | None, Query(max_length=200, description="Part of the buyer's name.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_RESULTS)] = 20,
) -> SearchResults:
    """Pages and extracted fields (title, buyer, reference number, …) of your documents' readable
    versions that match `q`, best first, each with a snippet and the page number. A document is
    searchable once a version of it is done."""
    filters = SearchFilters(state=state, deadline_after=deadline_after, deadline_before=deadline_before,
                            cpv_prefix=cpv, buyer=buyer)
    with services.pool.connection() as conn:
        hits = search(conn, q, tenant=tenant, filters=filters, limit=limit)
    return SearchResults(query=q, results=[
        SearchResult(document_id=h.document_id, filename=h.filename, state=h.state, version=h.version, page=h.page,
                     field=h.field, rank=h.rank, snippet=h.snippet, highlights=h.highlights) for h in hits])
