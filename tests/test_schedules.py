"""Schedules users can make (issue 13, item 6): `tenderflow schedules …` and the operators' API
(/v1/schedules, admin token), and a tenant's watches over the API (/v1/watches) inside the places
the operator opened to it (TENDERFLOW_WATCH_ROOTS), over real HTTP."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.config import Settings
from tenderflow.handlers import build_job_types
from tenderflow.queue import Scheduler
from tenderflow.tenants.tenants import create_tenant
from tests.support.api_harness import ADMIN_TOKEN, RunningApi, api_settings, bearer, serve_in_thread, tenant_with_key
from tests.support.pipeline_harness import drain
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf

Conn = psycopg.Connection[Any]


def invoke(env: dict[str, str], *args: str) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


def test_cli_lists_adds_retimes_pauses_runs_and_removes_schedules(
    cli_env: dict[str, str], conn: Conn, tmp_path: Path
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    (tmp_path / "inbox").mkdir()
    watch = json.loads(invoke(cli_env, "watch", str(tmp_path / "inbox"), "--tenant", "acme", "--json").stdout)
    name = f"watch:{watch['id']}"
    listed = json.loads(invoke(cli_env, "schedules", "list", "--json").stdout)
    assert [(s["name"], s["type"], s["interval_seconds"], s["enabled"]) for s in listed] == [
        (name, "watch.poll", 60.0, True)]

    nightly = invoke(cli_env, "schedules", "add", "nightly-inbox", "--type", "watch.poll", "--payload",
                     json.dumps({"watch_id": watch["id"]}), "--tenant", "acme", "--cron", "0 2 * * *", "--json")
    assert nightly.exit_code == 0, nightly.output
    made = json.loads(nightly.stdout)
    assert made["cron"] == "0 2 * * *" and made["max_attempts"] == 1
    assert datetime.fromisoformat(made["next_run_at"]).astimezone(UTC).hour == 2

    for args, said in [
        (("--type", "ocr.plan", "--payload", "{}", "--every", "1h"), "job type 'ocr.plan' cannot be scheduled"),
        (("--type", "watch.poll", "--payload", '{"watch": 1}', "--every", "1h"), "the payload does not fit"),
        (("--type", "watch.poll", "--payload", "[1]", "--every", "1h"), "--payload must be a JSON object"),
        (("--type", "watch.poll", "--payload", '{"watch_id": 1}'), "give exactly one of interval_seconds and cron"),
        (("--type", "watch.poll", "--payload", '{"watch_id": 1}', "--every", "soon"), "is not a duration"),
    ]:
        refused = invoke(cli_env, "schedules", "add", "broken", *args)
        assert refused.exit_code == 2 and said in refused.output, (args, refused.output)
    taken = invoke(cli_env, "schedules", "add", "watch:99", "--type", "watch.poll", "--payload",
                   '{"watch_id": 1}', "--every", "1h")
    assert taken.exit_code == 2 and "belong to watches" in taken.output
    hijack = invoke(cli_env, "schedules", "add", "documents.retention", "--type", "watch.poll", "--payload",
                    '{"watch_id": 1}', "--every", "1h")  # the retention task's own: workers ensure it
    assert hijack.exit_code == 2 and "task's own schedule" in hijack.output

    retimed = invoke(cli_env, "schedules", "set", name, "--every", "90s")
    assert retimed.exit_code == 0 and "every 90 s" in retimed.output
    assert invoke(cli_env, "schedules", "pause", name).exit_code == 0
    assert json.loads(invoke(cli_env, "watches", "list", "--json").stdout)[0]["enabled"] is False
    ran = invoke(cli_env, "schedules", "run", name)
    assert ran.exit_code == 0 and "queued" in ran.output, "a paused schedule can still be run by hand"
    assert conn.execute("SELECT type, tenant, payload FROM jobs").fetchall() == [
        ("watch.poll", "acme", {"watch_id": watch["id"]})]
    assert invoke(cli_env, "schedules", "resume", name).exit_code == 0
    kept = invoke(cli_env, "schedules", "remove", name)
    assert kept.exit_code == 2 and "is a watch's schedule: remove the watch" in kept.output
    assert invoke(cli_env, "schedules", "remove", "nightly-inbox").exit_code == 0
    missing = invoke(cli_env, "schedules", "pause", "nightly-inbox")
    assert missing.exit_code == 2 and "no schedule named 'nightly-inbox'" in missing.output
    assert invoke(cli_env, "watches", "remove", str(watch["id"])).exit_code == 0
    assert json.loads(invoke(cli_env, "schedules", "list", "--json").stdout) == []


def test_a_paused_schedule_does_not_run_and_resumes_from_now(conn: Conn, database_url: str, tmp_path: Path) -> None:
    from tenderflow.pipeline import watches

    create_tenant(conn, "acme", unlimited=True)
    (tmp_path / "inbox").mkdir()
    settings = Settings(database_url=database_url, data_dir=tmp_path / "data")
    scheduler = Scheduler(build_job_types(settings))
    start = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    watch = watches.create_watch(conn, scheduler, tenant="acme", source=str(tmp_path / "inbox"),
                                 interval_seconds=600, now=start)
    name = watches.schedule_name(watch.id)
    scheduler.change(conn, name, enabled=False)
    assert scheduler.run_once(conn, now=start + timedelta(hours=3)) == []
    resumed = scheduler.change(conn, name, enabled=True, now=start + timedelta(hours=3))
    assert resumed == start + timedelta(hours=3, minutes=10), "runs missed while paused are not caught up"
    assert len(scheduler.run_once(conn, now=start + timedelta(hours=3, minutes=10))) == 1


@pytest.fixture
def settings(settings: Settings, tmp_path: Path) -> Settings:
    return settings.model_copy(update={"watch_roots": f"{tmp_path / 'shares' / '{tenant}'},s3://inbox/{{tenant}}/"})


def test_api_tenant_watches_inside_its_roots_only(
    api: RunningApi, conn: Conn, pool: ConnectionPool, settings: Settings, tmp_path: Path
) -> None:
    acme, other = tenant_with_key(conn, "acme"), tenant_with_key(conn, "other")
    shares = tmp_path / "shares"
    (shares / "acme" / "tenders").mkdir(parents=True)
    (shares / "other").mkdir()
    (shares / "acme" / "escape").symlink_to(shares / "other")
    for source in [str(shares / "other"), str(shares / "acme" / "escape"), "/etc", "s3://inbox/other/",
                   "s3://elsewhere/acme/"]:
        refused = api.client.post("/v1/watches", headers=bearer(acme), json={"source": source})
        assert refused.status_code == 403, (source, refused.text)
        assert "outside the places this tenant may watch" in refused.json()["detail"]
    relative = api.client.post("/v1/watches", headers=bearer(acme), json={"source": "tenders"})
    assert relative.status_code == 400 and "not an absolute path" in relative.json()["detail"]
    both = api.client.post("/v1/watches", headers=bearer(acme),
                           json={"source": str(shares / "acme"), "every_seconds": 60, "cron": "* * * * *"})
    assert both.status_code == 422

    made = api.client.post("/v1/watches", headers=bearer(acme),
                           json={"source": str(shares / "acme" / "tenders"), "every_seconds": 300,
                                 "settle_seconds": 0})
    assert made.status_code == 201, made.text
    watch = made.json()
    assert (watch["kind"], watch["every_seconds"], watch["enabled"]) == ("folder", 300, True)
    assert api.client.get("/v1/watches", headers=bearer(other)).json() == []
    assert api.client.get(f"/v1/watches/{watch['id']}", headers=bearer(other)).status_code == 404
    assert api.client.post(f"/v1/watches/{watch['id']}/poll", headers=bearer(other)).status_code == 404

    old = time.time() - 3600
    pdf = text_pdf(shares / "acme" / "tenders" / "notice.pdf", [TENDER_PAGE])
    os.utime(pdf, (old, old))
    bad = shares / "acme" / "tenders" / "photo.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 not a tender")
    os.utime(bad, (old, old))
    queued = api.client.post(f"/v1/watches/{watch['id']}/poll", headers=bearer(acme))
    assert queued.status_code == 202
    drain(pool, settings, api.services.storage)
    files = {f["path"]: f for f in api.client.get(f"/v1/watches/{watch['id']}/files", headers=bearer(acme)).json()}
    assert files["notice.pdf"]["state"] == "uploaded" and files["notice.pdf"]["document_id"] is not None
    assert files["photo.jpg"]["state"] == "rejected" and files["photo.jpg"]["reason"] == "not a PDF (no %PDF- header)"
    document = api.client.get(f"/v1/documents/{files['notice.pdf']['document_id']}", headers=bearer(acme)).json()
    assert document["state"] == "done"
    rejected = api.client.get(f"/v1/watches/{watch['id']}/files", headers=bearer(acme), params={"state": "rejected"})
    assert [f["path"] for f in rejected.json()] == ["photo.jpg"]

    paused = api.client.patch(f"/v1/watches/{watch['id']}", headers=bearer(acme), json={"enabled": False}).json()
    assert paused["enabled"] is False and paused["next_poll_at"] is None
    retimed = api.client.patch(f"/v1/watches/{watch['id']}", headers=bearer(acme),
                               json={"enabled": True, "cron": "*/15 * * * *"}).json()
    assert retimed["cron"] == "*/15 * * * *" and retimed["every_seconds"] is None and retimed["enabled"]
    bad_cron = api.client.patch(f"/v1/watches/{watch['id']}", headers=bearer(acme), json={"cron": "often"})
    assert bad_cron.status_code == 400 and "not a valid cron expression" in bad_cron.json()["detail"]
    assert api.client.delete(f"/v1/watches/{watch['id']}", headers=bearer(acme)).status_code == 204
    assert api.client.get("/v1/watches", headers=bearer(acme)).json() == []
    assert conn.execute("SELECT count(*) FROM job_schedules").fetchone() == (0,)


def test_api_tenant_watches_need_roots_opened_by_the_operator(
    database_url: str, tmp_path: Path, conn: Conn
) -> None:
    key = tenant_with_key(conn, "acme")
    (tmp_path / "inbox").mkdir()
    with serve_in_thread(api_settings(database_url, tmp_path)) as closed:
        refused = closed.client.post("/v1/watches", headers=bearer(key), json={"source": str(tmp_path / "inbox")})
    assert refused.status_code == 403 and "TENDERFLOW_WATCH_ROOTS" in refused.json()["detail"]


def test_api_operators_manage_schedules_with_the_admin_token(api: RunningApi, conn: Conn, tmp_path: Path) -> None:
    from tenderflow.pipeline import watches

    create_tenant(conn, "acme", unlimited=True)
    (tmp_path / "inbox").mkdir()
    watch = watches.create_watch(conn, Scheduler(api.services.job_types), tenant="acme",
                                 source=str(tmp_path / "inbox"))
    admin = bearer(ADMIN_TOKEN)
    assert api.client.get("/v1/schedules").status_code == 401
    tenant_key = tenant_with_key(conn, "other")
    assert api.client.get("/v1/schedules", headers=bearer(tenant_key)).status_code == 401
    listed = api.client.get("/v1/schedules", headers=admin).json()
    assert [s["name"] for s in listed] == [f"watch:{watch.id}"]

    made = api.client.put("/v1/schedules/weekday-mornings", headers=admin, json={
        "type": "watch.poll", "payload": {"watch_id": watch.id}, "tenant": "acme", "cron": "0 7 * * 1-5"})
    assert made.status_code == 200, made.text
    assert made.json()["cron"] == "0 7 * * 1-5" and made.json()["tenant"] == "acme"
    for body, said in [({"type": "extract", "every_seconds": 60}, "cannot be scheduled"),
                       ({"type": "watch.poll", "payload": {"watch_id": -1}, "every_seconds": 60}, "payload"),
                       ({"type": "watch.poll", "payload": {"watch_id": 1}, "tenant": "ghost", "every_seconds": 60},
                        "ghost")]:
        refused = api.client.put("/v1/schedules/other", headers=admin, json=body)
        assert refused.status_code in (400, 404) and said in refused.json()["detail"], refused.text
    paused = api.client.patch("/v1/schedules/weekday-mornings", headers=admin, json={"enabled": False}).json()
    assert paused["enabled"] is False
    ran = api.client.post("/v1/schedules/weekday-mornings/run", headers=admin)
    assert ran.status_code == 202
    job = conn.execute("SELECT type, tenant, payload FROM jobs WHERE id = %s", (ran.json()["job_id"],)).fetchone()
    assert job == ("watch.poll", "acme", {"watch_id": watch.id})
    shown = next(s for s in api.client.get("/v1/schedules", headers=admin).json() if s["name"] == "weekday-mornings")
    assert shown["last_job_id"] == ran.json()["job_id"] and shown["last_job_state"] == "queued"
    assert api.client.delete(f"/v1/schedules/watch:{watch.id}", headers=admin).status_code == 400
    assert api.client.delete("/v1/schedules/weekday-mornings", headers=admin).status_code == 204
    assert api.client.patch("/v1/schedules/weekday-mornings", headers=admin, json={}).status_code == 404
