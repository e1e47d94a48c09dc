"""The session picker screen (s): lists, filters by typing, Enter switches the followed session in place."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from catalog_support import make_sessions

from ctx_tui.config import Config
from ctx_tui.ui.app import DashboardApp
from ctx_tui.ui.screens.dashboard import DashboardScreen
from ctx_tui.ui.screens.sessions import SessionsScreen


@pytest.fixture()
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    claude, codex = tmp_path / "claude-config", tmp_path / "codex-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    return claude, codex


async def _until(pilot, condition, tries: int = 400) -> None:
    for _ in range(tries):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not reached")


async def test_pick_filter_and_switch_the_followed_session(homes: tuple[Path, Path], tmp_path: Path) -> None:
    made = make_sessions(*homes, 12, time.time())
    first = made[0].path
    project = tmp_path / "project"
    project.mkdir()
    app = DashboardApp(first, project, Config())
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: app.snapshot is not None)
        await pilot.press("s")
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await _until(pilot, lambda: len(screen.shown) == 12)
        assert screen.selected().path == first  # the cursor starts on the followed session
        # typing filters: the Codex sessions only, then one project among them
        await pilot.press(*"codex")
        await _until(pilot, lambda: len(screen.shown) == 4)
        assert {s.agent for s in screen.shown} == {"codex"}
        await pilot.press("space", *"project-5")
        await _until(pilot, lambda: len(screen.shown) == 1)
        target = screen.shown[0]
        assert target.path == made[5].path
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.screen, DashboardScreen) and app.snapshot is not None
                     and app.snapshot.state.path == target.path)
        assert app.feed.path == target.path.absolute()
        assert app.snapshot.state.context_tokens == made[5].tokens
        assert app.project == project  # the session's cwd does not exist here: the project stays
        # Escape goes back without switching
        await pilot.press("s")
        assert isinstance(app.screen, SessionsScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen) and app.feed.path == target.path.absolute()


async def test_a_session_of_an_existing_project_switches_the_project(homes: tuple[Path, Path], tmp_path: Path) -> None:
    claude, _ = homes
    other = tmp_path / "other-project"
    other.mkdir()
    made = make_sessions(*homes, 3, time.time())
    text = made[1].path.read_text().replace("/home/dev/project-1", str(other))
    made[1].path.write_text(text)
    app = DashboardApp(made[0].path, tmp_path, Config())
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: app.snapshot is not None)
        await pilot.press("s")
        screen = app.screen
        await _until(pilot, lambda: len(screen.shown) == 3)
        screen.table.move_cursor(row=next(i for i, s in enumerate(screen.shown) if s.path == made[1].path))
        await pilot.press("enter")
        await _until(pilot, lambda: app.snapshot is not None and app.snapshot.state.path == made[1].path)
        assert app.project == other and app.feed.project == other.absolute()
