"""Tenders (issue 26): a 200-document package accepted, a 50-document tender merged, a 10,000-tender
calendar written, each against a baseline measured in the same run.

    .venv/bin/python -m bench.tender_packages [--documents 200] [--merge-documents 50] [--tenders 10000]

    package   a ZIP of `--documents` PDFs (the sample generator's seven, born-digital and scanned, each
              copy made unique, ~0.3 MB a document on average) uploaded into a new tender through
              `tenderflow.tenders.uploads.upload_to_tender`, the path of `upload --tender NEW` and of
              `POST /v1/tenders/{id}/documents`: unpacked and checked, hashed, stored (file://), one
              transaction for the documents, versions, reservations, OCR jobs and memberships.
              Accepted = the call returned (no OCR yet). Baselines: the floor (unzip and hash the same
              members, nothing else) and today's loose upload of the same PDFs (`upload_paths`, a
              transaction each).
    merge     `records.merge_tender` of a tender of `--merge-documents` finished documents (a notice,
              specifications, forms and addenda, each with a full extraction and a first page): the
              members read, merged, compared with the stored merge and written. Baseline: the members'
              read alone (the one query a merge cannot do without).
    calendar  `calendar.feed` for a tenant of `--tenders` tenders with deadlines (a third with a country
              in one zone, a third in a country of several, a third without: floating): what
              `GET /v1/calendar.ics` sends. Baseline: the query alone.

Targets (issue 26): the package accepted under 2 s, the merge under 50 ms, the calendar under 200 ms.
Prints each figure (p50/p95 over rounds where it repeats), the load average, and ends with one JSON line.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import tempfile
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

from bench.scratch_database import scratch_database, server
from tenderflow.pipeline.storage import open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_paths
from tenderflow.samples import generate_samples
from tenderflow.tenants.tenants import create_tenant
from tenderflow.tenders import calendar, records
from tenderflow.tenders.matching import QUERIES
from tenderflow.tenders.uploads import upload_to_tender


def load() -> str:
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1] if len(samples) >= 2 else samples[0]


def make_package(work: Path, documents: int) -> tuple[Path, list[Path]]:
    """A ZIP of `documents` unique PDFs made from the seven samples (three of them scans), in folders."""
    samples = [sample.path for sample in generate_samples(work / "samples")]
    copies = work / "copies"
    copies.mkdir()
    files = []
    for number in range(documents):
        source = samples[number % len(samples)]
        target = copies / f"{number:03d}-{source.name}"
        target.write_bytes(source.read_bytes() + f"\n% copy {number}\n".encode())  # unique bytes, still a PDF
        files.append(target)
    package = work / "package.zip"
    with zipfile.ZipFile(package, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for number, file in enumerate(files):
            archive.write(file, f"tender/part-{number % 4}/{file.name}")
    return package, files


def floor_seconds(package: Path, work: Path) -> float:
    """Unzip and hash every member to disk: what any acceptance of the package must do."""
    started = time.perf_counter()
    with zipfile.ZipFile(package) as archive:
        for index, info in enumerate(archive.infolist()):
            digest = hashlib.sha256()
            with archive.open(info) as source, (work / f"{index}.bin").open("wb") as sink:
                while chunk := source.read(1024 * 1024):
                    digest.update(chunk)
                    sink.write(chunk)
    return time.perf_counter() - started


def bench_package(url: str, work: Path, documents: int) -> dict[str, float]:
    package, files = make_package(work, documents)
    size = package.stat().st_size
    floor_dir = work / "floor"
    floor_dir.mkdir()
    floor = floor_seconds(package, floor_dir)
    with psycopg.connect(url, autocommit=True) as conn:
        create_tenant(conn, "acme", unlimited=True)
        create_tenant(conn, "loose", unlimited=True)
        storage = open_storage((work / "objects").as_uri())
        started, cpu = time.perf_counter(), time.process_time()
        uploaded = upload_to_tender(conn, storage, [package], UploadPolicy(tenant="acme", max_bytes=100 * 1024 * 1024),
                                    work_dir=work / "spool")
        accepted, accepted_cpu = time.perf_counter() - started, time.process_time() - cpu
        assert len(uploaded.documents) == documents, uploaded.outcomes[:3]
        started = time.perf_counter()
        loose = list(upload_paths(conn, storage, files, UploadPolicy(tenant="loose", max_bytes=100 * 1024 * 1024)))
        one_by_one = time.perf_counter() - started
        assert sum(o.status == "created" for o in loose) == documents
    print(f"package: {documents} documents, {size / 1e6:.1f} MB zipped, accepted into a new tender in "
          f"{accepted:.2f} s (target < 2 s; {uploaded.unpack_seconds:.2f} s of it unpacking and checking, the rest "
          f"storing and the transaction; this process's CPU {accepted_cpu:.2f} s); floor (unzip + hash only, one "
          f"thread) {floor:.2f} s; the same PDFs uploaded one by one (upload_paths) {one_by_one:.2f} s")
    return {"package_accept_seconds": round(accepted, 3), "package_unpack_seconds": round(uploaded.unpack_seconds, 3),
            "package_accept_cpu_seconds": round(accepted_cpu, 3), "package_floor_seconds": round(floor, 3),
            "package_one_by_one_seconds": round(one_by_one, 3), "package_documents": documents,
            "package_megabytes": round(size / 1e6, 1)}


def _fields(number: int, kind: str) -> dict[str, Any]:
    def s(value: Any, page: int = 1) -> dict[str, Any]:
        return {"value": value, "page": page, "quote": f"as printed {number}"}

    fields: dict[str, Any] = {
        "reference_number": s("KCC-RD-2025-014"),
        "notice_type": s("corrigendum" if kind == "addendum" else "contract_notice"),
        "submission_deadline": s(f"2025-03-{14 + number % 10:02d}T12:00"),
    }
    if kind in ("notice", "specification"):
        fields.update({
            "title": s(f"Resurfacing of regional roads, part {number}"), "buyer": {
                "name": s("Kilbrook County Council"), "email": s("roads@kilbrook.example"),
                "phone": s("+353 53 919 6000"), "address": s("County Buildings, Main Street"), "country": s("IE")},
            "procedure_type": s("open"), "main_category": s("works"), "cpv_codes": [s("45233140-2"), s("45233141-9")],
            "estimated_value": s({"amount": 4850000.0 + number, "currency": "EUR"}),
            "place_of_performance": s("Kilbrook"), "contract_duration": s({"amount": 36, "unit": "months"}),
            "award_criteria": [s({"name": "Price", "weight": 60.0}), s({"name": "Quality", "weight": 40.0})],
            "lots": [{"number": s(str(lot)), "title": s(f"Lot {lot}"), "cpv_codes": [], "award_criteria": [],
                      "estimated_value": None} for lot in (1, 2, 3)],
            "submission_url": s("https://etenders.example/KCC-RD-2025-014")})
    return fields


FIRST_PAGES = {"notice": "CONTRACT NOTICE\nSection I: Contracting authority\nDate of issue: 2025-02-03",
               "specification": "TECHNICAL SPECIFICATION\nRoads 2025-2027", "form": "Annex {n} - price form",
               "addendum": "ADDENDUM No. {n}\nDate of issue: 2025-02-{d:02d}\nReference number: KCC-RD-2025-014"}


def bench_merge(url: str, members: int, rounds: int) -> dict[str, float]:
    kinds = ["notice"] + ["specification"] * 9 + ["form"] * 20 + ["addendum"] * (members - 30)
    kinds = kinds[:members]
    with psycopg.connect(url, autocommit=True) as conn:
        create_tenant(conn, "merge", unlimited=True)
        tender_id = records.create_tender(conn, "merge")
        ids = []
        for number, kind in enumerate(kinds, start=1):
            row = conn.execute(
                "INSERT INTO documents (tenant, sha256, filename, size_bytes, storage_url, current_version) "
                "VALUES ('merge', %s, %s, 1000, 'file:///bench', 1) RETURNING id",
                (f"{number + 10**6:064x}", f"{kind}-{number}.pdf")).fetchone()
            assert row is not None
            ids.append(row[0])
            conn.execute("INSERT INTO document_versions (document_id, version, state, pages_version, page_count, "
                         "finished_at) VALUES (%s, 1, 'done', 1, 1, now())", (row[0],))
            conn.execute("INSERT INTO extractions (document_id, version, fields, backend) VALUES (%s, 1, %s, 'rules')",
                         (row[0], json.dumps(_fields(number, kind))))
            page = FIRST_PAGES[kind].format(n=number, d=1 + number % 28) + "\n" + "Body text of the page. " * 120
            conn.execute("INSERT INTO pages (document_id, version, page_number, text, source, seconds) "
                         "VALUES (%s, 1, 1, %s, 'text_layer', 0)", (row[0], page))
        conn.execute("INSERT INTO tender_documents (tender_id, document_id, tenant, added_by) "
                     "SELECT %s, unnest(%s::bigint[]), 'merge', 'hand'", (tender_id, ids))
        first = records.merge_tender(conn, tender_id, cause="bench: first merge")
        assert first.revision == 1, first
        merges, reads = [], []
        for round_number in range(rounds):
            if round_number % 2:  # every other round something moves: a revision is written too
                conn.execute("UPDATE extractions SET fields = jsonb_set(fields, '{submission_deadline,value}', "
                             "to_jsonb(%s::text)) WHERE document_id = %s",
                             (f"2025-04-{1 + round_number % 28:02d}T12:00", ids[-1]))
            started = time.perf_counter()
            records.merge_tender(conn, tender_id, cause="bench")
            merges.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            conn.execute(QUERIES["tender_members"], {"tender_id": tender_id}).fetchall()
            reads.append((time.perf_counter() - started) * 1000)
    print(f"merge: a tender of {members} documents in {p50(merges):.1f} ms p50, {p95(merges):.1f} ms p95 "
          f"(target < 50 ms); the members' read alone {p50(reads):.1f} ms p50 ({rounds} rounds, half of them "
          f"writing a revision)")
    return {"merge_documents": members, "merge_ms_p50": round(p50(merges), 2), "merge_ms_p95": round(p95(merges), 2),
            "merge_read_ms_p50": round(p50(reads), 2)}


def bench_calendar(url: str, tenders: int, rounds: int) -> dict[str, float]:
    countries = ["DE", "US", None]
    now = datetime(2026, 12, 1, tzinfo=UTC)
    rng = random.Random(5)  # noqa: S311 - sample data
    with psycopg.connect(url, autocommit=True) as conn:
        create_tenant(conn, "calendar", unlimited=True)
        with conn.cursor().copy("COPY tenders (tenant, name, title, reference, buyer_name, country, "
                                "submission_deadline, questions_deadline, submission_sequence, conflicts, "
                                "created_at, updated_at) FROM STDIN") as copy:
            for number in range(tenders):
                deadline = now + timedelta(days=rng.randrange(-200, 400), hours=rng.randrange(8, 18))
                questions = (deadline - timedelta(days=10)).strftime("%Y-%m-%dT%H:%M") if number % 3 else None
                copy.write_row(("calendar", None, f"Works and services, contract {number}, phase; {number % 7}",
                                f"REF-{number:06d}", f"Council {number % 97}", countries[number % 3],
                                deadline.strftime("%Y-%m-%dT%H:%M" if number % 5 else "%Y-%m-%d"), questions,
                                number % 3, int(number % 11 == 0), now, now))
        conn.execute("ANALYZE tenders")
        feeds, queries = [], []
        text = ""
        for _ in range(rounds + 1):
            started = time.perf_counter()
            text = calendar.feed(conn, "calendar")
            feeds.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            conn.execute(QUERIES["calendar_events"], {"tenant": "calendar"}).fetchall()
            queries.append((time.perf_counter() - started) * 1000)
        feeds, queries = feeds[1:], queries[1:]  # the first builds the zones' VTIMEZONEs (cached after)
    events = text.count("BEGIN:VEVENT")
    print(f"calendar: {tenders:,} tenders, {events:,} events, {len(text) / 1e6:.1f} MB, written in {p50(feeds):.0f} ms "
          f"p50, {p95(feeds):.0f} ms p95 (target < 200 ms); the query alone {p50(queries):.0f} ms p50")
    return {"calendar_tenders": tenders, "calendar_events": events, "calendar_ms_p50": round(p50(feeds), 1),
            "calendar_ms_p95": round(p95(feeds), 1), "calendar_query_ms_p50": round(p50(queries), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--merge-documents", type=int, default=50)
    parser.add_argument("--tenders", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    figures: dict[str, Any] = {"bench": "tender_packages"}
    with server() as (admin_url, description), tempfile.TemporaryDirectory(prefix="tenderflow-bench-") as work:
        print(f"tender_packages: server {description}; {load()}")
        with scratch_database(admin_url) as url:
            figures |= bench_package(url, Path(work), args.documents)
        with scratch_database(admin_url) as url:
            figures |= bench_merge(url, args.merge_documents, args.rounds)
        with scratch_database(admin_url) as url:
            figures |= bench_calendar(url, args.tenders, args.rounds)
    figures["load_average"] = [round(value, 2) for value in os.getloadavg()]
    print(load())
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
