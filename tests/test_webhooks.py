"""Webhooks end to end on the real pipeline: a tenant's endpoint, a real receiver over HTTP that
fails, hangs and then answers, the signature verified by the receiver, every attempt logged; the
address policy (no SSRF) on names and on the address actually connected to; redelivery, ping,
secret rotation, disabling an endpoint that keeps failing, and a document deleted before its
delivery."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.errors import WebhookUrlError
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.tenants.tenants import create_tenant
from tenderflow.webhooks import deliveries, endpoints
from tenderflow.webhooks.addresses import AddressPolicy, check_registration
from tenderflow.webhooks.transport import post
from tests.support.pdf_fixtures import encrypted_pdf
from tests.support.pipeline_harness import drain, pipeline_idle, pipeline_settings
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf
from tests.support.webhook_receiver import WebhookReceiver

Conn = psycopg.Connection[Any]
LOOPBACK = AddressPolicy.from_setting("127.0.0.0/8")
NO_EXCEPTIONS = AddressPolicy()


def hook_settings(database_url: str, tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"webhook_allow_networks": "127.0.0.0/8", "webhook_timeout_seconds": 1.0,
                              "webhook_backoff_base_seconds": 0.05, "webhook_backoff_cap_seconds": 0.1}
    return pipeline_settings(database_url, tmp_path, **{**values, **overrides})


def upload(conn: Conn, storage: ObjectStorage, path: Path, tenant: str = "acme") -> int:
    outcome = upload_file(conn, storage, path, UploadPolicy(tenant=tenant, max_bytes=10 * 1024 * 1024))
    assert outcome.document_id is not None
    return outcome.document_id


def attempts_of(conn: Conn, delivery_id: int) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT attempt, outcome, status_code, error, address FROM webhook_attempts "
                        "WHERE delivery_id = %s ORDER BY attempt", (delivery_id,)).fetchall()


def test_a_done_document_is_delivered_after_a_failure_and_a_hang_signed_and_logged(
    conn: Conn, pool: ConnectionPool, database_url: str, tmp_path: Path, storage: ObjectStorage
) -> None:
    settings = hook_settings(database_url, tmp_path)
    create_tenant(conn, "acme", unlimited=True)
    with WebhookReceiver(["500", "hang"]) as receiver:
        created = endpoints.create_endpoint(conn, "acme", receiver.url, policy=LOOPBACK)
        receiver.secret = created.secret
        document_id = upload(conn, storage, text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]))
        drain(pool, settings, storage)
        assert [request.answered for request in receiver.requests] == ["500", "hang", "200"]
    assert all(request.verified for request in receiver.requests), "the receiver could not verify a signature"
    first, _, last = receiver.requests
    assert first.headers["tenderflow-event-id"] == last.headers["tenderflow-event-id"] == last.json()["id"]
    assert first.headers["idempotency-key"] == last.json()["id"]
    assert [request.headers["tenderflow-attempt"] for request in receiver.requests] == ["1", "2", "3"]
    event = last.json()
    assert event["type"] == "document.done" and event["tenant"] == "acme"
    document = event["data"]["document"]
    assert (document["id"], document["version"], document["state"]) == (document_id, 1, "done")
    assert document["links"]["fields"] == f"/v1/documents/{document_id}/fields"
    for moment in (event["created_at"], document["uploaded_at"], document["finished_at"]):
        assert moment.endswith("Z") and datetime.fromisoformat(moment.replace("Z", "+00:00")).tzinfo is not None
    assert event["data"]["fields"]["reference_number"]["value"] == "EH-2026-0417"
    [delivery] = deliveries.list_deliveries(conn, tenant="acme")
    assert delivery["state"] == "delivered" and delivery["attempts"] == 3 and delivery["last_status"] == 200
    logged = attempts_of(conn, delivery["id"])
    assert [(a, outcome, status) for a, outcome, status, _, _ in logged] == [
        (1, "failed", 500), (2, "failed", None), (3, "delivered", 200)]
    assert logged[1][3] == "timed out after 1 s"
    assert {address for *_, address in logged} == {f"127.0.0.1:{receiver.port}"}
    assert pipeline_idle(pool)


def test_a_failed_document_tells_document_failed_with_its_reason(
    conn: Conn, pool: ConnectionPool, database_url: str, tmp_path: Path, storage: ObjectStorage
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    with WebhookReceiver() as receiver:
        created = endpoints.create_endpoint(conn, "acme", receiver.url, policy=LOOPBACK,
                                            events=["document.failed"])
        receiver.secret = created.secret
        upload(conn, storage, text_pdf(tmp_path / "fine.pdf", [TENDER_PAGE]))  # done: not wanted here
        locked = upload(conn, storage, encrypted_pdf(tmp_path / "locked.pdf", user_password="secret"))
        drain(pool, hook_settings(database_url, tmp_path), storage)
    [request] = receiver.requests
    assert request.verified and request.json()["type"] == "document.failed"
    document = request.json()["data"]["document"]
    assert document["id"] == locked and document["state"] == "failed" and "encrypted" in document["error"]
    assert document["failed_for_content"] is True and request.json()["data"]["fields"] is None


def test_the_delivery_is_enqueued_in_the_transaction_that_fails_the_version(
    conn: Conn, tmp_path: Path, storage: ObjectStorage
) -> None:
    from tenderflow.pipeline import commits, versions

    create_tenant(conn, "acme", unlimited=True)
    endpoints.create_endpoint(conn, "acme", "http://127.0.0.1:9/hooks", policy=LOOPBACK)
    document_id = upload(conn, storage, text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]))
    count = ("SELECT (SELECT count(*) FROM webhook_deliveries), "
             "(SELECT count(*) FROM jobs WHERE type = 'webhook.deliver')")
    with pytest.raises(RuntimeError), conn.transaction():
        commits.stop_unpaid(conn, versions.VersionRef(document_id, 1), "stopped by the test")
        assert conn.execute(count).fetchone() == (1, 1)
        raise RuntimeError("roll it back")
    assert conn.execute(count).fetchone() == (0, 0)
    assert conn.execute("SELECT state::text FROM document_versions").fetchone() == ("queued",)


def test_urls_that_are_not_http_are_refused_with_the_reason() -> None:
    for url, reason in [("ftp://files.example.com/in", "ftp: is refused"),
                        ("javascript:alert(1)", "javascript: is refused"),
                        ("file:///etc/passwd", "file: is refused"),
                        ("bids.example.com/hooks", "a URL without a scheme is refused"),
                        ("https://user:pw@bids.example.com/", "user name or password"),
                        ("https:///nohost", "names no host")]:
        with pytest.raises(WebhookUrlError, match=reason):
            check_registration(url, NO_EXCEPTIONS, resolver=lambda host, port: ["93.184.216.34"])


@pytest.mark.parametrize(("address", "kind"), [
    ("127.0.0.1", "loopback"), ("10.1.2.3", "private"), ("172.16.0.9", "private"), ("192.168.1.1", "private"),
    ("169.254.169.254", "link-local"), ("100.64.0.1", "carrier-grade NAT"), ("0.0.0.0", "unspecified"),
    ("::1", "loopback"), ("fe80::1", "link-local"), ("fd00::1", "private"), ("::ffff:127.0.0.1", "loopback"),
    ("64:ff9b::a9fe:a9fe", "link-local"), ("224.0.0.1", "multicast"),
])
def test_addresses_off_the_public_internet_are_refused_unless_allowed(address: str, kind: str) -> None:
    refusal = NO_EXCEPTIONS.refusal(address)
    assert refusal is not None and kind in refusal
    literal = f"[{address}]" if ":" in address else address
    with pytest.raises(WebhookUrlError, match="TENDERFLOW_WEBHOOK_ALLOW_NETWORKS"):
        check_registration(f"https://{literal}/hooks", NO_EXCEPTIONS)
    allowed = AddressPolicy.from_setting(f"{address}/128" if ":" in address else f"{address}/32")
    assert allowed.refusal(address) is None
    assert NO_EXCEPTIONS.refusal("93.184.216.34") is None and NO_EXCEPTIONS.refusal("2606:4700::1111") is None


def test_a_name_that_resolves_to_a_private_address_is_refused_at_registration() -> None:
    resolver = {"hooks.example.com": ["93.184.216.34", "10.0.0.7"], "ok.example.com": ["93.184.216.34"]}
    with pytest.raises(WebhookUrlError, match=r"resolves to 10\.0\.0\.7 is a private address"):
        check_registration("https://hooks.example.com/x", NO_EXCEPTIONS, resolver=lambda h, p: resolver[h])
    assert check_registration("https://ok.example.com/x", NO_EXCEPTIONS, resolver=lambda h, p: resolver[h]).host == \
        "ok.example.com"
    with pytest.raises(WebhookUrlError, match="does not resolve"):
        check_registration("https://nowhere.invalid/x", NO_EXCEPTIONS)


def test_the_address_connected_to_is_checked_not_the_name_registered() -> None:
    """DNS rebinding: a name that resolved to a public address at registration resolves to loopback
    when the delivery is sent: the connection is refused and the receiver hears nothing."""
    with WebhookReceiver() as receiver:
        answers = {"hooks.example.com": ["93.184.216.34"]}
        check_registration(f"http://hooks.example.com:{receiver.port}/x", NO_EXCEPTIONS,
                           resolver=lambda h, p: answers[h])
        answers["hooks.example.com"] = ["127.0.0.1"]
        refused = post(f"http://hooks.example.com:{receiver.port}/x", b"{}", {}, policy=NO_EXCEPTIONS,
                       timeout_seconds=2, resolver=lambda h, p: answers[h])
        assert refused.status_code is None and refused.address is None
        assert refused.error is not None and "127.0.0.1 is a loopback address" in refused.error
        assert receiver.requests == []
        # The same name, allowed by the operator: the request goes to the address resolved here,
        # with the name in its Host header.
        sent = post(f"http://hooks.example.com:{receiver.port}/x", b"{}", {}, policy=LOOPBACK,
                    timeout_seconds=2, resolver=lambda h, p: answers[h])
    assert sent.delivered and sent.address == f"127.0.0.1:{receiver.port}"
    assert receiver.requests[0].headers["host"] == f"hooks.example.com:{receiver.port}"


def test_a_redirect_is_a_failed_attempt_and_is_not_followed() -> None:
    with WebhookReceiver(["302 http://169.254.169.254/latest/meta-data/"]) as receiver:
        outcome = post(receiver.url, b"{}", {}, policy=LOOPBACK, timeout_seconds=2)
    assert outcome.status_code == 302 and not outcome.delivered
    assert "redirects are not followed" in (outcome.failure() or "")
    assert len(receiver.requests) == 1


def json_lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def drain_stages(pool: ConnectionPool, settings: Settings, storage: ObjectStorage) -> None:
    """Run the document pipeline's stages only: the deliveries they enqueue stay queued."""
    from dataclasses import replace

    from tenderflow.handlers import build_job_types
    from tenderflow.queue import Worker
    from tenderflow.stages.compute import POOLS
    from tests.support.pipeline_harness import worker_config

    job_types = build_job_types(settings, pool=pool, storage=storage, cache_dir=settings.data_dir / "cache")
    worker = Worker(pool, job_types, replace(worker_config(), types=POOLS["all"]))
    while worker.run_once():
        pass


def queued_jobs(conn: Conn) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT type, state::text FROM jobs WHERE state IN ('queued', 'running')").fetchall()


def test_a_document_deleted_before_its_delivery_is_not_sent_and_the_queue_becomes_quiet(
    conn: Conn, pool: ConnectionPool, database_url: str, tmp_path: Path, storage: ObjectStorage
) -> None:
    settings = hook_settings(database_url, tmp_path)
    create_tenant(conn, "acme", unlimited=True)
    with WebhookReceiver() as receiver:
        endpoints.create_endpoint(conn, "acme", receiver.url, policy=LOOPBACK)
        document_id = upload(conn, storage, text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]))
        drain_stages(pool, settings, storage)
        # (and the document's tender.document task, a task as the delivery is: drain_stages runs neither)
        assert sorted(queued_jobs(conn)) == [("tender.document", "queued"), ("webhook.deliver", "queued")]
        # What deleting a document does to its rows (the versions, pages and fields go with it).
        conn.execute("DELETE FROM documents WHERE id = %s", (document_id,))
        drain(pool, settings, storage)
    assert receiver.requests == [], "nothing of a deleted document may be sent"
    [delivery] = deliveries.list_deliveries(conn, tenant="acme")
    assert delivery["state"] == "skipped" and f"document {document_id} was deleted" in delivery["last_error"]
    assert conn.execute("SELECT state::text FROM jobs WHERE type = 'webhook.deliver'").fetchone() == ("succeeded",)
    assert queued_jobs(conn) == []


def test_an_endpoint_that_keeps_failing_is_disabled_its_deliveries_end_and_redelivery_sends_them(
    conn: Conn, pool: ConnectionPool, database_url: str, tmp_path: Path, storage: ObjectStorage
) -> None:
    settings = hook_settings(database_url, tmp_path, webhook_disable_after_failures=3, webhook_max_attempts=10)
    create_tenant(conn, "acme", unlimited=True)
    with WebhookReceiver(then="500") as receiver:
        created = endpoints.create_endpoint(conn, "acme", receiver.url, policy=LOOPBACK)
        receiver.secret = created.secret
        for name in ("one", "two"):
            upload(conn, storage, text_pdf(tmp_path / f"{name}.pdf", [TENDER_PAGE, [f"Notice {name}"]]))
        drain(pool, settings, storage)
        endpoint = endpoints.get_endpoint(conn, created.endpoint.id)
        assert not endpoint.enabled and "3 failed attempts in a row" in (endpoint.disabled_reason or "")
        # The third failure disables it; an attempt of the other delivery already in flight (two
        # run at once) may still land, none starts after.
        sent = len(receiver.requests)
        assert sent in (3, 4), sent
        drain(pool, settings, storage)
        assert len(receiver.requests) == sent, "no attempt after the endpoint was disabled"
        states = sorted(d["state"] for d in deliveries.list_deliveries(conn, tenant="acme"))
        assert states in (["cancelled", "failed"], ["failed", "failed"]), states
        assert queued_jobs(conn) == [], "a disabled endpoint leaves nothing queued"
        # The receiver is mended: enable the endpoint, send what failed again.
        receiver.then = "200"
        endpoints.set_enabled(conn, created.endpoint.id, True)
        jobs = deliveries.redeliver_failed(conn, created.endpoint.id)
        assert len(jobs) == 2
        drain(pool, settings, storage)
    assert [d["state"] for d in deliveries.list_deliveries(conn, tenant="acme")] == ["delivered", "delivered"]
    sent_again = receiver.requests[sent:]
    assert len(sent_again) == 2 and all(request.verified for request in sent_again)
    assert {r.json()["id"] for r in sent_again} == {r.json()["id"] for r in receiver.requests[:sent]}, \
        "a redelivery carries the event's id"
    assert endpoints.get_endpoint(conn, created.endpoint.id).consecutive_failures == 0


def test_a_delivery_out_of_attempts_fails_and_is_sent_again_by_redeliver(
    conn: Conn, pool: ConnectionPool, database_url: str, tmp_path: Path, storage: ObjectStorage
) -> None:
    settings = hook_settings(database_url, tmp_path, webhook_max_attempts=2)
    create_tenant(conn, "acme", unlimited=True)
    with WebhookReceiver(["503", "500"]) as receiver:
        receiver.secret = endpoints.create_endpoint(conn, "acme", receiver.url, policy=LOOPBACK).secret
        upload(conn, storage, text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]))
        drain(pool, settings, storage)
        [failed] = deliveries.list_deliveries(conn, tenant="acme")
        assert (failed["state"], failed["attempts"], failed["last_status"]) == ("failed", 2, 500)
        job = conn.execute("SELECT state::text, last_error FROM jobs WHERE type = 'webhook.deliver'").fetchone()
        assert job is not None and job[0] == "failed" and "2 attempts of 2 made" in job[1]
        deliveries.redeliver(conn, [failed["id"]])
        with pytest.raises(Exception, match="still being sent"):
            deliveries.redeliver(conn, [failed["id"]])
        drain(pool, settings, storage)
    detail = deliveries.get_delivery(conn, failed["id"])
    assert (detail["state"], detail["attempts"], detail["redeliveries"]) == ("delivered", 3, 1)
    assert [a["outcome"] for a in detail["attempt_log"]] == ["failed", "failed", "delivered"]
    assert len({r.json()["id"] for r in receiver.requests}) == 1 and all(r.verified for r in receiver.requests)


@pytest.mark.slow
def test_a_delivery_survives_its_worker_killed_mid_request(
    conn: Conn, pool: ConnectionPool, database_url: str, tmp_path: Path, storage: ObjectStorage
) -> None:
    """A real worker process SIGKILLed while the receiver hangs: the lease expires, the reclaimer
    puts the job back, and another worker delivers it; the event id stays the same."""
    import signal
    import subprocess
    import sys
    from datetime import UTC, datetime, timedelta

    from tenderflow.handlers import build_job_types
    from tenderflow.queue import Reclaimer
    from tests.conftest import wait_until
    from tests.support.api_harness import REPO_ROOT, settings_env

    settings = hook_settings(database_url, tmp_path, webhook_timeout_seconds=60.0, lease_seconds=30.0)
    create_tenant(conn, "acme", unlimited=True)
    with WebhookReceiver(["hang"]) as receiver:
        receiver.secret = endpoints.create_endpoint(conn, "acme", receiver.url, policy=LOOPBACK).secret
        upload(conn, storage, text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]))
        drain_stages(pool, settings, storage)
        worker = subprocess.Popen([sys.executable, "-m", "tenderflow", "worker", "--pool", "extract"],
                                  env=settings_env(settings), cwd=REPO_ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            wait_until(lambda: receiver.requests, timeout=60, message="the worker process sent the first attempt")
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.wait(10)
        assert conn.execute("SELECT state::text FROM jobs WHERE type = 'webhook.deliver'").fetchone() == ("running",)
        later = datetime.now(UTC) + timedelta(seconds=settings.lease_seconds + 1)
        job_types = build_job_types(settings, pool=pool, storage=storage)
        assert [job.state.value for job in Reclaimer(job_types).run_once(conn, now=later)] == ["queued"]
        # Queued to run at the injected `later`, 31 s ahead of the clock: due now, as once that time has come.
        assert conn.execute("UPDATE jobs SET run_after = now() WHERE type = 'webhook.deliver' AND run_after = %s",
                            (later,)).rowcount == 1
        drain(pool, settings, storage)
    [delivery] = deliveries.list_deliveries(conn, tenant="acme")
    assert delivery["state"] == "delivered"
    assert [r.answered for r in receiver.requests] == ["hang", "200"]
    assert receiver.requests[0].json()["id"] == receiver.requests[1].json()["id"]
    assert all(r.verified for r in receiver.requests)


def test_deliveries_take_turns_between_tenants(
    conn: Conn, pool: ConnectionPool, database_url: str, tmp_path: Path, storage: ObjectStorage
) -> None:
    """A tenant with a backlog of deliveries does not hold up another's: the claim takes turns, so
    the quiet tenant's delivery, queued after thirty of the busy one's, goes in the first claim."""
    from dataclasses import replace

    from tenderflow.handlers import LOCAL_POOLS, build_job_types
    from tenderflow.queue import Worker
    from tests.support.pipeline_harness import worker_config

    settings = hook_settings(database_url, tmp_path)
    with WebhookReceiver() as receiver:
        for tenant in ("busy", "quiet"):
            create_tenant(conn, tenant, unlimited=True)
            endpoints.create_endpoint(conn, tenant, receiver.url, policy=LOOPBACK)
        busy = upload(conn, storage, text_pdf(tmp_path / "busy.pdf", [TENDER_PAGE]), tenant="busy")
        drain_stages(pool, settings, storage)
        for version in range(2, 31):  # 29 more events of the busy tenant
            conn.execute("INSERT INTO document_versions (document_id, version, pages_version, state, finished_at, "
                         "error) VALUES (%s, %s, 1, 'failed', now(), 'a test')", (busy, version))
            deliveries.emit(conn, tenant="busy", event_type="document.failed", document_id=busy, version=version)
        quiet = upload(conn, storage, text_pdf(tmp_path / "quiet.pdf", [TENDER_PAGE, ["Quiet"]]), tenant="quiet")
        drain_stages(pool, settings, storage)
        order = conn.execute("SELECT tenant FROM jobs WHERE type = 'webhook.deliver' ORDER BY id").fetchall()
        assert order[-1] == ("quiet",) and len(order) == 31
        job_types = build_job_types(settings, pool=pool, storage=storage)
        Worker(pool, job_types, replace(worker_config(threads=2), types=LOCAL_POOLS["extract"])).run_once()
    sent_for = [request.json()["data"]["document"]["id"] for request in receiver.requests]
    assert sorted(sent_for) == sorted([busy, quiet]), sent_for


def test_retrying_a_failed_delivery_job_by_hand_sends_it_again(
    conn: Conn, pool: ConnectionPool, database_url: str, tmp_path: Path, storage: ObjectStorage
) -> None:
    from tenderflow.queue import retry

    settings = hook_settings(database_url, tmp_path, webhook_max_attempts=1)
    create_tenant(conn, "acme", unlimited=True)
    with WebhookReceiver(["500"]) as receiver:
        endpoints.create_endpoint(conn, "acme", receiver.url, policy=LOOPBACK)
        upload(conn, storage, text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]))
        drain(pool, settings, storage)
        job = conn.execute("SELECT id, state::text FROM jobs WHERE type = 'webhook.deliver'").fetchone()
        assert job is not None and job[1] == "failed"
        retry(conn, job[0])  # what `tenderflow jobs retry` and the dashboard's Retry do
        drain(pool, settings, storage)
    assert [r.answered for r in receiver.requests] == ["500", "200"]
    assert deliveries.list_deliveries(conn, tenant="acme")[0]["state"] == "delivered"
