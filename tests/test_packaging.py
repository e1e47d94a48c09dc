"""Every package ships in the wheel (the list in pyproject.toml is kept by hand)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "ctx_tui").rglob("__init__.py")
    } | {"ctx_tui.styles"}
    assert found == listed, f"missing from pyproject: {found - listed}; stale: {listed - found}"


def test_every_third_party_import_is_a_declared_dependency() -> None:
    """The wheel test installs --no-deps, so this is what catches a dependency missing from pyproject."""
    import ast
    import re
    import sys
    from importlib.metadata import packages_distributions

    declared = {
        re.split(r"[<>=!~\[ ;]", dep, maxsplit=1)[0].lower().replace("_", "-")
        for dep in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    }
    dists = packages_distributions()
    missing: dict[str, str] = {}
    for path in (ROOT / "ctx_tui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top == "ctx_tui" or top in sys.stdlib_module_names:
                    continue
                owners = {d.lower().replace("_", "-") for d in dists.get(top, [top])}
                if not owners & declared:
                    missing[top] = str(path.relative_to(ROOT))
    assert not missing, f"imported but not declared in pyproject dependencies: {missing}"
