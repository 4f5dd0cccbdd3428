"""The pipeline from the command line: `upload`, `status`, `documents list|delete|expire|deleted`, `show`,
`reprocess`."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from tenderflow.cli.output import (
    JsonOption,
    console,
    err_console,
    errors_reported,
    fail,
    make_table,
    print_json,
    print_note,
    print_table,
    safe,
)
from tenderflow.cli.runtime import Runtime, runtime
from tenderflow.display import format_size
from tenderflow.errors import ReprocessRefusedError, TenderflowError
from tenderflow.extraction.schema import BuyerCountry, PlacedDeadline
from tenderflow.handlers.coverage import Unserved, unserved
from tenderflow.pdf.languages import missing_pack_note
from tenderflow.pipeline.reads import (
    DocumentRecord,
    DocumentView,
    PipelineProgress,
    VersionProgress,
    get_document,
    read_document,
)
from tenderflow.pipeline.versions import StartPoint, VersionRef, VersionState
from tenderflow.queue.stats import QueueStats, queue_stats

if TYPE_CHECKING:
    from rich.console import Group

    from tenderflow.pipeline.uploads import UploadOutcome

documents_app = typer.Typer(help="Uploaded documents.", no_args_is_help=True)


def upload(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(metavar="PATH...", help="PDF files and folders (walked for *.pdf).")],
    tenant: Annotated[str, typer.Option(help="Tenant the documents belong to.")] = "default",
    priority: Annotated[int, typer.Option(help="Higher runs first.")] = 0,
    reprocess_existing: Annotated[bool, typer.Option("--reprocess", help="Reprocess files already uploaded.")] = False,
    languages: Annotated[str | None, typer.Option(
        help="Tesseract languages to OCR them with, e.g. fra+eng (default: the tenant's, else each "
             "document's language is detected).")] = None,
    wait: Annotated[bool, typer.Option(
        "--wait", help="Then follow the documents through OCR and extraction (a progress bar over pages and "
                       "documents) until each is done or failed; the exit code is 1 if any failed.")] = False,
    tender: Annotated[str | None, typer.Option(
        "--tender", metavar="NEW|ID", help="Upload them as one package into a tender: NEW makes one, an id adds to "
        "that one (all or nothing, one transaction). ZIP files are packages, unpacked safely; a ZIP given without "
        "--tender becomes a new tender of its own.")] = None,
    name: Annotated[str | None, typer.Option(help="With --tender NEW: the new tender's name.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Upload tender PDFs (and ZIP packages): each is stored, recorded and queued for OCR in one transaction.

    Exit code: 0 when every file was taken, 2 when a file was refused (not a PDF, empty, too large),
    1 when the tenant cannot take uploads (unknown, no credits) or, with --wait, a document failed.
    """
    from tenderflow.tenders.packages import is_zip

    packages = [path for path in paths if path.is_file() and is_zip(path)]
    if tender is not None or packages:
        from tenderflow.cli.tenders import upload_into_tenders

        upload_into_tenders(ctx, paths, packages, tender=tender, name=name, tenant=tenant, priority=priority,
                            languages=languages, wait=wait, as_json=as_json, reprocess_existing=reprocess_existing,
                            wait_for_rows=wait_for_rows)
        return
    languages, files = _pdfs_to_upload(paths, languages)
    rt = runtime(ctx)
    outcomes = _upload_files(rt, files, tenant=tenant, priority=priority, reprocess_existing=reprocess_existing,
                             languages=languages, quiet=as_json)
    rows = [dict(vars(o)) for o in outcomes]
    rejected = sum(o.status in ("rejected", "skipped") for o in outcomes)
    finished: dict[tuple[int, int], VersionProgress] = {}
    interrupted = False
    if wait:
        finished, interrupted = wait_for_rows(rt, rows, quiet=as_json)
    if as_json:
        print_json(rows)
    elif wait:
        _print_waited_upload(rows, finished, interrupted=interrupted, rejected=rejected)
    else:
        _print_upload(rows, outcomes)
    if interrupted:
        print_note("stopped waiting (Ctrl-C); the documents above go on: `tenderflow status`")
        raise typer.Exit(130)
    if any(p.state == VersionState.FAILED for p in finished.values()):
        raise typer.Exit(1)
    if rejected:
        raise typer.Exit(2)


def _pdfs_to_upload(paths: list[Path], languages: str | None) -> tuple[str | None, list[Path]]:
    """The OCR languages asked for, checked, and the PDFs `paths` name (folders walked for *.pdf).
    Exits with code 2 (a usage error: nothing was read or stored) on bad languages or no PDF."""
    from tenderflow.pipeline.uploads import check_languages, find_pdfs

    with errors_reported(code=2):
        languages = check_languages(languages)
        files = list(find_pdfs(paths))
    if not files:
        raise fail(f"no PDF found in {', '.join(map(str, paths))} (folders are searched for *.pdf)", code=2)
    return languages, files


def _upload_files(rt: Runtime, files: list[Path], *, tenant: str, priority: int, reprocess_existing: bool,
                  languages: str | None, quiet: bool) -> list[UploadOutcome]:
    """Upload `files` one by one (each stored, recorded and queued in its own transaction) under a
    progress bar; exits with code 1 when the tenant cannot take uploads (unknown, no credits)."""
    from rich.progress import Progress

    from tenderflow.pipeline.uploads import UploadPolicy, upload_paths

    storage = rt.storage
    outcomes = []
    with errors_reported():  # the tenant, checked once for the whole batch
        # A bar only on a terminal: piped, even a finished transient bar would leave a blank line
        # ahead of the TSV.
        with rt.connection() as conn, Progress(console=console, transient=True,
                                               disable=quiet or not console.is_terminal) as progress:
            task = progress.add_task("uploading", total=len(files))
            policy = UploadPolicy.from_settings(rt.settings, tenant=tenant, priority=priority, languages=languages,
                                                reprocess_existing=reprocess_existing)
            for outcome in upload_paths(conn, storage, files, policy):
                outcomes.append(outcome)
                progress.advance(task)
    return outcomes


def _print_waited_upload(rows: list[dict[str, Any]], finished: dict[tuple[int, int], VersionProgress], *,
                         interrupted: bool, rejected: int) -> None:
    """`upload --wait`'s table: each file's end (state, pages, error), then how many were done and failed."""
    print_table("upload", rows, ["source", "status", "document_id", "version", "state", "pages", "error"])
    done = sum(p.state == VersionState.DONE for p in finished.values())
    failures = sum(p.state == VersionState.FAILED for p in finished.values())
    print_note(f"{done} done, {failures} failed" + (f", {len(finished) - done - failures} still at work"
                                                     if interrupted else "")
               + (f", {rejected} not uploaded" if rejected else ""))


def _print_upload(rows: list[dict[str, Any]], outcomes: list[UploadOutcome]) -> None:
    """`upload`'s table: each file's outcome, then how many of each and the bytes stored."""
    print_table("upload", rows, ["source", "status", "document_id", "version", "size_bytes", "error"])
    counted = Counter(o.status for o in outcomes)
    print_note(", ".join(f"{counted[status]} {status}" for status in
                         ("created", "existing", "reprocessing", "rejected", "skipped") if counted[status])
               + (f"; {format_size(sum(o.size_bytes for o in outcomes if o.status == 'created'))} stored"
                  if counted["created"] else ""))


def wait_for_rows(rt: Runtime, rows: list[dict[str, Any]], *, quiet: bool
                  ) -> tuple[dict[tuple[int, int], VersionProgress], bool]:
    """`upload --wait`: follow the versions the upload rows name until each is done or failed (a document
    uploaded before: its newest version), and write each row's end into it (state, pages, error). From here
    Ctrl-C stops the waiting, between two polls (never inside a query), and the rows keep where each stood.
    Returns the ends by (document, version), and whether the waiting was stopped."""
    with ctrl_c_sets() as stop:
        with rt.connection() as conn:
            for row in rows:
                if row["status"] == "existing" and row["document_id"] is not None and row["version"] is None:
                    row["version"] = get_document(conn, row["document_id"])["latest_version"]
        refs = list(dict.fromkeys(VersionRef(row["document_id"], row["version"]) for row in rows
                                  if row["document_id"] is not None and row["version"] is not None))
        current, interrupted = wait_for_versions(rt, refs, quiet=quiet, stop=stop)
    finished = {(p.document_id, p.version): p for p in current if p.finished or interrupted}
    for row in rows:
        end = finished.get((row["document_id"], row["version"]))
        if end is not None:
            row.update(state=end.state.value, pages=end.page_count, error=end.error)
    return finished, interrupted


WORKER_GRACE_SECONDS = 20.0
"""How long `upload --wait` waits for a worker to report before it says none runs: a worker
starting on a busy machine takes seconds (13 s in the review) to register."""


@contextlib.contextmanager
def ctrl_c_sets() -> Iterator[threading.Event]:
    """Inside the block, Ctrl-C (SIGINT) sets the event it yields instead of raising
    KeyboardInterrupt wherever the main thread is (inside a pool's lock, a query): a loop checks
    it between its steps. The previous handler is back after the block."""
    stop = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def wait_for_versions(rt: Runtime, refs: list[VersionRef], *, quiet: bool, poll_seconds: float = 0.5,
                      clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] | None = None,
                      stop: threading.Event | None = None) -> tuple[list[VersionProgress], bool]:
    """Poll until every version of `refs` is done or failed, drawing pages read and documents
    finished; says so when no worker has reported for WORKER_GRACE_SECONDS (and again when one
    does). `stop` set (Ctrl-C: see `ctrl_c_sets`) stops the waiting only: returns (where each
    version stands, whether it was stopped)."""
    stop = stop or threading.Event()
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from tenderflow.pipeline.reads import versions_progress
    from tenderflow.queue.stats import live_worker_count

    warned_idle = False
    started = clock()
    current: list[VersionProgress] = []
    # The time left is Rich's estimate from the pace so far (pages: once every document's count is known).
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("[dim]elapsed[/dim]"),
               TimeElapsedColumn(), TextColumn("[dim]left[/dim]"), TimeRemainingColumn())
    try:
        with Progress(*columns, console=console, transient=True, disable=quiet or not console.is_terminal) as progress:
            pages = progress.add_task("pages read", total=None)
            docs = progress.add_task("documents finished", total=len(refs))
            while True:
                with rt.connection() as conn:
                    current = versions_progress(conn, refs)
                    workers = live_worker_count(conn, dead_after_seconds=rt.settings.worker_dead_after_seconds)
                known = [p.page_count for p in current if p.page_count is not None]
                progress.update(pages, completed=sum(p.pages_done for p in current),
                                total=sum(known) if len(known) == len(current) else None)
                progress.update(docs, completed=sum(p.finished for p in current))
                retrying = [p for p in current if p.retrying and not p.finished]
                progress.update(docs, description="documents finished" + (
                    f" (document {retrying[0].document_id}: {retrying[0].retrying[:80]})" if retrying and
                    retrying[0].retrying else ""))
                if all(p.finished for p in current):
                    return current, False
                if workers == 0 and not warned_idle and clock() - started > WORKER_GRACE_SECONDS:
                    warned_idle = True
                    err_console.print(f"no worker has reported in {WORKER_GRACE_SECONDS:g} s: start one (`tenderflow "
                                      "worker`, or `tenderflow worker --burst` to drain and exit); waiting",
                                      highlight=False)
                elif workers and warned_idle:
                    warned_idle = False
                    err_console.print("a worker is running now; waiting for the documents", highlight=False)
                if stop.is_set():
                    return current, True
                (sleep or stop.wait)(poll_seconds)
                if stop.is_set():
                    return current, True
    except KeyboardInterrupt:  # outside `ctrl_c_sets` (a caller of its own)
        return current, True


STATUS_SHOWN = 10
"""Unfinished versions `status` lists (those at work first); `documents list --state …` has the rest."""


def status(
    ctx: typer.Context,
    watch: Annotated[bool, typer.Option("--watch", help="Redraw every --interval seconds until Ctrl-C.")] = False,
    interval: Annotated[float, typer.Option(min=0.2, help="Seconds between redraws with --watch.")] = 2.0,
    as_json: JsonOption = False,
) -> None:
    """Documents by state, the unfinished ones' pages read of how many, the pace (pages stored per
    minute over the last 5 minutes) and when their pages should all be read, and the queue's health.

    Piped or redirected, the tables are TSV (with --watch, one snapshot after another, a blank line
    between them) and the summary lines go to stderr."""
    rt = runtime(ctx)
    if as_json:
        if watch:
            raise fail("--watch draws tables; without it, --json prints one snapshot", code=2)
        print_json(_StatusSnapshot.take(rt).as_json())
        return
    # Ctrl-C sets a flag the loops check between snapshots (never a KeyboardInterrupt inside a query
    # or the pool's lock: under load `status --watch` hung at its exit, as `upload --wait` had).
    with ctrl_c_sets() as stop:
        if not console.is_terminal:  # a pipe or a file: TSV, a snapshot per --interval with --watch
            _StatusSnapshot.take(rt).print()
            while watch and not stop.is_set():
                sys.stdout.flush()
                if stop.wait(interval):
                    break
                sys.stdout.write("\n")
                _StatusSnapshot.take(rt).print()
            return
        if not watch:
            console.print(_StatusSnapshot.take(rt).view())
            return
        _watch_status(rt, interval, stop)


def _watch_status(rt: Runtime, interval: float, stop: threading.Event) -> None:
    """`status --watch` on a terminal: the snapshot redrawn in place every `interval` seconds until
    `stop` is set (Ctrl-C)."""
    from rich.live import Live

    every = f"(every {interval:g} s, Ctrl-C to stop)"
    with Live(_StatusSnapshot.take(rt).view(every), console=console, auto_refresh=False) as live:
        while not stop.wait(interval):
            live.update(_StatusSnapshot.take(rt).view(every), refresh=True)


@dataclass(frozen=True)
class _StatusSnapshot:
    """What `status` shows at one moment: documents by state, the unfinished versions' progress, the
    queue's health, and what waits with no worker to run it."""

    counts: dict[str, int]
    progress: PipelineProgress
    stats: QueueStats
    waiting: list[Unserved]

    @classmethod
    def take(cls, rt: Runtime) -> _StatusSnapshot:
        from tenderflow.pipeline.reads import document_counts, pipeline_progress

        with rt.connection() as conn:
            stats = queue_stats(conn, dead_after_seconds=rt.settings.worker_dead_after_seconds)
            # what waits with no worker to run it (the tasks, when only remote workers run): said below
            waiting = unserved(conn, dead_after_seconds=rt.settings.worker_dead_after_seconds,
                               job_types=[row["type"] for row in stats.by_type if row["queued"]])
            return cls(document_counts(conn), pipeline_progress(conn, shown=STATUS_SHOWN), stats, waiting)

    def tables(self) -> list[tuple[str, list[dict[str, Any]], list[str], dict[str, str]]]:
        """Each table's title, rows, columns and column labels."""
        unfinished = [{**row, "pages": f"{row['pages_done']}/{row['page_count'] or '?'}"}
                      for row in self.progress.shown]
        return [("documents", [{"state": k, "documents": v} for k, v in self.counts.items()], ["state", "documents"],
                 {}),
                *([("in progress", unfinished, ["document_id", "version", "tenant", "filename", "state", "pages"],
                    {"filename": "file"})] if unfinished else []),
                ("jobs", self.stats.by_type, ["type", "queued", "running", "failed_last_hour", "oldest_queued_seconds"],
                 {})]

    def lines(self) -> list[str]:
        """What is said under the tables: the pace and pages left, the workers, what waits unserved."""
        return [*progress_lines(self.progress),
                f"workers: {self.stats.live_workers} live, {self.stats.dead_workers} dead",
                *(f"waiting: {unrun.sentence()}" for unrun in self.waiting)]

    def view(self, footer: str | None = None) -> Group:
        """The tables and lines for a terminal, with `footer` under them."""
        from rich.console import Group

        return Group(*(make_table(title, rows, columns, labels) for title, rows, columns, labels in self.tables()),
                     *(Text(line) for line in self.lines()), *([Text(footer)] if footer else []))

    def print(self) -> None:
        """The tables (TSV when piped) on stdout, the lines on stderr when piped."""
        for title, rows, columns, labels in self.tables():
            print_table(title, rows, columns, labels)
        for line in self.lines():
            print_note(line)

    def as_json(self) -> dict[str, Any]:
        """What `status --json` prints."""
        progress = self.progress
        return {"documents": self.counts, "progress": {
            "unfinished": progress.unfinished, "pages_left": progress.pages_left, "unplanned": progress.unplanned,
            "pages_per_minute": progress.pages_per_minute, "eta_seconds": progress.eta_seconds,
            "window_seconds": progress.window_seconds, "shown": progress.shown,
        }, "queue": self.stats.as_dict(), "unserved": [
            {"pool": unrun.pool, "job_types": list(unrun.job_types), "local_only": unrun.local,
             "hint": unrun.sentence()} for unrun in self.waiting]}


def progress_lines(progress: PipelineProgress) -> list[str]:
    """What `status` says under its tables of a `PipelineProgress`: the pace, the pages left and when
    they should be read; nothing when no version is unfinished."""
    if not progress.unfinished:
        return []
    minutes = f"{progress.window_seconds / 60:g} min"
    more = progress.unfinished - len(progress.shown)
    said = [f"and {more} more unfinished (`tenderflow documents list --state queued`, or ocr, extracting)"
            if more > 0 else ""]
    pace = (f"pace: {progress.pages_per_minute:.3g} pages/min (last {minutes})" if progress.pages_per_minute
            else f"pace: no page read in the last {minutes}")
    left = []
    if progress.pages_left:
        left.append(f"{progress.pages_left} page(s) left" + (
            f", read in about {about(progress.eta_seconds)} at that pace" if progress.eta_seconds is not None else ""))
    if progress.unplanned:
        left.append(f"{progress.unplanned} document(s) not planned yet (their pages not counted)")
    return [line for line in (*said, "; ".join([pace, *left])) if line]


def about(seconds: float) -> str:
    """A rough duration: '40 s', '7 min', '2.5 h'."""
    if seconds < 90:
        return f"{max(round(seconds), 1)} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


@documents_app.command("list", epilog=(
    "Examples: tenderflow documents list --state failed  ·  tenderflow documents list --tenant acme --limit 200 "
    "--json  ·  tenderflow documents list | cut -f1,3,4"))
def documents_list(
    ctx: typer.Context,
    state: Annotated[VersionState | None, typer.Option(help="Only documents in this state.")] = None,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's documents.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10000, help="At most this many, newest first.")] = 50,
    as_json: JsonOption = False,
) -> None:
    """The newest documents: the state of their latest version, pages read of how many, when they were
    uploaded and finished; `readable_version` is the newest finished one (what `show` reads)."""
    from tenderflow.pipeline.reads import list_documents

    with runtime(ctx).connection() as conn:
        rows = list_documents(conn, tenant=tenant, state=state, limit=limit)
    if as_json:
        print_json(rows)
        return
    shown = [{**row, "pages": f"{row['pages_done']}/{row['page_count'] or '?'}",
              "version": version_label(row["latest_version"], row["current_version"])} for row in rows]
    print_table("documents", shown, ["id", "tenant", "filename", "state", "pages", "fields_found", "language",
                                     "version", "created_at", "finished_at", "error"],
                labels={"filename": "file", "fields_found": "fields", "created_at": "uploaded",
                        "finished_at": "finished"},
                optional=["tenant", "language", "fields_found", "created_at", "finished_at"])


def version_label(latest: int, readable: int | None) -> str:
    """'2' when the newest version is the one read; '2 (reading 1)' while 2 runs (or after it
    failed) and 1 is what `show`, /text and /fields return; '1 (none done)' before any version is."""
    if readable == latest:
        return str(latest)
    return f"{latest} (reading {readable})" if readable is not None else f"{latest} (none done)"


def language_summary(document: DocumentRecord) -> str:
    """"fra (OCR fra+eng, from the text layer, p=0.99)": a document's language and how it was chosen."""
    if document.ocr_languages is None:
        asked = document.requested_languages
        return f"not chosen yet (asked: {asked})" if asked else "not chosen yet"
    how = {"upload": "asked at upload", "tenant": "the tenant's default", "settings": "TENDERFLOW_OCR_LANGUAGES",
           "text_layer": "detected from the text layer", "first_pass": "detected by a first OCR pass",
           "fallback": "nothing detected: fallback"}.get(str(document.languages_source), "?")
    extra = [f"OCR {document.ocr_languages}", how]
    if document.script:
        extra.append(f"script {document.script}")
    if document.language_confidence is not None:
        extra.append(f"p={document.language_confidence:.2f}")
    summary = f"{document.language or 'unknown'} ({', '.join(extra)})"
    note = missing_pack_note(document.language, document.ocr_languages)
    return f"{summary}; {note}" if note else summary


DocumentId = Annotated[int, typer.Argument(
    metavar="DOCUMENT_ID", help="The document's id (`tenderflow documents list`).")]


def show(
    ctx: typer.Context,
    document_id: DocumentId,
    text: Annotated[bool, typer.Option("--text", help="Print every page's text.")] = False,
    as_json: JsonOption = False,
) -> None:
    """One document: state, extracted fields with their page and quote, and optionally its text."""
    with runtime(ctx).connection() as conn:
        with errors_reported():
            view = read_document(conn, document_id)
    extraction = view.extraction
    country = extraction.buyer_country() if extraction else None
    deadlines = extraction.deadlines(country) if extraction else {}
    if as_json:
        print_json(shown_as_json(view, country, deadlines, text=text))
        return
    doc = view.document
    console.print(safe(f"document {doc.id}  {doc.filename}  tenant={doc.tenant}  state={doc.state}  "
                       f"pages={doc.page_count or '?'}  version {doc.latest_version} "
                       f"(readable: {view.readable_version or 'none yet'})"), highlight=False)
    console.print(f"language={language_summary(doc)}", highlight=False)
    if doc.error:
        console.print(Text("error: ", style="red") + safe(doc.error), highlight=False)
    if doc.retrying:
        console.print(Text("waiting to run again: ", style="yellow") + safe(doc.retrying), highlight=False)
    if extraction:
        from tenderflow.api.document_view import candidate_rows, field_rows

        provenance = extraction.provenance
        rows = [{**vars(row), "sure": f"{row.confidence:.0%}" if row.confidence is not None else None}
                for row in field_rows(extraction.fields, provenance)]
        columns = ["field", "value", "sure", "page", "quote"]
        if extraction.backend == "hybrid":
            columns.append("found_by")
        if rows:
            print_table("fields", rows, columns, optional=["sure"], labels={"found_by": "found by"})
        else:
            print_note(f"no field found in version {view.readable_version} ({extraction.backend} backend)")
        candidates = [vars(row) for row in candidate_rows(provenance)]
        if candidates:
            print_note("candidates: values found but not sure enough to be returned as the field")
            print_table("candidates", candidates, ["field", "value", "page", "quote"])
        console.print(safe(country_line(country, deadlines)), highlight=False)
        for flag in extraction.flags:
            console.print(Text("flag: ", style="yellow") + safe(flag), highlight=False)
    if text:
        for page in view.pages:
            console.rule(f"page {page.page_number} ({page.source}"
                         + (f", confidence {page.confidence:.0f}" if page.confidence is not None else "")
                         + ")")
            console.print(safe(page.text), highlight=False)


def shown_as_json(view: DocumentView, country: BuyerCountry | None, deadlines: dict[str, PlacedDeadline], *,
                  text: bool) -> dict[str, Any]:
    """`show --json`: the document, the readable version's fields (one level: `fields.title`, not
    `fields.fields.title`), flags, how they were extracted, the buyer's country and the deadlines
    placed in its zone; its pages' text only with --text (a 400-page tender is megabytes)."""
    extraction = view.extraction
    shown: dict[str, Any] = {"document": asdict(view.document), "readable_version": view.readable_version,
                             "fields": extraction.fields if extraction else None,
                             "flags": extraction.flags if extraction else [],
                             "extraction": {key: getattr(extraction, key) for key in (
                                 "backend", "model", "prompt_tokens", "completion_tokens", "created_at")}
                             if extraction else None,
                             "country": country.model_dump(mode="json") if country else None,
                             "deadlines": {name: placed.model_dump(mode="json") for name, placed in deadlines.items()}}
    shown["pages"] = [{key: value for key, value in asdict(page).items() if text or key != "text"}
                      for page in view.pages]
    return shown


def country_line(country: BuyerCountry | None, deadlines: dict[str, PlacedDeadline]) -> str:
    """One line: the buyer's country, whether stated or inferred and from what, and the zone its
    deadlines are read in (or that they are local times, no zone known)."""
    if country is None:
        said = "buyer's country: not known (nothing in the document points to one clearly)"
    else:
        clues = [f"{clue.kind} {clue.value}" for clue in country.evidence if clue.kind != "stated"][:4]
        said = f"buyer's country: {country.code} (" + (
            "inferred from " + ", ".join(clues) if country.inferred else "stated in the document") + ")"
    if deadlines:
        zone = next(iter(deadlines.values())).time_zone if country else None
        said += (f"; deadlines in {zone} ({country.time_zone_from})" if zone and country
                 else "; deadlines are local times as printed (no time zone known)")
    return said


def reprocess_command(
    ctx: typer.Context,
    document_id: DocumentId,
    start_from: Annotated[StartPoint, typer.Option("--from", help="Read the pages again, or only extract.")] = (
        StartPoint.OCR),
    priority: Annotated[int, typer.Option(help="Orders this tenant's own jobs: higher runs first.")] = 0,
    languages: Annotated[str | None, typer.Option(
        help="OCR it with these tesseract languages from now on, e.g. deu+eng (with --from ocr).")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Even a document that failed for its own content (encrypted, damaged), which is "
        "refused otherwise: it would fail the same way.")] = False,
) -> None:
    """Process a document again as a new version; the old results stay readable until it lands."""
    from tenderflow.pipeline.reprocess import reprocess
    from tenderflow.pipeline.uploads import check_languages

    with errors_reported():
        languages = check_languages(languages)
    rt = runtime(ctx)
    with rt.connection() as conn:
        try:
            outcome = reprocess(conn, document_id, start_from=start_from, priority=priority,
                                prices=rt.prices, languages=languages,
                                max_attempts=rt.settings.max_attempts, force=force)
        except ReprocessRefusedError as exc:
            raise fail(f"{exc} (or --force to try anyway)") from exc
        except TenderflowError as exc:
            raise fail(str(exc)) from exc
    if outcome.created:
        console.print(f"document {document_id}: version {outcome.version} queued (from {start_from})")
    else:
        console.print(f"document {document_id}: version {outcome.version} is already in flight; not starting another")


@documents_app.command("delete")
def documents_delete(
    ctx: typer.Context,
    document_ids: Annotated[list[int], typer.Argument(
        metavar="DOCUMENT_ID...", help="The documents' ids (`tenderflow documents list`).")],
    tenant: Annotated[str | None, typer.Option(
        help="Only this tenant's documents: an id of another tenant's is not found (and not deleted).")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask (needed when not on a terminal).")] = False,
    as_json: JsonOption = False,
) -> None:
    """Delete documents with everything read from them: versions, pages, fields, search entries, and
    the stored PDF (by a job, once no other document refers to it). Unfinished work is cancelled and
    refunded; the credits ledger keeps its entries. Exit code 1 if an id was not found."""
    from tenderflow.pipeline.deletion import delete_document
    from tenderflow.tenders.records import refresh_stale

    ids = list(dict.fromkeys(document_ids))
    if not yes:
        if not sys.stdin.isatty():
            raise fail("deleting cannot be undone: add --yes to delete without being asked", code=2)
        if not typer.confirm(f"delete {len(ids)} document(s) ({', '.join(map(str, ids))}) and everything read "
                             "from them? This cannot be undone"):
            raise typer.Exit(1)
    rows: list[dict[str, Any]] = []
    with runtime(ctx).connection() as conn:
        for document_id in ids:
            try:
                deleted = delete_document(conn, document_id, tenant=tenant)
            except TenderflowError as exc:
                rows.append({"id": document_id, "result": "not found", "detail": str(exc)})
                continue
            rows.append({"id": document_id, "result": "deleted", "tenant": deleted.tenant,
                         "jobs_cancelled": deleted.jobs_cancelled, "refunded": deleted.refunded,
                         "deleted_at": deleted.deleted_at})
        refresh_stale(conn, tenant=tenant)  # their tenders, merged without them (tenderflow.tenders)
    if as_json:
        print_json(rows)
    else:
        print_table("deleted", rows, ["id", "result", "tenant", "jobs_cancelled", "refunded", "detail"])
    missing = sum(row["result"] != "deleted" for row in rows)
    print_note(f"deleted {len(rows) - missing} document(s)" + (f"; {missing} not found" if missing else "")
               + "; their stored PDFs are deleted by the workers' storage.delete jobs")
    if missing:
        raise typer.Exit(1)


@documents_app.command("expire")
def documents_expire(
    ctx: typer.Context,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would be deleted.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Delete now what the tenants' retention periods say is too old (the workers do it every hour):
    documents uploaded longer ago than their tenant's `--retention-days` (`tenants limits`), else
    TENDERFLOW_DOCUMENT_RETENTION_DAYS; 0 keeps them for ever."""
    from tenderflow.pipeline.deletion import expire_documents, expired_documents
    from tenderflow.tenders.records import refresh_stale

    rt = runtime(ctx)
    days = rt.settings.document_retention_days
    with rt.connection() as conn:
        if dry_run:
            rows = [vars(document) for document in expired_documents(conn, default_days=days, limit=10000)]
        else:
            rows = [vars(deleted) for deleted in expire_documents(conn, default_days=days)]
            refresh_stale(conn)
    if as_json:
        print_json(rows)
        return
    print_table("expired", rows, ["document_id", "tenant", "uploaded_at", "deleted_at", "refunded"])
    print_note(f"{len(rows)} document(s) {'past their retention period' if dry_run else 'deleted'}")


@documents_app.command("deleted")
def documents_deleted(
    ctx: typer.Context,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=10000, help="At most this many, newest first.")] = 50,
    as_json: JsonOption = False,
) -> None:
    """The record of deletions (no file name, text or field is kept): which document, why (request or
    retention), when, and whether its stored PDF is gone (kept: the same bytes were uploaded again)."""
    from tenderflow.pipeline.deletion import deletions

    with runtime(ctx).connection() as conn:
        rows = deletions(conn, tenant=tenant, limit=limit)
    if as_json:
        print_json(rows)
        return
    shown = [{**row, "object": "kept (uploaded again)" if row["object_kept"] else
              "deleted" if row["object_done_at"] else "queued"} for row in rows]
    print_table("deletions", shown, ["document_id", "tenant", "reason", "uploaded_at", "deleted_at", "object"])
