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
