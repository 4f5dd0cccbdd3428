"""OCR that uses every core on one document (issue 14): pages per ocr.pages job chosen from the
document's size and the OCR worker threads alive, so a short scan spreads over the pool and a long
one still batches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from tenderflow.pipeline import documents
from tenderflow.pipeline.documents import pages_per_batch
from tenderflow.pipeline.storage import ObjectStorage, open_storage
from tenderflow.pipeline.uploads import upload_file
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
        assert documents.ocr_slots(conn, live_within_seconds=60) == 2
        short = upload_file(conn, storage, scanned_pdf(tmp_path / "short.pdf", numbered_pages(4)),
                            max_bytes=10**7).document_id
    drain(pool, settings, storage)
    with pool.connection() as conn:
        batches = conn.execute("SELECT payload->'pages' FROM jobs WHERE type = 'ocr.pages'"
                               " AND (payload->>'document_id')::bigint = %s ORDER BY id", (short,)).fetchall()
        assert [row[0] for row in batches] == [[1], [2], [3], [4]]
        assert documents.get_document(conn, short)["state"] == "done"
        # a job per page: each page looks at its orientation before it is read
        assert conn.execute("SELECT bool_and(payload->'look_first' = 'true') FROM jobs WHERE type = 'ocr.pages'"
                            " AND (payload->>'document_id')::bigint = %s", (short,)).fetchone() == (True,)


def test_a_document_longer_than_a_job_per_page_reads_first_and_looks_only_at_bad_reads(
    pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    """Past two jobs per OCR slot the pages are batched and read first (the upright fast path: a
    look costs every page a quarter of a read); only a short document's pages look first."""
    settings = pipeline_settings(database_url, tmp_path, ocr_batch_pages=4)
    storage: ObjectStorage = open_storage(settings.resolved_storage_url)
    with pool.connection() as conn:
        _register(conn, "ocr-1", pools=["ocr.plan", "ocr.pages"], threads=1, seen="1 second")
        longer = upload_file(conn, storage, scanned_pdf(tmp_path / "longer.pdf", numbered_pages(5)),
                             max_bytes=10**7).document_id
    drain(pool, settings, storage)
    with pool.connection() as conn:
        jobs = conn.execute("SELECT payload->'pages', payload ? 'look_first' FROM jobs WHERE type = 'ocr.pages'"
                            " AND (payload->>'document_id')::bigint = %s ORDER BY id", (longer,)).fetchall()
        assert [(pages, looks) for pages, looks in jobs] == [([1, 2, 3], False), ([4, 5], False)]
        assert documents.get_document(conn, longer)["state"] == "done"
