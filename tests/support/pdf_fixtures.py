"""Builders of the PDFs the pdf tests read: each writes one small file into a test's tmp_path.

Everything is made here with reportlab, PIL and pypdf, so the tests need no downloaded corpus:
born-digital pages, image-only "scans" (text drawn into a bitmap, optionally turned), pages whose text
layer is garbage although they look right, encrypted, truncated, page-less and oversized documents.
Pages are kept small (4 x 3 in) so that OCR stays well under a second a page.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import reportlab
from PIL import Image, ImageDraw, ImageFont
from pypdf import PdfReader, PdfWriter
from pypdf.generic import DictionaryObject, StreamObject
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

SCAN_DPI = 300
PAGE_POINTS = (288.0, 216.0)  # 4 x 3 in
VERA = Path(reportlab.__file__).parent / "fonts" / "Vera.ttf"  # shipped with reportlab: no system font needed

TENDER_LINES = (
    "The municipal water board invites",
    "sealed bids for the renewal of the",
    "drinking water pipeline in Harbour",
    "Street. Offers must reach the office",
    "before noon on the closing date.",
)
"""Words a test can look for after OCR: plain, common and long enough for tesseract's OSD."""


def born_digital_pdf(path: Path, pages: Sequence[Sequence[str]] = (TENDER_LINES,)) -> Path:
    """One page per entry of ``pages``, each line drawn as real text (Helvetica, a Unicode-mapped font)."""
    pdf = canvas.Canvas(str(path), pagesize=PAGE_POINTS)
    for lines in pages:
        _draw_lines(pdf, lines, font="Helvetica")
        pdf.showPage()
    pdf.save()
    return path


def text_image(lines: Sequence[str] = TENDER_LINES, *, rotate: int = 0, dpi: int = SCAN_DPI) -> Image.Image:
    """A grayscale bitmap of a PAGE_POINTS page at ``dpi`` with ``lines`` on it, turned ``rotate``
    degrees counter-clockwise (so it needs ``rotate`` degrees clockwise to read)."""
    width, height = (round(side * dpi / 72) for side in PAGE_POINTS)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(VERA), size=round(12 * dpi / 72))
    for index, line in enumerate(lines):
        draw.text((round(0.3 * dpi), round((0.35 + 0.4 * index) * dpi)), line, font=font, fill=0)
    return image.rotate(rotate, expand=True) if rotate else image


def scanned_pdf(path: Path, images: Sequence[Image.Image]) -> Path:
    """An image-only PDF, one page per image, each page exactly the image's size at SCAN_DPI."""
    pdf = canvas.Canvas(str(path))
    for image in images:
        size = (image.width * 72 / SCAN_DPI, image.height * 72 / SCAN_DPI)
        pdf.setPageSize(size)
        pdf.drawImage(ImageReader(image), 0, 0, width=size[0], height=size[1])
        pdf.showPage()
    pdf.save()
    return path


def text_over_scan_pdf(path: Path, image: Image.Image, lines: Sequence[str], *, invisible: bool) -> Path:
    """A scan with real text drawn over its top left corner: invisible (render mode 3, what OCR
    tools add) or visible (a page number stamped on a scan)."""
    size = (image.width * 72 / SCAN_DPI, image.height * 72 / SCAN_DPI)
    pdf = canvas.Canvas(str(path), pagesize=size)
    pdf.drawImage(ImageReader(image), 0, 0, width=size[0], height=size[1])
    text = pdf.beginText(20, size[1] - 12)
    text.setTextRenderMode(3 if invisible else 0)
    text.setFont("Helvetica", 6)
    for line in lines:
        text.textLine(line)
    pdf.drawText(text)
    pdf.showPage()
    pdf.save()
    return path


def garbage_text_layer_pdf(path: Path, unicode_of: Callable[[int], int], lines: Sequence[str] = TENDER_LINES) -> Path:
    """A page that LOOKS like ``lines`` (embedded Vera, drawn normally) but whose ToUnicode map sends
    each character code ``c`` to ``unicode_of(c)``: what a font without a usable Unicode map gives
    text extraction. Rendering uses the glyphs, not the map, so OCR still sees the real words."""
    return _remapped_text_pdf(path, [lines], lambda code, _: f"{unicode_of(code):04X}")


def form_feed_text_pdf(path: Path, pages: Sequence[Sequence[str]]) -> Path:
    """Pages drawn from ``pages`` whose ToUnicode map sends "x" to "x" + FORM FEED: text extraction
    then holds form feeds inside a page, where pdftotext also puts one after every page."""
    return _remapped_text_pdf(path, pages, lambda code, unicode: "0078000C" if code == ord("x") else unicode)


def _remapped_text_pdf(path: Path, pages: Sequence[Sequence[str]], remap: Callable[[int, str], str]) -> Path:
    """``pages`` drawn in embedded Vera, each single-code entry ``<code> <unicode>`` of the fonts'
    ToUnicode maps replaced by ``<code> <remap(code, unicode)>`` (hex UTF-16 code units)."""
    if "Vera" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("Vera", str(VERA)))
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=PAGE_POINTS)
    for lines in pages:
        _draw_lines(pdf, lines, font="Vera")
        pdf.showPage()
    pdf.save()
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(buffer.getvalue())))
    for page in writer.pages:
        resources = cast(DictionaryObject, page["/Resources"].get_object())
        fonts = cast(DictionaryObject, resources["/Font"].get_object())
        for name in fonts:
            font = cast(DictionaryObject, fonts[name].get_object())
            if "/ToUnicode" not in font:
                continue
            to_unicode = cast(StreamObject, font["/ToUnicode"].get_object())
            text = to_unicode.get_data().decode("ascii")
            if "tenderflow-remapped" in text:
                continue  # a font shared by several pages is remapped once
            remapped = re.sub(
                r"<([0-9A-F]{2})> <([0-9A-F]{4})>",
                lambda m: f"<{m.group(1)}> <{remap(int(m.group(1), 16), m.group(2))}>",
                text,
            )
            to_unicode.set_data(("% tenderflow-remapped\n" + remapped).encode("ascii"))
    writer.write(path)
    return path


def private_use(code: int) -> int:
    """ToUnicode target sending every code to the private use area (U+E000 + code)."""
    return 0xE000 + code


def glyph_id_shift(code: int) -> int:
    """ToUnicode target of a TrueType font whose glyph ids leaked out as characters: standard glyph
    order puts "a" at 68 ("D"), so letters come out 29 code points lower ("The" -> "7KH")."""
    return code - 29 if code >= 61 else code


def encrypted_pdf(path: Path, *, user_password: str, owner_password: str | None = None) -> Path:
    """A born-digital page encrypted with pypdf (user_password "" = opens without one)."""
    writer = PdfWriter(clone_from=PdfReader(born_digital_pdf(path.with_suffix(".plain.pdf"))))
    writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="AES-128")
    writer.write(path)
    return path


def truncated_pdf(path: Path) -> Path:
    """The first half of a born-digital PDF: the cross-reference table and trailer are gone."""
    data = born_digital_pdf(path.with_suffix(".whole.pdf")).read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def zero_page_pdf(path: Path) -> Path:
    """A well-formed PDF whose page tree is empty."""
    PdfWriter().write(path)
    return path


def blank_pages_pdf(path: Path, count: int, size: tuple[float, float] = PAGE_POINTS) -> Path:
    """``count`` empty pages of ``size`` points."""
    pdf = canvas.Canvas(str(path), pagesize=size)
    for _ in range(count):
        pdf.showPage()
    pdf.save()
    return path


def mixed_sizes_pdf(path: Path, sizes: Sequence[tuple[float, float]], rotate: Sequence[int] = ()) -> Path:
    """Blank pages of the given sizes in points, page i turned by /Rotate ``rotate[i]``."""
    pdf = canvas.Canvas(str(path))
    for size in sizes:
        pdf.setPageSize(size)
        pdf.drawString(10, 10, "x")
        pdf.showPage()
    pdf.save()
    writer = PdfWriter(clone_from=PdfReader(path))
    for page, degrees in zip(writer.pages, rotate, strict=False):
        page.rotate(degrees)
    writer.write(path)
    return path


def forged_metadata_pdf(path: Path, title: str) -> Path:
    """A two-page born-digital PDF whose /Title is ``title`` (pdfinfo prints titles raw)."""
    writer = PdfWriter(clone_from=PdfReader(born_digital_pdf(path.with_suffix(".plain.pdf"), [TENDER_LINES] * 2)))
    writer.add_metadata({"/Title": title})
    writer.write(path)
    return path


def slow_to_render_pdf(path: Path, draws: int = 500) -> Path:
    """One page that draws the same 1000 x 1000 image ``draws`` times: about 20 ms of pdftoppm work
    per draw at 300 dpi, none for pdftotext (text extraction skips images), and no text layer, so
    the page goes down the rendering path and spends its time there."""
    image = ImageReader(Image.linear_gradient("L").resize((1000, 1000)))
    pdf = canvas.Canvas(str(path), pagesize=PAGE_POINTS)
    # The image drawn once into a form, the form drawn `draws` times: the same page as `draws`
    # drawImage calls, written in milliseconds (reportlab hashes the image again at every drawImage).
    pdf.beginForm("gradient")
    pdf.drawImage(image, 0, 0, width=PAGE_POINTS[0], height=PAGE_POINTS[1])
    pdf.endForm()
    for _ in range(draws):
        pdf.doForm("gradient")
    pdf.showPage()
    pdf.save()
    return path


def png_file(path: Path) -> Path:
    """A file that is an image, not a PDF."""
    Image.new("L", (10, 10), 255).save(path, format="PNG")
    return path


CID_FONTS = {"ja": "HeiseiMin-W3", "zh": "STSong-Light", "zh-tw": "MSung-Light", "ko": "HYSMyeongJo-Medium"}
"""Adobe's standard CJK fonts, which reportlab references without embedding them: what many Asian public
PDFs do. Reading them needs poppler-data (and a CJK font to draw them), which `make` installs."""
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # Cyrillic and Greek (fonts-dejavu-core)
CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")  # Han, kana, Hangul (fonts-wqy-microhei)


def scripts_pdf(path: Path, pages: Sequence[tuple[str, Sequence[str]]]) -> Path:
    """Born-digital pages in other scripts, one per (script, lines): "ja", "zh", "zh-tw", "ko" in a non-embedded CID
    font, "cyrl" (Cyrillic, Greek, Latin) in DejaVu Sans, embedded."""
    from reportlab.pdfbase import cidfonts
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    # reportlab pairs its Traditional Chinese font with the Simplified encoding (UniGB): poppler then
    # finds no map for its characters. Its own encoding is UniCNS.
    cidfonts.defaultUnicodeEncodings["MSung-Light"] = ("cht", "UniCNS-UCS2-H")
    pdf = canvas.Canvas(str(path), pagesize=PAGE_POINTS)
    for script, lines in pages:
        if script in CID_FONTS:
            font = CID_FONTS[script]
            if font not in pdfmetrics.getRegisteredFontNames():
                pdfmetrics.registerFont(UnicodeCIDFont(font))
        else:
            font = "DejaVuSans"
            if font not in pdfmetrics.getRegisteredFontNames():
                pdfmetrics.registerFont(TTFont(font, str(DEJAVU)))
        _draw_lines(pdf, lines, font=font)
        pdf.showPage()
    pdf.save()
    return path


def script_image(lines: Sequence[str], *, font: Path, vertical: bool = False, dpi: int = SCAN_DPI) -> Image.Image:
    """A scan of `lines` in `font` (CJK_FONT, DEJAVU); `vertical`: each line written top to bottom, the
    lines right to left, as Japanese is set vertically."""
    width, height = (round(side * dpi / 72) for side in PAGE_POINTS)
    if vertical:
        width, height = height, width
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    size = round(12 * dpi / 72)
    face = ImageFont.truetype(str(font), size=size)
    for index, line in enumerate(lines):
        if vertical:
            x = width - round(0.4 * dpi) - index * round(size * 1.6)
            for row, character in enumerate(line):
                draw.text((x, round(0.3 * dpi) + row * round(size * 1.15)), character, font=face, fill=0)
        else:
            draw.text((round(0.3 * dpi), round((0.35 + 0.4 * index) * dpi)), line, font=face, fill=0)
    return image


def _draw_lines(pdf: canvas.Canvas, lines: Sequence[str], *, font: str) -> None:
    pdf.setFont(font, 12)
    for index, line in enumerate(lines):
        pdf.drawString(0.3 * 72, PAGE_POINTS[1] - (0.45 + 0.4 * index) * 72, line)


class ToolLog:
    """Every poppler and tesseract run, recorded by wrapper scripts put first on PATH (the real
    programs still run). Tools run in the sandbox's children, which a monkeypatch in the test process
    cannot reach; the PATH the tools are given can."""

    PROGRAMS = ("pdfinfo", "pdftotext", "pdftoppm", "tesseract")
    _SEPARATOR = "\x1f"

    def __init__(self, directory: Path, monkeypatch: Any) -> None:
        import os
        import shutil

        bin_dir = directory / "recording-bin"
        bin_dir.mkdir(parents=True)
        self.log = directory / "tool-runs.log"
        self.log.touch()
        for program in self.PROGRAMS:
            real = shutil.which(program)
            assert real is not None, f"{program} is not installed"
            wrapper = bin_dir / program
            wrapper.write_text(
                "#!/bin/sh\n"
                f"{{ printf '%s' {program}; for a in \"$@\"; do printf '\\037%s' \"$a\"; done; printf '\\n'; }}"
                f" >> '{self.log}'\n"
                f"exec '{real}' \"$@\"\n"
            )
            wrapper.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}")

    def calls(self) -> list[list[str]]:
        """Each run's program and arguments, in order; version queries left out (pdf2image asks
        `pdftoppm -v` before each render)."""
        runs = [line.split(self._SEPARATOR) for line in self.log.read_text().splitlines() if line]
        return [run for run in runs if not {"-v", "--version", "--list-langs"} & set(run[1:])]

    def programs(self) -> list[str]:
        return [run[0] for run in self.calls()]
