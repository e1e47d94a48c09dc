"""Benchmark: a fresh ``ctx-tui api`` process compressing an 8k-token window (issue 13, target 5b: <= 200 ms).

Run from the project root: ``python bench/bench_api_start.py [--runs N] [--code DIR ...]``.

Each timed run is one ``python -m ctx_tui api --request FILE`` process
answering ``{"action": "compress", "context": <8k-token window>}`` (the
defaults: semantic, ratio 0.5, maxLength 8192), with its bytecode cached as an
installed copy has it (``benchlib.child_env``), alternated with ``python -c
pass`` (the reference, measured in the same loop). Printed: median wall clock
and median CPU time (user + system of the child) of each case, and of the
reference.

The windows are the last 8,192 tokens of real sessions (the fixtures'
collected windows, cut at a section boundary): the end of the Codex session
(``repeat``, ``new session``) and the Claude Code one (``growing``). Cases:

* ``repeat``: the same window every call (a caller retrying, or polling an idle session);
* ``growing``: each call's window ends one section later than the previous one
  (a session that grows between calls: the usual case);
* ``new session``: the ``repeat`` window with a user cache holding only what
  a call on another session left (the tokenizer's parsed ranks, the counts of
  that other window): a window this user has never compressed;
* ``non-ASCII letters``: ``repeat`` on a window with Japanese text (the
  Japanese Claude Code session after the end of the Codex one).

``--code DIR`` (repeatable) times the ``ctx_tui`` package found in DIR
instead of this checkout (e.g. an exported copy of main), alternated with
the others in the same loop: compare versions within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import CLAUDE_COMPACTED, CLAUDE_SHORT, CODEX_FULL, FIXTURES, ROOT, child_env

from ctx_tui.tokens import count_tokens
from ctx_tui.transcripts.render import parse_sections, render_entries
from ctx_tui.window import Session

WINDOW = 8192


def _child(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess[bytes]]:
    """Wall and CPU milliseconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, env=env, cwd=cwd)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu, done


def _sections(path: Path) -> list[str]:
    session = Session(path)
    session.poll()
    text = render_entries(w.entry for w in session.state().live)
    sections = parse_sections(text) or []
    return [s.text for s in sections]


def _window(sections: list[str], end: int) -> str:
    """The last sections before ``end`` that fit ``WINDOW`` tokens together."""
    kept: list[str] = []
    total = 0
    for text in reversed(sections[:end]):
        n = count_tokens(text) + 1
        if total + n > WINDOW:
            if not kept:  # one section over the window: its end
                kept.append(text[-WINDOW * 3:])
            break
        kept.append(text)
        total += n
    return "\n\n".join(reversed(kept))


def _request(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"action": "compress", "context": text}))
    return path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--code", type=Path, action="append", default=[],
                        help="a folder holding a ctx_tui package to time instead of this checkout (repeatable)")
    args = parser.parse_args(argv)
    growing_src, other_src = FIXTURES / CLAUDE_COMPACTED, FIXTURES / CODEX_FULL
    if not growing_src.is_file() or not other_src.is_file():
        print("no fixtures: ../shared/fixtures/transcripts is needed")
        return 1
    sections = _sections(growing_src)
    other_sections = _sections(other_src)
    other = _window(other_sections, 10**9)
    japanese = FIXTURES / CLAUDE_SHORT
    unicode = _window(other_sections + _sections(japanese), 10**9) if japanese.is_file() else other
    steps = args.runs + 1
    start = len(sections) - steps
    while start > 0 and count_tokens(_window(sections, start)) < WINDOW * 0.9:
        start -= 1  # a window that is full (the end of this session may hold short sections only)
    growing = [_window(sections, start + i + 1) for i in range(steps)]
    versions = [d.resolve() for d in args.code] or [ROOT]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        requests = work / "requests"
        requests.mkdir()
        repeat = _request(requests, "repeat", other)
        repeat_unicode = _request(requests, "unicode", unicode)
        grow = [_request(requests, f"grow{i}", w) for i, w in enumerate(growing)]
        seed = grow[0]
        print(f"non-ASCII letters: {count_tokens(unicode):,} tokens (the Japanese session after the end of the Codex one)")
        print(f"repeat and new session: {count_tokens(other):,} tokens ({other_src.name});"
              f" growing: {len(growing)} windows of {min(map(count_tokens, growing)):,}-{max(map(count_tokens, growing)):,}"
              f" tokens ({growing_src.name}), the first one the new session's seed")
        cases: list[tuple[str, Path, Path]] = []  # (label, code, cache home)
        for code in versions:
            tag = code.name if len(versions) > 1 else ""
            for case in ("repeat", "growing", "new session", "non-ASCII letters"):
                cases.append((f"{tag} {case}".strip(), code, work / f"cache-{len(cases)}"))
        project = work / "project"
        project.mkdir()
        api = [sys.executable, "-m", "ctx_tui", "api", "--request"]

        def env_for(code: Path, home: Path) -> dict[str, str]:
            return child_env(PYTHONPATH=str(code), XDG_CACHE_HOME=str(home))

        for label, code, home in cases:  # untimed: bytecode written, caches filled as a user's would be
            home.mkdir()
            first = {"growing": grow[0], "session": seed, "letters": repeat_unicode}.get(label.split()[-1], repeat)
            done = _child(api + [str(first)], env_for(code, home), project)[2]
            reply = json.loads(done.stdout)
            assert reply["success"], reply
        walls: dict[str, list[float]] = {c[0]: [] for c in cases}
        cpus: dict[str, list[float]] = {c[0]: [] for c in cases}
        ref_wall: list[float] = []
        ref_cpu: list[float] = []
        ref_env = child_env()
        for run in range(args.runs):
            order = cases[run % len(cases):] + cases[: run % len(cases)]
            for label, code, home in order:
                wall, cpu, _ = _child([sys.executable, "-c", "pass"], ref_env, project)
                ref_wall.append(wall)
                ref_cpu.append(cpu)
                # growing: the previous call (timed or not) saw the window one section shorter
                request = {"growing": grow[run + 1], "letters": repeat_unicode}.get(label.split()[-1], repeat)
                if label.endswith("new session"):
                    fresh = work / "fresh"
                    shutil.rmtree(fresh, ignore_errors=True)
                    shutil.copytree(home, fresh)
                    wall, cpu, _ = _child(api + [str(request)], env_for(code, fresh), project)
                else:
                    wall, cpu, _ = _child(api + [str(request)], env_for(code, home), project)
                walls[label].append(wall)
                cpus[label].append(cpu)
        print(f"reference python -c pass: wall {statistics.median(ref_wall):5.1f} ms, CPU {statistics.median(ref_cpu):5.1f} ms"
              f" (median of {len(ref_wall)})")
        for label, *_ in cases:
            w, c = statistics.median(walls[label]), statistics.median(cpus[label])
            print(f"{label:>28}: wall {w:6.1f} ms (min {min(walls[label]):6.1f}), CPU {c:6.1f} ms"
                  f" | {w / statistics.median(ref_wall):4.1f}x / {c / statistics.median(ref_cpu):4.1f}x the reference")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
