"""Full-text search (issue 13): pages and extracted fields indexed in their document's language,
websearch syntax, ranked snippets with the matches marked, the fields as filters, a tenant alone with
its documents."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool
from typer.testing import CliRunner

from tenderflow.cli import app
from tenderflow.config import Settings
from tenderflow.errors import SearchQueryError
from tenderflow.pipeline.search import SearchFilters, search
from tenderflow.pipeline.storage import open_storage
from tenderflow.tenants.keys import create_api_key
from tests.conftest import processed_once
from tests.support.api_harness import RunningApi, bearer
from tests.support.pipeline_harness import drain
from tests.support.tender_fixtures import TENDER_PAGE

ROADS = [
    "Resurfacing of roads in the northern district",
    "The contractor shall resurface the carriageway of twelve municipal roads,",
    "repair potholes and renew the road markings before the winter season.",
    "Works on the bridge deck are excluded from this lot and tendered separately.",
]
BRIDGE = [
    "Maintenance of the river bridge",
    "Inspection and maintenance of the steel bridge, painting of the railings,",
    "and replacement of the expansion joints of the bridge deck in spring.",
]
VOIRIE = [
    "Travaux de réfection de la voirie communale",
    "Le titulaire réalisera la réfection des chaussées de douze voies communales,",
    "la reprise des nids-de-poule et le renouvellement du marquage au sol.",
]


processed_documents, indexed = processed_once(
    "indexed", tenants={"acme": 0, "globex": 0}, languages=None, documents=(
        ("roads", "acme", [TENDER_PAGE, ROADS]), ("bridge", "acme", [BRIDGE]), ("voirie", "acme", [VOIRIE]),
        ("globex-roads", "globex", [ROADS])))
"""Four processed documents: three of acme's (English, English, French), one of globex's."""


def found(hits: list[Any]) -> list[tuple[int, int]]:
    return [(hit.document_id, hit.page) for hit in hits]


def test_words_are_found_by_their_stems_in_the_documents_language_best_first(
    conn: psycopg.Connection[Any], indexed: dict[str, int]
) -> None:
    hits = search(conn, "resurfaced roads", tenant="acme")
    assert found(hits) == [(indexed["roads"], 2)]  # "Resurfacing of roads": English stems
    [hit] = hits
    marked = [hit.snippet[start:end].lower() for start, end in hit.highlights]
    assert "resurfacing" in marked and "roads" in marked
    # French: "voiries communales" finds "voirie communale", with French stemming and stop words.
    assert found(search(conn, "voiries communales", tenant="acme")) == [(indexed["voirie"], 1)]
    # Ranked: the page about the bridge mentions it four times, the roads page once.
    assert found(search(conn, "bridge", tenant="acme")) == [(indexed["bridge"], 1), (indexed["roads"], 2)]


def test_phrases_alternatives_and_exclusions(conn: psycopg.Connection[Any], indexed: dict[str, int]) -> None:
    assert found(search(conn, '"bridge deck"', tenant="acme")) == [(indexed["bridge"], 1), (indexed["roads"], 2)]
    assert found(search(conn, '"deck bridge"', tenant="acme")) == []
    assert found(search(conn, "bridge -roads", tenant="acme")) == [(indexed["bridge"], 1)]
    assert {hit.document_id for hit in search(conn, "potholes or railings", tenant="acme")} == {
        indexed["roads"], indexed["bridge"]}


def test_the_extracted_fields_filter_the_results(conn: psycopg.Connection[Any], indexed: dict[str, int]) -> None:
    everything = {hit.document_id for hit in search(conn, "bridge or cleaning", tenant="acme")}
    assert everything == {indexed["roads"], indexed["bridge"]}

    def only(**filters: Any) -> set[int]:
        return {hit.document_id for hit in search(conn, "bridge or cleaning", tenant="acme",
                                                  filters=SearchFilters(**filters))}

    # Only the notice on page 1 of "roads" has fields: deadline 2026-03-15, CPV 90910000-9, the City.
    assert only(deadline_after=date(2026, 3, 1)) == {indexed["roads"]}
    assert only(deadline_before=date(2026, 3, 15)) == set()
    assert only(deadline_before=date(2026, 3, 16)) == {indexed["roads"]}
    assert only(cpv_prefix="9091") == {indexed["roads"]} and only(cpv_prefix="4523") == set()
    assert only(buyer="example harbour") == {indexed["roads"]}
    with pytest.raises(SearchQueryError, match="CPV prefix is 1 to 8 digits"):
        search(conn, "bridge", filters=SearchFilters(cpv_prefix="roads"))
    with pytest.raises(SearchQueryError, match="empty"):
        search(conn, "   ")
    # Unbalanced quotes and stray operators are still a query (the websearch syntax never errors).
    assert found(search(conn, '"bridge deck', tenant="acme")) == [(indexed["bridge"], 1), (indexed["roads"], 2)]
    search(conn, "or - & | ! bridge (", tenant="acme")  # no syntax error reaches the user


def test_a_tenant_searches_only_its_own_documents_over_the_api(
    api: RunningApi, conn: psycopg.Connection[Any], indexed: dict[str, int]
) -> None:
    for tenant, own in (("acme", indexed["roads"]), ("globex", indexed["globex-roads"])):
        key = create_api_key(conn, tenant, name="search").key
        answer = api.client.get("/v1/search", params={"q": "resurfacing"}, headers=bearer(key))
        assert answer.status_code == 200, answer.text
        results = answer.json()["results"]
        assert [(r["document_id"], r["page"]) for r in results] == [(own, 2 if tenant == "acme" else 1)]
        [(start, end)] = [span for span in results[0]["highlights"] if
                          results[0]["snippet"][span[0]:span[1]].lower() == "resurfacing"]
        assert end - start == len("resurfacing")
    bad = api.client.get("/v1/search", params={"q": "roads", "cpv": "x1"}, headers=bearer(key))
    assert bad.status_code == 400 and "CPV prefix" in bad.json()["detail"]
    assert api.client.get("/v1/search", params={"q": ""}, headers=bearer(key)).status_code == 422


def test_the_cli_searches_with_filters_and_prints_json(
    cli_env: dict[str, str], indexed: dict[str, int]
) -> None:
    result = CliRunner().invoke(app, ["search", "roads", "--tenant", "acme", "--json"], env=cli_env)
    assert result.exit_code == 0, result.output
    assert [(hit["document_id"], hit["page"]) for hit in json.loads(result.stdout)] == [(indexed["roads"], 2)]
    piped = CliRunner().invoke(app, ["search", "bridge", "--cpv", "9091"], env=cli_env)
    lines = piped.stdout.splitlines()
    assert lines[0].split("\t")[:2] == ["document_id", "page"] and len(lines) == 2
    refused = CliRunner().invoke(app, ["search", "roads", "--cpv", "roads"], env=cli_env)
    assert refused.exit_code == 2 and "CPV prefix" in refused.output


def test_each_page_is_indexed_in_its_documents_language(conn: psycopg.Connection[Any], indexed: dict[str, int]) -> None:
    configs = dict(conn.execute(
        "SELECT document_id, search_config::text FROM search_pages WHERE page_number = 1").fetchall())
    assert (configs[indexed["roads"]], configs[indexed["voirie"]]) == ("english", "french")


def test_the_readable_version_is_what_is_searched_until_a_newer_one_is_done(
    conn: psycopg.Connection[Any], pool: ConnectionPool, settings: Settings, indexed: dict[str, int]
) -> None:
    from tenderflow.pipeline.reprocess import reprocess

    roads = indexed["roads"]

    def entries() -> list[tuple[int, int]]:
        return [(int(page), int(version)) for page, version in conn.execute(
            "SELECT page_number, version FROM search_pages WHERE document_id = %s ORDER BY 1", (roads,)).fetchall()]

    assert entries() == [(1, 1), (2, 1)]
    reprocess(conn, roads, start_from="ocr")  # version 2 reads the pages again
    assert entries() == [(1, 1), (2, 1)]  # not done yet: version 1 is still what readers see
    assert found(search(conn, "resurfacing", tenant="acme")) == [(roads, 2)]
    drain(pool, settings, open_storage(settings.resolved_storage_url))
    assert entries() == [(1, 2), (2, 2)]  # replaced, not added to
    [hit] = search(conn, "resurfacing", tenant="acme")
    assert (hit.document_id, hit.page, hit.version) == (roads, 2, 2)
    reprocess(conn, roads, start_from="extract")  # version 3 reuses version 2's pages and their entries
    drain(pool, settings, open_storage(settings.resolved_storage_url))
    assert entries() == [(1, 2), (2, 2)]
    assert conn.execute("SELECT version, pages_version FROM search_documents WHERE document_id = %s",
                        (roads,)).fetchone() == (3, 2)


@pytest.mark.parametrize("ranked", [1, 2, 500])
def test_both_ways_of_finding_the_candidates_rank_the_same_newest_matches(
    conn: psycopg.Connection[Any], indexed: dict[str, int], monkeypatch: pytest.MonkeyPatch, ranked: int
) -> None:
    """Through the words' index (every match) or newest document first (stopping at RANKED), and with
    every fallback between them, a search gives the same answer: the newest RANKED matching pages
    that pass the filters, ranked (the pages' hits: the fields' are found through their own index)."""
    from tenderflow.pipeline import search as module

    monkeypatch.setattr(module, "RANKED", ranked)
    cases: list[tuple[str, str | None, SearchFilters]] = [
        ("bridge", "acme", SearchFilters()), ("bridge", None, SearchFilters()), ("roads", None, SearchFilters()),
        ("bridge or cleaning", "acme", SearchFilters(cpv_prefix="9091")), ('"bridge deck"', "acme", SearchFilters()),
        ("bridge -roads", "acme", SearchFilters()), ("voiries", "acme", SearchFilters()),
    ]
    answers = {}
    for way, threshold in (("index", 10**6), ("newest first, then every fallback", 1)):
        monkeypatch.setattr(module, "_MIN_THRESHOLD", threshold)
        answers[way] = [found([hit for hit in search(conn, query, tenant=tenant, filters=filters) if hit.field is None])
                        for query, tenant, filters in cases]
    assert answers["index"] == answers["newest first, then every fallback"]
    if ranked == 1:  # the newest matching page alone is ranked: the bridge's, uploaded after the roads
        assert answers["index"][0] == [(indexed["bridge"], 1)]
        # The filters apply before the cap: of the roads notice (CPV 9091), its first matching page.
        assert answers["index"][3] == [(indexed["roads"], 1)]
    else:
        assert answers["index"][0] == [(indexed["bridge"], 1), (indexed["roads"], 2)]
        newest = {(indexed["globex-roads"], 1), (indexed["bridge"], 1), (indexed["roads"], 2)}
        if ranked == 2:  # of every tenant's: the two newest
            newest.remove((indexed["roads"], 2))
        assert set(answers["index"][1]) == newest


def extracted_buyer(conn: psycopg.Connection[Any], document_id: int, name: str) -> None:
    """The buyer's name of the document's readable version as `name`, indexed again as the extract commit
    indexes a promoted version. A name as extracted need not be on any page as written: a model expands
    "KCC" to "Kilbrook County Council", OCR garbles a letterhead a model still reads."""
    from tenderflow.pipeline.search import index_for_search

    with conn.transaction():
        conn.execute("""UPDATE extractions e SET fields = jsonb_set(e.fields, '{buyer,name,value}', to_jsonb(%s::text))
                          FROM documents d
                         WHERE d.id = %s AND e.document_id = d.id AND e.version = d.current_version""",
                     (name, document_id))
        index_for_search(conn, [document_id])


def test_a_word_only_in_an_extracted_field_finds_the_document_with_the_field_named(
    conn: psycopg.Connection[Any], indexed: dict[str, int]
) -> None:
    roads = indexed["roads"]
    assert search(conn, "zeewolde") == []
    extracted_buyer(conn, roads, "Gemeente Zeewolde Harbour Authority")
    assert not conn.execute("SELECT 1 FROM pages WHERE text ILIKE '%%zeewolde%%'").fetchone()  # on no page
    [hit] = search(conn, "zeewolde", tenant="acme")
    assert (hit.document_id, hit.field, hit.page, hit.version) == (roads, "buyer_name", 1, 1)
    assert hit.snippet == "Gemeente Zeewolde Harbour Authority"
    assert [hit.snippet[start:end] for start, end in hit.highlights] == ["Zeewolde"]
    assert search(conn, "zeewolde", tenant="globex") == []  # a tenant sees only its own
    assert search(conn, "zeewolde", tenant="acme", filters=SearchFilters(cpv_prefix="4523")) == []  # filtered
    assert [h.field for h in search(conn, "zeewolde", filters=SearchFilters(buyer="zeewolde"))] == ["buyer_name"]
    # The title and the reference number are fields too, found by their stems.
    [by_reference] = search(conn, "EH-2026-0417", tenant="acme")[:1]
    assert (by_reference.document_id, by_reference.field) == (roads, "reference_number")


def test_a_field_hit_ranks_above_the_same_words_in_running_text(
    conn: psycopg.Connection[Any], indexed: dict[str, int]
) -> None:
    """The notice's page 1 says "Title: Cleaning services for municipal buildings", which is its title:
    the title (weight A) comes first, its page (weight D) after it."""
    hits = search(conn, "cleaning services", tenant="acme")
    assert [(hit.document_id, hit.page, hit.field) for hit in hits] == [
        (indexed["roads"], 1, "title"), (indexed["roads"], 1, None)]
    assert hits[0].rank > hits[1].rank
    assert hits[0].snippet == "Cleaning services for municipal buildings"
    assert [hits[0].snippet[start:end] for start, end in hits[0].highlights] == ["Cleaning", "services"]
    assert search(conn, '"services cleaning"', tenant="acme") == []  # a phrase in a field is a phrase


def test_the_fields_search_reads_its_index(conn: psycopg.Connection[Any], indexed: dict[str, int]) -> None:
    """The fields' statement is found through the GIN index of search_documents (the benchmark's
    query path stays index-driven), under the settings search() gives it."""
    from tenderflow.pipeline.search import QUERIES

    params = {"query": "cleaning", "tenant": "acme", "state": None, "deadline_after": None, "deadline_before": None,
              "cpv": None, "buyer": None, "cap": 500, "limit": 20}
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        [(plan,)] = conn.execute("EXPLAIN (FORMAT JSON) " + QUERIES["search_fields"], params, prepare=False).fetchall()

    def nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
        yield node
        for child in node.get("Plans", []):
            yield from nodes(child)

    scans = [(node["Node Type"], node.get("Index Name")) for node in nodes(plan[0]["Plan"])
             if node.get("Relation Name") == "search_documents"
             or node.get("Index Name", "").startswith("search_documents")]
    assert ("Bitmap Index Scan", "search_documents_fields_idx") in scans, scans
    assert not any(kind == "Seq Scan" for kind, _ in scans), scans


def test_search_filtered_by_state_through_the_cli_and_the_api(
    cli_env: dict[str, str], api: RunningApi, conn: psycopg.Connection[Any], indexed: dict[str, int]
) -> None:
    """The state is the latest version's: a document being processed again is still found by its readable
    version's words, and the state filter tells the two apart."""
    from tenderflow.pipeline.reprocess import reprocess

    reprocess(conn, indexed["bridge"], start_from="ocr")  # its latest version is queued; version 1 is still read

    def by_cli(*options: str) -> set[tuple[int, str]]:
        result = CliRunner().invoke(app, ["search", "bridge", "--tenant", "acme", "--json", *options], env=cli_env)
        assert result.exit_code == 0, result.output
        return {(hit["document_id"], hit["state"]) for hit in json.loads(result.stdout)}

    key = create_api_key(conn, "acme", name="state").key

    def by_api(**params: str) -> set[tuple[int, str]]:
        answer = api.client.get("/v1/search", params={"q": "bridge", **params}, headers=bearer(key))
        assert answer.status_code == 200, answer.text
        return {(hit["document_id"], hit["state"]) for hit in answer.json()["results"]}

    everything = {(indexed["bridge"], "queued"), (indexed["roads"], "done")}
    assert by_cli() == by_api() == everything
    assert by_cli("--state", "done") == by_api(state="done") == {(indexed["roads"], "done")}
    assert by_cli("--state", "queued") == by_api(state="queued") == {(indexed["bridge"], "queued")}
    assert by_cli("--state", "failed") == by_api(state="failed") == set()
    assert api.client.get("/v1/search", params={"q": "bridge", "state": "lost"}, headers=bearer(key)).status_code == 422
    refused = CliRunner().invoke(app, ["search", "bridge", "--state", "lost"], env=cli_env)
    assert refused.exit_code == 2


def test_a_word_only_in_an_extracted_field_is_found_through_the_cli_and_the_api(
    cli_env: dict[str, str], api: RunningApi, conn: psycopg.Connection[Any], indexed: dict[str, int]
) -> None:
    extracted_buyer(conn, indexed["roads"], "Gemeente Zeewolde Harbour Authority")
    result = CliRunner().invoke(app, ["search", "zeewolde", "--json"], env=cli_env)
    assert result.exit_code == 0, result.output
    [hit] = json.loads(result.stdout)
    assert (hit["document_id"], hit["page"], hit["field"], hit["snippet"]) == (
        indexed["roads"], 1, "buyer_name", "Gemeente Zeewolde Harbour Authority")
    piped = CliRunner().invoke(app, ["search", "zeewolde"], env=cli_env)
    lines = [line.split("\t") for line in piped.stdout.splitlines()]
    assert lines[0][:3] == ["document_id", "page", "field"] and lines[1][:3] == [str(indexed["roads"]), "1",
                                                                                 "buyer_name"]
    for tenant, expected in (("acme", [(indexed["roads"], 1, "buyer_name")]), ("globex", [])):
        key = create_api_key(conn, tenant, name="fields").key
        answer = api.client.get("/v1/search", params={"q": "zeewolde"}, headers=bearer(key))
        assert answer.status_code == 200, answer.text
        results = answer.json()["results"]
        assert [(r["document_id"], r["page"], r["field"]) for r in results] == expected
    page_hit = api.client.get("/v1/search", params={"q": "resurfacing"}, headers=bearer(key)).json()["results"]
    assert [r["field"] for r in page_hit] == [None]  # a page's hit names no field
