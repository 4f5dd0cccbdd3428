"""Uploads: a PDF on disk becomes a stored object, a document row and its first OCR job.

`upload_file` takes one file, `upload_paths` many files one by one (each its own transaction), and
`upload_batch` many files as one transaction (a tender's package: all of it or none of it). Each
takes an `UploadPolicy`: for whom, how urgent, and what the deployment allows (built once from
Settings by the caller: `UploadPolicy.from_settings`).

For each file: sniff `%PDF-`, check the size cap, hash it, check the tenant can pay, put the object
(keyed by tenant and content hash), then ONE transaction inserts the document, its version 1, its
credit reservation and the ocr.plan job. The same bytes uploaded again by the same tenant give back
the existing document, unless a reprocess is asked for. The object is stored before the
transaction: if the transaction fails (a tenant that ran out of credits or storage meanwhile), the
object is deleted again unless a document refers to it. An object left anyway (a process that died
between the two) is deleted by the storage sweep (`tenderflow.pipeline.orphans`).

No connection is held while the object is stored (review security-2, D-N2: the API passes its pool
and each step borrows a connection of its own). So that neither the sweep nor a deleted document's
storage.delete task removes an object an upload is about to refer to, the upload records itself in
`object_uploads` under the object's lock before storing it, and that row goes in the transaction
that records the document: both leave an object alone while such a row names it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg.pq import TransactionStatus

from tenderflow import tracing
from tenderflow.database import Database, borrowed
from tenderflow.errors import InsufficientCreditsError, ReprocessRefusedError, TenderflowError, UploadRejectedError
from tenderflow.ids import sha256_of
from tenderflow.pipeline import versions
from tenderflow.pipeline.reprocess import reprocess
from tenderflow.pipeline.storage import ObjectStorage, object_key
from tenderflow.queue import JobSpec, enqueue, enqueue_many
from tenderflow.sqlfiles import NamedQueries
from tenderflow.tenants import credits, limits
from tenderflow.tenants.credits import DEFAULT_PRICES, Prices
from tenderflow.texts import visible

if TYPE_CHECKING:
    from tenderflow.config import Settings

# The OCR step (tenderflow.pdf.probe) insists on the header at byte 0; refusing anything else here
# tells the uploader at once instead of failing the document later.
QUERIES = NamedQueries("tenderflow.pipeline", "uploads.sql")

PDF_MAGIC = b"%PDF-"
SNIFF_BYTES = len(PDF_MAGIC)


@dataclass(frozen=True)
class UploadOutcome:
    """What happened to one file: created, existing (same bytes already there), reprocessing, rejected."""

    source: str
    status: str
    document_id: int | None = None
    version: int | None = None
    size_bytes: int = 0
    error: str | None = None


@dataclass(frozen=True)
class UploadPolicy:
    """How an upload is taken in: for whom and how urgently (`tenant`, `priority`), what it asks
    (`languages`: tesseract's "fra+eng", None or "auto" for the tenant's default, else detected;
    `reprocess_existing`: bytes uploaded before get a new version instead of their existing document),
    and what the deployment allows (`max_bytes` a file, the `prices` reserved and charged, the jobs'
    `max_attempts`, `max_stored_bytes`: the quota of a tenant without its own, 0 for none)."""

    max_bytes: int
    tenant: str = "default"
    priority: int = 0
    languages: str | None = None
    reprocess_existing: bool = False
    prices: Prices = DEFAULT_PRICES
    max_attempts: int | None = None
    max_stored_bytes: int = 0

    @classmethod
    def from_settings(
        cls, settings: Settings, *, tenant: str = "default", priority: int = 0, languages: str | None = None,
        reprocess_existing: bool = False,
    ) -> UploadPolicy:
        """The deployment's policy (upload cap, prices, attempts, stored-bytes quota) for this upload."""
        return cls(max_bytes=settings.max_upload_bytes, tenant=tenant, priority=priority, languages=languages,
                   reprocess_existing=reprocess_existing, prices=Prices.from_settings(settings),
                   max_attempts=settings.max_attempts, max_stored_bytes=settings.tenant_max_stored_bytes)


def check_pdf_file(path: Path, *, max_bytes: int) -> int:
    """Raise UploadRejectedError unless `path` is a non-empty PDF within the cap; return its size."""
    if not path.is_file():
        raise UploadRejectedError(f"{path}: not a file")
    size = path.stat().st_size
    if size == 0:
        raise UploadRejectedError(f"{path.name}: the file is empty")
    if size > max_bytes:
        raise UploadRejectedError(
            f"{path.name}: {size:,} bytes is over the upload limit of {max_bytes:,} bytes "
            "(TENDERFLOW_MAX_UPLOAD_BYTES)"
        )
    with path.open("rb") as handle:
        head = handle.read(SNIFF_BYTES)
    if not head.startswith(PDF_MAGIC):
        raise UploadRejectedError(f"{path.name}: not a PDF (no %PDF- header); only PDF files can be uploaded")
    return size


def check_languages(languages: str | None) -> str | None:
    """OCR languages asked for at upload in tesseract's form ("fra+eng"), None for none or "auto"
    (detect). Raises UploadRejectedError naming the installed languages for an unknown or missing one."""
    if languages is None:
        return None
    from tenderflow.pdf.languages import LanguageError, parse_languages

    try:
        return parse_languages(languages)
    except LanguageError as exc:
        raise UploadRejectedError(str(exc)) from exc


def upload_file(
    database: Database,
    storage: ObjectStorage,
    path: Path,
    policy: UploadPolicy,
    *,
    filename: str | None = None,
) -> UploadOutcome:
    """Upload one PDF for `policy.tenant`, reserving `policy.prices.on_acceptance()` of its credits
    for a new document.

    The policy's `languages` are the tesseract languages its scanned pages are read with; they are
    kept on the document. For bytes uploaded before they apply only with `reprocess_existing` (to
    the new version and the ones after it). Its `max_stored_bytes` is for a tenant without its own
    quota (tenderflow.tenants.limits).

    `database`: a pool (the API: each step borrows a connection, none is held while the object is
    stored) or the caller's connection (autocommit, outside a transaction).

    Raises, with nothing written to the database and no object left behind: UploadRejectedError for
    a file or languages that are refused, TenantNotFoundError, InsufficientCreditsError and
    StorageQuotaExceededError (each checked before the object is stored, and again, under the
    tenant's lock, in the transaction).
    """
    # No file name in the trace: a deleted document's name must not outlive it anywhere (review D-N7).
    tenant = policy.tenant
    with tracing.span("upload", {"tenderflow.tenant": tenant}) as current:  # the root of the document's trace
        display_name = displayed_name(filename or path.name)
        asked = check_languages(policy.languages)
        size = check_pdf_file(path, max_bytes=policy.max_bytes)
        sha256 = sha256_of(path)
        try:
            key = object_key(tenant, sha256)
        except ValueError as exc:
            raise UploadRejectedError(str(exc)) from exc
        params = {"tenant": tenant, "sha256": sha256}
        with borrowed(database) as conn, conn.transaction():
            conn.execute(QUERIES["object_lock_in_transaction"], params)
            known = conn.execute(QUERIES["document_id_by_hash"], params).fetchone()
            if known is None:
                credits.check_affordable(conn, tenant, policy.prices.on_acceptance(),
                                         what=f"uploading {display_name}")
                limits.check_storage(conn, tenant, adding=size, default_max_stored_bytes=policy.max_stored_bytes)
            claim = conn.execute(QUERIES["object_upload_start"], params).fetchone()
        assert claim is not None
        # Stored with no connection held. Bytes no document of the tenant refers to are always put,
        # even over an object there already: one left by an upload that died is young again, and
        # the sweep (which deletes only old ones) leaves it alone as well as the row above does.
        stored_now = known is None
        try:
            if stored_now:
                storage.put_file(key, path)
        except BaseException:
            with borrowed(database) as conn:
                _abandon_upload(conn, storage, key=key, params=params, claim=int(claim[0]), delete_object=False)
            raise
        with borrowed(database) as conn:
            try:
                outcome = _record_upload(conn, storage, path, replace(policy, languages=asked), key=key,
                                         sha256=sha256, size=size, display_name=display_name, claim=int(claim[0]))
            except BaseException:
                # A connection that broke cannot say so: its row lapses within the hour.
                if conn.info.transaction_status == TransactionStatus.IDLE:
                    _abandon_upload(conn, storage, key=key, params=params, claim=int(claim[0]),
                                    delete_object=stored_now)
                raise
        if current is not None:
            current.set_attributes({"tenderflow.upload.status": outcome.status,
                                    "tenderflow.document_id": outcome.document_id or 0,
                                    "tenderflow.version": outcome.version or 0})
        return outcome


def _abandon_upload(
    conn: psycopg.Connection[Any], storage: ObjectStorage, *, key: str, params: dict[str, str], claim: int,
    delete_object: bool,
) -> None:
    """An upload whose object could not be stored, or that was refused in its transaction (a tenant
    that ran out of credits or storage since the first check): its row goes, and with
    `delete_object` the object it stored goes too unless a document refers to it or another upload
    is storing it (review D10). Under the object's lock, so this one storage call
    holds a connection: only on this refusal, which the checks before the object was stored make rare."""
    with conn.transaction():
        conn.execute(QUERIES["object_lock_in_transaction"], params)
        conn.execute(QUERIES["object_upload_end"], {"id": claim})
        if delete_object and not object_in_use(conn, params["tenant"], params["sha256"]):
            storage.delete(key)


def displayed_name(name: str) -> str:
    """A file name as it is stored and shown (tenderflow.texts.visible: no control characters, no
    bidirectional controls nor other format characters); 'upload.pdf' when nothing is left."""
    return visible(name) or "upload.pdf"


@contextlib.contextmanager
def object_locked(conn: psycopg.Connection[Any], tenant: str, sha256: str) -> Iterator[None]:
    """Hold the object's lock (a session-level advisory lock on the connection) for the block: the
    storage sweep (`tenderflow.pipeline.orphans`) skips an object whose lock it cannot take."""
    params = {"tenant": tenant, "sha256": sha256}
    conn.execute(QUERIES["object_lock"], params)
    try:
        yield
    finally:
        if not conn.closed and conn.info.transaction_status == TransactionStatus.IDLE:
            conn.execute(QUERIES["object_unlock"], params)


@contextlib.contextmanager
def object_locked_unless_busy(conn: psycopg.Connection[Any], tenant: str, sha256: str) -> Iterator[bool]:
    """Try the object's lock for the block without waiting: yields whether it was taken (False: an
    upload holds it). What the storage sweep does to an object, it does under this."""
    params = {"tenant": tenant, "sha256": sha256}
    locked = conn.execute(QUERIES["object_try_lock"], params).fetchone()
    if locked is None or not locked[0]:
        yield False
        return
    try:
        yield True
    finally:
        conn.execute(QUERIES["object_unlock"], params)


def object_in_use(conn: psycopg.Connection[Any], tenant: str, sha256: str) -> bool:
    """Whether a document of the tenant refers to the object, or an upload under way (started within
    the hour) is storing it. Under the object's lock, this stays true until the lock is let go."""
    row = conn.execute(QUERIES["object_in_use"], {"tenant": tenant, "sha256": sha256}).fetchone()
    return bool(row is not None and row[0])


def objects_referenced(conn: psycopg.Connection[Any], pairs: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
    """Which of the (tenant, sha256) `pairs` a document refers to."""
    rows = conn.execute(QUERIES["documents_of_objects"], {
        "tenants": [tenant for tenant, _ in pairs], "sha256s": [sha for _, sha in pairs]}).fetchall()
    return {(str(tenant), str(sha)) for tenant, sha in rows}


def _record_upload(
    conn: psycopg.Connection[Any], storage: ObjectStorage, path: Path, policy: UploadPolicy, *, key: str,
    sha256: str, size: int, display_name: str, claim: int,
) -> UploadOutcome:
    """The upload's one transaction: the document, its version 1, the reservation and its ocr.plan
    job (or, for bytes this tenant uploaded before, the existing document); its `object_uploads`
    row `claim` ends in it. The policy's languages are checked already (`check_languages`)."""
    tenant, asked = policy.tenant, policy.languages
    with conn.transaction():
        conn.execute(QUERIES["object_lock_in_transaction"], {"tenant": tenant, "sha256": sha256})
        conn.execute(QUERIES["object_upload_end"], {"id": claim})
        # Looked up first: an INSERT … ON CONFLICT DO NOTHING draws an id even when it inserts nothing,
        # and every re-upload of the same bytes left a gap in the ids (only a race between two uploads
        # of the same bytes still does).
        known = conn.execute(QUERIES["document_id_by_hash"], {"tenant": tenant, "sha256": sha256}).fetchone()
        inserted = None if known is not None else conn.execute(QUERIES["document_insert"], {
            "tenant": tenant, "sha256": sha256, "filename": display_name[:500], "size_bytes": size,
            "storage_url": storage.url_for(key), "ocr_languages": asked,
        }).fetchone()
        if inserted is None:
            existing = known or conn.execute(QUERIES["document_id_by_hash"],
                                             {"tenant": tenant, "sha256": sha256}).fetchone()
            assert existing is not None  # the conflict that skipped the insert is this row
            document_id = int(existing[0])
        else:
            document_id = int(inserted[0])
            # Under the tenant's lock, with this document counted: concurrent uploads decide in turn.
            limits.check_storage(conn, tenant, adding=0, default_max_stored_bytes=policy.max_stored_bytes, lock=True)
            enqueue(conn, _accept_first_version(conn, document_id, policy, key=key, display_name=display_name))
            return UploadOutcome(str(path), "created", document_id, 1, size)
    if policy.reprocess_existing:
        try:
            outcome = reprocess(conn, document_id, tenant=tenant, priority=policy.priority, prices=policy.prices,
                                languages=asked, max_attempts=policy.max_attempts)
        except ReprocessRefusedError as exc:  # the same bytes failed for their own content: they would again
            return UploadOutcome(str(path), "existing", document_id, None, size, error=str(exc))
        return UploadOutcome(str(path), "reprocessing" if outcome.created else "in flight", document_id,
                             outcome.version, size)
    return UploadOutcome(str(path), "existing", document_id, None, size)


def _accept_first_version(
    conn: psycopg.Connection[Any], document_id: int, policy: UploadPolicy, *, key: str, display_name: str,
    languages: tuple[str | None, str | None] | None = None,
) -> JobSpec:
    """In the upload's transaction: a new document's version 1 and its reservation; returns its
    ocr.plan job, for the caller to enqueue in the same transaction. `languages`: the (languages,
    source) its OCR is asked for, when the caller knows them (a batch's are all the same)."""
    ref = versions.VersionRef(document_id, 1)
    versions.insert_version(conn, ref)
    credits.reserve_accepted(conn, policy.tenant, document_id=ref.document_id, version=ref.version,
                             prices=policy.prices, what=f"uploading {display_name}")
    ocr_languages, source = languages or versions.requested_languages(conn, document_id)
    return versions.ocr_plan_spec(ref, tenant=policy.tenant, priority=policy.priority, object_key=key,
                                  languages=ocr_languages, languages_source=source, max_attempts=policy.max_attempts)


@dataclass(frozen=True)
class BatchFile:
    """One file of `upload_batch`: where it is, the name it is recorded under, what the outcome calls
    it (`source`), and its SHA-256 when the caller already has it (a package hashes while it unpacks)."""

    path: Path
    filename: str
    source: str
    sha256: str | None = None
    consumable: bool = False
    """The caller is done with the file once stored (a package's member): it may be moved, not copied."""


BatchHook = Callable[[psycopg.Connection[Any], list[UploadOutcome]], None]

STORE_THREADS = 8
"""Objects a batch stores at once: a file object's fsyncs, or an S3 PUT, wait on the disk or the
network, not on this process."""


def upload_batch(
    database: Database,
    storage: ObjectStorage,
    files: Sequence[BatchFile],
    policy: UploadPolicy,
    *,
    within: BatchHook | None = None,
) -> list[UploadOutcome]:
    """Upload `files` for `policy.tenant` as ONE transaction: each new document with its version 1, its reservation and
    its ocr.plan job, bytes uploaded before as their existing document (one document for the same
    bytes twice), and what `within` writes with them (a tender's memberships) — or nothing at all.

    The objects are stored first (several at once) with no connection held (`database` as for
    `upload_file`: review security-2, D-N2), each recorded in `object_uploads` until the transaction
    ends; an object stored for a batch that is refused is deleted again unless a document refers to
    it. Raises, with nothing written and no object left behind: UploadRejectedError for a file
    that is refused (the caller checks each file first, `check_pdf_file`, to report it and go on
    without it), TenantNotFoundError, InsufficientCreditsError (the tenant cannot pay for every new
    document) and StorageQuotaExceededError. The policy's `reprocess_existing` does not apply: bytes
    uploaded before are their existing document."""
    tenant = policy.tenant
    policy = replace(policy, languages=check_languages(policy.languages))
    staged = []
    for file in files:
        size = check_pdf_file(file.path, max_bytes=policy.max_bytes)
        sha256 = file.sha256 or sha256_of(file.path)
        try:
            key = object_key(tenant, sha256)
        except ValueError as exc:
            raise UploadRejectedError(str(exc)) from exc
        staged.append((file, size, sha256, key))
    hashes = sorted({sha256 for _, _, sha256, _ in staged})
    lock = {"tenant": tenant, "sha256s": hashes}
    with borrowed(database) as conn, conn.transaction():
        conn.execute(QUERIES["objects_lock_in_transaction"], lock)
        known = dict(conn.execute(QUERIES["document_ids_by_hashes"], lock).fetchall())
        new_sizes = {sha256: size for _, size, sha256, _ in staged if sha256 not in known}
        if new_sizes:
            credits.check_affordable(conn, tenant, policy.prices.on_acceptance() * len(new_sizes),
                                     what=f"uploading {len(new_sizes)} documents")
            limits.check_storage(conn, tenant, adding=sum(new_sizes.values()),
                                 default_max_stored_bytes=policy.max_stored_bytes)
        claims = [int(row[0]) for row in conn.execute(QUERIES["object_uploads_start_many"], lock)]
    # Stored with no connection held; new bytes are always put (see upload_file).
    missing = {key: file for file, _, sha256, key in staged if sha256 in new_sizes}
    with ThreadPoolExecutor(max_workers=STORE_THREADS, thread_name_prefix="store") as pool:
        puts = {pool.submit(storage.put_file, key, file.path, consume=file.consumable): key
                for key, file in missing.items()}
    stored_now = [key for put, key in puts.items() if put.exception() is None]
    failed = next((put.exception() for put in puts if put.exception() is not None), None)
    with borrowed(database) as conn:
        try:
            if failed is not None:
                raise failed
            return _record_batch(conn, storage, staged, policy, within=within, claims=claims)
        except BaseException:
            if conn.info.transaction_status == TransactionStatus.IDLE:  # a broken one's rows lapse in the hour
                with conn.transaction():
                    conn.execute(QUERIES["objects_lock_in_transaction"], lock)
                    conn.execute(QUERIES["object_uploads_end_many"], {"ids": claims})
                    used = {str(row[1]) for row in conn.execute(QUERIES["documents_of_objects"], {
                        "tenants": [tenant] * len(hashes), "sha256s": hashes}).fetchall()}
                    for _, _, sha256, key in staged:  # under the locks: see _abandon_upload
                        if key in stored_now and sha256 not in used:
                            storage.delete(key)
            raise


def _record_batch(
    conn: psycopg.Connection[Any], storage: ObjectStorage, staged: Sequence[tuple[BatchFile, int, str, str]],
    policy: UploadPolicy, *, within: BatchHook | None, claims: list[int],
) -> list[UploadOutcome]:
    """The batch's one transaction (see `upload_batch`); its `object_uploads` rows end in it. The
    policy's languages are checked already."""
    tenant, asked = policy.tenant, policy.languages
    outcomes: list[UploadOutcome] = []
    specs: list[JobSpec] = []
    languages: tuple[str | None, str | None] | None = None
    with conn.transaction():
        conn.execute(QUERIES["objects_lock_in_transaction"],
                     {"tenant": tenant, "sha256s": sorted({sha256 for _, _, sha256, _ in staged})})
        conn.execute(QUERIES["object_uploads_end_many"], {"ids": claims})
        decided: dict[str, int] = {}
        for file, size, sha256, key in staged:
            if sha256 in decided:
                outcomes.append(UploadOutcome(file.source, "existing", decided[sha256], None, size))
                continue
            display_name = displayed_name(file.filename)
            inserted = conn.execute(QUERIES["document_insert"], {
                "tenant": tenant, "sha256": sha256, "filename": display_name[:500], "size_bytes": size,
                "storage_url": storage.url_for(key), "ocr_languages": asked,
            }).fetchone()
            if inserted is None:
                existing = conn.execute(QUERIES["document_id_by_hash"],
                                        {"tenant": tenant, "sha256": sha256}).fetchone()
                assert existing is not None  # the conflict that skipped the insert is this row
                decided[sha256] = int(existing[0])
                outcomes.append(UploadOutcome(file.source, "existing", decided[sha256], None, size))
                continue
            decided[sha256] = int(inserted[0])
            # The same upload's languages and tenant for every document: asked once.
            languages = languages or versions.requested_languages(conn, decided[sha256])
            specs.append(_accept_first_version(conn, decided[sha256], policy, key=key, display_name=display_name,
                                               languages=languages))
            outcomes.append(UploadOutcome(file.source, "created", decided[sha256], 1, size))
        if specs:
            limits.check_storage(conn, tenant, adding=0, default_max_stored_bytes=policy.max_stored_bytes, lock=True)
            enqueue_many(conn, specs)
        if within is not None:
            within(conn, outcomes)
    return outcomes


def _natural_key(path: Path) -> list[Any]:
    """n2.pdf before n10.pdf: digit runs compared as numbers."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", str(path))]


def find_pdfs(paths: Sequence[Path]) -> Iterator[Path]:
    """Files as given; folders walked recursively for *.pdf (any case), in natural order (n2 before
    n10). Raises UploadRejectedError naming every path that does not exist, before any is read."""
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise UploadRejectedError(f"no such file or folder: {', '.join(missing)}")
    for path in paths:
        if path.is_dir():
            yield from sorted((p for p in path.rglob("*") if p.is_file() and p.suffix.lower() == ".pdf"),
                              key=_natural_key)
        else:
            yield path


def upload_paths(
    conn: psycopg.Connection[Any],
    storage: ObjectStorage,
    paths: Sequence[Path],
    policy: UploadPolicy,
) -> Iterator[UploadOutcome]:
    """Upload every PDF under `paths` (`upload_file` with `policy`); a refused file is reported and
    the others still go in.

    Checked once, before any file is read (raised, not reported per file): languages that are
    refused (UploadRejectedError), a tenant that does not exist (TenantNotFoundError) or cannot pay
    for one document (InsufficientCreditsError). When the credits run out part way, the files left
    are not tried: each is reported `skipped` with the reason."""
    policy = replace(policy, languages=check_languages(policy.languages))
    credits.check_affordable(conn, policy.tenant, policy.prices.on_acceptance(), what="uploading a document")
    files = list(find_pdfs(paths))
    for index, path in enumerate(files):
        try:
            yield upload_file(conn, storage, path, policy)
        except InsufficientCreditsError as exc:
            yield UploadOutcome(str(path), "rejected", size_bytes=_size_of(path), error=str(exc))
            for rest in files[index + 1:]:
                yield UploadOutcome(str(rest), "skipped", size_bytes=_size_of(rest),
                                    error="not tried: the tenant's credits ran out")
            return
        except TenderflowError as exc:
            yield UploadOutcome(str(path), "rejected", size_bytes=_size_of(path), error=str(exc))


def _size_of(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
