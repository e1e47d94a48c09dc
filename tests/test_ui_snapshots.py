"""Snapshot tests of the dashboard (pytest-textual-snapshot): a real fixture and the demo at 80x24, 120x40, 200x60.

The clock is frozen and the app reads the file once (``follow=False``) so the
pictures are deterministic. Update with ``pytest --snapshot-update`` after
looking at the new SVGs.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from conftest import CLAUDE_COMPACTED, fixture

from ctx_tui.config import Config
from ctx_tui.demo.project import prepare_demo_project
from ctx_tui.demo.replay import demo_transcript
from ctx_tui.ui.app import DashboardApp

FROZEN = datetime(2026, 1, 7, 21, 30, 0)


def _app(path: Path, project: Path) -> DashboardApp:
    return DashboardApp(path, project, Config(), follow=False, clock=lambda: FROZEN)


async def _loaded(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()  # the footer recomposes once it turns compact (narrow)


def _fixture_in(project: Path) -> Path:
    """The real fixture, read from a scratch project (the memory model writes .ctx/ there;
    the shared fixture folder is read-only and its absolute path differs between machines)."""
    source = fixture(CLAUDE_COMPACTED)
    path = project / source.name
    path.write_bytes(source.read_bytes())
    return path


SIZES = [(80, 24), (120, 40), (200, 60)]


def _demo_in(project: Path) -> Path:
    """The whole bundled demo session: it ends at ~86% of the window, so the handoff banner shows."""
    transcript = prepare_demo_project(project)
    transcript.write_text(demo_transcript(), encoding="utf-8")
    return transcript


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_main_screen_real_fixture(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    assert snap_compare(_app(_fixture_in(tmp_path), tmp_path), terminal_size=size, run_before=_loaded)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_main_screen_demo(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    assert snap_compare(_app(_demo_in(tmp_path), tmp_path), terminal_size=size, run_before=_loaded)
