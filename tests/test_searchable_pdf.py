"""PDFs back (issue 13): the original and a searchable copy over the tenants' API and the CLI.

The searchable copy is checked as a viewer would use it: poppler's pdftotext finds the OCRed words on
their pages, at the place the scan shows them (pdftotext -bbox), also on a page that was scanned
turned and on one whose PDF page carries /Rotate; text-layer pages come back as they were."""

from __future__ import annotations

import os
import re
import stat
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pypdf import PdfReader, PdfWriter
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.config import Settings
from tenderflow.pipeline.storage import open_storage
from tests.support import pdf_fixtures as fixtures
from tests.support.api_harness import RunningApi, bearer, settings_env, tenant_with_key
from tests.support.pipeline_harness import drain

WORDS = ("municipal", "water", "board", "sealed", "pipeline", "Harbour")


pytestmark = [pytest.mark.ocr,
              pytest.mark.settings(ocr_dpi=300, ocr_languages="eng", ocr_detect_languages=False)]


def upload(api: RunningApi, key: str, path: Path) -> int:
    with path.open("rb") as handle:
        response = api.client.post("/v1/documents", headers=bearer(key),
                                   files={"file": (path.name, handle, "application/pdf")})
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def pdftotext(path: Path, page: int) -> str:
    return subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), str(path), "-"],
                          capture_output=True, text=True, check=True).stdout


def word_boxes(path: Path, page: int) -> dict[str, tuple[float, float, float, float]]:
    """Each word pdftotext finds on the page with its box (xMin, yMin, xMax, yMax; points from the
    top left of the page as shown), the first box per word."""
    html = subprocess.run(["pdftotext", "-bbox", "-f", str(page), "-l", str(page), str(path), "-"],
                          capture_output=True, text=True, check=True).stdout
    boxes: dict[str, tuple[float, float, float, float]] = {}
    for x0, y0, x1, y1, word in re.findall(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>', html):
        boxes.setdefault(word, (float(x0), float(y0), float(x1), float(y1)))
    return boxes


def mixed_document(tmp_path: Path) -> Path:
    """Page 1 born-digital; page 2 an upright scan; page 3 a scan fed in turned (it needs 90 degrees
    clockwise to read); page 4 an upright scan in a page that says /Rotate 90."""
    born = fixtures.born_digital_pdf(tmp_path / "born.pdf", [["Annex B, the born-digital cover of this tender"]])
    upright = fixtures.scanned_pdf(tmp_path / "upright.pdf", [fixtures.text_image()])
    turned = fixtures.scanned_pdf(tmp_path / "turned.pdf", [fixtures.text_image(rotate=90)])
    rotated = PdfReader(fixtures.scanned_pdf(tmp_path / "rotated.pdf", [fixtures.text_image(rotate=90)]))
    writer = PdfWriter()
    for part in (born, upright, turned):
        writer.append(str(part))
    writer.add_page(rotated.pages[0])
    writer.pages[3].rotate(90)  # shown turned back upright: the viewer shows it readable
    path = tmp_path / "mixed.pdf"
    with path.open("wb") as out:
        writer.write(out)
    return path


def _inside(point: tuple[float, float], box: tuple[float, float, float, float], slack: float) -> bool:
    x, y = point
    return box[0] - slack <= x <= box[2] + slack and box[1] - slack <= y <= box[3] + slack


def test_a_searchable_pdf_has_the_ocred_words_on_their_pages_at_their_place(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    key = tenant_with_key(conn, "acme")
    source = mixed_document(tmp_path)
    document = upload(api, key, source)

    busy = api.client.get(f"/v1/documents/{document}/searchable.pdf", headers=bearer(key))
    assert busy.status_code == 409 and busy.headers["retry-after"] == "5", busy.text
    original = api.client.get(f"/v1/documents/{document}/pdf", headers=bearer(key))  # at any state
    assert original.status_code == 200 and original.content == source.read_bytes()
    assert original.headers["content-type"] == "application/pdf"

    drain(api.services.pool, settings, open_storage(settings.resolved_storage_url))
    response = api.client.get(f"/v1/documents/{document}/searchable.pdf", headers=bearer(key))
    assert response.status_code == 200, response.text
    assert 'filename="mixed-searchable.pdf"' in response.headers["content-disposition"]
    searchable = tmp_path / "searchable.pdf"
    searchable.write_bytes(response.content)

    assert "born-digital cover" in pdftotext(searchable, 1)
    assert pdftotext(source, 2).strip() == ""  # the scans had no text of their own
    for page in (2, 3, 4):
        text = pdftotext(searchable, page)
        missing = [word for word in WORDS if word not in text]
        assert not missing, f"page {page} lacks {missing}: {text!r}"
    # Where the scan shows "municipal": near the top left of the upright page (its first line, after
    # "The "); on the page fed in turned a quarter counter-clockwise, at the same spot turned with it
    # (the upright page's (x, y) from the top left is (y, 288 - x) there); on the /Rotate page, as on
    # the upright one, since the viewer turns it upright.
    upright = word_boxes(searchable, 2)["municipal"]
    assert upright[0] < 100 and upright[3] < 60 and upright[2] - upright[0] > upright[3] - upright[1], upright
    center = ((upright[0] + upright[2]) / 2, (upright[1] + upright[3]) / 2)
    turned = word_boxes(searchable, 3)["municipal"]
    assert _inside((center[1], fixtures.PAGE_POINTS[0] - center[0]), turned, slack=4), (center, turned)
    assert turned[3] - turned[1] > turned[2] - turned[0]  # it runs bottom to top, as the scan shows it
    rotated = word_boxes(searchable, 4)["municipal"]
    assert _inside(center, rotated, slack=4), (center, rotated)

    # The original pages are kept: same count, same sizes, same /Rotate, page 1 untouched.
    before, after = PdfReader(source), PdfReader(searchable)
    assert len(after.pages) == len(before.pages)
    for old, new in zip(before.pages, after.pages, strict=True):
        assert (old.mediabox, old.get("/Rotate")) == (new.mediabox, new.get("/Rotate"))
    assert before.pages[0].extract_text() == after.pages[0].extract_text()

    again = api.client.get(f"/v1/documents/{document}/searchable.pdf", headers=bearer(key))
    assert again.content == response.content  # stored by reference: the same copy, not made again
    stored = conn.execute("SELECT searchable_key FROM document_versions WHERE document_id = %s", (document,))
    assert str(stored.fetchone()[0]).startswith("tenants/acme/searchable/")


def test_another_tenants_pdfs_do_not_exist_for_a_tenant(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    acme, globex = tenant_with_key(conn, "acme"), tenant_with_key(conn, "globex")
    document = upload(api, acme, fixtures.scanned_pdf(tmp_path / "scan.pdf", [fixtures.text_image()]))
    drain(api.services.pool, settings, open_storage(settings.resolved_storage_url))
    for path in ("pdf", "searchable.pdf"):
        theirs = api.client.get(f"/v1/documents/{document}/{path}", headers=bearer(globex))
        nobodys = api.client.get(f"/v1/documents/{document + 1000}/{path}", headers=bearer(globex))
        assert theirs.status_code == nobodys.status_code == 404, (path, theirs.text)
        assert theirs.json()["detail"] == f"no document with id {document}"
        assert api.client.get(f"/v1/documents/{document}/{path}").status_code == 401


def test_tenderflow_download_writes_the_original_and_the_searchable_copy(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    key = tenant_with_key(conn, "acme")
    scan = fixtures.scanned_pdf(tmp_path / "notice.pdf", [fixtures.text_image()])
    document = upload(api, key, scan)
    env = settings_env(settings)
    early = CliRunner().invoke(app, ["download", str(document), "--searchable", "-o", str(tmp_path / "x.pdf")],
                               env=env)
    assert early.exit_code == 1 and "no finished version yet" in early.output
    drain(api.services.pool, settings, open_storage(settings.resolved_storage_url))
    original = CliRunner().invoke(app, ["download", str(document), "-o", str(tmp_path / "original.pdf")], env=env)
    assert original.exit_code == 0, original.output
    assert (tmp_path / "original.pdf").read_bytes() == scan.read_bytes()
    searchable = CliRunner().invoke(app, ["download", str(document), "--searchable", "-o",
                                          str(tmp_path / "searchable.pdf")], env=env)
    assert searchable.exit_code == 0, searchable.output
    assert all(word in pdftotext(tmp_path / "searchable.pdf", 1) for word in WORDS)
    missing = CliRunner().invoke(app, ["download", str(document + 1000)], env=env)
    assert missing.exit_code == 1 and f"no document with id {document + 1000}" in missing.output


REAL_SCAN = Path(__file__).parent / "data" / "scans" / "c02-22.pdf"


def _streams(reader: PdfReader) -> list[tuple[Any, Any, bytes]]:
    """Each page's image XObjects as stored: (filter, size, encoded bytes)."""
    found = []
    for page in reader.pages:
        for image in page["/Resources"].get("/XObject", {}).values():
            image = image.get_object()
            if image.get("/Subtype") == "/Image":
                found.append((image.get("/Filter"), (image["/Width"], image["/Height"]), image._data))
    return found


def test_a_real_scans_searchable_copy_stays_near_its_size_keeps_its_images_and_a_normal_mode(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    """The review: 826 KB -> 2.1 MB and 505 KB -> 3.4 MB (the original's compressed page contents
    written back decoded, a font copy a page), files mode 0600. A real scanned page, OCRed."""
    key = tenant_with_key(conn, "acme")
    document = upload(api, key, REAL_SCAN)
    drain(api.services.pool, settings, open_storage(settings.resolved_storage_url))
    target = tmp_path / "searchable.pdf"
    umask = os.umask(0o022)
    os.umask(umask)
    made = CliRunner().invoke(app, ["download", str(document), "--searchable", "-o", str(target)],
                              env=settings_env(settings))
    assert made.exit_code == 0, made.output
    text = pdftotext(target, 1)
    assert len(text.split()) > 100, text  # the OCRed words are there
    original, searchable = REAL_SCAN.stat().st_size, target.stat().st_size
    assert searchable <= 1.3 * original, (original, searchable)
    before, after = PdfReader(REAL_SCAN), PdfReader(target)
    assert _streams(after) == _streams(before)  # the images as they were: never decoded, never re-encoded
    for page in after.pages:
        contents = page["/Contents"].get_object()
        for stream in contents if isinstance(contents, list) else [contents]:
            assert stream.get_object().get("/Filter") == "/FlateDecode"
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # as open() makes a file, not 0600
    stored = Path(settings.resolved_storage_url.removeprefix("file://"))
    assert list(stored.rglob("*.pdf"))
    for path in stored.rglob("*.pdf"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path


def test_a_deleted_documents_searchable_copy_goes_with_its_pdf_and_the_sweep_keeps_a_live_ones(
    api: RunningApi, conn: psycopg.Connection[Any], settings: Settings, tmp_path: Path
) -> None:
    from tenderflow.pipeline.orphans import sweep_orphans

    storage = open_storage(settings.resolved_storage_url)
    key = tenant_with_key(conn, "acme")
    kept = upload(api, key, fixtures.scanned_pdf(tmp_path / "kept.pdf", [fixtures.text_image()]))
    gone = upload(api, key, fixtures.scanned_pdf(tmp_path / "gone.pdf", [fixtures.text_image(rotate=90)]))
    drain(api.services.pool, settings, storage)
    for document in (kept, gone):
        assert api.client.get(f"/v1/documents/{document}/searchable.pdf", headers=bearer(key)).status_code == 200
    copies = {int(doc): str(k) for doc, k in conn.execute(
        "SELECT document_id, searchable_key FROM document_versions WHERE document_id = ANY(%s)", ([kept, gone],))}
    assert all(storage.exists(k) and "/searchable/" in k for k in copies.values())

    # A sweep with no grace keeps both copies: their documents refer to their PDFs.
    report = sweep_orphans(conn, storage, grace_seconds=0)
    assert report.deleted == [] and report.referenced == 4, report.as_dict()

    assert api.client.delete(f"/v1/documents/{gone}", headers=bearer(key)).status_code in (200, 204)
    drain(api.services.pool, settings, storage)  # the storage.delete job
    assert not storage.exists(copies[gone]), "the deleted document's searchable copy was left behind"
    assert storage.exists(copies[kept])
    assert sorted(o.key for o in storage.list_objects("tenants/acme/")) == sorted(
        [copies[kept], str(conn.execute("SELECT 'tenants/acme/pdf/' || left(sha256, 2) || '/' || sha256 || '.pdf' "
                                        "FROM documents WHERE id = %s", (kept,)).fetchone()[0])])
