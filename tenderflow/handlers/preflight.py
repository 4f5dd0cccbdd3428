"""What a worker needs before it claims a job, checked once at start (and by `tenderflow doctor`).

Without these checks a missing tesseract, language pack or storage was found job by job, each
failing five times before its document failed. A worker now refuses to start, with one line per
missing thing; `tenderflow doctor` prints every check, passed or not.

    OCR pool      poppler (pdfinfo, pdftotext, pdftoppm), tesseract; the language packs the settings
                  name plus osd; the tool sandbox starts; the object storage (a local worker reads
                  PDFs from it)
    extract pool  the LLM endpoint answers, and takes the key (when an LLM is configured); a local
                  one (which also sends webhooks) reads TENDERFLOW_WEBHOOK_ALLOW_NETWORKS
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from tenderflow.config import Settings
from tenderflow.errors import ConfigurationError
from tenderflow.pdf import languages as ocr_languages
from tenderflow.pipeline.storage import ObjectStorage
from tenderflow.stages.contract import Pool

OCR_PROGRAMS = ("pdfinfo", "pdftotext", "pdftoppm", "tesseract")
LLM_CHECK_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    warning: bool = False
    """Passed, but something a person should know (a recommended language pack missing): doctor says
    'warn' and still exits 0; a worker starts."""


def check_programs(programs: Sequence[str] = OCR_PROGRAMS) -> list[Check]:
    checks = []
    for program in programs:
        found = shutil.which(program)
        checks.append(Check(f"program {program}", found is not None,
                            found or f"{program} is not installed or not on PATH (see docs/install.md)"))
    return checks


def check_language_packs(settings: Settings) -> Check:
    """The packs the settings name (the fallback languages) and osd (orientation) are installed."""
    try:
        installed = ocr_languages.installed_languages()
    except ConfigurationError as exc:
        return Check("tesseract language packs", False, str(exc))
    wanted = [name for name in settings.ocr_languages.split("+")]
    missing = [name for name in wanted if name not in installed]
    if shutil.which("tesseract") is not None and not _has_osd():
        missing.append("osd")
    if missing:
        return Check("tesseract language packs", False,
                     f"missing {', '.join(missing)} (apt-get install tesseract-ocr-<name>); installed: "
                     f"{', '.join(sorted(installed)) or 'none'}")
    unread = [name for name in ocr_languages.RECOMMENDED_PACKS if name != "osd" and name not in installed]
    if unread:
        return Check("tesseract language packs", True, warning=True, detail=(
            f"{len(installed)} installed; missing {len(unread)} of the recommended: {', '.join(unread)}. Scanned "
            f"pages in those languages are read as {settings.ocr_languages} (a document's `show` says so): "
            f"`make runtime-deps`, or apt-get install "
            + " ".join(f"tesseract-ocr-{name.replace('_', '-')}" for name in unread)))
    return Check("tesseract language packs", True, f"{len(installed)} installed: {', '.join(sorted(installed))}")


def _has_osd() -> bool:
    from tenderflow.pdf.tools import run_tool

    result = run_tool(["tesseract", "--list-langs"], timeout_seconds=30, memory_bytes=1024**3)
    return "osd" in result.stdout.decode("utf-8", errors="replace").split()


POPPLER_DATA = Path("/usr/share/poppler/cMap")
"""Where Debian's poppler-data puts the CJK character maps (poppler looks there)."""


def check_cjk_fonts(poppler_data: Path = POPPLER_DATA) -> Check:
    """A PDF whose Chinese, Japanese or Korean font is not embedded needs poppler's character maps to have
    a text layer, and a CJK font to be drawn for OCR: without them it reads as blank. A warning."""
    from tenderflow.pdf.tools import run_tool

    missing = [] if poppler_data.is_dir() else ["poppler-data"]
    if shutil.which("fc-list") is not None:
        listed = run_tool(["fc-list", ":lang=ja"], timeout_seconds=30, memory_bytes=1024**3)
        if not listed.stdout.strip():
            missing.append("a CJK font (fonts-wqy-microhei)")
    if missing:
        return Check("CJK fonts", True, warning=True, detail=(
            f"missing {' and '.join(missing)}: a PDF whose Chinese, Japanese or Korean fonts are not embedded "
            "has no text layer and renders blank (`make runtime-deps`, or apt-get install poppler-data "
            "fonts-wqy-microhei)"))
    return Check("CJK fonts", True, "poppler's CJK character maps and a CJK font are installed")


def check_sandbox() -> Check:
    """The tool sandbox (the process that starts every tool run with its limits) starts, with the OCR
    libraries (pytesseract, pdf2image) imported."""
    from tenderflow.pdf import tools

    try:
        tools.warm_up()
    except ConfigurationError as exc:
        return Check("tool sandbox", False, str(exc))
    return Check("tool sandbox", True, "starts; tools run in their own process groups under the memory limit")


def check_storage(storage: ObjectStorage) -> Check:
    """The storage answers: a lookup of an object that does not exist (read access, no write)."""
    probe = f"preflight/{uuid.uuid4().hex}"
    try:
        storage.exists(probe)
    except Exception as exc:  # any client or network error: the worker could not read a PDF either
        return Check("object storage", False, f"{storage.description} does not answer: {type(exc).__name__}: {exc}")
    return Check("object storage", True, storage.description)


def check_llm(settings: Settings) -> Check:
    """With an LLM configured: its endpoint answers within seconds and does not refuse the key."""
    if not settings.uses_llm:
        return Check("extraction backend", True, "the offline rules extractor (no LLM configured)")
    base = (settings.llm_base_url or "https://api.openai.com/v1").rstrip("/")
    headers = {"Authorization": f"Bearer {settings.llm_api_key}"} if settings.llm_api_key else {}
    try:
        response = httpx.get(f"{base}/models", headers=headers, timeout=LLM_CHECK_TIMEOUT_SECONDS)
    except httpx.HTTPError as exc:
        return Check("LLM endpoint", False, f"{base} cannot be reached: {type(exc).__name__}: {exc}")
    if response.status_code in (401, 403):
        return Check("LLM endpoint", False, f"{base} refused the API key (HTTP {response.status_code})")
    return Check("LLM endpoint", True, f"{base} answers (HTTP {response.status_code}); model {settings.llm_model}")


def check_webhook_networks(settings: Settings) -> Check:
    """The operator's exceptions to the webhooks' address policy can be read."""
    from tenderflow.webhooks.addresses import AddressPolicy

    try:
        policy = AddressPolicy.from_setting(settings.webhook_allow_networks)
    except ValueError as exc:
        return Check("webhook networks", False, str(exc))
    allowed = ", ".join(str(network) for network in policy.allowed)
    return Check("webhook networks", True, f"public addresses{', and ' + allowed if allowed else ' only'}")


def preflight(settings: Settings, pool: Pool, storage: ObjectStorage | None) -> list[Check]:
    """The checks for a worker of `pool` (storage None: a remote worker, which reads over HTTP)."""
    checks: list[Check] = []
    if pool in (Pool.OCR, Pool.ALL):
        checks += check_programs()
        checks.append(check_language_packs(settings))
        checks.append(check_cjk_fonts())
        checks.append(check_sandbox())
        if storage is not None:
            checks.append(check_storage(storage))
    if pool in (Pool.EXTRACT, Pool.ALL):
        checks.append(check_llm(settings))
        if storage is not None:
            checks.append(check_webhook_networks(settings))
    return checks
