"""API key scopes and expiry (issue 12): a read-only key lists, reads, searches, exports and sees the
account but cannot upload or reprocess (403); a key past its end is refused (401, saying so); the
CLI creates and lists them; the database's clock decides."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.tenants.keys import check_api_key, create_api_key
from tenderflow.tenants.tenants import create_tenant
from tests.support.api_harness import RunningApi, bearer
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf


def upload(api: RunningApi, key: str, pdf: Path) -> Any:
    with pdf.open("rb") as handle:
        return api.client.post("/v1/documents", headers=bearer(key), files={"file": (pdf.name, handle)})


def test_a_read_only_key_reads_everything_and_changes_nothing(
    api: RunningApi, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    writer = create_api_key(conn, "acme", name="uploader").key
    reader = create_api_key(conn, "acme", name="bi tool", scope="read").key
    document_id = upload(api, writer, text_pdf(tmp_path / "a.pdf", [TENDER_PAGE])).json()["id"]
    for path in ("/v1/documents", f"/v1/documents/{document_id}", "/v1/account", "/v1/search?q=tender",
                 "/v1/export?format=csv"):
        assert api.client.get(path, headers=bearer(reader)).status_code == 200, path
    refused = upload(api, reader, text_pdf(tmp_path / "b.pdf", [TENDER_PAGE, ["b"]]))
    assert refused.status_code == 403 and "read-only (scope read)" in refused.json()["detail"]
    again = api.client.post(f"/v1/documents/{document_id}/reprocess", headers=bearer(reader), json={})
    assert again.status_code == 403
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (1,)
    assert conn.execute("SELECT latest_version FROM documents").fetchone() == (1,)


def test_a_key_stops_at_its_end(api: RunningApi, conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    create_tenant(conn, "acme", unlimited=True)
    created = create_api_key(conn, "acme", expires_after_days=30)
    assert created.expires_at is not None
    assert api.client.get("/v1/account", headers=bearer(created.key)).status_code == 200
    # The end moved into the past stands for the 30 days passing (the database's clock decides).
    conn.execute("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = %s", [created.id])
    expired = api.client.get("/v1/account", headers=bearer(created.key))
    assert expired.status_code == 401 and f"API key {created.id} expired on" in expired.json()["detail"]
    check = check_api_key(conn, created.key)
    assert check is not None and check.expired
    assert check_api_key(conn, created.key[:-1] + ("A" if created.key[-1] != "A" else "B")) is None
    with pytest.raises(ValueError, match="1 to 36,500 days"):
        create_api_key(conn, "acme", expires_after_days=0)
    with pytest.raises(ValueError, match="scope must be one of read, write"):
        create_api_key(conn, "acme", scope="admin")


def test_the_cli_creates_and_lists_scoped_expiring_keys(database_url: str, tmp_path: Path,
                                                         conn: psycopg.Connection[Any]) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TENDERFLOW_")}
    env |= {"DATABASE_URL": database_url, "TENDERFLOW_DATA_DIR": str(tmp_path), "TENDERFLOW_LOG_JSON": "true"}
    runner = CliRunner()
    assert runner.invoke(app, ["tenants", "create", "acme", "--unlimited"], env=env).exit_code == 0
    made = runner.invoke(app, ["keys", "create", "--tenant", "acme", "--scope", "read", "--expires-after-days", "90",
                               "--json"], env=env)
    assert made.exit_code == 0, made.output
    assert '"scope": "read"' in made.output and '"expires_at": "20' in made.output
    listed = runner.invoke(app, ["keys", "list"], env=env)
    header, row = listed.output.splitlines()[:2]
    assert header.split("\t")[:5] == ["id", "tenant", "name", "scope", "status"]
    assert row.split("\t")[3:5] == ["read", "active"]
    conn.execute("UPDATE api_keys SET expires_at = now() - interval '1 day'")
    assert runner.invoke(app, ["keys", "list"], env=env).output.splitlines()[1].split("\t")[4] == "expired"
    bad = runner.invoke(app, ["keys", "create", "--tenant", "acme", "--scope", "admin"], env=env)
    assert bad.exit_code == 2
