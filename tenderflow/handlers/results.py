"""What each job type's compute step returns, as pydantic models: JSON on the wire for remote
workers, validated before any commit step writes it (a remote worker's post is input like any other).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class PageRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")
    number: int = Field(gt=0)
    text: str = Field(max_length=2_000_000)
    source: Literal["text_layer", "ocr"]
    confidence: float | None = Field(default=None, ge=0, le=100)
    rotation: int = 0
    seconds: float = Field(ge=0)


class OcrPlanResult(BaseModel):
    """The page count, the pages whose text layer is usable (read in the plan step already), and
    the pages that must be rendered and OCRed."""

    model_config = ConfigDict(extra="forbid")
    page_count: int = Field(gt=0)
    text_pages: list[PageRecord] = []
    ocr_pages: list[int] = []


class OcrPagesResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pages: list[PageRecord]


class ExtractResult(BaseModel):
    """The extraction as stored: fields (the tender schema), flags, backend, usage."""

    model_config = ConfigDict(extra="forbid")
    fields: dict[str, Any]
    flags: list[str] = []
    backend: str
    model: str | None = None
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
