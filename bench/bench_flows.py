"""Benchmark: the dashboard's flows on a real transcript, driven headless with Pilot.

Run from the project root: ``python bench/bench_flows.py [TRANSCRIPT]``
(default: the compacted Claude Code fixture in ../shared/fixtures/transcripts).
The transcript is copied into a scratch project (the memory model writes
``.ctx/`` there). Prints, in seconds or milliseconds of wall time:

1. the dashboard's first read (transcript, memory view) until it is on screen;
2. ``h``: until the handoff draft (a second read of the transcript, prefill) is in the form;
3. one run of the form's validate path (gate + findings under 16 fields) with a
   450-word continuation context — median and max of 20 (it runs after each
   debounced pause while typing, so it must stay far below a frame);
4. ``c``: until the compression preview shows its figures, and the engine's own duration;
5. ``/``: one search over every tier (the first reads the transcript again).
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchlib import CLAUDE_COMPACTED, FIXTURES
from textual.widgets import Input, TextArea

from ctx_tui.config import Config
from ctx_tui.ui.app import DashboardApp
from ctx_tui.ui.screens.search import SearchScreen

DEFAULT = FIXTURES / CLAUDE_COMPACTED


async def run(source: Path) -> None:
    project = Path(tempfile.mkdtemp(prefix="ctx-bench-flows-"))
    transcript = project / source.name
    shutil.copy(source, transcript)
    app = DashboardApp(transcript, project, Config(), follow=False)
    async with app.run_test(size=(160, 48)) as pilot:

        async def settle() -> None:
            await app.workers.wait_for_complete()
            await pilot.pause()

        started = time.perf_counter()
        await settle()
        print(f"dashboard first read:        {time.perf_counter() - started:6.2f} s  ({source.stat().st_size:,} bytes)")

        started = time.perf_counter()
        await pilot.press("h")
        await settle()
        print(f"handoff draft in the form:   {time.perf_counter() - started:6.2f} s")
        form = app.screen
        form.query_one("#hf-continuation-context", TextArea).load_text("word " * 450 + "src/app.py parse_rows()")
        times = []
        for _ in range(20):
            started = time.perf_counter()
            form.validate()
            times.append((time.perf_counter() - started) * 1000)
        print(f"handoff validate path:       {statistics.median(times):6.1f} ms median, {max(times):.1f} ms max")
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()

        started = time.perf_counter()
        await pilot.press("c")
        await settle()
        result = app.screen.result
        print(f"compression preview shown:   {time.perf_counter() - started:6.2f} s  (engine {result.duration_ms:.0f} ms, "
              f"{result.original_length:,} -> {result.compressed_length:,} tokens, "
              f"retention {result.retention_rate:.2f})")
        await pilot.press("escape")
        await pilot.pause()

        await pilot.press("slash")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        for label in ("first search", "second search"):
            screen.query_one("#search-query", Input).value = "error handling sync"
            started = time.perf_counter()
            await pilot.press("enter")
            await settle()
            print(f"{label + ':':28} {time.perf_counter() - started:6.2f} s  ({len(screen.hits)} hits)")
            screen.query_one("#search-query", Input).focus()
    shutil.rmtree(project, ignore_errors=True)


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not source.is_file():
        sys.exit(f"no transcript at {source}")
    asyncio.run(run(source))


if __name__ == "__main__":
    main()
