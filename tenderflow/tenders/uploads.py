"""Files and ZIP packages uploaded into a tender: `upload a.pdf b.zip --tender NEW|ID`, and
`POST /v1/tenders/{id}/documents`.

    upload_to_tender(database, storage, [paths], UploadPolicy(tenant=…, …), tender=None|id) -> TenderUpload

Each ZIP is unpacked and checked first (tenderflow.tenders.packages: a package refused whole raises
PackageRejectedError before anything is stored), each PDF checked (a refused one is reported, not
stored); then everything that may go in goes in ONE transaction (tenderflow.pipeline.uploads.
upload_batch): the documents, their versions, reservations and OCR jobs, the tender when it is new,
and the memberships. So a package is charged as its documents are (the same price each), a refused
member is not, the same bytes twice are one document, and a package the tenant cannot pay for whole,
or one added to another tenant's tender, leaves nothing behind.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import structlog

from tenderflow.database import Database, borrowed
from tenderflow.errors import TenderflowError, TenderNotFoundError, UploadRejectedError
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.pipeline.uploads import BatchFile, UploadOutcome, UploadPolicy, check_pdf_file, upload_batch
from tenderflow.tenders import records
from tenderflow.tenders.matching import QUERIES
from tenderflow.tenders.packages import DEFAULT_PACKAGE_LIMITS, PackageLimits, is_zip, unpack

log = structlog.get_logger("tenderflow.tenders")


@dataclass
class TenderUpload:
    """What an upload into a tender did: the tender (made now or not), each file's or member's
    outcome (created, existing, duplicate, rejected), and the merge it caused (when a member was
    already readable)."""

    tender_id: int
    created_tender: bool
    outcomes: list[UploadOutcome] = field(default_factory=list)
    merge: records.MergeOutcome | None = None
    unpack_seconds: float = 0.0
    """Of the time it took: the packages unpacked and checked (the rest stored them and committed)."""

    @property
    def documents(self) -> list[int]:
        return sorted({o.document_id for o in self.outcomes if o.document_id is not None})


def upload_to_tender(
    database: Database,
    storage: ObjectStorage,
    paths: Sequence[Path],
    policy: UploadPolicy,
    *,
    tender: int | None = None,
    name: str | None = None,
    filenames: Sequence[str] | None = None,
    package_limits: PackageLimits = DEFAULT_PACKAGE_LIMITS,
    work_dir: Path | None = None,
) -> TenderUpload:
    """Upload PDFs and ZIP packages into `tender` (None: a new one, named `name`) of `policy.tenant`,
    as one transaction (`upload_batch` with `policy`).
    `filenames` names each path as recorded (an API upload's own name), else the path's name.
    `work_dir` is where packages are unpacked (on the storage's filesystem, a file storage moves the
    members into place instead of copying them). `database`: the API passes its pool, and no
    connection is held while packages are unpacked or objects stored (review security-2, D-N2).

    Raises PackageRejectedError (a package refused whole), UploadRejectedError (nothing left to
    upload: every file refused), TenderNotFoundError (no such tender of this tenant),
    TenantNotFoundError, InsufficientCreditsError, StorageQuotaExceededError: nothing stored."""
    tenant = policy.tenant
    if tender is not None:
        with borrowed(database) as conn:  # early: nothing is unpacked for a tender not the tenant's
            records.get_tender(conn, tender, tenant=tenant)
    names = list(filenames) if filenames is not None else [path.name for path in paths]
    if work_dir is not None:
        work_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tenderflow-package-", dir=work_dir) as work:
        intake = _Intake()
        for index, (path, filename) in enumerate(zip(paths, names, strict=True)):
            if path.is_file() and is_zip(path):
                intake.add_package(path, filename, Path(work) / f"{index:04d}", package_limits)
            else:
                intake.add_pdf(path, filename, max_bytes=policy.max_bytes)
        if not intake.batch:
            reasons = "; ".join(f"{o.source}: {o.error}" for o in intake.refused[:5])
            raise UploadRejectedError(f"nothing to upload into the tender ({reasons})")
        unpacked = time.perf_counter() - started
        join = _TenderJoin(tender, tenant=tenant, name=name, package_paths=intake.package_paths)
        uploaded = upload_batch(database, storage, intake.batch, policy, within=join)
    assert join.tender_id is not None  # upload_batch ran `join` in its transaction
    result = TenderUpload(join.tender_id, tender is None, [*uploaded, *intake.refused], unpack_seconds=unpacked)
    if any(o.status == "existing" for o in uploaded):  # already readable documents: merge them in now
        _merge_existing(database, result)
    log.info("tender.uploaded", tender_id=result.tender_id, tenant=tenant, documents=len(result.documents),
             refused=sum(o.status == "rejected" for o in intake.refused), unpack_ms=round(unpacked * 1000),
             total_ms=round((time.perf_counter() - started) * 1000))
    return result


@dataclass
class _Intake:
    """What an upload into a tender may store (`batch`), what it refused or found twice in a package
    (`refused`, each with its outcome), and each package member's path inside its package by source."""

    batch: list[BatchFile] = field(default_factory=list)
    refused: list[UploadOutcome] = field(default_factory=list)
    package_paths: dict[str, str] = field(default_factory=dict)

    def add_package(self, path: Path, filename: str, directory: Path, limits: PackageLimits) -> None:
        """Unpack the ZIP `path` into `directory` (made here) and take its documents; its other members
        are refused or duplicates. Raises PackageRejectedError for a package refused whole."""
        directory.mkdir()
        package = unpack(path, directory, limits)
        for member in package.members:
            source = f"{filename}:{member.path}"
            if member.status == "document":
                assert member.file is not None
                leaf = member.path.rsplit("/", 1)[-1]
                self.batch.append(BatchFile(member.file, leaf + (".pdf" if member.converted_from else ""), source,
                                            member.sha256, consumable=True))
                self.package_paths[source] = member.path
            else:
                status = "duplicate" if member.status == "duplicate" else "rejected"
                self.refused.append(UploadOutcome(source, status, size_bytes=member.size, error=member.reason))

    def add_pdf(self, path: Path, filename: str, *, max_bytes: int) -> None:
        """Take the PDF `path` when it passes the upload's checks, else record it refused."""
        try:
            check_pdf_file(path, max_bytes=max_bytes)
        except UploadRejectedError as exc:
            self.refused.append(UploadOutcome(str(path), "rejected", size_bytes=_size_of(path), error=str(exc)))
            return
        self.batch.append(BatchFile(path, filename, str(path)))


class _TenderJoin:
    """What upload_batch runs in its transaction once the documents are in: make the tender when it is
    new, lock it, and make the uploaded documents its members (`tender_id` says which tender)."""

    def __init__(self, tender: int | None, *, tenant: str, name: str | None, package_paths: dict[str, str]) -> None:
        self.tender_id: int | None = None
        self._tender = tender
        self._tenant = tenant
        self._name = name
        self._package_paths = package_paths

    def __call__(self, conn: psycopg.Connection[Any], uploaded: list[UploadOutcome]) -> None:
        """Raises TenderNotFoundError when the tender is not the tenant's (the transaction rolls back)."""
        tender_id = self._tender if self._tender is not None else records.create_tender(conn, self._tenant,
                                                                                        name=self._name)
        self.tender_id = tender_id
        locked = conn.execute(QUERIES["tender_lock"], {"id": tender_id, "tenant": self._tenant}).fetchone()
        if locked is None:
            raise TenderNotFoundError(f"no tender with id {tender_id}")
        ids = [o.document_id for o in uploaded if o.document_id is not None]
        conn.execute(QUERIES["tender_members_insert"], {
            "tender_id": tender_id, "tenant": self._tenant, "added_by": "package" if self._package_paths else "upload",
            "document_ids": ids, "package_paths": [self._package_paths.get(o.source) for o in uploaded
                                                   if o.document_id is not None]})


def _merge_existing(database: Database, result: TenderUpload) -> None:
    """Merge the tender now that documents already readable joined it; should that fail, the upload
    stands and the next merge takes them in."""
    try:
        with borrowed(database) as conn:
            result.merge = records.merge_tender(conn, result.tender_id, cause="documents uploaded into the tender")
    except TenderflowError as exc:
        log.warning("tender.merge_failed", tender_id=result.tender_id, error=str(exc))


def _size_of(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
