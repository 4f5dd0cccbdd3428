"""Work no live worker runs is said, with what to start (the review's NAT deployment: only remote
workers, so webhook deliveries, watch polls and deletions waited silently). `status`, `doctor`
and the API's `hint` name the pool; `handlers.coverage.unserved` is what they read."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import psycopg
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.handlers import LOCAL_POOLS
from tenderflow.handlers.coverage import unserved
from tenderflow.queue import jobs
from tenderflow.stages.compute import POOLS
from tenderflow.webhooks.addresses import AddressPolicy
from tenderflow.webhooks.endpoints import create_endpoint
from tests.support.api_harness import api_settings, bearer, serve_in_thread, tenant_with_key
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf


def register(conn: psycopg.Connection[Any], *, pools: tuple[str, ...], kind: str) -> None:
    conn.execute(jobs.QUERIES["worker_register"], {
        "id": f"{kind}-{uuid.uuid4().hex[:8]}", "host": "elsewhere", "pid": 1, "pools": list(pools), "threads": 1,
        "kind": kind, "now": None, "liveness_lock": None})


def test_only_remote_workers_leave_the_tasks_to_nobody_and_it_is_said(conn: psycopg.Connection[Any]) -> None:
    register(conn, pools=POOLS["all"], kind="remote")
    [waiting] = unserved(conn, dead_after_seconds=60)
    assert waiting.local and waiting.pool == "all"
    assert set(waiting.job_types) == {"webhook.deliver", "watch.poll", "storage.delete", "documents.retention",
                                      "tender.document"}
    assert "webhook deliveries" in waiting.sentence() and "tenderflow worker --pool all" in waiting.sentence()
    register(conn, pools=LOCAL_POOLS["ocr"], kind="local")  # deletions and retention run on any local worker
    [extract_tasks] = unserved(conn, dead_after_seconds=60)
    assert (extract_tasks.pool, set(extract_tasks.job_types)) == ("extract", {"webhook.deliver", "watch.poll"})
    register(conn, pools=LOCAL_POOLS["extract"], kind="local")
    assert unserved(conn, dead_after_seconds=60) == []


def test_status_and_doctor_say_which_pool_has_no_worker(database_url: str, conn: psycopg.Connection[Any],
                                                         tmp_path: Path) -> None:
    register(conn, pools=POOLS["all"], kind="remote")
    jobs.enqueue(conn, jobs.JobSpec(type="webhook.deliver", payload={"delivery_id": 1}))
    env = {"DATABASE_URL": database_url, "TENDERFLOW_DATA_DIR": str(tmp_path / "data"),
           "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri()}
    status = CliRunner().invoke(app, ["status"], env=env)
    assert status.exit_code == 0, status.output
    assert "waiting: no local worker runs, so webhook deliveries wait" in status.stderr
    as_json = json.loads(CliRunner().invoke(app, ["status", "--json"], env=env).stdout)
    assert as_json["unserved"][0]["job_types"] == ["webhook.deliver"]
    doctor = CliRunner().invoke(app, ["doctor", "--json"], env=env)
    [workers] = [check for check in json.loads(doctor.stdout) if check["check"] == "workers"]
    assert not workers["ok"] and "no local worker runs" in workers["detail"]


def test_the_api_hints_that_a_tenants_webhooks_wait_for_a_local_worker(
        database_url: str, conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    settings = api_settings(database_url, tmp_path)
    key = tenant_with_key(conn, "acme")
    create_endpoint(conn, "acme", "https://hooks.example.com/tenders", policy=AddressPolicy(),
                    resolver=lambda host, port: ["93.184.215.14"])
    register(conn, pools=POOLS["all"], kind="remote")
    with serve_in_thread(settings) as api:
        pdf = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE])
        with pdf.open("rb") as handle:
            answer = api.client.post("/v1/documents", headers=bearer(key),
                                     files={"file": ("notice.pdf", handle, "application/pdf")})
    assert answer.status_code == 201, answer.text
    hint = answer.json()["hint"]
    assert hint is not None and hint.startswith("this document's webhooks wait: no local worker runs")
