"""The named SQL of the tenants package (queries.sql), loaded once for all its modules."""

from __future__ import annotations

from tenderflow.sqlfiles import NamedQueries

QUERIES = NamedQueries("tenderflow.tenants", "queries.sql")
