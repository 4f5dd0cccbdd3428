"""Per-tenant upload limits on a real PostgreSQL: the uploads-per-minute window (time injected),
the storage quota decided under the tenant's lock, and the CLI that sets a tenant's own."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.errors import StorageQuotaExceededError, UploadRateLimitedError
from tenderflow.logs import configure_logging
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.tenants import limits
from tenderflow.tenants.tenants import create_tenant
from tests.support.tenants_harness import uploads_meeting_at_the_tenant_row
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf

Conn = psycopg.Connection[Any]
MAX_BYTES = 10 * 1024 * 1024


def test_the_rate_is_a_sliding_minute_per_tenant(conn: Conn) -> None:
    """D7: a tenant's uploads per minute were not limited."""
    create_tenant(conn, "acme", unlimited=True)
    create_tenant(conn, "other", unlimited=True)
    start = conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]
    for second in (0, 10, 20):
        limits.admit_upload(conn, "acme", default_per_minute=3, now=start + timedelta(seconds=second))
    with pytest.raises(UploadRateLimitedError, match="3 uploads it may send per minute") as refused:
        limits.admit_upload(conn, "acme", default_per_minute=3, now=start + timedelta(seconds=30))
    assert refused.value.retry_after == 30  # when the request of second 0 leaves the window
    limits.admit_upload(conn, "other", default_per_minute=3, now=start + timedelta(seconds=30))
    # The refused request was not counted against the window: at 60.5 s the first has left it.
    limits.admit_upload(conn, "acme", default_per_minute=3, now=start + timedelta(seconds=60.5))
    with pytest.raises(UploadRateLimitedError) as again:
        limits.admit_upload(conn, "acme", default_per_minute=3, now=start + timedelta(seconds=61))
    assert again.value.retry_after == 9
    limits.set_limits(conn, "acme", uploads_per_minute=4)
    limits.admit_upload(conn, "acme", default_per_minute=3, now=start + timedelta(seconds=61))
    limits.set_limits(conn, "acme", uploads_per_minute=0)  # no limit
    for _ in range(10):
        limits.admit_upload(conn, "acme", default_per_minute=3, now=start + timedelta(seconds=62))
    # Old requests are pruned as the tenant's next requests arrive.
    limits.set_limits(conn, "acme", uploads_per_minute=None)
    limits.admit_upload(conn, "acme", default_per_minute=3, now=start + timedelta(seconds=500))
    assert conn.execute("SELECT count(*) FROM tenant_upload_requests WHERE tenant = 'acme'").fetchone() == (1,)


def test_concurrent_uploads_cannot_together_pass_the_storage_quota(
    database_url: str, conn: Conn, storage: ObjectStorage, tmp_path: Path
) -> None:
    """D7: the quota is decided under the tenant's lock, with the new document counted."""
    create_tenant(conn, "acme", unlimited=True)
    pdfs = [text_pdf(tmp_path / f"t{n}.pdf", [[*TENDER_PAGE, f"copy {n}"]]) for n in range(4)]
    quota = sum(pdf.stat().st_size for pdf in pdfs[:2]) + 10
    results = uploads_meeting_at_the_tenant_row(  # all four pass the early check
        database_url, "acme", pdfs, StorageQuotaExceededError,
        lambda own, pdf: upload_file(own, storage, pdf,
                                     UploadPolicy(tenant="acme", max_bytes=MAX_BYTES, max_stored_bytes=quota)))
    assert sorted(results) == ["created"] * 2 + ["refused"] * 2
    assert limits.stored_bytes(conn, "acme") <= quota
    stored = [p for p in (tmp_path / "objects").rglob("*.pdf")]
    assert len(stored) == 2  # the refused uploads left no object


def test_cli_sets_and_shows_a_tenants_limits(database_url: str, conn: Conn) -> None:
    create_tenant(conn, "acme", credits=5)
    env = {"DATABASE_URL": database_url, "TENDERFLOW_TENANT_UPLOADS_PER_MINUTE": "30"}
    runner = CliRunner()
    try:
        shown = runner.invoke(app, ["tenants", "limits", "acme"], env=env)
        assert shown.exit_code == 0, shown.output
        assert "30 uploads (default)" in shown.output and "stored 0 bytes" in shown.output
        changed = runner.invoke(app, ["tenants", "limits", "acme", "--uploads-per-minute", "5",
                                      "--max-stored-bytes", "2GiB"], env=env)
        assert changed.exit_code == 0, changed.output
        assert "5 uploads;" in changed.output and "2,147,483,648 bytes" in changed.output
        assert limits.limits_of(conn, "acme", default_per_minute=30, default_max_stored_bytes=0) == \
            limits.UploadLimits(5, 2 * 1024**3, own_rate=True, own_quota=True)
        back = runner.invoke(app, ["tenants", "limits", "acme", "--max-stored-bytes", "default"], env=env)
        assert back.exit_code == 0 and limits.limits_of(
            conn, "acme", default_per_minute=30, default_max_stored_bytes=7).max_stored_bytes == 7
        bad = runner.invoke(app, ["tenants", "limits", "acme", "--uploads-per-minute", "5MB"], env=env)
        assert bad.exit_code != 0
    finally:
        configure_logging(level="WARNING")  # the CLI pointed structlog at the runner's (now closed) stderr
