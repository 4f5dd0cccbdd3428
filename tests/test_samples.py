"""The sample tenders: valid PDFs that say what their answer keys claim, scans that only OCR can read."""

from __future__ import annotations

import hashlib
import os
import random
import re
import subprocess
from datetime import date
from decimal import Decimal
from pathlib import Path

import pypdf
import pytest

from tenderflow.samples import EXPECTED_FIELDS, SampleTender, generate_samples
from tenderflow.samples.layouts import render_eforms_notice, render_municipal_letter
from tenderflow.samples.notices import GERMAN, ROADWORKS_EN, SCHOOL_CLEANING_DE, WORDING
from tenderflow.samples.scanning import scan_pdf

# What each language's notices must literally say, so extraction has real labels to find.
LANGUAGE_LABELS = {
    "en": [
        "Contracting authority",
        "Reference number",
        "Time limit for receipt of tenders",
        "Estimated total value",
        "Main CPV code",
        "Type of procedure",
    ],
    "de": [
        "Öffentlicher Auftraggeber",
        "Vergabenummer",
        "Schlusstermin für den Eingang der Angebote",
        "Geschätzter Gesamtwert",
    ],
    "fr": [
        "Pouvoir adjudicateur",
        "Numéro de référence",
        "Date limite de réception des offres",
        "Valeur totale estimée",
    ],
}
# Tesseract spawns one OpenMP thread per core per page; on a small CI box that is slower, not faster.
SINGLE_THREADED = {**os.environ, "OMP_THREAD_LIMIT": "1"}


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> list[SampleTender]:
    return generate_samples(tmp_path_factory.mktemp("samples"))


def pdf_text(path: Path, *, page: int | None = None) -> str:
    pages = ["-f", str(page), "-l", str(page)] if page else []
    return subprocess.run(
        ["pdftotext", "-enc", "UTF-8", *pages, str(path), "-"], check=True, capture_output=True, text=True
    ).stdout


def one_line(text: str) -> str:
    """Whitespace collapsed, so values wrapped across lines or columns still match."""
    return " ".join(text.split())


def render_page(path: Path, page: int, out_prefix: Path) -> Path:
    subprocess.run(
        ["pdftoppm", "-r", "200", "-gray", "-f", str(page), "-l", str(page), "-singlefile", str(path), str(out_prefix)],
        check=True,
        timeout=60,
    )
    return out_prefix.with_suffix(".pgm")


def test_samples_cover_languages_kinds_layouts_and_hard_cases(samples: list[SampleTender]) -> None:
    assert 6 <= len(samples) <= 8
    assert {sample.language for sample in samples} >= {"en", "de", "fr"}
    assert {sample.kind for sample in samples} == {"born_digital", "scanned"}
    born_digital_layouts = {sample.layout for sample in samples if sample.kind == "born_digital"}
    assert born_digital_layouts >= {"eforms_notice", "municipal_letter", "two_column_bulletin", "lots_notice"}
    turned = {degrees for sample in samples for degrees in sample.rotated_pages.values()}
    assert turned & {90, 180}, "at least one scanned page must be sideways or upside down"
    assert any(10 <= sample.page_count <= 14 for sample in samples), "a long tender for page batching"
    assert len({sample.path for sample in samples}) == len(samples)


def test_every_sample_is_a_pdf_with_the_page_count_it_reports(samples: list[SampleTender]) -> None:
    for sample in samples:
        assert sample.path.read_bytes()[:5] == b"%PDF-", sample.path
        assert len(pypdf.PdfReader(sample.path).pages) == sample.page_count, sample.path


def test_answer_keys_are_complete_and_normalised(samples: list[SampleTender]) -> None:
    for sample in samples:
        expected = sample.expected
        assert tuple(expected) == EXPECTED_FIELDS
        assert all(value.strip() == value and value for value in expected.values())
        date.fromisoformat(expected["submission_deadline"])
        assert Decimal(expected["estimated_value_amount"]) > 0
        assert re.fullmatch(r"\d+\.\d\d", expected["estimated_value_amount"])
        assert re.fullmatch(r"[A-Z]{3}", expected["estimated_value_currency"])
        assert re.fullmatch(r"\d{8}-\d", expected["main_cpv_code"])
        assert expected["procedure_type"] in {"open", "restricted", "neg-w-call"}
    references = [sample.expected["reference_number"] for sample in samples]
    assert len(set(references)) == len(references)


def test_born_digital_text_layer_states_every_fact_with_the_language_labels(samples: list[SampleTender]) -> None:
    born_digital = [sample for sample in samples if sample.kind == "born_digital"]
    assert born_digital
    for sample in born_digital:
        text = one_line(pdf_text(sample.path))
        expected = sample.expected
        wording = WORDING[sample.language]
        deadline = date.fromisoformat(expected["submission_deadline"])
        for fact in ("title", "buyer_name", "reference_number", "main_cpv_code", "estimated_value_currency"):
            assert expected[fact] in text, (sample.path.name, fact)
        assert wording.amount(Decimal(expected["estimated_value_amount"])) in text, sample.path.name
        assert wording.numeric_date(deadline) in text or wording.long_date(deadline) in text, sample.path.name
        assert wording.procedure_names[expected["procedure_type"]] in text, sample.path.name
        for label in LANGUAGE_LABELS[sample.language]:
            assert label in text, (sample.path.name, label)


def test_scanned_samples_have_no_text_layer(samples: list[SampleTender]) -> None:
    scanned = [sample for sample in samples if sample.kind == "scanned"]
    assert scanned
    for sample in scanned:
        assert pdf_text(sample.path).strip() == "", sample.path.name
        for page in pypdf.PdfReader(sample.path).pages:
            resources = page["/Resources"]
            assert "/Font" not in resources
            assert len(resources["/XObject"]) == 1  # the page is one scanned image


def test_rotated_pages_are_turned_the_way_the_answer_key_says(samples: list[SampleTender], tmp_path: Path) -> None:
    rotated = [(sample, page, degrees) for sample in samples for page, degrees in sample.rotated_pages.items()]
    assert rotated
    for sample, page, degrees in rotated:
        image = render_page(sample.path, page, tmp_path / f"{sample.path.stem}-{page}")
        osd = subprocess.run(
            ["tesseract", str(image), "-", "--psm", "0"],
            capture_output=True,
            text=True,
            env=SINGLE_THREADED,
            timeout=60,
        ).stdout
        # Tesseract reports the clockwise turn that makes the page upright.
        assert f"Rotate: {(360 - degrees) % 360}" in osd, (sample.path.name, page, osd)


def test_tesseract_reads_the_reference_number_from_a_skewed_noisy_scan(
    samples: list[SampleTender], tmp_path: Path
) -> None:
    sample = next(s for s in samples if s.kind == "scanned" and s.language == "de" and not s.rotated_pages)
    image = render_page(sample.path, 1, tmp_path / "page")

    ocr_text = subprocess.run(
        ["tesseract", str(image), "-", "-l", GERMAN.tesseract_language],
        check=True,
        capture_output=True,
        text=True,
        env=SINGLE_THREADED,
        timeout=60,
    ).stdout

    reference = sample.expected["reference_number"]
    assert re.search(rf"{GERMAN.reference_number}\W{{0,3}}{re.escape(reference)}", ocr_text), ocr_text


def test_born_digital_rendering_is_byte_for_byte_reproducible(tmp_path: Path) -> None:
    for facts, render in ((ROADWORKS_EN, render_eforms_notice), (SCHOOL_CLEANING_DE, render_municipal_letter)):
        first, second = tmp_path / "first.pdf", tmp_path / "second.pdf"
        render(facts, first, random.Random(1))
        render(facts, second, random.Random(2))
        assert first.read_bytes() == second.read_bytes(), facts.reference_number


def test_scans_are_fixed_by_the_seed_and_vary_with_it(tmp_path: Path) -> None:
    printed = tmp_path / "printed.pdf"
    render_eforms_notice(ROADWORKS_EN, printed, random.Random(0))

    def scan(seed: str, name: str) -> str:
        target = tmp_path / name
        scan_pdf(printed, target, rng=random.Random(seed))
        return hashlib.sha256(target.read_bytes()).hexdigest()

    assert scan("7", "a.pdf") == scan("7", "b.pdf")
    assert scan("7", "a.pdf") != scan("8", "c.pdf")
