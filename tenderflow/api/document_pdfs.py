"""A document's PDFs, for its tenant: the original, and a searchable copy (tenderflow.pipeline.pdfs).

    GET /v1/documents/{id}/pdf              the PDF as uploaded (any state)
    GET /v1/documents/{id}/searchable.pdf   its pages with an invisible text layer where OCR read them

The dashboard serves the same to the operator, for any tenant's document (`*_pdf_response` with no
tenant), at /dashboard/documents/{id}/pdf and …/searchable.pdf.

Another tenant's document answers 404, like an id that does not exist. A document without a finished
version answers 409, with Retry-After while it is still being processed. The searchable copy is made
on the first request (in the tool sandbox, like OCR) and stored; later requests read it back.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import FileResponse
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from tenderflow.api.auth import Services, Tenant
from tenderflow.api.documents import NOT_READY_RETRY_SECONDS
from tenderflow.api.services import ApiServices
from tenderflow.pipeline import pdfs

router = APIRouter(prefix="/v1/documents", tags=["documents"])

_PDF_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {"content": {"application/pdf": {}}},
    404: {"description": "No such document for this tenant"},
}


def _send(services: ApiServices, stored: pdfs.StoredPdf) -> FileResponse:
    work = Path(tempfile.mkdtemp(prefix="tenderflow-pdf-", dir=services.upload_spool_dir))
    target = work / "document.pdf"
    services.storage.download_to(stored.key, target)

    def clean_up() -> None:
        target.unlink(missing_ok=True)
        work.rmdir()

    return FileResponse(target, media_type="application/pdf", filename=stored.filename,
                        headers={"Cache-Control": "private, max-age=3600"}, background=BackgroundTask(clean_up))


def original_pdf_response(services: ApiServices, document_id: int, *, tenant: str | None) -> FileResponse:
    """The uploaded PDF of the document (`tenant`'s only; None: the operator, any tenant's)."""
    with services.pool.connection() as conn:
        stored = pdfs.original_pdf(conn, document_id, tenant=tenant)
    return _send(services, stored)


async def searchable_pdf_response(services: ApiServices, document_id: int, *, tenant: str | None) -> FileResponse:
    """The searchable copy of the document's newest finished version, made now if it was not yet
    (`tenant`'s only; None: the operator, any tenant's); 409 without a finished version."""

    def make() -> pdfs.StoredPdf:
        # The pool: no connection is held while the copy is built (review security-2, D-N2).
        return pdfs.searchable_pdf(services.pool, services.storage, services.settings, document_id, tenant=tenant,
                                   build_slots=services.searchable_builds)

    try:
        stored = await run_in_threadpool(make)
    except pdfs.NotReadableYetError as error:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=str(error),
                            headers={"Retry-After": str(NOT_READY_RETRY_SECONDS)} if error.processing else None
                            ) from error
    return await run_in_threadpool(_send, services, stored)


@router.get("/{document_id}/pdf", response_class=FileResponse, responses=_PDF_RESPONSES,
            summary="The document's PDF as it was uploaded")
def get_original_pdf(document_id: int, tenant: Tenant, services: Services) -> FileResponse:
    return original_pdf_response(services, document_id, tenant=tenant)


@router.get("/{document_id}/searchable.pdf", response_class=FileResponse,
            responses={**_PDF_RESPONSES, 409: {"description": "No finished version yet (with Retry-After while it "
                                                                "is being processed), or read before word positions "
                                                                "were kept (reprocess it)"}},
            summary="The document's pages with an invisible text layer where they were OCRed")
async def get_searchable_pdf(document_id: int, tenant: Tenant, services: Services) -> FileResponse:
    """Selectable, searchable text at the place of each word OCR read; pages that had their own text
    layer are as they were. Made on the first request (seconds for a long scan), then stored."""
    return await searchable_pdf_response(services, document_id, tenant=tenant)
