"""`ctx-tui` with no session in this directory shows the bundled demo; an explicit PATH still fails."""

from pathlib import Path

import pytest

from ctx_tui.cli import dashboard_cmd
from ctx_tui.errors import CtxError


def test_no_session_falls_back_to_the_demo_with_a_notice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    calls: list[tuple[float, str | None]] = []
    monkeypatch.setattr(dashboard_cmd, "_run_demo", lambda speed, notice=None: calls.append((speed, notice)) or 0)
    assert dashboard_cmd.run_dashboard([]) == 0
    assert len(calls) == 1
    speed, notice = calls[0]
    assert speed == 1.0
    assert notice and "no session found" in notice and "demo" in notice


def test_an_explicit_missing_path_is_an_error_not_the_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(dashboard_cmd, "_run_demo", lambda *a, **k: pytest.fail("demo started"))
    with pytest.raises(CtxError):
        dashboard_cmd.run_dashboard(["--claude"])


def test_one_arena_is_asked_for_before_any_thread_the_dashboard_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``use_one_arena`` acts on threads started after it: the demo's replay thread too. (Recorded, not
    called: the test process's own allocator is left as it is.)"""
    import threading

    from ctx_tui import heap, tokens
    from ctx_tui.ui.app import DashboardApp

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(tokens, "_pieces", None)
    threads_at_start = threading.active_count()
    asked: list[int] = []
    monkeypatch.setattr(heap, "use_one_arena", lambda: asked.append(threading.active_count()) or True)
    monkeypatch.setattr(DashboardApp, "run", lambda self: asked.append(-1))
    assert dashboard_cmd._run_demo(1000.0) == 0
    assert asked[0] == threads_at_start and asked[-1] == -1
