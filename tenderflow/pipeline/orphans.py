"""The storage sweep (review D10): objects no document refers to, older than a grace period, go.

An upload stores its object just before its transaction; a transaction that fails deletes the object
again, but a process that dies between the two leaves it behind, as did uploads before that rule.
Such an object belongs to no document, counts against no quota, and would stay for ever. The sweep
lists the tenants' objects, keeps every one a document refers to (`documents.tenant, sha256`) or
that is younger than the grace period, and deletes the rest — each under the object's lock, which
an upload holds from before it looks at the object until its transaction has ended, after checking
once more that no document refers to it. A searchable copy (`tenants/<t>/searchable/…`) is
referenced while its PDF is. Objects whose key is neither are left alone.

Run by `tenderflow storage sweep` and, every TENDERFLOW_STORAGE_SWEEP_SECONDS, by the API server.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import islice
from typing import Any

import psycopg

from tenderflow.pipeline.storage import ObjectStorage, StoredObject
from tenderflow.pipeline.uploads import object_locked_unless_busy, objects_referenced

TENANTS_PREFIX = "tenants/"
_PDF_KEY = re.compile(
    r"tenants/([A-Za-z0-9][A-Za-z0-9_\-]{0,62})/"
    r"(?:pdf/[0-9a-f]{2}/([0-9a-f]{64})\.pdf|searchable/[0-9a-f]{2}/([0-9a-f]{64})-v[0-9]+\.pdf)")
"""A tenant's PDF, or a searchable copy made from one (referenced while the PDF's document is)."""
_BATCH = 500


@dataclass
class SweepReport:
    """What a sweep saw and did; `deleted` lists the keys removed (or, dry, that would be)."""

    listed: int = 0
    referenced: int = 0
    young: int = 0
    busy: int = 0
    deleted: list[str] = field(default_factory=list)
    deleted_bytes: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"listed": self.listed, "referenced": self.referenced, "young": self.young, "busy": self.busy,
                "deleted": len(self.deleted), "deleted_bytes": self.deleted_bytes}


def _batches(objects: Iterator[StoredObject], size: int) -> Iterator[list[StoredObject]]:
    while batch := list(islice(objects, size)):
        yield batch


def sweep_orphans(
    conn: psycopg.Connection[Any], storage: ObjectStorage, *, grace_seconds: float, now: datetime | None = None,
    dry_run: bool = False,
) -> SweepReport:
    """Delete the tenants' objects that no document refers to and that were last written more than
    `grace_seconds` before `now` (default: the database's clock). `conn` must be autocommit and
    outside a transaction (the object locks are session-level). Raises StorageError."""
    if now is None:
        row = conn.execute("SELECT now()").fetchone()
        assert row is not None
        now = row[0]
    assert now is not None
    cutoff = now - timedelta(seconds=grace_seconds)
    report = SweepReport()
    for batch in _batches(storage.list_objects(TENANTS_PREFIX), _BATCH):
        report.listed += len(batch)
        parsed = [(obj, (match[1], match[2] or match[3])) for obj in batch
                  if (match := _PDF_KEY.fullmatch(obj.key)) is not None]
        referenced = objects_referenced(conn, [pair for _, pair in parsed])
        for obj, pair in parsed:
            if pair in referenced:
                report.referenced += 1
            elif obj.modified > cutoff:
                report.young += 1
            elif _delete_if_orphan(conn, storage, obj, pair, dry_run=dry_run):
                report.deleted.append(obj.key)
                report.deleted_bytes += obj.size
            else:
                report.busy += 1
    return report


def _delete_if_orphan(
    conn: psycopg.Connection[Any], storage: ObjectStorage, obj: StoredObject, pair: tuple[str, str], *, dry_run: bool
) -> bool:
    """Under the object's lock (skipped when an upload holds it), check again that no document
    refers to it, then delete it. Whether it was (or, dry, would be) deleted."""
    with object_locked_unless_busy(conn, *pair) as locked:
        if not locked or objects_referenced(conn, [pair]):
            return False
        if not dry_run:
            storage.delete(obj.key)
        return True
