"""The README a newcomer reads in five minutes, and the documentation site beside it (docs/,
mkdocs.yml; `make docs` builds it with --strict, and `make test` runs that)."""

from __future__ import annotations

import re
from pathlib import Path

from tenderflow.config import settings_reference

ROOT = Path(__file__).resolve().parent.parent


def test_the_configuration_page_is_written_from_the_settings_and_current() -> None:
    """A setting added to config.Settings, or its description changed, changes the page: run
    `make docs-config` and commit it."""
    assert (ROOT / "docs" / "configuration.md").read_text() == settings_reference(), "run `make docs-config`"


def test_the_readme_is_short_starts_with_the_two_commands_and_says_how_to_reach_tenderflow() -> None:
    """The review's README had 1,447 lines, internals before any feature and the HTTP quick start
    at line 984; `tenderflow` was not on PATH after `make demo` and nothing said so."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    commands = re.findall(r"^make \w+", readme, flags=re.M)
    assert commands[:2] == ["make demo", "make test"]
    assert "source .venv/bin/activate" in readme and ".venv/bin/tenderflow" in readme
    assert readme.index("## The HTTP API") < readme.index("## How it is built")
    assert "tenderflow db migrate" in readme  # next to DATABASE_URL: the step a real server needs


def test_every_docs_page_is_in_the_site_and_every_readme_link_resolves() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = {path.name for path in (ROOT / "docs").glob("*.md")}
    assert {page for page in pages if f" {page}" not in nav} == set()
    readme = (ROOT / "README.md").read_text()
    links = [target.split("#")[0] for target in re.findall(r"\]\(([^)]+)\)", readme)
             if not target.startswith(("http://", "https://", "#"))]
    assert [link for link in links if not (ROOT / link).exists()] == []
