"""Watched folders and S3 prefixes: files dropped there become the tenant's documents, once each.

    create_watch(conn, scheduler, tenant="acme", source="/srv/inbox/acme", interval_seconds=60)
        a `watches` row, and its recurring schedule 'watch:<id>' on the queue (job type watch.poll)
    poll(conn, storage, watch_id, options)      one pass over the source (what a watch.poll job runs)

What one poll does, file by file (oldest first, at most `options.files_per_poll` taken per poll):

- a file whose size and modification time are the ones already decided on is left alone: each
  file is looked at once (a changed file is a new file, looked at again);
- hidden and temporary names (`.x`, `~x`, `*.part`, `*.partial`, `*.tmp`, `*.crdownload`,
  `*.download`, `*.filepart`) are skipped: they are how copies in progress are usually named;
- a file changed less than `settle_seconds` ago is left `waiting`, and so is one that does not end
  with a PDF's `%%EOF` marker until it has stayed unchanged for twice that, and an earlier poll saw
  it so (a copy that paused midway) — a file still being written is not taken half-way. It is read
  into a spool file, and if it changed while being read, it waits for the next poll;
- a bad file (empty, not a PDF, over the upload cap, a symbolic link, not a regular file, on
  another file system, unreadable) is `rejected` with the reason, logged once, and not tried again unless it changes;
- the rest are uploaded as `tenderflow upload` does (tenderflow.pipeline.uploads.upload_file): the
  same bytes already uploaded by the tenant give the existing document (`existing`), deduplicated
  by SHA-256, so a file copied twice, or under two names, is one document. An upload the tenant
  cannot pay for, or that would pass its storage quota, leaves the file `waiting` (and ends the
  poll: the next ones would be refused the same way).

Every decision is written as soon as it is made, so a poll cut short (its worker killed) loses
nothing: the next poll carries on, and a file uploaded just before the cut is found `existing`.
Only one poll of a watch runs at a time (an advisory lock); a second one finds it held and ends.

A folder watch never leaves its root (review security-2, D-N1): each listing and each read opens
the root by its real path and every folder below it with O_NOFOLLOW under its parent's descriptor,
on the root's file system (FolderSource), so a folder swapped for a symbolic link, before a poll or
during one, fails the poll or leaves the file waiting; it is never followed. An S3 prefix is whole
path segments (D-N6).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final, Protocol
from urllib.parse import urlsplit

import psycopg
import structlog
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from tenderflow.errors import (
    InsufficientCreditsError,
    RetryableError,
    StorageError,
    StorageQuotaExceededError,
    UploadRejectedError,
    WatchError,
    WatchForbiddenError,
    WatchNotFoundError,
)
from tenderflow.ids import sha256_of
from tenderflow.pipeline.storage import ObjectStorage, s3_client
from tenderflow.pipeline.uploads import PDF_MAGIC, UploadPolicy, check_languages, upload_file
from tenderflow.queue import Schedule, Scheduler
from tenderflow.sqlfiles import NamedQueries
from tenderflow.tenants.tenants import get_tenant

QUERIES = NamedQueries("tenderflow.pipeline", "watches.sql")

log = structlog.get_logger("tenderflow.watch")

JOB_WATCH_POLL: Final = "watch.poll"
DEFAULT_INTERVAL_SECONDS: Final = 60.0
MIN_INTERVAL_SECONDS: Final = 10.0
"""The shortest interval a tenant may poll its watch at over the API (review security-2, N4)."""
MAX_WATCHES_PER_TENANT: Final = 20
"""Watches a tenant may have, as it may have webhook endpoints (review security-2, N4)."""
FILE_STATES: Final = ("waiting", "uploaded", "existing", "rejected")
TEMPORARY_SUFFIXES: Final = (".part", ".partial", ".tmp", ".crdownload", ".download", ".filepart")
EOF_MARKER: Final = b"%%EOF"
_TAIL_BYTES: Final = 2048  # readers accept up to 1 KiB of junk after %%EOF; look a little further
_BUCKET_NAME: Final = r"[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]"


def schedule_name(watch_id: int) -> str:
    return f"watch:{watch_id}"


# --- sources ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeenFile:
    """A file as a listing sees it: its path under the source, its fingerprint, what it is."""

    path: str
    size: int
    modified_at: datetime
    regular: bool = True
    link: bool = False
    elsewhere: bool = False  # on another file system than the watch's root (a file bind-mounted there)


class Source(Protocol):
    def files(self) -> Iterator[SeenFile]:
        """Every file under the source (temporary and hidden names already left out)."""
        ...

    def fetch(self, seen: SeenFile, target: Path) -> bool:
        """Copy the file's bytes to `target`; False when it changed (or went) while being read."""
        ...


def _temporary(name: str) -> bool:
    return name.startswith((".", "~")) or name.lower().endswith(TEMPORARY_SUFFIXES)


_DIRECTORY_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)
MAX_FOLDER_DEPTH: Final = 32
"""Folders deeper than this under a watched folder are not walked (nor is a tree made to exhaust the poll)."""


class _OutsideRootError(Exception):
    """A path component that would lead out of the watch's root: a link, '..', another file system."""


def _open_below(parent: int, name: str, device: int | None) -> int:
    """The folder `name` inside the open folder `parent`, opened without following a link and, when
    `device` is given, only on that file system (the root's). Raises _OutsideRootError for a link, '..' or
    another file system; FileNotFoundError / NotADirectoryError for what is missing or not a folder."""
    if name in ("", ".", "..") or "/" in name or "\x00" in name:
        raise _OutsideRootError(f"{name!r} is not a folder's name")
    try:
        child = os.open(name, _DIRECTORY_FLAGS, dir_fd=parent)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        try:
            link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
        except OSError:
            link = False
        if link or exc.errno == errno.ELOOP:
            raise _OutsideRootError(f"{name} is a symbolic link") from exc
        raise
    if device is not None and os.fstat(child).st_dev != device:
        os.close(child)
        raise _OutsideRootError(f"{name} is on another file system (a mount point)")
    return child


def _open_path(start: int, parts: Sequence[str], device: int | None) -> int:
    """The folder at `parts` under the open folder `start` (left open), each component opened by
    _open_below under the previous one. Raises what _open_below raises; leaks no descriptor."""
    fd = os.dup(start)
    for part in parts:
        parent = fd
        try:
            fd = _open_below(parent, part, device)
        finally:
            os.close(parent)
    return fd


def _open_real_path(path: Path) -> int:
    """`path` (absolute, its links resolved when the watch was made) opened from / component by
    component without following any link: a link put in its way since is refused (_OutsideRootError). Mount
    points on the way are the operator's and are crossed."""
    top = os.open("/", _DIRECTORY_FLAGS)
    try:
        return _open_path(top, path.parts[1:], None)
    finally:
        os.close(top)


class FolderSource:
    """A folder on this machine, walked recursively, that may not leave its watch's `root`.

    Every use (each listing, each read) starts again from the root: the root is opened by its real
    path following no link, then each folder down to the watched one, to every folder walked and to
    each file is opened under its parent's descriptor with O_NOFOLLOW, on the root's file system.
    A folder swapped for a symbolic link, before a poll or between its listing and its reads, or a
    file system mounted below the root, is never entered: a swap cannot win a race against a check
    because there is no check apart from the open. Files that are links are listed (and rejected),
    never read."""

    def __init__(self, source: Path, root: Path | None = None) -> None:
        self.source = source
        self.root = root if root is not None else source
        try:
            self.below_root = source.relative_to(self.root).parts
        except ValueError as exc:
            raise WatchForbiddenError(f"the watched folder {source} is not inside its root {self.root}") from exc

    def _refused(self, why: str) -> WatchForbiddenError:
        return WatchForbiddenError(f"the watched folder {self.source} cannot be read inside {self.root}: {why}; "
                                   "a watch follows no symbolic link and stays on its root's file system")

    def _open_source(self) -> tuple[int, int]:
        """The watched folder's descriptor, reached from the root as the class says; and the root's device."""
        missing = RetryableError(f"the watched folder {self.source} does not exist here, or is not a folder "
                                 "(is it mounted on this worker?)")
        try:
            root = _open_real_path(self.root)
        except _OutsideRootError as exc:
            raise self._refused(f"its root's path now passes through a link ({exc})") from exc
        except (FileNotFoundError, NotADirectoryError) as exc:
            raise missing from exc
        try:
            device = os.fstat(root).st_dev
            return _open_path(root, self.below_root, device), device
        except _OutsideRootError as exc:
            raise self._refused(str(exc)) from exc
        except (FileNotFoundError, NotADirectoryError) as exc:
            raise missing from exc
        finally:
            os.close(root)

    def files(self) -> Iterator[SeenFile]:
        top, device = self._open_source()
        try:
            yield from self._walk(top, "", device, 0)
        finally:
            os.close(top)

    def _walk(self, folder: int, prefix: str, device: int, depth: int) -> Iterator[SeenFile]:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries if not _temporary(entry.name))
        subfolders: list[str] = []
        for name in names:
            try:
                info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                continue  # gone since the listing
            if stat.S_ISDIR(info.st_mode):
                subfolders.append(name)
                continue
            yield SeenFile(path=prefix + name, size=info.st_size,
                           modified_at=datetime.fromtimestamp(info.st_mtime, UTC),
                           regular=stat.S_ISREG(info.st_mode), link=stat.S_ISLNK(info.st_mode),
                           elsewhere=info.st_dev != device)
        if depth >= MAX_FOLDER_DEPTH:
            return
        for name in subfolders:
            try:
                child = _open_below(folder, name, device)
            except (_OutsideRootError, OSError):
                continue  # a link or a mount point since the listing, or gone: not walked
            try:
                yield from self._walk(child, f"{prefix}{name}/", device, depth + 1)
            finally:
                os.close(child)

    def fetch(self, seen: SeenFile, target: Path) -> bool:
        # Each folder of the path opened again under the watched folder's descriptor, without links:
        # a folder swapped for a link after the listing is not followed (nor is the file itself).
        *folders, name = seen.path.split("/")
        source, device = self._open_source()
        try:
            folder = _open_path(source, folders, device)
        except (_OutsideRootError, FileNotFoundError, NotADirectoryError):
            return False  # changed since the listing: the next poll sees what it is now
        finally:
            os.close(source)
        try:
            file = os.open(name, _FILE_FLAGS, dir_fd=folder)
        except OSError as exc:
            if isinstance(exc, FileNotFoundError) or exc.errno == errno.ELOOP:
                return False  # gone, or a link since the listing
            raise
        finally:
            os.close(folder)
        with os.fdopen(file, "rb") as handle, target.open("wb") as sink:
            before = os.fstat(handle.fileno())
            if not stat.S_ISREG(before.st_mode) or before.st_dev != device:
                return False
            while chunk := handle.read(1024 * 1024):
                sink.write(chunk)
            after = os.fstat(handle.fileno())
        return (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns) and \
            after.st_size == seen.size and datetime.fromtimestamp(after.st_mtime, UTC) == seen.modified_at


class S3PrefixSource:
    """The objects under a key prefix of a bucket (the workers' S3 endpoint and credentials). An
    object appears whole when its upload completes, so nothing is half-written there."""

    def __init__(self, bucket: str, prefix: str, client: Any) -> None:
        self.bucket = bucket
        # A prefix is whole path segments (review D-N6): s3://inbox/acme lists acme/…, never acme-corp/….
        self.prefix = prefix if not prefix or prefix.endswith("/") else prefix + "/"
        self.client = client

    def files(self) -> Iterator[SeenFile]:
        try:
            pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix)
            for page in pages:
                for item in page.get("Contents", []):
                    key = str(item["Key"])
                    if not key.startswith(self.prefix):
                        continue  # a server that answers more than was asked for
                    relative = key[len(self.prefix):].lstrip("/")
                    if not relative or key.endswith("/") or any(_temporary(part) for part in relative.split("/")):
                        continue
                    modified = item["LastModified"]
                    yield SeenFile(path=relative, size=int(item["Size"]),
                                   modified_at=modified if modified.tzinfo else modified.replace(tzinfo=UTC))
        except Exception as exc:
            raise RetryableError(f"listing s3://{self.bucket}/{self.prefix} failed: {exc}") from exc

    def _key(self, relative: str) -> str:
        return self.prefix + relative

    def fetch(self, seen: SeenFile, target: Path) -> bool:
        try:
            self.client.download_file(self.bucket, self._key(seen.path), str(target))
        except Exception as exc:
            raise RetryableError(f"reading s3://{self.bucket}/{self._key(seen.path)} failed: {exc}") from exc
        return target.stat().st_size == seen.size


def parse_source(source: str) -> tuple[str, str]:
    """(kind, normalised source): ("s3", "s3://bucket/prefix") or ("folder", "/absolute/path").
    Raises WatchError for a relative path, a bad bucket or a scheme that is neither."""
    text = source.strip()
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme != "s3":
            raise WatchError(f"{text!r}: watch a folder (an absolute path) or an S3 prefix (s3://bucket/prefix)")
        if not re.fullmatch(_BUCKET_NAME, parts.netloc):
            raise WatchError(f"{parts.netloc!r} is not an S3 bucket name (s3://bucket/prefix)")
        prefix = parts.path.lstrip("/")
        if len(prefix) > 900 or any(part in (".", "..") for part in prefix.split("/")):
            raise WatchError("the S3 prefix is not usable as a key prefix (at most 900 characters, no '.' or '..')")
        return "s3", f"s3://{parts.netloc}/{prefix}"
    path = Path(text)
    if not path.is_absolute():
        raise WatchError(f"{text!r} is not an absolute path: give the folder's full path")
    if ".." in path.parts:
        raise WatchError(f"{text!r}: give the folder's path without '..'")
    return "folder", str(path)


def open_source(kind: str, source: str, *, root: str | None = None, endpoint_url: str | None = None,
                region: str | None = None) -> Source:
    """The source a poll reads; a folder confined to `root` (its watch's, see FolderSource)."""
    if kind == "s3":
        parts = urlsplit(source)
        return S3PrefixSource(parts.netloc, parts.path.lstrip("/"), s3_client(endpoint_url=endpoint_url, region=region))
    return FolderSource(Path(source), Path(root) if root else None)


def check_within_roots(kind: str, source: str, roots: str, tenant: str) -> str:
    """A tenant's watch (made over the API) must be at or under one of the operator's roots
    (TENDERFLOW_WATCH_ROOTS, `{tenant}` standing for its name). A folder is compared by its real
    path (symbolic links resolved), so a link cannot lead out of a root; an S3 prefix by whole path
    segments. Returns the root it is under (a folder's real path), which its polls may not leave
    (review D-N1). Raises WatchForbiddenError."""
    allowed = [root.strip().replace("{tenant}", tenant) for root in roots.split(",") if root.strip()]
    if not allowed:
        raise WatchForbiddenError("the operator opens no folder or S3 prefix to watches made over the API "
                                  "(TENDERFLOW_WATCH_ROOTS); ask them, or for `tenderflow watch`")
    for root in allowed:
        try:
            root_kind, root_source = parse_source(root)
        except WatchError:
            continue
        if root_kind != kind:
            continue
        if kind == "folder":
            real, real_root = os.path.realpath(source), os.path.realpath(root_source)
        else:
            real, real_root = source, root_source
        if _inside(real, real_root):
            return real_root
    raise WatchForbiddenError(f"{source} is outside the places this tenant may watch: "
                              f"{', '.join(allowed)}")


def _inside(path: str, root: str) -> bool:
    """`path` is `root` or under it, compared by whole segments ('/inbox/acme' holds '/inbox/acme/x',
    not '/inbox/acme-corp'; 's3://b/acme/' is 's3://b/acme')."""
    path, root = path.rstrip("/"), root.rstrip("/")
    return path == root or path.startswith(root + "/")


# --- watches --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Watch:
    """A watch with its schedule (interval or cron, paused or not, next run) and its files' counts."""

    id: int
    tenant: str
    kind: str
    source: str
    root: str
    settle_seconds: float
    priority: int
    languages: str | None
    created_at: datetime
    last_polled_at: datetime | None
    last_error: str | None
    last_summary: dict[str, Any]
    interval_seconds: float | None
    cron: str | None
    enabled: bool | None
    next_run_at: datetime | None
    files: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def list_watches(conn: psycopg.Connection[Any], *, tenant: str | None = None) -> list[Watch]:
    rows = conn.cursor(row_factory=dict_row).execute(QUERIES["watch_list"], {"tenant": tenant, "id": None})
    return [Watch(**row) for row in rows.fetchall()]


def get_watch(conn: psycopg.Connection[Any], watch_id: int, *, tenant: str | None = None) -> Watch:
    """The watch; raises WatchNotFoundError (also for another tenant's)."""
    row = conn.cursor(row_factory=dict_row).execute(
        QUERIES["watch_list"], {"tenant": tenant, "id": watch_id}).fetchone()
    if row is None:
        raise WatchNotFoundError(f"no watch with id {watch_id}")
    return Watch(**row)


def create_watch(
    conn: psycopg.Connection[Any], scheduler: Scheduler, *, tenant: str, source: str,
    interval_seconds: float | None = None, cron: str | None = None, settle_seconds: float = 10.0,
    priority: int = 0, languages: str | None = None, check_folder: bool = True, root: str | None = None,
    now: datetime | None = None,
) -> Watch:
    """Watch `source` (an absolute folder path, or s3://bucket/prefix) for `tenant`, polled every
    `interval_seconds` (default 60) or at the `cron` times (UTC). With `check_folder`, a folder must
    exist here, and is recorded by its real path. Its polls never leave `root` (a tenant's root, see
    check_within_roots; default: the folder or prefix itself). Raises WatchError (bad source or
    timing, already watched, MAX_WATCHES_PER_TENANT reached), WatchForbiddenError (not inside
    `root`), UploadRejectedError (bad languages), TenantNotFoundError. Nothing is written when it
    raises."""
    kind, normalised = parse_source(source)
    if kind == "folder" and check_folder:
        normalised = real_folder(normalised)
    if root is not None and not _inside(normalised, root):
        raise WatchForbiddenError(f"{normalised} is outside {root}, the place this watch may read")
    if settle_seconds < 0:
        raise WatchError("settle_seconds cannot be negative")
    if interval_seconds is None and cron is None:
        interval_seconds = DEFAULT_INTERVAL_SECONDS
    asked = check_languages(languages)
    get_tenant(conn, tenant)  # raises TenantNotFoundError
    with conn.transaction():
        conn.execute(QUERIES["watch_tenant_lock"], {"tenant": tenant})
        count = conn.execute(QUERIES["watch_count"], {"tenant": tenant}).fetchone()
        if count is not None and count[0] >= MAX_WATCHES_PER_TENANT:
            raise WatchError(f"tenant {tenant!r} has {count[0]} watches, the most it may have; remove one first")
        row = conn.execute(QUERIES["watch_insert"], {
            "tenant": tenant, "kind": kind, "source": normalised, "root": root or normalised,
            "settle_seconds": settle_seconds,
            "priority": priority, "languages": asked}).fetchone()
        if row is None:
            existing = conn.execute(QUERIES["watch_id_by_source"],
                                    {"tenant": tenant, "kind": kind, "source": normalised}).fetchone()
            raise WatchError(f"{normalised} is already watched for {tenant} (watch {existing[0] if existing else '?'})")
        watch_id = int(row[0])
        try:
            scheduler.upsert(conn, Schedule(
                name=schedule_name(watch_id), type=JOB_WATCH_POLL, payload={"watch_id": watch_id}, tenant=tenant,
                priority=priority, max_attempts=1, interval_seconds=interval_seconds, cron=cron), now=now)
        except ValueError as exc:
            raise WatchError(str(exc)) from exc
    return get_watch(conn, watch_id)


def real_folder(path: str) -> str:
    """The real path of the folder `path` (links resolved: a watch's polls open it following none).
    Raises WatchError when it is not a folder here."""
    if not Path(path).is_dir():
        raise WatchError(f"{path} is not a folder here: create it first (the workers that poll it "
                         "must see it at the same path)")
    return os.path.realpath(path)


def remove_watch(
    conn: psycopg.Connection[Any], scheduler: Scheduler, watch_id: int, *, tenant: str | None = None
) -> None:
    """Stop watching: the schedule and the watch's record of its files go (its documents stay).
    Raises WatchNotFoundError."""
    with conn.transaction():
        if conn.execute(QUERIES["watch_delete"], {"id": watch_id, "tenant": tenant}).fetchone() is None:
            raise WatchNotFoundError(f"no watch with id {watch_id}")
        with contextlib.suppress(LookupError):
            scheduler.remove(conn, schedule_name(watch_id))


def watch_files(
    conn: psycopg.Connection[Any], watch_id: int, *, tenant: str | None = None, state: str | None = None,
    limit: int = 100,
) -> list[dict[str, Any]]:
    """The files a watch has seen, most recently decided first (only `state`'s, when given).
    Raises WatchNotFoundError, WatchError for an unknown state."""
    if state is not None and state not in FILE_STATES:
        raise WatchError(f"unknown file state {state!r}; choose from {', '.join(FILE_STATES)}")
    get_watch(conn, watch_id, tenant=tenant)
    return conn.cursor(row_factory=dict_row).execute(QUERIES["watch_files_list"], {
        "watch_id": watch_id, "state": state, "limit": limit}).fetchall()


def forget_document(conn: psycopg.Connection[Any], document_id: int) -> None:
    """A document being deleted (tenderflow.pipeline.deletion, in its transaction): the watched files
    that took it keep a fingerprint of their path instead of its name, and no document."""
    conn.execute(QUERIES["watch_files_forget_document_clear"], {"document_id": document_id})
    conn.execute(QUERIES["watch_files_forget_document"], {"document_id": document_id})


# --- polling --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PollOptions:
    """What a poll needs from the settings."""

    spool_dir: Path
    upload: UploadPolicy
    """The deployment's (upload cap, prices, attempts, quota); each watch's tenant, priority and
    languages are its own."""
    files_per_poll: int = 100
    s3_endpoint_url: str | None = None
    s3_region: str | None = None


@dataclass
class PollSummary:
    """What one poll did: counts, and each file it decided on (path, state, reason, document)."""

    watch_id: int
    listed: int = 0
    uploaded: int = 0
    existing: int = 0
    rejected: int = 0
    waiting: int = 0
    deferred: int = 0
    skipped: str | None = None
    stopped: str | None = None
    decisions: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, Any]:
        return {"listed": self.listed, "uploaded": self.uploaded, "existing": self.existing,
                "rejected": self.rejected, "waiting": self.waiting, "deferred": self.deferred,
                **({"skipped": self.skipped} if self.skipped else {}),
                **({"stopped": self.stopped} if self.stopped else {})}


@dataclass(frozen=True)
class _Known:
    size: int
    modified_at: datetime
    state: str
    first_seen_at: datetime


def forgotten_path(path: str) -> str:
    """What a file's path becomes in `watch_files` once its document is deleted (review D-N7): a
    fingerprint, not the name (see the query watch_files_forget_document)."""
    return "/deleted/" + hashlib.sha256(path.encode("utf-8")).hexdigest()


def _remove_stale_spool_files(directory: Path, *, older_than_seconds: float = 86_400) -> None:
    """Spool files left by a poll whose process died mid-file (a live one is never a day old)."""
    cutoff = datetime.now(UTC).timestamp() - older_than_seconds
    for leftover in directory.glob("tenderflow-watch-*"):
        with contextlib.suppress(OSError):
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()


def _ends_like_a_pdf(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - _TAIL_BYTES))
        return EOF_MARKER in handle.read()


class _Poll:
    """One pass over one watch's source, deciding file by file."""

    def __init__(self, conn: psycopg.Connection[Any], storage: ObjectStorage, watch: dict[str, Any],
                 source: Source, options: PollOptions, now: datetime, check: Callable[[], None]) -> None:
        self.conn = conn
        self.storage = storage
        self.watch = watch
        self.source = source
        self.options = options
        self.now = now
        self.check = check
        self.summary = PollSummary(watch_id=int(watch["id"]))
        self.settle = timedelta(seconds=float(watch["settle_seconds"]))

    def decide(self, seen: SeenFile, state: str, reason: str | None = None, *, sha256: str | None = None,
               document_id: int | None = None) -> None:
        self.conn.execute(QUERIES["watch_file_upsert"], {
            "watch_id": self.summary.watch_id, "path": seen.path, "size": seen.size, "modified_at": seen.modified_at,
            "state": state, "sha256": sha256, "document_id": document_id, "reason": reason, "now": self.now})
        setattr(self.summary, state, getattr(self.summary, state) + 1)
        self.summary.decisions.append({"path": seen.path, "state": state, "reason": reason, "document_id": document_id})
        if state == "rejected":
            log.warning("watch.file_rejected", watch_id=self.summary.watch_id, tenant=self.watch["tenant"],
                        path=seen.path, reason=reason)
        elif state in ("uploaded", "existing"):
            # No path: a log line outlives the document, whose name goes with it when it is deleted (D-N7).
            log.info("watch.file_taken", watch_id=self.summary.watch_id, tenant=self.watch["tenant"], state=state,
                     document_id=document_id)

    def run(self) -> PollSummary:
        known = {row[0]: _Known(int(row[1]), row[2], str(row[3]), row[4]) for row in self.conn.execute(
            QUERIES["watch_files_known"], {"watch_id": self.summary.watch_id}).fetchall()}
        candidates: list[SeenFile] = []
        for seen in self.source.files():
            self.summary.listed += 1
            before = known.get(seen.path) or known.get(forgotten_path(seen.path))
            if before is not None and before.state != "waiting" and \
                    (before.size, before.modified_at) == (seen.size, seen.modified_at):
                continue  # decided on already, and unchanged since
            candidates.append(seen)
        candidates.sort(key=lambda seen: (seen.modified_at, seen.path))
        taken = 0
        self.options.spool_dir.mkdir(parents=True, exist_ok=True)
        _remove_stale_spool_files(self.options.spool_dir)
        for index, seen in enumerate(candidates):
            if taken >= self.options.files_per_poll or self.summary.stopped:
                self.summary.deferred = len(candidates) - index  # the next poll takes them
                break
            self.check()
            if self.consider(seen, known.get(seen.path)):
                taken += 1
        return self.summary

    def consider(self, seen: SeenFile, before: _Known | None) -> bool:
        """Decide on one file; True when its bytes were read (it counts against the poll's share)."""
        if seen.link:
            self.decide(seen, "rejected", "a symbolic link: links are not followed")
            return False
        if seen.elsewhere:
            self.decide(seen, "rejected", "on another file system (a mount point): a watch stays on its root's")
            return False
        if not seen.regular:
            self.decide(seen, "rejected", "not a regular file")
            return False
        if seen.size > self.options.upload.max_bytes:
            self.decide(seen, "rejected", f"{seen.size:,} bytes is over the upload limit of "
                                          f"{self.options.upload.max_bytes:,} bytes (TENDERFLOW_MAX_UPLOAD_BYTES)")
            return False
        age = self.now - seen.modified_at
        if age < self.settle:
            self.decide(seen, "waiting", f"changed {max(age.total_seconds(), 0):.0f} s ago: waiting until it has "
                                         f"been unchanged for {self.settle.total_seconds():g} s")
            return False
        if seen.size == 0:
            self.decide(seen, "rejected", "the file is empty")
            return False
        fd, spool_name = tempfile.mkstemp(prefix="tenderflow-watch-", suffix=".pdf", dir=self.options.spool_dir)
        os.close(fd)
        spool = Path(spool_name)
        try:
            try:
                whole = self.source.fetch(seen, spool)
            except PermissionError as exc:
                self.decide(seen, "rejected", f"cannot be read: {exc.strerror or exc}")
                return True
            if not whole:
                self.decide(seen, "waiting", "it changed while being read")
                return True
            with spool.open("rb") as handle:
                if not handle.read(len(PDF_MAGIC)).startswith(PDF_MAGIC):
                    self.decide(seen, "rejected", "not a PDF (no %PDF- header)")
                    return True
            if not _ends_like_a_pdf(spool):
                seen_before = before is not None and before.first_seen_at < self.now and \
                    (before.size, before.modified_at) == (seen.size, seen.modified_at)
                if not seen_before or age < 2 * self.settle:
                    self.decide(seen, "waiting", "no %%EOF at its end yet: waiting in case it is still being "
                                                 "written (a copy paused midway)")
                    return True
                # Unchanged for twice the settle time, and so seen by an earlier poll: it is as
                # complete as it will be, and the pipeline tells a damaged PDF apart with a reason.
            self.upload(seen, spool)
            return True
        finally:
            spool.unlink(missing_ok=True)

    def upload(self, seen: SeenFile, spool: Path) -> None:
        watch = self.watch
        try:
            policy = replace(self.options.upload, tenant=watch["tenant"], priority=watch["priority"],
                             languages=watch["languages"])
            outcome = upload_file(self.conn, self.storage, spool, policy, filename=Path(seen.path).name)
        except UploadRejectedError as exc:
            self.decide(seen, "rejected", str(exc).removeprefix(f"{spool.name}: "))
            return
        except (InsufficientCreditsError, StorageQuotaExceededError) as exc:
            self.decide(seen, "waiting", f"not uploaded yet: {exc}")
            self.summary.stopped = str(exc)
            return
        except StorageError as exc:
            raise RetryableError(f"storing {seen.path} failed: {exc}") from exc
        state = "uploaded" if outcome.status == "created" else "existing"
        self.decide(seen, state, None, sha256=sha256_of(spool), document_id=outcome.document_id)


def poll(
    conn: psycopg.Connection[Any], storage: ObjectStorage, watch_id: int, options: PollOptions, *,
    now: datetime | None = None, check: Callable[[], None] = lambda: None, source: Source | None = None,
) -> PollSummary:
    """One poll of the watch (see the module's docstring). `conn` must be autocommit and outside a
    transaction: every decision commits at once, and the watch's lock is held by the session.
    A watch removed meanwhile, or one being polled elsewhere, gives a summary saying so. Raises
    RetryableError when the source cannot be listed or read, or the storage fails."""
    summary = PollSummary(watch_id=watch_id)
    watch = conn.cursor(row_factory=dict_row).execute(
        QUERIES["watch_list"], {"tenant": None, "id": watch_id}).fetchone()
    if watch is None:
        summary.skipped = "the watch was removed"
        return summary
    locked = conn.execute(QUERIES["watch_try_lock"], {"id": watch_id}).fetchone()
    if locked is None or not locked[0]:
        summary.skipped = "another poll of this watch is running"
        return summary
    try:
        chosen = source or open_source(watch["kind"], watch["source"], root=watch["root"],
                                       endpoint_url=options.s3_endpoint_url, region=options.s3_region)
        return _Poll(conn, storage, watch, chosen, options, now or datetime.now(UTC), check).run()
    finally:
        if not conn.closed:
            conn.execute(QUERIES["watch_unlock"], {"id": watch_id})


def record_poll(conn: psycopg.Connection[Any], summary: PollSummary) -> None:
    """The watch's last poll: when, what it did, and its error (a poll that stopped: the reason)."""
    if summary.skipped == "the watch was removed":
        return
    conn.execute(QUERIES["watch_record_poll"], {
        "id": summary.watch_id, "summary": Jsonb(summary.counts()), "error": summary.stopped})


def record_poll_failure(conn: psycopg.Connection[Any], watch_id: int, error: str) -> None:
    conn.execute(QUERIES["watch_record_failure"], {"id": watch_id, "error": error})
