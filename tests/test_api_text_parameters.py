"""Text parameters of the API (review security-2, D-N4 and N5): NUL and the other control characters
are refused with 400 in every text parameter of every route, by one validator applied by type
(tenderflow.texts.Line); a request body's unknown key is a 422, not silently ignored.

The first test reads the application's routes and fails for any text parameter or body field that
is not a Line, so a route added later cannot forget it; the others send the review's requests and a
control character in every query and path text of every route to the real API."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.routing import APIRoute
from pydantic import BaseModel

from tenderflow.api.app import create_app
from tenderflow.api.worker_tokens import create_token
from tenderflow.config import Settings
from tenderflow.texts import Line
from tests.support.api_harness import ADMIN_TOKEN, RunningApi, api_settings, bearer, serve_in_thread, tenant_with_key

Conn = psycopg.Connection[Any]
_LINE_VALIDATORS = typing.get_args(Line)[1:]
FREE_TEXT = {
    ("POST", "/v1/worker/jobs/{job_id}/fail", "body.error"): "a remote worker's error report: a diagnostic of "
    "several lines, cleaned of NUL and control characters where it is stored (queue.jobs.sanitize_error)",
    ("POST", "/v1/worker/jobs/{job_id}/complete", "body.result"): "a stage's result, read by the stage's own "
    "result model (page text keeps its line breaks)",
}
"""Text that is not one line, and why."""


def _routes(routes: list[Any]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):  # an included router, as FastAPI keeps it
            yield from _routes(route.original_router.routes)


def _line(annotation: Any, metadata: list[Any]) -> bool | None:
    """Whether a parameter or field of this annotation (and metadata) is a Line; None: not text."""
    if annotation is str:
        return any(item in _LINE_VALIDATORS for item in metadata)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *more = typing.get_args(annotation)
        return _line(inner, [*more, *metadata])
    if origin in (typing.Union, types.UnionType, list, tuple):
        found = [line for line in (_line(argument, []) for argument in typing.get_args(annotation)) if line is not None]
        return all(found) if found else None
    return None  # ints, dates, Literal choices, enums, dicts (JSON objects read by their own models)


def _models(annotation: Any) -> list[type[BaseModel]]:
    found = [annotation] if isinstance(annotation, type) and issubclass(annotation, BaseModel) else []
    for argument in typing.get_args(annotation):
        found += _models(argument)
    return found


def _body_fields(model: type[BaseModel], prefix: str) -> Iterator[tuple[str, Any]]:
    for name, info in model.model_fields.items():
        yield f"{prefix}{name}", info
        for inner in _models(info.annotation):
            yield from _body_fields(inner, f"{prefix}{name}.")


def text_parameters(app: Any) -> Iterator[tuple[str, str, str, str, bool]]:
    """(method, path, where, name, is a Line) for every text parameter and body field of every route."""
    for route in _routes(app.routes):
        dependants = [route.dependant]
        while dependants:
            dependant = dependants.pop()
            dependants.extend(dependant.dependencies)
            for where in ("path", "query", "cookie", "body"):
                for param in getattr(dependant, f"{where}_params"):
                    info = param.field_info
                    found = [(param.name, _line(info.annotation, list(info.metadata)))]
                    for model in _models(info.annotation):
                        found += [(name, _line(field.annotation, list(field.metadata)))
                                  for name, field in _body_fields(model, "body.")]
                    for method in sorted(route.methods):
                        for name, line in found:
                            if line is not None:
                                yield method, route.path, where, name, line


@pytest.fixture(scope="module")
def app() -> Any:
    return create_app(Settings(database_url="postgresql://nobody@127.0.0.1/nothing", admin_token="t" * 30))


def test_d_n4_every_text_parameter_of_every_route_is_a_line(app: Any) -> None:
    """D-N4: list and search filters, a watch's source… each route checked NUL its own way, or not at
    all. Every text a route reads is now a Line: this fails for one that is not (unless listed in
    FREE_TEXT with its reason)."""
    found = list(text_parameters(app))
    assert len(found) > 20, found
    plain = [(method, path, where, name) for method, path, where, name, line in found
             if not line and (method, path, name) not in FREE_TEXT]
    assert plain == []


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return api_settings(database_url, tmp_path, watch_roots=f"{tmp_path / 'inbox' / '{tenant}'}")


@pytest.fixture
def api(settings: Settings) -> Iterator[RunningApi]:
    with serve_in_thread(settings) as running:
        yield running


def test_d_n4_the_reviews_nul_parameters_are_400_and_store_nothing(
    api: RunningApi, conn: Conn, tmp_path: Path
) -> None:
    """D-N4, the review's I6: these three answered 500 (psycopg's DataError, os.path's ValueError)."""
    alpha = tenant_with_key(conn, "alpha")
    (tmp_path / "inbox" / "alpha").mkdir(parents=True)
    listed = api.client.get("/v1/documents", headers=bearer(alpha), params={"filename": "\x00"})
    assert listed.status_code == 400 and "filename (query)" in listed.json()["detail"], listed.text
    assert "control character" in listed.json()["detail"]
    searched = api.client.get("/v1/search", headers=bearer(alpha), params={"q": "road", "buyer": "\x00"})
    assert searched.status_code == 400, searched.text
    watched = api.client.post("/v1/watches", headers=bearer(alpha),
                              json={"source": str(tmp_path / "inbox" / "alpha") + "/\x00x"})
    assert watched.status_code == 400 and "source (body)" in watched.json()["detail"], watched.text
    escape = api.client.post("/v1/webhooks", headers=bearer(alpha),
                             json={"url": "https://example.com/\x1b[2J", "description": "x"})
    assert escape.status_code == 400, escape.text
    assert conn.execute("SELECT (SELECT count(*) FROM watches) + (SELECT count(*) FROM webhook_endpoints)"
                        ).fetchone() == (0,)


_VALID = {"q": "road", "attempt": "1", "format": "csv"}
"""Values for the parameters a route needs, besides the one under test."""


def test_d_n4_a_control_character_in_any_query_or_path_text_of_any_route_is_a_400(
    app: Any, api: RunningApi, conn: Conn
) -> None:
    """D-N4: every route's every query and path text, with a NUL and with an escape, answers 400."""
    alpha = tenant_with_key(conn, "alpha")
    worker = create_token(conn, "scanner", ["ocr"]).raw
    assert api.client.post("/dashboard/login", data={"token": ADMIN_TOKEN}).status_code == 303
    answers = {}
    for method, path, where, name, _ in text_parameters(app):
        if where not in ("query", "path"):
            continue
        if path.startswith("/v1/worker"):
            headers = {**bearer(worker), "X-Tenderflow-Worker": "pc:1:abcdef"}
        elif path.startswith(("/v1/schedules", "/v1/tenants", "/metrics")):
            headers = bearer(ADMIN_TOKEN)
        elif path.startswith("/v1/"):
            headers = bearer(alpha)
        else:
            headers = {}  # the dashboard: the session cookie
        for bad in ("\x00", "\x1b"):
            url = path
            for segment in [part[1:-1] for part in path.split("/") if part.startswith("{")]:
                url = url.replace("{" + segment + "}", f"%{ord(bad):02X}" if segment == name else "1")
            params = {key: value for key, value in _VALID.items() if key != name}
            if where == "query":
                params[name] = bad
            answer = api.client.request(method, url, headers=headers, params=params, follow_redirects=False)
            answers[(method, path, name, repr(bad))] = answer.status_code
    assert len(answers) > 20
    assert {key: code for key, code in answers.items() if code != 400} == {}


def test_n5_a_request_body_with_a_key_the_route_does_not_know_is_a_422(
    api: RunningApi, conn: Conn, tmp_path: Path
) -> None:
    """N5: PATCH /v1/watches/1 {"source": …} answered 200 with the source unchanged, and a reprocess
    with unknown keys went ahead."""
    alpha = tenant_with_key(conn, "alpha")
    (tmp_path / "inbox" / "alpha").mkdir(parents=True)
    made = api.client.post("/v1/watches", headers=bearer(alpha), json={"source": str(tmp_path / "inbox" / "alpha")})
    assert made.status_code == 201, made.text
    watch = made.json()["id"]
    moved = api.client.patch(f"/v1/watches/{watch}", headers=bearer(alpha), json={"source": "/etc"})
    assert moved.status_code == 422 and "source (body)" in moved.json()["detail"], moved.text
    typo = api.client.post("/v1/webhooks", headers=bearer(alpha), json={"url": "https://example.com", "event": []})
    assert typo.status_code == 422, typo.text
    reprocess = api.client.post("/v1/documents/1/reprocess", headers=bearer(alpha), json={"start": "extract"})
    assert reprocess.status_code == 422, reprocess.text
    schedule = api.client.patch(f"/v1/schedules/watch:{watch}", headers=bearer(ADMIN_TOKEN), json={"pause": True})
    assert schedule.status_code == 422, schedule.text
