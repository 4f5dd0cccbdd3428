"""Local copies of stored PDFs, fetched once per machine and checked against their key's SHA-256.

Local workers fill it from object storage (tenderflow.handlers.ocr.StoredPdfs), remote workers over
HTTP, and the API's page images from storage too; the fetch is the caller's.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from tenderflow.errors import RetryableError
from tenderflow.ids import sha256_of

_OBJECT_KEY_SHA256 = re.compile(r".*/([0-9a-f]{64})\.pdf")
_LOCK_STRIPES = 64
_PARTIAL_SUFFIX = ".fetching"
_PARTIAL_MAX_AGE_SECONDS = 3600.0


class PdfCache:
    """Local copies of stored PDFs, so the batches of one document fetch it once per worker (local
    workers from storage, remote workers over HTTP).

    Files are named by a hash of their object key; at most `max_files` are kept (least recently used
    go). Object keys end in the content's SHA-256, and a fetched file that does not match it is
    discarded: a damaged transfer never reaches OCR.

    The directory may be shared by every worker process on the machine (they share the data dir)
    and each has several threads, so a copy may be evicted by anyone while a job still reads it.
    To prevent that, each thread pins the copy its current job reads: a shared `flock` on it, held
    until that thread asks for its next copy (or its process ends: the kernel drops the lock), and
    eviction skips a copy it cannot lock exclusively. Before this, the chaos run's jobs failed with
    "FileNotFoundError" when another process evicted their PDF under them, or vanished a file from
    under an eviction's listing.
    """

    def __init__(self, directory: Path, *, max_files: int = 32) -> None:
        self.directory = directory
        self.max_files = max_files
        # Striped locks: a fetch of one key waits only for fetches of keys that share its stripe, and
        # the table never grows, however many keys a long-lived process fetches.
        self._key_locks = tuple(threading.Lock() for _ in range(_LOCK_STRIPES))
        self._pins = threading.local()  # .fd: the open, share-locked copy this thread's job reads

    def local_path(self, key: str, fetch: Callable[[Path], object]) -> Path:
        """A local file with the object's bytes; `fetch(target)` writes them there (whole or not at
        all) on first use. The file stays until this thread asks for another one."""
        name = hashlib.sha256(key.encode()).hexdigest()[:32] + ".pdf"
        target = self.directory / name
        key_lock = self._key_locks[int(name[:8], 16) % _LOCK_STRIPES]
        with key_lock:
            if self._pin(target):
                with contextlib.suppress(FileNotFoundError):
                    os.utime(target)
                return target
            self.directory.mkdir(parents=True, exist_ok=True)
            # Fetched under a name eviction never looks at, pinned, and only then put in place: a
            # copy is never visible unpinned to another thread's eviction before its job has it.
            partial = self.directory / f".{name}.{uuid.uuid4().hex[:8]}{_PARTIAL_SUFFIX}"
            try:
                fetch(partial)
                expected = _OBJECT_KEY_SHA256.fullmatch(key)
                if expected and sha256_of(partial) != expected[1]:
                    raise RetryableError(f"the PDF {key} arrived damaged (its SHA-256 differs from its key)")
                self._pin(partial, path=target)
                os.replace(partial, target)
            finally:
                partial.unlink(missing_ok=True)
            self._evict(keep=target)
            return target

    def _pin(self, file: Path, *, path: Path | None = None) -> bool:
        """Share-lock `file` for this thread (releasing what it pinned before); False when there is
        no such file, or it was evicted between being opened and locked. With `path`, the file is
        a fetch about to be renamed there (nobody else can see it yet)."""
        try:
            fd = os.open(file, os.O_RDONLY)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            if path is None and os.fstat(fd).st_ino != os.stat(file).st_ino:
                raise FileNotFoundError(file)  # unlinked (and perhaps fetched again) meanwhile
        except OSError:
            os.close(fd)
            return False
        previous = getattr(self._pins, "fd", None)
        self._pins.fd = fd
        if previous is not None:
            os.close(previous)
        return True

    def forget(self, key: str) -> None:
        """Drop the local copy of the object, if there is one (its document was deleted)."""
        name = hashlib.sha256(key.encode()).hexdigest()[:32] + ".pdf"
        with self._key_locks[int(name[:8], 16) % _LOCK_STRIPES]:
            (self.directory / name).unlink(missing_ok=True)

    def _evict(self, *, keep: Path) -> None:
        """Unlink the least recently used copies beyond `max_files`, except those a job has pinned;
        copies other processes unlink meanwhile are no error."""
        dated = []
        for path in self.directory.glob("*.pdf"):
            with contextlib.suppress(FileNotFoundError):
                dated.append((path.stat().st_mtime, path))
        dated.sort(reverse=True)
        # what a process killed in the middle of a fetch left (its own temporary names included)
        for leftover in self.directory.glob(f".*{_PARTIAL_SUFFIX}*"):
            with contextlib.suppress(FileNotFoundError):
                if time.time() - leftover.stat().st_mtime > _PARTIAL_MAX_AGE_SECONDS:
                    leftover.unlink(missing_ok=True)
        for _mtime, old in dated[self.max_files:]:
            if old == keep:
                continue
            try:
                fd = os.open(old, os.O_RDONLY)
            except FileNotFoundError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                old.unlink(missing_ok=True)
            except BlockingIOError:
                pass  # a job reads it: it stays, and goes in a later eviction
            finally:
                os.close(fd)
