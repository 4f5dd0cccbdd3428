"""Proposals from reference numbers: a finished document that names a tender's reference, or the
reference of another document in no tender yet, is proposed to join it (a person accepts, rejects
or later undoes it: tenderflow.tenders.proposals).

    record_reference(conn, document_id, tenant, version, fields)   what a finished document names
    propose_for_document(conn, document_id, tenant)                 a document in no tender: proposals
    propose_for_tender(conn, tender_id, tenant, reference)          a tender's reference changed

Candidates are found through the reference tokens' GIN indexes (tenderflow.tenders.references.
match_tokens) and checked with `same_reference`; each proposal is made once (its unique index), so a
rejected one is not proposed again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import psycopg

from tenderflow.sqlfiles import NamedQueries
from tenderflow.tenders.references import match_tokens, same_reference

QUERIES = NamedQueries("tenderflow.tenders", "queries.sql")


def reference_of(fields: Mapping[str, Any] | None) -> str | None:
    """The reference number an extraction read, if any."""
    node = fields.get("reference_number") if fields else None
    value = node.get("value") if isinstance(node, Mapping) else None
    return value.strip() or None if isinstance(value, str) else None


def record_reference(
    conn: psycopg.Connection[Any], document_id: int, *, tenant: str, version: int, fields: Mapping[str, Any] | None,
) -> str | None:
    """Keep the reference the document's readable version names (or forget it when it names none
    that could match); returns it."""
    reference = reference_of(fields)
    tokens = match_tokens(reference) if reference else []
    if not reference or not tokens:
        conn.execute(QUERIES["document_reference_delete"], {"document_id": document_id})
        return None
    conn.execute(QUERIES["document_reference_upsert"], {
        "document_id": document_id, "tenant": tenant, "version": version, "reference": reference[:500],
        "tokens": tokens})
    return reference


def propose_for_document(conn: psycopg.Connection[Any], document_id: int, *, tenant: str, reference: str) -> list[int]:
    """Proposals for a document in no tender: to join each tender whose reference is the same, or,
    when none is, to make one with each other document in no tender that names it. Returns the new
    proposals' ids (none for pairs proposed before, whatever was decided then)."""
    tokens = match_tokens(reference)
    if not tokens:
        return []
    created: list[int] = []
    for tender_id, tender_reference in conn.execute(
            QUERIES["proposal_tender_candidates"], {"tenant": tenant, "tokens": tokens}).fetchall():
        if tender_reference and same_reference(reference, tender_reference):
            created += _propose_join(conn, tenant=tenant, document_id=document_id, tender_id=tender_id,
                                     reference=reference)
    if created:
        return created
    for partner_id, partner_reference in conn.execute(QUERIES["proposal_document_candidates"], {
            "tenant": tenant, "tokens": tokens, "document_id": document_id}).fetchall():
        if same_reference(reference, partner_reference):
            row = conn.execute(QUERIES["proposal_insert_pair"], {
                "tenant": tenant, "document_id": document_id, "partner_id": partner_id,
                "reference": reference[:500]}).fetchone()
            created += [int(row[0])] if row else []
    return created


def propose_for_tender(conn: psycopg.Connection[Any], tender_id: int, *, tenant: str, reference: str) -> list[int]:
    """A tender's reference is new or changed: each document in no tender that names it is proposed
    to join it. Returns the new proposals' ids."""
    tokens = match_tokens(reference)
    if not tokens:
        return []
    created: list[int] = []
    for document_id, document_reference in conn.execute(
            QUERIES["proposals_loose_for_tender"], {"tenant": tenant, "tokens": tokens}).fetchall():
        if same_reference(reference, document_reference):
            created += _propose_join(conn, tenant=tenant, document_id=document_id, tender_id=tender_id,
                                     reference=str(document_reference))
    return created


def _propose_join(
    conn: psycopg.Connection[Any], *, tenant: str, document_id: int, tender_id: int, reference: str
) -> list[int]:
    """A proposal that the document join the tender, under the reference they share: its id in a
    list, or an empty list when the pair was proposed before (whatever was decided then)."""
    row = conn.execute(QUERIES["proposal_insert_join"], {
        "tenant": tenant, "document_id": document_id, "tender_id": tender_id, "reference": reference[:500]}).fetchone()
    return [int(row[0])] if row else []
