"""Tenders exported: a row per tender (CSV, XLSX), every merged field with its document, page, quote
and history (JSON Lines), or an OCDS release package where a tender is one contracting process.

    CSV / XLSX   the tender, then each field's value, page and document (the export's FIELD_COLUMNS)
    JSONL        the tender with its members, merged fields (history, conflicts) and every revision
    OCDS         ocid <TENDERFLOW_OCDS_OCID_PREFIX>-tender-<id>, one release per revision
                 (`tender-<id>-<revision>`): the first tagged `tender`, a later one `tenderAmendment`
                 when an addendum changed something, else `tenderUpdate`, each later one with
                 `tender.amendments` saying what changed (the history's sentences) and why; the
                 fields are the revision's, mapped as a document's are (tenderflow.pipeline.ocds);
                 `tender.documents` lists the members with their kind as documentType

Tenders are read in batches, oldest first, so an export of any size streams.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import Any, Literal

from psycopg.rows import dict_row

from tenderflow.database import Database, borrowed
from tenderflow.pipeline import ocds
from tenderflow.pipeline.export import FIELD_COLUMNS, sourced_cells, write_csv, write_jsonl, write_xlsx
from tenderflow.tenders.matching import QUERIES
from tenderflow.tenders.merging import nested_fields

TenderFormat = Literal["csv", "xlsx", "jsonl", "ocds"]
_BATCH = 200
TENDER_COLUMNS = ("tender_id", "tenant", "name", "documents", "revision", "conflicts", "created_at", "updated_at")
HEADER: tuple[str, ...] = TENDER_COLUMNS + tuple(
    column for name, _ in FIELD_COLUMNS for column in (name, f"{name}_page", f"{name}_document"))
_DOCUMENT_TYPES = {"notice": "tenderNotice", "specification": "technicalSpecifications",
                   "addendum": "clarifications", "form": "biddingDocuments", "other": "biddingDocuments"}


def exported_tenders(
    database: Database, *, tenant: str | None = None, since: datetime | None = None,
    with_revisions: bool = False,
) -> Iterator[dict[str, Any]]:
    """The tenders (changed since `since`), oldest first, each with its members and, when asked, its
    revisions. With a pool, each batch borrows a connection and gives it back before its rows are
    handed on (a slow HTTP client holds none: review security-2, D-N2)."""
    from tenderflow.tenders.records import refresh_stale

    with borrowed(database) as conn:
        refresh_stale(conn, tenant=tenant)
    after = 0
    while True:
        with borrowed(database) as conn:
            cursor = conn.cursor(row_factory=dict_row)
            rows = cursor.execute(QUERIES["export_tenders"], {
                "tenant": tenant, "since": since, "after_id": after, "batch": _BATCH}).fetchall()
            if not rows:
                return
            ids = [row["id"] for row in rows]
            members: dict[int, list[dict[str, Any]]] = {}
            for member in cursor.execute(QUERIES["export_tender_documents"], {"tender_ids": ids}).fetchall():
                members.setdefault(member["tender_id"], []).append(member)
            revisions: dict[int, list[dict[str, Any]]] = {}
            if with_revisions:
                for revision in cursor.execute(QUERIES["export_tender_revisions"], {"tender_ids": ids}).fetchall():
                    revisions.setdefault(revision["tender_id"], []).append(revision)
        for row in rows:
            yield {**row, "members": members.get(row["id"], []), "revisions": revisions.get(row["id"], [])}
        if len(rows) < _BATCH:
            return
        after = ids[-1]


def _fields(tender: Mapping[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = (tender.get("merged") or {}).get("fields", {})
    return fields


def tender_row(tender: dict[str, Any]) -> list[Any]:
    """One tender as a row under HEADER: each field's value, its page and the document it came from."""
    fields = _fields(tender)
    nested = nested_fields(fields)
    row: list[Any] = [tender["id"], tender["tenant"], tender["name"] or tender["title"], tender["documents"],
                      tender["revision"], tender["conflicts"], tender["created_at"], tender["updated_at"]]
    for _, path in FIELD_COLUMNS:
        value, page = sourced_cells(nested, *path)
        entry = fields.get(".".join(path))
        row += [value, page, entry.get("document_id") if entry else None]
    return row


def tender_line(tender: dict[str, Any]) -> str:
    """One tender with its members, merged fields (value, page, quote, document, history, conflict)
    and its revisions."""
    return json.dumps({
        "tender_id": tender["id"], "tenant": tender["tenant"], "name": tender["name"], "revision": tender["revision"],
        "conflicts": tender["conflicts"], "created_at": tender["created_at"].isoformat(),
        "updated_at": tender["updated_at"].isoformat(),
        "documents": [{"document_id": m["document_id"], "filename": m["filename"], "kind": m["kind"],
                       "version": m["current_version"]} for m in tender["members"]],
        "fields": _fields(tender), "conflict_list": (tender.get("merged") or {}).get("conflicts", []),
        "revisions": [{"revision": r["revision"], "cause": r["cause"], "at": r["created_at"].isoformat(),
                       "changes": r["changes"]} for r in tender["revisions"]],
    }, ensure_ascii=False)


def tender_releases(
    tender: Mapping[str, Any], *, prefix: str, public_url: str | None = None,
) -> Iterator[dict[str, Any]]:
    """The tender's OCDS releases, one per revision (see the module's docstring)."""
    members = tender["members"]
    language = next((m["language"] for m in members if m["kind"] == "notice" and m["language"]),
                    next((m["language"] for m in members if m["language"]), None))
    base = (public_url or "").rstrip("/")
    documents = [{
        key: value for key, value in {
            "id": str(m["document_id"]), "documentType": _DOCUMENT_TYPES.get(m["kind"] or "", "biddingDocuments"),
            "title": m["filename"], "format": "application/pdf",
            "language": ocds.language_code(m["language"]),
            "url": f"{base}/v1/documents/{m['document_id']}" if base else None,
        }.items() if value is not None} for m in members]
    previous: str | None = None
    for revision in tender["revisions"]:
        release = ocds.release({
            "id": tender["id"], "current_version": revision["revision"], "fields": nested_fields(revision["fields"]),
            "language": language, "filename": tender["name"] or tender["title"], "finished_at": revision["created_at"],
            "created_at": tender["created_at"]}, prefix=prefix)
        if release is None:
            continue
        release_id = f"tender-{tender['id']}-{revision['revision']}"
        release["ocid"] = f"{prefix}-tender-{tender['id']}"
        release["id"] = release_id
        changes = revision["changes"] or []
        amended = any((change.get("to") or {}).get("kind") == "addendum" for change in changes)
        release["tag"] = ["tender"] if previous is None else ["tenderAmendment" if amended else "tenderUpdate"]
        body = release["tender"]
        body["id"] = tender["reference"] or f"tender-{tender['id']}"
        if documents:
            body["documents"] = documents
        else:
            body.pop("documents", None)
        if previous is not None:
            sentences = "; ".join(change["sentence"] for change in changes if change.get("sentence"))
            body["amendments"] = [{
                "id": str(revision["revision"]), "date": ocds.timestamp(revision["created_at"]),
                "rationale": revision["cause"], "description": sentences or revision["cause"],
                "amendsReleaseID": previous, "releaseID": release_id}]
        previous = release_id
        yield release


def write_tenders(
    tenders: Iterator[dict[str, Any]], out: Any, format: TenderFormat, *, prefix: str = "ocds-tenderflow",  # noqa: A002
    publisher: str = "tenderflow", public_url: str | None = None, now: datetime | None = None,
) -> int:
    """Write `tenders` as `format` to `out` (a write function, or for xlsx a path or binary file);
    returns the tenders (or, for OCDS, the releases) written."""
    if format == "xlsx":
        return write_xlsx(tenders, out, header=HEADER, row=tender_row, sheet_name="tenders")
    write: Callable[[str], Any] = out
    if format == "csv":
        return write_csv(tenders, write, header=HEADER, row=tender_row)
    if format == "jsonl":
        return write_jsonl(tenders, write, line=tender_line)
    releases = (release for tender in tenders for release in tender_releases(tender, prefix=prefix,
                                                                              public_url=public_url))
    return ocds.write_package(releases, write, publisher=publisher, now=now)
