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
