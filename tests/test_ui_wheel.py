"""The wheel ships the dashboard's styles and demo, and the app finds them when installed.

Builds the wheel from a copy of the sources (so no build/ or egg-info lands in
the work tree), installs it into a fresh venv (no system site-packages) and
runs the dashboard headless from outside the repository. The third-party
dependencies are not downloaded again: a ``.pth`` file lets the fresh venv see
the test interpreter's site-packages (after its own, so ``ctx_tui`` can only
come from the wheel). Installing them for real takes 35–50 s instead of ~6.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CHECK = r"""
import asyncio, sys, tempfile
from pathlib import Path
import sysconfig
from importlib.resources import files
import ctx_tui
own = sysconfig.get_paths()["purelib"]
assert ctx_tui.__file__.startswith(own), ctx_tui.__file__
assert str(files("ctx_tui.styles") / "app.tcss").startswith(own)
from ctx_tui.config import Config
from ctx_tui.demo.project import prepare_demo_project
from ctx_tui.demo.replay import demo_transcript
from ctx_tui.ui.app import DashboardApp

async def main():
    project = Path(tempfile.mkdtemp())
    transcript = prepare_demo_project(project)
    transcript.write_text(demo_transcript(), encoding="utf-8")
    app = DashboardApp(transcript, project, Config(), follow=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        usage = app.screen.query_one("#usage")
        assert usage.styles.border_top[0] == "round", usage.styles.border_top  # from styles/app.tcss
        assert usage.has_class("-alert") and app.screen.query_one("#handoff-banner").display
    print("dashboard ok")

asyncio.run(main())
"""


def _run(cmd: list[str], cwd: Path) -> str:
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, f"{cmd[:3]} failed:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
    return out.stdout


def test_installed_wheel_runs_the_dashboard_with_its_styles(tmp_path: Path) -> None:
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip("pip is not available to the test interpreter")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "ctx_tui", src / "ctx_tui", ignore=ignore)
    shutil.copytree(ROOT / "styles", src / "styles", ignore=ignore)
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(src), "-w", str(wheels)], tmp_path)
    wheel = next(wheels.glob("ctx_tui-*.whl"))

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path).strip())
    (site / "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # The test interpreter's pip installs into the fresh venv (no ensurepip: faster).
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)], tmp_path)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    assert "dashboard ok" in _run([str(python), "-c", CHECK], outside)
    assert "ctx-tui" in _run([str(env_dir / "bin" / "ctx-tui"), "--help"], outside)
