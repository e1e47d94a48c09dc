"""Snapshot tests of the dashboard (pytest-textual-snapshot): real fixture narrow and wide, handoff banner.

The clock is frozen and the app reads the file once (``follow=False``) so the
pictures are deterministic. Update with ``pytest --snapshot-update`` after
looking at the new SVGs.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

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


def _fixture_in(project: Path) -> Path:
    """The real fixture, read from a scratch project (the memory model writes .ctx/ there;
    the shared fixture folder is read-only and its absolute path differs between machines)."""
    source = fixture(CLAUDE_COMPACTED)
    path = project / source.name
    path.write_bytes(source.read_bytes())
    return path


def test_main_screen_80x24(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(_app(_fixture_in(tmp_path), tmp_path), terminal_size=(80, 24), run_before=_loaded)


def test_main_screen_160x48(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(_app(_fixture_in(tmp_path), tmp_path), terminal_size=(160, 48), run_before=_loaded)


def test_handoff_banner(snap_compare, tmp_path: Path) -> None:
    """The whole demo session ends at ~86% of the window: the banner suggests `h`."""
    transcript = prepare_demo_project(tmp_path)
    transcript.write_text(demo_transcript(), encoding="utf-8")
    assert snap_compare(_app(transcript, tmp_path), terminal_size=(100, 30), run_before=_loaded)
