"""A tender's fields merged from its documents (tenderflow.tenders.merging, kinds, references): precedence
by kind and date, the history of each field in sentences, conflicts shown, a person's choices."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tenderflow.tenders.kinds import Kind, addendum_number, classify, issue_date
from tenderflow.tenders.merging import (
    Member,
    agree,
    history_sentences,
    merge,
    nested_fields,
    revision_changes,
)
from tenderflow.tenders.references import match_tokens, same_reference

T0 = datetime(2025, 2, 3, 9, 0, tzinfo=UTC)


def sourced(value: Any, page: int = 1, quote: str = "as printed") -> dict[str, Any]:
    return {"value": value, "page": page, "quote": quote}


def member(document_id: int, first_page: str, fields: Mapping[str, Any], *, uploaded: int = 0,
           filename: str | None = None, override: str | None = None, version: int | None = 1) -> Member:
    return Member(document_id=document_id, filename=filename or f"doc-{document_id}.pdf",
                  uploaded_at=T0 + timedelta(minutes=uploaded), version=version, fields=fields,
                  first_page=first_page, kind_override=override)


NOTICE = member(1, "CONTRACT NOTICE\nSection I: Contracting authority", {
    "notice_type": sourced("contract_notice"), "title": sourced("Resurfacing of regional roads"),
    "reference_number": sourced("KCC-RD-2025-014"), "submission_deadline": sourced("2025-03-14T12:00", 2),
    "estimated_value": sourced({"amount": 4850000.0, "currency": "EUR"}), "cpv_codes": [sourced("45233140-2")]})


def addendum(document_id: int, number: int, issued: str, deadline: str, **more: Any) -> Member:
    fields = {"notice_type": sourced("corrigendum"), "reference_number": sourced("KCC-RD-2025-014"),
              "submission_deadline": sourced(deadline, 1, f"New time limit for receipt of tenders: {deadline}"), **more}
    return member(document_id, f"ADDENDUM No. {number}\nDate of issue: {issued}", fields, uploaded=document_id)


def test_addenda_move_the_deadline_in_their_order_and_each_move_is_a_sentence() -> None:
    # Uploaded out of order: the addenda's numbers order them, not their arrival.
    merged = merge([addendum(3, 2, "2025-02-23", "2025-03-28T12:00"), NOTICE,
                    addendum(2, 1, "2025-02-13", "2025-03-21T12:00")])
    deadline = merged.fields["submission_deadline"]
    assert (deadline["value"], deadline["document_id"], deadline["label"], deadline["page"]) == \
        ("2025-03-28T12:00", 3, "addendum 2", 1)
    assert [step["value"] for step in deadline["history"]] == ["2025-03-14T12:00", "2025-03-21T12:00"]
    assert history_sentences("submission_deadline", deadline) == [
        "submission deadline set to 2025-03-14 12:00 by notice doc-1.pdf, page 2",
        "submission deadline moved from 2025-03-14 12:00 to 2025-03-21 12:00 by addendum 1, page 1",
        "submission deadline moved from 2025-03-21 12:00 to 2025-03-28 12:00 by addendum 2, page 1"]
    assert merged.fields["estimated_value"]["document_id"] == 1  # what no addendum changes stays the notice's
    assert merged.conflicts == []
    effects = {m["document_id"]: m for m in merged.as_json()["members"]}
    assert effects[2]["changes"] == ["submission_deadline"] and effects[2]["restates"] == ["reference_number"]


def test_a_specification_fills_what_the_notice_lacks_and_a_longer_title_is_no_conflict() -> None:
    specification = member(4, "TECHNICAL SPECIFICATION", {
        "title": sourced("Resurfacing and maintenance of county regional roads 2025-2027"),
        "buyer": {"email": sourced("roads.tenders@kilbrookcoco.ie", 3)}})
    merged = merge([specification, NOTICE])
    assert merged.fields["buyer.email"]["document_id"] == 4 and merged.fields["buyer.email"]["kind"] == "specification"
    title = merged.fields["title"]
    assert title["document_id"] == 1  # the notice's, by precedence…
    assert [a["document_id"] for a in title["alternatives"]] == [4]  # …the other reading shown beside it
    assert merged.conflicts == []


def test_a_restatement_keeps_the_time_of_day_the_notice_printed() -> None:
    merged = merge([NOTICE, addendum(2, 1, "2025-02-13", "2025-03-14")])
    assert merged.fields["submission_deadline"]["value"] == "2025-03-14T12:00"
    assert merged.fields["submission_deadline"]["history"] == []


def test_two_addenda_of_the_same_date_that_disagree_are_a_visible_conflict_until_a_choice() -> None:
    first = member(2, "ADDENDUM\nDate of issue: 2025-02-13", {"submission_deadline": sourced("2025-03-21T12:00")},
                   uploaded=1)
    second = member(3, "CORRIGENDUM\nDate of issue: 13 February 2025", {
        "submission_deadline": sourced("2025-03-25T12:00")}, uploaded=2)
    merged = merge([NOTICE, first, second])
    conflict = merged.fields["submission_deadline"]["conflict"]
    assert conflict["reason"] == "addenda of the same date disagree on the submission deadline"
    assert {value["document_id"] for value in conflict["values"]} == {2, 3} and not conflict["resolved"]
    assert [c["field"] for c in merged.conflicts] == ["submission_deadline"]
    chosen = merge([NOTICE, first, second], choices={"submission_deadline": 2})
    deadline = chosen.fields["submission_deadline"]
    assert deadline["value"] == "2025-03-21T12:00" and deadline["chosen"] and deadline["conflict"]["resolved"]


def test_two_notices_that_disagree_on_the_deadline_are_a_conflict_and_a_form_on_the_value_too() -> None:
    other_notice = member(5, "Contract notice\nDate of issue: 2025-02-01", {
        "submission_deadline": sourced("2025-04-01T10:00")})
    merged = merge([NOTICE, other_notice])
    conflict = merged.fields["submission_deadline"]["conflict"]
    assert conflict is not None and conflict["reason"] == "the documents disagree on the submission deadline"
    form = member(6, "Annex 3 - price form", {"estimated_value": sourced({"amount": 1.0, "currency": "EUR"})})
    assert merge([NOTICE, form]).fields["estimated_value"]["conflict"] is not None


def test_a_document_not_read_yet_counts_for_nothing_and_a_kind_set_by_hand_wins() -> None:
    pending = member(7, "", {}, version=None)
    merged = merge([NOTICE, pending])
    assert {m.document_id for m in merged.members} == {1, 7} and merged.fields["title"]["document_id"] == 1
    # A second notice that a person says is an addendum changes the deadline instead of conflicting.
    said = member(8, "Contract notice", {"submission_deadline": sourced("2025-04-01T10:00")}, override="addendum")
    assert merge([NOTICE, said]).fields["submission_deadline"]["history"][0]["document_id"] == 1


def test_revision_changes_say_what_moved_and_where_it_was_read() -> None:
    before = merge([NOTICE]).fields
    after = merge([NOTICE, addendum(2, 1, "2025-02-13", "2025-03-21T12:00")]).fields
    changes = revision_changes(before, after)
    assert [(c["field"], c["moved"], c["sentence"]) for c in changes] == [(
        "submission_deadline", True,
        "submission deadline moved from 2025-03-14 12:00 to 2025-03-21 12:00 by addendum 1, page 1")]
    assert revision_changes(after, after) == []
    nested = nested_fields(after)
    assert nested["submission_deadline"]["value"] == "2025-03-21T12:00"
    assert nested["cpv_codes"][0]["value"] == "45233140-2" and nested["cpv_codes"][0]["document_id"] == 1


@pytest.mark.parametrize(("first_page", "notice_type", "filename", "kind"), [
    ("ADDENDUM No. 2\nRequest No.: DPC2142", None, "a.pdf", Kind.ADDENDUM),
    ("Avis rectificatif\nVille de Lyon", None, "a.pdf", Kind.ADDENDUM),
    ("Berichtigung\nStadt Lindenau", None, "a.pdf", Kind.ADDENDUM),
    ("08.04.2026 Печатная форма\nИзменения извещения о проведении запроса котировок", None, "a.pdf", Kind.ADDENDUM),
    ("更正公告\n宁波市", None, "a.pdf", Kind.ADDENDUM),
    ("정정공고\n대구", None, "a.pdf", Kind.ADDENDUM),
    ("Some letter", "corrigendum", "a.pdf", Kind.ADDENDUM),
    ("Auftragsbekanntmachung\nUmweltbundesamt", None, "a.pdf", Kind.NOTICE),
    ("Terms of Reference\nfor consulting services", None, "a.pdf", Kind.SPECIFICATION),
    ("Information for bidders\nany addendum issued will be published on the portal of the city council", None,
     "x.pdf", Kind.OTHER),
    ("", None, "Annex 3 - price schedule.pdf", Kind.FORM),
    ("Dear Sir or Madam", "contract_notice", "letter.pdf", Kind.NOTICE),
])
def test_a_documents_kind_is_read_from_what_it_says(first_page: str, notice_type: str | None, filename: str,
                                                   kind: Kind) -> None:
    assert classify(notice_type=notice_type, first_page=first_page, filename=filename).kind == kind


def test_an_addendum_gives_its_number_and_date_of_issue() -> None:
    assert addendum_number("Addendum No. 2\nfoo") == 2 and addendum_number("Berichtigung Nr. 3") == 3
    assert addendum_number("", "Addendum_4.pdf") == 4 and addendum_number("Addendum") is None
    assert str(issue_date("ADDENDUM\nDate of issue: 19 August 2025")) == "2025-08-19"
    assert str(issue_date("Изменения извещения\nот 06.04.2026")) == "2026-04-06"
    assert issue_date("ADDENDUM\nno date here") is None


def test_references_match_when_one_is_a_run_of_the_others_words() -> None:
    assert same_reference("173087", "173087_75 112/0012") and same_reference("DPC2142", "Request No.: DPC2142")
    assert same_reference("KCC-RD-2025-014", "kcc rd 2025 014")
    assert not same_reference("2026", "2026-01") and not same_reference("014", "KCC-RD-2025-014")
    assert set(match_tokens("EH-2026-0417")) & set(match_tokens("EH-2026-0417/A1"))
    assert agree("deadline", "2025-03-14", "2025-03-14T12:00") and not agree("deadline", "2025-03-14T12:00",
                                                                             "2025-03-14T13:00")
    assert agree("money", {"amount": 1.0, "currency": "eur"}, {"amount": 1.001, "currency": "EUR"})
    assert agree("text", "Umweltbundesamt", "Umweltbundesamt, Referat Z 1.5")
