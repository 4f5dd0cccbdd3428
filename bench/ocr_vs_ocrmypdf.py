"""OCR against OCRmyPDF on the same scanned files, in the same run: throughput over many files, and the
latency of one multi-page scan.

    make bench-ocr           # installs Ghostscript (apt) and OCRmyPDF (PyPI, into .venv-ocrmypdf), runs this
    .venv/bin/python -m bench.ocr_vs_ocrmypdf [--ocrmypdf .venv-ocrmypdf/bin/ocrmypdf] [--rounds 3]
        [--corpus ../shared/corpus/ocrmypdf] [--processes 2]

The files (FILES, from the public corpus; see its MANIFEST.md): pages turned 0/90/180/270
(cardinal.pdf), skewed (skew, rotated_skew), low-resolution scans at 96-150 ppi (c02-22, graph,
lichtenstein, palette, poster, masks, multipage's 96/150 ppi pages), 300 ppi scans (linn, francais),
and a mixed file the bench builds: two born-digital pages (tagged.pdf) followed by a scan (linn.pdf).
English is read everywhere (OCRmyPDF's default, `-l eng`; tenderflow with TENDERFLOW_OCR_LANGUAGES=eng
and no language detection).

Contenders, alternated round by round so that drift in the machine's load hits all alike; every
process is started in a session of its own (the kernel's autogroup scheduler shares CPU between
sessions, see ocr_throughput.py; this also keeps OCRmyPDF's own `os.nice(5)` from costing it CPU
against other sessions, since nice values then count only inside a session):

    tenderflow   `tenderflow worker --pool all --processes N` started idle (file storage, the offline
                 extractor), every file uploaded as `tenderflow upload` does; seconds from the first
                 upload to the last document done (the database's clock): OCR, extraction and all.
    OCRmyPDF     `ocrmypdf --rotate-pages --skip-text --output-type none --sidecar OUT.txt` (text output,
                 no PDF written: tenderflow does not write one either), OMP_THREAD_LIMIT=1, two ways for
                 N cores: N files at once with `-j 1` each, and one file at a time with `-j N`. The
                 faster of the two in each round is its throughput figure (which one is printed).

Latency: one 4-page scan (--latency-file, cardinal.pdf: its pages turned 0, 90, 180 and 270 degrees),
upload -> done on N idle worker processes, against `ocrmypdf -j N` with the same options.

Targets (issue 14): throughput tenderflow / OCRmyPDF >= 1.2; the 4-page scan's tenderflow seconds /
OCRmyPDF seconds <= 1.0. Medians over rounds of each round's ratio. The rotations tenderflow found for
the turned scan's pages are printed (they must come out upright). The last line is one JSON object.

`--suite tenders` (issue 22): real tenders in their languages, with tenderflow's language detection on
(its default). The files: the dev set's image-only tenders (every page without a usable text layer,
../shared/tenders-dev), two turned/skewed corpus scans (cardinal, rotated_skew), and scans made here of
the first two pages of a Japanese, a Chinese and a Korean dev tender (rendered at 200 dpi, text layer
dropped: the dev set has no CJK scan). Contenders, alternated per round:

    tenderflow           detection on, as a user runs it: upload -> done
    OCRmyPDF default     `-l eng`, what it reads when told nothing
    OCRmyPDF same        `-l` given the languages tenderflow detected for each file (its plan's choice)

Reading quality, so that speed is not bought with worse text: for each file with a key, the share of the
key's quotes on its OCRed pages that each contender's text holds (case, white space and hyphens
ignored); for the CJK scans the quotes of those pages (from the original text layer). Targets: tenderflow
/ OCRmyPDF same >= 1.2, tenderflow / OCRmyPDF default >= 1.0, and tenderflow's quotes read not fewer
than either's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench.pipeline_workers import (
    REPO,
    database_now,
    load_average,
    upload_all,
    wait_for_versions,
    worker_environment,
    worker_pool,
)
from bench.scratch_database import scratch_database, server

CORPUS = next((base / "shared" / "corpus" / "ocrmypdf" for base in (REPO.parent, REPO.parent.parent)
               if (base / "shared" / "corpus" / "ocrmypdf").is_dir()), REPO.parent / "shared" / "corpus" / "ocrmypdf")
"""../shared/corpus/ocrmypdf beside the clone (or beside the worktrees' folder)."""
FILES = ("cardinal.pdf", "skew.pdf", "rotated_skew.pdf", "c02-22.pdf", "graph.pdf", "lichtenstein.pdf",
         "palette.pdf", "poster.pdf", "masks.pdf", "linn.pdf", "francais.pdf", "multipage.pdf")
MIXED = ("tagged.pdf", "linn.pdf")
"""The mixed file: tagged.pdf's two born-digital pages, then linn.pdf's scan."""
RUN_TIMEOUT_SECONDS = 1800.0


@dataclass(frozen=True)
class Timed:
    seconds: float
    load: float


def pages_of(path: Path) -> int:
    report = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[-1] for line in report.splitlines() if line.startswith("Pages:")))


def build_corpus(corpus: Path, directory: Path) -> list[Path]:
    from pypdf import PdfWriter

    directory.mkdir(parents=True, exist_ok=True)
    files = []
    for name in FILES:
        target = directory / name
        shutil.copyfile(corpus / name, target)
        files.append(target)
    writer = PdfWriter()
    for name in MIXED:
        writer.append(str(corpus / name))
    mixed = directory / "mixed-text-and-scan.pdf"
    with mixed.open("wb") as out:
        writer.write(out)
    files.append(mixed)
    return files


# --- OCRmyPDF --------------------------------------------------------------------------------------


def ocrmypdf_command(ocrmypdf: str, pdf: Path, sidecar: Path, jobs: int) -> list[str]:
    return [ocrmypdf, "-q", "--rotate-pages", "--skip-text", "--output-type", "none", "--sidecar", str(sidecar),
            "-j", str(jobs), str(pdf), "-"]


def run_ocrmypdf(ocrmypdf: str, files: Sequence[Path], *, at_once: int, jobs: int, work: Path) -> float:
    """Seconds for OCRmyPDF to read every file, `at_once` files at a time with `-j jobs` each."""
    environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}

    def one(pdf: Path) -> None:
        result = subprocess.run(ocrmypdf_command(ocrmypdf, pdf, work / f"{pdf.stem}.txt", jobs), env=environment,
                                capture_output=True, start_new_session=True)
        if result.returncode != 0:
            raise RuntimeError(f"ocrmypdf failed on {pdf.name} ({result.returncode}): {result.stderr[-2000:]!r}")

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        list(pool.map(one, files))
    return time.monotonic() - started


# --- tenderflow ------------------------------------------------------------------------------------


def run_tenderflow(admin_url: str, files: Sequence[Path], *, processes: int, work: Path
                   ) -> tuple[float, list[tuple[int, int, float | None]]]:
    """Seconds from the first upload to the last document done, and (page, rotation, confidence) of
    the first file's OCRed pages."""
    settings = {"TENDERFLOW_OCR_LANGUAGES": "eng", "TENDERFLOW_OCR_DETECT_LANGUAGES": "false"}
    with scratch_database(admin_url) as url:
        environment = worker_environment(url, work, **settings)
        with worker_pool(url, environment, pool="all", processes=processes, log_path=work / "workers.log") as pool:
            started = database_now(url)
            ids = upload_all(url, environment, list(files))
            wait_for_versions(url, len(files), timeout_seconds=RUN_TIMEOUT_SECONDS, workers=pool)
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute("SELECT max(finished_at), count(*) FILTER (WHERE state <> 'done')"
                               " FROM document_versions").fetchone()
            pages = conn.execute("SELECT page_number, rotation, confidence FROM pages WHERE document_id = %s"
                                 " AND source = 'ocr' ORDER BY page_number", (ids[0],)).fetchall()
    assert row is not None
    last_done, not_done = row
    if not_done:
        raise RuntimeError(f"{not_done} documents did not end done; see {work / 'workers.log'}")
    return (last_done - started).total_seconds(), [(int(p), int(r), c) for p, r, c in pages]


def measure_round(results: dict[str, list[Timed]], admin_url: str, ocrmypdf: str, files: Sequence[Path],
                  latency_file: Path, n: int, out: Path) -> list[tuple[int, int, float | None]]:
    """One round of every contender, in turn; returns how tenderflow read the latency file's pages."""

    def timed(name: str, measure: Callable[[], float]) -> None:
        load = load_average()
        results[name].append(Timed(measure(), load))

    timed("tenderflow", lambda: run_tenderflow(admin_url, files, processes=n, work=out / "tf")[0])
    timed("ocrmypdf_at_once", lambda: run_ocrmypdf(ocrmypdf, files, at_once=n, jobs=1, work=out))
    timed("ocrmypdf_jobs", lambda: run_ocrmypdf(ocrmypdf, files, at_once=1, jobs=n, work=out))
    read: list[tuple[int, int, float | None]] = []

    def latency() -> float:
        seconds, pages = run_tenderflow(admin_url, [latency_file], processes=n, work=out / "tf-one")
        read.extend(pages)
        return seconds

    timed("tenderflow_latency", latency)
    timed("ocrmypdf_latency", lambda: run_ocrmypdf(ocrmypdf, [latency_file], at_once=1, jobs=n, work=out))
    return read


# --- the tenders suite (issue 22) -----------------------------------------------------------------------

TENDERS = next((base / "shared" / "tenders-dev" for base in (REPO.parent, REPO.parent.parent)
                if (base / "shared" / "tenders-dev").is_dir()), REPO.parent / "shared" / "tenders-dev")
TURNED_SCANS = ("cardinal.pdf", "rotated_skew.pdf")
CJK_SOURCES = (("east-asia-eastern-europe", "nyusatsu-chiba-fukuchiji-kosha.pdf"),
               ("east-asia-eastern-europe", "zh-ningbo-huarun-gas-sms-2026.pdf"),
               ("east-asia-eastern-europe", "kr-kec-munsan-dorasan-2019-00468.pdf"))
CJK_SCAN_PAGES = 2
CJK_SCAN_DPI = 200


@dataclass(frozen=True)
class TenderFile:
    path: Path
    quotes: tuple[str, ...]
    """The key's quotes on the pages that are OCRed (empty: no key, not scored for quality)."""


def _normal(text: str) -> str:
    import unicodedata

    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if not ch.isspace() and ch not in "-‐")


def _key_quotes(key: dict[str, object], name: str, pages: set[int]) -> tuple[str, ...]:
    entry = key.get(name)
    if not isinstance(entry, dict):
        return ()
    quotes = []
    for field, value in entry.items():
        if field.startswith("_") or not isinstance(value, dict):
            continue
        if value.get("page") in pages and isinstance(value.get("quote"), str) and len(_normal(value["quote"])) >= 4:
            quotes.append(str(value["quote"]))
    return tuple(quotes)


def build_tender_corpus(tenders: Path, corpus: Path, directory: Path) -> list[TenderFile]:
    """The image-only dev tenders, the two turned scans, and CJK scans made from born-digital tenders."""
    from PIL import Image

    from tenderflow.pdf.textlayer import extract_text_layer, text_layer_is_usable

    directory.mkdir(parents=True, exist_ok=True)
    files: list[TenderFile] = []
    for key_path in sorted(tenders.glob("*/key.json")):
        key = json.loads(key_path.read_text(encoding="utf-8"))
        for pdf in sorted(key_path.parent.glob("*.pdf")):
            count = pages_of(pdf)
            layers = extract_text_layer(pdf, 1, count, timeout_seconds=120, memory_bytes=2 * 1024**3)
            if any(text_layer_is_usable(text) for text in layers):
                continue
            target = directory / pdf.name
            shutil.copyfile(pdf, target)
            files.append(TenderFile(target, _key_quotes(key, pdf.name, set(range(1, count + 1)))))
    for name in TURNED_SCANS:
        shutil.copyfile(corpus / name, directory / name)
        files.append(TenderFile(directory / name, ()))
    for folder, name in CJK_SOURCES:
        source = tenders / folder / name
        key = json.loads((tenders / folder / "key.json").read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory() as temp:
            subprocess.run(["pdftoppm", "-r", str(CJK_SCAN_DPI), "-gray", "-f", "1", "-l", str(CJK_SCAN_PAGES),
                            str(source), f"{temp}/page"], check=True)
            images = [Image.open(path) for path in sorted(Path(temp).glob("page-*.pgm"))]
            target = directory / f"scan-of-{name}"
            images[0].save(target, "PDF", resolution=CJK_SCAN_DPI, save_all=True, append_images=images[1:])
        files.append(TenderFile(target, _key_quotes(key, name, set(range(1, CJK_SCAN_PAGES + 1)))))
    return files


def quotes_read(text: str, quotes: Sequence[str]) -> int:
    normal = _normal(text)
    return sum(_normal(quote) in normal for quote in quotes)


def run_tenderflow_detecting(admin_url: str, files: Sequence[TenderFile], *, processes: int, work: Path
                             ) -> tuple[float, dict[str, str], dict[str, str]]:
    """Seconds upload -> last done with detection on; per file its OCR languages and its text."""
    with scratch_database(admin_url) as url:
        environment = worker_environment(url, work)
        with worker_pool(url, environment, pool="all", processes=processes, log_path=work / "workers.log") as pool:
            started = database_now(url)
            upload_all(url, environment, [file.path for file in files])
            wait_for_versions(url, len(files), timeout_seconds=RUN_TIMEOUT_SECONDS, workers=pool)
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute("SELECT max(finished_at) FROM document_versions").fetchone()
            read = conn.execute(
                "SELECT d.filename, v.ocr_languages, string_agg(p.text, E'\n' ORDER BY p.page_number)"
                "  FROM documents d JOIN document_versions v ON v.document_id = d.id"
                "  JOIN pages p ON p.document_id = d.id AND p.version = v.version GROUP BY 1, 2").fetchall()
    assert row is not None
    return ((row[0] - started).total_seconds(), {str(name): str(languages) for name, languages, _ in read},
            {str(name): str(text) for name, _, text in read})


def run_ocrmypdf_tenders(ocrmypdf: str, files: Sequence[TenderFile], languages: dict[str, str] | None, *,
                         at_once: int, work: Path) -> tuple[float, dict[str, str]]:
    """Seconds for OCRmyPDF to read every file `at_once` at a time (`-j 1` each), with `-l` the given
    languages per file (None: its default, English), and the text it read."""
    environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    work.mkdir(parents=True, exist_ok=True)

    def one(file: TenderFile) -> None:
        command = ocrmypdf_command(ocrmypdf, file.path, work / f"{file.path.stem}.txt", 1)
        if languages is not None:
            command[1:1] = ["-l", languages[file.path.name]]
        result = subprocess.run(command, env=environment, capture_output=True, start_new_session=True)
        if result.returncode != 0:
            raise RuntimeError(f"ocrmypdf failed on {file.path.name} ({result.returncode}): {result.stderr[-2000:]!r}")

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        list(pool.map(one, files))
    seconds = time.monotonic() - started
    return seconds, {file.path.name: (work / f"{file.path.stem}.txt").read_text(encoding="utf-8", errors="replace")
                     for file in files}


def tenders_suite(args: argparse.Namespace, ocrmypdf: str, version: str) -> None:
    n = args.processes
    seconds: dict[str, list[Timed]] = {"tenderflow": [], "ocrmypdf_default": [], "ocrmypdf_same": []}
    read: dict[str, int] = {}
    per_file: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="tenderflow-bench-tenders-") as temp, server() as (admin_url, where):
        work = Path(temp)
        files = build_tender_corpus(args.tenders, args.corpus, work / "corpus")
        pages = sum(pages_of(file.path) for file in files)
        quotes = sum(len(file.quotes) for file in files)
        print(f"ocr_vs_ocrmypdf --suite tenders: {len(files)} files, {pages} pages ({quotes} key quotes to read); "
              f"OCRmyPDF {version}; {n} processes, {os.cpu_count()} cores, server: {where}")
        languages: dict[str, str] = {}
        for round_number in range(1, args.rounds + 1):
            out = work / f"round-{round_number}"
            load = load_average()
            took, languages, texts = run_tenderflow_detecting(admin_url, files, processes=n, work=out / "tf")
            seconds["tenderflow"].append(Timed(took, load))
            read["tenderflow"] = sum(quotes_read(texts.get(f.path.name, ""), f.quotes) for f in files)
            per_file["tenderflow"] = {f.path.name: quotes_read(texts.get(f.path.name, ""), f.quotes) for f in files}
            for name, asked in (("ocrmypdf_default", None), ("ocrmypdf_same", languages)):
                load = load_average()
                took, texts = run_ocrmypdf_tenders(ocrmypdf, files, asked, at_once=n, work=out / name)
                seconds[name].append(Timed(took, load))
                read[name] = sum(quotes_read(texts.get(f.path.name, ""), f.quotes) for f in files)
                per_file[name] = {f.path.name: quotes_read(texts.get(f.path.name, ""), f.quotes) for f in files}
            last = {name: runs[-1] for name, runs in seconds.items()}
            print(f"  round {round_number}: tenderflow {last['tenderflow'].seconds:.1f} s (load "
                  f"{last['tenderflow'].load:.1f}), OCRmyPDF default {last['ocrmypdf_default'].seconds:.1f} s, "
                  f"OCRmyPDF same languages {last['ocrmypdf_same'].seconds:.1f} s")
    ratios = {name: round(statistics.median(om.seconds / tf.seconds for om, tf in
                                            zip(seconds[name], seconds["tenderflow"], strict=True)), 3)
              for name in ("ocrmypdf_default", "ocrmypdf_same")}
    print(f"languages tenderflow detected: {languages}")
    print(f"throughput ratio tenderflow / OCRmyPDF same languages: {ratios['ocrmypdf_same']} (target >= 1.2); "
          f"/ OCRmyPDF default (eng): {ratios['ocrmypdf_default']} (target >= 1.0)")
    print(f"key quotes read (of {quotes}): tenderflow {read['tenderflow']}, OCRmyPDF same languages "
          f"{read['ocrmypdf_same']}, OCRmyPDF default {read['ocrmypdf_default']}")
    for file in files:
        if file.quotes:
            name = file.path.name
            print(f"  {name[:48]:48} {len(file.quotes):3} quotes: tenderflow {per_file['tenderflow'][name]:3}, "
                  f"same {per_file['ocrmypdf_same'][name]:3}, default {per_file['ocrmypdf_default'][name]:3}")
    print(json.dumps({
        "bench": "ocr_vs_ocrmypdf", "suite": "tenders", "files": len(files), "pages": pages, "processes": n,
        "cores": os.cpu_count(), "rounds": args.rounds, "ocrmypdf": version, "server": where,
        "languages": languages, "seconds": {name: [round(run.seconds, 2) for run in runs] for name, runs in
                                            seconds.items()},
        "load_average": [round(run.load, 2) for run in seconds["tenderflow"]],
        "ratio_same_languages": ratios["ocrmypdf_same"], "ratio_default": ratios["ocrmypdf_default"],
        "quotes": quotes, "quotes_read": read, "quotes_read_per_file": per_file,
        "targets_met": ratios["ocrmypdf_same"] >= 1.2 and ratios["ocrmypdf_default"] >= 1.0
        and read["tenderflow"] >= max(read["ocrmypdf_same"], read["ocrmypdf_default"]),
    }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ocrmypdf", default=str(REPO / ".venv-ocrmypdf" / "bin" / "ocrmypdf"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2, help="default: one per core")
    parser.add_argument("--latency-file", default="cardinal.pdf")
    parser.add_argument("--suite", choices=("corpus", "tenders"), default="corpus",
                        help="corpus: English scans (issue 14); tenders: real tenders in their languages (issue 22)")
    parser.add_argument("--tenders", type=Path, default=TENDERS)
    args = parser.parse_args()
    ocrmypdf = args.ocrmypdf if Path(args.ocrmypdf).exists() else shutil.which("ocrmypdf")
    if ocrmypdf is None or shutil.which("gs") is None:
        sys.exit("ocrmypdf and Ghostscript are needed: `make bench-ocr` installs them")
    version = subprocess.run([ocrmypdf, "--version"], capture_output=True, text=True).stdout.strip()
    if args.suite == "tenders":
        tenders_suite(args, ocrmypdf, version)
        return
    n = args.processes

    results: dict[str, list[Timed]] = {"tenderflow": [], "ocrmypdf_at_once": [], "ocrmypdf_jobs": [],
                                       "tenderflow_latency": [], "ocrmypdf_latency": []}
    rotations: list[tuple[int, int, float | None]] = []
    with tempfile.TemporaryDirectory(prefix="tenderflow-bench-ocrmypdf-") as temp, server() as (admin_url, where):
        work = Path(temp)
        files = build_corpus(args.corpus, work / "corpus")
        latency_file = work / "corpus" / args.latency_file
        pages = sum(pages_of(path) for path in files)
        print(f"ocr_vs_ocrmypdf: {len(files)} files, {pages} pages; OCRmyPDF {version}; {n} processes, "
              f"{os.cpu_count()} cores, server: {where}")
        for round_number in range(1, args.rounds + 1):
            out = work / f"round-{round_number}"
            out.mkdir()
            rotations = measure_round(results, admin_url, ocrmypdf, files, latency_file, n, out)
            print(f"  round {round_number} (load {results['tenderflow'][-1].load:.1f}): throughput tenderflow "
                  f"{results['tenderflow'][-1].seconds:.1f} s, OCRmyPDF {n} files at once "
                  f"{results['ocrmypdf_at_once'][-1].seconds:.1f} s, one at a time -j {n} "
                  f"{results['ocrmypdf_jobs'][-1].seconds:.1f} s; {args.latency_file}: tenderflow "
                  f"{results['tenderflow_latency'][-1].seconds:.1f} s, OCRmyPDF -j {n} "
                  f"{results['ocrmypdf_latency'][-1].seconds:.1f} s (load {results['ocrmypdf_latency'][-1].load:.1f})")

    def median(name: str) -> float:
        return statistics.median(run.seconds for run in results[name])

    best_ocrmypdf = [min(a.seconds, b.seconds) for a, b in zip(results["ocrmypdf_at_once"], results["ocrmypdf_jobs"],
                                                              strict=True)]
    way = "files at once" if median("ocrmypdf_at_once") <= median("ocrmypdf_jobs") else "-j one file at a time"
    throughput_ratio = statistics.median(om / tf.seconds for om, tf in zip(best_ocrmypdf, results["tenderflow"],
                                                                           strict=True))
    latency_ratio = statistics.median(tf.seconds / om.seconds for tf, om in
                                      zip(results["tenderflow_latency"], results["ocrmypdf_latency"], strict=True))
    tf_rate = pages / median("tenderflow")
    om_rate = pages / statistics.median(best_ocrmypdf)
    print(f"throughput: tenderflow {tf_rate:.3f} pages/s ({median('tenderflow'):.1f} s), OCRmyPDF "
          f"{om_rate:.3f} pages/s ({statistics.median(best_ocrmypdf):.1f} s, faster as {way}: "
          f"{median('ocrmypdf_at_once'):.1f} s {n} at once, {median('ocrmypdf_jobs'):.1f} s -j {n})")
    print(f"ratio tenderflow / OCRmyPDF throughput: {throughput_ratio:.3f} (target >= 1.2)")
    print(f"latency of {args.latency_file}: tenderflow {median('tenderflow_latency'):.1f} s, OCRmyPDF -j {n} "
          f"{median('ocrmypdf_latency'):.1f} s; ratio tenderflow / OCRmyPDF {latency_ratio:.3f} (target <= 1.0)")
    print(f"{args.latency_file} as tenderflow read it (page, rotation set upright, confidence): {rotations}")
    print(json.dumps({
        "bench": "ocr_vs_ocrmypdf", "files": len(files), "pages": pages, "processes": n, "cores": os.cpu_count(),
        "rounds": args.rounds, "ocrmypdf": version, "server": where,
        "load_average": [round(run.load, 2) for run in results["tenderflow"]],
        "tenderflow_seconds": [round(run.seconds, 2) for run in results["tenderflow"]],
        "ocrmypdf_at_once_seconds": [round(run.seconds, 2) for run in results["ocrmypdf_at_once"]],
        "ocrmypdf_jobs_seconds": [round(run.seconds, 2) for run in results["ocrmypdf_jobs"]],
        "ocrmypdf_best_way": way,
        "throughput_ratio": round(throughput_ratio, 3),
        "latency_file": args.latency_file,
        "tenderflow_latency_seconds": [round(run.seconds, 2) for run in results["tenderflow_latency"]],
        "ocrmypdf_latency_seconds": [round(run.seconds, 2) for run in results["ocrmypdf_latency"]],
        "latency_ratio": round(latency_ratio, 3),
        "rotations": rotations,
    }))


if __name__ == "__main__":
    main()
