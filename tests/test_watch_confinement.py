"""A watched folder stays inside the place it was allowed, at every use (review security-2, D-N1 and
D-N6): a tenant that swaps its watched folder, or one of its parents, for a symbolic link to another
tenant's inbox between the watch's creation and a poll, or between a poll's listing and its read,
gets nothing from there; an S3 root is a prefix of whole path segments.

Real folders, symbolic links and moto's S3 server; the poll runs through the queue (the job fails
and says why on the watch) or with `watches.poll` and its `check` hook, which runs between the
listing and each file's read."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.errors import WatchForbiddenError
from tenderflow.handlers import build_job_types
from tenderflow.handlers.watch import poll_options
from tenderflow.pipeline import watches
from tenderflow.pipeline.storage import ObjectStorage, open_storage
from tenderflow.queue import Scheduler
from tenderflow.tenants.tenants import create_tenant
from tests.support.api_harness import RunningApi, api_settings, bearer, serve_in_thread, tenant_with_key
from tests.support.pipeline_harness import drain
from tests.support.s3_server import s3_bucket
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf

Conn = psycopg.Connection[Any]
AN_HOUR_AGO = time.time() - 3600


def secret_pdf(path: Path, title: str = "Secret beta bridge works") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text_pdf(path, [TENDER_PAGE, [title]])
    os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))
    return path


def documents_of(conn: Conn, tenant: str) -> list[str]:
    return [str(row[0]) for row in conn.execute(
        "SELECT filename FROM documents WHERE tenant = %s ORDER BY id", (tenant,)).fetchall()]


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return api_settings(database_url, tmp_path, watch_roots=f"{tmp_path / 'inbox' / '{tenant}'}",
                        watch_settle_seconds=0)


@pytest.fixture
def storage(tmp_path: Path) -> ObjectStorage:
    return open_storage((tmp_path / "objects").as_uri())


@pytest.fixture
def api(settings: Settings) -> Iterator[RunningApi]:
    with serve_in_thread(settings) as running:
        yield running


def watch_over_api(api: RunningApi, key: str, source: Path) -> int:
    made = api.client.post("/v1/watches", headers=bearer(key), json={"source": str(source), "settle_seconds": 0})
    assert made.status_code == 201, made.text
    return int(made.json()["id"])


def poll_through_the_queue(api: RunningApi, key: str, watch_id: int, pool: ConnectionPool,
                           settings: Settings) -> dict[str, Any]:
    assert api.client.post(f"/v1/watches/{watch_id}/poll", headers=bearer(key)).status_code == 202
    drain(pool, settings, api.services.storage)
    watch = api.client.get(f"/v1/watches/{watch_id}", headers=bearer(key))
    assert watch.status_code == 200
    return dict(watch.json())


def test_d_n1_a_watched_folder_swapped_for_a_link_to_another_tenants_inbox_is_refused_at_the_poll(
    api: RunningApi, conn: Conn, pool: ConnectionPool, settings: Settings, tmp_path: Path
) -> None:
    """D-N1, the review's W2: the watch is made on a real folder inside alpha's root, then the folder
    is replaced by a link to beta's; the poll must not leave alpha's root."""
    alpha = tenant_with_key(conn, "alpha")
    tenant_with_key(conn, "beta")
    inbox = tmp_path / "inbox"
    (inbox / "alpha" / "sub").mkdir(parents=True)
    secret_pdf(inbox / "beta" / "secret" / "beta-secret.pdf")
    watch_id = watch_over_api(api, alpha, inbox / "alpha" / "sub")

    (inbox / "alpha" / "sub").rmdir()
    (inbox / "alpha" / "sub").symlink_to(Path("..") / "beta" / "secret")
    watch = poll_through_the_queue(api, alpha, watch_id, pool, settings)

    assert documents_of(conn, "alpha") == [], "beta's file became alpha's document"
    assert "symbolic link" in (watch["last_error"] or ""), watch
    assert conn.execute("SELECT count(*) FROM watch_files").fetchone() == (0,)


def test_d_n1_a_parent_of_the_watched_folder_swapped_for_a_link_is_refused(
    api: RunningApi, conn: Conn, pool: ConnectionPool, settings: Settings, tmp_path: Path
) -> None:
    """D-N1: every component between the tenant's root and the watched folder is opened without
    following links, not only the last one."""
    alpha = tenant_with_key(conn, "alpha")
    inbox = tmp_path / "inbox"
    (inbox / "alpha" / "projects" / "bridges").mkdir(parents=True)
    secret_pdf(inbox / "beta" / "bridges" / "beta-secret.pdf")
    watch_id = watch_over_api(api, alpha, inbox / "alpha" / "projects" / "bridges")

    shutil.rmtree(inbox / "alpha" / "projects")
    (inbox / "alpha" / "projects").symlink_to(inbox / "beta")
    watch = poll_through_the_queue(api, alpha, watch_id, pool, settings)

    assert documents_of(conn, "alpha") == []
    assert "symbolic link" in (watch["last_error"] or ""), watch


def test_d_n1_a_folder_swapped_for_a_link_between_the_listing_and_the_read_is_not_followed(
    api: RunningApi, conn: Conn, storage: ObjectStorage, settings: Settings, tmp_path: Path
) -> None:
    """D-N1: the read opens each folder of the file's path under the watched folder's descriptor
    without following links, so a swap after the listing (same name, same size and time) reads
    nothing of beta's."""
    alpha = tenant_with_key(conn, "alpha")
    inbox = tmp_path / "inbox"
    mine = secret_pdf(inbox / "alpha" / "drop" / "2026" / "notice.pdf", "Alpha's own notice")
    theirs = secret_pdf(inbox / "beta" / "2026" / "notice.pdf")
    size = max(mine.stat().st_size, theirs.stat().st_size)
    for pdf in (mine, theirs):  # the same size and time as the file the listing saw: blank lines after %%EOF
        pdf.write_bytes(pdf.read_bytes().ljust(size, b"\n"))
        os.utime(pdf, (AN_HOUR_AGO, AN_HOUR_AGO))
    watch_id = watch_over_api(api, alpha, inbox / "alpha" / "drop")

    def swap() -> None:
        if (inbox / "alpha" / "drop" / "2026").is_symlink():
            return
        (inbox / "alpha" / "drop" / "2026").rename(inbox / "alpha" / "drop" / "moved")
        (inbox / "alpha" / "drop" / "2026").symlink_to(inbox / "beta" / "2026")

    summary = watches.poll(conn, storage, watch_id, poll_options(settings), check=swap)
    assert [d["path"] for d in summary.decisions] == ["2026/notice.pdf"]
    assert summary.decisions[0]["state"] == "waiting", summary.decisions
    assert documents_of(conn, "alpha") == [], "the read followed the link the listing did not see"


def test_d_n1_a_mount_point_inside_the_root_is_not_crossed(
    api: RunningApi, conn: Conn, pool: ConnectionPool, settings: Settings, tmp_path: Path
) -> None:
    """D-N1: a folder of another file system under the watched folder (a bind mount of beta's
    inbox) is not walked."""
    alpha = tenant_with_key(conn, "alpha")
    inbox = tmp_path / "inbox"
    secret_pdf(inbox / "beta" / "beta-secret.pdf")
    secret_pdf(inbox / "alpha" / "drop" / "own.pdf", "Alpha's own notice")
    (inbox / "alpha" / "drop" / "mounted").mkdir()
    tmpfs = tmp_path / "other-fs"
    tmpfs.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(tmpfs)],
                      capture_output=True).returncode != 0:
        pytest.skip("this machine does not let the tests mount a file system")
    try:
        secret_pdf(tmpfs / "beta-secret.pdf")
        subprocess.run(["mount", "--bind", str(tmpfs), str(inbox / "alpha" / "drop" / "mounted")], check=True)
        try:
            watch_id = watch_over_api(api, alpha, inbox / "alpha" / "drop")
            poll_through_the_queue(api, alpha, watch_id, pool, settings)
        finally:
            subprocess.run(["umount", str(inbox / "alpha" / "drop" / "mounted")], check=True)
    finally:
        subprocess.run(["umount", str(tmpfs)], check=True)
    assert documents_of(conn, "alpha") == ["own.pdf"]


def test_d_n1_an_operators_watch_through_a_link_keeps_working(
    conn: Conn, storage: ObjectStorage, database_url: str, tmp_path: Path
) -> None:
    """D-N1's fix must not break the operator's own watch made through a link to its folder (the link
    is resolved when the watch is made; below it nothing is followed)."""
    create_tenant(conn, "acme", unlimited=True)
    real = tmp_path / "mnt" / "share"
    secret_pdf(real / "notice.pdf", "Operator's notice")
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "inbox").symlink_to(real)
    settings = api_settings(database_url, tmp_path, watch_settle_seconds=0)
    watch = watches.create_watch(conn, Scheduler(build_job_types(settings)), tenant="acme",
                                 source=str(tmp_path / "srv" / "inbox"), settle_seconds=0)
    summary = watches.poll(conn, storage, watch.id, poll_options(settings))
    assert [(d["path"], d["state"]) for d in summary.decisions] == [("notice.pdf", "uploaded")]


def test_d_n6_an_s3_root_is_a_prefix_of_whole_segments() -> None:
    """D-N6, the review's W5: root s3://inbox/{tenant} (no trailing slash) must not let acme watch
    s3://inbox/acme-corp/…"""
    with pytest.raises(WatchForbiddenError):
        watches.check_within_roots("s3", "s3://inbox/acme-corp/secret/", "s3://inbox/{tenant}", "acme")
    with pytest.raises(WatchForbiddenError):
        watches.check_within_roots("s3", "s3://inbox/acme-corp", "s3://inbox/{tenant}/", "acme")
    watches.check_within_roots("s3", "s3://inbox/acme", "s3://inbox/{tenant}", "acme")
    watches.check_within_roots("s3", "s3://inbox/acme/in/", "s3://inbox/{tenant}", "acme")


def test_d_n6_an_s3_watch_lists_only_its_own_segment(
    conn: Conn, storage: ObjectStorage, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """D-N6: a watch of s3://bucket/acme (its tenant's whole root) lists acme/…, not acme-corp/…"""
    create_tenant(conn, "acme", unlimited=True)
    with s3_bucket(monkeypatch) as (endpoint, bucket, client):
        client.put_object(Bucket=bucket, Key="acme/own.pdf", Body=secret_pdf(tmp_path / "a.pdf", "Own").read_bytes())
        client.put_object(Bucket=bucket, Key="acme-corp/secret.pdf",
                          Body=secret_pdf(tmp_path / "b.pdf", "Someone else's").read_bytes())
        settings = api_settings(database_url, tmp_path, s3_endpoint_url=endpoint, s3_region="us-east-1")
        watch = watches.create_watch(conn, Scheduler(build_job_types(settings)), tenant="acme",
                                     source=f"s3://{bucket}/acme", settle_seconds=0)
        summary = watches.poll(conn, storage, watch.id, poll_options(settings))
    assert [(d["path"], d["state"]) for d in summary.decisions] == [("own.pdf", "uploaded")], summary.decisions


def test_n4_a_tenant_has_at_most_20_watches_polled_at_most_every_10_s(
    api: RunningApi, conn: Conn, tmp_path: Path
) -> None:
    """Review security-2, N4: every_seconds 0.001 was accepted (a poll every maintenance tick), and a
    tenant could make any number of watches (webhooks are capped at 20)."""
    alpha = tenant_with_key(conn, "alpha")
    inbox = tmp_path / "inbox" / "alpha"
    for number in range(21):
        (inbox / f"f{number}").mkdir(parents=True)
    often = api.client.post("/v1/watches", headers=bearer(alpha), json={"source": str(inbox / "f0"),
                                                                        "every_seconds": 0.001})
    assert often.status_code == 422 and "every_seconds" in often.json()["detail"], often.text
    made = [api.client.post("/v1/watches", headers=bearer(alpha), json={"source": str(inbox / f"f{n}")})
            for n in range(21)]
    assert [answer.status_code for answer in made] == [201] * 20 + [400], made[-1].text
    assert "the most it may have" in made[-1].json()["detail"]
    retimed = api.client.patch(f"/v1/watches/{made[0].json()['id']}", headers=bearer(alpha),
                               json={"every_seconds": 1})
    assert retimed.status_code == 422, retimed.text
