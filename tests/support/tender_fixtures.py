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
