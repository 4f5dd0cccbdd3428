"""Pictures of single pages for the dashboard's document page, rendered on demand.

The stored PDF is fetched once into a local cache (the workers' `PdfCache`: named by object key,
checked against its SHA-256, least recently used evicted); each page is rendered by pdftoppm under
the tool limits (`tenderflow.pdf.thumbnail`) at a modest size, and the last few PNGs are kept in
memory, so a page reloaded by the dashboard's refresh costs nothing. A page poppler cannot render
is remembered too (the refresh must not start pdftoppm again every 10 s), and at most two pages are
rendered at once, so operators browsing never take the API's CPU from its tenants.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from tenderflow.errors import PermanentError
from tenderflow.pdf.cache import PdfCache
from tenderflow.pdf.thumbnail import render_thumbnail
from tenderflow.pipeline.storage import ObjectStorage, object_key

PAGE_IMAGE_LONGER_SIDE = 900
"""Pixels on the page's longer side: legible beside the text, about 100-300 KB a page."""
RENDER_TIMEOUT_SECONDS = 30.0
RENDERS_AT_ONCE = 2


class PageImages:
    def __init__(self, storage: ObjectStorage, cache_dir: Path, *, timeout_seconds: float, memory_bytes: int,
                 keep: int = 48) -> None:
        self.storage = storage
        self.pdfs = PdfCache(cache_dir, max_files=8)
        self.timeout_seconds = min(timeout_seconds, RENDER_TIMEOUT_SECONDS)
        self.memory_bytes = memory_bytes
        self.keep = keep
        self._pngs: OrderedDict[tuple[str, str, int], bytes | PermanentError] = OrderedDict()
        self._lock = threading.Lock()
        self._renders = threading.BoundedSemaphore(RENDERS_AT_ONCE)

    def png(self, tenant: str, sha256: str, page: int) -> bytes:
        """Page `page` (1-based, within the document's page count: the caller checks) as a PNG.
        Raises PermanentError when poppler cannot render it, RetryableError / JobError otherwise."""
        cached = (tenant, sha256, page)
        with self._lock:
            if cached in self._pngs:
                self._pngs.move_to_end(cached)
                return _png_or_raise(self._pngs[cached])
        key = object_key(tenant, sha256)
        with self._renders:
            path = self.pdfs.local_path(key, lambda target: self.storage.download_to(key, target))
            try:
                outcome: bytes | PermanentError = render_thumbnail(
                    path, page=page, longer_side=PAGE_IMAGE_LONGER_SIDE, timeout_seconds=self.timeout_seconds,
                    memory_bytes=self.memory_bytes).png
            except PermanentError as error:
                outcome = error
        with self._lock:
            self._pngs[cached] = outcome
            while len(self._pngs) > self.keep:
                self._pngs.popitem(last=False)
        return _png_or_raise(outcome)


def _png_or_raise(outcome: bytes | PermanentError) -> bytes:
    if isinstance(outcome, PermanentError):
        raise outcome
    return outcome
