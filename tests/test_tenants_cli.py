"""`tenderflow tenants …` and `tenderflow keys …` through the real CLI on a real database."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner, Result

from tenderflow.cli import app
from tenderflow.logs import configure_logging
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.tenants.credits import Prices
from tenderflow.tenants.keys import KEY_PATTERN, verify_api_key
from tests.support.tenants_harness import assert_ledger_balanced
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf

Conn = psycopg.Connection[Any]


@pytest.fixture
def tenderflow(database_url: str) -> Iterator[Any]:
    """Run `tenderflow ARGS…` against this test's database; returns the click Result."""
    runner = CliRunner()

    def run(*args: str) -> Result:
        return runner.invoke(app, list(args), env={
            "DATABASE_URL": database_url, "TENDERFLOW_TENANT_MAX_RUNNING": "3", "COLUMNS": "200"})

    yield run
    configure_logging(level="WARNING")  # the CLI pointed structlog at the runner's (now closed) stderr


def as_json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_create_list_show_and_cap(tenderflow: Any, conn: Conn) -> None:
    created = tenderflow("tenants", "create", "acme", "--credits", "500", "--max-running", "4")
    assert created.exit_code == 0, created.output
    assert "credits 500" in created.output and "running cap 4" in created.output
    shown = as_json(tenderflow("tenants", "show", "acme", "--json"))
    assert (shown["name"], shown["balance"], shown["unlimited"], shown["max_running"]) == ("acme", 500, False, 4)
    # The cap is the queue's own setting, which the claim enforces.
    assert conn.execute("SELECT max_running FROM job_tenant_limits WHERE tenant = 'acme'").fetchone() == (4,)

    assert tenderflow("tenants", "max-running", "acme", "0").exit_code == 0
    assert conn.execute("SELECT max_running FROM job_tenant_limits WHERE tenant = 'acme'").fetchone() == (0,)

    listed = as_json(tenderflow("tenants", "list", "--json"))
    assert [(t["name"], t["unlimited"], t["max_running"]) for t in listed] == [
        ("acme", False, 0), ("default", True, None)]
    table = tenderflow("tenants", "list")
    assert table.exit_code == 0 and "default (3)" in table.output and "unlimited" in table.output


def test_a_tenant_created_without_credits_is_told_its_uploads_will_be_refused(tenderflow: Any) -> None:
    bare = tenderflow("tenants", "create", "acme")
    assert bare.exit_code == 0, bare.output
    said = " ".join(bare.stderr.split())  # a note for the person, not output to parse
    assert "acme has no credits yet, so its uploads will be refused" in said
    assert "tenderflow tenants credits add acme N" in said
    for args in (("--credits", "5"), ("--unlimited",)):
        funded = tenderflow("tenants", "create", f"beta{len(args)}", *args)
        assert funded.exit_code == 0 and "no credits yet" not in funded.output


def test_refusals_say_why(tenderflow: Any) -> None:
    assert tenderflow("tenants", "create", "acme").exit_code == 0
    again = tenderflow("tenants", "create", "acme")
    assert again.exit_code == 1 and "already exists" in again.output
    bad = tenderflow("tenants", "create", "../etc")
    assert bad.exit_code == 1 and "a tenant name is 1 to 63 letters" in " ".join(bad.output.split())
    missing = tenderflow("tenants", "show", "nobody")
    assert missing.exit_code == 1 and "no tenant named 'nobody'" in missing.output
    both = tenderflow("tenants", "credits", "set", "acme", "5", "--unlimited")
    assert both.exit_code == 1 and "either a balance or --unlimited" in both.output
    assert tenderflow("keys", "create", "--tenant", "nobody").exit_code == 1


def test_credits_add_set_and_usage(tenderflow: Any, conn: Conn, tmp_path: Path) -> None:
    assert tenderflow("tenants", "create", "acme", "--credits", "10").exit_code == 0
    assert tenderflow("tenants", "credits", "add", "acme", "15").exit_code == 0
    storage = open_storage((tmp_path / "objects").as_uri())
    upload_file(conn, storage, text_pdf(tmp_path / "t.pdf", [TENDER_PAGE]),
                UploadPolicy(tenant="acme", max_bytes=10**7, prices=Prices(price_per_document=4)))
    usage = as_json(tenderflow("tenants", "usage", "acme", "--json"))
    assert {k: usage[k] for k in ("granted", "reserved", "charged", "refunded", "open_reserved", "balance")} == {
        "granted": 25, "reserved": 4, "charged": 0, "refunded": 0, "open_reserved": 4, "balance": 21}

    assert tenderflow("tenants", "credits", "set", "acme", "7").exit_code == 0
    usage = as_json(tenderflow("tenants", "usage", "acme", "--json"))
    assert (usage["granted"], usage["balance"], usage["open_reserved"]) == (25 - 14, 7, 4)
    assert_ledger_balanced(conn)

    tomorrow = conn.execute("SELECT (now() + interval '1 day')::date::text").fetchone()
    assert tomorrow is not None
    later = as_json(tenderflow("tenants", "usage", "acme", "--since", tomorrow[0], "--json"))
    assert (later["granted"], later["reserved"], later["balance"]) == (0, 0, 7)
    table = tenderflow("tenants", "usage", "acme")
    assert table.exit_code == 0 and "open reservations" in table.output

    assert tenderflow("tenants", "credits", "set", "acme", "--unlimited").exit_code == 0
    assert as_json(tenderflow("tenants", "show", "acme", "--json"))["unlimited"] is True


def test_key_is_printed_once_and_listed_without_its_secret(tenderflow: Any, conn: Conn) -> None:
    assert tenderflow("tenants", "create", "acme").exit_code == 0
    created = tenderflow("keys", "create", "--tenant", "acme", "--name", "uploader")
    assert created.exit_code == 0, created.output
    key = created.stdout.strip()
    assert re.fullmatch(KEY_PATTERN, key), created.stdout
    assert "shown once" in created.stderr
    assert verify_api_key(conn, key) == "acme"

    listed = tenderflow("keys", "list", "--json")
    [row] = as_json(listed)
    assert (row["tenant"], row["name"], row["status"]) == ("acme", "uploader", "active")
    assert key not in listed.stdout and key.rsplit("_", 1)[1] not in listed.stdout
    assert as_json(tenderflow("keys", "list", "--tenant", "default", "--json")) == []

    revoked = tenderflow("keys", "revoke", row["id"])
    assert revoked.exit_code == 0 and "revoked" in revoked.output
    assert verify_api_key(conn, key) is None
    assert as_json(tenderflow("keys", "list", "--json"))[0]["status"] == "revoked"
    assert tenderflow("keys", "revoke", "ffffffffffff").exit_code == 1


def test_cli_upload_reserves_at_the_settings_prices_and_refuses_when_short(
    database_url: str, conn: Conn, tmp_path: Path
) -> None:
    runner = CliRunner()
    env = {"DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri(),
           "TENDERFLOW_PRICE_PER_DOCUMENT": "4", "COLUMNS": "200"}
    try:
        assert runner.invoke(app, ["tenants", "create", "acme", "--credits", "6"], env=env).exit_code == 0
        first = runner.invoke(app, ["upload", "--tenant", "acme", "--json",
                                    str(text_pdf(tmp_path / "a.pdf", [TENDER_PAGE]))], env=env)
        assert first.exit_code == 0, first.output
        assert json.loads(first.stdout)[0]["status"] == "created"
        short = runner.invoke(app, ["upload", "--tenant", "acme", "--json",
                                    str(text_pdf(tmp_path / "b.pdf", [["another tender"]]))], env=env)
        # Checked once for the batch, before any file is read: one error line, exit 1.
        assert short.exit_code == 1
        assert "has 2 credits available" in " ".join(short.output.split())
    finally:
        configure_logging(level="WARNING")
    assert conn.execute("SELECT amount FROM credit_entries WHERE kind = 'reserve'").fetchall() == [(4,)]
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (1,)
