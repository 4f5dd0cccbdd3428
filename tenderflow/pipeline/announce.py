"""A version's announcements: the webhook events of its state changes, and what they tell.

A version that becomes done or failed tells the tenant's webhook endpoints in the transaction of
that change (`announce`: `document.done` / `document.failed`, tenderflow.webhooks.deliveries.emit
enqueues the deliveries), so an event is sent exactly when its state change commits;
`webhook_document` is what the delivery sends about the version, read when it is sent (a document
deleted by then is not sent at all).
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

from tenderflow.extraction.country import buyer_country, placed_deadlines
from tenderflow.pipeline.reads import tenant_visible_error
from tenderflow.pipeline.versions import VersionRef, VersionState
from tenderflow.sqlfiles import NamedQueries
from tenderflow.webhooks import deliveries as webhook_deliveries

QUERIES = NamedQueries("tenderflow.pipeline", "announce.sql")



def announce(conn: psycopg.Connection[Any], ref: VersionRef, event: str, *, tenant: str | None = None) -> list[int]:
    """The version just became done or failed (`event`): tell the tenant's webhook endpoints, in
    this transaction. Returns the deliveries enqueued (none without endpoints that want it)."""
    if tenant is None:
        row = conn.execute(QUERIES["document_tenant"], {"id": ref.document_id}).fetchone()
        if row is None:
            return []
        tenant = str(row[0])
    return webhook_deliveries.emit(conn, tenant=tenant, event_type=event, document_id=ref.document_id,
                                   version=ref.version)


def webhook_document(
    conn: psycopg.Connection[Any], document_id: int, version: int, *, base_url: str = "",
) -> dict[str, Any] | None:
    """What a webhook tells of one version of a document: the document, the version's state and
    error (as its tenant sees it), links to read it (absolute under `base_url`, the API's public
    address, when given) and, once done, its fields with their pages and quotes. None when the
    document or the version no longer exists (deleted)."""
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["webhook_document"], {"document_id": document_id, "version": version}).fetchone()
    if row is None:
        return None
    root = f"{base_url.rstrip('/')}/v1/documents/{document_id}"
    document = {
        "id": row["id"], "version": row["version"], "state": row["state"], "filename": row["filename"],
        "sha256": row["sha256"], "size_bytes": row["size_bytes"], "page_count": row["page_count"],
        "language": row["language"], "error": tenant_visible_error(row["error"]),
        "failed_for_content": bool(row["failed_for_content"]), "uploaded_at": row["created_at"],
        "finished_at": row["finished_at"], "current_version": row["current_version"],
        "links": {"document": root, "fields": f"{root}/fields", "text": f"{root}/text"},
    }
    done = row["state"] == VersionState.DONE
    country = buyer_country(row["country"], row["fields"]) if done else None
    return {"document": document, "fields": row["fields"] if done else None,
            "flags": row["flags"] if done else None,
            "extraction": {"backend": row["backend"], "model": row["model"]} if done else None,
            "country": country.model_dump(mode="json") if country else None,
            "deadlines": {name: placed.model_dump(mode="json")
                          for name, placed in placed_deadlines(row["fields"], country).items()} if done else None}
