"""Documents and their processing versions: every write the pipeline makes, and the reads.

Job types of the pipeline and what their commit steps do here:

    ocr.plan   version queued -> ocr          page count known; text-layer pages stored; one ocr.pages
               job per batch of the pages that need OCR (none: straight on to extracting + extract)
    ocr.pages  pages upserted; batch recorded; the batch that completes the set moves the version
               ocr -> extracting and enqueues the extract job (decided under the version's row lock)
    extract    extraction upserted; version extracting -> done; the document's current version moves up

Every follow-up enqueue carries a unique key naming (document, version, part), so a job rerun by
hand, or a stale duplicate, never creates a second job. Each commit step first share-locks its
document (`hold_document`) and writes nothing when it is gone (deleted: tenderflow.pipeline.deletion).
A job that fails for good moves its version to failed with the job's error (see
`fail_versions_of_ended_jobs`).

A version that becomes done or failed tells the tenant's webhook endpoints in the same transaction
(`document.done` / `document.failed`: tenderflow.webhooks.deliveries.emit enqueues the deliveries),
so an event is sent exactly when its state change commits; `webhook_document` is what the delivery
sends about the version, read when it is sent (a document deleted by then is not sent at all).

Money moves with these state changes, in their transactions (see tenderflow.tenants.credits): the
plan reserves the version's pages, the move to extracting the LLM estimate of their text (a tenant
that cannot pay has the version stopped at once, charged what it cost so far), the move to done
charges the actual cost, a failure refunds it — or, for a document refused for its own content,
charges the work it caused.
"""

from __future__ import annotations

import enum
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from tenderflow.errors import DocumentNotFoundError, InsufficientCreditsError
from tenderflow.extraction.country import buyer_country, placed_deadlines
from tenderflow.queue import ClaimedJob, EndedJob, JobSpec, enqueue, enqueue_many
from tenderflow.queue import jobs as queue_jobs
from tenderflow.sqlfiles import NamedQueries
from tenderflow.stages.contract import JOB_EXTRACT, JOB_OCR_PAGES, JOB_OCR_PLAN, JOB_THUMBNAIL
from tenderflow.tenants import credits
from tenderflow.webhooks import deliveries as webhook_deliveries
from tenderflow.webhooks.endpoints import DOCUMENT_DONE, DOCUMENT_FAILED

QUERIES = NamedQueries("tenderflow.pipeline", "queries.sql")

# The stages' job types (JOB_*) are what the commit steps here enqueue; everything else about a stage
# (its pool, input, result, compute) is declared once in tenderflow.stages (STAGES), its handler in
# tenderflow.handlers.
VERSION_JOB_TYPES = (JOB_OCR_PLAN, JOB_OCR_PAGES, JOB_EXTRACT)
"""The job types whose failure fails their version (a thumbnail is an extra: its failure does not)."""


class VersionState(enum.StrEnum):
    """Mirror of the PostgreSQL enum `version_state` (tests/test_migrations.py keeps the two equal)."""

    QUEUED = "queued"
    OCR = "ocr"
    EXTRACTING = "extracting"
    DONE = "done"
    FAILED = "failed"


class StartPoint(enum.StrEnum):
    """Where a new version of a document starts: read the pages again, or only extract again."""

    OCR = "ocr"
    EXTRACT = "extract"


class PageResult(Protocol):
    """What OCR produces per page (tenderflow.pdf.ocr.PageText fits)."""

    @property
    def number(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def confidence(self) -> float | None: ...
    @property
    def rotation(self) -> int: ...
    @property
    def seconds(self) -> float: ...


@dataclass(frozen=True)
class VersionRef:
    """One processing run of one document, as job payloads carry it."""

    document_id: int
    version: int

    @classmethod
    def of(cls, job: ClaimedJob | EndedJob) -> VersionRef:
        return cls(int(job.payload["document_id"]), int(job.payload["version"]))

    def params(self) -> dict[str, int]:
        return {"document_id": self.document_id, "version": self.version}


def ocr_plan_spec(
    ref: VersionRef, *, tenant: str, priority: int, object_key: str, languages: str | None = None,
    languages_source: str | None = None, max_attempts: int | None = None,
) -> JobSpec:
    """The ocr.plan job of a version; `languages` (with `languages_source`: "upload" or "tenant")
    are the OCR languages asked for, None to let the plan detect them."""
    payload: dict[str, Any] = {**ref.params(), "object_key": object_key}
    if languages:
        payload.update(languages=languages, languages_source=languages_source or "upload")
    return JobSpec(
        type=JOB_OCR_PLAN, tenant=tenant, priority=priority, payload=payload, max_attempts=max_attempts,
        unique_key=f"{JOB_OCR_PLAN}:{ref.document_id}:{ref.version}",
    )


def requested_languages(conn: psycopg.Connection[Any], document_id: int) -> tuple[str | None, str | None]:
    """(languages, source) a new version of the document is OCRed with: the upload's when it named
    some ("upload"), else its tenant's default ("tenant"); (None, None): the plan detects them."""
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["document_languages"], {"id": document_id}).fetchone()
    if row is None:
        raise DocumentNotFoundError(f"no document with id {document_id}")
    if row["document_languages"]:
        return str(row["document_languages"]), "upload"
    if row["tenant_languages"]:
        return str(row["tenant_languages"]), "tenant"
    return None, None


def extract_spec(ref: VersionRef, *, tenant: str, priority: int, max_attempts: int | None = None) -> JobSpec:
    """The extract job of a version; `max_attempts` None: the queue's default (a follow-up job passes
    the attempts of the job that enqueues it, so TENDERFLOW_MAX_ATTEMPTS holds for the whole pipeline)."""
    return JobSpec(
        type=JOB_EXTRACT, tenant=tenant, priority=priority, payload=ref.params(), max_attempts=max_attempts,
        unique_key=f"{JOB_EXTRACT}:{ref.document_id}:{ref.version}",
    )


def thumbnail_spec(ref: VersionRef, job: ClaimedJob) -> JobSpec:
    """The thumbnail job of a version, enqueued by its plan (the PDF is known to open by then)."""
    return JobSpec(
        type=JOB_THUMBNAIL, tenant=job.tenant, priority=job.priority, max_attempts=job.max_attempts,
        payload={**ref.params(), "object_key": job.payload["object_key"]},
        unique_key=f"{JOB_THUMBNAIL}:{ref.document_id}:{ref.version}",
    )


def record_thumbnail(
    conn: psycopg.Connection[Any], job: ClaimedJob, *, page: int, png: bytes, width: int, height: int
) -> None:
    """thumbnail commit: the version's first-page picture (a rerun keeps the first one stored);
    nothing for a deleted document."""
    if not hold_document(conn, int(job.payload["document_id"])):
        return
    conn.execute(QUERIES["thumbnail_insert"], {
        **VersionRef.of(job).params(), "page": page, "png": png, "width": width, "height": height})


def read_thumbnail(conn: psycopg.Connection[Any], document_id: int, *, tenant: str | None = None) -> bytes | None:
    """The PNG of the document's newest version that has one (a version reprocessed from extraction
    renders none: it shows its pages' version's), or None while none is made. Raises
    DocumentNotFoundError for a document that does not exist or is another tenant's."""
    get_document(conn, document_id, tenant=tenant)
    row = conn.execute(QUERIES["thumbnail_get"], {"document_id": document_id}).fetchone()
    return bytes(row[0]) if row is not None else None


def page_batches(pages: Sequence[int], batch_pages: int) -> list[list[int]]:
    """`pages` (in order) cut into batches of at most batch_pages each."""
    ordered = sorted(pages)
    return [ordered[start:start + batch_pages] for start in range(0, len(ordered), batch_pages)]


JOBS_PER_OCR_SLOT = 2
"""A document is cut into at least this many ocr.pages jobs per OCR slot (worker thread) when it is
short: the slots take its pages in parallel, and a slow page (turned, dense) does not leave the other
slots idle while its batch finishes."""


def pages_per_batch(ocr_pages: int, slots: int, max_batch_pages: int) -> int:
    """Pages per ocr.pages job for a document with `ocr_pages` pages to OCR and `slots` OCR worker
    threads alive: enough jobs for every slot to take JOBS_PER_OCR_SLOT of them (a 4-page scan on 2
    processes is 4 jobs of one page), never more than `max_batch_pages` pages (a 500-page one still
    batches, so a job's claim, commit and tool start-ups are spread over several pages). With no slot
    known (no OCR worker registered yet) the document is batched by `max_batch_pages`."""
    if slots <= 0 or ocr_pages <= 0:
        return max_batch_pages
    return max(1, min(max_batch_pages, math.ceil(ocr_pages / (JOBS_PER_OCR_SLOT * slots))))


def ocr_slots(conn: psycopg.Connection[Any], *, live_within_seconds: float, now: datetime | None = None) -> int:
    """Threads of the workers, local and remote, that take ocr.pages jobs and were seen lately."""
    row = conn.execute(QUERIES["ocr_slots_alive"], {
        "job_type": JOB_OCR_PAGES, "live_within_seconds": live_within_seconds, "now": now,
    }).fetchone()
    return int(row[0]) if row is not None and row[0] is not None else 0


@dataclass(frozen=True)
class LockedDocument:
    """A document row, locked FOR UPDATE by `lock_document` until the transaction ends."""

    id: int
    tenant: str
    sha256: str
    storage_url: str
    latest_version: int
    current_version: int | None


@dataclass(frozen=True)
class VersionRow:
    """One version row as the pipeline reads it."""

    document_id: int
    version: int
    state: VersionState
    start_from: StartPoint
    pages_version: int
    page_count: int | None
    batch_count: int | None
    error: str | None


def lock_document(conn: psycopg.Connection[Any], document_id: int, *, tenant: str | None = None) -> LockedDocument:
    """The document, locked until the transaction ends. Raises DocumentNotFoundError (also for
    another tenant's document)."""
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["document_lock"], {"id": document_id, "tenant": tenant}).fetchone()
    if row is None:
        raise DocumentNotFoundError(f"no document with id {document_id}")
    return LockedDocument(**row)


def hold_document(conn: psycopg.Connection[Any], document_id: int) -> bool:
    """A commit step's first statement: share-lock the document row until the transaction ends (a
    deletion waits for this commit), or False when the document is gone (deleted: the commit must
    write nothing). See tenderflow.pipeline.deletion."""
    return conn.execute(QUERIES["document_hold"], {"document_id": document_id}).fetchone() is not None


def get_version(conn: psycopg.Connection[Any], ref: VersionRef) -> VersionRow | None:
    row = conn.cursor(row_factory=dict_row).execute(QUERIES["version_get"], ref.params()).fetchone()
    if row is None:
        return None
    return VersionRow(
        document_id=row["document_id"], version=row["version"], state=VersionState(row["state"]),
        start_from=StartPoint(row["start_from"]), pages_version=row["pages_version"], page_count=row["page_count"],
        batch_count=row["batch_count"], error=row["error"])


def newest_failed_version_with_pages(conn: psycopg.Connection[Any], document_id: int) -> int | None:
    """The newest failed version of the document whose pages were all read (it failed at extraction,
    say the LLM refused it), or None: see version_newest_failed_with_pages."""
    row = conn.execute(QUERIES["version_newest_failed_with_pages"], {"document_id": document_id}).fetchone()
    return None if row is None else int(row[0])


def set_latest_version(conn: psycopg.Connection[Any], ref: VersionRef) -> None:
    conn.execute(QUERIES["document_set_latest"], {"id": ref.document_id, "version": ref.version})


def set_document_languages(conn: psycopg.Connection[Any], document_id: int, languages: str) -> None:
    """The OCR languages the document's next versions are read with (the upload's own, replaced)."""
    conn.execute(QUERIES["document_set_languages"], {"id": document_id, "ocr_languages": languages})


def insert_version(
    conn: psycopg.Connection[Any], ref: VersionRef, *, start_from: str = "ocr", pages_version: int | None = None,
    page_count: int | None = None, batch_count: int | None = None,
) -> None:
    """A new version row: queued (from OCR) or extracting (from existing pages)."""
    conn.execute(QUERIES["version_insert"], {
        **ref.params(), "start_from": start_from, "pages_version": pages_version or ref.version,
        "state": VersionState.QUEUED if start_from == StartPoint.OCR else VersionState.EXTRACTING,
        "page_count": page_count, "batch_count": batch_count,
    })


def record_plan(
    conn: psycopg.Connection[Any], job: ClaimedJob, *, page_count: int, text_pages: Sequence[PageResult],
    ocr_pages: Sequence[int], batch_pages: int, languages: dict[str, Any] | None = None,
    live_within_seconds: float | None = None,
) -> list[int]:
    """ocr.plan commit: version queued -> ocr; record the OCR languages chosen (`languages`: a
    tenderflow.stages.results.LanguagesRecord as a dict); store the pages read from their text
    layer; reserve the pages' credits; enqueue one ocr.pages job per batch of the other pages
    (idempotent; each carries the languages), or, when every page had a usable text layer, move on
    to extraction at once. Batches hold at most `batch_pages` pages, fewer when the document is short
    for the OCR slots alive (seen within `live_within_seconds`; None: `batch_pages` alone), see
    `pages_per_batch`. A tenant that cannot pay for the pages has the version stopped (see
    `stop_unpaid`); the job itself succeeded."""
    ref = VersionRef.of(job)
    if not hold_document(conn, ref.document_id):
        return []  # deleted: nothing to record
    one_wave = False
    if live_within_seconds is not None and ocr_pages:
        slots = ocr_slots(conn, live_within_seconds=live_within_seconds)
        batch_pages = pages_per_batch(len(ocr_pages), slots, batch_pages)
        # A short document (a job per page): it takes as long as its slowest slot, and a page read
        # turned costs that slot a second read, so each page looks at its orientation first (a
        # quarter of a read on a reduced copy), as OCRmyPDF's --rotate-pages does on every page.
        one_wave = 0 < len(ocr_pages) <= JOBS_PER_OCR_SLOT * slots
    batches = page_batches(ocr_pages, batch_pages)
    updated = conn.execute(QUERIES["version_plan"], {
        **ref.params(), "page_count": page_count, "batch_count": len(batches) or None,
    }).rowcount
    if updated == 0:
        return []  # the version already moved on (failed, or a rerun after extraction): nothing to do
    if languages is not None:
        conn.execute(QUERIES["version_languages"], {
            **ref.params(), "ocr_languages": languages["languages"], "language": languages.get("language"),
            "languages_source": languages["source"], "language_confidence": languages.get("confidence"),
            "script": languages.get("script"),
        })
    try:
        credits.reserve_pages(conn, **ref.params(), page_count=page_count)
    except InsufficientCreditsError as exc:
        stop_unpaid(conn, ref, f"not enough credits to read the pages: {exc}")
        return []
    upsert_pages(conn, ref, text_pages)
    enqueue(conn, thumbnail_spec(ref, job))
    if not batches:
        return start_extraction(conn, job, ref)
    return enqueue_many(conn, [
        JobSpec(
            type=JOB_OCR_PAGES, tenant=job.tenant, priority=job.priority, max_attempts=job.max_attempts,
            payload={**ref.params(), "object_key": job.payload["object_key"], "pages": batch,
                     **({"languages": languages["languages"]} if languages else {}),
                     **({"look_first": True} if one_wave else {})},
            unique_key=f"{JOB_OCR_PAGES}:{ref.document_id}:{ref.version}:{batch[0]}",
        )
        for batch in batches
    ])


def upsert_pages(conn: psycopg.Connection[Any], ref: VersionRef, pages: Sequence[PageResult]) -> None:
    """Insert or overwrite pages keyed (document, version, page): a rerun never duplicates."""
    if not pages:
        return
    conn.execute(QUERIES["page_upsert"], {
        **ref.params(),
        "page_numbers": [p.number for p in pages], "texts": [p.text.replace("\x00", "") for p in pages],
        "sources": [p.source for p in pages], "confidences": [p.confidence for p in pages],
        "rotations": [p.rotation for p in pages], "seconds": [p.seconds for p in pages],
        "layouts": [_layout_json(getattr(p, "layout", None)) for p in pages],
    })


def _layout_json(layout: object) -> str | None:
    """A page's word boxes as the JSON text the upsert casts to jsonb (a model or a dict; None: none)."""
    if layout is None:
        return None
    dump = getattr(layout, "model_dump_json", None)
    text = str(dump()) if callable(dump) else json.dumps(layout, ensure_ascii=False)
    return text.replace("\\u0000", "")  # jsonb refuses NUL; a word never needs one


def record_pages(conn: psycopg.Connection[Any], job: ClaimedJob, pages: Sequence[PageResult]) -> bool:
    """ocr.pages commit: upsert the batch's pages and record the batch; the batch that completes
    the set moves the version to extracting and enqueues extraction. Returns whether it did."""
    ref = VersionRef.of(job)
    if not hold_document(conn, ref.document_id):
        return False  # deleted: nothing to record
    upsert_pages(conn, ref, pages)
    numbers = [int(number) for number in job.payload["pages"]]
    conn.execute(QUERIES["batch_record"], {**ref.params(), "first_page": min(numbers), "last_page": max(numbers)})
    # The row lock orders concurrent batch commits of this version: the last one sees every batch.
    version = conn.cursor(row_factory=dict_row).execute(QUERIES["version_lock"], ref.params()).fetchone()
    if version is None or version["state"] != VersionState.OCR:
        return False
    committed = conn.execute(QUERIES["batch_count_committed"], ref.params()).fetchone()
    if committed is None or committed[0] < version["batch_count"]:
        return False
    return bool(start_extraction(conn, job, ref))


def page_lengths(conn: psycopg.Connection[Any], ref: VersionRef) -> list[int]:
    """The length of each page's text the version extracts from (its pages version's), in page order."""
    return [int(length) for (length,) in conn.execute(QUERIES["page_lengths"], ref.params()).fetchall()]


def start_extraction(conn: psycopg.Connection[Any], job: ClaimedJob, ref: VersionRef) -> list[int]:
    """Every page of the version is read (its row locked): reserve the LLM estimate of their text,
    then move the version to extracting and enqueue its extract job (returns its id). A tenant that
    cannot pay has the version stopped instead (returns [])."""
    try:
        credits.reserve_extraction(conn, **ref.params(), page_chars=page_lengths(conn, ref))
    except InsufficientCreditsError as exc:
        stop_unpaid(conn, ref, f"not enough credits to extract the fields: {exc}")
        return []
    conn.execute(QUERIES["version_set_extracting"], ref.params())
    return [enqueue(conn, extract_spec(ref, tenant=job.tenant, priority=job.priority, max_attempts=job.max_attempts))]


def stop_unpaid(conn: psycopg.Connection[Any], ref: VersionRef, reason: str) -> None:
    """The tenant cannot pay for the version's next step: the version fails with `reason` and is
    charged the work it caused so far (the per-document price and the pages it read), not refunded."""
    if conn.execute(QUERIES["version_fail"], {**ref.params(), "error": reason}).fetchone() is not None:
        credits.charge_failed_version(conn, **ref.params(), reason=reason)
        announce(conn, ref, DOCUMENT_FAILED)


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


def version_state(conn: psycopg.Connection[Any], ref: VersionRef) -> VersionState | None:
    row = get_version(conn, ref)
    return None if row is None else row.state


def pages_for_extraction(conn: psycopg.Connection[Any], ref: VersionRef) -> list[tuple[int, str]]:
    """(page number, text) of the pages this version's extraction reads."""
    version = conn.execute(QUERIES["version_get"], ref.params()).fetchone()
    if version is None:
        raise DocumentNotFoundError(f"document {ref.document_id} has no version {ref.version}")
    pages_version = version[4]
    rows = conn.execute(QUERIES["pages_text"], {"document_id": ref.document_id, "version": pages_version})
    return [(int(number), str(text)) for number, text in rows.fetchall()]


def record_extraction(conn: psycopg.Connection[Any], job: ClaimedJob, extraction: dict[str, Any]) -> None:
    """extract commit: upsert the fields; charge the version's work (once: a rerun of a done version
    charges nothing more); version extracting -> done and promoted for readers — unless the charge
    went beyond what the reservations and the balance hold: then the version fails, saying so, and
    its fields are not delivered (review D6)."""
    ref = VersionRef.of(job)
    if not hold_document(conn, ref.document_id):
        return  # deleted: nothing to deliver or charge
    conn.execute(QUERIES["extraction_upsert"], {
        **ref.params(), "fields": Jsonb(extraction["fields"]), "flags": Jsonb(extraction.get("flags", [])),
        "backend": extraction["backend"], "model": extraction.get("model"),
        "prompt_tokens": extraction.get("prompt_tokens", 0),
        "completion_tokens": extraction.get("completion_tokens", 0),
        # found_by (hybrid extraction: which extractor found each field) only when the result says
        "provenance": Jsonb({key: extraction.get(key) or {} for key in ("confidence", "rules", "candidates")}
                            | ({"found_by": extraction["found_by"]} if extraction.get("found_by") else {})),
        "country": Jsonb(extraction["country"]) if extraction.get("country") else None,
    })
    version = conn.execute(QUERIES["version_lock"], ref.params()).fetchone()
    if version is None or version[0] not in (VersionState.EXTRACTING, VersionState.DONE):
        return  # failed meanwhile (cancelled, stopped): nothing to deliver or charge
    charge = credits.charge_version(conn, **ref.params())
    if charge is not None and charge.unpaid:
        if conn.execute(QUERIES["version_fail"], {**ref.params(), "error": (
                f"not enough credits to pay for the extraction: it cost {charge.actual} credits, {charge.reserved} "
                f"were reserved and the balance held {charge.amount - charge.reserved} more; {charge.unpaid} unpaid. "
                "The fields are not delivered: add credits and reprocess the document")}).fetchone() is not None:
            announce(conn, ref, DOCUMENT_FAILED, tenant=job.tenant)
        return
    conn.execute(QUERIES["version_done"], ref.params())
    conn.execute(QUERIES["document_promote"], ref.params())
    index_for_search(conn, [ref.document_id])
    if version[0] == VersionState.EXTRACTING:  # a rerun of a done version's extraction tells nobody again
        announce(conn, ref, DOCUMENT_DONE, tenant=job.tenant)


def index_for_search(conn: psycopg.Connection[Any], document_ids: Sequence[int]) -> None:
    """Make what search finds of these documents their readable version (after a promotion, in its
    transaction): their search rows (tenant, the fields the filters read) and one entry per page
    of that version's pages, a tsvector in the document's language configuration (pages that a
    version only extracting again shares with the one before keep theirs). A document without a
    readable version, or deleted, gets none."""
    params = {"document_ids": list(document_ids)}
    conn.execute(QUERIES["search_document_index"], params)
    conn.execute(QUERIES["search_pages_unindex_stale"], params)
    conn.execute(QUERIES["search_pages_index"], params)


OCR_JOB_TYPES = (JOB_OCR_PLAN, JOB_OCR_PAGES)


def fails_for_its_content(job: EndedJob) -> bool:
    """Whether the job ended failed for its document's own content, not for the service: an OCR job
    whose handler said the failure is permanent (the probe refused the PDF — not a PDF, encrypted,
    damaged, no pages, over the page or pixel caps — or a page that cannot be rendered within the
    tools' time or memory limits). Out of attempts (outages), expired leases (crashes), releases,
    cancellations, results refused at commit (bugs) and every extraction failure are the service's."""
    return job.permanent and job.type in OCR_JOB_TYPES


def fail_versions_of_ended_jobs(conn: psycopg.Connection[Any], ended: Sequence[EndedJob]) -> None:
    """Queue hook: a pipeline job that failed or was cancelled fails its version, with the reason (a
    version already done or failed does not move). A version that failed for its content is charged
    the work it caused; any other is refunded in full (review D7; see tenderflow.tenants.credits)."""
    for job in ended:
        if job.type not in VERSION_JOB_TYPES:
            continue
        reason = job.error or job.state.value
        if job.state.value == "cancelled":
            reason = f"cancelled ({job.type} job {job.id})"
        elif job.type == JOB_OCR_PAGES:
            reason = f"pages {', '.join(str(n) for n in job.payload.get('pages', []))}: {reason}"
        ref = VersionRef.of(job)
        if conn.execute(QUERIES["version_fail"], {**ref.params(), "error": reason}).fetchone() is None:
            continue
        if fails_for_its_content(job):
            conn.execute(QUERIES["version_mark_failed_for_content"], ref.params())
            credits.charge_failed_version(conn, **ref.params(), reason=reason)
        else:
            credits.refund_version(conn, **ref.params(), reason=reason)
        announce(conn, ref, DOCUMENT_FAILED, tenant=job.tenant)


# --- reads ------------------------------------------------------------------------------------


_INTERNAL_LOCATION = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+|(?<![\w.])(?:~|\.{1,2})?/(?:[\w.@%+-]+/)+[\w.@%+-]*")


def tenant_visible_error(error: str | None) -> str | None:
    """A document's error as its tenant sees it: the operator's paths, buckets and endpoints
    (file://…, s3://…, https://…, /var/lib/…) replaced by "<internal>" (review D14); the full text
    stays in the database and the log for the operator."""
    return None if error is None else _INTERNAL_LOCATION.sub("<internal>", error)


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


@dataclass(frozen=True)
class FailedVersion:
    """A failed version that a pipeline job belongs to. A failed version never moves again (its
    reservations were refunded, and the ledger closes a version once), so retrying one of its jobs
    does work nobody uses: only a new version (`tenderflow.pipeline.reprocess`) processes the
    document again."""

    ref: VersionRef
    reprocess_from: str  # where that new version should start to redo this job's work: "ocr" | "extract"


def failed_version_of_job(conn: psycopg.Connection[Any], job_id: int) -> FailedVersion | None:
    """The job's document version, when the job is a pipeline job and that version has failed;
    None otherwise. Raises JobNotFoundError."""
    job = queue_jobs.get(conn, job_id)
    if job["type"] not in (*VERSION_JOB_TYPES, JOB_THUMBNAIL):
        return None
    ref = VersionRef(int(job["payload"]["document_id"]), int(job["payload"]["version"]))
    if version_state(conn, ref) != VersionState.FAILED:
        return None
    return FailedVersion(ref, reprocess_from=StartPoint.EXTRACT if job["type"] == JOB_EXTRACT else StartPoint.OCR)


def get_document(conn: psycopg.Connection[Any], document_id: int, *, tenant: str | None = None) -> dict[str, Any]:
    """The document with its latest version's state. A tenant sees only its own (else not found)."""
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["document_get"], {"id": document_id, "tenant": tenant, **_RETRY_KEYS}
    ).fetchone()
    if row is None:
        raise DocumentNotFoundError(f"no document with id {document_id}")
    return row


def log_subject(job: ClaimedJob) -> dict[str, Any]:
    """What a pipeline job's log lines name: its document and version (and OCR batch)."""
    payload = job.payload
    subject = {"document_id": payload.get("document_id"), "version": payload.get("version")}
    if "pages" in payload:
        subject["pages"] = payload["pages"]
    return {key: value for key, value in subject.items() if value is not None}


_RETRY_KEYS = {"plan_type": JOB_OCR_PLAN, "extract_type": JOB_EXTRACT}


@dataclass(frozen=True)
class VersionProgress:
    """Where one version stands: its state, pages read of how many, its error, and why it waits to
    run again if it does ('retry 2/5: LLM unreachable …')."""

    document_id: int
    version: int
    state: VersionState
    page_count: int | None
    pages_done: int
    error: str | None
    retrying: str | None

    @property
    def finished(self) -> bool:
        return self.state in (VersionState.DONE, VersionState.FAILED)


def versions_progress(conn: psycopg.Connection[Any], refs: Sequence[VersionRef]) -> list[VersionProgress]:
    """The progress of each of `refs` (versions that do not exist are left out)."""
    rows = conn.cursor(row_factory=dict_row).execute(QUERIES["versions_progress"], {
        "document_ids": [ref.document_id for ref in refs], "versions": [ref.version for ref in refs],
        **_RETRY_KEYS,
    }).fetchall()
    return [VersionProgress(**{**row, "state": VersionState(row["state"])}) for row in rows]


@dataclass(frozen=True)
class PipelineProgress:
    """The unfinished versions (`tenderflow status`): the first `shown` of them with their pages read
    of how many, the pages they still have to read (of those whose page count is known) and the pace
    of the last minutes, whence an estimate of when those pages will be read (extraction not counted)."""

    unfinished: int
    shown: list[dict[str, Any]]
    pages_left: int
    unplanned: int  # versions whose plan has not run: their page count is not known yet
    pages_per_minute: float | None  # None: no page stored within the window
    window_seconds: float

    @property
    def eta_seconds(self) -> float | None:
        """Seconds until the known pages left are read at the recent pace; None when nothing was read
        lately, or when no page is known to be left while some versions' page count is not known yet."""
        if not self.pages_left:
            return None if self.unplanned else 0.0
        return None if not self.pages_per_minute else 60.0 * self.pages_left / self.pages_per_minute


PACE_MIN_SECONDS = 15.0
"""The shortest span a pace is measured over: one batch of pages stored a second ago is not a
pace of thousands of pages a minute."""


def pipeline_progress(conn: psycopg.Connection[Any], *, shown: int = 10, window_seconds: float = 300.0,
                      now: datetime | None = None) -> PipelineProgress:
    """Where the unfinished versions stand and the pages stored per minute within the last
    `window_seconds` (measured from the first of them, over at least PACE_MIN_SECONDS)."""
    cursor = conn.cursor(row_factory=dict_row)
    rows = cursor.execute(QUERIES["versions_in_progress"]).fetchall()
    pace = cursor.execute(QUERIES["pages_read_lately"], {"window_seconds": window_seconds, "now": now}).fetchone()
    assert pace is not None
    pages_per_minute = (60.0 * pace["pages"] / max(pace["span_seconds"], PACE_MIN_SECONDS)
                        if pace["pages"] else None)
    return PipelineProgress(
        unfinished=len(rows), shown=rows[:shown],
        pages_left=sum(max(row["page_count"] - row["pages_done"], 0) for row in rows if row["page_count"]),
        unplanned=sum(1 for row in rows if row["page_count"] is None),
        pages_per_minute=pages_per_minute, window_seconds=window_seconds,
    )


def list_documents(
    conn: psycopg.Connection[Any], *, tenant: str | None = None, state: str | None = None,
    limit: int = 50, before_id: int | None = None, filename: str | None = None,
    created_after: datetime | None = None, created_before: datetime | None = None,
) -> list[dict[str, Any]]:
    """Documents newest first, `limit` of them with an id below `before_id` (the cursor); `filename`
    keeps those whose file name contains it, in any case (taken literally: `%` and `_` are no wildcards);
    `created_after` / `created_before` those uploaded from then on / before then."""
    pattern = None if not filename else re.sub(r"([\\%_])", r"\\\1", filename)
    return conn.cursor(row_factory=dict_row).execute(QUERIES["document_list"], {
        "tenant": tenant, "state": state, "limit": limit, "before_id": before_id, "filename": pattern,
        "created_after": created_after, "created_before": created_before,
    }).fetchall()


def failed_for_content(conn: psycopg.Connection[Any], ref: VersionRef) -> bool:
    """Whether the version failed for the PDF's own content (migration 0012)."""
    row = conn.execute(QUERIES["version_failed_for_content"], ref.params()).fetchone()
    return bool(row and row[0])


def jobs_failed_for_content(conn: psycopg.Connection[Any], job_ids: Sequence[int]) -> set[int]:
    """Which of `job_ids` belong to a version that failed for its document's own content (encrypted,
    damaged, over the caps…): retrying them, or reprocessing the document, cannot help."""
    rows = conn.execute(QUERIES["jobs_of_versions_failed_for_content"], {
        "job_ids": list(job_ids), "types": list(VERSION_JOB_TYPES)}).fetchall()
    return {int(row[0]) for row in rows}


def document_counts(conn: psycopg.Connection[Any], *, tenant: str | None = None) -> dict[str, int]:
    rows = conn.execute(QUERIES["document_counts_by_state"], {"tenant": tenant}).fetchall()
    return {str(state): int(count) for state, count in rows}


def readable_version(document: dict[str, Any]) -> int | None:
    """The version readers see: the newest done one (old results stay until new ones land)."""
    current = document["current_version"]
    return None if current is None else int(current)


def document_pages(conn: psycopg.Connection[Any], document_id: int, version: int) -> list[dict[str, Any]]:
    version_row = get_version(conn, VersionRef(document_id, version))
    pages_version = version_row.pages_version if version_row else version
    return conn.cursor(row_factory=dict_row).execute(
        QUERIES["pages_of_version"], {"document_id": document_id, "version": pages_version}
    ).fetchall()


def document_fields(conn: psycopg.Connection[Any], document_id: int, version: int) -> dict[str, Any] | None:
    return conn.cursor(row_factory=dict_row).execute(
        QUERIES["extraction_get"], {"document_id": document_id, "version": version}
    ).fetchone()


def read_document(conn: psycopg.Connection[Any], document_id: int) -> dict[str, Any]:
    """A document with the pages and fields of its readable version: what `tenderflow show` prints
    and a reader of one document wants. Raises DocumentNotFoundError."""
    document = get_document(conn, document_id)
    version = readable_version(document)
    report: dict[str, Any] = {"document": document, "readable_version": version, "fields": None, "pages": []}
    if version is not None:
        report["fields"] = document_fields(conn, document_id, version)
        report["pages"] = document_pages(conn, document_id, version)
    return report
