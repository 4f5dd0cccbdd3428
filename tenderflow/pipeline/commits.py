"""The stages' commit steps and the failure hook: every move of a version along its states.

Job types of the pipeline and what their commit steps do here, in the completion transaction:

    ocr.plan   version queued -> ocr          page count known; text-layer pages stored; one ocr.pages
               job per batch of the pages that need OCR (none: straight on to extracting + extract)
    ocr.pages  pages upserted; batch recorded; the batch that completes the set moves the version
               ocr -> extracting and enqueues the extract job (decided under the version's row lock)
    extract    extraction upserted; version extracting -> done; the document's current version moves up
    thumbnail  the version's first-page picture stored (its failure fails nothing)

Every follow-up enqueue carries a unique key naming (document, version, part), so a job rerun by
hand, or a stale duplicate, never creates a second job. Each commit step first share-locks its
document (`versions.hold_document`) and writes nothing when it is gone (deleted:
tenderflow.pipeline.deletion). A job that fails for good moves its version to failed with the
job's error (see `fail_versions_of_ended_jobs`).

A version that becomes done or failed tells the tenant's webhook endpoints in the same transaction
(`document.done` / `document.failed`: tenderflow.pipeline.announce), so an event is sent exactly when
its state change commits. A version that becomes done is what search finds of its document
(`search.index_for_search`).

Money moves with these state changes, in their transactions (see tenderflow.tenants.credits): the
plan reserves the version's pages, the move to extracting the LLM estimate of their text (a tenant
that cannot pay has the version stopped at once, charged what it cost so far), the move to done
charges the actual cost, a failure refunds it — or, for a document refused for its own content,
charges the work it caused.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from tenderflow.errors import InsufficientCreditsError
from tenderflow.pipeline.announce import announce
from tenderflow.pipeline.search import index_for_search
from tenderflow.pipeline.versions import (
    OCR_JOB_TYPES,
    VERSION_JOB_TYPES,
    VersionRef,
    VersionState,
    extract_spec,
    hold_document,
    page_lengths,
    thumbnail_spec,
)
from tenderflow.queue import ClaimedJob, EndedJob, JobSpec, enqueue, enqueue_many
from tenderflow.sqlfiles import NamedQueries
from tenderflow.stages.contract import JOB_OCR_PAGES
from tenderflow.tenants import credits
from tenderflow.webhooks.endpoints import DOCUMENT_DONE, DOCUMENT_FAILED

QUERIES = NamedQueries("tenderflow.pipeline", "commits.sql")



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


def record_thumbnail(
    conn: psycopg.Connection[Any], job: ClaimedJob, *, page: int, png: bytes, width: int, height: int
) -> None:
    """thumbnail commit: the version's first-page picture (a rerun keeps the first one stored);
    nothing for a deleted document."""
    if not hold_document(conn, int(job.payload["document_id"])):
        return
    conn.execute(QUERIES["thumbnail_insert"], {
        **VersionRef.of(job).params(), "page": page, "png": png, "width": width, "height": height})


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
