"""probe_pdf: every refusal happens before rendering, with a reason a user can act on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenderflow.errors import PermanentError
from tenderflow.pdf.probe import PageSize, PdfLimits, probe_pdf
from tests.support import pdf_fixtures as fixtures

LIMITS = PdfLimits(max_pages=50, max_page_pixels=40_000_000, dpi=300, timeout_seconds=30, memory_bytes=1024**3)


def test_probe_reports_page_sizes_and_rotation(tmp_path: Path) -> None:
    path = fixtures.mixed_sizes_pdf(tmp_path / "mixed.pdf", [(595, 842), (792, 612)], rotate=[0, 90])
    info = probe_pdf(path, LIMITS)
    assert info.page_count == 2
    assert not info.encrypted
    assert info.pages == (PageSize(1, 595.0, 842.0, 0), PageSize(2, 792.0, 612.0, 90))
    assert info.pages[0].pixels_at(300) == (2480, 3509)


def test_probe_refuses_a_pdf_that_needs_a_password(tmp_path: Path) -> None:
    path = fixtures.encrypted_pdf(tmp_path / "locked.pdf", user_password="x")
    with pytest.raises(PermanentError) as raised:
        probe_pdf(path, LIMITS)
    assert str(raised.value) == "the PDF is encrypted and needs a password; upload an unprotected copy"


def test_probe_accepts_an_owner_password_only_pdf(tmp_path: Path) -> None:
    path = fixtures.encrypted_pdf(tmp_path / "restricted.pdf", user_password="", owner_password="owner")
    info = probe_pdf(path, LIMITS)
    assert info.encrypted
    assert info.page_count == 1


def test_probe_refuses_a_truncated_pdf_with_poppler_reason(tmp_path: Path) -> None:
    with pytest.raises(PermanentError, match=r"^the PDF cannot be read: .*xref"):
        probe_pdf(fixtures.truncated_pdf(tmp_path / "cut.pdf"), LIMITS)


def test_probe_refuses_a_pdf_without_pages(tmp_path: Path) -> None:
    with pytest.raises(PermanentError, match="^the PDF has no pages$"):
        probe_pdf(fixtures.zero_page_pdf(tmp_path / "empty.pdf"), LIMITS)


def test_probe_refuses_files_that_are_not_pdfs(tmp_path: Path) -> None:
    with pytest.raises(PermanentError, match=r"not a PDF \(it does not start with %PDF-\)"):
        probe_pdf(fixtures.png_file(tmp_path / "image.pdf"), LIMITS)
    empty = tmp_path / "nothing.pdf"
    empty.write_bytes(b"")
    with pytest.raises(PermanentError, match="^the file is empty$"):
        probe_pdf(empty, LIMITS)


def test_probe_refuses_more_pages_than_the_cap(tmp_path: Path) -> None:
    path = fixtures.blank_pages_pdf(tmp_path / "long.pdf", 6)
    assert probe_pdf(path, PdfLimits(max_pages=6)).page_count == 6
    with pytest.raises(PermanentError, match="^the PDF has 6 pages; at most 5 are accepted$"):
        probe_pdf(path, PdfLimits(max_pages=5))


def test_probe_refuses_a_page_over_the_pixel_cap_naming_it(tmp_path: Path) -> None:
    # Page 2 is 100 x 50 in: 30000 x 15000 pixels at 300 dpi.
    path = fixtures.mixed_sizes_pdf(tmp_path / "poster.pdf", [(595, 842), (7200, 3600)])
    with pytest.raises(PermanentError) as raised:
        probe_pdf(path, LIMITS)
    message = str(raised.value)
    assert message.startswith("page 2 is 7200 x 3600 pt (100.0 x 50.0 in)")
    assert "30000 x 15000 = 450,000,000 pixels at 300 dpi" in message
    assert "at most 40,000,000" in message
    # The same page passes at a resolution where it fits.
    assert probe_pdf(path, PdfLimits(max_page_pixels=40_000_000, dpi=72)).page_count == 2


def test_probe_is_not_fooled_by_forged_lines_in_the_title(tmp_path: Path) -> None:
    # pdfinfo prints the title raw, before the real lines; a forged page count or page size must lose.
    forged = "x\nPages:          1\nEncrypted:       yes\nPage    1 size:  99999 x 99999 pts"
    info = probe_pdf(fixtures.forged_metadata_pdf(tmp_path / "forged.pdf", forged), LIMITS)
    assert info.page_count == 2
    assert not info.encrypted
    assert info.pages[0].width_points == fixtures.PAGE_POINTS[0]
