"""A small PNG of one page, for people to recognise a document at a glance (the dashboard).

`pdftoppm -scale-to` fixes the longer side in pixels whatever the page's size, so a huge page costs
no more memory than a small one; the tool runs under the same time and memory limits as OCR.
"""

from __future__ import annotations

import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tenderflow.errors import PermanentError, RetryableError
from tenderflow.pdf.probe import poppler_reason
from tenderflow.pdf.tools import ToolTimeoutError, run_tool

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DEFAULT_LONGER_SIDE = 320


@dataclass(frozen=True)
class Thumbnail:
    page: int
    png: bytes
    width: int
    height: int


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's header. Raises ValueError for bytes that are not a PNG."""
    if len(png) < 24 or not png.startswith(PNG_SIGNATURE) or png[12:16] != b"IHDR":
        raise ValueError("not a PNG image")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


def render_thumbnail(
    path: Path, *, page: int = 1, longer_side: int = DEFAULT_LONGER_SIDE, timeout_seconds: float = 60.0,
    memory_bytes: int = 2 * 1024**3,
) -> Thumbnail:
    """Page `page` of the PDF at `path` as a PNG whose longer side is `longer_side` pixels.

    Raises PermanentError when poppler cannot render the page, RetryableError when it was killed
    from outside, and the job error of ToolTimeoutError when it runs out of time."""
    with tempfile.TemporaryDirectory(prefix="tenderflow-thumbnail-") as work:
        prefix = Path(work) / "thumbnail"
        try:
            result = run_tool(
                ["pdftoppm", "-f", str(page), "-l", str(page), "-png", "-scale-to", str(longer_side),
                 "-cropbox", "-singlefile", str(path), str(prefix)],
                timeout_seconds=timeout_seconds, memory_bytes=memory_bytes,
            )
        except ToolTimeoutError as error:
            raise error.as_job_error(f"page {page}: rendering the thumbnail") from error
        image = prefix.with_name(prefix.name + ".png")
        if result.killed_from_outside:
            raise RetryableError("pdftoppm was killed from outside (out of memory on the machine?)")
        if result.returncode != 0 or not image.exists():
            raise PermanentError(f"page {page}: rendering the thumbnail failed: {poppler_reason(result)}")
        png = image.read_bytes()
    width, height = png_size(png)
    return Thumbnail(page=page, png=png, width=width, height=height)
