"""Dashboard at rest: CPU while idle and resident memory, against a bare Textual app.

Each case runs in its own tmux session (a real terminal, 160x48), alternated
round by round, on a transcript grown to ``--mb`` MB:

* reference: a bare Textual app (one Static) once its first frame is drawn;
* ctx-tui: ``ctx-tui FILE`` (no config file, HOME and caches in a temp folder)
  once the whole dashboard is filled (the heat-map's subtitle is on screen).

Then nothing is typed and nothing is appended for ``--idle`` seconds; the CPU
seconds the process used over them (``/proc/PID/stat``) and its RSS at the end
(``VmRSS``) are printed, with their ratios to the bare app. The runs share one
HOME, so the first ctx-tui run starts with an empty cache (no rank groups, no
piece table: ``ctx_tui.tokens``); its RSS is printed apart.

Targets (issue 16): idle CPU <= 2x the bare app; RSS <= 110 MiB at 100 MB.

    python bench/bench_idle.py [--mb 100] [--runs 3] [--idle 20] [--fixture claude|codex]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_engine import SOURCES, grow

BARE = """
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("bare Textual app")
Bare().run()
"""

#: What the filled dashboard shows (the heat-map's subtitle), and the bare app's text.
FILLED = "positions scaled to"
BARE_SHOWN = "bare Textual app"
TICKS = os.sysconf("SC_CLK_TCK")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _python_pid(pane_pid: int) -> int:
    """The python process of the pane (the shell tmux starts may exec it or fork it)."""
    if "python" in Path(f"/proc/{pane_pid}/cmdline").read_bytes().decode(errors="replace"):
        return pane_pid
    for child in Path(f"/proc/{pane_pid}/task/{pane_pid}/children").read_text().split():
        return _python_pid(int(child))
    raise RuntimeError("no python process in the pane")


def measure(name: str, command: list[str], shown: str, idle: float, cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """Start ``command`` in tmux, wait until ``shown`` is on screen, then measure ``idle`` seconds of rest."""
    session = f"ctxbench-idle-{os.getpid()}-{name}"
    _tmux("kill-session", "-t", session)
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    _tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "48", "-c", str(cwd), *env_args,
          " ".join(_quote(part) for part in command))
    try:
        started = time.monotonic()
        while shown not in _tmux("capture-pane", "-pt", session):
            if time.monotonic() - started > 600:
                raise RuntimeError(f"{name}: {shown!r} not on screen after 600 s")
            time.sleep(0.2)
        filled = time.monotonic() - started
        pid = _python_pid(int(_tmux("list-panes", "-t", session, "-F", "#{pane_pid}").split()[0]))
        time.sleep(2)  # the last refreshes of the first paint
        before = _cpu_seconds(pid)
        time.sleep(idle)
        return {"cpu": _cpu_seconds(pid) - before, "rss": _rss_mib(pid), "filled": filled}
    finally:
        _tmux("kill-session", "-t", session)


def _quote(part: str) -> str:
    return "'" + part.replace("'", "'\\''") + "'"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of rest measured")
    parser.add_argument("--fixture", choices=["claude", "codex"], default="claude")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is needed")
    with tempfile.TemporaryDirectory(prefix="ctx-bench-idle-") as tmp:
        root = Path(tmp)
        path = root / "session.jsonl"
        grow(SOURCES[args.fixture], path, args.mb)
        env = {"HOME": str(root), "XDG_CONFIG_HOME": str(root / "config"), "XDG_CACHE_HOME": str(root / "cache")}
        cases = {
            "bare": ([sys.executable, "-c", BARE], BARE_SHOWN),
            "ctx-tui": ([sys.executable, "-m", "ctx_tui", str(path)], FILLED),
        }
        got: dict[str, list[dict[str, float]]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (command, shown) in cases.items():
                got[name].append(measure(name, command, shown, args.idle, root, env))
        med = {name: {key: statistics.median(run[key] for run in runs) for key in runs[0]} for name, runs in got.items()}
        bare, ours = med["bare"], med["ctx-tui"]
        print(f"{args.fixture} {path.stat().st_size / 1e6:.0f} MB, {args.idle:.0f} s idle, median of {args.runs}:")
        print(f"  bare Textual app   CPU {bare['cpu']:6.3f} s  1.00x   RSS {bare['rss']:6.1f} MiB")
        print(f"  ctx-tui dashboard  CPU {ours['cpu']:6.3f} s  {ours['cpu'] / max(bare['cpu'], 0.01):.2f}x   "
              f"RSS {ours['rss']:6.1f} MiB  (targets: CPU <= 2x, RSS <= 110 MiB; filled after {ours['filled']:.1f} s)")
        print(f"  (its first start, with ctx-tui's cache empty: RSS {got['ctx-tui'][0]['rss']:6.1f} MiB;"
              " later starts read the token pieces it learnt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
