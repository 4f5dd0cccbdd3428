"""Every command on a database that was never migrated (DATABASE_URL set to a fresh one): one
`error:` line naming `tenderflow db migrate` and exit 1, never a traceback. The commands are read
from the typer app, so a command added later is walked too, with arguments made from its
parameters' types (or given below when those would be refused before the database is reached)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.cli_harness import cli_commands, run_entry_point
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf

# Arguments for commands whose required parameters a type alone does not make valid (or that need a
# flag to reach the database at all); `{pdf}`, `{folder}` and `{key}` are files the test makes.
ARGUMENTS: dict[str, list[str]] = {
    "upload": ["{pdf}"],
    "watch": ["{folder}", "--tenant", "default"],
    "webhooks add": ["https://hooks.example.com/tenders", "--tenant", "default"],
    "webhooks redeliver": ["1"],
    "documents delete": ["1", "--yes"],
    "tenders kind": ["1", "1", "notice"],
    "tenders choose": ["1", "submission_deadline", "auto"],
    "tenders delete": ["1", "--yes"],
    "tenants languages": ["acme", "eng"],
    "schedules add": ["nightly", "--type", "documents.retention", "--cron", "0 2 * * *"],
    "schedules set": ["nightly", "--cron", "0 3 * * *"],
    "watches set": ["1", "--every", "5m"],
    "tenants credits set": ["acme", "10"],
    "eval": ["{key}"],
    "serve": ["--port", "0"],
    "worker": ["--burst"],
}

# Commands that need no migrated schema, each with what it does instead; any other command must
# answer "migrate first".
WITHOUT_SCHEMA: dict[str, str] = {
    "config": "prints the settings",
    "eval": "scores extraction against a key, with no database",
    "health": "checks what runs here: 'run `tenderflow db migrate` first' is its answer",
    "db url": "prints where the database is",
    "db stop": "refuses: DATABASE_URL names a server tenderflow does not run",
    "db status": "lists the pending migrations",
    "doctor": "reports the pending migrations among its checks",
    "db migrate": "migrates (run last here)",
}


def arguments_of(words: str, command: Any, files: dict[str, str]) -> list[str]:
    if words in ARGUMENTS:
        return [argument.format(**files) for argument in ARGUMENTS[words]]
    made: list[str] = []
    for param in command.params:
        if not param.required:
            continue
        kind = getattr(param.type, "name", "")
        value = files["pdf"] if kind == "path" else "1" if "int" in kind else "acme"
        values = [value]
        if param.param_type_name == "option":
            values = [param.opts[0], value]
        made += values
    return made


def tables_in(url: str) -> list[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
    return sorted(row[0] for row in rows)


def test_every_command_on_an_unmigrated_database_says_to_migrate(empty_database_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "inbox"
    folder.mkdir()
    key = tmp_path / "key.json"
    key.write_text('{"documents": {}}')
    files = {"pdf": str(text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE])), "folder": str(folder), "key": str(key)}
    env = {"DATABASE_URL": empty_database_url, "TENDERFLOW_DATA_DIR": str(tmp_path / "data"),
           "TENDERFLOW_STORAGE_URL": (tmp_path / "objects").as_uri(), "COLUMNS": "200"}
    walked = sorted(cli_commands(), key=lambda item: item[0] == ("db", "migrate"))
    assert len(walked) > 60
    wrong: list[str] = []
    for path, command in walked:
        words = " ".join(path)
        ran = run_entry_point([*path, *arguments_of(words, command, files)], env)
        said = f"{words}: exit {ran.exit_code}, stderr {ran.stderr!r}, stdout {ran.stdout[:200]!r}"
        if ran.exception is not None:
            wrong.append(f"{words}: a traceback ({ran.exception!r})")
        elif words not in WITHOUT_SCHEMA:
            lines = ran.stderr.splitlines()
            if not (ran.exit_code == 1 and len(lines) == 1 and lines[0].startswith("error:")
                    and "tenderflow db migrate" in lines[0] and ran.stdout == ""):
                wrong.append(said)
        elif words == "db migrate":
            if ran.exit_code != 0 or "applied queue/0001_queue" not in ran.stdout:
                wrong.append(said)
        elif tables_in(empty_database_url) not in ([], ["schema_migrations"]):
            wrong.append(f"{words} changed the schema: {tables_in(empty_database_url)}")
        if words == "doctor" and "tenderflow db migrate" not in ran.stdout:
            wrong.append(said)
    assert wrong == [], "\n".join(wrong)
    assert "tenants" in tables_in(empty_database_url)


def test_the_walk_reaches_every_command_of_the_app() -> None:
    """A group's commands are walked, not only the top level (typer vendors click: a group is not
    an instance of click.Group, which left an earlier walk with the root alone)."""
    names = {" ".join(path) for path, _ in cli_commands()}
    assert {"upload", "db migrate", "tenants credits add", "webhooks add", "schedules run"} <= names
    assert set(WITHOUT_SCHEMA) <= names and set(ARGUMENTS) <= names


@pytest.mark.parametrize("words", ["status", "documents list", "tenants create acme"])
def test_a_migrated_database_is_not_refused(database_url: str, tmp_path: Path, words: str) -> None:
    env = {"DATABASE_URL": database_url, "TENDERFLOW_DATA_DIR": str(tmp_path / "data")}
    ran = run_entry_point(words.split(), env)
    assert ran.exception is None and ran.exit_code == 0, ran
