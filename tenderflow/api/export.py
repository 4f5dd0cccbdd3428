"""`GET /v1/export`: a tenant's documents as CSV, XLSX or JSON Lines (tenderflow.pipeline.export), or an
OCDS release package (tenderflow.pipeline.ocds)."""

from __future__ import annotations

import io
import queue
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response, StreamingResponse

from tenderflow.api.auth import Services, Tenant
from tenderflow.api.documents import as_utc
from tenderflow.database import Database
from tenderflow.pipeline.export import ExportFilter, exported_documents, write_csv, write_jsonl, write_xlsx
from tenderflow.pipeline.ocds import write_ocds
from tenderflow.pipeline.versions import VersionState

router = APIRouter(prefix="/v1", tags=["export"])

MEDIA_TYPES = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson",
          "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "ocds": "application/json"}
SUFFIXES = {"csv": "csv", "jsonl": "jsonl", "xlsx": "xlsx", "ocds": "ocds.json"}


@router.get("/export", summary="Your documents' fields as CSV, XLSX, JSON Lines or an OCDS release package",
            responses={200: {"content": {media: {} for media in MEDIA_TYPES.values()}}})
def export_documents(
    tenant: Tenant,
    services: Services,
    format: Annotated[Literal["csv", "xlsx", "jsonl", "ocds"], Query(  # noqa: A002 (the parameter's name)
        description="csv / xlsx: a row per document with page references; jsonl: every field with its "
                    "page and quote; ocds: an OCDS 1.1 release package, a release per document with a "
                    "readable version")] = "csv",
    since: Annotated[datetime | None, Query(
        description="Only documents uploaded since then (ISO 8601; without a UTC offset it is UTC).")] = None,
    state: VersionState | None = None,
) -> Response:
    """Oldest first. CSV, JSON Lines and OCDS stream as they are read; an XLSX workbook is built whole."""
    # A time without an offset is UTC, as the CLI reads it, not the database session's zone.
    selection = ExportFilter(tenant=tenant, state=state, since=as_utc(since))
    headers = {"Content-Disposition": f'attachment; filename="tenderflow-export.{SUFFIXES[format]}"'}
    if format == "xlsx":
        # Read in batches, each on a connection of its own; built with none held (review D-N2).
        buffer = io.BytesIO()
        write_xlsx(iter(list(exported_documents(services.pool, selection))), buffer)
        return Response(buffer.getvalue(), media_type=MEDIA_TYPES["xlsx"], headers=headers)

    def produce(database: Database, put: Callable[[str], None]) -> None:
        documents = exported_documents(database, selection)
        if format == "ocds":
            settings = services.settings
            write_ocds(documents, put, prefix=settings.ocds_ocid_prefix, publisher=settings.ocds_publisher_name,
                       public_url=settings.public_url)
        else:
            (write_csv if format == "csv" else write_jsonl)(documents, put)

    return StreamingResponse(streamed(services, produce), media_type=MEDIA_TYPES[format], headers=headers)


class _CancelledError(Exception):
    """The client went away: the producer stops and gives its connection back."""


def streamed(services: Services, produce: Callable[[Database, Callable[[str], None]], None]) -> Iterator[str]:
    """What `produce(pool, put)` writes, by a thread, handed over chunk by chunk (tenders' exports
    too). The thread is given the pool, not a connection: it borrows one for each batch it reads
    and holds none while it waits for the client to take what it wrote (review security-2, D-N2).
    When the client goes away the thread stops at its next chunk."""
    chunks: queue.Queue[str | BaseException | None] = queue.Queue(maxsize=64)
    stop = threading.Event()

    def put(chunk: str) -> None:
        while not stop.is_set():
            try:
                chunks.put(chunk, timeout=0.5)
                return
            except queue.Full:
                continue
        raise _CancelledError

    def run() -> None:
        try:
            produce(services.pool, put)
            chunks.put(None)
        except _CancelledError:
            pass
        except BaseException as exc:  # handed to the response, which ends the stream
            chunks.put(exc)

    threading.Thread(target=run, name="export", daemon=True).start()
    try:
        while (chunk := chunks.get()) is not None:
            if isinstance(chunk, BaseException):
                raise chunk
            yield chunk
    finally:
        stop.set()
