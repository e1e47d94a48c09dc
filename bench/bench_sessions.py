"""How long the session picker takes to list 1,000 sessions (target: at most 1 s).

Generates a temporary CLAUDE_CONFIG_DIR and CODEX_HOME with N sessions
(tests/catalog_support.py: two Claude Code sessions per Codex one, every fifth
with a ~200 KB tool result), then times, in this process, a cold listing (a
new Catalog: every file's tail read) and a listing again (what the picker does
every few seconds: only changed files are read), with wall and CPU time, the
median of several runs. The machine is shared: CPU time is the steadier figure.

    python bench/bench_sessions.py [--sessions 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import benchlib  # noqa: F401  (puts the project and tests/ on sys.path)
from catalog_support import make_sessions

from ctx_tui.catalog import Catalog


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctx-bench-sessions-") as tmp:
        claude, codex = Path(tmp) / "claude", Path(tmp) / "codex"
        made = make_sessions(claude, codex, args.sessions, time.time())
        total = sum(m.path.stat().st_size for m in made)
        print(f"{len(made)} sessions, {total / 1e6:.1f} MB")
        os.environ["CLAUDE_CONFIG_DIR"], os.environ["CODEX_HOME"] = str(claude), str(codex)
        cold_wall, cold_cpu, again_wall, again_cpu = [], [], [], []
        for _ in range(args.runs):
            catalog = Catalog()
            w, c = time.perf_counter(), time.process_time()
            listed = catalog.list()
            cold_wall.append(time.perf_counter() - w)
            cold_cpu.append(time.process_time() - c)
            assert len(listed) == len(made)
            w, c = time.perf_counter(), time.process_time()
            catalog.list()
            again_wall.append(time.perf_counter() - w)
            again_cpu.append(time.process_time() - c)
        for label, wall, cpu in (("cold listing (every tail read)", cold_wall, cold_cpu),
                                 ("listing again (nothing changed)", again_wall, again_cpu)):
            print(f"{label:36} {statistics.median(wall) * 1000:7.0f} ms wall (min {min(wall) * 1000:.0f}), "
                  f"{statistics.median(cpu) * 1000:6.0f} ms CPU")


if __name__ == "__main__":
    main()
