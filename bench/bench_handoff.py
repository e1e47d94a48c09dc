"""Handoff figures: gate latency (the TUI form calls it on every keystroke) and prefill time.

    python bench/bench_handoff.py

Target: the gate under 2 ms at 500 words (it is called debounced on every
keystroke). Prints the median and 99th percentile of CPU time per case (the
machine is shared: CPU time is the steadier figure): "keystroke", the same
draft checked again (the gate's caches of tokens and sentences warm: what
the form does while a user types), and "cold", every cache emptied before
each call (a pasted text whose every word and sentence is new). Then the
prefill time for each shared real transcript (skipped when ../shared is absent).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchlib import FIXTURES

from ctx_tui.config import Config
from ctx_tui.handoff.gate import check_handoff, concrete, context_rules, text
from ctx_tui.handoff.prefill import prefill_from_session
from ctx_tui.window import Session
from test_handoff_gate import BASE, make


def _empty_caches() -> None:
    for cached in (concrete._token, context_rules._shows_state, context_rules._restates, text.stem):
        cached.cache_clear()


def timed(fn: Callable[[], object], runs: int, cold: bool = False) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        if cold:
            _empty_caches()
        start = time.process_time()
        fn()
        samples.append((time.process_time() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99) - 1]


def main() -> None:
    project = Path(tempfile.mkdtemp())
    files = [f"src/module_{i}.py" for i in range(40)]
    for name in files[:20]:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("")
    long_context = " ".join([BASE["continuation_context"]] * 8)  # ~370 words, state in its 2nd sentence
    # 494 words naming things without their state: every rule reads every sentence (the worst case;
    # at 46 repeats, 598 words, the context is refused as too long before its sentences are read)
    vague_context = " ".join(["The refactor touches src/io.py and the reader module, which parse_rows() uses."] * 38)
    blocked = make(task={"blockers": ["Legal (Herr Brandt) has to confirm the licence of 37 rows, asked 05-14",
                                      "something weird with source maps"]},
                   continuation_context=BASE["continuation_context"] + " Nothing can go to staging until SEC-318 "
                   "is signed off; the runner calls poll(), waits on isRunning, saves.",
                   suggested_first_action="Add a --report-unmapped flag to scripts/import_bmdv.py for legal")
    cases = {
        "typical handoff": (make(), None),
        "4 blockers (2 in prose)": (blocked, None),
        "typical, 40 files stat'ed": (make(files_modified=files), project),
        "370-word context": (make(continuation_context=long_context), None),
        "494-word vague context": (make(continuation_context=vague_context), None),
        "half-typed draft": ({"continuation_context": "Fix the par", "task_state": {"completion_pct": 5}}, None),
        "wrong types everywhere": ({"task_state": "x", "files_modified": 3, "decisions_made": [1, 2]}, None),
    }
    print("gate (check_handoff), CPU µs, 1000 runs each:")
    for label, (data, proj) in cases.items():
        median, p99 = timed(lambda: check_handoff(data, proj), 1000)
        cold, cold_p99 = timed(lambda: check_handoff(data, proj), 1000, cold=True)
        print(f"  {label:<28} keystroke median {median * 1000:6.0f} p99 {p99 * 1000:6.0f}"
              f" | cold median {cold * 1000:6.0f} p99 {cold_p99 * 1000:6.0f}")
    if not FIXTURES.is_dir():
        print("prefill: shared fixtures absent, skipped")
        return
    print("prefill (session already polled), 20 runs each:")
    for path in sorted(FIXTURES.glob("*/*.jsonl")):
        session = Session(path)
        session.poll()
        prefill_from_session(session, project, Config())  # warm the token cache
        median, p99 = timed(lambda: prefill_from_session(session, project, Config()), 20)
        print(f"  {path.name[:50]:<50} median {median:6.1f} ms   p99 {p99:6.1f} ms")


if __name__ == "__main__":
    main()
