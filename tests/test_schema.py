"""docs/schema.sql is what the migrations, applied in order to an empty database, make."""

from __future__ import annotations

import difflib

from tests.support.schema import SCHEMA_FILE, embedded_schema


def test_the_migrations_applied_in_order_make_exactly_schema_sql() -> None:
    made = embedded_schema()
    kept = SCHEMA_FILE.read_text() if SCHEMA_FILE.exists() else ""
    diff = "".join(difflib.unified_diff(kept.splitlines(keepends=True), made.splitlines(keepends=True),
                                        "docs/schema.sql", "what the migrations make", n=2))
    assert made == kept, (
        "docs/schema.sql is not the schema the migrations make: run `make schema` and "
        f"commit the file (a merge of two migrations needs it too).\n{diff[:6000]}")
