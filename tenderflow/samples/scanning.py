"""Turns a born-digital PDF into what a photocopier-scanner makes of its printout: an image-only PDF.

Every page is rendered by poppler (grayscale, 200 dpi by default), then worn the way real scans are:
a little contrast lost, a skew of 0.5-2 degrees, uneven paper tone, a slight blur, dust specks and
sensor grain, and optionally the whole sheet turned 90/180/270 degrees (fed in sideways or upside
down). The result carries no text layer, so only OCR can read it. All randomness comes from the
caller's `random.Random`, so a seed fixes every pixel.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from tenderflow.errors import ConfigurationError

SCAN_DPI = 200
_RENDER_TIMEOUT_SECONDS = 120
# PIL stamps the current time into the PDF unless told otherwise; a fixed date keeps output stable.
_FIXED_PDF_DATE = datetime(2025, 1, 1, tzinfo=UTC).utctimetuple()


def scan_pdf(
    source: Path,
    target: Path,
    *,
    rng: random.Random,
    dpi: int = SCAN_DPI,
    page_rotations: Mapping[int, int] | None = None,
) -> int:
    """Write an image-only "scan" of `source` to `target` and return its page count.

    `page_rotations` maps 1-based page numbers to 90, 180 or 270: how far that sheet's content ends
    up turned clockwise on the scan. Raises ConfigurationError if pdftoppm is not installed.
    """
    rotations = dict(page_rotations or {})
    if any(degrees not in (90, 180, 270) for degrees in rotations.values()):
        raise ValueError(f"page rotations must be 90, 180 or 270 degrees, got {rotations}")
    with tempfile.TemporaryDirectory(prefix="tenderflow-scan-") as work_dir:
        page_images = _render_pages(source, Path(work_dir), dpi=dpi)
        scanned = [
            _wear_like_a_scan(image, rng=rng, dpi=dpi, clockwise_degrees=rotations.get(number, 0))
            for number, image in enumerate(page_images, start=1)
        ]
    first, *rest = scanned
    first.save(
        target,
        "PDF",
        resolution=float(dpi),
        save_all=True,
        append_images=rest,
        quality=75,  # JPEG, as scanners produce; artefacts are part of what OCR must cope with
        title=source.stem,
        producer="tenderflow sample scanner",
        creationDate=_FIXED_PDF_DATE,
        modDate=_FIXED_PDF_DATE,
    )
    return len(scanned)


def _render_pages(source: Path, work_dir: Path, *, dpi: int) -> list[Image.Image]:
    if shutil.which("pdftoppm") is None:
        raise ConfigurationError("pdftoppm not found: install poppler-utils to make scanned samples")
    subprocess.run(
        ["pdftoppm", "-r", str(dpi), "-gray", str(source), str(work_dir / "page")],
        check=True,
        capture_output=True,
        timeout=_RENDER_TIMEOUT_SECONDS,
    )
    # Uncompressed PGM: PNG encoding would cost pdftoppm ten times the rendering itself. Page numbers
    # are zero-padded to a common width, so name order is page order.
    images = []
    for pgm in sorted(work_dir.glob("page-*.pgm")):
        with Image.open(pgm) as image:
            images.append(image.convert("L"))
    if not images:
        raise RuntimeError(f"pdftoppm rendered no pages from {source}")
    return images


def _wear_like_a_scan(page: Image.Image, *, rng: random.Random, dpi: int, clockwise_degrees: int) -> Image.Image:
    width, height = page.size
    # Toner never reaches full black and paper is never full white on a scan.
    worn = page.point(lambda value: 30 + value * 215 // 255)

    skew = rng.uniform(0.5, 2.0) * rng.choice((-1, 1))
    worn = worn.rotate(skew, resample=Image.Resampling.BICUBIC, fillcolor=245)

    # Uneven paper tone: coarse random blotches, smoothed by upscaling, darken the light areas only.
    coarse = (max(1, width // 96), max(1, height // 96))
    blotches = Image.frombytes("L", coarse, rng.randbytes(coarse[0] * coarse[1]))
    paper = blotches.resize(page.size, Image.Resampling.BICUBIC).point(lambda value: 230 + value * 22 // 255)
    worn = ImageChops.darker(worn, paper)

    worn = worn.filter(ImageFilter.GaussianBlur(radius=0.5 + rng.random() * 0.4))

    draw = ImageDraw.Draw(worn)
    speck_scale = dpi / 200
    for _ in range(rng.randint(300, 600)):  # fine dust
        x, y = rng.randrange(width), rng.randrange(height)
        radius = rng.uniform(0.4, 1.4) * speck_scale
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=rng.randint(60, 170))
    for _ in range(rng.randint(8, 20)):  # a few larger marks
        x, y = rng.randrange(width), rng.randrange(height)
        radius = rng.uniform(2.0, 4.5) * speck_scale
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=rng.randint(40, 120))

    grain = Image.frombytes("L", page.size, rng.randbytes(width * height))
    worn = Image.blend(worn, grain, 0.05)

    if clockwise_degrees:
        # PIL turns counter-clockwise for positive angles.
        worn = worn.rotate(-clockwise_degrees, expand=True)
    return worn
