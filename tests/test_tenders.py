"""Tenders in the database, through the real pipeline (issue 26): a package whose addenda move the
deadline becomes one tender carrying the moved date with its history; packages are charged as their
documents are and refused whole for bad input with nothing stored; proposals from reference numbers;
webhooks of tender events; a deleted member leaves nothing of itself behind."""

from __future__ import annotations

import zipfile
from datetime import date
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from tenderflow.config import Settings
from tenderflow.errors import (
    DocumentNotFoundError,
    InsufficientCreditsError,
    PackageRejectedError,
    ProposalStateError,
    TenderNotFoundError,
)
from tenderflow.pipeline import deletion
from tenderflow.pipeline.storage import ObjectStorage, open_storage
from tenderflow.pipeline.uploads import UploadPolicy, upload_file
from tenderflow.samples.packages import generate_package
from tenderflow.tenants.tenants import create_tenant
from tenderflow.tenders import proposals, records
from tenderflow.tenders.merging import history_sentences
from tenderflow.tenders.search import search_tenders
from tenderflow.tenders.uploads import upload_to_tender
from tenderflow.webhooks import endpoints
from tenderflow.webhooks.addresses import AddressPolicy
from tests.support.pipeline_harness import drain, pipeline_settings
from tests.support.tender_fixtures import TENDER_PAGE, text_pdf, zip_package
from tests.support.webhook_receiver import WebhookReceiver

Conn = psycopg.Connection[Any]
REFERENCE = "EH-2026-0417"


def addendum_page(number: int | None, issued: str, deadline: str) -> list[str]:
    return [f"ADDENDUM No. {number}" if number else "ADDENDUM", f"Reference number: {REFERENCE}",
            f"Date of issue: {issued}", "The time limit for receipt of tenders is extended.",
            f"New time limit for receipt of tenders: {deadline}"]


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return pipeline_settings(database_url, tmp_path, webhook_allow_networks="127.0.0.0/8",
                             webhook_timeout_seconds=1.0, webhook_backoff_base_seconds=0.05,
                             webhook_backoff_cap_seconds=0.1)


@pytest.fixture
def storage(settings: Settings) -> ObjectStorage:
    return open_storage(settings.resolved_storage_url)


def upload(conn: Conn, storage: ObjectStorage, paths: list[Path], **options: Any) -> Any:
    return upload_to_tender(conn, storage, paths, UploadPolicy(max_bytes=10 * 1024 * 1024, tenant="acme"), **options)


def stored(conn: Conn, settings: Settings) -> dict[str, int]:
    counts = conn.execute("SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM tenders), "
                          "(SELECT count(*) FROM tender_documents), (SELECT count(*) FROM credit_entries), "
                          "(SELECT count(*) FROM jobs)").fetchone()
    assert counts is not None
    root = Path(settings.resolved_storage_url.removeprefix("file://"))
    objects = [p for p in root.rglob("*") if p.is_file()] if root.exists() else []
    return dict(zip(("documents", "tenders", "members", "ledger", "jobs"), counts, strict=True)) | {
        "objects": len(objects)}


def test_a_package_whose_addenda_move_the_deadline_is_one_tender_with_the_moved_date_and_its_history(
    conn: Conn, pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path,
) -> None:
    package = generate_package(tmp_path / "sample", addenda=2)
    with zipfile.ZipFile(package.path, "a") as archive:  # what a real package holds beside the documents
        archive.writestr(f"{package.reference}/forms/declaration.docx", b"PK\x03\x04 a Word file")
        archive.write(package.members[f"{package.reference}/01-contract-notice.pdf"],
                      f"{package.reference}/copy of the notice.pdf")
    create_tenant(conn, "acme", credits=1000)
    uploaded = upload(conn, storage, [package.path], name="Roads 2025")
    by_status = {o.source.split("/", 1)[1]: o.status for o in uploaded.outcomes}
    assert by_status == {
        "01-contract-notice.pdf": "created", "addenda/addendum-01.pdf": "created", "addenda/addendum-02.pdf": "created",
        "annexes/annex-a-price-schedule.xlsx": "created", "forms/declaration.docx": "rejected",
        "copy of the notice.pdf": "duplicate"}
    # Charged as its documents are: one acceptance each of the four, nothing for the refused or the copy.
    accepted = conn.execute("SELECT count(DISTINCT document_id) FROM credit_entries WHERE kind = 'reserve'").fetchone()
    assert accepted == (4,)
    drain(pool, settings, storage)

    tender = records.get_tender(conn, uploaded.tender_id, tenant="acme")
    assert tender["display_name"] == "Roads 2025" and tender["reference"] == package.reference
    assert tender["submission_deadline"] == package.final_deadline == "2025-03-28T12:00"
    deadline = tender["fields"]["submission_deadline"]
    assert history_sentences("submission_deadline", deadline)[1:] == package.expected_history
    kinds = {m["package_path"].rsplit("/", 1)[-1]: (m["kind"], m["number"]) for m in tender["members"]}
    assert kinds == {"01-contract-notice.pdf": ("notice", None), "addendum-01.pdf": ("addendum", 1),
                     "addendum-02.pdf": ("addendum", 2), "annex-a-price-schedule.xlsx": ("form", None)}
    assert tender["fields"]["estimated_value"]["kind"] == "notice" and tender["conflicts"] == 0
    effects = [m["effect"] for m in tender["members"] if m["effect"]]
    assert any(effect.startswith("addendum 2 (addendum-02.pdf) changes the submission deadline") for effect in effects)
    revisions = records.tender_revisions(conn, uploaded.tender_id, tenant="acme")
    assert revisions and revisions[-1]["fields"]["submission_deadline"]["value"] == "2025-03-28T12:00"
    # Search at tender level: the documents' words, the merged deadline (the notice alone says 14 March).
    [hit] = search_tenders(conn, "Kilbrook resurfacing", tenant="acme")
    assert hit.tender_id == uploaded.tender_id and hit.submission_deadline == "2025-03-28T12:00" and hit.hits
    assert search_tenders(conn, "Kilbrook", tenant="acme", deadline_after=date(2025, 3, 25))
    assert search_tenders(conn, "Kilbrook", tenant="acme", deadline_before=date(2025, 3, 20)) == []
    assert search_tenders(conn, "Kilbrook", tenant="globex") == []


def test_an_addendum_added_later_moves_the_deadline_and_tells_the_receiver(
    conn: Conn, pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path,
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    with WebhookReceiver() as receiver:
        created = endpoints.create_endpoint(conn, "acme", receiver.url, policy=AddressPolicy.from_setting(
            "127.0.0.0/8"), events=["tender.updated", "tender.deadline_changed"])
        receiver.secret = created.secret
        first = upload(conn, storage, [text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE])])
        drain(pool, settings, storage)
        upload(conn, storage, [text_pdf(tmp_path / "a1.pdf", [addendum_page(1, "2026-02-10", "2026-03-29 12:00")])],
               tender=first.tender_id)
        drain(pool, settings, storage)
    events = [request.json() for request in receiver.requests]
    assert all(request.verified for request in receiver.requests)
    assert [event["type"] for event in events] == ["tender.updated", "tender.updated", "tender.deadline_changed"]
    moved = events[-1]["data"]
    assert moved["tender"]["id"] == first.tender_id and moved["tender"]["revision"] == 2
    [change] = [c for c in moved["changes"] if c["field"] == "submission_deadline"]
    assert change["sentence"] == ("submission deadline moved from 2026-03-15 12:00 to 2026-03-29 12:00 by "
                                  "addendum 1, page 1")
    assert records.get_tender(conn, first.tender_id)["submission_sequence"] == 1


BAD_PACKAGES = {
    "a zip bomb": ({"notice.pdf": None, "zeros.pdf": b"%PDF-" + bytes(30_000_000)}, (), "zip bomb"),
    "a path leaving the package": ({"notice.pdf": None, "../../escape.pdf": None}, (), "leaves the package"),
    "an encrypted package": ({"notice.pdf": None}, ("notice.pdf",), "encrypted"),
    "a package of no PDF": ({"notes.txt": b"hello", "form.docx": b"PK\x03\x04"}, (), "holds no PDF"),
}


@pytest.mark.parametrize("bad", list(BAD_PACKAGES))
def test_a_bad_package_is_refused_whole_with_nothing_stored_or_charged(
    conn: Conn, settings: Settings, storage: ObjectStorage, tmp_path: Path, bad: str,
) -> None:
    create_tenant(conn, "acme", credits=1000)
    notice = text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]).read_bytes()
    members, encrypted, reason = BAD_PACKAGES[bad]
    package = zip_package(tmp_path / "bad.zip", {name: data if data is not None else notice + name.encode()
                                                 for name, data in members.items()}, encrypted=encrypted)
    before = stored(conn, settings)
    with pytest.raises(PackageRejectedError, match=reason):
        upload(conn, storage, [package])
    assert stored(conn, settings) == before == {"documents": 0, "tenders": 0, "members": 0, "ledger": 1, "jobs": 0,
                                                "objects": 0}


def test_a_corrupt_package_and_one_the_tenant_cannot_pay_for_whole_leave_nothing(
    conn: Conn, settings: Settings, storage: ObjectStorage, tmp_path: Path,
) -> None:
    from tenderflow.tenants.credits import DEFAULT_PRICES

    create_tenant(conn, "acme", credits=DEFAULT_PRICES.on_acceptance() * 2)  # two documents' worth, not three
    pages = [[*TENDER_PAGE, f"Lot {n}"] for n in range(3)]
    good = zip_package(tmp_path / "good.zip", {f"d{n}.pdf": text_pdf(tmp_path / f"d{n}.pdf", [page]).read_bytes()
                                               for n, page in enumerate(pages)})
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    before = stored(conn, settings)
    with pytest.raises(PackageRejectedError, match="damaged"):
        upload(conn, storage, [corrupt])
    with pytest.raises(InsufficientCreditsError):
        upload(conn, storage, [good])
    assert stored(conn, settings) == before
    assert before["documents"] == 0 and before["objects"] == 0


def test_a_document_never_joins_another_tenants_tender(
    conn: Conn, settings: Settings, storage: ObjectStorage, tmp_path: Path,
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    create_tenant(conn, "globex", unlimited=True)
    theirs = records.create_tender(conn, "globex")
    before = stored(conn, settings)
    with pytest.raises(TenderNotFoundError):
        upload(conn, storage, [text_pdf(tmp_path / "n.pdf", [TENDER_PAGE])], tender=theirs)
    assert stored(conn, settings) == before
    mine = upload_file(conn, storage, text_pdf(tmp_path / "m.pdf", [TENDER_PAGE]),
                       UploadPolicy(tenant="acme", max_bytes=10**7))
    assert mine.document_id is not None
    with pytest.raises(DocumentNotFoundError):
        records.add_documents(conn, theirs, [mine.document_id], tenant="globex")
    with pytest.raises(TenderNotFoundError):
        records.add_documents(conn, theirs, [mine.document_id], tenant="acme")
    with pytest.raises(psycopg.errors.ForeignKeyViolation):  # and the database itself refuses it
        conn.execute("INSERT INTO tender_documents (tender_id, document_id, tenant, added_by) VALUES (%s, %s, %s, "
                     "'hand')", (theirs, mine.document_id, "globex"))


def test_documents_naming_one_reference_are_proposed_as_a_tender_and_undoing_takes_it_back(
    conn: Conn, pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path,
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    ids = [upload_file(conn, storage, text_pdf(tmp_path / f"{name}.pdf", [page]),
                       UploadPolicy(tenant="acme", max_bytes=10**7)).document_id
           for name, page in (("notice", TENDER_PAGE), ("addendum", addendum_page(1, "2026-02-10", "2026-03-29 12:00")),
                              ("other", [line.replace(REFERENCE, "ZZ-9999-0001") for line in TENDER_PAGE]))]
    drain(pool, settings, storage)
    [proposal] = proposals.list_proposals(conn, tenant="acme")
    assert {proposal["document_id"], proposal["partner_id"]} == {ids[0], ids[1]}  # not the other reference
    assert proposal["reference"] == REFERENCE and proposal["tender_id"] is None
    tender_id = proposals.accept(conn, proposal["id"], tenant="acme")
    tender = records.get_tender(conn, tender_id, tenant="acme")
    assert {m["document_id"] for m in tender["members"]} == {ids[0], ids[1]}
    assert tender["submission_deadline"] == "2026-03-29T12:00" and tender["fields"]["title"]["kind"] == "notice"
    with pytest.raises(ProposalStateError):
        proposals.accept(conn, proposal["id"], tenant="acme")
    # A later document naming the reference is proposed to join that tender.
    later = text_pdf(tmp_path / "a2.pdf", [addendum_page(2, "2026-02-20", "2026-04-05 12:00")])
    third = upload_file(conn, storage, later, UploadPolicy(tenant="acme", max_bytes=10**7)).document_id
    drain(pool, settings, storage)
    [join] = proposals.list_proposals(conn, tenant="acme")
    assert (join["document_id"], join["tender_id"]) == (third, tender_id)
    assert proposals.accept(conn, join["id"], tenant="acme") == tender_id
    assert records.get_tender(conn, tender_id)["submission_deadline"] == "2026-04-05T12:00"
    assert proposals.undo(conn, join["id"], tenant="acme") == tender_id
    assert records.get_tender(conn, tender_id)["submission_deadline"] == "2026-03-29T12:00"
    assert proposals.undo(conn, proposal["id"], tenant="acme") is None  # the tender it made is gone
    with pytest.raises(TenderNotFoundError):
        records.get_tender(conn, tender_id)


def test_two_addenda_of_one_date_that_disagree_are_a_conflict_a_person_settles(
    conn: Conn, pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path,
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    files = [text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]),
             text_pdf(tmp_path / "a.pdf", [addendum_page(None, "2026-02-10", "2026-03-29 12:00")]),
             text_pdf(tmp_path / "b.pdf", [addendum_page(None, "2026-02-10", "2026-04-02 12:00")])]
    uploaded = upload(conn, storage, files)
    drain(pool, settings, storage)
    tender = records.get_tender(conn, uploaded.tender_id, tenant="acme")
    assert tender["conflicts"] == 1
    [conflict] = tender["conflict_list"]
    assert conflict["field"] == "submission_deadline" and "same date" in conflict["reason"]
    assert {v["value"] for v in conflict["values"]} == {"2026-03-29T12:00", "2026-04-02T12:00"}
    chosen = next(v["document_id"] for v in conflict["values"] if v["value"] == "2026-03-29T12:00")
    outcome = records.choose(conn, uploaded.tender_id, "submission_deadline", chosen, tenant="acme")
    assert outcome.revision is not None
    settled = records.get_tender(conn, uploaded.tender_id, tenant="acme")
    assert settled["conflicts"] == 0 and settled["submission_deadline"] == "2026-03-29T12:00"
    assert settled["fields"]["submission_deadline"]["chosen"] is True


def test_a_deleted_member_leaves_the_tender_merged_without_it_and_nothing_read_from_it_kept(
    conn: Conn, pool: ConnectionPool, settings: Settings, storage: ObjectStorage, tmp_path: Path,
) -> None:
    create_tenant(conn, "acme", unlimited=True)
    files = [text_pdf(tmp_path / "notice.pdf", [TENDER_PAGE]),
             text_pdf(tmp_path / "a1.pdf", [addendum_page(1, "2026-02-10", "2026-03-29 12:00")])]
    uploaded = upload(conn, storage, files)
    drain(pool, settings, storage)
    addendum = next(m["document_id"] for m in records.get_tender(conn, uploaded.tender_id)["members"]
                    if m["kind"] == "addendum")
    deletion.delete_document(conn, addendum, tenant="acme")
    tender = records.get_tender(conn, uploaded.tender_id, tenant="acme")
    assert tender["submission_deadline"] == "2026-03-15T12:00" and len(tender["members"]) == 1
    text = conn.execute("SELECT string_agg(fields::text || changes::text, '') FROM tender_revisions").fetchone()
    assert text is not None and "2026-03-29" not in text[0] and "New time limit" not in text[0]
    assert f'"deleted": true, "document_id": {addendum}' in text[0]  # its id stays: what was there, not what it said
