"""Webhooks through the CLI (`tenderflow webhooks …`, as the operator types it) and the tenants' API
(/v1/webhooks over real HTTP), each with a real receiver: refused URLs say why, the secret is shown
once, a ping is signed, deliveries are listed with their attempts and can be sent again, a secret
rotation signs with both secrets, and a tenant sees only its own endpoints and deliveries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.config import Settings
from tenderflow.pipeline.storage import open_storage
from tenderflow.tenants.tenants import create_tenant
from tests.support.api_harness import RunningApi, bearer, tenant_with_key
from tests.support.pipeline_harness import drain
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf
from tests.support.webhook_receiver import WebhookReceiver, verify_signature

Conn = psycopg.Connection[Any]
FAST_RETRIES = {"TENDERFLOW_WEBHOOK_TIMEOUT_SECONDS": "2", "TENDERFLOW_WEBHOOK_BACKOFF_BASE_SECONDS": "0.05",
                "TENDERFLOW_WEBHOOK_BACKOFF_CAP_SECONDS": "0.1"}


pytestmark = pytest.mark.settings(webhook_allow_networks="127.0.0.0/8", webhook_timeout_seconds=2.0,
                                  webhook_backoff_base_seconds=0.05, webhook_backoff_cap_seconds=0.1)


@pytest.fixture
def cli_env(cli_env: dict[str, str]) -> dict[str, str]:
    return {**cli_env, "TENDERFLOW_WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8", **FAST_RETRIES}


def invoke(env: dict[str, str], *args: str) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


def settings_of(env: dict[str, str], database_url: str, tmp_path: Path) -> Settings:
    from tests.support.pipeline_harness import pipeline_settings

    return pipeline_settings(database_url, tmp_path, webhook_allow_networks="127.0.0.0/8",
                             webhook_timeout_seconds=2.0, webhook_backoff_base_seconds=0.05,
                             webhook_backoff_cap_seconds=0.1)


def test_cli_refuses_urls_that_are_not_http_or_reach_private_addresses(cli_env: dict[str, str], conn: Conn) -> None:
    create_tenant(conn, "acme", unlimited=True)
    refused = invoke(cli_env, "webhooks", "add", "ftp://files.example.com/in", "--tenant", "acme")
    assert refused.exit_code == 2 and "ftp: is refused: a webhook URL must start with https://" in refused.output
    strict = {**cli_env, "TENDERFLOW_WEBHOOK_ALLOW_NETWORKS": ""}
    loopback = invoke(strict, "webhooks", "add", "http://127.0.0.1:9/x", "--tenant", "acme")
    assert loopback.exit_code == 2 and "127.0.0.1 is a loopback address" in loopback.output
    metadata = invoke(cli_env, "webhooks", "add", "http://169.254.169.254/latest", "--tenant", "acme")
    assert metadata.exit_code == 2 and "link-local" in metadata.output
    unknown = invoke(cli_env, "webhooks", "add", "http://127.0.0.1:9/x", "--tenant", "acme",
                     "--events", "document.deleted")
    assert unknown.exit_code == 2 and "unknown webhook event 'document.deleted'" in unknown.output
    assert conn.execute("SELECT count(*) FROM webhook_endpoints").fetchone() == (0,)


def test_cli_adds_pings_lists_deliveries_redelivers_and_rotates(
    cli_env: dict[str, str], conn: Conn, pool: ConnectionPool, database_url: str, tmp_path: Path
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    settings = settings_of(cli_env, database_url, tmp_path)
    storage = open_storage(settings.resolved_storage_url)
    with WebhookReceiver(["500"]) as receiver:
        added = invoke(cli_env, "webhooks", "add", receiver.url, "--tenant", "acme", "--json")
        assert added.exit_code == 0, added.output
        endpoint = json.loads(added.stdout)
        receiver.secret = endpoint["secret"]
        assert endpoint["secret"].startswith("whsec_") and endpoint["events"] == ["document.done", "document.failed"]
        listed = json.loads(invoke(cli_env, "webhooks", "list", "--json").stdout)
        assert [e["id"] for e in listed] == [endpoint["id"]] and "secret" not in listed[0]

        failed_ping = invoke(cli_env, "webhooks", "ping", str(endpoint["id"]))
        assert failed_ping.exit_code == 1 and "answered 500" in failed_ping.output
        ping = invoke(cli_env, "webhooks", "ping", str(endpoint["id"]), "--json")
        assert ping.exit_code == 0, ping.output
        assert json.loads(ping.stdout)["status"] == 200
        assert [r.json()["type"] for r in receiver.requests] == ["ping", "ping"]
        assert all(r.verified for r in receiver.requests)

        pdf = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE])
        assert invoke(cli_env, "upload", str(pdf), "--tenant", "acme").exit_code == 0
        drain(pool, settings, storage)
        rows = json.loads(invoke(cli_env, "webhooks", "deliveries", "--tenant", "acme", "--state", "delivered",
                                 "--json").stdout)
        done = next(row for row in rows if row["event_type"] == "document.done")
        assert (done["attempts"], done["last_status"]) == (1, 200)
        detail = json.loads(invoke(cli_env, "webhooks", "delivery", str(done["id"]), "--json").stdout)
        assert [a["outcome"] for a in detail["attempt_log"]] == ["delivered"]
        assert detail["attempt_log"][0]["address"] == f"127.0.0.1:{receiver.port}"
        bad_state = invoke(cli_env, "webhooks", "deliveries", "--state", "lost")
        assert bad_state.exit_code == 2 and "unknown delivery state 'lost'" in bad_state.output

        again = invoke(cli_env, "webhooks", "redeliver", str(done["id"]))
        assert again.exit_code == 0 and "1 deliveries queued" in again.output
        drain(pool, settings, storage)
        assert receiver.requests[-1].json()["id"] == done["event_id"], "a redelivery keeps the event id"

        old_secret = receiver.secret
        rotated = json.loads(invoke(cli_env, "webhooks", "rotate-secret", str(endpoint["id"]), "--keep-old-for",
                                    "1h", "--json").stdout)
        assert rotated["secret"] != old_secret
        assert invoke(cli_env, "webhooks", "ping", str(endpoint["id"])).exit_code == 0
        last = receiver.requests[-1]
        header = last.headers["tenderflow-signature"]
        assert header.count("v1=") == 2, "while the old secret is kept, both sign"
        assert verify_signature(old_secret, header, last.body) and verify_signature(rotated["secret"], header,
                                                                                     last.body)
        invoke(cli_env, "webhooks", "rotate-secret", str(endpoint["id"]), "--keep-old-for", "0")
        assert invoke(cli_env, "webhooks", "ping", str(endpoint["id"])).exit_code == 0
        assert receiver.requests[-1].headers["tenderflow-signature"].count("v1=") == 1

        assert invoke(cli_env, "webhooks", "disable", str(endpoint["id"])).exit_code == 0
        shown = json.loads(invoke(cli_env, "webhooks", "list", "--json").stdout)[0]
        assert shown["enabled"] is False and shown["disabled_reason"] == "disabled by the operator"
        assert invoke(cli_env, "webhooks", "remove", str(endpoint["id"])).exit_code == 0
        assert json.loads(invoke(cli_env, "webhooks", "list", "--json").stdout) == []
        gone = invoke(cli_env, "webhooks", "ping", str(endpoint["id"]))
        assert gone.exit_code == 1 and f"no webhook endpoint with id {endpoint['id']}" in gone.output


def test_api_registers_refuses_pings_and_lists_a_tenants_own_deliveries(
    api: RunningApi, conn: Conn, pool: ConnectionPool, settings: Settings, tmp_path: Path
) -> None:
    acme = tenant_with_key(conn, "acme")
    other = tenant_with_key(conn, "other")
    not_http = api.client.post("/v1/webhooks", headers=bearer(acme), json={"url": "gopher://example.com/x"})
    assert not_http.status_code == 400 and "gopher: is refused" in not_http.json()["detail"]
    metadata = api.client.post("/v1/webhooks", headers=bearer(acme), json={"url": "http://169.254.169.254/x"})
    assert metadata.status_code == 400 and "link-local" in metadata.json()["detail"]
    assert api.client.post("/v1/webhooks", json={"url": "http://127.0.0.1/x"}).status_code == 401

    with WebhookReceiver() as receiver:
        created = api.client.post("/v1/webhooks", headers=bearer(acme),
                                  json={"url": receiver.url, "events": ["document.done"], "description": "bids"})
        assert created.status_code == 201, created.text
        endpoint = created.json()
        receiver.secret = endpoint["secret"]
        assert created.headers["location"] == f"/v1/webhooks/{endpoint['id']}"
        listed = api.client.get("/v1/webhooks", headers=bearer(acme)).json()
        assert [e["id"] for e in listed] == [endpoint["id"]] and "secret" not in listed[0]
        assert api.client.get("/v1/webhooks", headers=bearer(other)).json() == []
        assert api.client.get(f"/v1/webhooks/{endpoint['id']}", headers=bearer(other)).status_code == 404
        assert api.client.delete(f"/v1/webhooks/{endpoint['id']}", headers=bearer(other)).status_code == 404

        ping = api.client.post(f"/v1/webhooks/{endpoint['id']}/ping", headers=bearer(acme)).json()
        assert ping["delivered"] and ping["status_code"] == 200 and receiver.requests[0].verified

        with (tmp_path / "notice.pdf").open("wb") as handle:
            handle.write(text_pdf(tmp_path / "n.pdf", [TENDER_PAGE]).read_bytes())
        with (tmp_path / "notice.pdf").open("rb") as handle:
            uploaded = api.client.post("/v1/documents", headers=bearer(acme),
                                       files={"file": ("notice.pdf", handle, "application/pdf")}).json()
        drain(pool, settings, api.services.storage)
        page = api.client.get("/v1/webhooks/deliveries", headers=bearer(acme),
                              params={"document": uploaded["id"]}).json()
        [delivery] = page["deliveries"]
        assert (delivery["event_type"], delivery["state"], delivery["version"]) == ("document.done", "delivered", 1)
        assert api.client.get("/v1/webhooks/deliveries", headers=bearer(other)).json()["deliveries"] == []
        assert api.client.get(f"/v1/webhooks/deliveries/{delivery['id']}", headers=bearer(other)).status_code == 404
        detail = api.client.get(f"/v1/webhooks/deliveries/{delivery['id']}", headers=bearer(acme)).json()
        assert [a["status_code"] for a in detail["attempts_made"]] == [200]
        event = receiver.requests[-1].json()
        assert event["data"]["document"]["id"] == uploaded["id"] and receiver.requests[-1].verified

        again = api.client.post(f"/v1/webhooks/deliveries/{delivery['id']}/redeliver", headers=bearer(acme))
        assert again.status_code == 202 and len(again.json()["job_ids"]) == 1
        busy = api.client.post(f"/v1/webhooks/deliveries/{delivery['id']}/redeliver", headers=bearer(acme))
        assert busy.status_code == 400 and "still being sent" in busy.json()["detail"]
        drain(pool, settings, api.services.storage)
        assert receiver.requests[-1].json()["id"] == event["id"]

        off = api.client.patch(f"/v1/webhooks/{endpoint['id']}", headers=bearer(acme), json={"enabled": False})
        assert off.status_code == 200 and off.json()["enabled"] is False
        moved = api.client.patch(f"/v1/webhooks/{endpoint['id']}", headers=bearer(acme),
                                 json={"url": "file:///etc/passwd"})
        assert moved.status_code == 400 and "file: is refused" in moved.json()["detail"]
        rotated = api.client.post(f"/v1/webhooks/{endpoint['id']}/rotate-secret", headers=bearer(acme),
                                  params={"keep_old_seconds": 0}).json()
        assert rotated["secret"].startswith("whsec_") and rotated["secret"] != endpoint["secret"]
        assert api.client.delete(f"/v1/webhooks/{endpoint['id']}", headers=bearer(acme)).status_code == 204
        assert api.client.get(f"/v1/webhooks/{endpoint['id']}", headers=bearer(acme)).status_code == 404


def test_a_worker_refuses_to_start_with_unreadable_webhook_networks(cli_env: dict[str, str], conn: Conn) -> None:
    broken = {**cli_env, "TENDERFLOW_WEBHOOK_ALLOW_NETWORKS": "10.0.0.0/8, intranet"}
    result = invoke(broken, "worker", "--pool", "extract")
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "webhook networks: TENDERFLOW_WEBHOOK_ALLOW_NETWORKS: 'intranet' is not a network" in said
    doctor = {row["check"]: row for row in json.loads(invoke(cli_env, "doctor", "--json").stdout)}
    assert doctor["webhook networks"]["ok"] and "127.0.0.0/8" in doctor["webhook networks"]["detail"]
