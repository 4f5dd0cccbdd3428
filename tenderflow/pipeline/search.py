"""Full-text search over the pages of documents' readable versions and their extracted fields,
with the fields as filters too.

Each page of a document's readable version has a search entry (migration 0021, written by
`index_for_search` when a version is promoted for readers): a `tsvector` in the
configuration of the document's language, in one GIN index with the tenant. Each document's search
row holds the words of its extracted fields (migration 0045): the title, the buyer's name and the
reference number weighted A, the place of performance, the buyer's address and the lots' titles B,
the award criteria's names C, in a GIN index of their own. Queries use PostgreSQL's
`websearch_to_tsquery` syntax: `road resurfacing` (both words), `"winter maintenance"` (the phrase),
`asphalt or concrete`, `bridge -rail` (without). Results are pages and fields, best first
(`ts_rank_cd`: a page's words weigh D, so a match in a title outranks the same match in running
text), each with a snippet whose matches are marked and the page number to open: a field's hit names
the field, its snippet is the field's value and its page the one the value was read on.

What is ranked: of the pages, the newest `RANKED` that match and pass the filters, every one of them
when fewer match (ranking all 99,000 pages that hold a common word would cost seconds). Which they
are is found either through the words' index (every match, for rare words) or newest document first
(for common ones), whichever the planner's estimate says is cheaper (see `_candidates`); the answer
is the same. Of the fields, the newest `RANKED` documents whose fields match and pass the filters,
found through their index. A tenant sees only its own documents.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import psycopg
from psycopg.rows import dict_row

from tenderflow.errors import SearchQueryError
from tenderflow.pipeline.versions import VersionState
from tenderflow.sqlfiles import NamedQueries

QUERIES = NamedQueries("tenderflow.pipeline", "search.sql")

MAX_QUERY_CHARS = 500
MAX_RESULTS = 200
RANKED = 500
"""The newest this many matching pages (after the filters) are ranked; every one when fewer match."""
_MIN_THRESHOLD = 1000
_INDEX_PAGE_COST = 4
"""How many pages read in order (newest first) cost what one match read through the index costs."""
_MARK_START, _MARK_END = "\ue000", "\ue001"
_CPV_PREFIX = re.compile(r"\d{1,8}")


@dataclass(frozen=True)
class SearchFilters:
    """Narrow a search by the document's state and its extracted fields."""

    state: VersionState | None = None
    deadline_after: date | None = None
    deadline_before: date | None = None
    cpv_prefix: str | None = None
    buyer: str | None = None


@dataclass(frozen=True)
class SearchHit:
    document_id: int
    tenant: str
    filename: str
    state: str
    version: int
    page: int
    rank: float
    snippet: str
    highlights: list[tuple[int, int]]
    """(start, end) offsets in `snippet` of the words that matched."""
    field: str | None = None
    """The extracted field that matched (title, buyer_name, reference_number, place_of_performance,
    buyer_address, lot_title, award_criterion): `snippet` is its value, `page` the page it was read on.
    None for a match in a page's text."""


def search(
    conn: psycopg.Connection[Any], query: str, *, tenant: str | None = None,
    filters: SearchFilters = SearchFilters(), limit: int = 20,
) -> list[SearchHit]:
    """The pages and extracted fields that match `query`, best first. Raises SearchQueryError for a
    query or filter that cannot be used (empty, too long, a CPV prefix that is not digits)."""
    query = query.strip()
    if not query:
        raise SearchQueryError("the search query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise SearchQueryError(f"the search query is {len(query)} characters long; at most {MAX_QUERY_CHARS}")
    if "\x00" in query:
        raise SearchQueryError("the search query contains a NUL character")
    cpv = filters.cpv_prefix.replace("-", "").strip() if filters.cpv_prefix else None
    if cpv is not None and not _CPV_PREFIX.fullmatch(cpv):
        raise SearchQueryError(f"a CPV prefix is 1 to 8 digits (like 4523 or 45233140), not {filters.cpv_prefix!r}")
    params = {
        "query": query, "tenant": tenant, "state": filters.state.value if filters.state else None,
        "deadline_after": filters.deadline_after.isoformat() if filters.deadline_after else None,
        "deadline_before": filters.deadline_before.isoformat() if filters.deadline_before else None,
        "cpv": cpv, "buyer": re.sub(r"([\\%_])", r"\\\1", filters.buyer) if filters.buyer else None,
        "cap": RANKED,
    }
    # Statements here are never prepared (psycopg prepares one run 5 times): a generic plan cannot
    # see how common the words are, nor which filters are given; the plans are chosen here instead.
    with conn.transaction():
        # The nested loops below look costly to a planner that cannot see where they stop, and past
        # jit_above_cost the JIT compiler would spend 20 ms making them faster by less than that.
        conn.execute("SET LOCAL jit = off")
        limit = max(1, min(limit, MAX_RESULTS))
        keys = _candidates(conn, query, tenant, params)
        rows = conn.cursor(row_factory=dict_row).execute(QUERIES["search_rank"], {
            "query": query, "limit": limit,
            "document_ids": [key[0] for key in keys], "pages": [key[1] for key in keys],
        }, prepare=False).fetchall() if keys else []
        # The fields' index, whatever the planner would prefer for a few rows (as _probe does for pages).
        conn.execute("SET LOCAL enable_seqscan = off")
        rows += conn.cursor(row_factory=dict_row).execute(
            QUERIES["search_fields"], {**params, "limit": limit}, prepare=False).fetchall()
    rows.sort(key=lambda row: (-row["rank"], -row["document_id"], row["page_number"], row.get("field") or ""))
    hits = []
    for row in rows[:limit]:
        snippet, highlights = _unmark(row["snippet"])
        hits.append(SearchHit(
            document_id=row["document_id"], tenant=row["tenant"], filename=row["filename"], state=row["state"],
            version=row["version"], page=row["page_number"], rank=round(float(row["rank"]), 4),
            snippet=snippet, highlights=highlights, field=row.get("field"),
        ))
    return hits


def _candidates(
    conn: psycopg.Connection[Any], query: str, tenant: str | None, params: dict[str, Any]
) -> list[tuple[int, int]]:
    """The pages to rank: the newest RANKED that match and pass the filters, every one when fewer do.

    Two ways to find them, and the planner's estimate of the tenant's matches (M) chooses: through
    the words' index, reading every match (`_probe`: cost M), or newest document first through each
    document's pages until RANKED match (`_newest`: cost RANKED × pages / M, each page read about
    `_INDEX_PAGE_COST` times cheaper: in order, not scattered). The first is cheaper below the
    threshold where the two meet. Each way stops after a few times what the estimate promised; when
    that is not enough (the estimate was wrong) the other is taken, and when both stop, the newest
    are read however far that goes. Every way gives the same answer."""
    indexed = conn.execute(QUERIES["search_indexed_pages"], prepare=False).fetchone()
    pages = max(0, int(indexed[0])) if indexed else 0
    threshold = max(1, _MIN_THRESHOLD, math.isqrt(RANKED * pages // _INDEX_PAGE_COST))
    plan = conn.execute("EXPLAIN (FORMAT JSON) " + QUERIES["search_matches"], {"query": query, "tenant": tenant},
                        prepare=False).fetchone()
    expected = float(plan[0][0]["Plan"]["Plan Rows"]) if plan else 0.0
    probed = expected < threshold
    if probed and (found := _probe(conn, params, probe=max(2 * threshold, 4 * int(expected)))) is not None:
        return found
    if (newest := _newest(conn, params, budget=4 * threshold)) is not None:
        return newest
    if not probed and (found := _probe(conn, params, probe=2 * threshold)) is not None:
        return found
    newest = _newest(conn, params, budget=None)  # both ways stopped: the newest, however far
    assert newest is not None
    return newest


def _probe(conn: psycopg.Connection[Any], params: dict[str, Any], *, probe: int) -> list[tuple[int, int]] | None:
    """The newest RANKED matches that pass the filters, of every page that may match, read through
    the GIN index (whatever the planner would prefer); None when there are `probe` or more of those."""
    conn.execute("SET LOCAL enable_seqscan = off")
    rows = conn.execute(QUERIES["search_probe"], {**params, "probe": probe}, prepare=False).fetchall()
    conn.execute("SET LOCAL enable_seqscan = on")
    if not rows or rows[0][0] >= probe:
        return None
    return [(int(row[1]), int(row[2])) for row in rows if row[1] is not None]


def _newest(
    conn: psycopg.Connection[Any], params: dict[str, Any], *, budget: int | None
) -> list[tuple[int, int]] | None:
    """The newest RANKED matching pages of the documents that pass the filters, reading documents
    newest first through their primary keys (not the words' index, which would read every match
    before the newest), at most `budget` pages: None when those held fewer than RANKED matches."""
    conn.execute("SET LOCAL enable_bitmapscan = off")
    rows = conn.execute(QUERIES["search_newest"], {**params, "budget": budget}, prepare=False).fetchall()
    conn.execute("SET LOCAL enable_bitmapscan = on")
    matches = [(int(row[0]), int(row[1])) for row in rows if row[2]]
    if len(matches) < RANKED and budget is not None and any(row[3] == budget for row in rows):
        return None
    return matches[:RANKED]


def _unmark(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """The snippet without its markers, and where the marked words are in it."""
    text: list[str] = []
    highlights: list[tuple[int, int]] = []
    position, start = 0, 0
    for character in " ".join(marked.split()):
        if character == _MARK_START:
            start = position
        elif character == _MARK_END:
            highlights.append((start, position))
        else:
            text.append(character)
            position += 1
    return "".join(text), highlights


def index_for_search(conn: psycopg.Connection[Any], document_ids: Sequence[int]) -> None:
    """Make what search finds of these documents their readable version (after a promotion, in its
    transaction): their search rows (tenant, the fields the filters read) and one entry per page
    of that version's pages, a tsvector in the document's language configuration (pages that a
    version only extracting again shares with the one before keep theirs). A document without a
    readable version, or deleted, gets none."""
    params = {"document_ids": list(document_ids)}
    conn.execute(QUERIES["search_document_index"], params)
    conn.execute(QUERIES["search_pages_unindex_stale"], params)
    conn.execute(QUERIES["search_pages_index"], params)
