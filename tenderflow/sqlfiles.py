"""Named SQL queries loaded from `.sql` files shipped as package data.

A file holds queries separated by `-- name: <query_name>` headers; the text up to the next header
is the query. Loaded once per process; a missing name is a KeyError at first use, which the tests
that exercise every query catch.

A line `-- include: <query_name>` alone in a query stands for that query of the same file, its own
leading comment lines left out and each of its lines indented as the include line is: a fragment
several queries share (the search filters) is written once.
"""

from __future__ import annotations

import re
import textwrap
from importlib import resources
from typing import LiteralString, cast

_HEADER = re.compile(r"^--\s*name:\s*([a-z_][a-z0-9_]*)\s*$", re.MULTILINE)
_INCLUDE = re.compile(r"^([ \t]*)--\s*include:\s*([a-z_][a-z0-9_]*)\s*$", re.MULTILINE)


class NamedQueries:
    """The queries of one `.sql` file, by name: `QUERIES["job_claim"]`."""

    def __init__(self, package: str, filename: str) -> None:
        text = resources.files(package).joinpath(filename).read_text(encoding="utf-8")
        parts = _HEADER.split(text)
        # parts = [preamble, name1, body1, name2, body2, ...]
        self._queries: dict[str, LiteralString] = {}
        for name, body in zip(parts[1::2], parts[2::2], strict=True):
            if name in self._queries:
                raise ValueError(f"{package}/{filename}: query {name!r} is defined twice")
            # The text comes from our own package files, never from input: it is as literal as a
            # string in the source, which is what psycopg's LiteralString typing asks for.
            self._queries[name] = cast(LiteralString, body.strip().rstrip(";"))
        # Fragments from the same file: as literal as the queries (mypy reads LiteralString as str).
        for name, query in self._queries.items():
            self._queries[name] = _INCLUDE.sub(
                lambda match: self._included(package, filename, match[2], match[1]), query)

    def _included(self, package: str, filename: str, name: str, indent: str) -> str:
        if name not in self._queries or _INCLUDE.search(self._queries[name]):
            raise ValueError(f"{package}/{filename}: `-- include: {name}` names no query without includes")
        lines = self._queries[name].splitlines()
        while lines and lines[0].lstrip().startswith("--"):
            lines.pop(0)
        return textwrap.indent("\n".join(lines), indent)

    def __getitem__(self, name: str) -> LiteralString:
        return self._queries[name]

    def names(self) -> list[str]:
        return sorted(self._queries)
