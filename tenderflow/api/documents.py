"""The tenant API: upload tender PDFs, follow their processing, read their text and fields.

Every route takes the tenant from its API key, and every read or write is scoped to it: another
tenant's document id answers 404, exactly like an id that does not exist, so ids reveal nothing.
Uploads go through `tenderflow.pipeline.uploads.upload_file`, the CLI's own path: same checks, same
transaction (document row + version + first job, and the tenant's credit reservation).
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import psycopg
import structlog
from fastapi import APIRouter, HTTPException, Query, Request, Response, status
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from tenderflow.api.auth import Services, Tenant
from tenderflow.api.services import ApiServices
from tenderflow.api.upload_stream import removed_afterwards, spool_pdf_upload
from tenderflow.api.validation import RequestBody
from tenderflow.config import Settings
from tenderflow.extraction.schema import BuyerCountry, PlacedDeadline
from tenderflow.handlers.coverage import unserved
from tenderflow.handlers.webhooks import DELIVER
from tenderflow.pdf.languages import missing_pack_note
from tenderflow.pipeline import deletion, reads
from tenderflow.pipeline.reads import tenant_visible_error
from tenderflow.pipeline.reprocess import reprocess
from tenderflow.pipeline.uploads import UploadOutcome, UploadPolicy, check_languages, upload_file
from tenderflow.pipeline.versions import VersionState
from tenderflow.queue.stats import live_worker_count
from tenderflow.stages.compute import stage_named
from tenderflow.stages.contract import JOB_EXTRACT, JOB_OCR_PAGES, JOB_OCR_PLAN
from tenderflow.tenants import limits
from tenderflow.tenders.records import refresh_stale
from tenderflow.texts import Line
from tenderflow.webhooks.endpoints import list_endpoints

log = structlog.get_logger("tenderflow.api")

router = APIRouter(prefix="/v1/documents", tags=["documents"])

DocumentState = Literal["queued", "ocr", "extracting", "done", "failed"]


_HINT_DESCRIPTION = ("Set while the document cannot move on by itself: no live worker serves the pool its next "
                     "step runs in (it stays where it is until one starts); or its webhooks wait because no "
                     "local worker runs (remote workers do not send them).")


class UploadResult(BaseModel):
    id: int
    status: Literal["created", "existing", "reprocessing", "in flight"] = Field(
        description="created: new document; existing: the same bytes were uploaded before; "
        "reprocessing / in flight: with ?reprocess=true, a new version was started / one is running."
    )
    version: int | None
    size_bytes: int
    hint: str | None = Field(default=None, description=_HINT_DESCRIPTION)


class DocumentSummary(BaseModel):
    id: int
    filename: str
    state: DocumentState = Field(description="State of the latest version.")
    page_count: int | None
    latest_version: int
    current_version: int | None = Field(description="The newest finished version: what /text and /fields read.")
    error: str | None
    created_at: datetime
    language: str | None = Field(
        default=None, description="The document's language as a tesseract language name ('fra'): the first one "
        "asked for, or the one detected; null until its OCR plan ran, or when none was detected.")


class DocumentList(BaseModel):
    documents: list[DocumentSummary]
    next_cursor: int | None = Field(description="Pass as ?cursor= for the next page; null on the last one.")


class DocumentDetail(DocumentSummary):
    size_bytes: int
    sha256: str
    pages_done: int = Field(description="Pages of the latest version read so far.")
    pages_total: int | None = Field(description="Pages in the document, once known.")
    requested_languages: str | None = Field(
        description="OCR languages asked for at upload (?languages=); null: the tenant's default, else detected.")
    ocr_languages: str | None = Field(description="The tesseract languages the pages are OCRed with ('fra+eng').")
    languages_source: Literal["upload", "tenant", "settings", "text_layer", "first_pass", "fallback"] | None = Field(
        description="Where ocr_languages came from: asked at upload, the tenant's default, the operator's "
        "TENDERFLOW_OCR_LANGUAGES (detection off), detected from the text layer or by a first OCR pass over "
        "the first scanned page, or the fallback when nothing was detected.")
    language_confidence: float | None = Field(description="The identifier's probability for a detected language.")
    script: str | None = Field(description="The script a first OCR pass saw ('Latin', 'Arabic', …).")
    language_note: str | None = Field(
        default=None, description="Set when the document's language had no tesseract pack where it was read: "
        "which language, and what its scanned pages were read as instead.")
    retrying: str | None = Field(
        default=None, description="Why the document's OCR plan or extraction is waiting to run again, if it is: "
        "'retry 2/5: <the last error>'.")
    hint: str | None = Field(default=None, description=_HINT_DESCRIPTION)


class PageText(BaseModel):
    number: int
    text: str
    source: Literal["text_layer", "ocr"]
    confidence: float | None


class DocumentText(BaseModel):
    id: int
    version: int
    pages: list[PageText]


class DocumentFields(BaseModel):
    id: int
    version: int
    fields: dict[str, Any]
    flags: list[Any]
    backend: str
    model: str | None
    confidence: dict[str, float] = Field(
        default_factory=dict, description="How sure the extractor was of each returned value, 0..1, by field path "
        "('buyer.name', 'submission_deadline'); empty for extractions that do not say (an LLM's).")
    rules: dict[str, str] = Field(
        default_factory=dict, description="Which of the offline extractor's rules found each value, by field path.")
    candidates: dict[str, Any] = Field(
        default_factory=dict, description="For fields left empty: the value the extractor found but was not sure "
        "enough of, with its page and quote. Never a field's value: shown to a person to check.")
    country: BuyerCountry | None = Field(description="The buyer's country (stated, or inferred from the document), "
                                         "the time zone its deadlines are read in, and the evidence.")
    deadlines: dict[str, PlacedDeadline] = Field(description="The deadlines with the offset of the buyer's zone, or "
                                                 "local (time_zone null) when no zone is known.")
    found_by: dict[str, str] = Field(
        default_factory=dict, description='Which extractor found each field that holds a value, by its path '
        '("buyer.email", "title"): "offline" (the rules) or "llm" (hybrid extraction). Empty for extractions '
        'stored before it was kept.')


class ReprocessRequest(RequestBody):
    start_from: Literal["ocr", "extract"] = "ocr"
    priority: int = Field(default=0, ge=-32768, le=32767)


class ReprocessResult(BaseModel):
    id: int
    version: int
    created: bool = Field(description="False: a version was already in flight and is returned instead.")


def _summary(row: dict[str, Any]) -> DocumentSummary:
    values = {key: row[key] for key in DocumentSummary.model_fields}
    return DocumentSummary(**{**values, "error": tenant_visible_error(row["error"])})


def as_utc(moment: datetime | None) -> datetime | None:
    """A time given without a zone is taken as UTC (the API's times are all UTC)."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


_NEXT_STEP = {"queued": JOB_OCR_PLAN, "ocr": JOB_OCR_PAGES, "extracting": JOB_EXTRACT}
"""The job type a version in each unfinished state waits for."""


def waiting_hint(conn: psycopg.Connection[Any], settings: Settings, state: str, tenant: str) -> str | None:
    """What to say of a version in `state` whose next step no live worker runs (the HTTP
    quick-start's documents stayed `queued` for ever, silently, when no worker was started), or,
    for a tenant with webhooks, when no local worker runs to send them (only remote workers run:
    the document gets done, its webhook never goes)."""
    dead_after = settings.worker_dead_after_seconds
    job_type = _NEXT_STEP.get(state)
    if job_type is not None and not live_worker_count(conn, dead_after_seconds=dead_after, job_type=job_type):
        pool = stage_named(job_type).pool.value
        return (f"no live worker serves the {pool} pool, so this document waits ({state}) until one starts "
                f"(`tenderflow worker --pool {pool}`, or `--pool all`)")
    if any(endpoint.enabled for endpoint in list_endpoints(conn, tenant=tenant)):
        for unrun in unserved(conn, dead_after_seconds=dead_after, job_types=[DELIVER.name]):
            return f"this document's webhooks wait: {unrun.sentence()}"
    return None


def _store_upload(
    services: ApiServices, tenant: str, path: Path, filename: str, priority: int, reprocess_existing: bool,
    languages: str | None,
) -> UploadOutcome:
    # The pool, not a connection: none is held while the object is stored (review security-2, D-N2).
    policy = UploadPolicy.from_settings(services.settings, tenant=tenant, priority=priority, languages=languages,
                                        reprocess_existing=reprocess_existing)
    return upload_file(services.pool, services.storage, path, policy, filename=filename)


def _admit_upload(services: ApiServices, tenant: str) -> None:
    with services.pool.connection() as conn:
        limits.admit_upload(conn, tenant, default_per_minute=services.settings.tenant_uploads_per_minute)


@router.post(
    "", status_code=status.HTTP_201_CREATED, response_model=UploadResult,
    responses={200: {"description": "The same PDF was uploaded before", "model": UploadResult},
               400: {"description": "Malformed, truncated or empty upload; OCR languages unknown or not installed"},
               402: {"description": "Not enough credits"},
               413: {"description": "Over the size limit, or over the tenant's quota of stored bytes"},
               415: {"description": "Not a PDF"},
               429: {"description": "Over the tenant's uploads per minute (Retry-After says when to try again)"}},
    summary="Upload a tender PDF (multipart/form-data with a 'file' part, or the body as application/pdf)",
    openapi_extra={"requestBody": {"required": True, "content": {
        "multipart/form-data": {"schema": {"type": "object", "required": ["file"],
                                           "properties": {"file": {"type": "string", "format": "binary"}}}},
        "application/pdf": {"schema": {"type": "string", "format": "binary"}}}}},
)
async def upload_document(
    request: Request, response: Response, tenant: Tenant, services: Services,
    priority: Annotated[int, Query(ge=-32768, le=32767, description="Higher runs first.")] = 0,
    reprocess_existing: Annotated[bool, Query(
        alias="reprocess", description="If these bytes were uploaded before, process them again.")] = False,
    languages: Annotated[Line | None, Query(
        max_length=200, description="Tesseract languages to OCR it with, e.g. fra+eng (or fra,eng). Default: the "
        "tenant's, else the document's language is detected. Unknown or not installed: 400, naming the installed "
        "ones.")] = None,
    filename: Annotated[Line | None, Query(
        max_length=500, description="With a raw application/pdf body: the file name to record (else a "
        "Content-Disposition header's filename, else upload.pdf). Ignored for multipart, whose part names it.")]
    = None,
) -> UploadResult:
    """Stores the PDF, records the document and queues its OCR in one transaction.

    Every upload request counts against the tenant's uploads per minute, refused or not; one over
    the limit is answered 429 before its body is read. The tenant's stored bytes (failed documents
    included) may not pass its quota (413). A refused upload leaves no object behind.

    Send it as multipart/form-data (`curl -F file=@notice.pdf`) or as the body itself with
    `Content-Type: application/pdf` (`curl --data-binary @notice.pdf -H 'Content-Type: application/pdf'`,
    the name in `?filename=` or a Content-Disposition header).

    The body is read as it arrives, with the size cap enforced while reading (async for that part
    only); the database work then runs on the thread pool like every other endpoint. Languages are
    checked before a byte of the body is read.
    """
    await run_in_threadpool(_admit_upload, services, tenant)
    languages = await run_in_threadpool(check_languages, languages)  # tesseract --list-langs, once per process
    spooled = await spool_pdf_upload(
        request.headers.get("content-type"), request.headers.get("content-length"), request.stream(),
        max_bytes=services.settings.max_upload_bytes, directory=services.upload_spool_dir,
        content_disposition=request.headers.get("content-disposition"), default_filename=filename,
    )
    with removed_afterwards(spooled.path):
        outcome = await run_in_threadpool(
            _store_upload, services, tenant, spooled.path, spooled.filename, priority, reprocess_existing, languages
        )
    assert outcome.document_id is not None
    hint = None
    if outcome.status in ("created", "reprocessing"):  # a new version, queued for its OCR plan
        hint = await run_in_threadpool(_upload_hint, services, tenant)
    log.info("document.uploaded", tenant=tenant, document_id=outcome.document_id, version=outcome.version,
             status=outcome.status, size_bytes=outcome.size_bytes)
    if outcome.status != "created":
        response.status_code = status.HTTP_200_OK
    response.headers["Location"] = f"/v1/documents/{outcome.document_id}"
    return UploadResult.model_validate({"id": outcome.document_id, "status": outcome.status,
                                        "version": outcome.version, "size_bytes": outcome.size_bytes, "hint": hint})


def _upload_hint(services: ApiServices, tenant: str) -> str | None:
    with services.pool.connection() as conn:
        return waiting_hint(conn, services.settings, "queued", tenant)


@router.get("", response_model=DocumentList, summary="List documents, newest first")
def list_documents(
    tenant: Tenant, services: Services,
    state: Annotated[DocumentState | None, Query(description="Only documents in this state.")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[int | None, Query(ge=1, description="next_cursor of the previous page.")] = None,
    filename: Annotated[Line | None, Query(
        max_length=200, description="Only documents whose file name contains this, in any case.")] = None,
    created_after: Annotated[datetime | None, Query(
        description="Only documents uploaded at or after this time (ISO 8601; a date alone is its midnight UTC).")]
    = None,
    created_before: Annotated[datetime | None, Query(description="Only documents uploaded before this time.")]
    = None,
) -> DocumentList:
    """Newest first; the filters combine (and), and the cursor pages through the filtered list."""
    with services.pool.connection() as conn:
        rows = reads.list_documents(conn, tenant=tenant, state=state, limit=limit + 1, before_id=cursor,
                                        filename=filename, created_after=as_utc(created_after),
                                        created_before=as_utc(created_before))
    page = rows[:limit]
    return DocumentList(
        documents=[_summary(row) for row in page],
        next_cursor=int(page[-1]["id"]) if len(rows) > limit else None,
    )


@router.get("/{document_id}", response_model=DocumentDetail, summary="A document's state and progress")
def get_document(document_id: int, tenant: Tenant, services: Services) -> DocumentDetail:
    with services.pool.connection() as conn:
        document = reads.read_document(conn, document_id, tenant=tenant, pages=None, fields=False).document
        hint = waiting_hint(conn, services.settings, document.state, tenant)
    return DocumentDetail(**_summary(asdict(document)).model_dump(), size_bytes=document.size_bytes,
                          sha256=document.sha256, pages_done=document.pages_done, pages_total=document.page_count,
                          requested_languages=document.requested_languages, ocr_languages=document.ocr_languages,
                          languages_source=document.languages_source,
                          language_confidence=document.language_confidence, script=document.script,
                          retrying=tenant_visible_error(document.retrying), hint=hint,
                          language_note=missing_pack_note(document.language, document.ocr_languages))


NOT_READY_RETRY_SECONDS = 5
"""Retry-After of a 409 for a document still being processed: a page batch or an extraction takes seconds."""


_NOT_READY: dict[int | str, dict[str, Any]] = {
    409: {"description": "No finished version yet (with Retry-After while it is being processed)"}}


def _readable(services: ApiServices, document_id: int, tenant: str, *, pages: reads.PagesOf | None,
              fields: bool) -> tuple[reads.DocumentView, int]:
    """The document as `reads.read_document` reads it, with its newest finished version, what its
    text and fields are read from; a 409 while there is none (with Retry-After while one is on its way)."""
    with services.pool.connection() as conn:
        view = reads.read_document(conn, document_id, tenant=tenant, pages=pages, fields=fields)
    document = view.document
    if view.readable_version is None:
        detail = (f"document {document.id} has no finished version yet (state: {document.state})"
                  + (f"; error: {tenant_visible_error(document.error)}" if document.error else ""))
        # Still on its way: say when to ask again. A failed one will not get there without a reprocess.
        waiting = document.state != VersionState.FAILED
        raise HTTPException(status.HTTP_409_CONFLICT, detail=detail,
                            headers={"Retry-After": str(NOT_READY_RETRY_SECONDS)} if waiting else None)
    return view, view.readable_version


@router.get("/{document_id}/text", response_model=DocumentText,
            responses=_NOT_READY,
            summary="The text of every page of the newest finished version")
def get_document_text(document_id: int, tenant: Tenant, services: Services) -> DocumentText:
    view, version = _readable(services, document_id, tenant, pages="readable", fields=False)
    return DocumentText(id=document_id, version=version, pages=[
        PageText(number=page.page_number, text=page.text, source=page.source, confidence=page.confidence)
        for page in view.pages
    ])


@router.get("/{document_id}/fields", response_model=DocumentFields,
            responses=_NOT_READY,
            summary="The structured fields of the newest finished version")
def get_document_fields(document_id: int, tenant: Tenant, services: Services) -> DocumentFields:
    view, version = _readable(services, document_id, tenant, pages=None, fields=True)
    extraction = view.extraction
    if extraction is None:  # a done version always has its extraction; say so if not
        raise HTTPException(status.HTTP_409_CONFLICT, detail=f"document {document_id} has no fields stored")
    provenance = extraction.provenance or {}
    country = extraction.buyer_country()
    return DocumentFields(id=document_id, version=version, fields=extraction.fields, flags=extraction.flags,
                          backend=extraction.backend, model=extraction.model, country=country,
                          deadlines=extraction.deadlines(country),
                          confidence=provenance.get("confidence") or {}, rules=provenance.get("rules") or {},
                          candidates=provenance.get("candidates") or {}, found_by=provenance.get("found_by") or {})


@router.get("/{document_id}/thumbnail", response_class=Response,
            summary="A small PNG of the document's first page",
            responses={200: {"content": {"image/png": {}}},
                       404: {"description": "No such document for this tenant, or no thumbnail made yet"}})
def get_document_thumbnail(document_id: int, tenant: Tenant, services: Services) -> Response:
    """The newest version's first page, its longer side 320 pixels (the `thumbnail` stage makes it
    once the PDF has been probed; a version reprocessed from extraction shows its pages' version's)."""
    with services.pool.connection() as conn:
        png = reads.read_thumbnail(conn, document_id, tenant=tenant)
    if png is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND,
                            detail=f"document {document_id} has no thumbnail yet: it is made once its PDF is probed")
    return Response(png, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})


@router.post("/{document_id}/reprocess", status_code=status.HTTP_202_ACCEPTED, response_model=ReprocessResult,
             responses={409: {"description": "Extraction asked for, but no version has pages yet"}},
             summary="Process the document again as a new version")
def reprocess_document(
    document_id: int, tenant: Tenant, services: Services, request: ReprocessRequest | None = None
) -> ReprocessResult:
    """The previous version's text and fields stay readable until the new version is done."""
    asked = request or ReprocessRequest()
    with services.pool.connection() as conn:
        outcome = reprocess(conn, document_id, start_from=asked.start_from, tenant=tenant, priority=asked.priority,
                            prices=services.prices,
                            max_attempts=services.settings.max_attempts)
    return ReprocessResult(id=outcome.document_id, version=outcome.version, created=outcome.created)


class DeletionResult(BaseModel):
    id: int
    deleted_at: datetime
    jobs_cancelled: int = Field(description="Its queued or running jobs, cancelled.")
    refunded: int = Field(description="Credits given back for the versions it stopped before they finished.")
    stored_pdf: Literal["queued for deletion"] = Field(
        default="queued for deletion", description="A job deletes the stored PDF, unless you upload the same bytes "
        "again first (then the new document keeps it).")


@router.delete("/{document_id}", response_model=DeletionResult, summary="Delete a document and all read from it",
               responses={404: {"description": "No such document of yours (deleted already, or another tenant's)"}})
def delete_document(document_id: int, tenant: Tenant, services: Services) -> DeletionResult:
    """Its versions, pages, fields and search entries go at once; unfinished work is cancelled and
    refunded; the stored PDF is deleted by a job. Credits ledger entries stay (`tenants usage`).
    This cannot be undone."""
    with services.pool.connection() as conn:
        deleted = deletion.delete_document(conn, document_id, tenant=tenant)
        refresh_stale(conn, tenant=tenant)  # its tenders, merged without it
    return DeletionResult(id=deleted.document_id, deleted_at=deleted.deleted_at, jobs_cancelled=deleted.jobs_cancelled,
                          refunded=deleted.refunded)
