"""Object storage: the same behaviour from file:// and from S3 over real HTTP (moto's server)."""

from __future__ import annotations

import hashlib
import io
import os
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import psycopg
import pytest

from tenderflow.errors import ConfigurationError, StorageError, UploadRejectedError
from tenderflow.pipeline.storage import (
    FileStorage,
    ObjectStorage,
    S3Storage,
    object_key,
    open_storage,
)
from tests.support.s3_server import fake_aws_credentials, run_s3_server

SHA = hashlib.sha256(b"a tender").hexdigest()
UNSAFE_KEYS = [
    "",
    "../escape.pdf",
    "tenants/../../etc/passwd",
    "/etc/passwd",
    "tenants//double",
    "tenants/./x.pdf",
    "tenants/.tmp-abc",
    "tenants\\x.pdf",
    "tenants/x.pdf\x00",
    "tenants/a b.pdf",
    "x" * 1025,
]


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    with run_s3_server() as endpoint_url:
        yield endpoint_url


@pytest.fixture
def s3_bucket(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh bucket on the moto server (moto's state is shared by every test in the process)."""
    fake_aws_credentials(monkeypatch)
    bucket = f"tf-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    return bucket


@pytest.fixture(params=["file", "s3"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> ObjectStorage:
    if request.param == "file":
        return open_storage((tmp_path / "objects").as_uri())
    endpoint = request.getfixturevalue("s3_endpoint")
    bucket = request.getfixturevalue("s3_bucket")
    return open_storage(f"s3://{bucket}/some/prefix", endpoint_url=endpoint, region="us-east-1")


def write_file(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# --- keys ----------------------------------------------------------------------------------------


def test_object_key_is_tenant_and_content_hash_never_a_filename() -> None:
    assert object_key("acme-gmbh", SHA) == f"tenants/acme-gmbh/pdf/{SHA[:2]}/{SHA}.pdf"


@pytest.mark.parametrize("tenant", ["", "../other", "a/b", ".hidden", "-dash", "a b", "t" * 64, "ü"])
def test_object_key_refuses_tenant_that_is_not_a_safe_segment(tenant: str) -> None:
    with pytest.raises(ValueError, match="tenant"):
        object_key(tenant, SHA)


@pytest.mark.parametrize("digest", ["", SHA[:-1], SHA.upper(), "../" + SHA[3:], SHA[:-1] + "g"])
def test_object_key_refuses_anything_but_a_sha256_hex_digest(digest: str) -> None:
    with pytest.raises(ValueError, match="sha256"):
        object_key("acme", digest)


@pytest.mark.parametrize("key", UNSAFE_KEYS)
def test_storage_refuses_unsafe_keys_before_touching_the_backend(
    storage: ObjectStorage, key: str, tmp_path: Path
) -> None:
    source = write_file(tmp_path / "in.pdf", b"%PDF-1.7")
    for operation in (
        lambda: storage.put_file(key, source),
        lambda: storage.put_stream(key, io.BytesIO(b"x"), max_bytes=10),
        lambda: storage.download_to(key, tmp_path / "out.pdf"),
        lambda: storage.exists(key),
        lambda: storage.delete(key),
        lambda: storage.url_for(key),
    ):
        with pytest.raises(ValueError, match="key"):
            operation()
    assert not (tmp_path / "out.pdf").exists()


# --- behaviour shared by every backend -----------------------------------------------------------


def test_put_file_then_download_returns_the_same_bytes(storage: ObjectStorage, tmp_path: Path) -> None:
    data = os.urandom(300_000)
    key = object_key("acme", hashlib.sha256(data).hexdigest())
    storage.put_file(key, write_file(tmp_path / "upload.pdf", data))

    storage.download_to(key, tmp_path / "copy.pdf")

    assert (tmp_path / "copy.pdf").read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["copy.pdf", "upload.pdf"]


def test_exists_follows_put_and_delete(storage: ObjectStorage, tmp_path: Path) -> None:
    key = object_key("acme", SHA)
    assert not storage.exists(key)
    storage.put_file(key, write_file(tmp_path / "a.pdf", b"%PDF-1.7 a"))
    assert storage.exists(key)
    storage.delete(key)
    assert not storage.exists(key)
    storage.delete(key)  # deleting twice is not an error: retried cleanups must be idempotent


def test_put_replaces_an_existing_object(storage: ObjectStorage, tmp_path: Path) -> None:
    key = "tenants/acme/scratch/object.bin"
    storage.put_file(key, write_file(tmp_path / "old", b"old"))
    storage.put_stream(key, io.BytesIO(b"new bytes"), max_bytes=100)
    storage.download_to(key, tmp_path / "out")
    assert (tmp_path / "out").read_bytes() == b"new bytes"


def test_put_stream_stores_the_stream_and_returns_its_size(storage: ObjectStorage, tmp_path: Path) -> None:
    data = os.urandom(2_500_000)  # more than one copy chunk
    key = object_key("acme", hashlib.sha256(data).hexdigest())

    assert storage.put_stream(key, io.BytesIO(data), max_bytes=len(data)) == len(data)

    storage.download_to(key, tmp_path / "out.pdf")
    assert (tmp_path / "out.pdf").read_bytes() == data


def test_put_stream_over_the_cap_is_rejected_and_leaves_nothing(storage: ObjectStorage, tmp_path: Path) -> None:
    key = object_key("acme", SHA)
    with pytest.raises(UploadRejectedError, match="1000000 bytes"):
        storage.put_stream(key, io.BytesIO(b"x" * 1_000_001), max_bytes=1_000_000)
    assert not storage.exists(key)
    if isinstance(storage, FileStorage):
        assert [p for p in storage.root.rglob("*") if p.is_file()] == []


def test_download_of_a_missing_object_is_a_storage_error(storage: ObjectStorage, tmp_path: Path) -> None:
    key = object_key("acme", SHA)
    with pytest.raises(StorageError, match="no object at"):
        storage.download_to(key, tmp_path / "out.pdf")
    assert list(tmp_path.glob("out.pdf*")) == []


def test_url_for_names_the_backend(storage: ObjectStorage) -> None:
    key = object_key("acme", SHA)
    url = storage.url_for(key)
    assert url.endswith(key)
    assert url.startswith("file:///" if isinstance(storage, FileStorage) else "s3://")
    assert storage.description


# --- file:// -------------------------------------------------------------------------------------


def test_file_url_with_localhost_and_escaped_characters_opens_that_directory(tmp_path: Path) -> None:
    root = tmp_path / "with space"
    storage = open_storage("file://localhost" + root.as_uri().removeprefix("file://"))
    assert isinstance(storage, FileStorage)
    assert storage.root == root


@pytest.mark.parametrize("url", ["objects", "ftp://host/x", "file://otherhost/x", "file:relative/x"])
def test_open_storage_refuses_urls_that_name_no_storage(url: str) -> None:
    with pytest.raises(ConfigurationError):
        open_storage(url)


def test_failed_file_write_keeps_the_old_object_and_leaves_no_temp_file(tmp_path: Path) -> None:
    storage = FileStorage(tmp_path / "objects")
    key = object_key("acme", SHA)
    storage.put_file(key, write_file(tmp_path / "old.pdf", b"old object"))

    class BrokenUpload(io.RawIOBase):
        sent = False

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            if self.sent:
                raise ConnectionResetError("client went away")
            self.sent = True
            buffer[:4] = b"half"
            return 4

    with pytest.raises(StorageError, match="client went away"):
        storage.put_stream(key, io.BufferedReader(BrokenUpload()), max_bytes=1000)

    storage.download_to(key, tmp_path / "out.pdf")
    assert (tmp_path / "out.pdf").read_bytes() == b"old object"
    assert [p.name for p in storage.root.rglob("*") if p.is_file()] == [f"{SHA}.pdf"]


KILLED_WRITER = """
import sys, time
from pathlib import Path
from tenderflow.pipeline.storage import FileStorage

class SlowUpload:
    def __init__(self): self.sent = 0
    def read(self, size=-1):
        self.sent += 1
        if self.sent == 1:
            return b"first half of the object"
        print("half written", flush=True)
        time.sleep(60)
        return b""

FileStorage(Path(sys.argv[1])).put_stream(sys.argv[2], SlowUpload(), max_bytes=10**6)
"""


def test_a_writer_killed_mid_object_leaves_no_object_under_the_key(tmp_path: Path) -> None:
    root, key = tmp_path / "objects", object_key("acme", SHA)
    writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(root), key], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "half written"
        writer.send_signal(signal.SIGKILL)
    finally:
        writer.wait(timeout=10)

    assert not FileStorage(root).exists(key)
    leftovers = [p for p in root.rglob("*") if p.is_file()]
    # The half-written bytes exist only under a temp name no key can ever have.
    assert [p.name.startswith(".tmp-") for p in leftovers] == [True]


# --- s3:// ---------------------------------------------------------------------------------------


def test_s3_objects_live_under_the_configured_prefix(s3_endpoint: str, s3_bucket: str, tmp_path: Path) -> None:
    storage = open_storage(f"s3://{s3_bucket}/prod/pdfs/", endpoint_url=s3_endpoint, region="us-east-1")
    key = object_key("acme", SHA)
    storage.put_file(key, write_file(tmp_path / "a.pdf", b"%PDF-1.7"))

    listed = boto3.client("s3", endpoint_url=s3_endpoint).list_objects_v2(Bucket=s3_bucket)
    assert [item["Key"] for item in listed["Contents"]] == [f"prod/pdfs/{key}"]
    assert storage.url_for(key) == f"s3://{s3_bucket}/prod/pdfs/{key}"


def test_s3_big_file_goes_up_in_parts(s3_endpoint: str, s3_bucket: str, tmp_path: Path) -> None:
    storage = open_storage(f"s3://{s3_bucket}", endpoint_url=s3_endpoint, region="us-east-1")
    big = tmp_path / "big.pdf"
    with big.open("wb") as out:
        out.truncate(17 * 1024 * 1024)  # sparse: above the multipart threshold without writing 17 MiB
    storage.put_file("tenants/acme/big.pdf", big)

    head = boto3.client("s3", endpoint_url=s3_endpoint).head_object(Bucket=s3_bucket, Key="tenants/acme/big.pdf")
    assert head["ContentLength"] == big.stat().st_size
    assert head["ETag"].strip('"').endswith("-2"), "a multipart upload's ETag counts its parts"


def test_s3_missing_bucket_is_a_clear_storage_error(
    s3_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_aws_credentials(monkeypatch)
    storage = open_storage("s3://no-such-bucket-here", endpoint_url=s3_endpoint, region="us-east-1")
    key = object_key("acme", SHA)
    source = write_file(tmp_path / "a.pdf", b"%PDF-1.7")

    for operation in (
        lambda: storage.put_file(key, source),
        lambda: storage.put_stream(key, io.BytesIO(b"%PDF"), max_bytes=100),
        lambda: storage.exists(key),
        lambda: storage.download_to(key, tmp_path / "out.pdf"),
        lambda: storage.delete(key),
    ):
        with pytest.raises(StorageError, match="bucket 'no-such-bucket-here' does not exist"):
            operation()


def test_s3_unreachable_endpoint_is_a_clear_storage_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_aws_credentials(monkeypatch)
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{probe.getsockname()[1]}"
    storage = open_storage("s3://some-bucket", endpoint_url=endpoint, region="us-east-1")

    with pytest.raises(StorageError, match=f"cannot reach the S3 endpoint {endpoint}"):
        storage.exists(object_key("acme", SHA))


def test_s3_without_credentials_says_so(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_aws_credentials(monkeypatch)
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    storage = open_storage("s3://some-bucket", endpoint_url=s3_endpoint, region="us-east-1")

    with pytest.raises(StorageError, match="no usable S3 credentials"):
        storage.exists(object_key("acme", SHA))


@pytest.mark.parametrize("url", ["s3://", "s3://UPPER", "s3://ab", "s3://bucket/../up"])
def test_open_storage_refuses_unusable_s3_urls(url: str) -> None:
    with pytest.raises(ConfigurationError):
        open_storage(url)


def test_s3_storage_description_names_bucket_and_endpoint_without_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_aws_credentials(monkeypatch)
    storage = open_storage("s3://tenders/prod", endpoint_url="http://minio:9000", region="eu-central-1")
    assert isinstance(storage, S3Storage)
    assert storage.description == "S3 storage s3://tenders/prod at http://minio:9000, region eu-central-1"


# --- listing and the sweep of objects no document refers to ---------------------------------------


def test_list_objects_gives_keys_sizes_and_times_under_a_prefix(storage: ObjectStorage, tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    before = datetime.now(UTC) - timedelta(minutes=5)
    keys = {object_key("acme", SHA): b"one", object_key("acme", "b" * 64): b"three", object_key("beta", SHA): b"22"}
    for key, data in keys.items():
        storage.put_file(key, write_file(tmp_path / "x.pdf", data))
    listed = {obj.key: obj for obj in storage.list_objects("tenants/acme/")}
    assert set(listed) == {object_key("acme", SHA), object_key("acme", "b" * 64)}
    assert listed[object_key("acme", "b" * 64)].size == 5
    assert all(before < obj.modified < datetime.now(UTC) + timedelta(minutes=5) for obj in listed.values())
    assert {obj.key for obj in storage.list_objects("tenants/")} == set(keys)
    assert list(storage.list_objects("tenants/nobody/")) == []
    # A prefix that ends inside a name is a string prefix, as S3 has it, on file storage too.
    inside_a_name = object_key("acme", "b" * 64)[:-20]
    assert [obj.key for obj in storage.list_objects(inside_a_name)] == [object_key("acme", "b" * 64)]
    assert list(storage.list_objects(object_key("acme", "c" * 64)[:-20])) == []
    storage.delete(object_key("acme", SHA))
    assert {obj.key for obj in storage.list_objects("tenants/")} == set(keys) - {object_key("acme", SHA)}
    with pytest.raises(ValueError):
        list(storage.list_objects("../"))


def test_sweep_deletes_only_old_objects_no_document_refers_to(
    storage: ObjectStorage, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """D10: objects left by refused or cut-off uploads (no document row) stayed in storage for ever."""
    from datetime import timedelta

    from tenderflow.pipeline.orphans import sweep_orphans
    from tenderflow.pipeline.uploads import UploadPolicy, object_locked, upload_file
    from tenderflow.tenants.tenants import create_tenant
    from tests.support.tender_fixtures import TENDER_PAGE, text_pdf

    create_tenant(conn, "acme", unlimited=True)
    kept = upload_file(conn, storage, text_pdf(tmp_path / "kept.pdf", [TENDER_PAGE]),
                       UploadPolicy(tenant="acme", max_bytes=1_000_000))
    assert kept.document_id is not None
    orphan, held = object_key("acme", "a" * 64), object_key("acme", "c" * 64)
    storage.put_file(orphan, write_file(tmp_path / "o.pdf", b"%PDF-orphan"))
    storage.put_file(held, write_file(tmp_path / "h.pdf", b"%PDF-held"))
    storage.put_file("elsewhere/not-a-pdf-key", write_file(tmp_path / "e.bin", b"other"))
    now = conn.execute("SELECT now()").fetchone()[0]  # type: ignore[index]

    young = sweep_orphans(conn, storage, grace_seconds=3600, now=now)
    assert young.as_dict() == {"listed": 3, "referenced": 1, "young": 2, "busy": 0, "deleted": 0, "deleted_bytes": 0}

    later = now + timedelta(hours=2)
    dry = sweep_orphans(conn, storage, grace_seconds=3600, now=later, dry_run=True)
    assert sorted(dry.deleted) == [orphan, held] and storage.exists(orphan)
    with psycopg.connect(conn.info.dsn, autocommit=True) as upload_conn, object_locked(upload_conn, "acme", "c" * 64):
        swept = sweep_orphans(conn, storage, grace_seconds=3600, now=later)  # an upload holds `held`
    assert swept.deleted == [orphan] and swept.busy == 1 and swept.deleted_bytes == len(b"%PDF-orphan")
    assert not storage.exists(orphan) and storage.exists(held)
    assert sweep_orphans(conn, storage, grace_seconds=3600, now=later).deleted == [held]
    kept_key = object_key("acme", conn.execute("SELECT sha256 FROM documents").fetchone()[0])  # type: ignore[index]
    assert storage.exists(kept_key)
    assert {obj.key for obj in storage.list_objects("elsewhere/")} == {"elsewhere/not-a-pdf-key"}


def test_an_object_an_upload_is_storing_is_kept_by_the_sweep_and_by_a_deletion(
    storage: ObjectStorage, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """Review security-2, D-N2: an upload stores its object holding no connection, so no lock; its
    `object_uploads` row keeps the object from the sweep and from a deleted document's
    storage.delete until the row ends (or is an hour old: its process died)."""
    from datetime import timedelta

    from tenderflow.pipeline.deletion import delete_stored_object
    from tenderflow.pipeline.orphans import sweep_orphans

    key = object_key("acme", "d" * 64)
    storage.put_file(key, write_file(tmp_path / "u.pdf", b"%PDF-being-uploaded"))
    conn.execute("INSERT INTO object_uploads (tenant, sha256) VALUES ('acme', %s)", ("d" * 64,))
    later = conn.execute("SELECT now() + interval '2 hours'").fetchone()[0]  # type: ignore[index]
    swept = sweep_orphans(conn, storage, grace_seconds=3600, now=later)
    assert swept.deleted == [] and swept.referenced == 1 and storage.exists(key)
    assert delete_stored_object(conn, storage, tenant="acme", sha256="d" * 64) is False and storage.exists(key)
    conn.execute("UPDATE object_uploads SET started_at = now() - %s", (timedelta(hours=2),))
    assert delete_stored_object(conn, storage, tenant="acme", sha256="d" * 64) is True and not storage.exists(key)


def test_storage_sweep_command(database_url: str, conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from tenderflow.cli import app
    from tenderflow.logs import configure_logging

    storage = open_storage((tmp_path / "objects").as_uri())
    storage.put_file(object_key("default", SHA), write_file(tmp_path / "o.pdf", b"%PDF-orphan"))
    env = {"DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri()}
    try:
        young = CliRunner().invoke(app, ["storage", "sweep"], env=env)
        assert young.exit_code == 0, young.output
        assert "1 younger than 3600 s" in young.output and "deleted 0" in young.output
        swept = CliRunner().invoke(app, ["storage", "sweep", "--grace-seconds", "0", "--json"], env=env)
        assert swept.exit_code == 0, swept.output
        assert '"deleted": 1' in swept.output and not storage.exists(object_key("default", SHA))
    finally:
        configure_logging(level="WARNING")
