"""The tender fields tenderflow extracts, every value with the page and quote it was read from.

The field set follows OCDS (`tender.*`, `buyer`, `lots`) and EU eForms (BT-… business terms) where
they agree: buyer, title, reference, notice and procedure type, main category, CPV codes, estimated
value, deadlines, place of performance, duration, lots with award criteria, submission URL.

Every leaf is a `Sourced[T]`: the value AND its provenance (`page`, 1-based, and `quote`, the exact
text it was read from), so that `validation.py` can check each value against the page text and a
reviewer can see where it came from.

The models are deliberately permissive about content (a page number of 0, an unknown currency, a
date that does not parse all validate here): an LLM answer must not be thrown away whole because one
leaf is wrong. `validation.py` drops such leaves one by one, with a flag. Only the SHAPE is strict.

`strict_json_schema()` turns a model into the JSON Schema that OpenAI structured outputs accept
with `strict: true`; `select_fields()` cuts it down to some fields (hybrid extraction asks the LLM
only for the fields the offline extractor did not find).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")

NoticeType = Literal[
    "prior_information_notice",
    "contract_notice",
    "contract_award_notice",
    "corrigendum",
    "other",
]
"""eForms notice families, collapsed to the ones a bidder cares about."""

ProcedureType = Literal[
    "open",
    "restricted",
    "neg-w-call",
    "neg-wo-call",
    "comp-dial",
    "innovation",
    "oth-single",
    "oth-mult",
]
"""eForms procurement-procedure-type codes: open, restricted, negotiated with / without a prior call
for competition, competitive dialogue, innovation partnership, other single- / multi-stage."""

MainCategory = Literal["works", "goods", "services"]
"""OCDS mainProcurementCategory (eForms: works, supplies, services)."""

DurationUnit = Literal["days", "weeks", "months", "years"]


class _Strict(BaseModel):
    # extra="forbid" makes the JSON Schema say additionalProperties: false and makes an answer with
    # invented keys fail validation instead of being silently trimmed.
    model_config = ConfigDict(extra="forbid", frozen=True)


class Sourced(_Strict, Generic[T]):
    """A value together with where it was read: the page number and the exact quote."""

    value: T
    # page: 1-based page number; quote: the text on that page, verbatim. No Field descriptions: the
    # schema repeats this model for every leaf and the system prompt already says it once.
    page: int
    quote: str


class Money(_Strict):
    """An amount in a currency, as a notice states an estimated value."""

    amount: float = Field(description="The amount as a plain number: 1250000.0 for 'EUR 1 250 000,00'.")
    currency: str = Field(description="ISO 4217 code, e.g. EUR, CHF, GBP ('€' is EUR).")


class ContractDuration(_Strict):
    """How long the contract runs."""

    amount: int
    unit: DurationUnit


class AwardCriterion(_Strict):
    """One award criterion and its weighting, as stated (percent or points)."""

    name: str = Field(description="The criterion's name as written, e.g. 'Price', 'Technical value'.")
    weight: float | None = Field(description="The weighting as a number (60 for '60 %'); null if not given.")


class Buyer(_Strict):
    """The contracting authority or entity (OCDS buyer, eForms organisation with the buyer role)."""

    name: Sourced[str] | None = Field(
        default=None, description="Official name of the organisation, verbatim, without a department or office."
    )
    country: Sourced[str] | None = Field(
        default=None, description="ISO 3166-1 alpha-2 code of the buyer's country, e.g. DE, FR."
    )
    email: Sourced[str] | None = Field(
        default=None,
        description="The buyer's own contact e-mail, verbatim; not an evaluator's, monitor's, help desk's or "
        "review body's.",
    )
    phone: Sourced[str] | None = Field(
        default=None, description="The buyer's own contact telephone number, verbatim; not a help desk's."
    )
    address: Sourced[str] | None = Field(default=None, description="Postal address, verbatim.")


class Lot(_Strict):
    """One lot of the procedure (eForms LOT-nnnn, OCDS tender.lots)."""

    number: Sourced[str] = Field(description="The lot's number or identifier as written, e.g. '1' or 'LOT-0001'.")
    title: Sourced[str] | None = Field(default=None, description="The lot's title, verbatim.")
    cpv_codes: list[Sourced[str]] = Field(
        default_factory=list, description="CPV codes of this lot, formatted NNNNNNNN-N."
    )
    estimated_value: Sourced[Money] | None = Field(default=None, description="The lot's estimated value.")
    award_criteria: list[Sourced[AwardCriterion]] = Field(
        default_factory=list, description="Award criteria of this lot, with weightings."
    )


class TenderFields(_Strict):
    """Everything extracted from one tender document. Unknown fields are null or empty lists."""

    buyer: Buyer = Field(default_factory=Buyer)
    title: Sourced[str] | None = Field(default=None, description="Title of the procurement, verbatim.")
    reference_number: Sourced[str] | None = Field(
        default=None,
        description="The buyer's file, tender or bid number of this procedure, verbatim; not a clause number.",
    )
    notice_type: Sourced[NoticeType] | None = None
    procedure_type: Sourced[ProcedureType] | None = Field(
        default=None,
        description="eForms code: open, restricted, neg-w-call (negotiated / competitive procedure with "
        "negotiation, with a call for competition), neg-wo-call (negotiated without prior publication), "
        "comp-dial (competitive dialogue), innovation (innovation partnership), oth-single, oth-mult.",
    )
    main_category: Sourced[MainCategory] | None = None
    cpv_codes: list[Sourced[str]] = Field(
        default_factory=list,
        description="CPV codes of the whole procedure (main code first), formatted NNNNNNNN-N.",
    )
    estimated_value: Sourced[Money] | None = Field(
        default=None,
        description="Estimated total value, budget or cost of the whole procedure. Not a bid security, EMD, "
        "tender fee, performance guarantee or turnover requirement.",
    )
    submission_deadline: Sourced[str] | None = Field(
        default=None,
        description="Time limit for receipt of tenders as ISO 8601: 2026-03-15T12:00 or 2026-03-15. Not the bid "
        "opening, a pre-bid meeting, the publication date or the offer validity; an addendum's new date wins.",
    )
    questions_deadline: Sourced[str] | None = Field(
        default=None, description="Time limit for questions / clarification requests, ISO 8601; null if not stated."
    )
    place_of_performance: Sourced[str] | None = Field(
        default=None, description="Place of performance or NUTS code, verbatim."
    )
    contract_duration: Sourced[ContractDuration] | None = Field(
        default=None, description="How long the contract runs; not the offer validity, a warranty or a delivery term."
    )
    award_criteria: list[Sourced[AwardCriterion]] = Field(
        default_factory=list, description="Award criteria that apply to the whole procedure."
    )
    lots: list[Lot] = Field(default_factory=list)
    submission_url: Sourced[str] | None = Field(
        default=None, description="URL where tenders are submitted electronically, verbatim."
    )


EvidenceKind = Literal["stated", "phone", "nuts", "country name", "state", "postcode", "city", "e-mail", "web address",
                       "currency", "language"]


class CountryEvidence(BaseModel):
    """One thing the document gives that points to the buyer's country (tenderflow.extraction.country)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: EvidenceKind
    value: str = Field(description="What was read: '+590 590 93 76 27', '97159', 'guadeloupe.cci.fr', 'EUR', 'fr'.")
    country: str = Field(description="The ISO 3166-1 alpha-2 code it points to.")
    weight: float = Field(description="How much it counts (a buyer's international phone number 3, a language 1/n).")
    page: int | None = Field(default=None, description="The page it was read on (none for the text's language).")
    quote: str | None = Field(default=None, description="The text it was read from, verbatim.")
    time_zone: str | None = Field(default=None, description="The IANA time zone it names, if any (a phone's area "
                                  "code, a state, an overseas department).")


class BuyerCountry(BaseModel):
    """The buyer's country and the time zone its deadlines are read in, with why."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    code: str = Field(description="ISO 3166-1 alpha-2.")
    inferred: bool = Field(description="False: the document states it (a labelled country line, read by the "
                           "extractor); true: inferred from the evidence below.")
    time_zone: str | None = Field(default=None, description="IANA time zone its deadlines are read in; none if the "
                                  "country's zones are not known here.")
    time_zone_from: str | None = Field(default=None, description="Why that zone: the country's only one, a state or "
                                       "phone area code the document gives, or the capital's.")
    evidence: list[CountryEvidence] = Field(default_factory=list)


class PlacedDeadline(BaseModel):
    """A deadline as readers get it: with the offset of the buyer's time zone, or local and said so."""

    model_config = ConfigDict(frozen=True)
    date_time: str = Field(description="RFC 3339 with the zone's offset ('2020-08-26T18:00:00-04:00') when the "
                           "zone is known; else the local date-time as printed, without an offset (never 'Z'); a "
                           "date alone stays a date.")
    local: str = Field(description="The date-time (or date) as printed, in the buyer's local time.")
    time_zone: str | None = Field(description="The IANA zone it is read in; null: not known, `date_time` is local.")


FIELD_PATHS: tuple[str, ...] = (
    "buyer.name", "buyer.country", "buyer.email", "buyer.phone", "buyer.address", "title", "reference_number",
    "notice_type", "procedure_type", "main_category", "cpv_codes", "estimated_value", "submission_deadline",
    "questions_deadline", "place_of_performance", "contract_duration", "award_criteria", "lots", "submission_url",
)
"""Every field of TenderFields by its path, in the schema's order (a buyer's fields one by one)."""

FoundBy = Literal["offline", "llm"]
"""Which extractor found a value: the offline rules, or the LLM."""


def field_value(fields: TenderFields, path: str) -> Any:
    """The value at `path` ("buyer.email", "title"): a Sourced, None, or a list."""
    top, _, sub = path.partition(".")
    node = getattr(fields, top)
    return getattr(node, sub) if sub else node


def with_values(fields: TenderFields, values: Mapping[str, Any]) -> TenderFields:
    """`fields` with the value at each path of `values` replaced (the paths of `field_value`; the
    models are copied, not validated again)."""
    buyer, update = _by_model(values)
    if buyer:
        update["buyer"] = fields.buyer.model_copy(update=buyer)
    return fields.model_copy(update=update)


def fields_of(values: Mapping[str, Any]) -> TenderFields:
    """The fields that hold `values`, a value by path (the paths of `field_value`), validated as the
    models validate; a path `values` does not hold is left empty."""
    buyer, top_level = _by_model(values)
    return TenderFields(buyer=Buyer(**buyer), **top_level)


def _by_model(values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Values by path as the buyer's and the top level's, each by its field's name."""
    buyer: dict[str, Any] = {}
    top_level: dict[str, Any] = {}
    for path, value in values.items():
        top, _, sub = path.partition(".")
        if sub:
            buyer[sub] = value
        else:
            top_level[top] = value
    return buyer, top_level


def filled_paths(fields: TenderFields) -> list[str]:
    """The paths of FIELD_PATHS that hold a value (a non-empty list counts)."""
    return [path for path in FIELD_PATHS if field_value(fields, path) not in (None, [])]


class ExtractionResult(BaseModel):
    """What one extraction run produced: the validated fields and what it cost."""

    fields: TenderFields
    backend: str
    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    flags: list[str] = Field(default_factory=list, description="Human-readable notes about values dropped or flagged.")
    confidence: dict[str, float] = Field(
        default_factory=dict, description="How sure the extractor was of each returned value, 0..1, by field path "
        "('buyer.name', 'submission_deadline'); empty for backends that do not say.")
    rules: dict[str, str] = Field(
        default_factory=dict, description="Which of the extractor's rules found each returned value, by field path "
        "(\"label 'reference no.'\", 'letterhead'): what a person checks first when a value is wrong.")
    candidates: dict[str, Sourced[Any]] = Field(
        default_factory=dict, description="For fields left empty: the best value the extractor found that stayed "
        "below its confidence threshold. Shown as a candidate, never returned as the field.")
    country: BuyerCountry | None = Field(default=None, description="The buyer's country (stated or inferred), its "
                                         "time zone and the evidence; none when nothing points to one clearly.")
    found_by: dict[str, FoundBy] = Field(
        default_factory=dict, description="Which extractor found each field that holds a value, by its path.")


def parse_iso_datetime(value: str) -> datetime | date:
    """A deadline value ('2026-03-15' or '2026-03-15T12:00[:00][+01:00]') as a date or datetime.

    Raises ValueError for anything else; validation drops deadlines this cannot parse.
    """
    text = value.strip()
    if "T" not in text and " " not in text:
        return date.fromisoformat(text)
    return datetime.fromisoformat(text)


# --- strict JSON Schema ---------------------------------------------------------------------------

# The keywords OpenAI's strict mode understands everywhere. Anything else pydantic emits (title,
# default, format, minimum, …) is dropped: some are rejected outright, and none is needed because
# `validation.py` checks content after the fact.
_KEPT_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "description"}
)
# Keywords whose meaning strict mode cannot express; meeting one means the model needs changing.
_REJECTED_KEYWORDS = frozenset(
    {"oneOf", "not", "if", "then", "else", "patternProperties", "prefixItems", "dependentSchemas"}
)


def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of `model` in the form OpenAI structured outputs accept with `strict: true`.

    Every object lists all its properties as required and forbids additional ones; optional fields
    stay nullable through `anyOf [..., {"type": "null"}]`; `$ref`s are inlined (the models are not
    recursive) so the schema also works with OpenAI-compatible servers that resolve references
    poorly; unsupported keywords are removed. Raises ValueError for a construct strict mode cannot
    express (oneOf, recursion, a field of type Any).
    """
    schema = model.model_json_schema(mode="validation")
    definitions: dict[str, Any] = schema.pop("$defs", {})
    strict = _strict_node(schema, definitions, resolving=())
    if strict.get("type") != "object":
        raise ValueError("the root of a strict schema must be an object")
    return strict


def _strict_node(node: dict[str, Any], definitions: dict[str, Any], resolving: tuple[str, ...]) -> dict[str, Any]:
    node = dict(node)
    if "allOf" in node:
        # pydantic wraps a described $ref in a one-element allOf in some versions.
        parts = node.pop("allOf")
        if len(parts) != 1:
            raise ValueError(f"allOf with {len(parts)} parts cannot be expressed in strict mode")
        node = {**parts[0], **node}
    if "$ref" in node:
        name = str(node.pop("$ref")).removeprefix("#/$defs/")
        if name in resolving:
            raise ValueError(f"recursive model {name!r} cannot be inlined")
        # Keywords on the referring node (its description) win over the definition's.
        return _strict_node({**definitions[name], **node}, definitions, (*resolving, name))

    rejected = _REJECTED_KEYWORDS & node.keys()
    if rejected:
        raise ValueError(f"strict mode cannot express {sorted(rejected)}")

    strict: dict[str, Any] = {key: value for key, value in node.items() if key in _KEPT_KEYWORDS}
    if not strict.keys() & {"type", "anyOf", "enum", "const"}:
        raise ValueError(f"a schema without a type cannot be strict: {node}")
    if "anyOf" in strict:
        strict["anyOf"] = [_strict_node(variant, definitions, resolving) for variant in strict["anyOf"]]
    if "items" in strict:
        strict["items"] = _strict_node(strict["items"], definitions, resolving)
    if strict.get("type") == "object" or "properties" in strict:
        properties = {
            name: _strict_node(value, definitions, resolving) for name, value in strict.get("properties", {}).items()
        }
        strict["properties"] = properties
        strict["required"] = list(properties)
        strict["additionalProperties"] = False
    return strict


def select_fields(schema: dict[str, Any], paths: Sequence[str]) -> dict[str, Any]:
    """The strict schema of TenderFields cut down to the fields at `paths` ("title", "buyer.email",
    "cpv_codes", "lots"), in the schema's order: an answer to it holds those and nothing else, and
    still validates as TenderFields (every field it leaves out has a default). Raises ValueError for
    an unknown path."""
    whole: set[str] = set()
    parts: dict[str, set[str]] = {}
    for path in paths:
        top, _, sub = path.partition(".")
        node = schema["properties"].get(top)
        if node is None or (sub and sub not in node.get("properties", {})):
            raise ValueError(f"no field {path!r} in the tender schema")
        if sub:
            parts.setdefault(top, set()).add(sub)
        else:
            whole.add(top)
    properties: dict[str, Any] = {}
    for top, node in schema["properties"].items():
        if top in whole:
            properties[top] = node
        elif top in parts:
            kept = {name: value for name, value in node["properties"].items() if name in parts[top]}
            properties[top] = {**node, "properties": kept, "required": list(kept)}
    return {**schema, "properties": properties, "required": list(properties)}
