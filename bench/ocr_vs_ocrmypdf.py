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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ocrmypdf", default=str(REPO / ".venv-ocrmypdf" / "bin" / "ocrmypdf"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2, help="default: one per core")
    parser.add_argument("--latency-file", default="cardinal.pdf")
    args = parser.parse_args()
    ocrmypdf = args.ocrmypdf if Path(args.ocrmypdf).exists() else shutil.which("ocrmypdf")
    if ocrmypdf is None or shutil.which("gs") is None:
        sys.exit("ocrmypdf and Ghostscript are needed: `make bench-ocr` installs them")
    version = subprocess.run([ocrmypdf, "--version"], capture_output=True, text=True).stdout.strip()
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
