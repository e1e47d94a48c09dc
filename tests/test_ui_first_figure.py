"""A large transcript: the usage figure is on screen while the rest is still being read."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest

from ctx_tui.config import Config
from ctx_tui.ui import feed as feed_module
from ctx_tui.ui.app import DashboardApp
from ctx_tui.ui.feed import SessionFeed

FILLER = "x = compute(item, cache)  # padding\n" * 400


def _write_session(path: Path, rounds: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for n in range(rounds):
            common = {"sessionId": "s1", "cwd": "/p", "version": "2.0.76", "timestamp": "2026-03-01T10:00:00Z"}
            fh.write(json.dumps({**common, "type": "user", "uuid": f"u{n}", "message": {"role": "user", "content": f"step {n}"}}) + "\n")
            fh.write(json.dumps({**common, "type": "user", "uuid": f"r{n}", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{n}", "content": FILLER}]}}) + "\n")
            fh.write(json.dumps({**common, "type": "assistant", "uuid": f"a{n}", "message": {
                "id": f"m{n}", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": f"done {n}"}],
                "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 50_000 + n, "output_tokens": 5}}}) + "\n")


async def test_the_figure_shows_before_the_whole_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "session.jsonl"
    _write_session(path, 400)
    monkeypatch.setattr(feed_module, "FIRST_FIGURE_FROM_BYTES", 1 << 20)
    assert path.stat().st_size > 1 << 20
    release = threading.Event()
    whole_read = SessionFeed.read

    def slow_read(self: SessionFeed, changed=()):  # the whole read waits until the figure was seen
        release.wait(30)
        return whole_read(self, changed)

    monkeypatch.setattr(SessionFeed, "read", slow_read)
    app = DashboardApp(path, tmp_path, Config(), follow=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(400):
            shown = str(app.dashboard.loading_text.render())
            if "Context usage" in shown:
                break
            await asyncio.sleep(0.02)
        assert "25.2% of 200,000 tokens (50,409, reported)" in shown
        assert "reading the rest" in shown and app.dashboard.loading_spinner.display
        assert app.snapshot is None
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.snapshot is not None and app.snapshot.state.context_tokens == 50_409
        assert app.dashboard.panels.display and not app.dashboard.loading_view.display


#: Loads the dashboard app's module and runs it headless until the figure read from the
#: file's end is on screen, then prints the modules loaded by then as JSON.
FIRST_FIGURE_PROBE = """
import asyncio, json, sys
from pathlib import Path
from ctx_tui.ui import feed
from ctx_tui.ui.app import DashboardApp
feed.FIRST_FIGURE_FROM_BYTES = 1 << 20
path = Path(sys.argv[1])
async def main():
    app = DashboardApp(path, path.parent, None, follow=False)
    app.feed.read = lambda changed=(): feed.ReadResult(None)  # no whole read: what the figure needs only
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(1000):
            shown = str(app.dashboard.loading_text.render())
            if "Context usage" in shown:
                break
            await asyncio.sleep(0.01)
        print(json.dumps({"shown": shown, "modules": sorted(sys.modules)}))
asyncio.run(main())
"""


def test_the_figure_needs_neither_the_config_model_nor_the_memory_model(tmp_path: Path) -> None:
    """Without a config file, the dashboard shows the figure before it builds the config model
    (pydantic), loads the memory model (decay, references, stores) or the panels (bench/bench_first_figure.py)."""
    import subprocess
    import sys

    path = tmp_path / "session.jsonl"
    _write_session(path, 400)
    done = subprocess.run([sys.executable, "-c", FIRST_FIGURE_PROBE, str(path)], capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)
    assert "25.2% of 200,000 tokens (50,409, reported)" in run["shown"]
    loaded = set(run["modules"])
    assert {"pydantic", "yaml", "ctx_tui.config", "ctx_tui.memory.decay", "ctx_tui.memory.session_store",
            "ctx_tui.ui.flows", "ctx_tui.ui.screens.metrics", "ctx_tui.ui.screens.sessions", "watchfiles"} & loaded == set()


def test_a_feed_without_config_uses_the_defaults_until_it_builds_them(tmp_path: Path) -> None:
    from ctx_tui.config import UiConfig

    feed = SessionFeed(tmp_path / "s.jsonl", tmp_path, None)
    assert feed.ui_choice() == (UiConfig().theme, UiConfig().layout)
    assert feed.handoff_threshold() == Config().window.handoff_threshold
    assert feed.config == Config()
