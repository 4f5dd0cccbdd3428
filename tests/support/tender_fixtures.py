"""Small tender PDFs built by the tests themselves (reportlab), born-digital or scanned-looking."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

TENDER_PAGE = [
    "CONTRACT NOTICE",
    "Section I: Contracting authority",
    "Official name: City of Example Harbour",
    "Country: NL",
    "Section II: Object",
    "Title: Cleaning services for municipal buildings",
    "Reference number: EH-2026-0417",
    "Main CPV code: 90910000-9",
    "Type of procedure: Open procedure",
    "Estimated total value: EUR 1 250 000.00",
    "Time limit for receipt of tenders: 2026-03-15 12:00",
]


def text_pdf(path: Path, pages: Sequence[Sequence[str]]) -> Path:
    """A born-digital PDF: each page's lines as real text."""
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for lines in pages:
        y = 800
        for line in lines:
            pdf.setFont("Helvetica", 12)
            pdf.drawString(60, y, line)
            y -= 22
        pdf.showPage()
    pdf.save()
    return path


def scanned_pdf(path: Path, pages: Sequence[Sequence[str]], *, dpi: int = 150) -> Path:
    """An image-only PDF (no text layer): each page's lines drawn into a bitmap."""
    width, height = int(8.27 * dpi), int(11.69 * dpi)
    try:
        font: ImageFont.FreeTypeFont | ImageFont.ImageFont = ImageFont.truetype("DejaVuSans.ttf", int(dpi / 6))
    except OSError:
        font = ImageFont.load_default(size=int(dpi / 6))
    images = []
    for lines in pages:
        image = Image.new("L", (width, height), 255)
        draw = ImageDraw.Draw(image)
        y = int(dpi * 0.8)
        for line in lines:
            draw.text((int(dpi * 0.8), y), line, fill=0, font=font)
            y += int(dpi / 3.5)
        images.append(image)
    buffer = io.BytesIO()
    images[0].save(buffer, format="PDF", resolution=dpi, save_all=True, append_images=images[1:])
    path.write_bytes(buffer.getvalue())
    return path


def numbered_pages(count: int) -> list[list[str]]:
    """`count` pages; page 1 is the tender notice, the others say which page they are."""
    return [TENDER_PAGE] + [[f"Specification page {n}", f"Marker PAGE-{n:03d}"] for n in range(2, count + 1)]


def zip_package(path: Path, members: dict[str, bytes], *, encrypted: Sequence[str] = (),
                links: Sequence[str] = ()) -> Path:
    """A ZIP of `members` (path inside -> bytes), compressed. Entries named in `encrypted` carry the
    encryption flag as a password-protected entry does (what the reader refuses on); those in `links`
    are symbolic links (their bytes the target)."""
    import stat
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(2025, 2, 3, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            if name in links:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, data)
    if encrypted:  # zipfile writes no encryption: set the flag in the central directory's entries
        raw = bytearray(path.read_bytes())
        start = raw.find(b"PK\x01\x02")
        while start != -1:
            name_length = int.from_bytes(raw[start + 28:start + 30], "little")
            if raw[start + 46:start + 46 + name_length].decode() in encrypted:
                raw[start + 8] |= 0x1
            start = raw.find(b"PK\x01\x02", start + 46)
        path.write_bytes(bytes(raw))
    return path
