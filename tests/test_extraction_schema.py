"""The tender schema and the strict JSON Schema sent to OpenAI structured outputs."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel

from tenderflow.extraction.schema import (
    AwardCriterion,
    Lot,
    Money,
    Sourced,
    TenderFields,
    parse_iso_datetime,
    strict_json_schema,
)

# What OpenAI's strict mode accepts; anything else in the schema is a request it rejects.
STRICT_KEYWORDS = {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
                   "description"}  # fmt: skip
MAX_NESTING = 10  # OpenAI's documented limit on object nesting in a strict schema


def walk(node: dict[str, Any], depth: int = 1) -> list[tuple[dict[str, Any], int]]:
    """Every subschema with its object-nesting depth."""
    found = [(node, depth)]
    inner = depth + 1 if node.get("type") == "object" else depth
    for child in node.get("properties", {}).values():
        found += walk(child, inner)
    for child in node.get("anyOf", []):
        found += walk(child, depth)
    if "items" in node:
        found += walk(node["items"], depth)
    return found


def full_answer() -> dict[str, Any]:
    """A TenderFields with every field filled, as JSON."""

    def sourced(value: Any) -> dict[str, Any]:
        return {"value": value, "page": 1, "quote": "q"}

    return TenderFields(
        title=Sourced(value="Cleaning", page=1, quote="Title: Cleaning"),
        procedure_type=Sourced(value="open", page=1, quote="Open procedure"),
        estimated_value=Sourced(value=Money(amount=1.0, currency="EUR"), page=1, quote="EUR 1"),
        cpv_codes=[Sourced(value="90910000-9", page=1, quote="CPV 90910000-9")],
        lots=[
            Lot(
                number=Sourced(value="1", page=1, quote="Lot 1"),
                award_criteria=[Sourced(value=AwardCriterion(name="Price", weight=60), page=1, quote="Price 60 %")],
            )
        ],
    ).model_dump(mode="json") | {"submission_deadline": sourced("2026-03-15T12:00")}


def test_strict_schema_uses_only_keywords_strict_mode_supports() -> None:
    schema = strict_json_schema(TenderFields)
    for node, _ in walk(schema):
        assert set(node) <= STRICT_KEYWORDS, set(node) - STRICT_KEYWORDS


def test_strict_schema_objects_require_every_property_and_forbid_others() -> None:
    objects = [node for node, _ in walk(strict_json_schema(TenderFields)) if node.get("type") == "object"]
    assert len(objects) > 10  # the walk really reached the nested leaves
    for node in objects:
        assert node["additionalProperties"] is False
        assert node["required"] == list(node["properties"])


def test_strict_schema_keeps_optional_fields_nullable_and_inlines_references() -> None:
    schema = strict_json_schema(TenderFields)
    title = schema["properties"]["title"]
    assert {"type": "null"} in title["anyOf"]
    assert "$ref" not in str(schema) and "$defs" not in schema
    lot_number = schema["properties"]["lots"]["items"]["properties"]["number"]
    assert lot_number["type"] == "object"  # a lot always has a number: not nullable
    assert schema["properties"]["procedure_type"]["anyOf"][0]["properties"]["value"]["enum"][0] == "open"


def test_strict_schema_nesting_stays_within_openai_limit() -> None:
    assert max(depth for _, depth in walk(strict_json_schema(TenderFields))) <= MAX_NESTING


def test_strict_schema_accepts_a_full_answer_and_rejects_missing_or_extra_keys() -> None:
    schema = strict_json_schema(TenderFields)
    answer = full_answer()
    jsonschema.validate(answer, schema)
    assert TenderFields.model_validate(answer).title is not None

    missing = dict(answer)
    del missing["title"]
    with pytest.raises(jsonschema.ValidationError, match="'title' is a required property"):
        jsonschema.validate(missing, schema)

    extra = {**answer, "buyer": {**answer["buyer"], "vat_number": None}}
    with pytest.raises(jsonschema.ValidationError, match="Additional properties"):
        jsonschema.validate(extra, schema)

    unknown_procedure = {**answer, "procedure_type": {"value": "auction", "page": 1, "quote": "q"}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(unknown_procedure, schema)


def test_tender_model_rejects_invented_keys() -> None:
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        TenderFields.model_validate({"title": {"value": "x", "page": 1, "quote": "x", "confidence": 0.9}})


def test_strict_schema_closes_objects_even_of_models_that_allow_extra_keys() -> None:
    class Permissive(BaseModel):  # pydantic's default: extra keys ignored, no additionalProperties
        name: str
        tags: list[str] = []

    schema = strict_json_schema(Permissive)
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["name", "tags"]


def test_strict_schema_refuses_a_recursive_model() -> None:
    class Node(BaseModel):
        children: list[Node]

    with pytest.raises(ValueError, match="recursive"):
        strict_json_schema(Node)


def test_strict_schema_refuses_a_field_without_type() -> None:
    class Loose(BaseModel):
        anything: Any

    with pytest.raises(ValueError, match="without a type"):
        strict_json_schema(Loose)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2026-03-15", "2026-03-15"), ("2026-03-15T12:00", "2026-03-15 12:00:00"),
     ("2026-03-15T12:00:00+01:00", "2026-03-15 12:00:00+01:00")],
)  # fmt: skip
def test_parse_iso_datetime_reads_dates_and_datetimes(text: str, expected: str) -> None:
    assert str(parse_iso_datetime(text)) == expected


@pytest.mark.parametrize("text", ["15.03.2026", "next Monday", "2026-02-30", ""])
def test_parse_iso_datetime_refuses_anything_else(text: str) -> None:
    with pytest.raises(ValueError):
        parse_iso_datetime(text)
