"""The stage contract (tenderflow.stages, and the handlers' side in tenderflow.handlers): every stage
declared once, everything else derived, and the `thumbnail` stage that was added through STAGES alone."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from tenderflow.api.worker_tokens import TOKEN_POOLS
from tenderflow.config import Settings
from tenderflow.errors import DocumentNotFoundError, PermanentError
from tenderflow.handlers import LOCAL_POOLS, STAGE_HANDLERS, TASKS, build_job_types
from tenderflow.pdf.thumbnail import png_size, render_thumbnail
from tenderflow.pipeline import reads
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.queue import Backoff, Failure, JobContext, claim
from tenderflow.queue.completion import FinishedAttempt, commit_attempts
from tenderflow.stages.compute import POOLS, STAGES, THUMBNAIL, compute_handlers, stage_named
from tenderflow.stages.contract import JOB_OCR_PLAN, JOB_THUMBNAIL, ComputeHandler, Pool
from tenderflow.stages.results import ThumbnailResult
from tenderflow.tenants.tenants import create_tenant
from tests.support.pipeline_harness import drain, pipeline_settings
from tests.support.tender_fixtures import TENDER_PAGE, numbered_pages, scanned_pdf, text_pdf


def test_pools_tokens_and_both_registries_derive_from_the_stages(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    names = [stage.name for stage in STAGES]
    assert len(set(names)) == len(names)
    assert sorted(STAGE_HANDLERS) == sorted(names)  # every stage has its local handler
    assert POOLS["all"] == tuple(names)
    for pool in (Pool.OCR, Pool.EXTRACT):
        assert POOLS[pool] == tuple(stage.name for stage in STAGES if stage.pool is pool)
    assert set(POOLS) == {pool.value for pool in Pool} and set(TOKEN_POOLS) == {"ocr", "extract"}
    tasks = [task.name for task in TASKS]
    assert build_job_types(settings).names() == sorted(names + tasks)
    assert not set(tasks) & {name for types in POOLS.values() for name in types}  # remote workers: stages only
    for pool in Pool:  # local workers: the pool's stages, then its own tasks and those of every pool
        assert LOCAL_POOLS[pool] == POOLS[pool] + tuple(task.name for task in TASKS if task.runs_in(pool))
    # Deleting stored PDFs and the retention sweep wait for no pool: an OCR-only machine runs them too.
    assert {"storage.delete", "documents.retention"} <= set(LOCAL_POOLS["ocr"])
    assert not {"webhook.deliver", "watch.poll"} & set(LOCAL_POOLS["ocr"])
    assert set(tasks) <= set(LOCAL_POOLS["extract"]) and set(tasks) <= set(LOCAL_POOLS["all"])
    remote = compute_handlers(settings, POOLS["ocr"])
    assert sorted(remote) == sorted(POOLS["ocr"])
    assert all(isinstance(handler, ComputeHandler) and handler.stage is stage_named(name)
               for name, handler in remote.items())
    with pytest.raises(LookupError, match="not a stage"):
        stage_named("no.such.stage")


def test_a_thumbnail_is_a_small_png_of_the_first_page_whatever_the_page_size(tmp_path: Path) -> None:
    pdf = scanned_pdf(tmp_path / "scan.pdf", numbered_pages(2), dpi=100)
    picture = render_thumbnail(pdf, longer_side=200)
    assert picture.page == 1 and max(picture.width, picture.height) == 200
    assert png_size(picture.png) == (picture.width, picture.height)
    with pytest.raises(ValueError, match="not a PNG"):
        png_size(b"GIF89a" + bytes(30))
    not_a_pdf = tmp_path / "broken.pdf"
    not_a_pdf.write_bytes(b"%PDF-1.4\n" + b"garbage" * 100)
    with pytest.raises(PermanentError, match="rendering the thumbnail failed"):
        render_thumbnail(not_a_pdf)


def test_a_thumbnail_result_must_be_the_png_it_says_it_is(tmp_path: Path) -> None:
    picture = render_thumbnail(text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]), longer_side=64)
    good = {"page": 1, "png_base64": base64.b64encode(picture.png).decode(), "width": picture.width,
            "height": picture.height}
    assert THUMBNAIL.parse(good).png == picture.png
    with pytest.raises(ValueError, match="not .* as said"):
        ThumbnailResult.model_validate({**good, "width": picture.width + 1})
    with pytest.raises(ValueError, match="not base64"):
        ThumbnailResult.model_validate({**good, "png_base64": "%%%"})


def test_every_uploaded_document_gets_its_thumbnail_from_the_pipeline(
    pool: ConnectionPool, conn: psycopg.Connection[Any], database_url: str, tmp_path: Path
) -> None:
    settings = pipeline_settings(database_url, tmp_path)
    storage = open_storage(settings.resolved_storage_url)
    create_tenant(conn, "acme", unlimited=True)
    create_tenant(conn, "other", unlimited=True)
    outcome = upload_file(conn, storage, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]),
                          UploadPolicy(tenant="acme", max_bytes=10**7))
    assert outcome.document_id is not None
    assert reads.read_thumbnail(conn, outcome.document_id, tenant="acme") is None  # not made yet
    drain(pool, settings, storage)
    png = reads.read_thumbnail(conn, outcome.document_id, tenant="acme")
    assert png is not None and max(png_size(png)) == 320
    row = conn.execute("SELECT state::text FROM document_versions WHERE document_id = %s",
                       (outcome.document_id,)).fetchone()
    assert row == ("done",)
    with pytest.raises(DocumentNotFoundError):
        reads.read_thumbnail(conn, outcome.document_id, tenant="other")


def _fail_for_good(conn: psycopg.Connection[Any], settings: Settings, job_type: str) -> None:
    [job] = claim(conn, worker_id="w", types=[job_type], limit=1, lease_seconds=30)
    commit_attempts(conn, build_job_types(settings), [
        FinishedAttempt(job, failure=Failure(job, "boom", permanent=True, retry_seconds=0))], backoff=Backoff())


def test_a_failed_thumbnail_leaves_the_version_going_and_a_failed_plan_fails_it(
    pool: ConnectionPool, conn: psycopg.Connection[Any], database_url: str, tmp_path: Path
) -> None:
    settings = pipeline_settings(database_url, tmp_path)
    storage = open_storage(settings.resolved_storage_url)
    first = upload_file(conn, storage, text_pdf(tmp_path / "a.pdf", [TENDER_PAGE]), UploadPolicy(max_bytes=10**7))
    job_types = build_job_types(settings, pool=pool, storage=storage, cache_dir=tmp_path / "cache")
    [plan] = claim(conn, worker_id="w", types=[JOB_OCR_PLAN], limit=1, lease_seconds=30)
    result = job_types.handler(JOB_OCR_PLAN).run(plan, JobContext(plan))
    commit_attempts(conn, job_types, [FinishedAttempt(plan, result=result)], backoff=Backoff())
    _fail_for_good(conn, settings, JOB_THUMBNAIL)
    state = conn.execute("SELECT state::text, error FROM document_versions WHERE document_id = %s",
                         (first.document_id,)).fetchone()
    assert state == ("extracting", None)

    second = upload_file(conn, storage, text_pdf(tmp_path / "b.pdf", [TENDER_PAGE, ["more"]]),
                         UploadPolicy(max_bytes=10**7))
    _fail_for_good(conn, settings, JOB_OCR_PLAN)
    state = conn.execute("SELECT state::text, error FROM document_versions WHERE document_id = %s",
                         (second.document_id,)).fetchone()
    assert state == ("failed", "boom")
