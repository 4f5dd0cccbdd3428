"""tenderflow: tender PDFs in, searchable text and structured fields out, on a PostgreSQL job queue."""

__version__ = "0.1.0"
