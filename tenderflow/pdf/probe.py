"""Look at a PDF before anything renders it: is it a PDF, can it be opened, and is it within limits.

``probe_pdf`` answers with a ``PdfInfo`` (page count, each page's size and /Rotate, encryption) or a
PermanentError whose message a user can act on: not a PDF, needs a password, damaged (with poppler's
reason), no pages, too many pages, a page too large to render at the OCR resolution. It runs
``pdfinfo`` once, under the same timeout and memory limit as every other tool; nothing is rendered.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from tenderflow.errors import PermanentError, RetryableError
from tenderflow.pdf.tools import ToolResult, ToolTimeoutError, run_tool

PDF_MAGIC = b"%PDF-"
POINTS_PER_INCH = 72.0


@dataclass(frozen=True)
class PdfLimits:
    """What a document may ask of us. The defaults are those of tenderflow's Settings."""

    max_pages: int = 2000
    max_page_pixels: int = 200_000_000
    dpi: int = 300
    timeout_seconds: float = 120.0
    memory_bytes: int = 2 * 1024**3

    def __post_init__(self) -> None:
        if self.max_pages < 1 or self.max_page_pixels < 1 or self.dpi < 1:
            raise ValueError(f"limits must be positive: {self}")


@dataclass(frozen=True)
class PageSize:
    """One page as a viewer shows it: its crop box in points, and its /Rotate in degrees."""

    number: int
    width_points: float
    height_points: float
    rotate: int

    def pixels_at(self, dpi: int) -> tuple[int, int]:
        """(width, height) in pixels of this page rendered at ``dpi`` (pdftoppm rounds up).

        Rounded to 6 decimals first so that 7200 pt at 300 dpi is 30000 pixels, not 30001 from the
        float error of 7200 * (300 / 72): one pixel either way never decides a cap."""
        scale = dpi / POINTS_PER_INCH
        return math.ceil(round(self.width_points * scale, 6)), math.ceil(round(self.height_points * scale, 6))


@dataclass(frozen=True)
class PdfInfo:
    """What pdfinfo says about a document that opens without a password."""

    page_count: int
    pages: tuple[PageSize, ...]
    """The pages asked about, in order (all of them for ``probe_pdf``)."""
    encrypted: bool
    """True also for owner-password-only PDFs, which open and render without a password."""


def probe_pdf(path: Path, limits: PdfLimits) -> PdfInfo:
    """Check a document before any rendering; return its pages or raise PermanentError saying why not.

    Raises PermanentError: not a PDF, encrypted with a user password, unreadable, no pages, more than
    ``limits.max_pages`` pages, a page over ``limits.max_page_pixels`` at ``limits.dpi``, or pdfinfo
    busy past the timeout. RetryableError when pdfinfo was starved of CPU or killed from outside.
    """
    # Only the first max_pages sizes are printed: a document with more is refused anyway, and a
    # 100,000-page bomb must not make pdfinfo print 100,000 lines.
    info = read_pdf_info(
        path, 1, limits.max_pages, timeout_seconds=limits.timeout_seconds, memory_bytes=limits.memory_bytes
    )
    if info.page_count > limits.max_pages:
        raise PermanentError(f"the PDF has {info.page_count} pages; at most {limits.max_pages} are accepted")
    for page in info.pages:
        check_page_pixels(page, dpi=limits.dpi, max_page_pixels=limits.max_page_pixels)
    return info


def check_page_pixels(page: PageSize, *, dpi: int, max_page_pixels: int) -> None:
    """Raise PermanentError naming the page and its size when rendering it would exceed the cap."""
    width, height = page.pixels_at(dpi)
    if width * height > max_page_pixels:
        raise PermanentError(
            f"page {page.number} is {page.width_points:g} x {page.height_points:g} pt "
            f"({page.width_points / POINTS_PER_INCH:.1f} x {page.height_points / POINTS_PER_INCH:.1f} in), "
            f"{width} x {height} = {width * height:,} pixels at {dpi} dpi; "
            f"at most {max_page_pixels:,} pixels per page are accepted"
        )


def read_pdf_info(
    path: Path, first_page: int, last_page: int, *, timeout_seconds: float, memory_bytes: int
) -> PdfInfo:
    """Sniff the header, run ``pdfinfo -f first -l last`` once, and parse it; no limits are checked.

    ``last_page`` beyond the document is clamped (pdfinfo does so), ``first_page`` beyond it is a
    ValueError (the caller asked for pages that do not exist). Raises PermanentError for files that
    are not PDFs, need a password, cannot be read or have no pages.
    """
    if not 1 <= first_page <= last_page:
        raise ValueError(f"bad page range {first_page}..{last_page}")
    with path.open("rb") as file:
        head = file.read(len(PDF_MAGIC))
    if not head:
        raise PermanentError("the file is empty")
    if head != PDF_MAGIC:
        raise PermanentError("the file is not a PDF (it does not start with %PDF-)")
    try:
        result = run_tool(
            ["pdfinfo", "-f", str(first_page), "-l", str(last_page), str(path)],
            timeout_seconds=timeout_seconds,
            memory_bytes=memory_bytes,
        )
    except ToolTimeoutError as error:
        raise error.as_job_error("reading the PDF's structure") from error
    if result.returncode != 0:
        _raise_for_failure(result, first_page)
    return _parse(result.stdout.decode("utf-8", errors="replace"), first_page, last_page)


def _raise_for_failure(result: ToolResult, first_page: int) -> None:
    stderr = result.stderr_text
    if result.killed_from_outside:
        raise RetryableError("pdfinfo was killed from outside (out of memory on the machine?)")
    # Whole lines of pdfinfo's own, so that no message quoting the document can pass for them.
    if re.search(r"^Command Line Error: Incorrect password$", stderr, re.MULTILINE):
        raise PermanentError("the PDF is encrypted and needs a password; upload an unprotected copy")
    # pdfinfo clamps -l to the page count and then refuses a first page after it, which is how a
    # document with no pages (or fewer than first_page) shows itself.
    clamped = re.search(
        r"^Command Line Error: Wrong page range given: .* the last page \((\d+)\)\.$", stderr, re.MULTILINE
    )
    if clamped:
        if int(clamped.group(1)) == 0:
            raise PermanentError("the PDF has no pages")
        raise ValueError(f"page {first_page} asked for, the PDF has {clamped.group(1)} pages")
    raise PermanentError(f"the PDF cannot be read: {poppler_reason(result)}")


def poppler_reason(result: ToolResult) -> str:
    """Poppler's stderr condensed to one short line: distinct errors, last ones first kept, no offsets."""
    messages: list[str] = []
    for line in result.stderr_text.splitlines():
        match = re.match(r"(?:Syntax |Internal |Command Line |I/O )?(Error|Warning)(?: \(\d+\))?: (.*)", line)
        if match is None or match.group(1) != "Error":
            continue
        message = match.group(2).strip()
        if message in messages:
            messages.remove(message)
        messages.append(message)
    if not messages:
        if result.returncode < 0:
            return f"{result.program} crashed (signal {-result.returncode})"
        return f"{result.program} exited with status {result.returncode}"
    reason = "; ".join(messages[-3:])
    return reason if len(reason) <= 300 else reason[:297] + "..."


def _parse(report: str, first_page: int, last_page: int) -> PdfInfo:
    # Title, author and the other metadata come first and are printed raw: a title holding
    # "\nPages: 1" forges a line. The real lines come after all metadata, so the LAST match wins.
    def last(pattern: str) -> re.Match[str] | None:
        matches = list(re.finditer(pattern, report, re.MULTILINE))
        return matches[-1] if matches else None

    pages_line = last(r"^Pages:\s+(\d+)\s*$")
    if pages_line is None:
        raise PermanentError("the PDF cannot be read: pdfinfo reported no page count")
    page_count = int(pages_line.group(1))
    if page_count == 0:
        raise PermanentError("the PDF has no pages")
    encrypted_line = last(r"^Encrypted:\s+(yes|no)\b")
    sizes: dict[int, tuple[float, float]] = {}
    rotations: dict[int, int] = {}
    number = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan))"
    for match in re.finditer(rf"^Page\s+(\d+)\s+size:\s+{number} x {number} pts", report, re.MULTILINE):
        sizes[int(match.group(1))] = (float(match.group(2)), float(match.group(3)))
    for match in re.finditer(r"^Page\s+(\d+)\s+rot:\s+(-?\d+)\s*$", report, re.MULTILINE):
        rotations[int(match.group(1))] = int(match.group(2)) % 360
    pages = []
    for page_number in range(first_page, min(last_page, page_count) + 1):
        if page_number not in sizes:
            raise PermanentError(f"the PDF cannot be read: pdfinfo gave no size for page {page_number}")
        width, height = sizes[page_number]
        if not (math.isfinite(width) and math.isfinite(height) and width > 0 and height > 0):
            raise PermanentError(f"page {page_number} has no usable size ({width:g} x {height:g} pt)")
        pages.append(PageSize(page_number, width, height, rotations.get(page_number, 0)))
    return PdfInfo(
        page_count=page_count,
        pages=tuple(pages),
        encrypted=encrypted_line is not None and encrypted_line.group(1) == "yes",
    )
