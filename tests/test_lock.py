"""requirements.lock (issue 12: reproducible installs): it pins every dependency pyproject.toml names,
the dev extra included, at a version pyproject allows; the Makefile's installs, the image and
`make lock` all use it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"


def locked() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in LOCK.read_text().splitlines():
        if line and not line.startswith((" ", "#")):
            requirement = Requirement(line)
            (specifier,) = requirement.specifier  # exactly one pin: name==version
            assert specifier.operator == "==", line
            pins[canonicalize_name(requirement.name)] = Version(specifier.version)
    return pins


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(text) for text in [*project["dependencies"], *project["optional-dependencies"]["dev"]]]


def test_the_lock_pins_every_declared_dependency_within_its_bounds() -> None:
    pins = locked()
    assert len(pins) > len(declared())  # the dependencies of the dependencies too
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement} is not in requirements.lock: run `make lock`"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {name}=={pins[name]}, outside pyproject's {requirement}: run `make lock`")


def test_a_dependency_missing_from_the_lock_is_caught() -> None:
    pins = locked()
    pins.pop(canonicalize_name("structlog"))
    missing = [r for r in declared() if canonicalize_name(r.name) not in pins]
    assert [r.name for r in missing] == ["structlog"]


def test_every_install_uses_the_lock() -> None:
    makefile = (ROOT / "Makefile").read_text()
    installs = re.findall(r"pip install .*", makefile)
    assert installs and all("-c requirements.lock" in line for line in installs if "-e" in line), installs
    assert re.search(r"^lock:.*\n(\t.*\n)*\t\$\(BIN\)/uv pip compile pyproject.toml --extra dev", makefile, re.M)
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"COPY .*requirements\.lock", dockerfile)
    assert re.search(r"pip install .*-c requirements\.lock \.", dockerfile)
    header = LOCK.read_text().splitlines()[1]
    assert "uv pip compile pyproject.toml --extra dev --universal --python-version 3.11" in header
