"""Benchmark of the transcript engine on a ~100 MB grown transcript.

Grows a shared fixture to about ``--mb`` megabytes by repeating its rows with
fresh ids per copy, then prints:

* cold ``ctx-tui stats --json`` (a new process): wall and CPU time, peak RSS;
* the floor: a new process that does a bare ``orjson.loads`` of every line of
  the same file; and the ratio stats / floor (target <= 1.0);
* the same measured in this process (engine ``Session.poll()`` + totals
  against the bare parse loop), without interpreter start-up and imports;
  CPU time, best of ``--runs``, so other load on the machine disturbs it less;
* the time for the engine to reflect one appended row (append, ``poll()``,
  ``state()``), median and p95 of 100 appends (target <= 10 ms).

Usage: ``python bench/bench_engine.py [--fixture claude|codex] [--mb 100] [--keep]``
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchlib import CLAUDE_COMPACTED, CODEX_FULL, CODEX_REDACTED, FIXTURES

SOURCES = {
    "claude": FIXTURES / CLAUDE_COMPACTED,
    "codex": FIXTURES / CODEX_REDACTED,
    "codex-unredacted": FIXTURES / CODEX_FULL,
}
_UUID = re.compile(rb"[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})")
#: Message, tool-call and request ids (not the ``call_id`` key Codex writes before each call id).
_IDS = re.compile(rb"\b((?:msg|toolu|call|req)_(?!id\b)[A-Za-z0-9_]+)")

FLOOR_CODE = """
import sys, orjson
loads = orjson.loads
with open(sys.argv[1], "rb") as fh:
    for line in fh:
        try:
            loads(line)
        except orjson.JSONDecodeError:
            pass
"""


def grow(source: Path, target: Path, megabytes: int) -> int:
    """Write ``source`` repeated until ``megabytes`` MB, ids made unique per copy; return rows."""
    if not source.is_file():
        raise SystemExit(f"{source} is missing: the benches grow the shared real transcripts (../shared/fixtures next to the project)")
    data = source.read_bytes()
    if not data.endswith(b"\n"):
        data += b"\n"
    head, _, body = data.partition(b"\n")  # keep one header row (Codex session_meta) once
    rows = 0
    with open(target, "wb") as out:
        out.write(head + b"\n")
        copy = 0
        while out.tell() < megabytes * 1_000_000:
            chunk = _UUID.sub(lambda m, c=copy: b"%08x" % c + m.group(1), body)
            chunk = _IDS.sub(lambda m, c=copy: m.group(1) + b"c%d" % c, chunk)
            out.write(chunk)
            rows += chunk.count(b"\n")
            copy += 1
    return rows + 1


def run_child(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of a child process."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execv(argv[0], argv)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"child failed: {' '.join(argv)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def best_of(n: int, argv: list[str]) -> tuple[float, float, float]:
    """Best wall and CPU time of ``n`` runs (the least disturbed by other load), worst RSS."""
    runs = [run_child(argv) for _ in range(n)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def in_process(path: Path, runs: int) -> tuple[float, float, float]:
    """Best CPU seconds of: the bare parse loop, engine poll + state(positions=False), + state()."""
    import orjson

    from ctx_tui.window import Session

    floors, totals, fulls = [], [], []
    loads = orjson.loads
    for _ in range(runs):
        start = time.process_time()
        with open(path, "rb") as fh:
            for line in fh:
                try:
                    loads(line)
                except orjson.JSONDecodeError:
                    pass
        floors.append(time.process_time() - start)
        start = time.process_time()
        session = Session(path)
        session.poll()
        session.state(positions=False)
        totals.append(time.process_time() - start)
        session.state()  # the dashboard's first state: tokenizes the live window once
        fulls.append(time.process_time() - start)
    return min(floors), min(totals), min(fulls)


def append_latency(path: Path, source: Path, count: int = 100) -> list[float]:
    from ctx_tui.window import Session

    session = Session(path)
    session.poll()
    session.state()
    lines = [ln for ln in source.read_bytes().splitlines() if b'"type":"assistant"' in ln or b'"response_item"' in ln]
    times = []
    with open(path, "ab") as out:
        for i in range(count):
            out.write(lines[i % len(lines)] + b"\n")
            out.flush()
            start = time.perf_counter()
            update = session.poll()
            session.state()
            times.append((time.perf_counter() - start) * 1000)
            assert update.new_entries, "the appended row was not read"
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixture", choices=sorted(SOURCES), default="claude")
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3, help="cold runs per measurement (best wall time)")
    parser.add_argument("--keep", action="store_true", help="keep the grown file")
    args = parser.parse_args()
    source = SOURCES[args.fixture]
    if not source.is_file():
        raise SystemExit(f"fixture not found: {source}")
    tmp = Path(tempfile.mkdtemp(prefix="ctx-bench-"))
    grown = tmp / f"grown-{args.fixture}.jsonl"
    rows = grow(source, grown, args.mb)
    size = grown.stat().st_size
    print(f"grown file: {grown} ({size / 1e6:.1f} MB, {rows:,} rows, from {source.name})")

    py = sys.executable
    stats_wall, stats_cpu, stats_rss = best_of(args.runs, [py, "-m", "ctx_tui", "stats", str(grown), "--json"])
    floor_wall, floor_cpu, floor_rss = best_of(args.runs, [py, "-c", FLOOR_CODE, str(grown)])
    print(f"cold stats --json (new process): wall {stats_wall:.3f} s, cpu {stats_cpu:.3f} s, peak RSS {stats_rss:.0f} MiB (target <= 150 MiB)")
    print(f"floor, orjson parse of every line (new process): wall {floor_wall:.3f} s, cpu {floor_cpu:.3f} s, peak RSS {floor_rss:.0f} MiB")
    print(f"ratio stats / floor: wall {stats_wall / floor_wall:.2f}x, cpu {stats_cpu / floor_cpu:.2f}x (target <= 1.0x)")

    floor, engine, full = in_process(grown, args.runs)
    print(
        f"in process (cpu): bare parse {floor:.3f} s; engine poll+stats totals {engine:.3f} s = {engine / floor:.2f}x;"
        f" + first full state (tiktoken load, live window counted) {full:.3f} s"
    )

    times = append_latency(grown, source)
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"one appended row reflected (poll+state): median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms (target <= 10 ms)")
    if args.keep:
        print(f"kept {grown}")
    else:
        grown.unlink()
        tmp.rmdir()
    return 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())
