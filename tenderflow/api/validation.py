"""A request FastAPI could not read (a value outside its choices, a missing field, bad JSON), said in
plain words: 422 with a `detail` such as "start_from (body): must be one of: ocr, extract (got
'pages')", and the same per field in `errors`, instead of pydantic's list of error objects.

A text parameter holding a control character (tenderflow.texts.Line, the type of every text
parameter of every route) answers 400 the same way: it is bad input, not a request of the wrong
shape (review security-2, D-N4). `RequestBody` is the base of the request bodies: an unknown key
is refused (422), never silently ignored (N5).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from fastapi import Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from tenderflow.texts import CONTROL_CHARACTER_ERROR

_WHERE: Final = {"body", "query", "path", "header", "cookie"}
_QUOTED: Final = re.compile(r"'([^']*)'")
_INPUT_SHOWN_CHARS: Final = 60


class FieldProblem(BaseModel):
    field: str = Field(description="The field, parameter or header, dotted for a nested one (lots.0.title).")
    source: str = Field(description="Where it was: body, query, path, header or cookie.")
    problem: str = Field(description="What is wrong with it, in words: 'must be one of: ocr, extract (got …)'.")


class ValidationProblem(BaseModel):
    """The answer to a request whose parameters or body do not fit the route (422)."""

    detail: str = Field(description="Every problem in one sentence, for a person.")
    errors: list[FieldProblem]


def field_problem(error: dict[str, Any]) -> FieldProblem:
    """One of pydantic's errors (`RequestValidationError.errors()`) in words."""
    loc = [str(part) for part in error.get("loc", ())]
    source = loc.pop(0) if loc and loc[0] in _WHERE else "body"
    kind, context = str(error.get("type", "")), error.get("ctx") or {}
    if kind in ("literal_error", "enum") and "expected" in context:
        choices = _QUOTED.findall(str(context["expected"])) or [str(context["expected"])]
        problem = f"must be one of: {', '.join(choices)} (got {_shown(error.get('input'))})"
    elif kind == "missing":
        problem = "is required"
    elif kind == "json_invalid":
        problem = f"is not valid JSON ({context.get('error', 'cannot be parsed')})"
        loc = []  # the position in the text, not a field
    else:
        message = str(error.get("msg", "is not valid"))
        problem = re.sub(r"^Input should", "should", message)
        problem = problem[:1].lower() + problem[1:]
    return FieldProblem(field=".".join(loc) or f"the {source}", source=source, problem=problem)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _INPUT_SHOWN_CHARS else text[:_INPUT_SHOWN_CHARS] + "…"


def validation_problem(errors: Sequence[dict[str, Any]]) -> ValidationProblem:
    problems = [field_problem(error) for error in errors]
    return ValidationProblem(detail="; ".join(f"{p.field} ({p.source}): {p.problem}" for p in problems)
                             or "the request is not valid", errors=problems)


class RequestBody(BaseModel):
    """The base of every request body: a key the model does not know is refused (422)."""

    model_config = ConfigDict(extra="forbid")


def validation_error(request: Request, exc: Exception) -> JSONResponse:
    """The application's handler of RequestValidationError: 400 when a text holds a control
    character, else 422."""
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    refused = any(error.get("type") == CONTROL_CHARACTER_ERROR for error in errors)
    return JSONResponse(validation_problem(errors).model_dump(),
                        status_code=status.HTTP_400_BAD_REQUEST if refused else status.HTTP_422_UNPROCESSABLE_CONTENT)


def document_validation_answers(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (the app's OpenAPI document) with its 422 answers described as they are sent:
    FastAPI declares them as pydantic's error list (HTTPValidationError) on every route."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    problem = ValidationProblem.model_json_schema(ref_template="#/components/schemas/{model}")
    components.update(problem.pop("$defs", {}))
    components["HTTPValidationError"] = {**problem, "title": "HTTPValidationError"}
    components.pop("ValidationError", None)
    return schema
