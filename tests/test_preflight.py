"""Fail fast, say why (issue 12): a worker refuses to start, one line per missing thing, when a
program, a language pack, the storage or the LLM endpoint is missing; `tenderflow doctor` prints
every check. Before, each was found job by job, after five attempts per job."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from tenderflow.cli import app
from tests.support.openai_server import OpenAIServer, answer_with


@pytest.fixture
def env(database_url: str, tmp_path: Path) -> dict[str, str]:
    return {"DATABASE_URL": database_url, "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri(),
            "TENDERFLOW_DATA_DIR": str(tmp_path / "data"), "TENDERFLOW_OCR_LANGUAGES": "eng"}


def invoke(env: dict[str, str], *args: str) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def checks_of(result: Any) -> dict[str, dict[str, Any]]:
    return {row["check"]: row for row in json.loads(result.stdout)}


def test_doctor_passes_where_everything_is_there_and_asks_the_llm_with_the_key(env: dict[str, str]) -> None:
    server = OpenAIServer(answer_with({}))
    server.start()
    try:
        result = invoke({**env, "TENDERFLOW_LLM_BASE_URL": server.base_url, "TENDERFLOW_LLM_API_KEY": "sk-test"},
                        "doctor", "--json")
    finally:
        server.stop()
    assert result.exit_code == 0, result.output
    checks = checks_of(result)
    assert all(row["ok"] for row in checks.values()), checks
    assert {"database", "program tesseract", "program pdftoppm", "tesseract language packs", "tool sandbox",
            "object storage", "LLM endpoint"} <= set(checks)
    [asked] = [r for r in server.requests if r.method == "GET"]
    assert asked.path == "/v1/models" and asked.headers["authorization"] == "Bearer sk-test"


def test_a_worker_refuses_to_start_naming_each_missing_thing(
    env: dict[str, str], conn: psycopg.Connection[Any]
) -> None:
    broken = {**env, "TENDERFLOW_OCR_LANGUAGES": "eng+xyz",
              "TENDERFLOW_LLM_BASE_URL": f"http://127.0.0.1:{closed_port()}/v1"}
    result = invoke(broken, "worker", "--pool", "all")
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "the worker cannot run its pool's jobs here" in said
    assert "tesseract language packs: missing xyz" in said
    assert "LLM endpoint: http://127.0.0.1:" in said and "cannot be reached" in said
    assert conn.execute("SELECT count(*) FROM workers").fetchone() == (0,)  # it never registered
    # An OCR pool does not need the LLM; an extraction pool does not need tesseract's packs.
    ocr_only = " ".join(invoke(broken, "worker", "--pool", "extract").output.split())
    assert "LLM endpoint" in ocr_only and "language packs" not in ocr_only


def test_missing_programs_and_storage_are_named(env: dict[str, str]) -> None:
    no_programs = invoke({**env, "PATH": "/nonexistent"}, "doctor", "--json")
    assert no_programs.exit_code == 1
    checks = checks_of(no_programs)
    assert not checks["program tesseract"]["ok"]
    assert "tesseract is not installed or not on PATH" in checks["program tesseract"]["detail"]
    assert not checks["program pdftoppm"]["ok"]

    s3_down = {**env, "TENDERFLOW_STORAGE_URL": "s3://tenders", "TENDERFLOW_S3_ENDPOINT_URL":
               f"http://127.0.0.1:{closed_port()}", "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x",
               "AWS_MAX_ATTEMPTS": "1"}
    storage = checks_of(invoke(s3_down, "doctor", "--json"))["object storage"]
    assert not storage["ok"] and "does not answer" in storage["detail"]


def test_a_worker_refuses_to_start_without_its_programs_or_its_storage(
    env: dict[str, str], conn: psycopg.Connection[Any]
) -> None:
    """The same checks as `doctor`, as the worker's refusal: one line per missing thing, exit 1,
    nothing registered, no job claimed."""
    no_programs = invoke({**env, "PATH": "/nonexistent"}, "worker", "--pool", "ocr")
    said = " ".join(no_programs.output.split())
    assert no_programs.exit_code == 1 and "the worker cannot run its pool's jobs here" in said
    assert "program tesseract: tesseract is not installed or not on PATH" in said
    assert "program pdftoppm" in said
    s3_down = {**env, "TENDERFLOW_STORAGE_URL": "s3://tenders", "TENDERFLOW_S3_ENDPOINT_URL":
               f"http://127.0.0.1:{closed_port()}", "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x",
               "AWS_MAX_ATTEMPTS": "1"}
    no_storage = invoke(s3_down, "worker", "--pool", "ocr")
    assert no_storage.exit_code == 1 and "object storage:" in " ".join(no_storage.output.split())
    assert conn.execute("SELECT count(*) FROM workers").fetchone() == (0,)


def test_config_prints_the_settings_in_effect_with_secrets_masked(env: dict[str, str]) -> None:
    admin = "a-very-long-admin-token-0123456789"
    result = invoke({**env, "DATABASE_URL": "postgresql://tf:hunter2@127.0.0.1:5432/tf",
                     "TENDERFLOW_ADMIN_TOKEN": admin, "TENDERFLOW_LLM_API_KEY": "sk-secret"}, "config", "--json")
    assert result.exit_code == 0, result.output
    assert admin not in result.stdout and "hunter2" not in result.stdout and "sk-secret" not in result.stdout
    rows = {row["setting"]: row for row in json.loads(result.stdout)}
    assert rows["TENDERFLOW_ADMIN_TOKEN"]["value"] == f"set ({len(admin)} characters)"
    assert (rows["TENDERFLOW_OCR_LANGUAGES"]["value"], rows["TENDERFLOW_OCR_LANGUAGES"]["from"]) == (
        "eng", "environment")
    assert rows["TENDERFLOW_LEASE_SECONDS"]["from"] == "default"


def test_every_setting_says_what_it_does_in_config_and_the_docs(env: dict[str, str]) -> None:
    """Issue 12: `tenderflow config` showed a blank meaning for a dozen settings, and the README's
    table left out some (the pool sizes, NOTIFY, the shutdown grace…). The table is now the docs'
    configuration page, written from the same fields (tests/test_docs.py holds it current)."""
    result = invoke(env, "config", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [row["setting"] for row in rows if not row["meaning"].strip()] == []
    table = (Path(__file__).parent.parent / "docs" / "configuration.md").read_text()
    assert [row["setting"] for row in rows if f"`{row['setting']}`" not in table] == []


def test_doctor_warns_of_each_recommended_language_pack_missing_and_still_passes(
    env: dict[str, str], tmp_path: Path
) -> None:
    """A machine with only English (and osd) reads a Japanese or Russian scan as English: doctor says
    which packs are missing and how to install them, without failing (issue 22)."""
    import subprocess
    import sys

    from tenderflow.pdf.languages import RECOMMENDED_PACKS

    system = Path("/usr/share/tesseract-ocr/5/tessdata")
    only_english = tmp_path / "tessdata"
    only_english.mkdir()
    for pack in ("eng", "osd"):
        (only_english / f"{pack}.traineddata").symlink_to(system / f"{pack}.traineddata")
    result = subprocess.run([sys.executable, "-m", "tenderflow", "doctor", "--json"], capture_output=True, text=True,
                            env={**env, "PATH": "/usr/bin:/bin", "TESSDATA_PREFIX": str(only_english)}, check=False)
    assert result.returncode == 0, result.stderr
    packs = checks_of(result)["tesseract language packs"]
    assert packs["ok"] and packs["warning"]
    missing = [name for name in RECOMMENDED_PACKS if name not in ("eng", "osd")]
    assert f"missing {len(missing)} of the recommended" in packs["detail"]
    assert "jpn, jpn_vert" in packs["detail"] and "tesseract-ocr-chi-sim-vert" in packs["detail"]
    assert "read as eng" in packs["detail"]


def test_the_makefile_and_the_image_install_the_recommended_language_packs() -> None:
    """One list (RECOMMENDED_PACKS) for doctor, make and the Dockerfile (issue 22)."""
    import re

    from tenderflow.pdf.languages import RECOMMENDED_PACKS

    root = Path(__file__).resolve().parent.parent
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    listed = re.search(r"^OCR_LANGUAGES := ((?:.*\\\n)*.*)$", makefile, re.MULTILINE)
    assert listed is not None
    assert listed.group(1).replace("\\\n", " ").split() == list(RECOMMENDED_PACKS)
    dockerfile = (root / "Dockerfile").read_text(encoding="utf-8")
    installed = set(re.findall(r"tesseract-ocr-([a-z-]+)", dockerfile))
    assert installed == {name.replace("_", "-") for name in RECOMMENDED_PACKS}


def test_doctor_warns_when_pdfs_with_cjk_fonts_not_embedded_cannot_be_read(tmp_path: Path) -> None:
    from tenderflow.handlers.preflight import check_cjk_fonts

    here = check_cjk_fonts()
    assert here.ok and not here.warning, here.detail  # `make` installs poppler-data and a CJK font
    without = check_cjk_fonts(poppler_data=tmp_path / "no-cmaps")
    assert without.ok and without.warning
    assert "missing poppler-data" in without.detail and "renders blank" in without.detail
