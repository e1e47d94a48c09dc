"""Dashboard timings on the real fixtures: cold open, and append-to-screen latency (target < 250 ms).

Run: ``python bench/bench_dashboard.py`` (needs ../shared/fixtures). Prints one
line per fixture: time to the first full screen, then the median and worst
time from appending a usage row to the panels having been updated with it
(file event + incremental read + memory view + widget updates; the terminal
repaint follows at the next frame), over N appends.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchlib import CODEX_REDACTED, CLAUDE_COMPACTED, FIXTURES

from ctx_tui.config import Config
from ctx_tui.ui.app import DashboardApp
from ctx_tui.ui.widgets.usage import UsagePanel

NAMES = [CLAUDE_COMPACTED, CODEX_REDACTED]
APPENDS = 10


class TimedApp(DashboardApp):
    """Stamps the moment the panels have been given each snapshot."""

    shown_at: float = 0.0

    def watch_snapshot(self, old, new) -> None:
        super().watch_snapshot(old, new)
        self.shown_at = time.perf_counter()


def _claude_row(n: int, tokens: int) -> str:
    return json.dumps({
        "type": "assistant", "uuid": f"bench-{n}", "sessionId": "bench", "timestamp": "2026-01-07T22:00:00Z",
        "isSidechain": False,
        "message": {"id": f"msg_bench_{n}", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                    "content": [{"type": "text", "text": f"bench row {n}"}],
                    "usage": {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": tokens, "output_tokens": 5}},
    })


def _codex_row(n: int, tokens: int) -> str:
    return json.dumps({
        "timestamp": "2026-02-23T13:00:00Z", "type": "event_msg",
        "payload": {"type": "token_count", "info": {"last_token_usage": {"total_tokens": tokens}, "model_context_window": 258400}},
    })


async def measure(source: Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / source.name
        shutil.copy(source, path)
        app = TimedApp(path, Path(tmp), Config())
        start = time.perf_counter()
        async with app.run_test(size=(160, 48)) as pilot:
            while app.snapshot is None:
                await pilot.pause(0.005)
            await pilot.pause()
            cold = time.perf_counter() - start
            make = _codex_row if "codex" in source.parts[-2] else _claude_row
            latencies = []
            for n in range(APPENDS):
                tokens = 50_000 + 1_000 * n
                before = app.snapshot
                t0 = time.perf_counter()
                with path.open("a") as fh:
                    fh.write(make(n, tokens) + "\n")
                while app.snapshot is before or app.snapshot.state.context_tokens != tokens:
                    await asyncio.sleep(0.002)
                latencies.append(app.shown_at - t0)
                await pilot.pause()
                assert f"{tokens:,}" in str(app.screen.query_one(UsagePanel).query_one("#usage-figures").render())
        ms = [1000 * x for x in latencies]
        return (f"{source.name[:40]:40}  {source.stat().st_size / 1e6:5.1f} MB  cold open {cold:5.2f} s  "
                f"append->screen median {statistics.median(ms):5.0f} ms  worst {max(ms):5.0f} ms")


def main() -> int:
    for name in NAMES:
        source = FIXTURES / name
        if not source.is_file():
            print(f"skipped (absent): {source}")
            continue
        print(asyncio.run(measure(source)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
