"""A searchable copy of a PDF: its own pages, with an invisible text layer where OCR read them.

Pages that were read from their own text layer are copied as they are. On each OCRed page the words
tesseract read are drawn invisibly (text render mode 3, what OCR tools write) where it saw them, so a
viewer selects them and its search finds them at their place on the page. The words and their boxes
are the ones the OCR stored (``ocr.PageLayout``, from the TSV it read anyway: no second OCR pass, as
OCRmyPDF's hocrtransform works from hOCR). A box is in the pixels of the image tesseract read: the page
as rendered (crop box, /Rotate applied), turned upright by ``turned`` degrees when it was read turned.
The text is laid out upright in that image's frame, on a page of its own (reportlab), and merged onto
the original page (pypdf) through the transformation that undoes the turn, scales pixels to points
and maps the page as a viewer shows it into the page's own user space (its crop box and /Rotate).
Nothing else of the original page changes: the text is a content stream added to it.

``make_searchable`` parses the stranger's PDF (pypdf), so it runs as a sandboxed call (its own
process, memory limit and timeout), like OCR.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tenderflow.errors import PermanentError
from tenderflow.pdf import launcher
from tenderflow.pdf.tools import ToolTimeoutError, call_sandboxed

FONT_NAME = "TenderflowInvisible"
"""Vera (shipped with reportlab, so nothing is looked for on the system), embedded as a subset: the
text is never painted, but its ToUnicode map is what viewers search and copy."""


@dataclass(frozen=True)
class PageWords:
    """What one OCRed page needs for its text layer."""

    number: int
    width: int
    """Pixels of the image tesseract read (after it was turned)."""
    height: int
    turned: int
    """Degrees (0, 90, 180, 270) the rendered page was turned clockwise before tesseract read it."""
    words: Sequence[Sequence[Any]]
    """[left, top, width, height, text] in that image's pixels, top-left origin."""


Matrix = tuple[float, float, float, float, float, float]


def _compose(first: Matrix, then: Matrix) -> Matrix:
    """The PDF matrix that applies ``first`` and then ``then`` (points as row vectors: first × then)."""
    a, b, c, d, e, f = first
    a2, b2, c2, d2, e2, f2 = then
    return (a * a2 + b * c2, a * b2 + b * d2, c * a2 + d * c2, c * b2 + d * d2,
            e * a2 + f * c2 + e2, e * b2 + f * d2 + f2)


def _unturn(turned: int, width: float, height: float) -> Matrix:
    """From the upright frame (width × height points) back to the page as rendered."""
    return {
        0: (1.0, 0.0, 0.0, 1.0, 0.0, 0.0),
        90: (0.0, 1.0, -1.0, 0.0, height, 0.0),
        180: (-1.0, 0.0, 0.0, -1.0, width, height),
        270: (0.0, -1.0, 1.0, 0.0, 0.0, width),
    }[turned]


def _into_user_space(rotate: int, x0: float, y0: float, width: float, height: float) -> Matrix:
    """From the page as a viewer shows it (its crop box, /Rotate applied) to its user space; the crop
    box is ``width`` × ``height`` points from (x0, y0)."""
    return {
        0: (1.0, 0.0, 0.0, 1.0, x0, y0),
        90: (0.0, 1.0, -1.0, 0.0, x0 + width, y0),
        180: (-1.0, 0.0, 0.0, -1.0, x0 + width, y0 + height),
        270: (0.0, -1.0, 1.0, 0.0, x0, y0 + height),
    }[rotate % 360]


def _text_page(words: PageWords, scale: float) -> bytes:
    """One page of invisible words, in the upright frame of the image tesseract read (points)."""
    import reportlab
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    if FONT_NAME not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(FONT_NAME, str(Path(reportlab.__file__).parent / "fonts" / "Vera.ttf")))
    buffer = io.BytesIO()
    height = words.height * scale
    page = canvas.Canvas(buffer, pagesize=(words.width * scale, height), pageCompression=1)
    text = page.beginText()
    text.setTextRenderMode(3)  # neither filled nor stroked: invisible, still selectable and searchable
    for left, top, box_width, box_height, word in words.words:
        word = str(word)
        if not word.strip() or box_width <= 0 or box_height <= 0:
            continue
        size = max(box_height * scale, 1.0)
        natural = pdfmetrics.stringWidth(word, FONT_NAME, size)
        text.setFont(FONT_NAME, size)
        text.setHorizScale(100.0 * box_width * scale / natural if natural > 0 else 100.0)
        # Vera's descender is about a fifth of its size: the baseline sits that far above the box's bottom.
        text.setTextOrigin(left * scale, height - (top + box_height) * scale + 0.2 * size)
        text.textOut(word)
    page.drawText(text)
    page.showPage()
    page.save()
    return buffer.getvalue()


def make_searchable(original: Path, pages: Sequence[PageWords], target: Path, *, memory_bytes: int,
                    timeout_seconds: float) -> None:
    """Write to ``target`` the PDF at ``original`` with the words of ``pages`` laid invisibly over
    them, in a sandboxed call. Raises PermanentError when the original cannot be parsed or its pages
    do not match, and what a sandboxed call raises."""
    if launcher.inside():
        _make_searchable_here(original, pages, target)
        return
    try:
        call_sandboxed(
            "searchable.make", {
                "original": os.path.abspath(original), "target": os.path.abspath(target),
                "pages": [{"number": p.number, "width": p.width, "height": p.height, "turned": p.turned,
                           "words": [list(word) for word in p.words]} for p in pages],
            },
            memory_bytes=memory_bytes, progress_timeout_seconds=timeout_seconds, what="making the searchable PDF",
        )
    except ToolTimeoutError as error:
        raise error.as_job_error("making the searchable PDF") from error


@launcher.entry("searchable.make")
def _make_searchable_entry(arguments: Mapping[str, Any], progress: Callable[[Any], None]) -> None:
    pages = [PageWords(int(p["number"]), int(p["width"]), int(p["height"]), int(p["turned"]), p["words"])
             for p in arguments["pages"]]
    _make_searchable_here(Path(arguments["original"]), pages, Path(arguments["target"]), progress)


def _make_searchable_here(original: Path, pages: Sequence[PageWords], target: Path,
                          progress: Callable[[Any], None] | None = None) -> None:
    from pypdf import PdfReader, PdfWriter, Transformation
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(original)
        writer = PdfWriter(clone_from=reader)
    except (PdfReadError, ValueError, KeyError, TypeError) as error:
        raise PermanentError(f"the PDF cannot be read to add its text: {error}") from error
    for words in pages:
        if not 1 <= words.number <= len(writer.pages):
            raise PermanentError(f"page {words.number} has words, the PDF has {len(writer.pages)} pages")
        if not words.words:
            continue
        page = writer.pages[words.number - 1]
        box = page.cropbox
        x0, y0, box_width, box_height = float(box.left), float(box.bottom), float(box.width), float(box.height)
        rotate = int(page.get("/Rotate", 0) or 0) % 360
        shown_width = box_height if rotate in (90, 270) else box_width
        rendered_width = words.height if words.turned in (90, 270) else words.width
        scale = shown_width / rendered_width
        overlay = PdfReader(io.BytesIO(_text_page(words, scale))).pages[0]
        matrix = _compose(_unturn(words.turned, words.width * scale, words.height * scale),
                          _into_user_space(rotate, x0, y0, box_width, box_height))
        page.merge_transformed_page(overlay, Transformation(matrix), over=True)
        # Merging rewrites the page's content stream decoded: Flate it again (pypdf keeps the image
        # streams as they were, never re-encoded), or a scan's searchable copy grows several times.
        page.compress_content_streams()
        if progress is not None:
            progress(words.number)
    writer.compress_identical_objects()  # duplicates (the font, once a page) and unreferenced objects out
    temporary = target.with_name(target.name + ".part")
    with temporary.open("wb") as out:
        writer.write(out)
    temporary.replace(target)
