"""The core never imports Textual: only ctx_tui.ui (and the dashboard command that starts it) may."""

import ast
from pathlib import Path

import ctx_tui

PACKAGE = Path(ctx_tui.__file__).parent
UI_ALLOWED = {PACKAGE / "ui", PACKAGE / "cli" / "dashboard_cmd.py"}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _is_ui(path: Path) -> bool:
    return any(path == allowed or allowed in path.parents for allowed in UI_ALLOWED)


def test_core_modules_do_not_import_textual() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if _is_ui(path):
            continue
        if any(name == "textual" or name.startswith("textual.") for name in _imports(path)):
            offenders.append(str(path.relative_to(PACKAGE)))
    assert not offenders, f"core modules import Textual: {offenders}"


def test_dashboard_command_imports_ui_lazily() -> None:
    """The headless commands must start without loading Textual."""
    import subprocess
    import sys

    code = "import sys, ctx_tui.cli; ctx_tui.cli.build_parser(); print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
