"""Full-text search over the pages of documents' readable versions, with the fields as filters.

Each page is indexed (a GIN index over a `tsvector` column) in the configuration of its document's
language (see migration 0015); queries use PostgreSQL's `websearch_to_tsquery` syntax:
`road resurfacing` (both words), `"winter maintenance"` (the phrase), `asphalt or concrete`,
`bridge -rail` (without). Results are pages, best first (`ts_rank_cd`), each with a snippet whose
matches are marked, and the page number to open. Every matching page is ranked when there are fewer
than `ALL_MATCHES` (after the filters); beyond, the newest `CANDIDATES` of them are.
A document is searchable once a version of it is done (its readable version); a tenant sees only
its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

import psycopg
from psycopg.rows import dict_row

from tenderflow.errors import SearchQueryError
from tenderflow.pipeline.documents import QUERIES, VersionState

MAX_QUERY_CHARS = 500
MAX_RESULTS = 200
ALL_MATCHES = 500
"""Below this many matching pages (after the filters), every one of them is ranked."""
CANDIDATES = 200
"""Above it, the newest this many matching pages are ranked: ranking every page that holds a common
word (30,000 of 100,000) would cost seconds."""
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


def search(
    conn: psycopg.Connection[Any], query: str, *, tenant: str | None = None,
    filters: SearchFilters = SearchFilters(), limit: int = 20,
) -> list[SearchHit]:
    """The pages that match `query`, best first. Raises SearchQueryError for a query or filter
    that cannot be used (empty, too long, a CPV prefix that is not digits)."""
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
        "cpv": cpv, "buyer": filters.buyer or None,
    }
    # Statements here are never prepared (psycopg prepares one run 5 times): a generic plan cannot
    # see how common the words are. The plans are chosen here instead of by estimates, which for a
    # query parsed under ten configurations are often far off.
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")  # the probe reads the GIN index, whatever its guess
        probed = conn.execute(QUERIES["search_probe"], {"query": query, "cap": ALL_MATCHES}, prepare=False).fetchall()
        conn.execute("SET LOCAL enable_seqscan = on")
        if len(probed) < ALL_MATCHES:
            # Rare words: every page that holds them, in the documents the probe found.
            candidates = conn.execute(
                QUERIES["search_candidates"] + "\n LIMIT %(cap)s",
                {**params, "documents": sorted({row[0] for row in probed}), "cap": ALL_MATCHES},
                prepare=False).fetchall()
        else:
            # Common words: the newest CANDIDATES matching pages, read newest first through the primary
            # key, stopping there (through the index on the words it would read them all first).
            conn.execute("SET LOCAL enable_bitmapscan = off")
            candidates = conn.execute(
                QUERIES["search_candidates"] + "\n ORDER BY p.document_id DESC, p.page_number LIMIT %(cap)s",
                {**params, "documents": None, "cap": CANDIDATES}, prepare=False).fetchall()
            conn.execute("SET LOCAL enable_bitmapscan = on")
    rows = conn.cursor(row_factory=dict_row).execute(QUERIES["search_rank"], {
        "query": query, "limit": max(1, min(limit, MAX_RESULTS)),
        "document_ids": [row[0] for row in candidates], "versions": [row[1] for row in candidates],
        "pages": [row[2] for row in candidates],
    }, prepare=False).fetchall()
    hits = []
    for row in rows:
        snippet, highlights = _unmark(row["snippet"])
        hits.append(SearchHit(
            document_id=row["document_id"], tenant=row["tenant"], filename=row["filename"], state=row["state"],
            version=row["version"], page=row["page_number"], rank=round(float(row["rank"]), 4),
            snippet=snippet, highlights=highlights,
        ))
    return hits


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
