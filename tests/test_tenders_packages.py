"""ZIP packages unpacked as hostile input (tenderflow.tenders.packages): refused whole for a zip bomb, a
path leaving the package, an encrypted or corrupt archive, no PDF in it; otherwise every member decided on
and listed, with nested folders, duplicates by content, and office files read or refused with a reason."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tenderflow.errors import PackageRejectedError
from tenderflow.tenders.packages import PackageLimits, unpack
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf, zip_package


@pytest.fixture
def pdf(tmp_path: Path) -> bytes:
    return text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]).read_bytes()


def unpacked(tmp_path: Path, package: Path) -> dict[str, tuple[str, str]]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return {m.path: (m.status, m.reason or "") for m in unpack(package, work).members}


def test_members_in_nested_folders_are_documents_and_the_same_bytes_twice_are_one(tmp_path: Path, pdf: bytes) -> None:
    package = zip_package(tmp_path / "p.zip", {
        "tender/01 notice.pdf": pdf, "tender/addenda/deep/er/still/a1.pdf": pdf + b"\n% another\n",
        "tender/copy of notice.pdf": pdf, "tender/readme.txt": b"read me", "__MACOSX/._notice.pdf": b"junk",
        "tender/empty/": b""})
    members = unpacked(tmp_path, package)
    assert members["tender/01 notice.pdf"] == ("document", "")
    assert members["tender/addenda/deep/er/still/a1.pdf"] == ("document", "")
    assert members["tender/copy of notice.pdf"] == ("duplicate", "the same bytes as tender/01 notice.pdf")
    assert members["tender/readme.txt"] == ("refused", "not a PDF (no %PDF- header, a .txt file)")
    assert members["__MACOSX/._notice.pdf"][0] == "refused"
    assert "tender/empty/" not in members  # a folder is no member


def test_a_zip_bomb_is_refused_whole_before_anything_is_unpacked(tmp_path: Path, pdf: bytes) -> None:
    package = zip_package(tmp_path / "bomb.zip", {"notice.pdf": pdf, "zeros.pdf": b"%PDF-" + bytes(50_000_000)})
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(PackageRejectedError, match="zip bomb is refused whole"):
        unpack(package, work)
    assert list(work.iterdir()) == []
    with pytest.raises(PackageRejectedError, match="unpacks to more than"):
        unpack(zip_package(tmp_path / "big.zip", {"a.pdf": pdf, "b.pdf": pdf + b" "}), tmp_path,
               PackageLimits(max_total_bytes=len(pdf)))
    with pytest.raises(PackageRejectedError, match="entries"):
        unpack(zip_package(tmp_path / "many.zip", {f"{n}.pdf": pdf for n in range(5)}), tmp_path,
               PackageLimits(max_entries=4))


def test_an_entry_that_unpacks_to_more_than_it_declares_is_refused(tmp_path: Path, pdf: bytes) -> None:
    package = zip_package(tmp_path / "liar.zip", {"notice.pdf": pdf})
    data = bytearray(package.read_bytes())
    central = data.rfind(b"PK\x01\x02")  # the central directory's entry: its uncompressed size at +24
    data[central + 24:central + 28] = (100).to_bytes(4, "little")
    package.write_bytes(bytes(data))
    # zipfile stops at the size declared (and its CRC then fails); the reader counts what arrives too.
    with pytest.raises(PackageRejectedError, match="cannot be unpacked|unpacks to more than it declares"):
        unpack(package, tmp_path)


@pytest.mark.parametrize("name", ["../escape.pdf", "/etc/passwd.pdf", "a/../../b.pdf", "C:/windows/x.pdf",
                                  "..\\windows\\x.pdf"])
def test_a_path_that_leaves_the_package_refuses_it_whole(tmp_path: Path, pdf: bytes, name: str) -> None:
    package = zip_package(tmp_path / "traversal.zip", {"notice.pdf": pdf, name: pdf + b" "})
    inside = tmp_path / "package" / "work"
    inside.mkdir(parents=True)
    with pytest.raises(PackageRejectedError, match="leaves the package"):
        unpack(package, inside)
    assert list(inside.iterdir()) == [] and not (tmp_path / "package" / "escape.pdf").exists()


def test_a_symbolic_link_refuses_the_package(tmp_path: Path, pdf: bytes) -> None:
    package = zip_package(tmp_path / "link.zip", {"notice.pdf": pdf, "secret.pdf": b"/etc/shadow"},
                          links=["secret.pdf"])
    with pytest.raises(PackageRejectedError, match="symbolic link"):
        unpack(package, tmp_path)


def test_an_encrypted_package_is_refused_with_the_reason(tmp_path: Path, pdf: bytes) -> None:
    package = zip_package(tmp_path / "locked.zip", {"notice.pdf": pdf}, encrypted=["notice.pdf"])
    with pytest.raises(PackageRejectedError, match="encrypted .* needs a password"):
        unpack(package, tmp_path)


def test_a_corrupt_package_is_refused(tmp_path: Path, pdf: bytes) -> None:
    package = zip_package(tmp_path / "p.zip", {"notice.pdf": pdf})
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(package.read_bytes()[:-40])
    with pytest.raises(PackageRejectedError, match="not a ZIP file, or its directory is damaged"):
        unpack(truncated, tmp_path)
    stored = tmp_path / "stored.zip"  # stored, not deflated: flip a byte of the PDF and the CRC fails
    with zipfile.ZipFile(stored, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("notice.pdf", pdf)
    data = bytearray(stored.read_bytes())
    data[100] ^= 0xFF
    stored.write_bytes(bytes(data))
    with pytest.raises(PackageRejectedError, match="cannot be unpacked"):
        unpack(stored, tmp_path)


def test_a_package_without_a_pdf_is_refused_naming_what_it_holds(tmp_path: Path) -> None:
    package = zip_package(tmp_path / "none.zip", {"notes.txt": b"hello", "form.docx": b"PK\x03\x04 not read"})
    with pytest.raises(PackageRejectedError, match="holds no PDF") as refused:
        unpack(package, tmp_path)
    assert "DOCX" in str(refused.value)


def test_a_spreadsheet_becomes_a_text_pdf_and_a_word_document_is_refused_with_the_reason(
    tmp_path: Path, pdf: bytes,
) -> None:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(["Item", "Description", "Unit rate"])
    sheet.append(["A.1", "Planned maintenance, schools", 1250])
    workbook.save(tmp_path / "prices.xlsx")
    package = zip_package(tmp_path / "p.zip", {
        "notice.pdf": pdf, "annexes/prices.xlsx": (tmp_path / "prices.xlsx").read_bytes(),
        "annexes/form.docx": b"PK\x03\x04whatever", "annexes/old.xls": b"\xd0\xcf\x11\xe0"})
    work = tmp_path / "work"
    work.mkdir()
    members = {m.path: m for m in unpack(package, work).members}
    prices = members["annexes/prices.xlsx"]
    assert prices.status == "document" and prices.converted_from == "xlsx" and prices.file is not None
    import subprocess

    text = subprocess.run(["pdftotext", str(prices.file), "-"], capture_output=True, text=True, check=True).stdout
    assert "Planned maintenance, schools" in text and "1250" in text
    word = members["annexes/form.docx"]
    assert word.status == "refused" and "save it as PDF" in str(word.reason)
    assert members["annexes/old.xls"].status == "refused"
