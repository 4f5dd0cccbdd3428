"""Turn pages of a PDF into text: the text layer when it is real, else render the page and OCR it.

``read_pages`` is the OCR handler's pure compute: a local path and page numbers in, one ``PageText``
per page out, no database and no storage. Per page:

1. the text layer (one pdftotext run per run of consecutive pages) when ``text_layer_is_usable``;
2. otherwise the page is rendered once, grayscale, at ``dpi`` (pdftoppm, crop box, /Rotate applied)
   after its pixel count was checked against the cap, and read by tesseract in page segmentation
   mode 3 (automatic layout, no orientation detection), writing TSV: words with their confidence,
   from which the text is rebuilt. That is the run a plain ``tesseract page.pgm out`` makes, plus
   the TSV (~1 %). Orientation is checked only when the page reads badly: an upright scan reads at
   a mean word confidence of 70-97, a page upside down or needing a quarter turn clockwise as
   garbage at 30-50. Below ``MIN_UPRIGHT_CONFIDENCE`` tesseract's orientation detection (``--psm 0``, about
   half a read) looks at the page; when it finds it turned, the page is read again in mode 1
   (orientation detected and applied in the run; the turn read back from the hOCR) and the better
   reading of the two is kept. Always running mode 1 instead costs every page ~15 % for the few that
   are turned. A page needing a quarter turn counter-clockwise (270 degrees) reads well in mode 3
   (tesseract takes its lines for vertical text), and that rotation is read from the shape of its
   lines. A page too
   sparse for orientation detection is read upright (rotation 0); a blank page gives "";
3. a near-empty but clean text layer ("Potato 1") still wins over OCR when OCR read the same thing
   or nothing: it is exact where OCR reads "Potato l". A scan with a stamped page number loses its
   stamp to the OCR of the whole page, which is what the near-empty rule is for.

pytesseract and pdf2image run their programs with plain ``subprocess`` (no process group, no memory
limit; their timeouts kill only the direct child), so both programs are run through ``tools.run_tool``
instead. pytesseract's one other offer, parsing TSV, is a split on tabs: done here.

Errors: PermanentError when the input is at fault (a page over the pixel cap, a page that cannot be
rendered, a page busy past the timeout), RetryableError when the machine is (starved of CPU, a
tool killed from outside), ConfigurationError when tesseract lacks a language.
"""

from __future__ import annotations

import difflib
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from tenderflow.errors import ConfigurationError, PermanentError, RetryableError
from tenderflow.pdf.probe import PageSize, check_page_pixels, poppler_reason, read_pdf_info
from tenderflow.pdf.textlayer import (
    alphanumeric_count,
    extract_text_layer,
    text_layer_is_clean,
    text_layer_is_usable,
    tidy_text_layer,
)
from tenderflow.pdf.tools import ToolResult, ToolTimeoutError, run_tool

_LANGUAGES = re.compile(r"[A-Za-z0-9_]+(?:\+[A-Za-z0-9_]+)*")


@dataclass(frozen=True)
class OcrOptions:
    """How pages are read. Every tool run gets ``timeout_seconds`` and ``memory_bytes`` on its own."""

    dpi: int = 300
    languages: str = "eng"
    """Tesseract languages joined by "+", e.g. "eng+deu+fra"; each costs time on every OCRed page."""
    timeout_seconds: float = 120.0
    memory_bytes: int = 2 * 1024**3
    max_page_pixels: int = 200_000_000

    def __post_init__(self) -> None:
        if not 50 <= self.dpi <= 1200:
            raise ValueError(f"dpi must be within 50..1200, not {self.dpi}")
        if not _LANGUAGES.fullmatch(self.languages):
            raise ValueError(f"languages must look like eng+deu, not {self.languages!r}")
        if self.timeout_seconds <= 0 or self.memory_bytes <= 0 or self.max_page_pixels <= 0:
            raise ValueError(f"limits must be positive: {self}")


@dataclass(frozen=True)
class PageText:
    """The text of one page and how it was obtained."""

    number: int
    """1-based page number."""
    text: str
    source: Literal["text_layer", "ocr"]
    confidence: float | None
    """Mean tesseract word confidence, 0-100; None for the text layer and for OCR that found no word."""
    seconds: float
    """Wall time spent on this page (its share of a text-layer run, or render + OCR)."""
    rotation: int
    """Degrees (0, 90, 180, 270) the rendered page was turned clockwise so its text reads upright.
    The page's own /Rotate is already applied by the renderer and is not counted here."""


def read_pages(
    path: Path,
    page_numbers: Sequence[int],
    options: OcrOptions,
    *,
    before_each_page: Callable[[], None] | None = None,
) -> list[PageText]:
    """Read the given pages (1-based, any order, no repeats) of the PDF at ``path``, in that order.

    The document should have passed ``probe_pdf``; the page sizes are read again (one pdfinfo run for
    all the pages) so that no page is rendered past ``options.max_page_pixels`` whoever calls this.
    ``before_each_page`` is called before each page is read, after that one pdfinfo run and the
    pdftotext runs: whatever it raises stops the reading there (the OCR handler passes its job's
    ``context.check``, so a cancelled or reclaimed job stops between pages). Raises PermanentError /
    RetryableError / ConfigurationError as the module docstring says, and ValueError for page numbers
    the document does not have.
    """
    numbers = list(page_numbers)
    if not numbers:
        return []
    if len(set(numbers)) != len(numbers) or min(numbers) < 1:
        raise ValueError(f"page numbers must be distinct and 1-based: {numbers}")
    info = read_pdf_info(
        path, min(numbers), max(numbers), timeout_seconds=options.timeout_seconds, memory_bytes=options.memory_bytes
    )
    if max(numbers) > info.page_count:
        raise ValueError(f"page {max(numbers)} asked for, the PDF has {info.page_count} pages")
    sizes = {page.number: page for page in info.pages}

    layers: dict[int, tuple[str, float]] = {}
    for first, last in _consecutive_runs(sorted(numbers)):
        started = time.monotonic()
        try:
            texts = extract_text_layer(
                path, first, last, timeout_seconds=options.timeout_seconds, memory_bytes=options.memory_bytes
            )
        except ToolTimeoutError as error:
            raise error.as_job_error(f"pages {first}-{last}: reading the text layer") from error
        share = (time.monotonic() - started) / len(texts)
        for number, text in zip(range(first, last + 1), texts, strict=True):
            layers[number] = (text, share)

    pages: list[PageText] = []
    with tempfile.TemporaryDirectory(prefix="tenderflow-ocr-") as workdir:
        for number in numbers:
            if before_each_page is not None:
                before_each_page()
            started = time.monotonic()
            text, share = layers[number]
            if text_layer_is_usable(text):
                pages.append(
                    PageText(
                        number=number,
                        text=tidy_text_layer(text),
                        source="text_layer",
                        confidence=None,
                        seconds=share + time.monotonic() - started,
                        rotation=0,
                    )
                )
            else:
                page = _ocr_page(path, sizes[number], options, Path(workdir))
                if _layer_says_the_same(text, page.text):
                    page = replace(page, text=tidy_text_layer(text), source="text_layer", confidence=None, rotation=0)
                pages.append(page)
    return pages


SAME_TEXT_SHARE = 0.8
"""Share of what OCR read that must be in the text layer for OCR to have merely re-read it: "Potato l"
is 6/7 in "Potato 1"; a scan's OCR is hardly at all in its stamped page number."""


def _layer_says_the_same(layer: str, ocr_text: str) -> bool:
    """True when a clean, near-empty text layer holds everything OCR found on the page."""
    if alphanumeric_count(layer) == 0 or not text_layer_is_clean(layer):
        return False
    if alphanumeric_count(ocr_text) == 0:
        return True
    found = _folded(ocr_text)
    matcher = difflib.SequenceMatcher(None, _folded(layer), found, autojunk=False)
    covered = sum(block.size for block in matcher.get_matching_blocks())
    return covered >= SAME_TEXT_SHARE * len(found)


def _folded(text: str) -> str:
    """Letters and digits only, case-folded: OCR's spacing and punctuation are not disagreements."""
    return "".join(c for c in text.casefold() if c.isalnum())


def _consecutive_runs(numbers: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for number in numbers:
        if runs and runs[-1][1] == number - 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


def _ocr_page(path: Path, page: PageSize, options: OcrOptions, workdir: Path) -> PageText:
    """Render the page and read it upright (see the module docstring, step 2)."""
    started = time.monotonic()
    number = page.number
    check_page_pixels(page, dpi=options.dpi, max_page_pixels=options.max_page_pixels)
    image = _render(path, number, options, workdir)
    try:
        words_tsv, _ = _recognize(image, number, options, workdir, page_segmentation=3)
        text, confidence = text_from_tsv(words_tsv)
        rotation = SIDEWAYS_READ_ROTATION if lines_run_vertically(words_tsv) else 0
        if confidence is not None and confidence < MIN_UPRIGHT_CONFIDENCE and _detect_turn(image, number, options):
            words_tsv, hocr = _recognize(image, number, options, workdir, page_segmentation=1)
            turned_text, turned_confidence = text_from_tsv(words_tsv)
            if (turned_confidence or 0.0) > confidence:
                text, confidence, rotation = turned_text, turned_confidence, rotation_from_hocr(hocr)
    finally:
        image.unlink(missing_ok=True)  # up to max_page_pixels bytes: do not keep one per page
    return PageText(
        number=number,
        text=text,
        source="ocr",
        confidence=confidence,
        seconds=time.monotonic() - started,
        rotation=rotation,
    )


MIN_UPRIGHT_CONFIDENCE = 60.0
"""Below this mean word confidence a page is checked for orientation. Upright scans, even noisy
and skewed ones, read at 70-97; a page read upside down or turned the wrong way reads as
"sapuay 0} UOIEYAUT" at 30-50."""

SIDEWAYS_READ_ROTATION = 270
"""A page turned a quarter so that its lines run bottom to top reads well in psm 3: tesseract's
layout analysis takes its lines for vertical text and turns them itself. Its correction is 270
degrees clockwise (what psm 1 reports for the same page). Turned the other way it reads as
garbage, and orientation detection turns it."""


def _render(path: Path, number: int, options: OcrOptions, workdir: Path) -> Path:
    """Render one page to an 8-bit grayscale PGM (no compression to spend time on; tesseract
    binarizes anyway, so color would only triple the memory)."""
    prefix = workdir / f"page-{number}"
    try:
        result = run_tool(
            ["pdftoppm", "-f", str(number), "-l", str(number), "-r", str(options.dpi),
             "-gray", "-cropbox", "-singlefile", str(path), str(prefix)],
            timeout_seconds=options.timeout_seconds,
            memory_bytes=options.memory_bytes,
        )
    except ToolTimeoutError as error:
        raise error.as_job_error(f"page {number}: rendering") from error
    image = prefix.with_name(prefix.name + ".pgm")
    if result.returncode != 0 or not image.exists():
        raise _tool_failure(result, f"page {number}: rendering", options, poppler_reason(result))
    return image


def _recognize(
    image: Path, number: int, options: OcrOptions, workdir: Path, *, page_segmentation: Literal[1, 3]
) -> tuple[str, str]:
    """One tesseract run: (TSV, hOCR) of the page; the hOCR only in page segmentation mode 1 (it
    carries the turn orientation detection applied), "" in mode 3.

    No ``--dpi``: a PGM carries no resolution, and tesseract estimates it from the height of the
    letters, as a plain ``tesseract page.pgm out`` does (telling it the render's resolution measured
    10 % slower on scans, for the same words and confidences)."""
    base = workdir / f"ocr-{number}"
    outputs = ["-c", "tessedit_create_tsv=1"]
    if page_segmentation == 1:
        outputs += ["-c", "tessedit_create_hocr=1"]
    try:
        result = run_tool(
            ["tesseract", str(image), str(base), "--psm", str(page_segmentation), "-l", options.languages, *outputs],
            timeout_seconds=options.timeout_seconds,
            memory_bytes=options.memory_bytes,
            cwd=workdir,
        )
    except ToolTimeoutError as error:
        raise error.as_job_error(f"page {number}: OCR") from error
    tsv_path, hocr_path = base.with_suffix(".tsv"), base.with_suffix(".hocr")
    try:
        _raise_for_missing_languages(result, options)
        if result.returncode != 0 or not tsv_path.exists() or (page_segmentation == 1 and not hocr_path.exists()):
            tail = result.stderr_text.strip().splitlines()[-1:] or [f"exit status {result.returncode}"]
            raise _tool_failure(result, f"page {number}: OCR", options, tail[0][:200])
        return (
            tsv_path.read_text(encoding="utf-8", errors="replace"),
            hocr_path.read_text(encoding="utf-8", errors="replace") if page_segmentation == 1 else "",
        )
    finally:
        tsv_path.unlink(missing_ok=True)
        hocr_path.unlink(missing_ok=True)


_OSD_ROTATE = re.compile(r"^Rotate: (\d+)$", re.MULTILINE)


def _detect_turn(image: Path, number: int, options: OcrOptions) -> bool:
    """Whether tesseract's orientation detection (``--psm 0``, about half a page's OCR time) finds
    the page turned. A page too sparse to tell ("Too few characters") counts as upright."""
    try:
        result = run_tool(
            ["tesseract", str(image), "-", "--psm", "0", "--dpi", str(options.dpi)],
            timeout_seconds=options.timeout_seconds,
            memory_bytes=options.memory_bytes,
        )
    except ToolTimeoutError as error:
        raise error.as_job_error(f"page {number}: orientation detection") from error
    _raise_for_missing_languages(result, options)
    found = _OSD_ROTATE.search(result.stdout.decode("utf-8", errors="replace"))
    return result.returncode == 0 and found is not None and int(found.group(1)) % 360 != 0


def _raise_for_missing_languages(result: ToolResult, options: OcrOptions) -> None:
    if "Failed loading language" in result.stderr_text:
        raise ConfigurationError(
            f"tesseract cannot load the languages {options.languages!r} (or osd for orientation detection); "
            "install their traineddata"
        )


def _tool_failure(result: ToolResult, what: str, options: OcrOptions, reason: str) -> Exception:
    """The job outcome for a tool that ended badly on this page ("page 3: rendering" is ``what``)."""
    if result.killed_from_outside:
        return RetryableError(f"{what}: {result.program} was killed from outside (out of memory on the machine?)")
    stderr = result.stderr_text
    if "bad_alloc" in stderr or "Out of memory" in stderr or "out of memory" in stderr:
        # RLIMIT_AS failures are deterministic: the same page fails the same way next time.
        return PermanentError(f"{what} needs more than {_mebibytes(options.memory_bytes)} of memory")
    return PermanentError(f"{what} failed: {reason}")


def _mebibytes(size: int) -> str:
    return f"{size / 1024**3:g} GiB" if size >= 1024**3 else f"{size / 1024**2:.0f} MiB"


def text_from_tsv(tsv: str) -> tuple[str, float | None]:
    """Text and mean word confidence from tesseract's TSV.

    Words are joined by spaces within a line, lines by newlines within a paragraph, paragraphs by a
    blank line, the layout tesseract's own text output has. Confidence is the mean over recognized
    words (conf >= 0), None when there are none (a blank page).
    """
    paragraphs: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    confidences: list[float] = []
    for row in tsv.splitlines()[1:]:
        # level, page, block, paragraph, line, word, left, top, width, height, conf, text
        fields = row.split("\t", 11)
        if len(fields) != 12 or fields[0] != "5":
            continue
        word = fields[11].strip()
        if not word:
            continue
        try:
            confidence = float(fields[10])
        except ValueError:
            continue
        if confidence >= 0:
            confidences.append(confidence)
        lines = paragraphs.setdefault((fields[1], fields[2], fields[3]), {})
        lines.setdefault(fields[4], []).append(word)
    text = "\n\n".join("\n".join(" ".join(words) for words in lines.values()) for lines in paragraphs.values())
    mean = round(sum(confidences) / len(confidences), 1) if confidences else None
    return text, mean


def lines_run_vertically(tsv: str) -> bool:
    """True when most of what tesseract read (by characters) sits on lines taller than they are
    wide: a page fed in sideways whose lines layout analysis took for vertical text."""
    vertical = horizontal = 0
    lines: dict[tuple[str, ...], list[int]] = {}
    for row in tsv.splitlines()[1:]:
        fields = row.split("\t", 11)
        if len(fields) != 12 or fields[0] != "5" or not fields[11].strip():
            continue
        try:
            left, top, width, height = (int(value) for value in fields[6:10])
        except ValueError:
            continue
        box = lines.setdefault(tuple(fields[1:5]), [left, top, left + width, top + height, 0])
        box[:4] = [min(box[0], left), min(box[1], top), max(box[2], left + width), max(box[3], top + height)]
        box[4] += len(fields[11].strip())
    for left, top, right, bottom, characters in lines.values():
        if characters < 3:
            continue  # "1", "a)": no shape to go by
        if bottom - top > right - left:
            vertical += characters
        else:
            horizontal += characters
    return vertical > horizontal


_HOCR_LINE = re.compile(r"class='ocr_(?:line|header|caption|textfloat)'[^>]*?title=\"([^\"]*)\"")
_TEXTANGLE = re.compile(r"\btextangle (\d+)")


def rotation_from_hocr(hocr: str) -> int:
    """The page's correction in degrees clockwise: the textangle most of its lines carry.

    In psm 1 tesseract turns the whole page by its OSD result and stamps that angle on every line
    (upright lines carry none, i.e. 0); a vote keeps a stray vertical caption from deciding. Ties
    and pages without lines give 0.
    """
    votes: Counter[int] = Counter()
    for title in _HOCR_LINE.findall(hocr):
        angle = _TEXTANGLE.search(title)
        votes[int(angle.group(1)) % 360 if angle else 0] += 1
    if not votes:
        return 0
    return max(votes, key=lambda angle: (votes[angle], angle == 0))
