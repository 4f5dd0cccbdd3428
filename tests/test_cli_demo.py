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
    said = how_to_run(str(program), cwd=tmp_path / "clone", path="/usr/bin:/bin")
    assert said == ".venv/bin/tenderflow (or `source .venv/bin/activate` once, then `tenderflow`)"


def test_plain_tenderflow_when_path_finds_this_very_program(tmp_path: Path) -> None:
    program = script(tmp_path / "clone" / ".venv" / "bin" / "tenderflow")
    assert how_to_run(str(program), cwd=tmp_path, path=f"{program.parent}:/usr/bin") == "tenderflow"


def test_another_tenderflow_on_path_is_not_taken_for_this_one(tmp_path: Path) -> None:
    program = script(tmp_path / "clone" / ".venv" / "bin" / "tenderflow")
    other = script(tmp_path / "elsewhere" / "tenderflow")
    said = how_to_run(str(program), cwd=tmp_path / "other-dir", path=str(other.parent))
    assert said.startswith(f"{program} (or `source {program.parent / 'activate'}`")
