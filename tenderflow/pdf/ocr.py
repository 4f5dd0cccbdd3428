"""Turn pages of a PDF into text: the text layer when it is real, else render the page and OCR it.

``read_pages`` is the OCR handler's pure compute: a local path and page numbers in, one ``PageText``
per page out, no database and no storage. The whole batch runs in one sandboxed call (``tools.
call_sandboxed``: a child process with its own process group, memory limit and minimal environment,
killed whole on its timeout and with its worker), where pdf2image renders and pytesseract reads, and
the programs they start inherit the call's limits. Per page:

1. the text layer (one pdftotext run per run of consecutive pages) when ``text_layer_is_usable``;
2. otherwise the page is rendered once, grayscale, at ``dpi`` (pdf2image: pdftoppm, crop box,
   /Rotate applied) after its pixel count was checked against the cap, and read by tesseract in page
   segmentation mode 3 (pytesseract ``image_to_data``: automatic layout, no orientation detection),
   writing TSV: words with their confidence, from which the text is rebuilt. That is the run a plain
   ``tesseract page.pgm out`` makes, plus the TSV (~1 %). Orientation is checked only when the page
   reads badly: an upright scan reads at a mean word confidence of 70-97, a page upside down or
   needing a quarter turn clockwise as garbage at 30-50. Below ``MIN_UPRIGHT_CONFIDENCE``
   tesseract's orientation detection (``--psm 0``, about half a read) looks at the page; when it
   finds it turned, the rendered page is turned upright (PIL, an exact quarter turn) and read again
   in mode 3, and the better reading of the two is kept. A page needing a quarter turn
   counter-clockwise (270 degrees) reads well in mode 3 (tesseract takes its lines for vertical
   text), and that rotation is read from the shape of its lines. A page too sparse for orientation
   detection is read upright (rotation 0); a blank page gives "";
3. a near-empty but clean text layer ("Potato 1") still wins over OCR when OCR read the same thing
   or nothing: it is exact where OCR reads "Potato l". A scan with a stamped page number loses its
   stamp to the OCR of the whole page, which is what the near-empty rule is for.

pdf2image and pytesseract kill only their direct child on a timeout and run with the environment
they are given: inside the sandboxed call that is enough (the call's group, limits and environment
are theirs). The CPU a killed program used is read from the call's reaped children, so a timeout is
still judged starved or slow. pdf2image does not say why pdftoppm made no image; such a page is
rendered once more by pdftoppm run directly, whose exit status and stderr give the reason.

Errors: PermanentError when the input is at fault (a page over the pixel cap, a page that cannot be
rendered, a page busy past the timeout), RetryableError when the machine is (starved of CPU, a
tool killed from outside), ConfigurationError when tesseract lacks a language.
"""

from __future__ import annotations

import difflib
import os
import re
import resource
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from tenderflow.errors import ConfigurationError, PermanentError, RetryableError
from tenderflow.pdf import launcher
from tenderflow.pdf.packs import installed_languages
from tenderflow.pdf.probe import (
    POINTS_PER_INCH,
    PageSize,
    PdfInfo,
    check_page_pixels,
    poppler_reason,
    read_pdf_info,
)
from tenderflow.pdf.textlayer import (
    alphanumeric_count,
    extract_text_layer,
    text_layer_is_clean,
    text_layer_is_usable,
    tidy_text_layer,
)
from tenderflow.pdf.tools import (
    ToolOutputTooLargeError,
    ToolResult,
    ToolTimeoutError,
    call_sandboxed,
    memory_text,
    run_tool,
)
from tenderflow.pdf.tsv import lines_run_vertically, page_layout, text_from_tsv

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
    look_first: bool = False
    """Detect every scanned page's orientation before reading it (on a reduced copy, about a quarter
    of a read), instead of only after a bad read: set for a short document, a job per page (see
    tenderflow.pipeline.commits.record_plan), whose time is its slowest slot's, and where a page
    read upside down first costs that slot a second read."""

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
    layout: dict[str, Any] | None = None
    """OCRed pages: where tesseract saw each word, for a searchable PDF (``page_layout``): the size in
    pixels of the image it read, the turn that image was given, and [left, top, width, height, text]
    per word. None for the text layer."""


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
    if launcher.inside():
        return _read_pages_here(path, numbers, options, before_each_page)

    def progress(_: object) -> None:
        if before_each_page is not None:
            before_each_page()

    label = pages_label(numbers)
    try:
        pages = call_sandboxed(
            "ocr.read_pages", {"path": os.path.abspath(path), "pages": numbers, "options": asdict(options)},
            memory_bytes=options.memory_bytes, progress_timeout_seconds=sandbox_timeout(options),
            what=f"{label}: OCR", on_progress=progress,
        )
    except ToolTimeoutError as error:
        raise error.as_job_error(f"{label}: OCR") from error
    return [PageText(**page) for page in pages]


def pages_label(numbers: Sequence[int]) -> str:
    """ "page 3", "pages 1-4", "pages 2, 5, 9" for messages."""
    ordered = sorted(numbers)
    if len(ordered) == 1:
        return f"page {ordered[0]}"
    if ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"pages {ordered[0]}-{ordered[-1]}"
    return "pages " + ", ".join(str(number) for number in ordered)


TOOL_RUNS_PER_PAGE = 6
"""At most this many tool runs of ``timeout_seconds`` between two pages of a sandboxed batch (render,
pdf2image's pdfinfo and version check, read, orientation, second read)."""


def sandbox_timeout(options: OcrOptions) -> float:
    """How long a sandboxed batch may go without reaching its next page before its whole process group
    is killed: a backstop, each tool has its own timeout."""
    return TOOL_RUNS_PER_PAGE * options.timeout_seconds + 30.0


@launcher.entry("ocr.read_pages")
def _read_pages_entry(arguments: Mapping[str, Any], progress: Callable[[Any], None]) -> list[dict[str, Any]]:
    pages = _read_pages_here(Path(arguments["path"]), [int(n) for n in arguments["pages"]],
                             OcrOptions(**arguments["options"]), lambda: progress(None))
    return [asdict(page) for page in pages]


def _read_pages_here(
    path: Path, numbers: list[int], options: OcrOptions, before_each_page: Callable[[], None] | None,
) -> list[PageText]:
    """read_pages inside the sandboxed call (see read_pages)."""
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

    scans = [number for number in numbers if not text_layer_is_usable(layers[number][0])]
    resolutions = scan_resolutions(path, scans, sizes, options) if scans else {}
    portrait_document = _mostly_portrait(path, info, options) if scans else True
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
                check_languages(options)
                page = _ocr_page(path, sizes[number], options, Path(workdir),
                                 dpi=render_dpi(options, resolutions.get(number)),
                                 look_first=options.look_first or (portrait_document
                                                                   and _shown_landscape(sizes[number])))
                if _layer_says_the_same(text, page.text):
                    page = replace(page, text=tidy_text_layer(text), source="text_layer", confidence=None, rotation=0,
                                   layout=None)
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


def _ocr_page(path: Path, page: PageSize, options: OcrOptions, workdir: Path, *, dpi: int, look_first: bool
              ) -> PageText:
    """Render the page and read it upright (see the module docstring, step 2). ``look_first``: detect
    the orientation before the read (a landscape page in a portrait document)."""
    started = time.monotonic()
    number = page.number
    check_page_pixels(page, dpi=dpi, max_page_pixels=options.max_page_pixels)
    image = render_page(path, number, dpi, options, workdir)
    upright: Path | None = None
    try:
        turn = 0
        if look_first:
            # Scanners feed a portrait document's pages in portrait: a landscape one among them is
            # often turned, and a look at a smaller copy (a fraction of a read) before the read saves
            # reading it wrong first.
            turn = detect_orientation_quickly(image, number, dpi, options).rotate
            if turn:
                upright = set_upright(image, turn)
        words_tsv = recognize(upright or image, number, options, dpi=dpi)
        text, confidence = text_from_tsv(words_tsv)
        rotation = turn or (SIDEWAYS_READ_ROTATION if lines_run_vertically(words_tsv) else 0)
        if turn and confidence is not None and confidence < MIN_UPRIGHT_CONFIDENCE:
            # The look was wrong (on the dev set's tenders it took two sparse upright pages for upside
            # down) or the page reads badly either way: read it as it came too, keep the better reading.
            as_is_tsv = recognize(image, number, options, dpi=dpi)
            as_is_text, as_is_confidence = text_from_tsv(as_is_tsv)
            if (as_is_confidence or 0.0) > confidence:
                text, confidence, words_tsv, turn = as_is_text, as_is_confidence, as_is_tsv, 0
                rotation = SIDEWAYS_READ_ROTATION if lines_run_vertically(words_tsv) else 0
        if not look_first and confidence is not None and confidence < MIN_UPRIGHT_CONFIDENCE:
            second = detect_orientation_quickly(image, number, dpi, options).rotate
            if second:
                upright = set_upright(image, second)
                turned_tsv = recognize(upright, number, options, dpi=dpi)
                turned_text, turned_confidence = text_from_tsv(turned_tsv)
                if (turned_confidence or 0.0) > confidence:
                    text, confidence, rotation, turn, words_tsv = (turned_text, turned_confidence, second, second,
                                                                   turned_tsv)
        if confidence is None or confidence < MIN_UPRIGHT_CONFIDENCE or rotation == SIDEWAYS_READ_ROTATION:
            vertical = _read_vertically(image, number, options, better_than=confidence, dpi=dpi)
            if vertical is not None:
                (text, confidence), words_tsv, turn, rotation = text_from_tsv(vertical), vertical, 0, 0
    finally:
        image.unlink(missing_ok=True)  # up to max_page_pixels bytes: do not keep one per page
        if upright is not None:
            upright.unlink(missing_ok=True)
    return PageText(
        number=number,
        text=text,
        source="ocr",
        confidence=confidence,
        seconds=time.monotonic() - started,
        rotation=rotation,
        layout=page_layout(words_tsv, turned=turn),
    )


VERTICAL_PACKS = {"jpn": "jpn_vert", "chi_sim": "chi_sim_vert", "chi_tra": "chi_tra_vert", "kor": "kor_vert"}
"""Tesseract's models for text set top to bottom, by the language they read."""


def _vertical_languages(languages: str) -> str:
    """The vertical models of the CJK languages among `languages` that are installed ('jpn+eng' →
    'jpn_vert'), or '' when there are none."""
    wanted = [VERTICAL_PACKS[name] for name in languages.split("+") if name in VERTICAL_PACKS]
    if not wanted:
        return ""
    installed = installed_languages()
    return "+".join(name for name in wanted if name in installed)


def _read_vertically(image: Path, number: int, options: OcrOptions, *, better_than: float | None,
                     dpi: int | None = None) -> str | None:
    """The page read by the vertical models of its CJK languages, as TSV, when that reads better than
    `better_than`: Chinese and Japanese are also set top to bottom, and read as lines such a page is
    garbage or looks turned. None when the languages have no vertical model here or it reads no better."""
    vertical = _vertical_languages(options.languages)
    if not vertical:
        return None
    tsv = recognize(image, number, replace(options, languages=vertical), dpi=dpi)
    _, confidence = text_from_tsv(tsv)
    return tsv if (confidence or 0.0) > (better_than or 0.0) else None


def _shown_landscape(page: PageSize) -> bool:
    """Whether the page is wider than tall as a viewer shows it (its /Rotate applied)."""
    wide = page.width_points > page.height_points
    return wide != (page.rotate % 180 == 90)


def _mostly_portrait(path: Path, info: PdfInfo, options: OcrOptions) -> bool:
    """Whether most of the document's pages are portrait as shown (one pdfinfo run over all of them
    unless the batch's run saw them all already)."""
    every = info if len(info.pages) == info.page_count else read_pdf_info(
        path, 1, info.page_count, timeout_seconds=options.timeout_seconds, memory_bytes=options.memory_bytes)
    landscape = sum(_shown_landscape(page) for page in every.pages)
    return landscape * 2 < len(every.pages)


MIN_NATIVE_DPI = 150
"""A scan below the OCR resolution is rendered at its own, but not below this: measured on the
corpus's 72-150 ppi scans, tesseract reads 150 ppi scans as well at 150 dpi as at 300 (same words,
confidence within a point) in half the time or less, and a 72 ppi one loses half its words at 72."""


def render_dpi(options: OcrOptions, scan_ppi: int | None) -> int:
    """The resolution a page is rendered at: ``options.dpi``, or the page's scan's own when that is
    lower (no blind upsampling), but at least MIN_NATIVE_DPI."""
    if scan_ppi is None or scan_ppi >= options.dpi:
        return options.dpi
    return max(min(scan_ppi, options.dpi), min(MIN_NATIVE_DPI, options.dpi))


SCAN_COVERAGE = 0.5
"""An image that covers at least this share of its page is the page's scan."""


def scan_resolutions(path: Path, numbers: Sequence[int], sizes: Mapping[int, PageSize], options: OcrOptions
                     ) -> dict[int, int]:
    """The resolution (pixels per inch, the higher of its two axes) of each page's scan: the largest
    image on the page when it covers at least SCAN_COVERAGE of it. One ``pdfimages -list`` run for the
    pages' range; pages without such an image are left out (vector pages: rendered at ``options.dpi``),
    and so is every page when pdfimages cannot list the document."""
    try:
        result = run_tool(["pdfimages", "-list", "-f", str(min(numbers)), "-l", str(max(numbers)), str(path)],
                          timeout_seconds=options.timeout_seconds, memory_bytes=options.memory_bytes)
    except (ToolTimeoutError, ToolOutputTooLargeError, ConfigurationError):
        return {}  # a render at the OCR resolution is always right, only slower
    if result.returncode != 0:
        return {}
    wanted = set(numbers)
    best: dict[int, tuple[float, int]] = {}
    for line in result.stdout.decode("utf-8", errors="replace").splitlines()[2:]:
        fields = line.split()
        # page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
        if len(fields) < 14 or fields[2] != "image":
            continue
        try:
            number, width, height, x_ppi, y_ppi = (int(fields[i]) for i in (0, 3, 4, 12, 13))
        except ValueError:
            continue
        if number not in wanted or x_ppi <= 0 or y_ppi <= 0 or number not in sizes:
            continue
        page = sizes[number]
        shown = (width / x_ppi) * (height / y_ppi) * POINTS_PER_INCH**2
        coverage = shown / (page.width_points * page.height_points)
        if coverage >= SCAN_COVERAGE and (number not in best or coverage > best[number][0]):
            best[number] = (coverage, max(x_ppi, y_ppi))
    return {number: ppi for number, (_, ppi) in best.items()}


QUICK_OSD_LONGER_SIDE = 2000
"""Orientation detection looks at a copy whose longer side is at most about this many pixels: at half
a 300 dpi A4 page (1275 x 1650) it took 0.8 s where the full page took 1.3 s (a read: 2.9 s), with the
same answers on the corpus's turned pages and enough confidence (15-19 where the full page gave 32);
at a quarter the confidence fell to noise."""


def detect_orientation_quickly(image: Path, number: int, dpi: int, options: OcrOptions) -> Orientation:
    """``detect_orientation`` on a copy of the page halved (or more) until its longer side is within
    QUICK_OSD_LONGER_SIDE; on the page itself when it is that small already."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None
    with Image.open(image) as picture:
        factor = 1
        while max(picture.size) // factor > QUICK_OSD_LONGER_SIDE:
            factor *= 2
        if factor == 1:
            return detect_orientation(image, number, options, dpi=dpi)
        small = image.with_name(f"{image.stem}-small{image.suffix}")
        picture.reduce(factor).save(small)
    try:
        return detect_orientation(small, number, options, dpi=max(dpi // factor, 1))
    finally:
        small.unlink(missing_ok=True)


MIN_UPRIGHT_CONFIDENCE = 60.0
"""Below this mean word confidence a page is checked for orientation. Upright scans, even noisy
and skewed ones, read at 70-97; a page read upside down or turned the wrong way reads as
"sapuay 0} UOIEYAUT" at 30-50."""

SIDEWAYS_READ_ROTATION = 270
"""A page turned a quarter so that its lines run bottom to top reads well in psm 3: tesseract's
layout analysis takes its lines for vertical text and turns them itself. Its correction is 270
degrees clockwise (what psm 1 reports for the same page). Turned the other way it reads as
garbage, and orientation detection turns it."""


# --- the tools, inside the sandboxed call -------------------------------------------------------


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_children() -> None:
    """Wait for every child a library killed on its timeout but did not reap, so that their CPU time
    is counted (a sandboxed call runs one program at a time: nothing else is running)."""
    while True:
        try:
            os.wait4(-1, 0)
        except ChildProcessError:
            return


def render_page(path: Path, number: int, dpi: int, options: OcrOptions, workdir: Path) -> Path:
    """Render one page to an 8-bit grayscale PGM with pdf2image (pdftoppm ``-gray -cropbox
    -singlefile``; no compression to spend time on; tesseract binarizes anyway, so color would only
    triple the memory), in a sandboxed call.

    pdf2image tells neither pdftoppm's exit status nor its stderr: when no image comes out, the page
    is rendered once more by pdftoppm run directly, which says why (poppler's reason, out of memory,
    killed from outside) or, when the first failure passed (memory), renders it."""
    from pdf2image import convert_from_path
    from pdf2image.exceptions import PDFPageCountError, PDFPopplerTimeoutError

    before = _children_cpu()
    name = f"page{number}_"
    try:
        images = convert_from_path(
            str(path), dpi=dpi, first_page=number, last_page=number, output_folder=str(workdir),
            output_file=name, fmt="ppm", grayscale=True, use_cropbox=True, single_file=True, paths_only=True,
            timeout=options.timeout_seconds,  # type: ignore[arg-type]  # any number communicate() takes
        )
    except PDFPopplerTimeoutError as error:
        _reap_children()
        timeout = ToolTimeoutError(program="pdftoppm", timeout_seconds=options.timeout_seconds,
                                   cpu_seconds=_children_cpu() - before)
        raise timeout.as_job_error(f"page {number}: rendering") from error
    except PDFPageCountError:
        images = []  # pdfinfo could not read the document: pdftoppm, run directly, says why
    if images:
        return Path(str(images[0]))  # paths_only: file names, not images
    return _render_directly(path, number, dpi, options, workdir)


def _render_directly(path: Path, number: int, dpi: int, options: OcrOptions, workdir: Path) -> Path:
    prefix = workdir / f"direct-{number}"
    try:
        result = run_tool(
            ["pdftoppm", "-f", str(number), "-l", str(number), "-r", str(dpi),
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


def _tesseract(run: Callable[[], str], number: int, step: str, options: OcrOptions) -> str:
    """One pytesseract call, its errors turned into tenderflow's (see the module docstring)."""
    import pytesseract

    before = _children_cpu()
    try:
        return run()
    except pytesseract.TesseractNotFoundError as error:
        raise ConfigurationError("tesseract is not installed or not on PATH") from error
    except pytesseract.TesseractError as error:
        status, message = int(error.status), str(error.message)
        result = ToolResult(program="tesseract", returncode=status, stdout=b"", stderr=message.encode(),
                            seconds=0.0, cpu_seconds=0.0)
        _raise_for_missing_languages(result, options)
        if status == 127 and "error while loading shared libraries" in message:
            raise ConfigurationError(f"tesseract cannot start within a {options.memory_bytes} byte memory limit: "
                                     f"{message[:300]}") from error
        raise _tool_failure(result, f"page {number}: {step}", options,
                            message[:200] or f"exit status {status}") from error
    except RuntimeError as error:
        if str(error) != "Tesseract process timeout":
            raise
        _reap_children()
        timeout = ToolTimeoutError(program="tesseract", timeout_seconds=options.timeout_seconds,
                                   cpu_seconds=_children_cpu() - before)
        raise timeout.as_job_error(f"page {number}: {step}") from error


def recognize(image: Path, number: int, options: OcrOptions, *, dpi: int | None = None) -> str:
    """The page's words as tesseract's TSV (pytesseract ``image_to_data``, page segmentation mode 3:
    automatic layout, no orientation detection).

    ``dpi``: the resolution the page was rendered at, told to tesseract (a PGM carries none). Without
    it tesseract guesses from the letters' height, and on a bordered table (the Indian portal's print
    in the dev set, rendered at 300 dpi, guessed as 326) it dropped whole rows: 'Tender Type Open
    Tender', 'Title …', 'Period Of Work(Days) 60' were read with it, not without. It costs time
    where it reads more (those rows)."""
    import pytesseract

    config = f"--psm 3 --dpi {dpi}" if dpi else "--psm 3"
    return _tesseract(
        lambda: str(pytesseract.image_to_data(str(image), lang=options.languages, config=config,
                                              timeout=options.timeout_seconds)),
        number, "OCR", options,
    )


@dataclass(frozen=True)
class Orientation:
    """What tesseract's orientation and script detection says of a page."""

    rotate: int
    """Degrees clockwise that set the page upright (0 when it is upright or too sparse to tell)."""
    script: str | None = None


def detect_orientation(image: Path, number: int, options: OcrOptions, step: str = "orientation detection",
                       dpi: int | None = None) -> Orientation:
    """Tesseract's orientation and script detection (``--psm 0``, about half a page's OCR time) on the
    rendered page. A page too sparse to tell ("Too few characters") counts as upright, script unknown."""
    import pytesseract

    try:
        report = _tesseract(
            lambda: str(pytesseract.image_to_osd(str(image), config=f"--dpi {dpi or options.dpi}",
                                                 timeout=options.timeout_seconds)),
            number, step, options,
        )
    except PermanentError:
        return Orientation(0)  # tesseract gives up on a page with too few characters
    found = _OSD_ROTATE.search(report)
    script = _OSD_SCRIPT.search(report)
    return Orientation(int(found.group(1)) % 360 if found else 0, script.group(1) if script else None)


_OSD_ROTATE = re.compile(r"^Rotate: (\d+)$", re.MULTILINE)
_OSD_SCRIPT = re.compile(r"^Script: (\S+)$", re.MULTILINE)
_TRANSPOSE_CLOCKWISE = {90: "ROTATE_270", 180: "ROTATE_180", 270: "ROTATE_90"}  # PIL turns counter-clockwise


def set_upright(image: Path, rotate: int) -> Path:
    """A copy of the rendered page turned ``rotate`` degrees clockwise (PIL; exact quarter turns)."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None  # the page's pixels were checked against the cap before rendering
    target = image.with_name(f"{image.stem}-upright{image.suffix}")
    with Image.open(image) as picture:
        picture.transpose(getattr(Image.Transpose, _TRANSPOSE_CLOCKWISE[rotate])).save(target)
    return target


def check_languages(options: OcrOptions) -> None:
    """Raise ConfigurationError unless tesseract has every pack ``options.languages`` names, and each loads.

    Tesseract reads on with the packs it has when one is missing or damaged (exit status 0, "Failed
    loading language" on stderr), and pytesseract keeps the stderr of a run only when it fails: so the
    packs are checked before the first page is read."""
    missing = [name for name in options.languages.split("+") if name not in installed_languages()]
    if missing:
        raise ConfigurationError(
            f"tesseract cannot load the languages {options.languages!r} (missing: {', '.join(missing)}); "
            "install their traineddata"
        )


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
        return PermanentError(f"{what} needs more than {memory_text(options.memory_bytes)} of memory")
    return PermanentError(f"{what} failed: {reason}")
