"""The layers of docs/architecture.md hold: import-linter's contracts in pyproject.toml (layers, a
generic queue, remote workers and the stages with no database code, no import circles) are checked
on the real tree, and so are the sizes issue 25 set for modules and functions."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 80


def test_the_import_contracts_are_kept() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint_imports), "--config", str(ROOT / "pyproject.toml")], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout and "5 kept" in result.stdout


def test_every_error_is_drawn_in_the_tree_with_its_status() -> None:
    """errors.py's docstring is the one map of the exceptions; a class missing from it fails here."""
    import importlib
    import pkgutil

    import tenderflow
    from tenderflow import errors

    for module in pkgutil.walk_packages(tenderflow.__path__, "tenderflow."):
        if module.name != "tenderflow.__main__":
            importlib.import_module(module.name)
    seen: set[type[errors.TenderflowError]] = set()
    pending: list[type[errors.TenderflowError]] = [errors.TenderflowError]
    while pending:
        kind = pending.pop()
        seen.add(kind)
        pending.extend(sub for sub in kind.__subclasses__() if sub not in seen)
    doc = errors.__doc__ or ""
    missing = sorted(kind.__name__ for kind in seen
                     if kind.__module__.startswith("tenderflow.") and not kind.__name__.startswith("_")
                     and kind.__name__.removesuffix("Error").removeprefix("Extraction") not in doc)
    assert not missing, f"not drawn in tenderflow/errors.py: {missing}"
    assert all(100 <= kind.http_status < 600 for kind in seen)


def test_the_command_line_imports_no_heavy_part_it_does_not_need_to_start() -> None:
    """Every `tenderflow` process imports the CLI, and a worker restarted by its orchestrator pays
    that again each time (the chaos run kills one every 2 s): the demo's sample generator (reportlab),
    the LLM client and the offline extractor's tables are imported only by what uses them."""
    probe = ("import sys, tenderflow.cli; print(sorted({m.split('.')[0] for m in sys.modules}"
             " & {'reportlab', 'openai', 'babel', 'phonenumbers'}))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_no_module_or_function_in_the_package_is_too_long_to_read_whole() -> None:
    """Issue 25: no module over 800 lines and no function over 80 in tenderflow/. A function's length
    runs from its `def` line to its last line (decorators not counted), nested functions counted apart."""
    too_long: list[str] = []
    for path in sorted((ROOT / "tenderflow").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT).as_posix()
        lines = len(source.splitlines())
        if lines > MAX_MODULE_LINES:
            too_long.append(f"{name}: {lines} lines")
        for node in ast.walk(ast.parse(source, filename=name)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{name}:{node.lineno} {node.name}: {length} lines")
    assert not too_long, f"over {MAX_MODULE_LINES} lines a module or {MAX_FUNCTION_LINES} a function: {too_long}"
