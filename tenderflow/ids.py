"""Content hashes and process identities, the one place each is made.

- `sha256_of(path)`: a file's SHA-256, read in 1 MiB chunks (uploads name objects by it, the PDF
  cache checks transfers with it, eval keys its page cache with it);
- `process_instance_id()`: "host:pid:random" for a worker process, local or remote, with the host
  name trimmed to the characters the API accepts (letters, digits, '-' and '.').
"""

from __future__ import annotations

import hashlib
import os
import socket
import uuid
from pathlib import Path
from typing import Final

_CHUNK: Final = 1024 * 1024


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def process_instance_id() -> str:
    """host:pid:random6, e.g. "scanner-pc:4242:a1b2c3": unique per process start."""
    host = "".join(c if c.isalnum() or c in "-." else "-" for c in socket.gethostname())[:60] or "host"
    return f"{host}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
