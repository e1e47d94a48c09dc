"""Benchmark: compression, retention, retrieval and the ``ctx-tui api`` actions on real transcripts.

Run from the project root: ``python bench/bench_compress.py [TRANSCRIPT ...]``
(default: the shared fixtures in ../shared/fixtures/transcripts). Prints:

1. ``api`` actions at maxLength 8192: the in-process ``metadata.duration``
   (median / max of 5 runs; target < 200 ms), the CPU time of the call (what
   the duration would be on an idle machine) and the wall-clock time of one
   ``python -m ctx_tui api`` process (start-up and imports included);
2. retention at 2x (ratio 0.5) and 4x (ratio 0.25) compression of each live
   window, per strategy (facts kept in a sentence or block), with how many
   facts are only named in a list (``factsNamedOnly``, not counted);
3. in process: the semantic strategy on a 51k-token window (the Claude Code
   session just before its compaction, plus half of it again) at maxLength
   8192, CPU time of the first call on it (its words not yet cached) and median of repeated
   calls, next to counting the window's tokens once (the reference: the
   machine is shared, compare ratios); target ≤ 150 ms;
4. retrieval: the hand-written BM25 against bm25s (cold import in a fresh
   process, index and query time) on the same documents; bm25s is not a
   dependency (``pip install bm25s`` to measure it, else "not measured").
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import CLAUDE_COMPACTED, CLAUDE_SIDECHAIN, CODEX_FULL, FIXTURES

from ctx_tui.api import handle
from ctx_tui.compress import compress_text
from ctx_tui.compress.scoring import BM25, terms
from ctx_tui.compress.session import window_text
from ctx_tui.config import Config
from ctx_tui.retrieve import build_index
from ctx_tui.tokens import count_tokens
from ctx_tui.window import Session

DEFAULT = [FIXTURES / CLAUDE_COMPACTED, FIXTURES / CODEX_FULL, FIXTURES / CLAUDE_SIDECHAIN]
RUNS = 5


def _wall(request: dict, cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ctx_tui", "api"], input=json.dumps(request), text=True,
                   capture_output=True, cwd=cwd, check=True)
    return (time.perf_counter() - started) * 1000


def bench_api(path: Path) -> None:
    print(f"\n== api actions, maxLength 8192: {path.name}")
    count_tokens("warm")
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        collected = handle({"action": "collect", "options": {"transcript": str(path)}}, project)["context"]
        print(f"   collected window: {count_tokens(collected):,} tokens")
        requests = {
            "collect": {"action": "collect", "options": {"transcript": str(path), "maxLength": 8192}},
            "compress": {"action": "compress", "context": collected, "options": {"maxLength": 8192}},
            "inject": {"action": "inject", "context": collected, "options": {"maxLength": 8192}},
            "clear": {"action": "clear", "options": {"sessionId": "bench"}},
        }
        for name, request in requests.items():
            durations, cpu = [], []
            for _ in range(RUNS):
                started = time.process_time()
                out = handle(request, project)
                cpu.append((time.process_time() - started) * 1000)
                assert out["success"], out
                durations.append(out["metadata"]["duration"])
            wall = _wall(request, project)
            print(f"   {name:8} duration median {statistics.median(durations):6.1f} ms, max {max(durations):6.1f} ms"
                  f" (CPU {statistics.median(cpu):5.1f} ms) | one process, wall clock {wall:6.0f} ms")


def bench_retention(path: Path) -> None:
    session = Session(path)
    session.poll()
    text = window_text(session)
    print(f"\n== retention: {path.name} ({count_tokens(text):,} tokens in the live window)")
    for strategy in ("semantic", "summary", "truncate"):
        for label, ratio in (("2x", 0.5), ("4x", 0.25)):
            r = compress_text(text, strategy, target_ratio=ratio)
            m = r.metadata()
            print(f"   {strategy:8} {label}: {m['compressedLength']:6,} tokens, retention {m['retentionRate']:.3f}"
                  f" ({m['factsKept']}/{m['factsTotal']}, {m['factsNamedOnly']} only named), {m['duration']:.0f} ms")


def bench_in_process(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    cut = next((i for i, line in enumerate(lines) if b'"compact_boundary"' in line), len(lines))
    with tempfile.TemporaryDirectory() as tmp:
        prefix = Path(tmp) / path.name
        prefix.write_bytes(b"".join(lines[:cut]))
        session = Session(prefix)
        session.poll()
        window = window_text(session)
    text = window + "\n\n" + window[: len(window) // 2]
    compress_text("The loader in src/a.py now retries on ETIMEDOUT. " * 400, "semantic", max_length=200)  # imports
    print(f"\n== in process: semantic, maxLength 8192, on a {count_tokens(text):,}-token window ({path.name})")
    cpu, reference = [], []
    for _ in range(RUNS + 2):
        started = time.process_time()
        compress_text(text, "semantic", max_length=8192)
        cpu.append((time.process_time() - started) * 1000)
        started = time.process_time()
        count_tokens(text)
        reference.append((time.process_time() - started) * 1000)
    ref = statistics.median(reference)
    print(f"   first call {cpu[0]:6.1f} ms CPU ({cpu[0] / ref:4.1f}x the reference), repeated median"
          f" {statistics.median(cpu[1:]):6.1f} ms ({statistics.median(cpu[1:]) / ref:4.1f}x);"
          f" reference, counting the window's tokens: {ref:5.1f} ms")


def bench_bm25(path: Path) -> None:
    session = Session(path)
    session.poll()
    with tempfile.TemporaryDirectory() as tmp:
        docs = [terms(d.text) for d in build_index(Path(tmp), Config(), session).docs]
    query = terms("conversation sync session id error")
    print(f"\n== retrieval over {len(docs):,} documents of {path.name}")
    started = time.perf_counter()
    bm25 = BM25(docs)
    indexed = time.perf_counter()
    bm25.scores(query)
    done = time.perf_counter()
    print(f"   hand-written BM25: index {(indexed - started) * 1000:.1f} ms, query {(done - indexed) * 1000:.2f} ms, no import cost")
    code = (
        "import time, json, sys; t=time.perf_counter(); import bm25s; t1=time.perf_counter();"
        "docs=json.loads(sys.stdin.read()); r=bm25s.BM25(); r.index(docs[0], show_progress=False); t2=time.perf_counter();"
        "r.retrieve([docs[1]], k=5, show_progress=False); t3=time.perf_counter();"
        "print(f'{(t1-t)*1e3:.1f} {(t2-t1)*1e3:.1f} {(t3-t2)*1e3:.2f}')"
    )
    try:
        out = subprocess.run([sys.executable, "-c", code], input=json.dumps([[d or ["empty"] for d in docs], query]),
                             text=True, capture_output=True, check=True).stdout.split()
        print(f"   bm25s: cold import {out[0]} ms, index {out[1]} ms, query {out[2]} ms")
    except (subprocess.CalledProcessError, IndexError) as exc:
        print(f"   bm25s: not measured ({exc})")


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or [p for p in DEFAULT if p.is_file()]
    if not paths:
        print("no transcripts: pass paths or provide ../shared/fixtures/transcripts")
        return 1
    if (FIXTURES / CLAUDE_COMPACTED).is_file():
        bench_in_process(FIXTURES / CLAUDE_COMPACTED)
    bench_api(paths[0])
    for path in paths:
        bench_retention(path)
    bench_bm25(paths[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
