"""Named SQL files: queries by `-- name:` header, and `-- include:` lines standing for a shared fragment."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tenderflow.pipeline.search import QUERIES
from tenderflow.sqlfiles import NamedQueries


def _package_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sql: str) -> str:
    package = tmp_path / "sqlpackage"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "queries.sql").write_text(sql)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("sqlpackage", None)
    return "sqlpackage"


def test_an_include_line_stands_for_the_fragment_indented_as_it_is(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    package = _package_with(tmp_path, monkeypatch, (
        "-- name: shared\n-- a fragment\nAND a = 1\nAND b = 2;\n\n"
        "-- name: user\nSELECT 1\n  FROM t\n WHERE true\n   -- include: shared\n ORDER BY 1;\n"))
    queries = NamedQueries(package, "queries.sql")
    assert queries["user"] == "SELECT 1\n  FROM t\n WHERE true\n   AND a = 1\n   AND b = 2\n ORDER BY 1"


def test_an_include_of_an_unknown_query_is_refused_at_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = _package_with(tmp_path, monkeypatch, "-- name: user\nSELECT 1\n WHERE true\n   -- include: nowhere;\n")
    with pytest.raises(ValueError, match="include: nowhere"):
        NamedQueries(package, "queries.sql")


def test_every_search_applies_the_one_set_of_filters() -> None:
    for name in ("search_probe", "search_newest", "search_fields"):
        assert "include:" not in QUERIES[name]
        assert "sd.buyer ILIKE '%%' || %(buyer)s::text || '%%'" in QUERIES[name], name
