"""The pre-compact job: CPU seconds and peak RSS of ``ctx-tui hook deferred pre-compact``.

``hook pre-compact`` answers Claude Code at once and starts this job detached;
the job reads the transcript as it was when the hook fired, brings session
memory up to date (extraction, references) and saves a compressed summary of
the live window. Each run is a new process on a transcript grown to ``--mb``
MB, in a fresh project folder (no session memory yet: the first compaction of
a session, the most work), HOME and caches in a temp folder.

Target (issue 16): <= 1.5 s CPU and <= 120 MiB at 100 MB.

    python bench/bench_precompact.py [--mb 100] [--runs 3] [--fixture claude|codex]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_engine import SOURCES, grow

#: Runs the job in this process and prints its CPU seconds and peak RSS (ru_maxrss is KiB on Linux).
JOB = """
import resource, sys
from ctx_tui.cli import main
code = main(["hook", "deferred", "pre-compact"])
usage = resource.getrusage(resource.RUSAGE_SELF)
print(code, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
"""


def run_job(transcript: Path, root: Path, n: int) -> tuple[float, float]:
    project = root / f"project-{n}"
    project.mkdir()
    hook = {"session_id": f"bench-{n}", "cwd": str(project), "hook_event_name": "PreCompact", "trigger": "auto",
            "custom_instructions": "", "transcript_path": str(transcript)}
    env = {**os.environ, "HOME": str(root), "XDG_CONFIG_HOME": str(root / "config"), "XDG_CACHE_HOME": str(root / "cache")}
    done = subprocess.run([sys.executable, "-c", JOB], input=json.dumps(hook), capture_output=True, text=True,
                          cwd=project, env=env, timeout=1200)
    words = done.stdout.split()
    if done.returncode != 0 or len(words) != 3 or words[0] != "0":
        raise SystemExit(f"the job failed: {done.stdout[-1000:]} {done.stderr[-2000:]}")
    if not (project / ".ctx" / "sessions").is_dir():
        raise SystemExit("the job saved no session memory")
    return float(words[1]), float(words[2])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fixture", choices=["claude", "codex"], default="claude")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctx-bench-precompact-") as tmp:
        root = Path(tmp)
        path = root / "session.jsonl"
        grow(SOURCES[args.fixture], path, args.mb)
        runs = [run_job(path, root, n) for n in range(args.runs)]
        cpu, rss = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        print(f"{args.fixture} {path.stat().st_size / 1e6:.0f} MB, median of {args.runs}:")
        print(f"  hook deferred pre-compact   CPU {cpu:6.2f} s   peak RSS {rss:6.1f} MiB   (targets: <= 1.5 s, <= 120 MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
