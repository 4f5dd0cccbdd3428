"""Credits on a real PostgreSQL: reserved with the upload, the plan and the text to extract from;
charged the actual cost when the version is done; refunded when the service fails it (cancelled,
reaped on its final attempt, out of attempts), charged the work it caused when it fails for its own
content or its tenant's balance — each in the transaction of that state change — with the ledger
invariant checked after every step."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.config import Settings
from tenderflow.errors import InsufficientCreditsError, UploadRejectedError
from tenderflow.handlers import build_job_types
from tenderflow.ids import sha256_of
from tenderflow.logs import configure_logging
from tenderflow.pipeline import reads
from tenderflow.pipeline.reprocess import reprocess
from tenderflow.pipeline.storage import ObjectStorage, object_key
from tenderflow.pipeline.uploads import UploadPolicy, upload_file, upload_paths
from tenderflow.queue import Failure, JobContext, JobTypes, Reclaimer, claim, retry
from tenderflow.queue.backoff import Backoff
from tenderflow.queue.completion import FinishedAttempt, commit_attempts
from tenderflow.stages.contract import JOB_EXTRACT, JOB_OCR_PLAN
from tenderflow.tenants import credits
from tenderflow.tenants.credits import Prices
from tenderflow.tenants.tenants import TenantNotFoundError, create_tenant
from tests.support.pdf_fixtures import encrypted_pdf
from tests.support.tenants_harness import (
    assert_ledger_balanced,
    document_state,
    drain_jobs,
    ledger_kinds,
    money_job_types,
    uploads_meeting_at_the_tenant_row,
)
from tests.support.tender_fixtures import TENDER_PAGE, numbered_pages, text_pdf

Conn = psycopg.Connection[Any]
MAX_BYTES = 10 * 1024 * 1024
# Per document 3, per page 2, per 1k tokens 5; the LLM estimate reserves a token per 3 characters of
# the text sent and 1,000 tokens per request, one request per 6,000 characters.
LLM_PRICES = Prices(price_per_document=3, price_per_page=2, price_per_1k_tokens=5,
                    llm_tokens_per_request=1000, llm_chunk_chars=6000)
FLAT_PRICES = Prices(price_per_document=3, price_per_page=2, price_per_1k_tokens=1)


def acme_document(conn: Conn, storage: ObjectStorage, tmp_path: Path, *, credits: int,
                  pages: list[list[str]] | None = None, prices: Prices = FLAT_PRICES) -> int:
    """A new tenant acme with `credits`, and the id of its upload of a text PDF of `pages` (one notice page)."""
    create_tenant(conn, "acme", credits=credits)
    outcome = upload_file(conn, storage, text_pdf(tmp_path / "t.pdf", pages or [TENDER_PAGE]),
                          UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=prices))
    assert outcome.document_id is not None
    return outcome.document_id


def drained_acme_document(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path, *, credits: int, pages: int,
    prompt_tokens: int, completion_tokens: int = 0,
) -> tuple[int, JobTypes]:
    """`acme_document` of `pages` numbered pages at LLM_PRICES, run through the pipeline with an LLM that
    reports those tokens: its id, and the job types that ran it (to run it again)."""
    with pool.connection() as conn:
        doc = acme_document(conn, storage, tmp_path, credits=credits, pages=numbered_pages(pages), prices=LLM_PRICES)
    job_types = money_job_types(settings, storage, pool=pool, prompt_tokens=prompt_tokens,
                                completion_tokens=completion_tokens)
    drain_jobs(pool, job_types)
    return doc, job_types


def assert_refunded(conn: Conn, doc: int, reserved: int = 3) -> None:
    """Every reservation of the version given back: `reserved` (the document's price, 3, and the pages a
    plan reserved) refunded whole, acme back at its 10 credits, nothing left reserved."""
    assert ledger_kinds(conn, doc) == {"reserve": reserved, "refund": reserved}
    assert balance_of(conn, "acme") == 10
    assert assert_ledger_balanced(conn)["acme"]["open_reserved"] == 0


def balance_of(conn: Conn, tenant: str) -> int:
    row = conn.execute("SELECT balance FROM tenants WHERE name = %s", (tenant,)).fetchone()
    assert row is not None
    return int(row[0])


def stored_rows(conn: Conn) -> dict[str, int]:
    row = conn.execute(
        "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM document_versions),"
        " (SELECT count(*) FROM jobs), (SELECT count(*) FROM credit_entries WHERE kind = 'reserve'),"
        " (SELECT count(*) FROM version_prices)").fetchone()
    assert row is not None
    return dict(zip(["documents", "versions", "jobs", "reservations", "prices"], row, strict=True))


def page_lengths(conn: Conn, document_id: int, version: int = 1) -> list[int]:
    return [int(n) for (n,) in conn.execute(
        "SELECT length(text) FROM pages WHERE document_id = %s AND version = %s ORDER BY page_number",
        (document_id, version)).fetchall()]


def job_of(conn: Conn, document_id: int, job_type: str) -> int:
    row = conn.execute("SELECT id FROM jobs WHERE type = %s AND (payload->>'document_id')::bigint = %s",
                       (job_type, document_id)).fetchone()
    assert row is not None
    return int(row[0])


# --- upload -----------------------------------------------------------------------------------


def test_upload_reserves_the_estimate_in_the_transaction_of_the_document_and_its_job(
    conn: Conn, storage: ObjectStorage, tmp_path: Path
) -> None:
    create_tenant(conn, "acme", credits=50)
    outcome = upload_file(conn, storage, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]),
                          UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=LLM_PRICES))
    assert outcome.status == "created" and outcome.document_id is not None
    # 3 per document (the LLM estimate waits for the text)
    assert ledger_kinds(conn, outcome.document_id) == {"reserve": 3}
    assert balance_of(conn, "acme") == 50 - 3
    assert_ledger_balanced(conn)

    # The same bytes again: the existing document, nothing reserved twice.
    again = upload_file(conn, storage, tmp_path / "t.pdf",
                        UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=LLM_PRICES))
    assert again.status == "existing" and balance_of(conn, "acme") == 47

    # An enqueue that fails rolls the reservation back with the document.
    conn.execute("""
        CREATE FUNCTION refuse_jobs() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'enqueue refused by test'; END $$;
        CREATE TRIGGER refuse_jobs BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION refuse_jobs();
    """)
    before = stored_rows(conn)
    with pytest.raises(psycopg.errors.RaiseException):
        upload_file(conn, storage, text_pdf(tmp_path / "u.pdf", [TENDER_PAGE, TENDER_PAGE]),
                    UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=LLM_PRICES))
    assert stored_rows(conn) == before
    assert balance_of(conn, "acme") == 47
    assert_ledger_balanced(conn)


def test_upload_without_enough_credits_is_refused_before_anything_is_stored(
    conn: Conn, storage: ObjectStorage, tmp_path: Path
) -> None:
    create_tenant(conn, "acme", credits=2)
    pdf = text_pdf(tmp_path / "t.pdf", [TENDER_PAGE])
    with pytest.raises(InsufficientCreditsError, match=r"'acme' has 2 credits available.*needs 3") as refused:
        upload_file(conn, storage, pdf, UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=FLAT_PRICES))
    assert "tenderflow tenants credits add acme" in str(refused.value)
    assert stored_rows(conn) == {"documents": 0, "versions": 0, "jobs": 0, "reservations": 0, "prices": 0}
    assert not storage.exists(object_key("acme", sha256_of(pdf)))  # checked before the object is put
    assert balance_of(conn, "acme") == 2

    # A batch checks the tenant once, before any file is read: one error, not one row per file.
    with pytest.raises(InsufficientCreditsError, match="needs 3"):
        list(upload_paths(conn, storage, [pdf, pdf],
                          UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=FLAT_PRICES)))
    assert stored_rows(conn)["documents"] == 0

    # Credits that run out part way: the file that finds them gone is refused, the rest not tried.
    credits.grant(conn, "acme", 2)
    (tmp_path / "batch").mkdir()
    batch = [text_pdf(tmp_path / "batch" / f"n{n}.pdf", [TENDER_PAGE, [f"annex {n}"]]) for n in (10, 2, 1)]
    outcomes = list(upload_paths(conn, storage, [tmp_path / "batch", pdf],
                                 UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=FLAT_PRICES)))
    assert [(Path(o.source).name, o.status) for o in outcomes] == [
        ("n1.pdf", "created"), ("n2.pdf", "rejected"), ("n10.pdf", "skipped"), ("t.pdf", "skipped")]
    assert "needs 3" in (outcomes[1].error or "") and outcomes[2].size_bytes == batch[0].stat().st_size
    assert stored_rows(conn)["documents"] == 1


def test_upload_for_an_unknown_tenant_is_refused(conn: Conn, storage: ObjectStorage, tmp_path: Path) -> None:
    with pytest.raises(TenantNotFoundError, match="tenderflow tenants create nobody"):
        upload_file(conn, storage, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]),
                    UploadPolicy(tenant="nobody", max_bytes=MAX_BYTES))
    with pytest.raises(UploadRejectedError, match="a tenant name is 1 to 63 letters"):
        upload_file(conn, storage, tmp_path / "t.pdf", UploadPolicy(tenant="../etc", max_bytes=MAX_BYTES))
    assert stored_rows(conn)["documents"] == 0


def test_concurrent_uploads_that_together_exceed_the_balance_are_partly_refused(
    database_url: str, conn: Conn, storage: ObjectStorage, tmp_path: Path
) -> None:
    create_tenant(conn, "acme", credits=10)
    pdfs = [text_pdf(tmp_path / f"t{n}.pdf", [[*TENDER_PAGE, f"copy {n}"]]) for n in range(6)]
    # All six uploads pass the early check and meet at the reservation.
    results = uploads_meeting_at_the_tenant_row(
        database_url, "acme", pdfs, InsufficientCreditsError,
        lambda own, pdf: upload_file(own, storage, pdf,
                                     UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=FLAT_PRICES)))

    assert sorted(results) == ["created"] * 3 + ["refused"] * 3  # 3 × 3 credits fit in 10
    assert balance_of(conn, "acme") == 1
    assert stored_rows(conn)["documents"] == 3 and stored_rows(conn)["reservations"] == 3
    assert_ledger_balanced(conn)


def test_default_tenant_is_unlimited_until_its_credits_are_set(
    conn: Conn, storage: ObjectStorage, tmp_path: Path
) -> None:
    first = upload_file(conn, storage, text_pdf(tmp_path / "a.pdf", [TENDER_PAGE]),
                        UploadPolicy(max_bytes=MAX_BYTES, prices=FLAT_PRICES))
    assert first.status == "created"
    assert balance_of(conn, "default") == -3  # unlimited: the balance records what was reserved
    assert_ledger_balanced(conn)
    credits.set_balance(conn, "default", 0)
    with pytest.raises(InsufficientCreditsError):
        upload_file(conn, storage, text_pdf(tmp_path / "b.pdf", [["another"]]),
                    UploadPolicy(max_bytes=MAX_BYTES, prices=FLAT_PRICES))
    assert_ledger_balanced(conn)
    credits.grant(conn, "default", 3)
    assert upload_file(conn, storage, tmp_path / "b.pdf",
                       UploadPolicy(max_bytes=MAX_BYTES, prices=FLAT_PRICES)).status == "created"
    assert balance_of(conn, "default") == 0
    assert_ledger_balanced(conn)


# --- the life of a version --------------------------------------------------------------------


def test_done_version_is_charged_pages_and_tokens_once_even_when_every_job_is_rerun(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path
) -> None:
    doc, job_types = drained_acme_document(pool, settings, storage, tmp_path, credits=100, pages=3,
                                           prompt_tokens=2000, completion_tokens=500)
    with pool.connection() as conn:
        assert document_state(conn, doc) == ("done", None)
        # reserved: 3 at upload; at the plan 3 pages × 2; the LLM estimate of the pages' text
        # charged: 3 per document + 3 pages × 2 + 2,500 tokens at 5 per 1k (13) = 22
        estimate = LLM_PRICES.on_extraction(page_lengths(conn, doc))
        assert ledger_kinds(conn, doc) == {"reserve": 3 + 6 + estimate, "charge": 22}
        assert balance_of(conn, "acme") == 100 - 22
        [charge] = [e for e in credits.ledger_of(conn, "acme") if e["kind"] == "charge"]
        assert charge["detail"] == {"pages_read": 3, "llm_tokens": 2500, "actual": 22, "reserved": 9 + estimate}
        summary = assert_ledger_balanced(conn)
        assert summary["acme"]["open_reserved"] == 0

        for (job_id,) in conn.execute("SELECT id FROM jobs ORDER BY id").fetchall():
            conn.execute("UPDATE jobs SET state = 'failed', last_error = 'test', finished_at = now() WHERE id = %s",
                         (job_id,))
            retry(conn, job_id)
    drain_jobs(pool, job_types)
    with pool.connection() as conn:
        assert conn.execute("SELECT count(*) FROM jobs WHERE state <> 'succeeded'").fetchone() == (0,)
        assert ledger_kinds(conn, doc) == {"reserve": 9 + estimate, "charge": 22}
        assert balance_of(conn, "acme") == 78
        assert_ledger_balanced(conn)


def test_plan_rerun_while_its_pages_are_read_reserves_them_once(
    conn: Conn, settings: Settings, storage: ObjectStorage, tmp_path: Path
) -> None:
    doc = acme_document(conn, storage, tmp_path, credits=20, pages=numbered_pages(3))
    job_types = money_job_types(settings, storage)
    plan = job_types.handler(JOB_OCR_PLAN)
    for attempt in (1, 2):
        [job] = claim(conn, worker_id=f"w{attempt}", types=[JOB_OCR_PLAN], limit=1, lease_seconds=30)
        [committed] = commit_attempts(conn, job_types, [FinishedAttempt(job, plan.run(job, JobContext(job)))],
                                      backoff=Backoff())
        assert committed.outcome == "succeeded"
        assert document_state(conn, doc) == ("ocr", None)  # its pages are still to be read
        assert ledger_kinds(conn, doc) == {"reserve": 3 + 3 * 2}
        assert balance_of(conn, "acme") == 20 - 9
        # rerun by hand
        conn.execute("UPDATE jobs SET state = 'failed', last_error = 'test', finished_at = now() WHERE id = %s",
                     (job.id,))
        retry(conn, job.id)
    assert_ledger_balanced(conn)


def test_llm_reservation_scales_with_the_text_to_extract_from(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path
) -> None:
    """D6: the LLM reservation was a constant per page (1,500 tokens), so a dense page cost the same
    reservation as a short one; it now follows the characters of the pages sent to the LLM."""
    dense_line = "Lot 1: cleaning of the municipal buildings of the harbour district, weekly"
    with pool.connection() as conn:
        create_tenant(conn, "acme", credits=1000)
        short = upload_file(conn, storage, text_pdf(tmp_path / "short.pdf", [["Notice EH-2026"]]),
                            UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=LLM_PRICES))
        dense = upload_file(conn, storage, text_pdf(tmp_path / "dense.pdf", [[dense_line] * 34]),
                            UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=LLM_PRICES))
    assert short.document_id is not None and dense.document_id is not None
    drain_jobs(pool, money_job_types(settings, storage, pool=pool, prompt_tokens=100, completion_tokens=0))
    with pool.connection() as conn:
        reserved = {doc: int(row[0]) for doc in (short.document_id, dense.document_id)
                    for row in conn.execute("SELECT amount FROM credit_entries WHERE entry_key = %s",
                                            (f"reserve:{doc}:1:extraction",)).fetchall()}
        short_chars, dense_chars = (sum(page_lengths(conn, doc)) for doc in (short.document_id, dense.document_id))
        assert dense_chars > 2000 > 50 > short_chars
        # a token per 3 characters and 1,000 per request, at 5 credits per 1k tokens, rounded up
        assert reserved[short.document_id] == -(-(-(-short_chars // 3) + 1000) * 5 // 1000)
        assert reserved[dense.document_id] == -(-(-(-dense_chars // 3) + 1000) * 5 // 1000)
        assert reserved[dense.document_id] > reserved[short.document_id]
        assert assert_ledger_balanced(conn)["acme"]["open_reserved"] == 0


def test_requests_are_counted_as_the_llm_backend_chunks_the_pages() -> None:
    from tenderflow.extraction.backend import Page
    from tenderflow.extraction.openai_backend import chunk_pages

    for lengths in ([100, 200], [5900, 200], [6000, 6000, 100], [13000], [0], [], [3000, 3000, 3000, 14000, 100]):
        pages = [Page(n + 1, ("x" * 99 + "\n") * (length // 100)) for n, length in enumerate(lengths)]
        assert credits.llm_requests(lengths, 6000) == len(chunk_pages(pages, 6000)), lengths


def test_usage_beyond_the_reservation_is_charged_from_the_balance(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path
) -> None:
    """D6: the charge was capped at the reservation (`min(spent, reserved)`), so tokens beyond the
    estimate were free; the actual cost is charged when the balance allows."""
    with pool.connection() as conn:
        create_tenant(conn, "acme", credits=100)
        # No LLM estimate reserved (3 + 2 pages × 2 = 7), but the extraction reports 10,000 tokens.
        outcome = upload_file(conn, storage, text_pdf(tmp_path / "t.pdf", numbered_pages(2)),
                              UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=FLAT_PRICES))
    assert outcome.document_id is not None
    drain_jobs(pool, money_job_types(settings, storage, pool=pool, prompt_tokens=9000, completion_tokens=1000))
    with pool.connection() as conn:
        assert document_state(conn, outcome.document_id) == ("done", None)
        assert ledger_kinds(conn, outcome.document_id) == {"reserve": 7, "charge": 3 + 4 + 10}
        assert balance_of(conn, "acme") == 100 - 17
        assert_ledger_balanced(conn)


def test_a_document_that_would_overdraw_stops_with_a_clear_reason(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path
) -> None:
    """D6: a charge beyond the reservation and the balance was silently capped and the fields
    delivered; now the version stops, says why, and is charged what the balance held."""
    with pool.connection() as conn:
        doc = acme_document(conn, storage, tmp_path, credits=9, pages=numbered_pages(2))
    drain_jobs(pool, money_job_types(settings, storage, pool=pool, prompt_tokens=9000, completion_tokens=1000))
    with pool.connection() as conn:
        state, error = document_state(conn, doc)
        assert state == "failed"
        assert error is not None and "not enough credits to pay for the extraction" in error
        assert "cost 17 credits, 7 were reserved and the balance held 2 more; 8 unpaid" in error
        assert reads.get_document(conn, doc)["current_version"] is None  # nothing delivered
        assert ledger_kinds(conn, doc) == {"reserve": 7, "charge": 9}
        [charge] = [e for e in credits.ledger_of(conn, "acme") if e["kind"] == "charge"]
        assert charge["detail"]["unpaid"] == 8 and charge["detail"]["actual"] == 17
        assert balance_of(conn, "acme") == 0
        assert_ledger_balanced(conn)


def test_tenant_that_cannot_pay_for_the_pages_has_the_version_stopped_and_charged_the_acceptance(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path
) -> None:
    """D7: a version stopped because its tenant could not pay for its pages was refunded in full
    after its probe and text layer had run; it is charged the per-document price."""
    with pool.connection() as conn:
        create_tenant(conn, "acme", credits=5)
        outcome = upload_file(conn, storage, text_pdf(tmp_path / "t.pdf", numbered_pages(4)),
                              UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=FLAT_PRICES))
        assert balance_of(conn, "acme") == 2
    assert outcome.document_id is not None
    drain_jobs(pool, money_job_types(settings, storage, pool=pool))
    with pool.connection() as conn:
        state, error = document_state(conn, outcome.document_id)
        assert state == "failed"
        assert error is not None and "not enough credits to read the pages" in error
        assert "4 pages" in error and "needs 8" in error
        # The plan did its work; nothing after it ran.
        assert conn.execute("SELECT type, state::text FROM jobs").fetchall() == [("ocr.plan", "succeeded")]
        assert ledger_kinds(conn, outcome.document_id) == {"reserve": 3, "charge": 3}
        assert balance_of(conn, "acme") == 2
        assert assert_ledger_balanced(conn)["acme"]["open_reserved"] == 0


def test_tenant_that_cannot_pay_for_the_extraction_is_charged_the_pages_it_read(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path
) -> None:
    """D6/D7: the extraction's LLM estimate is reserved once the text is known; a tenant that cannot
    pay it has the version stopped before any LLM call, charged the document and its pages."""
    doc, _ = drained_acme_document(pool, settings, storage, tmp_path, credits=3 + 2 * 2 + 1, pages=2,
                                   prompt_tokens=1000)
    with pool.connection() as conn:
        state, error = document_state(conn, doc)
        assert state == "failed" and error is not None and "not enough credits to extract the fields" in error
        assert conn.execute("SELECT count(*) FROM jobs WHERE type = 'extract'").fetchone() == (0,)
        assert ledger_kinds(conn, doc) == {"reserve": 3 + 4, "charge": 3 + 4}
        assert balance_of(conn, "acme") == 1
        assert_ledger_balanced(conn)


@pytest.mark.parametrize("make_pdf", [
    pytest.param(lambda path: path.write_bytes(b"%PDF-1.7\n" + b"\x8f" * 4000) and path, id="damaged"),
    pytest.param(lambda path: encrypted_pdf(path, user_password="secret"), id="encrypted"),
])
def test_document_refused_for_its_content_fails_before_any_page_work_and_is_charged(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path, make_pdf: Any
) -> None:
    """D7: a PDF refused by its probe (damaged, encrypted) was refunded in full, so garbage uploads
    cost nothing; it is charged the per-document price, and nothing past the probe runs."""
    with pool.connection() as conn:
        create_tenant(conn, "acme", credits=10)
        outcome = upload_file(conn, storage, make_pdf(tmp_path / "bad.pdf"),
                              UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, prices=FLAT_PRICES))
    assert outcome.document_id is not None
    drain_jobs(pool, money_job_types(settings, storage, pool=pool))
    with pool.connection() as conn:
        state, error = document_state(conn, outcome.document_id)
        assert state == "failed" and error is not None and ("cannot be read" in error or "encrypted" in error)
        assert conn.execute("SELECT type, state::text, attempts FROM jobs").fetchall() == [("ocr.plan", "failed", 1)]
        assert conn.execute("SELECT count(*) FROM pages").fetchone() == (0,)
        assert ledger_kinds(conn, outcome.document_id) == {"reserve": 3, "charge": 3}
        assert balance_of(conn, "acme") == 7
        assert assert_ledger_balanced(conn)["acme"]["open_reserved"] == 0


@pytest.mark.parametrize("how", ["out_of_attempts", "extraction_refused", "refused_at_commit"])
def test_failures_of_the_service_are_refunded_in_full(
    conn: Conn, storage: ObjectStorage, tmp_path: Path, settings: Settings, how: str
) -> None:
    """D7's other half: a failure that is not the document's own (an outage out of attempts, the
    LLM's refusal, a result the commit refused) still gives every reservation back."""
    doc = acme_document(conn, storage, tmp_path, credits=10)
    job_types = money_job_types(settings, storage)
    plan = job_types.handler(JOB_OCR_PLAN)
    conn.execute("UPDATE jobs SET max_attempts = 1")
    [job] = claim(conn, worker_id="w", types=[JOB_OCR_PLAN], limit=1, lease_seconds=30)
    if how == "out_of_attempts":
        attempt = FinishedAttempt(job, failure=Failure(job, "storage unreachable", permanent=False, retry_seconds=0))
    elif how == "refused_at_commit":
        result = plan.run(job, JobContext(job))
        # A plan whose page count its pages do not cover: refused when it is committed.
        attempt = FinishedAttempt(job, result.model_copy(update={"page_count": result.page_count + 1}))
    else:
        attempt = FinishedAttempt(job, plan.run(job, JobContext(job)))
    [committed] = commit_attempts(conn, job_types, [attempt], backoff=Backoff())
    if how == "extraction_refused":
        assert committed.outcome == "succeeded"
        [job] = claim(conn, worker_id="w", types=[JOB_EXTRACT], limit=1, lease_seconds=30)
        refused = Failure(job, "the LLM refused: policy", permanent=True, retry_seconds=0)
        [committed] = commit_attempts(conn, job_types, [FinishedAttempt(job, failure=refused)], backoff=Backoff())
    assert committed.outcome == "failed"
    assert document_state(conn, doc)[0] == "failed"
    assert_refunded(conn, doc, reserved=3 + 2 if how == "extraction_refused" else 3)  # the plan reserved its page


def test_failure_refunds_in_the_transaction_that_fails_the_job(
    conn: Conn, storage: ObjectStorage, tmp_path: Path, settings: Settings
) -> None:
    doc = acme_document(conn, storage, tmp_path, credits=10)
    job_types = build_job_types(settings)
    [job] = claim(conn, worker_id="w", types=[JOB_OCR_PLAN], limit=1, lease_seconds=30)
    failure = FinishedAttempt(job, failure=Failure(job, "storage unreachable", permanent=False, retry_seconds=0))
    conn.execute("UPDATE jobs SET max_attempts = 1 WHERE id = %s", (job.id,))

    # A refund that cannot be written keeps the job from ending failed: one transaction.
    conn.execute("""
        CREATE FUNCTION refuse_refunds() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN IF NEW.kind = 'refund' THEN RAISE EXCEPTION 'refund refused by test'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER refuse_refunds BEFORE INSERT ON credit_entries FOR EACH ROW EXECUTE FUNCTION refuse_refunds();
    """)
    with pytest.raises(psycopg.errors.RaiseException):
        commit_attempts(conn, job_types, [failure], backoff=Backoff())
    assert conn.execute("SELECT state::text FROM jobs WHERE id = %s", (job.id,)).fetchone() == ("running",)
    assert document_state(conn, doc) == ("queued", None)

    conn.execute("DROP TRIGGER refuse_refunds ON credit_entries")
    [result] = commit_attempts(conn, job_types, [failure], backoff=Backoff())
    assert result.outcome == "failed"
    assert document_state(conn, doc) == ("failed", "storage unreachable")
    assert_refunded(conn, doc)


def test_retryable_failure_keeps_the_reservation_and_the_final_reap_refunds_it(
    conn: Conn, storage: ObjectStorage, tmp_path: Path, settings: Settings
) -> None:
    doc = acme_document(conn, storage, tmp_path, credits=10)
    plan_job = job_of(conn, doc, JOB_OCR_PLAN)
    conn.execute("UPDATE jobs SET max_attempts = 2 WHERE id = %s", (plan_job,))
    reclaimer = Reclaimer(build_job_types(settings))
    now = conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]

    claim(conn, worker_id="w1", types=[JOB_OCR_PLAN], limit=1, lease_seconds=1, now=now)
    [requeued] = reclaimer.run_once(conn, now=now + timedelta(seconds=5))
    assert requeued.state == "queued"
    assert ledger_kinds(conn, doc) == {"reserve": 3}  # still held: it may yet succeed
    assert balance_of(conn, "acme") == 7

    claim(conn, worker_id="w2", types=[JOB_OCR_PLAN], limit=1, lease_seconds=1,
          now=now + timedelta(seconds=6))
    [reaped] = reclaimer.run_once(conn, now=now + timedelta(seconds=20))
    assert reaped.state == "failed"
    state, error = document_state(conn, doc)
    assert state == "failed" and error is not None and "final attempt" in error
    assert_refunded(conn, doc)


def test_cancelling_a_job_from_the_cli_refunds_its_version(
    conn: Conn, pool: ConnectionPool, database_url: str, settings: Settings, storage: ObjectStorage, tmp_path: Path
) -> None:
    doc = acme_document(conn, storage, tmp_path, credits=10)
    plan_job = job_of(conn, doc, JOB_OCR_PLAN)
    result = CliRunner().invoke(app, ["jobs", "cancel", str(plan_job)], env={"DATABASE_URL": database_url})
    assert result.exit_code == 0, result.output
    configure_logging(level="WARNING")  # the CLI pointed structlog at the runner's (now closed) stderr
    assert document_state(conn, doc)[0] == "failed"
    assert ledger_kinds(conn, doc) == {"reserve": 3, "refund": 3}
    # Rerunning the cancelled job by hand changes nothing: the failed version is not planned again.
    retry(conn, plan_job)
    drain_jobs(pool, money_job_types(settings, storage, pool=pool))
    assert conn.execute("SELECT state::text FROM jobs").fetchall() == [("succeeded",)]
    assert_refunded(conn, doc)


def test_refund_and_charge_are_written_once_per_version(conn: Conn, storage: ObjectStorage, tmp_path: Path) -> None:
    doc = acme_document(conn, storage, tmp_path, credits=10)
    ref = {"document_id": doc, "version": 1}
    assert credits.refund_version(conn, document_id=doc, version=1) == 3
    assert credits.refund_version(conn, document_id=doc, version=1) is None
    # closed already: no charge after a refund
    assert credits.charge_version(conn, document_id=doc, version=1) is None
    with pytest.raises(psycopg.errors.UniqueViolation):  # and the database refuses a second close
        conn.execute("INSERT INTO credit_entries (tenant, kind, amount, entry_key, document_id, version) "
                     "VALUES ('acme', 'charge', 1, 'by-hand', %(document_id)s, %(version)s)", ref)
    assert balance_of(conn, "acme") == 10
    assert_ledger_balanced(conn)


# --- reprocessing -------------------------------------------------------------------------------


def test_reprocess_reserves_and_is_refused_without_credits(
    pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path
) -> None:
    doc, job_types = drained_acme_document(pool, settings, storage, tmp_path, credits=100, pages=2, prompt_tokens=1000)
    with pool.connection() as conn:
        charged_v1 = 3 + 2 * 2 + 5
        assert balance_of(conn, "acme") == 100 - charged_v1
        again = reprocess(conn, doc, start_from="extract", prices=LLM_PRICES)
        # 3 per document + the LLM estimate of the 2 reused pages' text
        estimate = LLM_PRICES.on_extraction(page_lengths(conn, doc))
        assert estimate > 0
        assert ledger_kinds(conn, doc, again.version) == {"reserve": 3 + estimate}
    drain_jobs(pool, job_types)
    with pool.connection() as conn:
        # extraction only: no pages read by this version, 1,000 tokens
        assert ledger_kinds(conn, doc, again.version) == {"reserve": 3 + estimate, "charge": 3 + 5}
        credits.set_balance(conn, "acme", 2)
        before = conn.execute("SELECT count(*) FROM jobs").fetchone()
        with pytest.raises(InsufficientCreditsError, match="reprocessing document"):
            reprocess(conn, doc, prices=LLM_PRICES)
        assert conn.execute("SELECT count(*) FROM jobs").fetchone() == before
        assert conn.execute("SELECT latest_version FROM documents WHERE id = %s", (doc,)).fetchone() == (2,)
        assert assert_ledger_balanced(conn)["acme"]["open_reserved"] == 0


# --- rules kept in step -------------------------------------------------------------------------


@pytest.mark.parametrize("name", [
    "default", "acme", "acme-gmbh", "ACME_2", "9lives", "a" * 63, "a" * 64, "", "-acme", "_acme", "acme.corp",
    "acme/../x", "ac me", "äcme", "acme\n",
])
def test_tenant_name_rule_is_the_storage_key_rule_and_the_database_check(conn: Conn, name: str) -> None:
    from tenderflow.tenants.tenants import validate_tenant_name

    def accepted(check: Any) -> bool:
        try:
            check()
            return True
        except (ValueError, psycopg.errors.CheckViolation):
            return False

    def insert() -> None:
        with conn.transaction():
            conn.execute("INSERT INTO tenants (name) VALUES (%s) ON CONFLICT DO NOTHING", (name,))

    by_storage = accepted(lambda: object_key(name, "0" * 64))
    assert accepted(lambda: validate_tenant_name(name)) == by_storage
    assert accepted(insert) == by_storage


def test_default_prices_are_the_settings_defaults() -> None:
    defaults = {name: field.default for name, field in Settings.model_fields.items() if name.startswith("price_")}
    assert Prices() == Prices(**defaults)
    offline = Prices.from_settings(Settings(llm_base_url=None, llm_api_key=None))
    assert (offline.llm_tokens_per_request, offline.llm_chunk_chars) == (0, 0)
    assert offline.on_extraction([50_000]) == 0
    with_llm = Prices.from_settings(Settings(llm_base_url="http://127.0.0.1:9/v1", llm_chunk_chars=20_000))
    assert with_llm.llm_tokens_per_request > 0 and with_llm.llm_chunk_chars == 20_000
