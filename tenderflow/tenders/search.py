"""Search at tender level: the tenders whose documents match a query, best first, each with the pages
and fields that matched, filtered on the tender's merged deadline.

The words are found as a document search finds them (tenderflow.pipeline.search: every page of the
members' readable versions and their extracted fields, ranked); the hits of one tender's documents
are grouped under it, and the tender ranks as its best hit. A document in no tender is no tender's
hit. The deadline filters read the merged submission deadline, the one the last addendum set — not
the notice's, which a document search would compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

import psycopg

from tenderflow.pipeline.search import MAX_RESULTS, SearchHit, search
from tenderflow.tenders.records import list_tenders, tenders_of_documents

HITS_PER_TENDER = 3


@dataclass(frozen=True)
class TenderHit:
    """A tender that matched: what it is, its rank (its best hit's) and its best hits."""

    tender_id: int
    name: str
    reference: str | None
    submission_deadline: str | None
    rank: float
    hits: list[SearchHit] = field(default_factory=list)


def search_tenders(
    conn: psycopg.Connection[Any], query: str, *, tenant: str | None = None, deadline_after: date | None = None,
    deadline_before: date | None = None, limit: int = 20,
) -> list[TenderHit]:
    """The tenders whose members match `query` (websearch syntax), best first, at most `limit`.
    Raises SearchQueryError for a query that cannot be used."""
    hits = search(conn, query, tenant=tenant, limit=MAX_RESULTS)
    if not hits:
        return []
    tenders_by_document = tenders_of_documents(conn, sorted({hit.document_id for hit in hits}))
    grouped: dict[int, list[SearchHit]] = {}
    for hit in hits:  # best first already
        for tender_id in tenders_by_document.get(hit.document_id, []):
            grouped.setdefault(tender_id, []).append(hit)
    if not grouped:
        return []
    rows = list_tenders(conn, tenant=tenant, limit=len(grouped), ids=sorted(grouped),
                        deadline_after=deadline_after.isoformat() if deadline_after else None,
                        deadline_before=deadline_before.isoformat() if deadline_before else None)
    found = [TenderHit(tender_id=row["id"], name=row["name"] or row["title"] or f"tender {row['id']}",
                       reference=row["reference"], submission_deadline=row["submission_deadline"],
                       rank=grouped[row["id"]][0].rank, hits=grouped[row["id"]][:HITS_PER_TENDER])
             for row in rows]
    found.sort(key=lambda hit: (-hit.rank, -hit.tender_id))
    return found[:limit]
