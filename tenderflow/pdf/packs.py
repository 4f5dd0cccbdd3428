"""The tesseract language packs this machine has, and whether each loads (a damaged traineddata file is
listed and then skipped with a warning). Asked once per process."""

from __future__ import annotations

import functools
import re
import tempfile
from pathlib import Path

from tenderflow.errors import ConfigurationError
from tenderflow.pdf.tools import ToolTimeoutError, run_tool

_PACK_NAME = re.compile(r"[a-z]{2,3}(?:_[a-z]{3,4})*")


@functools.cache
def installed_languages() -> frozenset[str]:
    """The language packs this machine's tesseract has (``osd`` excluded), asked once per process
    (a sandboxed call asks its server's answer, kept from its preload). Raises ConfigurationError
    when tesseract is not installed."""
    try:
        result = run_tool(["tesseract", "--list-langs"], timeout_seconds=30, memory_bytes=1024**3)
    except ToolTimeoutError as error:
        raise ConfigurationError("`tesseract --list-langs` did not answer within 30 s") from error
    if result.returncode != 0:
        raise ConfigurationError(f"`tesseract --list-langs` failed: {result.stderr_text.strip()[:200]}")
    lines = result.stdout.decode("utf-8", errors="replace").splitlines()
    return frozenset(line.strip() for line in lines[1:] if _PACK_NAME.fullmatch(line.strip())) - {"osd"}


def check_packs_load(languages: str) -> None:
    """Raise ConfigurationError naming the packs of `languages` that are listed but do not load (a damaged
    traineddata file, which tesseract would skip with a warning, reading the page in the other languages).
    Each pack is tried once per process: call it where processes live long (the worker, not a sandboxed
    call's child)."""
    broken = [name for name in languages.split("+") if name in installed_languages() and not pack_loads(name)]
    if broken:
        raise ConfigurationError(
            f"tesseract has the language packs {', '.join(broken)} but cannot load them (a damaged traineddata "
            "file): reinstall " + " ".join(f"tesseract-ocr-{name.replace('_', '-')}" for name in broken))


@functools.cache
def pack_loads(name: str) -> bool:
    """Whether tesseract loads the pack `name` (listed is not enough: a damaged traineddata file is listed
    and then skipped with a warning). Tried once per process, on a blank 16 x 16 image."""
    from PIL import Image

    with tempfile.TemporaryDirectory(prefix="tenderflow-pack-") as workdir:
        blank = Path(workdir) / "blank.png"
        Image.new("L", (16, 16), 255).save(blank)
        try:
            result = run_tool(["tesseract", str(blank), "stdout", "-l", name, "--psm", "10"],
                              timeout_seconds=60, memory_bytes=2 * 1024**3)
        except ToolTimeoutError:
            return False
    return result.returncode == 0 and "Failed loading language" not in result.stderr_text
