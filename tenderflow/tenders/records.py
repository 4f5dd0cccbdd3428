"""Tenders in the database: make one, add and remove its documents, set a member's kind or a field's
source by hand, merge it, and read it, its revisions and the webhook bodies of its events.

    create_tender(conn, tenant, name=None) -> id
    add_documents(conn, tender_id, [document ids], tenant=…)     each joins, then one merge
    merge_tender(conn, tender_id, cause=…) -> MergeOutcome       the merge, stored (see below)
    document_finished(conn, document_id)                         the `tender.document` task's work
    get_tender / list_tenders / tender_revisions / webhook_tender

A merge (tenderflow.tenders.merging, pure) runs under the tender's row lock, so merges of one tender
take turns, and stores its result in `tenders.merged` and the columns read from it. When a value or
its source moved, the same transaction writes a new revision (its snapshot and its changes), emits
`tender.updated` and, when a deadline moved, `tender.deadline_changed` (tenderflow.webhooks.
deliveries.emit_tender), and counts the move in the deadline's sequence (the calendar event's).

A member that leaves (its document deleted: the membership cascades, and a trigger marks the tender
`stale`) is merged away by `refresh_stale`, which every read of tenders runs first, and which also
scrubs the deleted documents' values and quotes from the stored revisions: nothing read from a
deleted document is kept.

Every function takes the tenant it acts for (None: the operator); another tenant's tender answers
TenderNotFoundError and another tenant's document DocumentNotFoundError, like ids that do not exist.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import psycopg
import structlog
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from tenderflow.errors import DocumentNotFoundError, TenantNotFoundError, TenderError, TenderNotFoundError
from tenderflow.pipeline.versions import VersionRef, VersionState, version_state
from tenderflow.queue import JobSpec, enqueue
from tenderflow.tenders import matching
from tenderflow.tenders.kinds import Kind
from tenderflow.tenders.matching import QUERIES
from tenderflow.tenders.merging import (
    DEADLINES,
    FIELD_NAMES,
    Member,
    addendum_sentence,
    merge,
    revision_changes,
)
from tenderflow.tenders.references import match_tokens
from tenderflow.webhooks import deliveries
from tenderflow.webhooks.endpoints import TENDER_DEADLINE_CHANGED, TENDER_UPDATED

log = structlog.get_logger("tenderflow.tenders")

MAX_NAME_CHARS = 300


@dataclass(frozen=True)
class MergeOutcome:
    """What one merge did: the revision it made (None: nothing moved) and its changes."""

    tender_id: int
    revision: int | None
    changes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def deadline_moved(self) -> bool:
        return any(change["field"] in DEADLINES and change.get("moved") and change.get("from")
                   for change in self.changes)


def _clean_name(name: str | None) -> str | None:
    if name is None:
        return None
    cleaned = " ".join("".join(ch for ch in name if ch.isprintable()).split())
    if len(cleaned) > MAX_NAME_CHARS:
        raise TenderError(f"a tender's name has at most {MAX_NAME_CHARS} characters")
    return cleaned or None


def create_tender(conn: psycopg.Connection[Any], tenant: str, *, name: str | None = None) -> int:
    """A new, empty tender of `tenant`. Raises TenantNotFoundError, TenderError (a name too long)."""
    try:
        row = conn.execute(QUERIES["tender_insert"], {"tenant": tenant, "name": _clean_name(name)}).fetchone()
    except psycopg.errors.ForeignKeyViolation as exc:
        raise TenantNotFoundError(f"no tenant named {tenant!r}") from exc
    assert row is not None
    log.info("tender.created", tender_id=int(row[0]), tenant=tenant)
    return int(row[0])


def _lock(conn: psycopg.Connection[Any], tender_id: int, tenant: str | None) -> dict[str, Any]:
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["tender_lock"], {"id": tender_id, "tenant": tenant}).fetchone()
    if row is None:
        raise TenderNotFoundError(f"no tender with id {tender_id}")
    return row


def _members(conn: psycopg.Connection[Any], tender_id: int) -> list[dict[str, Any]]:
    return conn.cursor(row_factory=dict_row).execute(QUERIES["tender_members"], {"tender_id": tender_id}).fetchall()


def _as_member(row: Mapping[str, Any]) -> Member:
    return Member(document_id=int(row["document_id"]), filename=str(row["filename"]), uploaded_at=row["uploaded_at"],
                  version=row["version"], fields=row["fields"], first_page=row["first_page"] or "",
                  kind_override=row["kind_override"])


def _text(entry: Mapping[str, Any] | None, limit: int = 500) -> str | None:
    value = entry.get("value") if entry else None
    return str(value)[:limit] if isinstance(value, str) and value.strip() else None


def merge_tender(
    conn: psycopg.Connection[Any], tender_id: int, *, cause: str, tenant: str | None = None,
) -> MergeOutcome:
    """Merge the tender's members again and store the result (in a transaction of its own, or a
    savepoint of the caller's): a new revision, with its events, when a value or its source moved.
    Raises TenderNotFoundError."""
    with conn.transaction():
        locked = _lock(conn, tender_id, tenant)
        rows = _members(conn, tender_id)
        choices = {str(f): int(d) for f, d in conn.execute(QUERIES["tender_choices"], {"tender_id": tender_id})}
        merged = merge([_as_member(row) for row in rows], choices=choices)
        before: Mapping[str, Any] = (locked["merged"] or {}).get("fields", {})
        changes = revision_changes(before, merged.fields)
        readings = merged.members
        conn.execute(QUERIES["tender_members_set_kinds"], {
            "tender_id": tender_id, "document_ids": [r.document_id for r in readings],
            "kinds": [r.kind.value for r in readings], "sources": [r.kind_source for r in readings],
            "evidences": [r.kind_evidence for r in readings]})
        # A deadline's sequence counts its moves (not its first reading): the calendar event's SEQUENCE.
        moved = {name: int(any(c["field"] == name and c.get("moved") and c.get("from") for c in changes))
                 for name in DEADLINES}
        reference = _text(merged.fields.get("reference_number"))
        country = _text(merged.fields.get("buyer.country"), 2)
        stored = conn.execute(QUERIES["tender_store_merge"], {
            "id": tender_id, "merged": Jsonb(merged.as_json()), "bump": 1 if changes else 0,
            "reference": reference, "reference_tokens": match_tokens(reference) if reference else [],
            "title": _text(merged.fields.get("title")), "buyer_name": _text(merged.fields.get("buyer.name")),
            "country": country.upper() if country and len(country) == 2 and country.isalpha() else None,
            "submission_deadline": _text(merged.fields.get("submission_deadline"), 40),
            "questions_deadline": _text(merged.fields.get("questions_deadline"), 40),
            "submission_moved": moved["submission_deadline"], "questions_moved": moved["questions_deadline"],
            "conflicts": sum(1 for conflict in merged.conflicts if not conflict.get("resolved")),
        }).fetchone()
        assert stored is not None
        if not changes:
            return MergeOutcome(tender_id, None)
        revision = int(stored[0])
        conn.execute(QUERIES["tender_revision_insert"], {
            "tender_id": tender_id, "revision": revision, "cause": cause[:500], "fields": Jsonb(merged.fields),
            "changes": Jsonb(changes)})
        outcome = MergeOutcome(tender_id, revision, changes)
        owner = str(locked["tenant"])
        deliveries.emit_tender(conn, tenant=owner, event_type=TENDER_UPDATED, tender_id=tender_id, revision=revision)
        if outcome.deadline_moved:
            deliveries.emit_tender(conn, tenant=owner, event_type=TENDER_DEADLINE_CHANGED, tender_id=tender_id,
                                   revision=revision)
        if reference and match_tokens(reference) != list(locked["reference_tokens"] or []):
            matching.propose_for_tender(conn, tender_id, tenant=owner, reference=reference)
    log.info("tender.merged", tender_id=tender_id, revision=revision, changes=len(changes), cause=cause)
    return outcome


def add_documents(
    conn: psycopg.Connection[Any], tender_id: int, document_ids: Sequence[int], *, tenant: str | None = None,
    added_by: str = "hand", package_paths: Sequence[str | None] | None = None, cause: str | None = None,
) -> MergeOutcome:
    """The documents join the tender (those already in it stay as they joined), then the tender is
    merged, all in one transaction. Raises TenderNotFoundError, and DocumentNotFoundError for a
    document that does not exist or is another tenant's (nothing joins then)."""
    with conn.transaction():
        locked = _lock(conn, tender_id, tenant)
        owner = str(locked["tenant"])
        ids = [int(document_id) for document_id in document_ids]
        found = {int(row[0]) for row in conn.execute(QUERIES["document_tenant_check"], {"ids": ids, "tenant": owner})}
        missing = [document_id for document_id in ids if document_id not in found]
        if missing:
            raise DocumentNotFoundError(f"no document with id {missing[0]}")
        paths = list(package_paths) if package_paths is not None else [None] * len(ids)
        conn.execute(QUERIES["tender_members_insert"], {
            "tender_id": tender_id, "tenant": owner, "added_by": added_by, "document_ids": ids,
            "package_paths": [path[:1000] if path else None for path in paths]})
        what = ", ".join(str(document_id) for document_id in ids[:10]) + ("…" if len(ids) > 10 else "")
        return merge_tender(conn, tender_id, cause=cause or f"document(s) {what} joined")


def remove_document(
    conn: psycopg.Connection[Any], tender_id: int, document_id: int, *, tenant: str | None = None,
) -> MergeOutcome:
    """The document leaves the tender (it stays a document); the tender is merged without it.
    Raises TenderNotFoundError, TenderError when it is not a member."""
    with conn.transaction():
        _lock(conn, tender_id, tenant)
        if conn.execute(QUERIES["tender_member_delete"], {"tender_id": tender_id, "document_id": document_id}
                        ).fetchone() is None:
            raise TenderError(f"document {document_id} is not in tender {tender_id}")
        return merge_tender(conn, tender_id, cause=f"document {document_id} left")


def set_kind(
    conn: psycopg.Connection[Any], tender_id: int, document_id: int, kind: str | None, *, tenant: str | None = None,
) -> MergeOutcome:
    """A person says what a member is (None: read it from the document again); the tender is merged.
    Raises TenderNotFoundError, TenderError (an unknown kind, a document not in the tender)."""
    if kind is not None and kind not in {k.value for k in Kind}:
        raise TenderError(f"unknown document kind {kind!r}; choose from {', '.join(k.value for k in Kind)}")
    with conn.transaction():
        _lock(conn, tender_id, tenant)
        if conn.execute(QUERIES["tender_member_set_override"], {
                "tender_id": tender_id, "document_id": document_id, "kind": kind}).fetchone() is None:
            raise TenderError(f"document {document_id} is not in tender {tender_id}")
        what = f"set to {kind} by hand" if kind else "read from the document again"
        return merge_tender(conn, tender_id, cause=f"kind of document {document_id} {what}")


def choose(
    conn: psycopg.Connection[Any], tender_id: int, field_name: str, document_id: int | None, *,
    tenant: str | None = None,
) -> MergeOutcome:
    """A person settles a field: its value comes from this member (None: precedence decides again).
    Raises TenderNotFoundError, TenderError (an unknown field, a document not in the tender)."""
    if field_name not in FIELD_NAMES:
        raise TenderError(f"unknown field {field_name!r}; choose from {', '.join(FIELD_NAMES)}")
    with conn.transaction():
        _lock(conn, tender_id, tenant)
        if document_id is None:
            conn.execute(QUERIES["tender_choice_clear"], {"tender_id": tender_id, "field": field_name})
            return merge_tender(conn, tender_id, cause=f"{field_name}: precedence decides again")
        if not any(int(row["document_id"]) == document_id for row in _members(conn, tender_id)):
            raise TenderError(f"document {document_id} is not in tender {tender_id}")
        conn.execute(QUERIES["tender_choice_set"], {"tender_id": tender_id, "field": field_name,
                                                    "document_id": document_id})
        return merge_tender(conn, tender_id, cause=f"{field_name}: taken from document {document_id} by hand")


def rename_tender(
    conn: psycopg.Connection[Any], tender_id: int, name: str | None, *, tenant: str | None = None,
) -> None:
    if conn.execute(QUERIES["tender_rename"], {"id": tender_id, "tenant": tenant, "name": _clean_name(name)}
                    ).fetchone() is None:
        raise TenderNotFoundError(f"no tender with id {tender_id}")


def delete_tender(conn: psycopg.Connection[Any], tender_id: int, *, tenant: str | None = None) -> None:
    """Delete the tender, its revisions, choices and proposals (its documents stay documents).
    Raises TenderNotFoundError."""
    if conn.execute(QUERIES["tender_delete"], {"id": tender_id, "tenant": tenant}).fetchone() is None:
        raise TenderNotFoundError(f"no tender with id {tender_id}")
    log.info("tender.deleted", tender_id=tender_id)


# --- members that left: merge again, scrub what was read from deleted documents -----------------


def refresh_stale(conn: psycopg.Connection[Any], *, tenant: str | None = None) -> list[int]:
    """Merge again every tender a member left without a merge (its document was deleted), and scrub
    the values read from deleted documents out of their revisions. Returns the tenders' ids."""
    ids = [int(row[0]) for row in conn.execute(QUERIES["tender_stale_ids"], {"tenant": tenant}).fetchall()]
    for tender_id in ids:
        with conn.transaction():
            merge_tender(conn, tender_id, cause="a document of the tender was deleted")
            _scrub_revisions(conn, tender_id)
    return ids


_DELETED = {"deleted": True, "label": "a deleted document"}


def _scrub(node: Any, gone: set[int]) -> Any:
    """`node` with every entry read from a document in `gone` reduced to its id and 'deleted'."""
    if isinstance(node, dict):
        document_id = node.get("document_id")
        if isinstance(document_id, int) and document_id in gone:
            return {"document_id": document_id, **_DELETED}
        scrubbed = {key: _scrub(value, gone) for key, value in node.items()}
        if "sentence" in scrubbed and any(
                isinstance(scrubbed.get(side), dict) and scrubbed[side].get("deleted") for side in ("from", "to")):
            scrubbed["sentence"] = f"{scrubbed.get('field', 'a field')}: a value read from a deleted document"
        if isinstance(scrubbed.get("conflict"), dict) and "sentence" in scrubbed and any(
                value.get("deleted") for value in scrubbed["conflict"].get("values", []) if isinstance(value, dict)):
            scrubbed["sentence"] = f"conflict on {scrubbed.get('field', 'a field')}, with a deleted document"
        return scrubbed
    if isinstance(node, list):
        return [_scrub(item, gone) for item in node]
    return node


def _document_ids(node: Any, found: set[int]) -> set[int]:
    if isinstance(node, dict):
        if isinstance(node.get("document_id"), int) and not node.get("deleted"):
            found.add(node["document_id"])
        for value in node.values():
            _document_ids(value, found)
    elif isinstance(node, list):
        for item in node:
            _document_ids(item, found)
    return found


def _scrub_revisions(conn: psycopg.Connection[Any], tender_id: int) -> None:
    revisions = conn.cursor(row_factory=dict_row).execute(QUERIES["tender_revisions"], {"tender_id": tender_id}
                                                          ).fetchall()
    named = set().union(*(_document_ids([r["fields"], r["changes"]], set()) for r in revisions)) if revisions else set()
    if not named:
        return
    existing = {int(row[0]) for row in conn.execute(QUERIES["documents_existing"], {"ids": sorted(named)})}
    gone = named - existing
    if not gone:
        return
    for revision in revisions:
        fields, changes = _scrub(revision["fields"], gone), _scrub(revision["changes"], gone)
        if fields != revision["fields"] or changes != revision["changes"]:
            conn.execute(QUERIES["tender_revision_scrub"], {
                "tender_id": tender_id, "revision": revision["revision"], "fields": Jsonb(fields),
                "changes": Jsonb(changes)})


# --- a document finished: merges and proposals -------------------------------------------------


JOB_TENDER_DOCUMENT: Final = "tender.document"
"""The task that runs `document_finished` (tenderflow.handlers.tenders)."""


def announce_finished(
    conn: psycopg.Connection[Any], ref: VersionRef, *, tenant: str, priority: int = 0, max_attempts: int | None = None,
) -> list[int]:
    """In the commit that may have made the version done (the extract stage's): when it did, a
    `tender.document` job, which merges the document's tenders (or proposes it) in transactions of
    its own, so that the completion transaction, committing a batch of documents, takes no tender's
    lock. `max_attempts`: the extract job's (TENDERFLOW_MAX_ATTEMPTS holds for the whole pipeline).
    Returns the job's id (none: the version is not done)."""
    if version_state(conn, ref) != VersionState.DONE:
        return []
    return [enqueue(conn, JobSpec(
        type=JOB_TENDER_DOCUMENT, tenant=tenant, priority=priority, payload=ref.params(), max_attempts=max_attempts,
        unique_key=f"{JOB_TENDER_DOCUMENT}:{ref.document_id}:{ref.version}"))]


def document_finished(conn: psycopg.Connection[Any], document_id: int) -> list[MergeOutcome]:
    """A version of the document became readable: keep the reference it names, merge each tender it
    is in, or, in none, propose it to the tenders (or documents) that name the same reference. Does
    nothing for a document deleted meanwhile. Returns the merges."""
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["document_readable"], {"document_id": document_id}
                                                    ).fetchone()
    if row is None or row["current_version"] is None:
        return []
    tenant = str(row["tenant"])
    with conn.transaction():
        reference = matching.record_reference(conn, document_id, tenant=tenant, version=int(row["current_version"]),
                                              fields=row["fields"])
    tender_ids = [int(r[0]) for r in conn.execute(QUERIES["tenders_of_document"], {"document_id": document_id})]
    outcomes = [merge_tender(conn, tender_id, cause=f"document {document_id} read (version {row['current_version']})")
                for tender_id in tender_ids]
    if not tender_ids and reference:
        with conn.transaction():
            proposed = matching.propose_for_document(conn, document_id, tenant=tenant, reference=reference)
        if proposed:
            log.info("tender.proposed", document_id=document_id, proposals=proposed)
    return outcomes


# --- reads ---------------------------------------------------------------------------------------


def get_tender(conn: psycopg.Connection[Any], tender_id: int, *, tenant: str | None = None) -> dict[str, Any]:
    """The tender with its merged fields, conflicts and members (each with its kind, state and how it
    joined). Raises TenderNotFoundError."""
    refresh_stale(conn, tenant=tenant)
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["tender_get"], {"id": tender_id, "tenant": tenant}
                                                    ).fetchone()
    if row is None:
        raise TenderNotFoundError(f"no tender with id {tender_id}")
    merged = row.pop("merged") or {}
    readings = {member["document_id"]: member for member in merged.get("members", [])}
    members = []
    for member in _members(conn, tender_id):
        reading = readings.get(member["document_id"], {})
        members.append({
            "document_id": member["document_id"], "filename": member["filename"], "state": member["state"],
            "version": member["version"], "pages": member["page_count"], "kind": member["kind"],
            "kind_source": member["kind_source"], "kind_evidence": member["kind_evidence"],
            "kind_override": member["kind_override"], "number": reading.get("number"), "issued": reading.get("issued"),
            "label": reading.get("label"), "package_path": member["package_path"], "added_by": member["added_by"],
            "added_at": member["added_at"], "uploaded_at": member["uploaded_at"],
            "effect": addendum_sentence(reading)})
    return {**row, "fields": merged.get("fields", {}), "conflict_list": merged.get("conflicts", []),
            "members": members, "display_name": row["name"] or row["title"] or f"tender {tender_id}"}


def list_tenders(
    conn: psycopg.Connection[Any], *, tenant: str | None = None, limit: int = 50, before_id: int | None = None,
    deadline_after: str | None = None, deadline_before: str | None = None, ids: Sequence[int] | None = None,
) -> list[dict[str, Any]]:
    """Tenders newest first, `limit` of them below `before_id`; the deadline filters ('2026-03-01')
    keep those whose merged submission deadline falls on or after / before that day."""
    refresh_stale(conn, tenant=tenant)
    return conn.cursor(row_factory=dict_row).execute(QUERIES["tender_list"], {
        "tenant": tenant, "limit": limit, "before_id": before_id, "deadline_after": deadline_after,
        "deadline_before": deadline_before, "ids": list(ids) if ids is not None else None}).fetchall()


def tender_revisions(
    conn: psycopg.Connection[Any], tender_id: int, *, tenant: str | None = None,
) -> list[dict[str, Any]]:
    """The tender's revisions, oldest first: each its cause, time, changes and snapshot. Raises
    TenderNotFoundError."""
    get_tender(conn, tender_id, tenant=tenant)
    return conn.cursor(row_factory=dict_row).execute(QUERIES["tender_revisions"], {"tender_id": tender_id}).fetchall()


def tenders_of_documents(conn: psycopg.Connection[Any], document_ids: Sequence[int]) -> dict[int, list[int]]:
    """document id -> the tenders it is in (documents in none are left out)."""
    rows = conn.execute(QUERIES["tender_ids_of_documents"], {"document_ids": list(document_ids)}).fetchall()
    return {int(document_id): [int(t) for t in tender_ids] for document_id, tender_ids in rows}


def webhook_tender(
    conn: psycopg.Connection[Any], tender_id: int, revision: int, *, base_url: str = "",
) -> dict[str, Any] | None:
    """What a tender event tells: the tender, the revision's changes (each with its sentence) and the
    fields as that revision merged them, with links to read it now. None when the tender (or the
    revision) no longer exists."""
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["tender_revision_get"], {"tender_id": tender_id, "revision": revision}).fetchone()
    if row is None:
        return None
    root = f"{base_url.rstrip('/')}/v1/tenders/{tender_id}"
    return {
        "tender": {"id": tender_id, "name": row["name"], "title": row["title"], "revision": revision,
                   "revised_at": row["created_at"], "cause": row["cause"],
                   "links": {"tender": root, "history": f"{root}/history", "calendar": "/v1/calendar.ics"}},
        "changes": row["changes"],
        "fields": row["fields"],
    }
