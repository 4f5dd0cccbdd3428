"""The set of sample tenders and `generate_samples`, which writes them as PDFs with their answer keys.

Seven notices in English, German and French, chosen to cover what the pipeline must handle:

    01  en  born-digital  eForms/TED notice with numbered sections
    02  de  born-digital  municipal letter on letterhead
    03  fr  born-digital  two-column gazette page
    04  en  born-digital  notice with a table of lots and weighted award criteria
    05  de  scanned       eForms notice, skewed and noisy
    06  fr  scanned       municipal letter scanned upside down
    07  en  scanned       12-page tender (notice, specification, landscape annex fed in sideways)

The facts, and so the answer keys, are fixed; the seed drives the specification text of the long
tender and every scan artefact, so one seed always gives the same files.
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tenderflow.samples import layouts
from tenderflow.samples.notices import (
    BUILDING_MAINTENANCE_EN,
    DAYCARE_CONSTRUCTION_DE,
    GREEN_SPACES_FR,
    IT_EQUIPMENT_LOTS_EN,
    ROADWORKS_EN,
    SCHOOL_CATERING_FR,
    SCHOOL_CLEANING_DE,
    Language,
    TenderFacts,
)
from tenderflow.samples.scanning import scan_pdf

SampleKind = Literal["born_digital", "scanned"]
Layout = Literal["eforms_notice", "municipal_letter", "two_column_bulletin", "lots_notice", "long_tender"]

_RENDERERS: dict[Layout, layouts.Renderer] = {
    "eforms_notice": layouts.render_eforms_notice,
    "municipal_letter": layouts.render_municipal_letter,
    "two_column_bulletin": layouts.render_two_column_bulletin,
    "lots_notice": layouts.render_lots_notice,
    "long_tender": layouts.render_long_tender,
}


@dataclass(frozen=True)
class SampleTender:
    """One generated PDF and what is known to be in it.

    `expected` is the answer key (see notices.EXPECTED_FIELDS). `rotated_pages` maps 1-based page
    numbers of a scan to how far their content is turned clockwise (90/180/270); pages not listed
    are upright apart from a small skew.
    """

    path: Path
    language: Language
    kind: SampleKind
    expected: dict[str, str]
    page_count: int
    layout: Layout
    rotated_pages: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Recipe:
    file_stem: str
    facts: TenderFacts
    layout: Layout
    kind: SampleKind
    rotate_first_page: int = 0  # clockwise degrees for the first page of a scan
    rotate_last_page: int = 0  # … and for the last page


_RECIPES = (
    _Recipe("01-en-roadworks-eforms-notice", ROADWORKS_EN, "eforms_notice", "born_digital"),
    _Recipe("02-de-schulreinigung-brief", SCHOOL_CLEANING_DE, "municipal_letter", "born_digital"),
    _Recipe("03-fr-restauration-scolaire-bulletin", SCHOOL_CATERING_FR, "two_column_bulletin", "born_digital"),
    _Recipe("04-en-it-equipment-lots", IT_EQUIPMENT_LOTS_EN, "lots_notice", "born_digital"),
    _Recipe("05-de-kita-rohbau-scan", DAYCARE_CONSTRUCTION_DE, "eforms_notice", "scanned"),
    _Recipe(
        "06-fr-espaces-verts-scan-upside-down",
        GREEN_SPACES_FR,
        "municipal_letter",
        "scanned",
        rotate_first_page=180,
    ),
    # The annex is printed landscape; a scanner fed portrait captures it turned by a quarter.
    _Recipe(
        "07-en-building-maintenance-long-scan",
        BUILDING_MAINTENANCE_EN,
        "long_tender",
        "scanned",
        rotate_last_page=90,
    ),
)


def generate_samples(out_dir: Path, *, seed: int = 7) -> list[SampleTender]:
    """Write the sample tender PDFs into `out_dir` (created if needed, files overwritten).

    Needs poppler's pdftoppm for the scanned samples (ConfigurationError without it). Takes a few
    seconds, most of it making the scans.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    samples = []
    with tempfile.TemporaryDirectory(prefix="tenderflow-samples-") as work_dir:
        for recipe in _RECIPES:
            # A string seed is hashed with SHA-512 by `random`, so it is stable across processes.
            rng = random.Random(f"{seed}/{recipe.file_stem}")  # noqa: S311 - sample noise, not a secret
            target = out_dir / f"{recipe.file_stem}.pdf"
            render = _RENDERERS[recipe.layout]
            rotated_pages: dict[int, int] = {}
            if recipe.kind == "born_digital":
                page_count = render(recipe.facts, target, rng)
            else:
                printed = Path(work_dir) / f"{recipe.file_stem}-printed.pdf"
                printed_pages = render(recipe.facts, printed, rng)
                if recipe.rotate_first_page:
                    rotated_pages[1] = recipe.rotate_first_page
                if recipe.rotate_last_page:
                    rotated_pages[printed_pages] = recipe.rotate_last_page
                page_count = scan_pdf(printed, target, rng=rng, page_rotations=rotated_pages)
            samples.append(
                SampleTender(
                    path=target,
                    language=recipe.facts.language,
                    kind=recipe.kind,
                    expected=recipe.facts.expected(),
                    page_count=page_count,
                    layout=recipe.layout,
                    rotated_pages=rotated_pages,
                )
            )
    return samples
