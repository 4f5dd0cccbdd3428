"""`make demo`'s last line: how to type `tenderflow` afterwards, in the shell the demo ran from (the
review's `tenderflow show 1 --text` answered "command not found": the venv is not on PATH)."""

from __future__ import annotations

from pathlib import Path

from tenderflow.cli.demo import how_to_run


def script(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_the_venv_script_is_named_with_its_path_and_how_to_activate_when_path_does_not_find_it(
        tmp_path: Path) -> None:
    program = script(tmp_path / "clone" / ".venv" / "bin" / "tenderflow")
    said = how_to_run(str(program), "show <doc> --text", cwd=tmp_path / "clone", path="/usr/bin:/bin")
    assert said == (".venv/bin/tenderflow show <doc> --text   "
                    "(or `source .venv/bin/activate` once, then `tenderflow show <doc> --text`)")


def test_plain_tenderflow_when_path_finds_this_very_program(tmp_path: Path) -> None:
    program = script(tmp_path / "clone" / ".venv" / "bin" / "tenderflow")
    assert how_to_run(str(program), "show 1", cwd=tmp_path, path=f"{program.parent}:/usr/bin") == "tenderflow show 1"


def test_another_tenderflow_on_path_is_not_taken_for_this_one(tmp_path: Path) -> None:
    program = script(tmp_path / "clone" / ".venv" / "bin" / "tenderflow")
    other = script(tmp_path / "elsewhere" / "tenderflow")
    said = how_to_run(str(program), "show 1", cwd=tmp_path / "other-dir", path=str(other.parent))
    assert said.startswith(f"{program} show 1   (or `source {program.parent / 'activate'}`")


def test_make_demo_installs_only_the_missing_packs_the_demo_needs_and_prints_the_apt_line_first(
        tmp_path: Path) -> None:
    """The review: 13 apt packages (Arabic and Hindi among them) whenever any one of 11 packs was
    missing, without a word first. Here tesseract has eng and osd; the demo needs deu and fra too."""
    import os
    import shutil
    import subprocess

    fake = tmp_path / "bin"
    log = tmp_path / "apt.log"
    script(fake / "tesseract").write_text('#!/bin/sh\necho "List of available languages (2):"\necho eng\necho osd\n')
    script(fake / "apt-get").write_text(f'#!/bin/sh\necho "apt-get $*" >> {log}\n')
    for tool in ("pdftoppm", "pdftotext", "pdfinfo"):
        script(fake / tool)
    make = shutil.which("make")
    assert make is not None
    env = {**os.environ, "PATH": f"{fake}:/usr/bin:/bin", "SUDO": ""}
    ran = subprocess.run([make, "-s", "demo-deps", "SUDO="], cwd=Path(__file__).parent.parent, env=env,
                         capture_output=True, text=True, timeout=60, check=True)
    said = ran.stdout.splitlines()
    assert said[0] == "the demo needs these Debian packages, missing here; running:"
    assert said[1].strip() == ("apt-get update && apt-get install -y --no-install-recommends "
                               "tesseract-ocr-deu tesseract-ocr-fra")
    assert log.read_text().splitlines() == [
        "apt-get update -q", "apt-get install -y -q --no-install-recommends tesseract-ocr-deu tesseract-ocr-fra"]
    log.unlink()
    script(fake / "tesseract").write_text('#!/bin/sh\necho "List:"\nfor l in eng deu fra osd; do echo $l; done\n')
    quiet = subprocess.run([make, "-s", "demo-deps", "SUDO="], cwd=Path(__file__).parent.parent, env=env,
                           capture_output=True, text=True, timeout=60, check=True)
    assert quiet.stdout == "" and not log.exists()  # nothing missing: nothing said, nothing run


def test_the_demo_stops_the_embedded_postgresql_it_started_however_it_ends(embedded_data_dir: Path) -> None:
    """The review found the demo's PostgreSQL still running afterwards. Here the demo gives up at
    once (a timeout of a hundredth of a second), after it started the server and the workers."""
    import os
    import subprocess
    import sys

    data = embedded_data_dir
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("TENDERFLOW_") and key != "DATABASE_URL"}
    env["TENDERFLOW_DATA_DIR"] = str(data)
    try:
        ran = subprocess.run([sys.executable, "-m", "tenderflow", "demo", "--processes", "1", "--timeout", "0.01"],
                             env=env, capture_output=True, text=True, timeout=300, check=False)
        assert ran.returncode == 1 and "not finished after 0 s" in ran.stderr, ran.stderr
        assert "stopped the embedded PostgreSQL the demo started" in ran.stderr + ran.stdout
        assert not (data / "postgres" / "postmaster.pid").exists()
        last = (ran.stdout + ran.stderr).strip().splitlines()[-1]
        assert "show <doc> --text" in last  # how to go on, last
    finally:
        subprocess.run([sys.executable, "-m", "tenderflow", "db", "stop"], env=env, capture_output=True, check=False)
