"""The layers hold and the types check: lint-imports and mypy pass, configured in pyproject.toml.

The contracts (which layer may import which, the core never importing
Textual or Rich) and the mypy settings (strict for the core, the normal
checks for ui/ and cli/) live in pyproject.toml; the layers are drawn in
docs/architecture.md. These tests run both tools and check that no module
of ``ctx_tui`` escapes the contracts.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ctx_tui"
#: The modules that render: everything else is the core.
UI_LAYERS = {"ui", "cli"}
MAX_LINES = 400


def _contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _top_level_modules() -> set[str]:
    """Every module and package directly under ctx_tui/ (styles/ is data, __main__ only starts the CLI)."""
    names = {path.stem for path in PACKAGE.glob("*.py")} | {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    return names - {"__init__", "__main__"}


def test_the_import_contracts_are_kept(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        from importlinter.cli import lint_imports
    except ModuleNotFoundError:
        pytest.fail("import-linter is missing: install the dev extra (pip install -e '.[dev]')")
    monkeypatch.chdir(ROOT)
    code = lint_imports(no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out


def test_every_module_has_a_layer() -> None:
    """A new module must be given a place in the layers (and so in the core contract)."""
    layers = next(c for c in _contracts() if c["type"] == "layers")["layers"]
    layered = {name.strip() for layer in layers for name in re.split(r"[|:]", layer)}
    missing = _top_level_modules() - layered
    assert not missing, f"modules in no layer of pyproject's [tool.importlinter] contract: {sorted(missing)}"
    assert layered <= _top_level_modules(), f"layers name modules that do not exist: {sorted(layered - _top_level_modules())}"


def test_the_core_contract_lists_every_core_module() -> None:
    core = next(c for c in _contracts() if c["type"] == "forbidden" and "textual" in c["forbidden_modules"])
    listed = {name.removeprefix("ctx_tui.") for name in core["source_modules"]}
    assert listed == _top_level_modules() - UI_LAYERS


def test_the_types_check() -> None:
    """``mypy`` with the settings in pyproject.toml: no error (a cold run takes ~15 s, a cached one ~1 s).

    In a process of its own: mypy raises the interpreter's recursion limit,
    which would change what later tests see (a deeply nested JSON file).
    """
    if importlib.util.find_spec("mypy") is None:
        pytest.fail("mypy is missing: install the dev extra (pip install -e '.[dev]')")
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_docstrings_cite_the_docs_not_the_spec() -> None:
    """Users of the repository have docs/*.md, not the original SPEC: a docstring points to a docs section."""
    cited = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"\bSPEC\b", line)
    ]
    assert not cited, f"cite docs/*.md instead of the SPEC: {cited}"


def test_a_module_over_400_lines_says_why() -> None:
    """Small modules: one over the limit says why in its docstring ("Over 400 lines: ...")."""
    long = [
        str(path.relative_to(ROOT))
        for path in sorted(PACKAGE.rglob("*.py"))
        if len(text := path.read_text(encoding="utf-8").splitlines()) > MAX_LINES
        and "Over 400 lines:" not in (ast.get_docstring(ast.parse("\n".join(text))) or "")
    ]
    assert not long, f"over {MAX_LINES} lines without a reason in the module docstring: {long}"


def test_every_type_ignore_says_why() -> None:
    """``# type: ignore[code]  # why``: an ignore names its error code and the reason on its line."""
    bare = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "type: ignore" in line and not re.search(r"# type: ignore\[[\w-]+(?:, *[\w-]+)*\] +# \S", line)
    ]
    assert not bare, f"a type: ignore without an error code and a reason: {bare}"


def test_dashboard_command_imports_ui_lazily() -> None:
    """The headless commands must start without loading Textual (a run-time fact the contracts cannot see)."""
    code = "import sys, ctx_tui.cli; ctx_tui.cli.build_parser(); print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
