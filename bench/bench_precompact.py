"""The pre-compact job: CPU seconds and peak RSS of ``ctx-tui hook deferred pre-compact``.

``hook pre-compact`` answers Claude Code at once and starts this job detached;
the job reads the transcript as it was when the hook fired, brings session
memory up to date (extraction, references) and saves a compressed summary of
the live window. Each run is a new process on a transcript grown to ``--mb``
MB, HOME and caches in a temp folder. Two cases:

* **first job** of the session: a fresh project folder (no session memory, no
  scan cache): the most work, what a user meets at a session's first compaction
  (or the first after installing the hooks);
* **next job**: the job already ran at the session's previous compaction (the
  transcript cut before its last compaction row; untimed), in the same project:
  what a user meets before every later compaction. The job takes the reference
  hits the previous one kept (``memory/scan_cache.py``) for what did not change.

Target (issue 16): <= 1.5 s CPU and <= 120 MiB at 100 MB. The jobs run with
their bytecode written (``benchlib.child_env``, one untimed job first): an
installed ctx-tui does not compile its modules at every start.

    python bench/bench_precompact.py [--mb 100] [--runs 3] [--fixture claude|codex]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import benchlib
from bench_engine import SOURCES, grow

#: Runs the job in this process and prints its CPU seconds and peak RSS (ru_maxrss is KiB on Linux).
JOB = """
import resource, sys
from ctx_tui.cli import main
code = main(["hook", "deferred", "pre-compact"])
usage = resource.getrusage(resource.RUSAGE_SELF)
print(code, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
"""


#: The row that starts a compaction, per transcript format.
COMPACTION = {"claude": b'"subtype":"compact_boundary"', "codex": b'"type":"compacted"'}


def previous_compaction(path: Path, fixture: str, target: Path) -> int:
    """Write ``path`` as it stood when the session's last compaction began (cut before that row); its size.

    Read in chunks from the end: this process's memory would count in each job's peak RSS (Linux
    keeps ``ru_maxrss`` across the fork and exec that start it)."""
    marker, chunk = COMPACTION[fixture], 1 << 20
    with path.open("rb") as src:
        end, found = path.stat().st_size, -1
        while end > 0 and found < 0:
            start = max(0, end - chunk)
            src.seek(start)
            at = src.read(end - start + len(marker)).rfind(marker)  # the overlap finds a marker across chunks
            found, end = (start + at if at >= 0 else -1), start
        if found < 0:
            raise SystemExit("the grown transcript has no compaction")
        cut = 0  # the start of the marker's row
        while found > 0:
            start = max(0, found - chunk)
            src.seek(start)
            line = src.read(found - start).rfind(b"\n")
            if line >= 0:
                cut = start + line + 1
                break
            found = start
        src.seek(0)
        with target.open("wb") as out:
            remaining = cut
            while remaining:
                block = src.read(min(chunk, remaining))
                out.write(block)
                remaining -= len(block)
    return cut


def run_job(transcript: Path, root: Path, n: int, fresh: bool = True) -> tuple[float, float]:
    project = root / f"project-{n}"
    project.mkdir(exist_ok=not fresh)
    hook = {"session_id": f"bench-{n}", "cwd": str(project), "hook_event_name": "PreCompact", "trigger": "auto",
            "custom_instructions": "", "transcript_path": str(transcript)}
    env = benchlib.child_env(HOME=str(root), XDG_CONFIG_HOME=str(root / "config"), XDG_CACHE_HOME=str(root / "cache"))
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
        earlier = root / "session-before-compaction.jsonl"
        cut = previous_compaction(path, args.fixture, earlier)
        first: list[tuple[float, float]] = []
        following: list[tuple[float, float]] = []
        run_job(earlier, root, 2 * args.runs)  # untimed: writes ctx_tui's bytecode, as an installed ctx-tui has it
        for n in range(args.runs):  # the two cases alternated
            first.append(run_job(path, root, n))
            run_job(earlier, root, args.runs + n)
            following.append(run_job(path, root, args.runs + n, fresh=False))
        print(f"{args.fixture} {path.stat().st_size / 1e6:.0f} MB, median of {args.runs} (targets: <= 1.5 s, <= 120 MiB):")
        for name, runs in (("first job of the session", first), (f"next job ({(path.stat().st_size - cut) / 1e6:.1f} MB later)", following)):
            cpu, rss = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
            print(f"  {name:34s} CPU {cpu:6.2f} s   peak RSS {rss:6.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
