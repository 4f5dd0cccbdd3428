"""OCR that uses every core on one document (issue 14): pages per ocr.pages job chosen from the
document's size and the OCR worker threads alive, so a short scan spreads over the pool and a long
one still batches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from tenderflow.pipeline import commits, reads
from tenderflow.pipeline.commits import pages_per_batch
from tenderflow.pipeline.storage import ObjectStorage, open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tests.support.pipeline_harness import drain, pipeline_settings
from tests.support.tender_fixtures import numbered_pages, scanned_pdf

pytestmark = pytest.mark.ocr


def test_pages_per_batch_spreads_short_documents_and_batches_long_ones() -> None:
    assert pages_per_batch(4, slots=2, max_batch_pages=4) == 1  # 4 jobs: both processes busy, and balanced
    assert pages_per_batch(12, slots=2, max_batch_pages=4) == 3
    assert pages_per_batch(500, slots=2, max_batch_pages=4) == 4  # still batched
    assert pages_per_batch(500, slots=64, max_batch_pages=4) == 4
    assert pages_per_batch(4, slots=0, max_batch_pages=4) == 4  # no worker known: the setting alone
    assert pages_per_batch(1, slots=8, max_batch_pages=4) == 1


def _register(conn: psycopg.Connection[Any], name: str, *, pools: list[str], threads: int, seen: str) -> None:
    conn.execute("INSERT INTO workers (id, host, pid, pools, threads, last_seen_at)"
                 " VALUES (%s, 'test', 1, %s, %s, now() - %s::interval)", (name, pools, threads, seen))


def _upload_scan(conn: psycopg.Connection[Any], storage: ObjectStorage, tmp_path: Path, pages: int) -> int:
    """A scanned PDF of `pages` numbered pages, uploaded: its document id."""
    outcome = upload_file(conn, storage, scanned_pdf(tmp_path / f"scan-{pages}.pdf", numbered_pages(pages)),
                          UploadPolicy(max_bytes=10**7))
    assert outcome.document_id is not None
    return outcome.document_id


def _ocr_page_jobs(conn: psycopg.Connection[Any], document_id: int) -> list[tuple[list[int], bool | None]]:
    """The document's ocr.pages jobs in order: the pages of each and its look_first (None when unset)."""
    rows = conn.execute("SELECT payload->'pages', (payload->'look_first')::boolean FROM jobs WHERE type = 'ocr.pages'"
                        " AND (payload->>'document_id')::bigint = %s ORDER BY id", (document_id,)).fetchall()
    return [(pages, look_first) for pages, look_first in rows]


def test_a_short_scan_is_cut_into_one_job_per_page_for_two_live_ocr_workers(
    pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    settings = pipeline_settings(database_url, tmp_path, ocr_batch_pages=4)
    storage: ObjectStorage = open_storage(settings.resolved_storage_url)
    with pool.connection() as conn:
        _register(conn, "ocr-1", pools=["ocr.plan", "ocr.pages"], threads=1, seen="1 second")
        _register(conn, "ocr-2", pools=["ocr.plan", "ocr.pages"], threads=1, seen="2 seconds")
        _register(conn, "extract-only", pools=["extract"], threads=16, seen="1 second")  # no OCR slots
        _register(conn, "long-gone", pools=["ocr.pages"], threads=8, seen="1 hour")  # not counted either
        assert commits.ocr_slots(conn, live_within_seconds=60) == 2
        short = _upload_scan(conn, storage, tmp_path, 4)
    drain(pool, settings, storage)
    with pool.connection() as conn:
        # a job per page: each page looks at its orientation before it is read
        assert _ocr_page_jobs(conn, short) == [([1], True), ([2], True), ([3], True), ([4], True)]
        assert reads.get_document(conn, short)["state"] == "done"


def test_a_document_longer_than_a_job_per_page_reads_first_and_looks_only_at_bad_reads(
    pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    """Past two jobs per OCR slot the pages are batched and read first (the upright fast path: a
    look costs every page a quarter of a read); only a short document's pages look first."""
    settings = pipeline_settings(database_url, tmp_path, ocr_batch_pages=4)
    storage: ObjectStorage = open_storage(settings.resolved_storage_url)
    with pool.connection() as conn:
        _register(conn, "ocr-1", pools=["ocr.plan", "ocr.pages"], threads=1, seen="1 second")
        longer = _upload_scan(conn, storage, tmp_path, 5)
    drain(pool, settings, storage)
    with pool.connection() as conn:
        assert _ocr_page_jobs(conn, longer) == [([1, 2, 3], None), ([4, 5], None)]  # no look_first
        assert reads.get_document(conn, longer)["state"] == "done"
