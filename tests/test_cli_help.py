"""`tenderflow --help` as a manual (issue 12): arguments named in capitals in the usage lines,
examples in the common commands' help, and unsupported combinations of options refused as usage
errors (exit 2) before anything runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tenderflow.cli import app
from tests.support.cli_harness import cli_commands


def test_every_argument_is_named_in_capitals_in_the_usage_line() -> None:
    """The review saw `show {document_id}` and `upload {paths}...`: Python's parameter names."""
    unnamed = [(" ".join(path), param.name) for path, command in cli_commands()
               for param in command.params
               if param.param_type_name == "argument"
               and not re.fullmatch(r"[A-Z][A-Z_]*(\.\.\.)?", param.metavar or "")]
    assert unnamed == []
    usage = CliRunner().invoke(app, ["upload", "--help"], env={"COLUMNS": "120"}, prog_name="tenderflow").output
    assert "tenderflow upload [OPTIONS] {PATH...}" in usage  # typer's braces: a required argument


@pytest.mark.parametrize("command", [
    "upload", "status", "show", "search", "export", "documents list", "jobs list", "tenants create", "keys create",
    "worker", "watch",
])
def test_the_common_commands_show_examples_in_their_help(command: str) -> None:
    shown = CliRunner().invoke(app, [*command.split(), "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    assert re.search(rf"Examples?: .*tenderflow {command}\b", shown.output), shown.output


def test_unsupported_combinations_are_usage_errors(tmp_path: Path) -> None:
    """Exit 2, as click's own usage errors, said before anything connects."""
    env = {"TENDERFLOW_DATA_DIR": str(tmp_path), "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"}
    watched_json = CliRunner().invoke(app, ["status", "--watch", "--json"], env=env)
    assert watched_json.exit_code == 2 and "--watch draws tables" in watched_json.stderr
    remote_burst = CliRunner().invoke(app, ["worker", "--remote", "https://tenders.example.com", "--token", "tfw_x",
                                            "--burst"], env=env)
    assert remote_burst.exit_code == 2 and "--burst needs the database" in remote_burst.stderr
