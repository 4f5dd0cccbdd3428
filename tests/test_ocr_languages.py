"""OCR in the document's language: detection on French and German scans and text layers, languages
asked at upload or set as the tenant's default winning over detection, bad names refused.

Scans are image-only PDFs drawn here (tests/support/pdf_fixtures.py: Vera has the accents); OCR is the real
tesseract with the packs `make test` installs; the pipeline tests use a real PostgreSQL."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool
from typer.testing import CliRunner

from tenderflow import langid
from tenderflow.cli import app
from tenderflow.errors import UploadRejectedError
from tenderflow.logs import configure_logging
from tenderflow.pdf import languages as lang
from tenderflow.pdf.languages import LanguageError, choose_ocr_languages, parse_languages
from tenderflow.pdf.ocr import OcrOptions, read_pages
from tenderflow.pdf.packs import installed_languages
from tenderflow.pdf.probe import PdfLimits
from tenderflow.pipeline.reprocess import reprocess
from tenderflow.pipeline.storage import ObjectStorage, open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.stages.compute import OcrPlanCompute
from tenderflow.tenants.tenants import create_tenant, get_tenant, set_languages
from tests.support import pdf_fixtures as fixtures
from tests.support.pipeline_harness import drain, pipeline_settings

OPTIONS = OcrOptions(timeout_seconds=60, memory_bytes=1024**3)
MAX_BYTES = 10 * 1024 * 1024

FRENCH = (
    "Avis de marché: la commune reçoit",
    "les offres à l'accueil de la mairie,",
    "service de la réception des plis,",
    "avant le vendredi à midi. Les pièces",
    "du dossier sont gratuites.",
)
GERMAN = (
    "Bekanntmachung: Die Gemeinde sucht",
    "Angebote für die Erneuerung der",
    "Straßenbeleuchtung. Angebote sind",
    "beim Bauamt bis zum Schlusstermin",
    "einzureichen: bauamt@oberwalden.de",
)
DUTCH = (
    "Aankondiging van een opdracht: de",
    "gemeente vraagt offertes voor het",
    "onderhoud van de openbare verlichting",
    "in het centrum. Inschrijvingen moeten",
    "uiterlijk vrijdag binnen zijn.",
)
ENGLISH = fixtures.TENDER_LINES
AFRIKAANS = (  # a language tesseract has a pack for (afr) that `make` does not install
    "Kennisgewing van tender: die munisipaliteit",
    "nooi aanbiedinge vir die instandhouding van",
    "die straatligte in die middestad. Aanbiedinge",
    "moet voor Vrydag om twaalfuur by die kantoor",
    "ingedien word. Die dokumente is gratis.",
)


pytestmark = pytest.mark.ocr


def a_language_not_installed() -> str:
    """A tesseract language this machine has no pack for (which packs a machine has changes: `jpn`
    was missing until the Makefile installed CJK packs)."""
    missing = sorted(lang.KNOWN_LANGUAGES - installed_languages() - {"osd"})
    assert missing, "every tesseract language pack is installed here"
    return next((name for name in ("tir", "chr", "syr", "dzo", "yid") if name in missing), missing[0])


def french_scan(tmp_path: Path) -> Path:
    return fixtures.scanned_pdf(tmp_path / "avis.pdf", [fixtures.text_image(FRENCH)])


def german_scan(tmp_path: Path) -> Path:
    return fixtures.scanned_pdf(tmp_path / "bekanntmachung.pdf", [fixtures.text_image(GERMAN)])


@pytest.fixture
def tool_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> fixtures.ToolLog:
    """Every program the language choice and the OCR run (the real ones still run)."""
    return fixtures.ToolLog(tmp_path, monkeypatch)


# --- detection, without a database ---------------------------------------------------------------


def test_french_scan_is_detected_and_read_with_its_accents(tmp_path: Path, tool_log: fixtures.ToolLog) -> None:
    path = french_scan(tmp_path)
    choice = choose_ocr_languages(path, OPTIONS)
    assert (choice.language, choice.languages, choice.source, choice.script) == ("fra", "fra+eng", "first_pass",
                                                                                 "Latin")
    assert choice.confidence is not None and choice.confidence > 0.9
    # The first pass is a quick one: OSD and one eng read of a low-resolution render (besides the check,
    # once per process and pack, that the chosen pack loads: a blank 16 px image read with it).
    calls = [call for call in tool_log.calls() if call[0] in ("pdftoppm", "tesseract")]
    load_checks = [call for call in calls if call[-2:] == ["--psm", "10"]]
    assert [call[call.index("-l") + 1] for call in load_checks] in ([], ["fra"])
    first_pass = [call for call in calls if call not in load_checks]
    assert [call[0] for call in first_pass] == ["pdftoppm", "tesseract", "tesseract"]
    assert first_pass[0][first_pass[0].index("-r") + 1] == str(lang.FIRST_PASS_DPI)
    assert "0" == first_pass[1][first_pass[1].index("--psm") + 1]

    [page] = read_pages(path, [1], replace(OPTIONS, languages=choice.languages))
    for word in ("reçoit", "à", "réception", "pièces", "marché"):
        assert word in page.text, f"OCR lost {word!r}: {page.text!r}"


def test_german_scan_is_detected_and_read_with_its_umlauts(tmp_path: Path) -> None:
    path = german_scan(tmp_path)
    choice = choose_ocr_languages(path, OPTIONS)
    assert (choice.language, choice.languages, choice.source) == ("deu", "deu+eng", "first_pass")

    [page] = read_pages(path, [1], replace(OPTIONS, languages=choice.languages))
    for word in ("für", "Straßenbeleuchtung", "Bauamt", "bauamt@oberwalden.de"):
        assert word in page.text, f"OCR lost {word!r}: {page.text!r}"


@pytest.mark.parametrize("turned", [180, 90])
def test_turned_scan_is_set_upright_for_the_first_pass(tmp_path: Path, turned: int) -> None:
    path = fixtures.scanned_pdf(tmp_path / "turned.pdf", [fixtures.text_image(GERMAN, rotate=turned)])
    choice = choose_ocr_languages(path, OPTIONS)
    assert (choice.language, choice.languages, choice.source) == ("deu", "deu+eng", "first_pass")


def test_text_layer_decides_without_running_ocr(tmp_path: Path, tool_log: fixtures.ToolLog) -> None:
    path = fixtures.born_digital_pdf(tmp_path / "avis.pdf", [FRENCH])
    choice = choose_ocr_languages(path, OPTIONS)
    assert (choice.language, choice.languages, choice.source) == ("fra", "fra+eng", "text_layer")
    # No OCR: besides the checks made once per process (`tesseract --list-langs`, and that the chosen
    # pack loads, a blank 16 px image read with it), which an earlier test may have made already.
    once_per_process = [call for call in tool_log.calls()
                        if call[:2] == ["tesseract", "--list-langs"] or call[-2:] == ["--psm", "10"]]
    assert [call[0] for call in tool_log.calls() if call not in once_per_process] == ["pdfinfo", "pdftotext"]


def test_bilingual_document_gets_both_languages(tmp_path: Path) -> None:
    path = fixtures.born_digital_pdf(tmp_path / "bilingual.pdf", [FRENCH, DUTCH, FRENCH])
    choice = choose_ocr_languages(path, OPTIONS)
    assert (choice.language, choice.languages) == ("fra", "fra+nld+eng")


def test_english_document_reads_with_english_alone(tmp_path: Path) -> None:
    choice = choose_ocr_languages(fixtures.born_digital_pdf(tmp_path / "notice.pdf", [ENGLISH]), OPTIONS)
    assert (choice.language, choice.languages, choice.source) == ("eng", "eng", "text_layer")


def test_blank_scan_falls_back(tmp_path: Path) -> None:
    path = fixtures.blank_pages_pdf(tmp_path / "blank.pdf", 1)
    choice = choose_ocr_languages(path, OPTIONS, fallback="eng+deu")
    assert (choice.language, choice.languages, choice.source) == (None, "eng+deu", "fallback")


def test_detected_language_without_its_pack_is_recorded_and_falls_back(tmp_path: Path) -> None:
    path = fixtures.born_digital_pdf(tmp_path / "avis.pdf", [FRENCH])
    choice = choose_ocr_languages(path, OPTIONS, installed=frozenset({"eng", "deu"}))
    assert (choice.language, choice.languages, choice.source) == ("fra", "eng", "fallback")


def test_the_identifier_decoded_once_into_the_cache_identifies_as_the_shipped_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decoding the shipped model (LZMA) was most of a worker's start, paid again by every restarted
    worker (found by the chaos run, where workers are killed every 2 s); the first worker now keeps
    the decoded model in its cache, and the processes after it read that copy instead. Same answers;
    a damaged copy is decoded again, never used."""
    texts = [" ".join(FRENCH), " ".join(GERMAN), " ".join(DUTCH), " ".join(ENGLISH)]

    def identified(cache: Path | None) -> list[tuple[str, float] | None]:
        monkeypatch.setattr(langid._Loaded, "identifier", None)  # a new process
        lang.warm_up(cache)
        return [lang.identify(text) for text in texts]

    shipped = identified(None)
    assert [found[0] if found else None for found in shipped] == ["fra", "deu", "nld", "eng"]
    cache = tmp_path / "cache" / "models"
    assert identified(cache) == shipped  # decoded now, and kept
    [copy] = cache.glob(f"{langid.MODEL_CACHE_PREFIX}*.npz")
    assert identified(cache) == shipped and list(cache.iterdir()) == [copy]  # read from the copy
    copy.write_bytes(copy.read_bytes()[: copy.stat().st_size // 2])
    assert identified(cache) == shipped  # a damaged copy: the shipped model, and the copy dropped
    assert not copy.exists()  # (the next process writes it again)


def test_language_names_are_checked_against_installed_packs() -> None:
    installed = frozenset({"eng", "fra", "deu"})
    assert parse_languages("fra+eng", installed) == "fra+eng"
    assert parse_languages("fr, de", installed) == "fra+deu"  # ISO 639-1 codes and commas are accepted
    assert parse_languages("deu+deu", installed) == "deu"
    assert parse_languages("auto", installed) is None
    with pytest.raises(LanguageError, match=r"unknown OCR language 'french'.*installed here: deu, eng, fra"):
        parse_languages("fra+french", installed)
    with pytest.raises(LanguageError, match=r"unknown OCR language 'osd'"):
        parse_languages("osd", installed)
    with pytest.raises(LanguageError, match=r"'spa' is not installed here.*tesseract-ocr-spa.*installed: deu, eng"):
        parse_languages("eng+spa", installed)


def test_the_packs_make_test_installs_are_here() -> None:
    assert {"eng", "fra", "deu", "spa", "ita", "por", "nld", "pol", "ara", "hin"} <= lang.installed_languages()


# --- the pipeline --------------------------------------------------------------------------------


def version_languages(conn: psycopg.Connection[Any], document_id: int, version: int = 1) -> tuple[Any, ...]:
    row = conn.execute(
        "SELECT language, ocr_languages, languages_source FROM document_versions"
        " WHERE document_id = %s AND version = %s", (document_id, version)).fetchone()
    assert row is not None
    return tuple(row)


def page_jobs_languages(conn: psycopg.Connection[Any], document_id: int) -> list[str | None]:
    rows = conn.execute("SELECT payload->>'languages' FROM jobs WHERE type = 'ocr.pages'"
                        " AND (payload->>'document_id')::bigint = %s", (document_id,)).fetchall()
    return [row[0] for row in rows]


def page_text(conn: psycopg.Connection[Any], document_id: int) -> str:
    row = conn.execute("SELECT string_agg(text, E'\\n' ORDER BY page_number) FROM pages"
                       " WHERE document_id = %s AND version = 1", (document_id,)).fetchone()
    assert row is not None
    return str(row[0])


def test_pipeline_detects_a_german_scan_and_keeps_its_umlauts(
    conn: psycopg.Connection[Any], pool: ConnectionPool, storage: ObjectStorage, database_url: str, tmp_path: Path
) -> None:
    german = upload_file(conn, storage, german_scan(tmp_path), UploadPolicy(max_bytes=MAX_BYTES))
    # An explicit language wins over detection: this French scan is read as Italian because it was asked.
    french = upload_file(conn, storage, french_scan(tmp_path), UploadPolicy(max_bytes=MAX_BYTES, languages="ita"))
    assert german.document_id is not None and french.document_id is not None
    drain(pool, pipeline_settings(database_url, tmp_path, ocr_dpi=300), storage)

    assert version_languages(conn, german.document_id) == ("deu", "deu+eng", "first_pass")
    assert page_jobs_languages(conn, german.document_id) == ["deu+eng"]  # what remote workers read with too
    text = page_text(conn, german.document_id)
    assert "für" in text and "Straßenbeleuchtung" in text and "bauamt@oberwalden.de" in text, text

    assert version_languages(conn, french.document_id) == ("ita", "ita", "upload")
    assert page_jobs_languages(conn, french.document_id) == ["ita"]
    assert conn.execute("SELECT ocr_languages FROM documents WHERE id = %s",
                        (french.document_id,)).fetchone() == ("ita",)


def test_tenant_default_applies_and_an_upload_still_wins(
    conn: psycopg.Connection[Any], pool: ConnectionPool, storage: ObjectStorage, database_url: str, tmp_path: Path
) -> None:
    create_tenant(conn, "madrid", unlimited=True, languages="spa+eng")
    assert get_tenant(conn, "madrid").ocr_languages == "spa+eng"
    by_default = upload_file(conn, storage, fixtures.born_digital_pdf(tmp_path / "a.pdf", [ENGLISH]),
                             UploadPolicy(tenant="madrid", max_bytes=MAX_BYTES))
    asked = upload_file(conn, storage, fixtures.born_digital_pdf(tmp_path / "b.pdf", [FRENCH]),
                        UploadPolicy(tenant="madrid", max_bytes=MAX_BYTES, languages="por"))
    set_languages(conn, "madrid", "auto")  # back to detection for uploads from now on
    detected = upload_file(conn, storage, fixtures.born_digital_pdf(tmp_path / "c.pdf", [FRENCH, GERMAN, FRENCH]),
                           UploadPolicy(tenant="madrid", max_bytes=MAX_BYTES))
    assert get_tenant(conn, "madrid").ocr_languages is None
    assert by_default.document_id and asked.document_id and detected.document_id
    drain(pool, pipeline_settings(database_url, tmp_path), storage)

    assert version_languages(conn, by_default.document_id) == ("spa", "spa+eng", "tenant")
    assert version_languages(conn, asked.document_id) == ("por", "por", "upload")
    assert version_languages(conn, detected.document_id) == ("fra", "fra+deu+eng", "text_layer")

    # Reprocessing with languages records them on the document; its next versions use them.
    outcome = reprocess(conn, by_default.document_id, languages="deu")
    payload = conn.execute("SELECT payload FROM jobs WHERE type = 'ocr.plan' AND unique_key = %s",
                           (f"ocr.plan:{by_default.document_id}:{outcome.version}",)).fetchone()
    assert payload is not None
    assert (payload[0]["languages"], payload[0]["languages_source"]) == ("deu", "upload")


def test_operator_languages_apply_when_detection_is_off(tmp_path: Path) -> None:
    handler = OcrPlanCompute(PdfLimits(), options=replace(OPTIONS, languages="eng+deu"), detect=False)
    path = fixtures.born_digital_pdf(tmp_path / "avis.pdf", [FRENCH])
    choice = handler.choose_languages(_job({}), path, {1: "\n".join(FRENCH)}, [])
    assert (choice.languages, choice.source) == ("eng+deu", "settings")
    asked = handler.choose_languages(_job({"languages": "fra", "languages_source": "tenant"}), path, {}, [])
    assert (asked.languages, asked.language, asked.source) == ("fra", "fra", "tenant")


def _job(payload: dict[str, Any]) -> Any:
    from datetime import UTC, datetime

    from tenderflow.queue import ClaimedJob

    return ClaimedJob(id=1, type="ocr.plan", payload={"document_id": 1, "version": 1, **payload}, tenant="default",
                      priority=0, attempts=1, max_attempts=5, created_at=datetime.now(UTC), worker_id="test")


def test_bad_languages_are_refused_at_upload_with_the_installed_ones(
    conn: psycopg.Connection[Any], storage: ObjectStorage, tmp_path: Path
) -> None:
    pdf = fixtures.born_digital_pdf(tmp_path / "notice.pdf", [ENGLISH])
    installed = r"unknown OCR language 'klingon'.*installed here: .*deu, .*eng, .*fra"
    with pytest.raises(UploadRejectedError, match=installed):
        upload_file(conn, storage, pdf, UploadPolicy(max_bytes=MAX_BYTES, languages="eng+klingon"))
    missing = a_language_not_installed()
    with pytest.raises(UploadRejectedError, match=rf"'{missing}' is not installed here.*installed: .*eng"):
        upload_file(conn, storage, pdf, UploadPolicy(max_bytes=MAX_BYTES, languages=missing))
    assert conn.execute("SELECT count(*) FROM documents").fetchone() == (0,)
    with pytest.raises(ValueError, match="unknown OCR language"):
        create_tenant(conn, "nowhere", languages="elvish")


# --- the CLI and the API -------------------------------------------------------------------------


def test_cli_upload_tenants_and_show_say_the_language(
    database_url: str, pool: ConnectionPool, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    env = {"DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri(),
           "TENDERFLOW_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "200"}
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(app, list(args), env=env)

    try:
        refused = run("upload", str(tmp_path), "--languages", "fra+xx")
        # A value the option cannot take: a usage error (exit 2), before any file is read.
        assert refused.exit_code == 2 and "unknown OCR language 'xx'" in refused.output, refused.output
        assert "installed here:" in refused.output
        assert run("tenants", "create", "lyon", "--unlimited", "--languages", "fr").exit_code == 0
        shown = run("tenants", "show", "lyon", "--json")
        assert json.loads(shown.stdout)["ocr_languages"] == "fra"
        missing = run("tenants", "languages", "lyon", a_language_not_installed())
        assert missing.exit_code == 1 and "not installed" in missing.output
        assert run("tenants", "languages", "lyon", "auto").exit_code == 0
        assert "auto" in run("tenants", "show", "lyon").output

        pdf = fixtures.born_digital_pdf(tmp_path / "avis.pdf", [FRENCH])
        uploaded = run("upload", str(pdf), "--tenant", "lyon", "--json")
        assert uploaded.exit_code == 0, uploaded.output
        document_id = json.loads(uploaded.stdout)[0]["document_id"]
        drain(pool, pipeline_settings(database_url, tmp_path), open_storage((tmp_path / "objects").as_uri()))
        report = run("show", str(document_id))
        assert "language=fra (OCR fra+eng, detected from the text layer" in report.output, report.output
        as_json = json.loads(run("show", str(document_id), "--json").stdout)["document"]
        assert (as_json["language"], as_json["ocr_languages"], as_json["languages_source"]) == (
            "fra", "fra+eng", "text_layer")
    finally:
        configure_logging(level="WARNING")  # the CLI pointed structlog at the runner's (now closed) stderr


def test_api_upload_languages_and_document_language(
    database_url: str, pool: ConnectionPool, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    from tests.support.api_harness import api_settings, bearer, serve_in_thread, tenant_with_key

    settings = api_settings(database_url, tmp_path)
    key = tenant_with_key(conn, "acme")
    pdf = fixtures.born_digital_pdf(tmp_path / "bekanntmachung.pdf", [GERMAN])
    with serve_in_thread(settings) as api:
        def upload(**params: Any) -> Any:
            with pdf.open("rb") as handle:
                return api.client.post("/v1/documents", headers=bearer(key), params=params,
                                       files={"file": (pdf.name, handle, "application/pdf")})

        refused = upload(languages="deu+tlh")
        assert refused.status_code == 400, refused.text
        assert "unknown OCR language 'tlh'" in refused.json()["detail"]
        assert "installed here:" in refused.json()["detail"] and "deu" in refused.json()["detail"]
        created = upload()
        assert created.status_code == 201, created.text
        document_id = created.json()["id"]
        drain(pool, settings, open_storage(settings.resolved_storage_url))
        detail = api.client.get(f"/v1/documents/{document_id}", headers=bearer(key)).json()
        assert (detail["language"], detail["ocr_languages"], detail["languages_source"],
                detail["requested_languages"]) == ("deu", "deu+eng", "text_layer", None)
        listed = api.client.get("/v1/documents", headers=bearer(key)).json()["documents"]
        assert [d["language"] for d in listed] == ["deu"]
        again = upload(languages="fr,en", reprocess="true")
        assert again.status_code == 200 and again.json()["status"] == "reprocessing", again.text
        detail = api.client.get(f"/v1/documents/{document_id}", headers=bearer(key)).json()
        assert detail["requested_languages"] == "fra+eng"


def test_workers_load_the_identifier_before_their_first_claim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model costs ~0.7 s of CPU: a worker's warm-up pays it (from its cache), not its first document."""
    from tenderflow.pdf.probe import PdfLimits
    from tenderflow.stages.compute import OcrPlanCompute
    from tenderflow.stages.contract import warm_up

    monkeypatch.setattr(langid._Loaded, "identifier", None)
    cache = tmp_path / "models"
    warm_up([OcrPlanCompute(PdfLimits(), detect=False, model_cache=cache)])
    assert langid._Loaded.identifier is None and not cache.exists(), "no detection, nothing to load"
    warm_up([OcrPlanCompute(PdfLimits(), detect=True, model_cache=cache)])
    assert langid._Loaded.identifier is not None and list(cache.glob(f"{langid.MODEL_CACHE_PREFIX}*.npz"))


def test_a_language_without_its_pack_is_said_in_show_and_the_api_not_read_silently(
    database_url: str, pool: ConnectionPool, conn: psycopg.Connection[Any], tmp_path: Path
) -> None:
    """An Afrikaans document is detected as afr, whose pack is not installed: it is read with the fallback,
    and `show`, the API and the dashboard's page say so, naming the pack to install (issue 22)."""
    from tests.support.api_harness import api_settings, bearer, serve_in_thread, tenant_with_key

    assert "afr" not in lang.installed_languages(), "this test needs a language whose pack is not installed"
    settings = api_settings(database_url, tmp_path)
    key = tenant_with_key(conn, "acme")
    pdf = fixtures.born_digital_pdf(tmp_path / "kennisgewing.pdf", [AFRIKAANS])
    with serve_in_thread(settings) as api:
        with pdf.open("rb") as handle:
            created = api.client.post("/v1/documents", headers=bearer(key),
                                      files={"file": (pdf.name, handle, "application/pdf")})
        assert created.status_code == 201, created.text
        document_id = created.json()["id"]
        drain(pool, settings, open_storage(settings.resolved_storage_url))
        detail = api.client.get(f"/v1/documents/{document_id}", headers=bearer(key)).json()
    assert (detail["language"], detail["ocr_languages"], detail["languages_source"]) == ("afr", "eng", "fallback")
    assert "afr, whose tesseract pack is not installed (or does not load)" in detail["language_note"]
    assert "read as eng" in detail["language_note"] and "tesseract-ocr-afr" in detail["language_note"]
    env = {"DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": settings.resolved_storage_url,
           "TENDERFLOW_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "300"}
    try:
        shown = CliRunner().invoke(app, ["show", str(document_id)], env=env)
    finally:
        configure_logging(level="WARNING")
    assert "whose tesseract pack is not installed" in " ".join(shown.output.split()), shown.output
    assert lang.missing_pack_note("fra", "fra+eng") is None and lang.missing_pack_note(None, "eng") is None


def test_the_extractor_reads_the_language_with_the_identifier_ocr_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker running both pools decoded py3langid's model twice (OCR's detection, then the
    extractor's country clue through py3langid's own global): one identifier a process now."""
    import py3langid.langid  # type: ignore[import-untyped]

    from tenderflow.extraction.country import text_language

    monkeypatch.setattr(langid._Loaded, "identifier", None)
    monkeypatch.setattr(py3langid.langid, "IDENTIFIER", None)
    lang.warm_up(tmp_path / "models")
    loaded = langid._Loaded.identifier
    assert text_language([" ".join(FRENCH)] * 3) == "fr" and text_language([" ".join(GERMAN)] * 3) == "de"
    assert langid._Loaded.identifier is loaded and py3langid.langid.IDENTIFIER is None
