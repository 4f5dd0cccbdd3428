"""Extraction quality on real tenders: `tenderflow eval` over both folders of the dev set.

    .venv/bin/python -m bench.extraction_quality [--tenders ../shared/tenders-dev] [--no-cache]

For each folder of `--tenders` (each holds PDFs and a `key.json` in the format of docs/evaluation.md)
it runs `tenderflow eval KEY --json` as a user would, with the backend the environment configures
(the offline extractor by default; TENDERFLOW_LLM_BASE_URL / _API_KEY / _MODEL for an LLM), and in
the same run scores the baseline: the label reader the offline backend replaced
(`tenderflow.extraction.rules.RulesBackend`, TED/eForms labels at the start of a line), on the same
page texts. It prints per folder and per field correct / wrong / missed / spurious, recall and
precision, the extractor's CPU per page, and ends with one JSON line.

Targets (issue 9): rules backend precision >= 0.90 and recall >= 0.70 on required values, every
returned value grounded, at most 20 ms of extractor CPU per page on average. It also lists each of the
extractor's rules with the documents it gave a value for (issue 22): a rule that fires on one document
only is named, to be generalised or removed.
Pages are read as an upload reads them (text layer, else OCR); their texts are cached under the data
directory (`--no-cache` reads every page again: OCR of the scanned pages takes a few minutes).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TENDERS = ROOT.parent / "shared" / "tenders-dev"
TARGET_PRECISION, TARGET_RECALL, TARGET_CPU_MS = 0.90, 0.70, 20.0


def run_eval(key: Path, cache: bool) -> dict[str, Any]:
    command = [str(ROOT / ".venv" / "bin" / "tenderflow"), "eval", str(key), "--json"]
    if not cache:
        command.append("--no-cache")
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if not lines:
        sys.exit(f"tenderflow eval {key} printed no result (exit {completed.returncode}):\n{completed.stderr}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def baseline(key: Path) -> dict[str, Any]:
    """The replaced label reader on the same documents, read the same way (cached pages)."""
    from tenderflow.config import Settings
    from tenderflow.evaluation.keys import load_key
    from tenderflow.evaluation.run import PageCache, score_documents
    from tenderflow.evaluation.scoring import Tally
    from tenderflow.extraction.rules import RulesBackend

    settings = Settings()
    scores = score_documents(load_key(key), RulesBackend(), settings, cache=PageCache(settings.data_dir / "eval-pages"))
    return Tally.of([comparison for score in scores for comparison in score.comparisons]).as_dict()


def _rules_over(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The extractor's rules over every folder: the documents each gave a scored value for, and the
    verdicts (from each `tenderflow eval --json`'s "rules")."""
    merged: dict[str, dict[str, Any]] = {}
    for folder, result in results.items():
        for rule, entry in result.get("rules", {}).items():
            into = merged.setdefault(rule, {"documents": [], "correct": 0, "wrong": 0, "spurious": 0})
            into["documents"] += [f"{folder}/{name}" for name in entry["documents"]]
            for verdict in ("correct", "wrong", "spurious"):
                into[verdict] += entry[verdict]
    return merged


def ratio(value: float | None) -> str:
    return "  –  " if value is None else f"{value:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tenders", type=Path, default=DEFAULT_TENDERS)
    parser.add_argument("--no-cache", action="store_true")
    args = parser.parse_args()
    folders = sorted(path.parent for path in args.tenders.glob("*/key.json"))
    if not folders:
        sys.exit(f"no */key.json under {args.tenders}")

    started = time.monotonic()
    results: dict[str, dict[str, Any]] = {}
    baselines: dict[str, dict[str, Any]] = {}
    for folder in folders:
        results[folder.name] = run_eval(folder / "key.json", cache=not args.no_cache)
        baselines[folder.name] = baseline(folder / "key.json")

    backend = next(iter(results.values()))["backend"]
    print(f"extraction quality, {backend} backend, on {args.tenders}")
    for name, result in results.items():
        totals, before = result["totals"], baselines[name]
        print(f"\n{name}: {result['documents']} documents, {result['pages']} pages ({result['ocr_pages']} OCR)")
        print(f"  {'field':22} {'req':>4} {'ok':>4} {'wrong':>5} {'miss':>5} {'spur':>5} {'recall':>7} {'prec':>7}")
        for field, tally in result["fields"].items():
            print(f"  {field:22} {tally['required']:4} {tally['correct']:4} {tally['wrong']:5} {tally['missed']:5} "
                  f"{tally['spurious']:5} {ratio(tally['recall']):>7} {ratio(tally['precision']):>7}")
        print(f"  {'TOTAL':22} {totals['required']:4} {totals['correct']:4} {totals['wrong']:5} {totals['missed']:5} "
              f"{totals['spurious']:5} {ratio(totals['recall']):>7} {ratio(totals['precision']):>7}")
        print(f"  baseline (label reader): recall {ratio(before['recall'])}, precision {ratio(before['precision'])}")
        cpu = result["extract_cpu_ms_per_page"]
        print(f"  grounded {ratio(totals['grounded_share'])}; extractor CPU {cpu} ms/page")

    rules = _rules_over(results)
    single = sorted(rule for rule, entry in rules.items() if len(entry["documents"]) == 1)
    print(f"\nrules that gave a scored value: {len(rules)}; on one document only: {len(single)}")
    print(f"  {'rule (field: rule)':62} {'docs':>4} {'ok':>4} {'wrong':>5} {'spur':>5}")
    for rule, entry in sorted(rules.items(), key=lambda item: (-len(item[1]["documents"]), item[0])):
        print(f"  {rule[:62]:62} {len(entry['documents']):4} {entry['correct']:4} {entry['wrong']:5} "
              f"{entry['spurious']:5}{'   <- one document: ' + entry['documents'][0] if rule in single else ''}")

    every = [result["totals"] for result in results.values()]
    required = sum(total["required"] for total in every)
    correct_required = sum(total["correct_required"] for total in every)
    correct = sum(total["correct"] for total in every)
    answered = sum(total["correct"] + total["wrong"] + total["spurious"] for total in every)
    returned = sum(total["returned"] for total in every)
    grounded = sum(total["grounded"] for total in every)
    pages = sum(result["pages"] for result in results.values())
    cpu_ms = sum((result["extract_cpu_ms_per_page"] or 0.0) * result["pages"] for result in results.values()) / pages
    overall = {
        "recall": round(correct_required / required, 4) if required else None,
        "precision": round(correct / answered, 4) if answered else None,
        "grounded_share": round(grounded / returned, 4) if returned else None,
        "extract_cpu_ms_per_page": round(cpu_ms, 3),
    }
    met = {
        name: bool((result["totals"]["precision"] or 0) >= TARGET_PRECISION
                   and (result["totals"]["recall"] or 0) >= TARGET_RECALL)
        for name, result in results.items()
    }
    print(f"\noverall: recall {ratio(overall['recall'])}, precision {ratio(overall['precision'])}, grounded "
          f"{ratio(overall['grounded_share'])}, extractor CPU {overall['extract_cpu_ms_per_page']} ms/page "
          f"(targets: precision >= {TARGET_PRECISION}, recall >= {TARGET_RECALL}, <= {TARGET_CPU_MS} ms/page); "
          f"{time.monotonic() - started:.1f} s")
    summary = {
        "bench": "extraction_quality",
        "backend": backend,
        "model": next(iter(results.values()))["model"],
        "folders": {
            name: {
                "documents": result["documents"], "pages": result["pages"], "totals": result["totals"],
                "fields": {field: {k: tally[k] for k in ("required", "correct", "wrong", "missed", "spurious",
                                                         "recall", "precision")}
                           for field, tally in result["fields"].items()},
                "extract_cpu_ms_per_page": result["extract_cpu_ms_per_page"],
                "baseline_label_reader": {k: baselines[name][k] for k in ("recall", "precision")},
                "targets_met": met[name],
            }
            for name, result in results.items()
        },
        "overall": overall,
        "rules": len(rules),
        "rules_on_one_document": single,
        "targets_met": all(met.values()) and cpu_ms <= TARGET_CPU_MS,
    }
    print(json.dumps(summary, separators=(",", ":")))


if __name__ == "__main__":
    main()
