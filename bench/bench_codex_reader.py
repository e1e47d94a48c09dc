"""The Codex reader in process, against the orjson parse floor measured in the same run.

Grows the redacted Codex fixture to ``--mb`` megabytes (as bench_engine.py
does), optionally rewritten as spaced JSON (``--spaced``: spaces after ``:``
and ``,``, as some tools write), then alternates, ``--runs`` rounds:

* the floor: ``orjson.loads`` of every line;
* the reader: a fresh ``TranscriptReader(path).poll()`` (the whole file read
  into entries, as the dashboard and ``stats --full`` do);

and prints median CPU seconds of each and the ratio reader / floor (issue 16
target: <= 1.3x at 100 MB, compact and spaced).

    python bench/bench_codex_reader.py [--mb 100] [--runs 5] [--spaced] [--fixture codex|codex-unredacted]
"""

from __future__ import annotations

import argparse
import gc
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson
from bench_engine import SOURCES, grow
from bench_stats import spaced_copy

from ctx_tui.transcripts.reader import TranscriptReader


def floor(path: Path) -> float:
    loads = orjson.loads
    start = time.process_time()
    with open(path, "rb") as fh:
        for line in fh:
            try:
                loads(line)
            except orjson.JSONDecodeError:
                pass
    return time.process_time() - start


def reader(path: Path) -> float:
    start = time.process_time()
    r = TranscriptReader(path)
    r.poll()
    spent = time.process_time() - start
    del r
    gc.collect()
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--spaced", action="store_true")
    parser.add_argument("--fixture", choices=["codex", "codex-unredacted"], default="codex")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ctx-bench-codex-"))
    try:
        path = tmp / "grown.jsonl"
        grow(SOURCES[args.fixture], path, args.mb)
        if args.spaced:
            path = spaced_copy(path)
        floors, reads = [], []
        for _ in range(args.runs):
            floors.append(floor(path))
            reads.append(reader(path))
        f, r = statistics.median(floors), statistics.median(reads)
        label = f"{args.fixture} {path.stat().st_size / 1e6:.0f} MB{' spaced' if args.spaced else ''}"
        print(f"{label}: floor {f:.3f}s CPU, reader {r:.3f}s CPU, ratio {r / f:.2f}x (target <= 1.3x)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
