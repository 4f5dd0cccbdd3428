"""`tenderflow eval`: the answer-key format, the scoring rules, and whole runs through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.evaluation.keys import Expected, KeyFileError, load_key
from tenderflow.evaluation.scoring import Returned, Tally, compare
from tenderflow.extraction.schema import Buyer, Money, Sourced, TenderFields
from tests.support.openai_server import RecordedRequest, answer_with, run_openai_server
from tests.support.pdf_fixtures import blank_pages_pdf, born_digital_pdf

# --- scoring ------------------------------------------------------------------------------------


def verdict(field: str, returned: Any, *expected: Any, optional: bool = False) -> str:
    key = Expected(values=expected if expected != (None,) else None, optional=optional)
    got = None if returned is None else Returned(returned, 1, "q", True)
    return compare(field, key, got).verdict


@pytest.mark.parametrize(
    ("field", "returned", "expected", "outcome"),
    [
        ("buyer.name", "VILLE DE NÎMES.", "Ville de Nîmes", "correct"),
        ("buyer.name", "Ville de Nîmes, commande publique", "Ville de Nîmes", "correct"),
        ("buyer.name", "Ville de Nîmes, direction de la commande publique", "Ville de Nîmes", "wrong"),  # 29 %
        ("buyer.name", "Nîmes", "Ville de Nîmes, direction de la Commande Publique", "wrong"),  # under 30 %
        ("buyer.name", "Ville de Nîmesville", "Ville de Nîmes", "wrong"),  # not whole words
        ("title", "Road resurfacing works", "Road resurfacing", "correct"),
        ("place_of_performance", "Nîmes", "Ville de Nîmes et environs proches du Gard", "correct"),
        ("buyer.address", "1 rue du Colisée, 30947 Nîmes", "1 rue du Colisée Cedex 9 30947 Nîmes", "correct"),
        ("buyer.address", "30947 Nîmes", "1 rue du Colisée Cedex 9 30947 Nîmes", "wrong"),
        ("buyer.email", "Mail: Commande@Ville.fr", "commande@ville.fr", "correct"),
        ("buyer.email", "other@ville.fr", "commande@ville.fr", "wrong"),
        ("buyer.phone", "tél. (+33) 4 34 03 57 00", "+33 4 34 03 57 00", "correct"),
        ("buyer.phone", "04 34 03 57 01", "+33 4 34 03 57 00", "wrong"),
        ("reference_number", "Ref. 2025/CAPV-017", "2025-CAPV-017", "correct"),
        ("reference_number", "RFP2025CAPV017", "2025-CAPV-017", "correct"),  # a prefix shorter than the key
        ("reference_number", "13.", "2025-CAPV-017", "wrong"),
        ("reference_number", "ABCDEFGHIJKLMNOPQR-017", "017", "wrong"),  # prefix longer than the key
        ("notice_type", "contract_notice", "contract_notice", "correct"),
        ("procedure_type", "restricted", "open", "wrong"),
        ("submission_deadline", "2020-09-01T12:00", "2020-09-01T12:00:00", "correct"),
        ("submission_deadline", "2020-09-01", "2020-09-01T12:00:00", "correct"),  # no time: the day decides
        ("submission_deadline", "2020-09-01T10:00", "2020-09-01T12:00:00", "wrong"),
        ("submission_deadline", "2020-09-02", "2020-09-01", "wrong"),
        ("estimated_value", {"amount": 1_004_000, "currency": "EUR"}, {"amount": 1_000_000, "currency": "EUR"},
         "correct"),
        ("estimated_value", {"amount": 1_010_000, "currency": "EUR"}, {"amount": 1_000_000, "currency": "EUR"},
         "wrong"),
        ("estimated_value", {"amount": 1_000_000, "currency": "USD"}, {"amount": 1_000_000, "currency": "EUR"},
         "wrong"),
        ("contract_duration", {"amount": 12, "unit": "months"}, {"amount": 1, "unit": "years"}, "correct"),
        ("contract_duration", {"amount": 52, "unit": "weeks"}, {"amount": 1, "unit": "years"}, "correct"),
        ("contract_duration", {"amount": 10, "unit": "months"}, {"amount": 1, "unit": "years"}, "wrong"),
        ("submission_url", "https://www.marches-securises.fr/", "http://marches-securises.fr", "correct"),
        ("submission_url", "https://example.org", "http://marches-securises.fr", "wrong"),
        ("cpv_codes", ["34110000-1", "50000000-5"], ["34110000-1"], "correct"),
        ("cpv_codes", ["34110000"], ["34110000-1"], "correct"),
        ("cpv_codes", ["34100000-8"], ["34110000-1"], "wrong"),
    ],
)
def test_values_match_leniently_in_form_and_strictly_in_content(
    field: str, returned: Any, expected: Any, outcome: str
) -> None:
    assert verdict(field, returned, expected) == outcome


def test_alternatives_absence_and_optional_values() -> None:
    assert verdict("title", "Other", "Main title", "Other") == "correct"
    assert verdict("title", None, "Main title") == "missed"
    assert verdict("title", None, "Main title", optional=True) == "absent"
    assert verdict("title", "Different", "Main title", optional=True) == "wrong"
    assert verdict("title", "Anything", None) == "spurious"
    assert verdict("title", None, None) == "absent"


def test_recall_counts_required_values_and_precision_every_returned_one() -> None:
    comparisons = [
        compare("title", Expected(("A",)), Returned("A", 1, "A", True)),  # correct, required
        compare("buyer.name", Expected(("B",), optional=True), Returned("B", 1, "B", False)),  # correct, optional
        compare("reference_number", Expected(("R-1",)), Returned("R-2", 1, "R-2", True)),  # wrong
        compare("buyer.email", Expected(None), Returned("x@y.z", 1, "x@y.z", True)),  # spurious
        compare("submission_url", Expected(("u.org",)), None),  # missed
    ]
    tally = Tally.of(comparisons)
    assert (tally.required, tally.correct_required, tally.correct) == (3, 1, 2)
    assert tally.recall == pytest.approx(1 / 3)
    assert tally.precision == pytest.approx(2 / 4)
    assert tally.grounded_share == pytest.approx(3 / 4)


# --- the key file ---------------------------------------------------------------------------------


def write_key(folder: Path, key: Any, *, pdfs: tuple[str, ...] = ("a.pdf",)) -> Path:
    for name in pdfs:
        born_digital_pdf(folder / name)
    path = folder / "key.json"
    path.write_text(key if isinstance(key, str) else json.dumps(key), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ('{"a.pdf": {', "not valid JSON (line 1"),
        ("[]", "a JSON object of file name"),
        ({"a.pdf": {"deadline": None}}, "unknown field 'deadline'"),
        ({"a.pdf": {"title": {"val": "x"}}}, 'object with a "value"'),
        ({"a.pdf": {"title": {"value": "x", "alt": "y"}}}, '"alt" must be a list'),
        ({"a.pdf": {"title": {"value": "x", "pages": 1}}}, "unknown entry key(s) ['pages']"),
        ({"a.pdf": {"estimated_value": {"value": "1 000 EUR"}}}, "estimated_value values are"),
        ({"a.pdf": {"contract_duration": {"value": {"amount": 3, "unit": "fortnights"}}}}, "contract_duration"),
        ({"a.pdf": {"cpv_codes": {"value": "45000000-7"}}}, "cpv_codes values are non-empty lists"),
        ({"a.pdf": {"title": {"value": "x", "page": 0}}}, "1-based page"),
        ({"a.pdf": {"title": None}, "missing.pdf": {"title": None}}, "no PDF in"),
        ({"_conventions": {}}, "names no document"),
        ({"../a.pdf": {"title": None}}, "by its file name"),
    ],
)
def test_a_bad_key_is_refused_with_the_problem_named(tmp_path: Path, key: Any, message: str) -> None:
    with pytest.raises(KeyFileError, match=None) as raised:
        load_key(write_key(tmp_path, key))
    assert message in str(raised.value)


def test_a_key_reads_values_alternatives_and_comments(tmp_path: Path) -> None:
    key = {
        "_conventions": {"anything": "goes"},
        "a.pdf": {
            "title": {"value": "Road works", "page": 1, "quote": "Road works", "alt": ["Roads"]},
            "buyer.email": None,
            "procedure_type": {"value": "open", "optional": True},
            "_notes": "a trap or two",
        },
    }
    (document,) = load_key(write_key(tmp_path, key))
    assert document.name == "a.pdf" and document.notes == "a trap or two"
    assert document.fields["title"].values == ("Road works", "Roads") and document.fields["title"].required
    assert document.fields["buyer.email"].values is None
    assert not document.fields["procedure_type"].required


# --- whole runs ---------------------------------------------------------------------------------

PAGE = (
    "City of Harbourview - Invitation for Bids",
    "Bid reference: HV-2026-001",
    "Road resurfacing of Harbour Street",
    "Bids are due by 15 March 2026 at 12:00",
    "Estimated value: EUR 450,000",
)


def run_eval(env: dict[str, str], *args: str) -> tuple[int, str, dict[str, Any]]:
    result = CliRunner().invoke(app, ["eval", *args], env=env)
    lines = [line for line in result.output.splitlines() if line.startswith("{")]
    assert lines, result.output
    return result.exit_code, result.output, json.loads(lines[-1])


def answer(request: RecordedRequest) -> dict[str, Any]:
    """What a model would answer: a right title, a wrong reference, an e-mail the page does not have."""
    fields = TenderFields(
        buyer=Buyer(name=Sourced[str](value="City of Harbourview", page=1, quote="City of Harbourview")),
        title=Sourced[str](value="Road resurfacing of Harbour Street", page=1,
                           quote="Road resurfacing of Harbour Street"),
        reference_number=Sourced[str](value="HV-2026", page=1, quote="Bid reference: HV-2026-001"),
        estimated_value=Sourced[Money](value=Money(amount=450000, currency="EUR"), page=1,
                                       quote="Estimated value: EUR 450,000"),
    )
    return fields.model_dump(mode="json")


def test_eval_scores_an_llm_endpoint_end_to_end(tmp_path: Path) -> None:
    key = {
        "notice.pdf": {
            "buyer.name": {"value": "City of Harbourview"},
            "title": {"value": "Road resurfacing of Harbour Street"},
            "reference_number": {"value": "HV-2026-001"},
            "submission_deadline": {"value": "2026-03-15T12:00"},
            "estimated_value": None,
            "buyer.email": None,
        }
    }
    born_digital_pdf(tmp_path / "notice.pdf", [PAGE])
    (tmp_path / "key.json").write_text(json.dumps(key))
    with run_openai_server(answer_with(answer)) as server:
        env = {"TENDERFLOW_LLM_BASE_URL": server.base_url, "TENDERFLOW_LLM_API_KEY": "test",
               "TENDERFLOW_LLM_MODEL": "test-model", "TENDERFLOW_DATA_DIR": str(tmp_path / "data")}
        code, output, summary = run_eval(env, str(tmp_path / "key.json"), "--details")
        # the page text went to the model: the run read the PDF as an upload does
        assert "Bids are due by 15 March 2026" in json.dumps(server.requests[0].body)
        # and the model was told the traps: what is not a value, a deadline, the buyer's contact
        system = server.requests[0].body["messages"][0]["content"]
        for trap in ("bid security", "EMD", "bid opening", "pre-bid", "monitor", "help desk", "offer validity",
                     "placeholder"):
            assert trap in system
        schema = json.dumps(server.requests[0].body["response_format"]["json_schema"]["schema"])
        assert "Not a bid security, EMD" in schema and "Not the bid opening" in schema
    assert code == 0, output
    assert summary["backend"] == "openai" and summary["model"] == "test-model"
    assert (summary["prompt_tokens"], summary["completion_tokens"]) == (100, 20)  # one call, as the server said
    totals = summary["totals"]
    assert (totals["required"], totals["correct"], totals["wrong"], totals["missed"], totals["spurious"]) == (
        4, 2, 1, 1, 1)
    assert totals["recall"] == 0.5 and totals["precision"] == 0.5 and totals["grounded_share"] == 1.0
    assert summary["fields"]["reference_number"]["wrong"] == 1
    assert "reference_number: wrong" in output and "estimated_value: spurious" in output
    assert "1 document, 1 page (0 OCR)" in output  # not "1 documents"

    unreachable = {**env, "TENDERFLOW_LLM_BASE_URL": "http://127.0.0.1:9", "TENDERFLOW_LLM_MAX_RETRIES": "0"}
    code, output, _ = run_eval(unreachable, str(tmp_path / "key.json"), "--min-recall", "0.4")
    assert code == 1, "an unreachable endpoint scores nothing, which is below the minimum"


def test_the_field_table_never_counts_more_found_than_required(tmp_path: Path) -> None:
    """The review read `procedure_type  required 3  correct 4`: optional values matched were counted
    as correct. Found is the required values found; optional matches have their own column."""
    key = {"notice.pdf": {"title": {"value": "Road resurfacing of Harbour Street"},
                          "reference_number": {"value": "HV-2026-001", "optional": True}}}
    born_digital_pdf(tmp_path / "notice.pdf", [PAGE])
    (tmp_path / "key.json").write_text(json.dumps(key))
    code, output, summary = run_eval({"TENDERFLOW_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "200"},
                                     str(tmp_path / "key.json"), "--fields", "title,reference_number")
    assert summary["fields"]["reference_number"]["correct"] == 1, output  # an optional value, matched
    rows = {line.split("\t")[0]: line.split("\t") for line in output.splitlines() if "\t" in line}
    header = rows["field"]
    reference = dict(zip(header, rows["reference_number"], strict=True))
    assert (reference["required"], reference["correct"], reference["optional"]) == ("0", "0", "1")


def test_thresholds_decide_the_exit_code(tmp_path: Path) -> None:
    key = {"notice.pdf": {"title": {"value": "Road resurfacing of Harbour Street"}}}
    born_digital_pdf(tmp_path / "notice.pdf", [PAGE])
    (tmp_path / "key.json").write_text(json.dumps(key))
    with run_openai_server(answer_with(answer)) as server:
        env = {"TENDERFLOW_LLM_BASE_URL": server.base_url, "TENDERFLOW_DATA_DIR": str(tmp_path / "data")}
        assert run_eval(env, str(tmp_path / "key.json"), "--min-recall", "1", "--min-precision", "1")[0] == 0
        code, output, _ = run_eval(env, str(tmp_path / "key.json"), "--fields", "title,buyer.email",
                                   "--min-precision", "1")
        assert code == 0, output
    key["notice.pdf"]["buyer.name"] = {"value": "Somebody else"}
    (tmp_path / "key.json").write_text(json.dumps(key))
    with run_openai_server(answer_with(answer)) as server:
        env = {"TENDERFLOW_LLM_BASE_URL": server.base_url, "TENDERFLOW_DATA_DIR": str(tmp_path / "data")}
        code, output, summary = run_eval(env, str(tmp_path / "key.json"), "--min-precision", "0.9")
    assert code == 1 and "below target: precision 0.5 < 0.9" in output
    assert summary["totals"]["wrong"] == 1


def test_a_document_without_text_gets_no_value_invented(tmp_path: Path) -> None:
    blank_pages_pdf(tmp_path / "blank.pdf", 1)
    key = {"blank.pdf": {"title": {"value": "Something"}, "buyer.name": None, "submission_deadline": None}}
    (tmp_path / "key.json").write_text(json.dumps(key))
    code, output, summary = run_eval({"TENDERFLOW_DATA_DIR": str(tmp_path / "data")}, str(tmp_path / "key.json"))
    assert code == 0, output
    assert summary["backend"] == "rules" and summary["ocr_pages"] == 1
    assert summary["totals"]["returned"] == 0 and summary["totals"]["missed"] == 1


def test_bad_arguments_get_a_clear_error_and_nothing_runs(tmp_path: Path) -> None:
    key = write_key(tmp_path, {"a.pdf": {"title": None}})
    env = {"TENDERFLOW_DATA_DIR": str(tmp_path / "data")}
    for args, message in [
        ([str(key), "--fields", "title,deadline"], "unknown field(s) deadline"),
        ([str(key), "--doc", "b.pdf"], "no document named b.pdf"),
        ([str(tmp_path / "nope.json")], "no such answer key"),
        ([str(key), str(tmp_path / "nowhere")], "the PDF folder does not exist"),
    ]:
        result = CliRunner().invoke(app, ["eval", *args], env=env)
        assert result.exit_code != 0
        assert message in str(result.exception) + result.output
    assert not (tmp_path / "data" / "eval-pages").exists()


def test_eval_names_the_rule_behind_each_scored_value_and_the_documents_it_fired_on(tmp_path: Path) -> None:
    """`eval --json` lists the offline extractor's rules with the documents each gave a value for and
    how those scored: a rule that fires on one document only is what the benchmark names (issue 22)."""
    for name in ("a.pdf", "b.pdf"):
        born_digital_pdf(tmp_path / name, [PAGE])
    key = {"a.pdf": {"reference_number": {"value": "HV-2026-001"}, "buyer.phone": None},
           "b.pdf": {"reference_number": {"value": "HV-1999-999"}, "buyer.phone": None}}
    (tmp_path / "key.json").write_text(json.dumps(key))
    code, output, summary = run_eval({"TENDERFLOW_DATA_DIR": str(tmp_path / "data")}, str(tmp_path / "key.json"))
    assert code == 0, output
    [(rule, entry)] = [(rule, entry) for rule, entry in summary["rules"].items() if rule.startswith("reference_number")]
    assert "reference" in rule
    assert sorted(entry["documents"]) == ["a.pdf", "b.pdf"]
    assert (entry["correct"], entry["wrong"], entry["spurious"]) == (1, 1, 0)
