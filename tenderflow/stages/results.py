"""What each job type's compute step returns, as pydantic models: JSON on the wire for remote
workers, validated before any commit step writes it (a remote worker's post is input like any other).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tenderflow.extraction.schema import BuyerCountry, FoundBy
from tenderflow.pdf.thumbnail import png_size


class PageLayoutRecord(BaseModel):
    """Where OCR saw each word of a page (tenderflow.pdf.tsv.page_layout), for its searchable PDF."""

    model_config = ConfigDict(extra="forbid")
    width: int = Field(gt=0, le=1_000_000)
    height: int = Field(gt=0, le=1_000_000)
    turned: Literal[0, 90, 180, 270] = 0
    words: list[tuple[int, int, int, int, str]] = Field(default_factory=list, max_length=200_000)


class PageRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")
    number: int = Field(gt=0)
    text: str = Field(max_length=2_000_000)
    source: Literal["text_layer", "ocr"]
    confidence: float | None = Field(default=None, ge=0, le=100)
    rotation: int = 0
    seconds: float = Field(ge=0)
    layout: PageLayoutRecord | None = None


class LanguagesRecord(BaseModel):
    """The languages the plan chose for the version's OCR, and why (tenderflow.pdf.languages)."""

    model_config = ConfigDict(extra="forbid")
    languages: str = Field(max_length=200, pattern=r"^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*$")
    language: str | None = Field(default=None, max_length=20)
    source: Literal["upload", "tenant", "settings", "text_layer", "first_pass", "fallback"]
    script: str | None = Field(default=None, max_length=40)
    confidence: float | None = Field(default=None, ge=0, le=1)


class OcrPlanResult(BaseModel):
    """The page count, the pages whose text layer is usable (read in the plan step already), the
    pages that must be rendered and OCRed, and the languages they are read with (None: a worker
    from before languages were chosen; the pages jobs then use their own settings)."""

    model_config = ConfigDict(extra="forbid")
    page_count: int = Field(gt=0)
    text_pages: list[PageRecord] = []
    ocr_pages: list[int] = []
    languages: LanguagesRecord | None = None


class OcrPagesResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pages: list[PageRecord]


class ExtractResult(BaseModel):
    """The extraction as stored: fields (the tender schema), flags, backend, usage, the buyer's country
    with its time zone and evidence (none from a remote worker older than it), and which extractor
    found each field (by its path; empty from a worker older than that)."""

    model_config = ConfigDict(extra="forbid")
    fields: dict[str, Any]
    flags: list[str] = []
    backend: str
    model: str | None = None
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    confidence: dict[str, float] = Field(default_factory=dict, max_length=40)
    rules: dict[str, str] = Field(default_factory=dict, max_length=40)
    candidates: dict[str, dict[str, Any]] = Field(default_factory=dict, max_length=40)
    country: BuyerCountry | None = None
    found_by: dict[str, FoundBy] = Field(default_factory=dict, max_length=40)


class ThumbnailResult(BaseModel):
    """A version's first-page picture: a PNG (base64, so that it travels as JSON) and its size."""

    model_config = ConfigDict(extra="forbid")
    page: int = Field(gt=0)
    png_base64: str = Field(max_length=1_400_000)
    width: int = Field(ge=1, le=2000)
    height: int = Field(ge=1, le=2000)

    @property
    def png(self) -> bytes:
        return base64.b64decode(self.png_base64)

    @model_validator(mode="after")
    def _is_the_png_it_says(self) -> ThumbnailResult:
        try:
            png = base64.b64decode(self.png_base64, validate=True)
        except binascii.Error as error:
            raise ValueError("png_base64 is not base64") from error
        if (self.width, self.height) != png_size(png):
            raise ValueError(f"the PNG is {png_size(png)}, not ({self.width}, {self.height}) as said")
        return self
