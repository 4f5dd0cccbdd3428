"""`tenderflow eval`: the report a person reads and the JSON line a script parses (scoring itself is
tenderflow.evaluation)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from tenderflow.cli import output
from tenderflow.cli.output import JsonOption
from tenderflow.cli.runtime import runtime
from tenderflow.config import Settings
from tenderflow.evaluation.keys import FIELDS, KeyFileError, load_key
from tenderflow.evaluation.scoring import Comparison, Tally

if TYPE_CHECKING:
    from tenderflow.evaluation.run import DocumentScore


def run_eval(
    settings: Settings,
    console: Console,
    *,
    key: Path,
    pdf_dir: Path | None,
    fields: str | None,
    docs: list[str],
    details: bool,
    min_recall: float | None,
    min_precision: float | None,
    cache: bool,
    as_json: bool,
) -> None:
    """Score every document of `key` (or those named by `docs`) on every field (or `fields`)."""
    if not console.is_terminal:
        console = Console(width=160, highlight=False)  # a log or a pipe: no 80-column cut
    wanted_fields = _field_list(fields)
    documents = load_key(key, pdf_dir)
    if docs:
        unknown = sorted(set(docs) - {document.name for document in documents})
        if unknown:
            raise KeyFileError(f"{key}: no document named {', '.join(unknown)} in the key")
        documents = [document for document in documents if document.name in docs]
    # Imported here: the extraction backends (the LLM client, the offline extractor's tables) take
    # seconds to import, which every other command would pay at start.
    from tenderflow.evaluation.run import PageCache, score_documents
    from tenderflow.extraction import build_backend

    backend = build_backend(settings)
    page_cache = PageCache(settings.data_dir / "eval-pages") if cache else None
    started = time.monotonic()
    with console.status("reading and extracting…") as status:
        scores = score_documents(documents, backend, settings, cache=page_cache, fields=wanted_fields,
                                 progress=lambda name: status.update(f"reading and extracting {name}…"))
    elapsed = time.monotonic() - started
    summary = _summary(scores, backend.name, settings, key, elapsed)
    if not as_json:
        _print_report(console, scores, summary, details)
    print(json.dumps(summary, ensure_ascii=False, separators=(",", ":")), flush=True)
    totals = summary["totals"]
    below = []
    if min_recall is not None and (totals["recall"] or 0.0) < min_recall:
        below.append(f"recall {totals['recall']} < {min_recall}")
    if min_precision is not None and (totals["precision"] or 0.0) < min_precision:
        below.append(f"precision {totals['precision']} < {min_precision}")
    if below:
        # on stderr: the JSON line stays the last line of stdout
        output.err_console.print(f"[red]below target:[/red] {'; '.join(below)}", highlight=False)
        raise typer.Exit(1)


def _field_list(fields: str | None) -> list[str] | None:
    if fields is None:
        return None
    names = [name.strip() for name in fields.split(",") if name.strip()]
    unknown = [name for name in names if name not in FIELDS]
    if unknown or not names:
        given = ", ".join(unknown) or "(none given)"
        raise KeyFileError(f"unknown field(s) {given}; the fields are: {', '.join(FIELDS)}")
    return names


def _summary(
    scores: list[DocumentScore], backend: str, settings: Settings, key: Path, elapsed: float
) -> dict[str, Any]:
    every = [comparison for score in scores for comparison in score.comparisons]
    per_field: dict[str, Tally] = {}
    for comparison in every:
        per_field.setdefault(comparison.field, Tally()).add(comparison)
    pages = sum(len(score.pages) for score in scores)
    cpu = sum(score.extract_cpu_seconds for score in scores)
    return {
        "key": str(key),
        "backend": backend,
        "model": settings.llm_model if backend != "rules" else None,
        "documents": len(scores),
        "pages": pages,
        "ocr_pages": sum(score.ocr_pages for score in scores),
        "totals": Tally.of(every).as_dict(),
        "fields": {name: per_field[name].as_dict() for name in FIELDS if name in per_field},
        "per_document": {
            score.name: {**score.tally.as_dict(), "pages": len(score.pages), "ocr_pages": score.ocr_pages,
                         "language": score.language, "ocr_languages": score.ocr_languages, "error": score.error}
            for score in scores
        },
        "seconds": round(elapsed, 2),
        "extract_seconds": round(sum(score.extract_seconds for score in scores), 3),
        "extract_cpu_ms_per_page": round(1000 * cpu / pages, 3) if pages else None,
        "prompt_tokens": sum(score.prompt_tokens for score in scores),
        "completion_tokens": sum(score.completion_tokens for score in scores),
        "rules": _rules(scores),
    }


def _rules(scores: list[DocumentScore]) -> dict[str, dict[str, Any]]:
    """Per rule of the extractor ("field: rule"): the documents it gave a scored value for, and how those
    values scored. A rule that fires on one document only may be memorising one document's wording."""
    found: dict[str, dict[str, Any]] = {}
    for score in scores:
        verdicts = {comparison.field: comparison.verdict for comparison in score.comparisons}
        for field, rule in score.rules.items():
            if field not in verdicts or verdicts[field] == "absent":
                continue
            entry = found.setdefault(f"{field}: {rule}", {"documents": [], "correct": 0, "wrong": 0, "spurious": 0})
            entry["documents"].append(score.name)
            if verdicts[field] in ("correct", "wrong", "spurious"):
                entry[verdicts[field]] += 1
    return dict(sorted(found.items()))


def counted(number: int, noun: str) -> str:
    """'1 document', '2 documents'."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _print_report(console: Console, scores: list[DocumentScore], summary: dict[str, Any], details: bool) -> None:
    if details:
        for score in scores:
            _print_details(console, score)
    # Through print_table: on a terminal a table, piped TSV (the JSON line still comes last).
    # "correct" counts the required values found (recall's numerator), so it never exceeds "required";
    # optional values matched are a column of their own (the review read "required 3, correct 4").
    output.print_table(f"by field ({summary['backend']} backend)", [
        {"field": name, "required": tally["required"], "correct": tally["correct_required"],
         "optional": tally["correct"] - tally["correct_required"],
         **{column: tally[column] for column in ("wrong", "missed", "spurious")},
         "recall": _ratio(tally["recall"]), "precision": _ratio(tally["precision"])}
        for name, tally in summary["fields"].items()
    ], ["field", "required", "correct", "optional", "wrong", "missed", "spurious", "recall", "precision"],
        labels={"correct": "found", "optional": "+ optional"})
    output.print_table("by document", [
        {"document": score.name + (" (error)" if score.error else ""), "pages": len(score.pages),
         "ocr": score.ocr_pages, "language": score.language or "–", "correct": score.tally.correct,
         "wrong": score.tally.wrong, "missed": score.tally.missed, "spurious": score.tally.spurious,
         "recall": _ratio(score.tally.recall), "precision": _ratio(score.tally.precision),
         "seconds": f"{score.read_seconds + score.extract_seconds:.1f}"}
        for score in scores
    ], ["document", "pages", "ocr", "language", "correct", "wrong", "missed", "spurious", "recall", "precision",
        "seconds"], labels={"seconds": "s"})
    totals = summary["totals"]
    console.print(
        f"{counted(summary['documents'], 'document')}, {counted(summary['pages'], 'page')} "
        f"({summary['ocr_pages']} OCR): "
        f"recall {_ratio(totals['recall'])} ({totals['correct_required']}/{totals['required']} required values), "
        f"precision {_ratio(totals['precision'])} ({totals['correct']} correct, {totals['wrong']} wrong, "
        f"{totals['spurious']} spurious), grounded {_ratio(totals['grounded_share'])}; "
        f"{summary['seconds']:.1f} s, extraction {summary['extract_cpu_ms_per_page']} ms CPU per page",
        highlight=False,
    )
    for score in scores:
        if score.error:
            console.print(f"[red]{score.name}:[/red] {score.error}", highlight=False)


def _print_details(console: Console, score: DocumentScore) -> None:
    shown = [comparison for comparison in score.comparisons if comparison.verdict not in ("correct", "absent")]
    if not shown and not score.error:
        return
    console.print(f"[bold]{score.name}[/bold]", highlight=False)
    for comparison in shown:
        console.print(f"  {comparison.field}: [yellow]{comparison.verdict}[/yellow] {_described(comparison)}",
                      highlight=False, soft_wrap=True)
    for flag in score.flags:
        console.print(f"  [dim]flag: {flag}[/dim]", highlight=False, soft_wrap=True)


def _described(comparison: Comparison) -> str:
    parts = []
    if comparison.returned is not None:
        returned = comparison.returned
        quote = (returned.quote or "").replace("\n", " ⏎ ")
        parts.append(f"got {json.dumps(returned.value, ensure_ascii=False)} (p{returned.page}: {quote[:160]!r})")
    if comparison.expected.values is not None:
        parts.append(f"key {json.dumps(comparison.expected.values[0], ensure_ascii=False)}"
                     + (f" (p{comparison.expected.page})" if comparison.expected.page else ""))
    return "; ".join(parts)


def evaluate(
    ctx: typer.Context,
    key: Annotated[Path, typer.Argument(
        metavar="KEY_FILE", help="Answer key (JSON): file name -> field -> expected value.")],
    pdf_dir: Annotated[Path | None, typer.Argument(
        metavar="PDF_DIR", help="Folder of the PDFs (default: the key's folder).")] = None,
    fields: Annotated[str | None, typer.Option(help="Score only these fields (comma-separated).")] = None,
    doc: Annotated[list[str] | None, typer.Option("--doc", help="Score only this document (repeatable).")] = None,
    details: Annotated[bool, typer.Option(help="Print every comparison that is not correct.")] = False,
    min_recall: Annotated[float | None, typer.Option(help="Exit 1 when recall is below this.")] = None,
    min_precision: Annotated[float | None, typer.Option(help="Exit 1 when precision is below this.")] = None,
    cache: Annotated[bool, typer.Option(help="Keep page texts (OCR included) between runs.")] = True,
    json_out: JsonOption = False,
) -> None:
    """Score extraction against an answer key: per field, per document, totals; one JSON line last."""
    run_eval(runtime(ctx).settings, output.console, key=key, pdf_dir=pdf_dir, fields=fields, docs=doc or [],
             details=details, min_recall=min_recall, min_precision=min_precision, cache=cache, as_json=json_out)
