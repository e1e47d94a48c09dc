"""`ctx-tui stats` cold, against the orjson parse floor and ccusage's statusline.

For each size (``--mb 10 100 200``) and format it grows a shared fixture (as
bench_engine.py does), then runs, alternated round by round so that load on the
machine hits them alike, ``--runs`` times each (new processes, medians):

* ``stats --json`` (tail-first: reads the end of the file only);
* ``stats --json --full`` (the whole session);
* the floor: ``orjson.loads`` of every line (bench_engine.FLOOR_CODE);
* Claude only: ``ccusage statusline`` (version 20.0.24, installed from npm into
  a temporary prefix, offline, no cache, an empty CLAUDE_CONFIG_DIR so it reads
  only this transcript); skipped with a note when npm cannot install it.

``--spaced`` rewrites the grown file as JSON with spaces after ``:`` and ``,``
(what some tools write), where byte-level row tests must still work.

    python bench/bench_stats.py [--mb 10 100 200] [--runs 5] [--fixture claude codex] [--spaced]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_engine import FLOOR_CODE, SOURCES, grow

CCUSAGE = "ccusage@20.0.24"


def install_ccusage(prefix: Path) -> Path | None:
    """The ccusage binary installed under ``prefix``, or None (printed why)."""
    npm = shutil.which("npm")
    if npm is None:
        print("ccusage: npm not found; not compared")
        return None
    done = subprocess.run([npm, "install", "--silent", "--prefix", str(prefix), CCUSAGE],
                          capture_output=True, text=True, timeout=600)
    binary = prefix / "node_modules" / ".bin" / "ccusage"
    if done.returncode != 0 or not binary.exists():
        print(f"ccusage: npm install {CCUSAGE} failed; not compared: {done.stderr.strip()[:200]}")
        return None
    return binary


def timed(argv: list[str], stdin: bytes = b"", env: dict[str, str] | None = None) -> tuple[float, float, bytes]:
    """Wall and CPU seconds (the child's user + system) and stdout of one run."""
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, env=env, timeout=600)
    wall = time.perf_counter() - start
    after = os.times()
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(argv)}: {done.stderr.decode(errors='replace')[:300]}")
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system), done.stdout


def spaced_copy(path: Path) -> Path:
    target = path.with_name(path.stem + "-spaced.jsonl")
    with path.open("rb") as src, target.open("w", encoding="utf-8") as out:
        for line in src:
            try:
                out.write(json.dumps(json.loads(line), ensure_ascii=False) + "\n")
            except ValueError:
                out.write(line.decode("utf-8", "replace"))
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, nargs="+", default=[10, 100, 200])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--fixture", nargs="+", choices=["claude", "codex"], default=["claude", "codex"])
    parser.add_argument("--spaced", action="store_true", help="rewrite the grown file as spaced JSON")
    parser.add_argument("--no-ccusage", action="store_true")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ctx-bench-stats-"))
    try:
        ccusage = None if args.no_ccusage else install_ccusage(tmp / "npm")
        config_dir = tmp / "claude-config"
        (config_dir / "projects").mkdir(parents=True)
        cc_env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config_dir)}
        py = sys.executable
        print(f"{'file':32} {'case':22} {'wall':>8} {'cpu':>8} {'wall/floor':>10} {'cpu/floor':>9}")
        for fixture in args.fixture:
            for mb in args.mb:
                path = tmp / f"grown-{fixture}-{mb}.jsonl"
                grow(SOURCES[fixture], path, mb)
                if args.spaced:
                    spaced = spaced_copy(path)
                    path.unlink()
                    path = spaced
                cases: dict[str, tuple[list[str], bytes, dict[str, str] | None]] = {
                    "orjson floor": ([py, "-c", FLOOR_CODE, str(path)], b"", None),
                    "stats --json": ([py, "-m", "ctx_tui", "stats", str(path), "--json"], b"", None),
                    "stats --json --full": ([py, "-m", "ctx_tui", "stats", str(path), "--json", "--full"], b"", None),
                }
                if ccusage is not None and fixture == "claude":
                    hook = {"session_id": "bench", "transcript_path": str(path), "cwd": str(tmp),
                            "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet"},
                            "workspace": {"current_dir": str(tmp), "project_dir": str(tmp)}}
                    cases["ccusage statusline"] = ([str(ccusage), "statusline", "--offline", "--no-cache"],
                                                   json.dumps(hook).encode(), cc_env)
                walls: dict[str, list[float]] = {k: [] for k in cases}
                cpus: dict[str, list[float]] = {k: [] for k in cases}
                subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL)  # the file in the page cache for all
                for _ in range(args.runs):
                    for name, (argv, stdin, env) in cases.items():
                        wall, cpu, _out = timed(argv, stdin, env)
                        walls[name].append(wall)
                        cpus[name].append(cpu)
                floor_wall, floor_cpu = statistics.median(walls["orjson floor"]), statistics.median(cpus["orjson floor"])
                label = f"{fixture} {path.stat().st_size / 1e6:.0f} MB{' spaced' if args.spaced else ''}"
                for name in cases:
                    wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
                    print(f"{label:32} {name:22} {wall:7.3f}s {cpu:7.3f}s {wall / floor_wall:9.2f}x {cpu / floor_cpu:8.2f}x")
                path.unlink()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
