"""The `extract` stage's local handler: the tender's structured fields from its pages' text.

`load_input` reads the pages (the one database read); the pure compute (tenderflow.stages.compute.
ExtractCompute) calls the configured backend (the offline rules, an OpenAI-compatible LLM, or both)
— remote workers run exactly that; `verify` checks a remote worker's result against the stored
pages; `commit` stores the fields and marks the version done, in the queue's completion transaction,
and enqueues the `tender.document` task that merges the document's tenders (tenderflow.handlers.tenders).
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool
from pydantic import ValidationError

from tenderflow.errors import ResultRejectedError
from tenderflow.extraction import returned_paths
from tenderflow.extraction.country import locate, with_country
from tenderflow.extraction.schema import BuyerCountry, Sourced, TenderFields, filled_paths
from tenderflow.extraction.validation import normalize_for_matching, validate_fields
from tenderflow.handlers.resources import Resources
from tenderflow.pipeline import commits, versions
from tenderflow.queue import ClaimedJob, JobContext
from tenderflow.stages.compute import ExtractCompute
from tenderflow.stages.contract import PageInput
from tenderflow.stages.results import ExtractResult
from tenderflow.tenders import records as tender_records


class ExtractHandler:
    """extract: its compute (ExtractCompute) over the pages read from the database; the checks of a
    remote extraction against the stored pages; the commit that stores the fields."""

    def __init__(self, computer: ExtractCompute, pool: ConnectionPool | None = None) -> None:
        self.computer = computer
        self.pool = pool

    def warm_up(self) -> None:
        self.computer.warm_up()

    def load_input(self, job: ClaimedJob) -> list[PageInput]:
        assert self.pool is not None, "no database to read the pages from"
        with self.pool.connection() as conn:
            rows = versions.pages_for_extraction(conn, versions.VersionRef.of(job))
        return [PageInput(number, text) for number, text in rows]

    def compute(self, job: ClaimedJob, pages: list[PageInput], context: JobContext) -> ExtractResult:
        return self.computer.compute(job, pages, context)

    def verify(self, job: ClaimedJob, result: ExtractResult) -> None:
        """A remote extraction: the fields fit the tender schema and pass the validation a local
        extraction passes against the stored pages (every quote on its page, codes, dates, money)
        with nothing to remove, and the usage is bounded by the text (no inflated charge)."""
        pages = self.load_input(job)
        try:
            fields = TenderFields.model_validate(result.fields)
        except ValidationError as error:
            raise ResultRejectedError(f"the fields do not fit the tender schema: {error}"[:2000]) from error
        validated, flags = validate_fields(fields, pages)
        if validated.model_dump(mode="json") != fields.model_dump(mode="json"):
            raise ResultRejectedError("the fields do not hold against the stored pages: " + "; ".join(flags)[:2000])
        _verify_provenance(result, validated, pages)
        if result.country is not None:
            verify_country(fields, result.country, pages)
        characters = sum(len(page.text) for page in pages)
        tokens = result.prompt_tokens + result.completion_tokens
        if result.backend == "rules" and tokens:
            raise ResultRejectedError("the offline extractor uses no tokens")
        if result.found_by and set(result.found_by) != set(filled_paths(validated)):
            raise ResultRejectedError("found_by does not name exactly the fields that hold a value")
        if result.backend == "rules" and "llm" in result.found_by.values():
            raise ResultRejectedError("the offline extractor found a field with an LLM")
        if tokens > max_tokens_for(characters):
            raise ResultRejectedError(f"{tokens:,} tokens reported for {characters:,} characters of pages "
                                      f"(at most {max_tokens_for(characters):,})")

    def commit(self, conn: psycopg.Connection[Any], job: ClaimedJob, result: ExtractResult) -> None:
        commits.record_extraction(conn, job, result.model_dump(mode="json"))
        tender_records.announce_finished(conn, versions.VersionRef.of(job), tenant=job.tenant, priority=job.priority,
                                         max_attempts=job.max_attempts)


def _verify_provenance(result: ExtractResult, fields: TenderFields, pages: list[PageInput]) -> None:
    """A remote extraction's confidence and rules are about values it returned (confidence in 0..1, rules
    short), and each candidate it shows a person quotes its page, as a value would."""
    returned = set(returned_paths(fields))
    for path, value in result.confidence.items():
        if path not in returned or not 0.0 <= value <= 1.0:
            raise ResultRejectedError(f"confidence {value!r} for {path!r}, which holds no value or is not 0..1")
    for path, rule in result.rules.items():
        if path not in returned or len(rule) > MAX_RULE_CHARS:
            raise ResultRejectedError(f"rule for {path!r}: no such value, or longer than {MAX_RULE_CHARS} characters")
    texts = {page.number: normalize_for_matching(page.text) for page in pages}
    for path, candidate in result.candidates.items():
        try:
            sourced = Sourced[Any].model_validate(candidate)
        except ValidationError as error:
            raise ResultRejectedError(f"candidate for {path!r} is not a value with its page and quote") from error
        quote = normalize_for_matching(sourced.quote)
        if path in returned or not quote or quote not in texts.get(sourced.page, ""):
            raise ResultRejectedError(f"candidate for {path!r}: the field holds a value, or its quote is not on "
                                      f"page {sourced.page}")


MAX_RULE_CHARS = 200


def verify_country(fields: TenderFields, country: BuyerCountry, pages: list[PageInput]) -> None:
    """The country a remote worker placed the buyer in is the one the server finds from the same
    pages and fields (the inference is deterministic), and an inferred one is the buyer's country
    of the fields as `with_country` fills it in."""
    given = fields
    if country.inferred:
        given = fields.model_copy(update={"buyer": fields.buyer.model_copy(update={"country": None})})
    found = locate(pages, given)
    if found != country:
        raise ResultRejectedError("the buyer's country and its evidence are not what the pages give")
    if country.inferred and with_country(given, found).buyer.country != fields.buyer.country:
        raise ResultRejectedError("the buyer's country in the fields is not the one inferred")


def max_tokens_for(characters: int) -> int:
    """The most LLM tokens an extraction of `characters` of page text can use: a token is ~4
    characters, so this allows every character sent twice as its own token, plus the instructions
    and answers of a few calls."""
    return 2 * characters + 50_000


def build_extract_handler(resources: Resources) -> ExtractHandler:
    return ExtractHandler(ExtractCompute.from_settings(resources.settings), resources.pool)
