"""Where uploaded PDFs live: one `ObjectStorage` interface over S3-compatible buckets and local files.

    open_storage("s3://bucket/prefix", endpoint_url=…, region=…)   AWS, MinIO, R2, … via boto3
    open_storage("file:///var/lib/tenderflow/objects")             the embedded default

Objects are keyed by tenant and content hash (`object_key`), never by a user's filename, so the same
PDF uploaded twice is one object and no user text ever becomes a path. Every key is validated before
it touches a backend. Failures of boto3 or the OS surface as `StorageError` saying what failed; an
upload over its size cap surfaces as `UploadRejectedError` and leaves nothing behind.

Credentials for S3 come from boto3's standard chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a
profile, an instance role); tenderflow never handles them itself.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Protocol, runtime_checkable
from urllib.parse import unquote, urlsplit

from tenderflow.errors import ConfigurationError, StorageError, UploadRejectedError
from tenderflow.tenants.tenants import validate_tenant_name

# A key is '/'-separated segments of these characters. No segment may start with '.', which rules out
# '.' and '..' and also keeps keys disjoint from the '.tmp-…' names file storage writes before
# renaming, so a leftover temp file can never be mistaken for an object.
_KEY_SEGMENT = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]*")
_MAX_KEY_LENGTH = 1024  # S3's limit, applied to file storage too so both accept the same keys
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
# Bucket names as S3 accepts them for path-style and virtual-host addressing alike.
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]")

_COPY_CHUNK_BYTES = 1024 * 1024


def object_key(tenant: str, sha256_hex: str) -> str:
    """The storage key of a tenant's PDF with this content hash: `tenants/{tenant}/pdf/ab/abcd….pdf`.

    The two-character fan-out keeps any one directory (file storage) or listing prefix small.
    Raises ValueError for a tenant that is not a safe path segment or a hash that is not sha256 hex.
    """
    validate_tenant_name(tenant)
    if not _SHA256_HEX.fullmatch(sha256_hex):
        raise ValueError(f"{sha256_hex!r} is not a lowercase hex sha256 digest")
    return f"tenants/{tenant}/pdf/{sha256_hex[:2]}/{sha256_hex}.pdf"


def derived_prefix(tenant: str, sha256_hex: str) -> str:
    """The key prefix of what is made from a tenant's PDF with this content hash (its searchable
    copies, one per pages version: `searchable_key`). They live and go with that PDF: a deletion
    removes them with it, the storage sweep counts them referenced while the PDF is."""
    validate_tenant_name(tenant)
    if not _SHA256_HEX.fullmatch(sha256_hex):
        raise ValueError(f"{sha256_hex!r} is not a lowercase hex sha256 digest")
    return f"tenants/{tenant}/searchable/{sha256_hex[:2]}/{sha256_hex}-"


def searchable_key(tenant: str, sha256_hex: str, pages_version: int) -> str:
    """The storage key of the searchable copy made from one pages version of a tenant's PDF."""
    return f"{derived_prefix(tenant, sha256_hex)}v{pages_version}.pdf"


def validate_key(key: str) -> str:
    """Return `key` unchanged if it is a relative '/'-separated key with safe segments, else raise ValueError.

    Refused: empty keys, absolute paths, backslashes, empty/'.'/'..'/dot-leading segments, and any
    character outside A-Z a-z 0-9 _ - . in a segment.
    """
    if not key or len(key) > _MAX_KEY_LENGTH:
        raise ValueError(f"storage key must be 1-{_MAX_KEY_LENGTH} characters, got {len(key)}")
    segments = key.split("/")
    if not all(_KEY_SEGMENT.fullmatch(segment) for segment in segments):
        raise ValueError(
            f"unsafe storage key {key!r}: expected relative segments of A-Z a-z 0-9 _ - . not starting with '.'"
        )
    return key


@dataclass(frozen=True)
class StoredObject:
    """One object as a listing sees it."""

    key: str
    size: int
    modified: datetime  # timezone-aware (UTC)


@runtime_checkable
class ObjectStorage(Protocol):
    """A flat namespace of immutable-by-convention objects addressed by validated keys.

    Every method raises ValueError for an invalid key and StorageError when the backend fails.
    """

    @property
    def description(self) -> str:
        """Where objects go, for logs (never contains credentials)."""
        ...

    def put_file(self, key: str, path: Path, *, consume: bool = False) -> None:
        """Store the file at `path` under `key`, streaming from disk; an existing object is replaced.
        `consume`: the caller is done with the file (a package's unpacked member), so a file storage on
        the same filesystem moves it into place instead of copying it."""
        ...

    def put_stream(self, key: str, fileobj: IO[bytes], *, max_bytes: int) -> int:
        """Store everything `fileobj` yields under `key` and return the byte count.

        Raises UploadRejectedError, with nothing stored under `key`, if the stream exceeds `max_bytes`.
        """
        ...

    def download_to(self, key: str, path: Path) -> None:
        """Write the object to `path` (replaced whole, never left half-written); StorageError if missing."""
        ...

    def exists(self, key: str) -> bool:
        """Whether an object is stored under `key`."""
        ...

    def delete(self, key: str) -> None:
        """Remove the object; deleting a missing object is not an error."""
        ...

    def list_objects(self, prefix: str) -> Iterator[StoredObject]:
        """The objects whose keys start with `prefix` (a key, or a key and a trailing '/'), in no
        promised order, each with its size and last modification; listing is lazy (S3: by pages)."""
        ...

    def url_for(self, key: str) -> str:
        """The object's location as an `s3://` or `file://` URL, for logs and operators."""
        ...


def open_storage(url: str, *, endpoint_url: str | None = None, region: str | None = None) -> ObjectStorage:
    """The storage a URL names: `s3://bucket[/prefix]` or `file:///absolute/path`.

    `endpoint_url` and `region` apply to s3:// only (set `endpoint_url` for MinIO, R2, …). Opening
    makes no network call and creates no directory; the first operation does. Raises
    ConfigurationError for a URL that cannot name a storage (unknown scheme, relative path, bad
    bucket name).
    """
    parts = urlsplit(url)
    if parts.scheme == "s3":
        return S3Storage(bucket=parts.netloc, prefix=parts.path.strip("/"), endpoint_url=endpoint_url, region=region)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise ConfigurationError(f"file storage URL {url!r} names host {parts.netloc!r}; use file:///path")
        root = Path(unquote(parts.path))
        if not root.is_absolute():
            raise ConfigurationError(f"file storage URL {url!r} must hold an absolute path (file:///…)")
        return FileStorage(root)
    raise ConfigurationError(f"storage URL {url!r} must start with s3:// or file://")


# --- file:// -------------------------------------------------------------------------------------


class FileStorage:
    """Objects as files under a root directory, each written whole (temp file, fsync, rename)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def description(self) -> str:
        return f"file storage at {self.root}"

    def _path(self, key: str) -> Path:
        return self.root.joinpath(*validate_key(key).split("/"))

    def put_file(self, key: str, path: Path, *, consume: bool = False) -> None:
        target = self._path(key)
        if consume and self._move(path, target):
            return
        try:
            with open(path, "rb") as source, _atomic_file(target) as sink:
                shutil.copyfileobj(source, sink, _COPY_CHUNK_BYTES)
        except OSError as exc:
            raise StorageError(f"storing {path} as {self.url_for(key)} failed: {exc}") from exc

    @staticmethod
    def _move(path: Path, target: Path) -> bool:
        """Move `path` into place as `atomic_file` would have written it (the bytes synced, renamed, the
        directory synced); False when it is on another filesystem (then it is copied)."""
        try:
            os.chmod(path, 0o600)  # as mkstemp makes the objects written through _atomic_file
            with open(path, "rb") as source:
                os.fsync(source.fileno())
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
        except OSError as exc:
            if exc.errno == errno.EXDEV:
                return False
            raise StorageError(f"storing {path} as {target.as_uri()} failed: {exc}") from exc
        _fsync_directory(target.parent)
        return True

    def put_stream(self, key: str, fileobj: IO[bytes], *, max_bytes: int) -> int:
        target = self._path(key)
        try:
            with _atomic_file(target) as sink:
                return _copy_capped(fileobj, sink, max_bytes=max_bytes)
        except OSError as exc:
            raise StorageError(f"storing upload as {self.url_for(key)} failed: {exc}") from exc

    def download_to(self, key: str, path: Path) -> None:
        source_path = self._path(key)
        try:
            with open(source_path, "rb") as source, _atomic_file(path) as sink:
                shutil.copyfileobj(source, sink, _COPY_CHUNK_BYTES)
        except FileNotFoundError as exc:
            if not source_path.exists():
                raise StorageError(f"no object at {self.url_for(key)}") from exc
            raise StorageError(f"copying {self.url_for(key)} to {path} failed: {exc}") from exc
        except OSError as exc:
            raise StorageError(f"copying {self.url_for(key)} to {path} failed: {exc}") from exc

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def delete(self, key: str) -> None:
        try:
            self._path(key).unlink(missing_ok=True)
        except OSError as exc:
            raise StorageError(f"deleting {self.url_for(key)} failed: {exc}") from exc

    def url_for(self, key: str) -> str:
        return self._path(key).as_uri()

    def list_objects(self, prefix: str) -> Iterator[StoredObject]:
        validate_key(prefix.rstrip("/"))
        start = self.root.joinpath(*prefix.rstrip("/").split("/"))
        if start.is_file():
            candidates: Iterator[Path] = iter([start])
        elif prefix.endswith("/") or start.is_dir():
            candidates = start.rglob("*")
        elif start.parent.is_dir():  # a prefix that ends inside a name, as S3 takes it: that folder's names
            candidates = (path for path in start.parent.iterdir() if path.name.startswith(start.name))
        else:
            candidates = iter([])
        try:
            for path in candidates:
                if path.name.startswith(".") or not path.is_file():
                    continue  # a write in progress ('.tmp-…') is no object yet
                key = path.relative_to(self.root).as_posix()
                if not key.startswith(prefix):
                    continue
                with contextlib.suppress(FileNotFoundError):  # deleted while listing
                    info = path.stat()
                    yield StoredObject(key, info.st_size, datetime.fromtimestamp(info.st_mtime, UTC))
        except OSError as exc:
            raise StorageError(f"listing {self.url_for(prefix.rstrip('/'))} failed: {exc}") from exc


@contextlib.contextmanager
def _atomic_file(target: Path) -> Iterator[IO[bytes]]:
    """A writable file that appears at `target` whole, only if the block exits normally.

    The bytes go to a temp file in the same directory (so os.replace is an atomic rename on one
    filesystem), are fsynced before the rename, and the directory is fsynced after it, so a crash at
    any point leaves either the old object or the new one under `target`, never a torn one.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    # Created as open() creates a file (0666 less the umask), not mkstemp's 0600: a stored PDF, or one
    # downloaded with `tenderflow download`, is a file like any other to the people sharing the folder.
    temp_name = str(target.parent / f".tmp-{uuid.uuid4().hex}")
    fd = os.open(temp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as sink:
            yield sink
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    _fsync_directory(target.parent)


def _fsync_directory(directory: Path) -> None:
    # The rename is durable only once the directory entry is; not every platform can open a directory.
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _copy_capped(source: IO[bytes], sink: IO[bytes], *, max_bytes: int) -> int:
    """Copy `source` to `sink`, raising UploadRejectedError as soon as more than `max_bytes` arrive."""
    copied = 0
    while chunk := source.read(_COPY_CHUNK_BYTES):
        copied += len(chunk)
        if copied > max_bytes:
            raise UploadRejectedError(f"upload is larger than the limit of {max_bytes} bytes")
        sink.write(chunk)
    return copied


# --- s3:// ---------------------------------------------------------------------------------------


class S3Storage:
    """Objects in an S3-compatible bucket under an optional key prefix, through one boto3 client.

    boto3 clients are thread-safe, so one instance serves every worker thread.
    """

    def __init__(
        self, *, bucket: str, prefix: str = "", endpoint_url: str | None = None, region: str | None = None
    ) -> None:
        if not _BUCKET.fullmatch(bucket):
            raise ConfigurationError(f"{bucket!r} is not a valid S3 bucket name (s3://bucket/prefix)")
        if prefix:
            try:
                validate_key(prefix)
            except ValueError as exc:
                raise ConfigurationError(f"S3 key prefix {prefix!r} is not usable: {exc}") from exc
        self.bucket = bucket
        self.prefix = prefix
        self.endpoint_url = endpoint_url
        self.region = region
        self._client = _make_s3_client(endpoint_url=endpoint_url, region=region)
        self._transfer_config = _make_transfer_config()

    @property
    def description(self) -> str:
        where = f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"
        endpoint = self.endpoint_url or "AWS"
        region = f", region {self.region}" if self.region else ""
        return f"S3 storage {where} at {endpoint}{region}"

    def _full_key(self, key: str) -> str:
        validate_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def url_for(self, key: str) -> str:
        return f"s3://{self.bucket}/{self._full_key(key)}"

    def put_file(self, key: str, path: Path, *, consume: bool = False) -> None:
        full_key = self._full_key(key)
        if not path.is_file():
            raise StorageError(f"storing {path} as {self.url_for(key)} failed: no such file")
        try:
            # upload_file switches to a multipart upload above the threshold and aborts it on failure.
            self._client.upload_file(str(path), self.bucket, full_key, Config=self._transfer_config)
        except Exception as exc:
            raise self._storage_error(f"storing {path} as {self.url_for(key)}", exc) from exc

    def put_stream(self, key: str, fileobj: IO[bytes], *, max_bytes: int) -> int:
        full_key = self._full_key(key)
        # Spool to local disk first: the cap is enforced before any byte reaches the bucket, so an
        # oversized upload cannot leave an object or an orphaned multipart upload behind.
        with tempfile.TemporaryFile() as spool:
            try:
                size = _copy_capped(fileobj, spool, max_bytes=max_bytes)
                spool.seek(0)
            except OSError as exc:
                raise StorageError(f"spooling upload for {self.url_for(key)} failed: {exc}") from exc
            try:
                self._client.upload_fileobj(spool, self.bucket, full_key, Config=self._transfer_config)
            except Exception as exc:
                raise self._storage_error(f"storing upload as {self.url_for(key)}", exc) from exc
        return size

    def download_to(self, key: str, path: Path) -> None:
        full_key = self._full_key(key)
        try:
            # download_file writes to a temp name beside `path` and renames it when complete.
            self._client.download_file(self.bucket, full_key, str(path), Config=self._transfer_config)
        except Exception as exc:
            if _s3_error_code(exc) in ("404", "NoSuchKey"):
                self._raise_if_bucket_missing()
                raise StorageError(f"no object at {self.url_for(key)}") from exc
            raise self._storage_error(f"downloading {self.url_for(key)} to {path}", exc) from exc

    def exists(self, key: str) -> bool:
        full_key = self._full_key(key)
        try:
            self._client.head_object(Bucket=self.bucket, Key=full_key)
        except Exception as exc:
            if _s3_error_code(exc) in ("404", "NoSuchKey"):
                # HEAD responses carry no error body, so a missing bucket also looks like a plain 404.
                self._raise_if_bucket_missing()
                return False
            raise self._storage_error(f"checking {self.url_for(key)}", exc) from exc
        return True

    def delete(self, key: str) -> None:
        full_key = self._full_key(key)
        try:
            self._client.delete_object(Bucket=self.bucket, Key=full_key)
        except Exception as exc:
            raise self._storage_error(f"deleting {self.url_for(key)}", exc) from exc

    def list_objects(self, prefix: str) -> Iterator[StoredObject]:
        validate_key(prefix.rstrip("/"))
        own = f"{self.prefix}/" if self.prefix else ""
        try:
            pages = self._client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=own + prefix)
            for page in pages:
                for item in page.get("Contents", []):
                    modified = item["LastModified"]
                    yield StoredObject(str(item["Key"])[len(own):], int(item["Size"]),
                                       modified if modified.tzinfo else modified.replace(tzinfo=UTC))
        except StorageError:
            raise
        except Exception as exc:
            raise self._storage_error(f"listing s3://{self.bucket}/{own}{prefix}", exc) from exc

    def _raise_if_bucket_missing(self) -> None:
        """Turn an ambiguous 404 into 'bucket missing' when that is the cause; otherwise do nothing."""
        try:
            self._client.head_bucket(Bucket=self.bucket)
        except Exception as exc:
            if _s3_error_code(exc) in ("404", "NoSuchBucket"):
                raise self._storage_error(f"using bucket {self.bucket!r}", exc) from exc
            # Any other answer (e.g. no s3:ListBucket permission) says nothing about the bucket; the
            # caller's own 404 stands.

    def _storage_error(self, action: str, exc: BaseException) -> StorageError:
        return StorageError(f"{action} failed: {_explain_s3_failure(exc, self)}")


def s3_client(*, endpoint_url: str | None = None, region: str | None = None) -> Any:
    """A boto3 S3 client configured as the storage's own (timeouts, retries, path-style addressing
    for S3-compatible endpoints), for code that reads buckets other than the storage (watched S3
    prefixes, whose keys are the uploader's, not `validate_key`'s)."""
    return _make_s3_client(endpoint_url=endpoint_url, region=region)


def _make_s3_client(*, endpoint_url: str | None, region: str | None) -> Any:
    import boto3
    from botocore.config import Config

    options: dict[str, Any] = {
        "connect_timeout": 10,
        "read_timeout": 60,
        # 'standard' retries throttling and connection errors with capped backoff; three attempts keep
        # an unreachable endpoint from stalling a worker for minutes.
        "retries": {"mode": "standard", "max_attempts": 3},
    }
    if endpoint_url:
        # S3-compatible servers (MinIO, R2, moto, …) generally serve buckets by path, not by
        # bucket.host names, and several reject the CRC checksums boto3 sends by default since 1.36.
        options["s3"] = {"addressing_style": "path"}
        options["request_checksum_calculation"] = "when_required"
        options["response_checksum_validation"] = "when_required"
    # A session per storage: the default session boto3.client() uses is shared and not thread-safe.
    session = boto3.session.Session()
    return session.client("s3", endpoint_url=endpoint_url, region_name=region, config=Config(**options))


def _make_transfer_config() -> Any:
    from boto3.s3.transfer import TransferConfig

    return TransferConfig(multipart_threshold=16 * 1024 * 1024, multipart_chunksize=16 * 1024 * 1024)


def _exception_chain(exc: BaseException) -> Iterator[BaseException]:
    # boto3 wraps upload ClientErrors in S3UploadFailedError without `from`, so look at the context too.
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _s3_error_code(exc: BaseException) -> str | None:
    """The S3 error code ('NoSuchBucket', 'AccessDenied', '404', …) anywhere in the chain, if any."""
    from botocore.exceptions import ClientError

    for link in _exception_chain(exc):
        if isinstance(link, ClientError):
            code = link.response.get("Error", {}).get("Code")
            return str(code) if code is not None else None
    return None


def _explain_s3_failure(exc: BaseException, storage: S3Storage) -> str:
    """One sentence naming the cause an operator can act on, with the original text after it."""
    from botocore.exceptions import (
        ConnectTimeoutError,
        EndpointConnectionError,
        NoCredentialsError,
        PartialCredentialsError,
        ReadTimeoutError,
    )

    endpoint = storage.endpoint_url or "AWS S3"
    code = _s3_error_code(exc)
    original = str(exc)
    for link in _exception_chain(exc):
        if isinstance(link, EndpointConnectionError | ConnectTimeoutError):
            return f"cannot reach the S3 endpoint {endpoint} ({link})"
        if isinstance(link, ReadTimeoutError):
            return f"the S3 endpoint {endpoint} did not answer in time ({link})"
        if isinstance(link, NoCredentialsError | PartialCredentialsError):
            return (
                "no usable S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                f"AWS_PROFILE, or an instance role ({link})"
            )
    # A bare "404" reaches here only from HeadBucket: object-level 404s are handled by the callers.
    if code in ("NoSuchBucket", "404"):
        return f"bucket {storage.bucket!r} does not exist at {endpoint} ({original})"
    if code in ("AccessDenied", "403", "AllAccessDisabled"):
        return f"access denied to bucket {storage.bucket!r} at {endpoint}: check the credentials' policy ({original})"
    if code in ("InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken"):
        return f"the S3 credentials were rejected by {endpoint} ({original})"
    if code in ("PermanentRedirect", "AuthorizationHeaderMalformed"):
        return f"bucket {storage.bucket!r} is in another region than {storage.region!r} ({original})"
    return original
