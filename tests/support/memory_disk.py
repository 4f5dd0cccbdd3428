"""Where the suite's databases are written: in memory (tmpfs) where the machine has one with room.

Every test that reaches PostgreSQL clones the migrated template and drops the clone at its end: about
a thousand files created and deleted a test. On ext4 that churn is what a clone costs: the inode
allocator skips the inodes deleted a moment ago, and finding a free one then scans them
(`recently_deleted` and `find_inode_bit`, most of a profile of the backend). Measured on this 2-core
machine, PostgreSQL 15 on 127.0.0.1:5432, a 9.5 MB migrated template, 30 clones and drops in a row:
0.55 s a clone, 0.53 s of it in the kernel, against 0.05 s with the clone in a tablespace on tmpfs.

Nothing here outlives the session, and nothing in it must survive a crash: the embedded server's
cluster (`server_url`) and, on a server of this machine, a tablespace the clones are made in. Where
there is no such place (no tmpfs, too little room, a server elsewhere or run by a user we cannot hand
a directory to), the databases stay where the server keeps them: slower, the same tests.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
from psycopg import sql

MEMORY_ROOT = Path("/dev/shm")
# A worker's cluster, its template and a test's clone are tens of MB; a module's processed documents
# add a few. Below this much free, a small tmpfs (a container's 64 MB /dev/shm) is left alone.
MIN_FREE_BYTES = 2 * 1024**3
_LOCAL_HOSTS = ("", "localhost", "127.0.0.1", "::1")


def _on_tmpfs(path: Path) -> bool:
    """Whether `path` is on a tmpfs mount (the longest mount point above it, per /proc/mounts)."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return False
    resolved, best, kind = str(path.resolve()), "", ""
    for line in mounts:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = resolved == point or resolved.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fields[2]
    return kind == "tmpfs"


def memory_directory() -> Path | None:
    """A directory in memory with room for the suite's databases, or None."""
    if not MEMORY_ROOT.is_dir() or not os.access(MEMORY_ROOT, os.W_OK) or not _on_tmpfs(MEMORY_ROOT):
        return None
    if shutil.disk_usage(MEMORY_ROOT).free < MIN_FREE_BYTES:
        return None
    return MEMORY_ROOT


def scratch_directory(prefix: str) -> Path:
    """A new private directory, in memory where there is room (else in the system's temporary one)."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=memory_directory()))


def _server_directory(admin: psycopg.Connection) -> Path | None:
    """The server's data directory when the server runs on this machine and we may read it."""
    host = str(psycopg.conninfo.conninfo_to_dict(admin.info.dsn).get("host") or "")
    if host not in _LOCAL_HOSTS and not host.startswith("/"):
        return None
    row = admin.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
    if not (row and row[0]):
        return None  # only a superuser may create a tablespace (and read data_directory)
    directory = admin.execute("SHOW data_directory").fetchone()
    path = Path(directory[0]) if directory else None
    return path if path is not None and path.is_dir() else None


def _make_tablespace(admin_url: str) -> tuple[str, Path] | None:
    """A new tablespace in memory on the server at `admin_url` (its name and directory), or None where
    the server's own data is in memory already or no tablespace can be made there."""
    memory = memory_directory()
    if memory is None:
        return None
    with psycopg.connect(admin_url, autocommit=True) as admin:
        data = _server_directory(admin)
        if data is None or _on_tmpfs(data):
            return None
        owner = data.stat()
        if os.geteuid() not in (0, owner.st_uid):
            return None
        location = Path(tempfile.mkdtemp(prefix="tenderflow-test-tablespace-", dir=memory))
        os.chown(location, owner.st_uid, owner.st_gid)
        name = f"tf_tests_{uuid.uuid4().hex[:10]}"
        admin.execute(sql.SQL("CREATE TABLESPACE {} LOCATION {}").format(
            sql.Identifier(name), sql.Literal(str(location))))
    return name, location


@contextlib.contextmanager
def tablespace_in_memory(admin_url: str) -> Iterator[str | None]:
    """A tablespace of this session's in memory on the server at `admin_url`, dropped at the end; None
    where the server's own data is in memory already or no tablespace can be made there."""
    made = _make_tablespace(admin_url)
    if made is None:
        yield None
        return
    name, location = made
    try:
        yield name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            try:
                admin.execute(sql.SQL("DROP TABLESPACE IF EXISTS {}").format(sql.Identifier(name)))
                dropped = True
            except psycopg.errors.ObjectNotInPrerequisiteState:
                dropped = False  # a database left in it (a test's that was not dropped): its files stay
        if dropped:
            shutil.rmtree(location, ignore_errors=True)
