"""A person's decisions on proposals (tenderflow.tenders.matching makes them): accept, reject, undo.

    proposed --accept--> accepted --undo--> undone
    proposed --reject--> rejected

Accepting a proposal to join a tender adds the document to it; accepting one that pairs two
documents in no tender makes a tender of both (or, when the partner joined a tender meanwhile, adds
the document to that one). Undoing takes the document out again, and deletes a tender the acceptance
made when nothing else joined it since. Each decision is one transaction with the merge it causes.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

from tenderflow.errors import ProposalNotFoundError, ProposalStateError
from tenderflow.tenders import records
from tenderflow.tenders.matching import QUERIES

PROPOSAL_STATES = ("proposed", "accepted", "rejected", "undone")


def list_proposals(
    conn: psycopg.Connection[Any], *, tenant: str | None = None, state: str | None = "proposed", limit: int = 100,
) -> list[dict[str, Any]]:
    """Proposals newest first (`state` None: all of them)."""
    return conn.cursor(row_factory=dict_row).execute(QUERIES["proposal_list"], {
        "tenant": tenant, "state": state, "id": None, "limit": limit}).fetchall()


def get_proposal(conn: psycopg.Connection[Any], proposal_id: int, *, tenant: str | None = None) -> dict[str, Any]:
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["proposal_list"], {
        "tenant": tenant, "state": None, "id": proposal_id, "limit": 1}).fetchone()
    if row is None:
        raise ProposalNotFoundError(f"no tender proposal with id {proposal_id}")
    return row


def _lock(conn: psycopg.Connection[Any], proposal_id: int, tenant: str | None, wanted: str) -> dict[str, Any]:
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["proposal_lock"], {"id": proposal_id, "tenant": tenant}
                                                    ).fetchone()
    if row is None:
        raise ProposalNotFoundError(f"no tender proposal with id {proposal_id}")
    if row["state"] != wanted:
        raise ProposalStateError(f"proposal {proposal_id} is {row['state']}, not {wanted}")
    return row


def _decide(conn: psycopg.Connection[Any], proposal_id: int, state: str, *, result_tender_id: int | None = None,
            created_tender: bool = False) -> None:
    conn.execute(QUERIES["proposal_decide"], {"id": proposal_id, "state": state, "result_tender_id": result_tender_id,
                                              "created_tender": created_tender})


def accept(conn: psycopg.Connection[Any], proposal_id: int, *, tenant: str | None = None) -> int:
    """proposed -> accepted: the document joins the tender (made for the pair when the proposal names
    another document in no tender). Returns the tender's id. Raises ProposalNotFoundError,
    ProposalStateError."""
    with conn.transaction():
        proposal = _lock(conn, proposal_id, tenant, "proposed")
        owner, document_id = str(proposal["tenant"]), int(proposal["document_id"])
        cause = f"proposal {proposal_id} accepted (reference {proposal['reference']})"
        created = False
        if proposal["tender_id"] is not None:
            tender_id = int(proposal["tender_id"])
            joining = [document_id]
        else:
            partner = int(proposal["partner_id"])
            partner_tenders = records.tenders_of_documents(conn, [partner]).get(partner, [])
            if partner_tenders:
                tender_id, joining = partner_tenders[0], [document_id]
            else:
                tender_id, joining, created = records.create_tender(conn, owner), [partner, document_id], True
        records.add_documents(conn, tender_id, joining, tenant=owner, added_by="proposal", cause=cause)
        _decide(conn, proposal_id, "accepted", result_tender_id=tender_id, created_tender=created)
    return tender_id


def reject(conn: psycopg.Connection[Any], proposal_id: int, *, tenant: str | None = None) -> None:
    """proposed -> rejected (never proposed again). Raises ProposalNotFoundError, ProposalStateError."""
    with conn.transaction():
        _lock(conn, proposal_id, tenant, "proposed")
        _decide(conn, proposal_id, "rejected")


def undo(conn: psycopg.Connection[Any], proposal_id: int, *, tenant: str | None = None) -> int | None:
    """accepted -> undone: the document leaves the tender it joined; a tender the acceptance made is
    deleted when no other document joined it since. Returns the tender's id when it stays. Raises
    ProposalNotFoundError, ProposalStateError."""
    with conn.transaction():
        proposal = _lock(conn, proposal_id, tenant, "accepted")
        tender_id = proposal["result_tender_id"]
        _decide(conn, proposal_id, "undone", result_tender_id=tender_id, created_tender=proposal["created_tender"])
        if tender_id is None:
            return None  # the tender was deleted since
        owner = str(proposal["tenant"])
        leaving = {int(proposal["document_id"])}
        if proposal["created_tender"] and proposal["partner_id"] is not None:
            leaving.add(int(proposal["partner_id"]))
        members = {int(m["document_id"]) for m in records.get_tender(conn, tender_id, tenant=owner)["members"]}
        if proposal["created_tender"] and members <= leaving:
            records.delete_tender(conn, tender_id, tenant=owner)
            return None
        document_id = int(proposal["document_id"])
        if document_id in members:
            records.remove_document(conn, tender_id, document_id, tenant=owner)
        return int(tender_id)
