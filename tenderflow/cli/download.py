"""`tenderflow download`: a document's PDF, as uploaded or searchable (pipeline.pdfs)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tenderflow.cli.output import errors_reported, print_note
from tenderflow.cli.runtime import runtime
from tenderflow.pipeline import pdfs


def download(
    ctx: typer.Context,
    document_id: Annotated[int, typer.Argument(metavar="DOCUMENT_ID", help="The document's id.", min=1)],
    searchable: Annotated[bool, typer.Option("--searchable", help="Its pages with an invisible text layer where "
                                             "they were OCRed (made now if it was not yet).")] = False,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here (default: the upload's file "
                                                "name in the current directory).")] = None,
) -> None:
    """Save a document's PDF: the original, or a searchable copy of its newest finished version."""
    rt = runtime(ctx)
    storage = rt.storage
    with errors_reported():
        with rt.connection() as conn:
            stored = (pdfs.searchable_pdf(conn, storage, rt.settings, document_id, tenant=None) if searchable
                      else pdfs.original_pdf(conn, document_id, tenant=None))
    target = output or Path(stored.filename)
    storage.download_to(stored.key, target)
    print_note(f"wrote {target} ({target.stat().st_size:,} bytes)")
