"""The dashboard on a file no reader understands (Aider's chat history): it says so instead of showing 0%."""

from __future__ import annotations

from pathlib import Path

from ctx_tui.config import Config
from ctx_tui.ui.app import DashboardApp

# The shape Aider writes to .aider.chat.history.md (a format ctx-tui does not read).
AIDER_HISTORY = """# aider chat started at 2025-03-02 14:11:07

> /home/dev/.local/bin/aider --model sonnet
> Aider v0.75.1

#### add a --dry-run flag to the sync command

I'll add the flag to `cli.py`.
"""


async def test_an_aider_history_is_said_to_be_unsupported(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(AIDER_HISTORY, encoding="utf-8")
    app = DashboardApp(path, tmp_path, Config())
    async with app.run_test(size=(140, 40)) as pilot:
        for _ in range(200):
            if app.snapshot is not None:
                break
            await pilot.pause(0.02)
        assert app.snapshot is not None and app.snapshot.state.unsupported
        figures = str(app.screen.query_one("#usage-figures").render())
        assert "Not a transcript ctx-tui can read" in figures
        assert "'# aider chat started at 2025-03-02 14:11:07'" in figures and "Codex" in figures
        assert app.screen.query_one("#usage-pct").value == "--"
