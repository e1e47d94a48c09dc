"""Dashboard start-up: launch to the usage figure on screen, and to the full dashboard.

Each case runs in a new process (imports included), alternated round by round,
headless (``App.run_test``), on a transcript grown to ``--mb`` MB:

* reference: a bare Textual app (one Static) until it is mounted;
* ctx-tui: until the usage figure is on screen (the loading view shows the
  figure read from the file's end, or the usage panel shows the snapshot),
  and until the whole dashboard is filled (the first full snapshot).

Target: the figure <= 2x the bare app's first frame, whatever the size.
Children run with their bytecode written (``benchlib.child_env``): an
installed ctx-tui does not compile its modules at every start.

    python bench/bench_first_figure.py [--mb 100] [--runs 5] [--fixture claude|codex]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import benchlib
from bench_engine import SOURCES, grow

BARE = """
import time, asyncio
t0 = time.perf_counter()
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("hello")
async def main():
    async with Bare().run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        print(f"first {time.perf_counter() - t0:.3f} first_cpu {time.process_time():.3f}")
asyncio.run(main())
"""

DASHBOARD = """
import sys, time, asyncio
t0 = time.perf_counter()
from pathlib import Path
from ctx_tui import tokens
from ctx_tui.ui.app import DashboardApp
async def main():
    path = Path(sys.argv[1])
    tokens.count_by_pieces()  # as `ctx-tui FILE` (dashboard_cmd._run)
    app = DashboardApp(path, path.parent, None, follow=False)  # no config file: as `ctx-tui FILE` (dashboard_cmd)
    figure = None
    async with app.run_test(size=(160, 48)) as pilot:
        while True:
            shown = str(app.dashboard.loading_text.render())
            if figure is None and ("Context usage" in shown or app.snapshot is not None):
                figure, figure_cpu = time.perf_counter() - t0, time.process_time()
            if app.snapshot is not None:
                break
            await asyncio.sleep(0.005)
        print(f"figure {figure:.3f} figure_cpu {figure_cpu:.3f} full {time.perf_counter() - t0:.3f} full_cpu {time.process_time():.3f}")
asyncio.run(main())
tokens.end_piece_counts()
"""


def run(code: str, *args: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600, env=benchlib.child_env())
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    words = out.stdout.split()
    return {words[i]: float(words[i + 1]) for i in range(0, len(words), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--fixture", choices=["claude", "codex"], default="claude")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctx-bench-first-") as tmp:
        path = Path(tmp) / "session.jsonl"
        grow(SOURCES[args.fixture], path, args.mb)
        runs: dict[str, list[float]] = {}
        run(BARE), run(DASHBOARD, str(path))  # untimed: writes ctx_tui's bytecode, as an installed ctx-tui has it
        for _ in range(args.runs):
            for got in (run(BARE), run(DASHBOARD, str(path))):
                for key, value in got.items():
                    runs.setdefault(key, []).append(value)
        m = {key: statistics.median(values) for key, values in runs.items()}
        b, bc = m["first"], m["first_cpu"]
        print(f"{args.fixture} {path.stat().st_size / 1e6:.0f} MB, median of {args.runs} (imports included):")
        print("                                      wall            CPU")
        print(f"  bare Textual app, first frame      {b:6.3f} s  1.00x  {bc:6.3f} s  1.00x")
        print(f"  ctx-tui, usage figure on screen    {m['figure']:6.3f} s  {m['figure'] / b:.2f}x  "
              f"{m['figure_cpu']:6.3f} s  {m['figure_cpu'] / bc:.2f}x  (target <= 2x)")
        print(f"  ctx-tui, whole dashboard filled    {m['full']:6.3f} s  {m['full'] / b:.2f}x  "
              f"{m['full_cpu']:6.3f} s  {m['full_cpu'] / bc:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
