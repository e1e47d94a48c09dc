"""Hook wall time on hostile inputs: no input may hold the prompt for 2 s.

Each case prepares a project, then runs ``ctx-tui hook user-prompt-submit``
and ``hook session-start`` as Claude Code does (a subprocess, the hook JSON on
stdin) ``--runs`` times and prints the median and the worst wall time, next to
a clean project measured in the same run (the start-up floor on this machine).

Cases: an alias bomb, nesting 3,000 deep, 2026-13-45 and a 5,000-digit
integer in ``.ctx/config.yaml``; an 8 MB and a deeply nested session memory;
a FIFO as the transcript; 10 MB of stdin; stdin that is not JSON; the
restatement queue's lock held by another process.

    python bench/bench_hostile.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import benchlib  # noqa: F401  (puts the project and tests/ on sys.path)
from actions_support import SESSION_ID, hook_stdin, register, write_transcript
from filelock import FileLock

from ctx_tui.actions.hook_install import install_hooks
from ctx_tui.actions.restate_queue import queue_path
from ctx_tui.memory.session_store import session_memory_path
from ctx_tui.storage import lock_path

PROMPTS = ["Build the export in src/export.py. Never push to main without a review.", "Add the CSV header."]
BOMB = "\n".join(
    [f"a: &a [{', '.join(['1'] * 9)}]"]
    + [f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi")]
) + "\n"


def _config(text: str) -> Callable[[Path], None]:
    return lambda root: (root / ".ctx" / "config.yaml").write_text(text)


def _session_memory(text: str) -> Callable[[Path], None]:
    def prepare(root: Path) -> None:
        path = session_memory_path(root, SESSION_ID)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    return prepare


def _fifo_transcript(root: Path) -> None:
    (root / "fifo.jsonl").unlink(missing_ok=True)
    os.mkfifo(root / "fifo.jsonl")


BIG_MEMORY = "session_id: s\nitems:\n" + "".join(
    f"- id: i{n}\n  type: finding\n  content: \"{'x' * 200}\"\n" for n in range(30_000)
)
CASES: dict[str, Callable[[Path], None] | None] = {
    "clean project": None,
    "config: alias bomb": _config(BOMB),
    "config: nesting 3,000": _config("decay: " + "[" * 3000 + "]" * 3000 + "\n"),
    "config: 2026-13-45": _config("decay:\n  threshold_rounds: 2026-13-45\n"),
    "config: 5,000 digits": _config("decay:\n  threshold_rounds: " + "9" * 5000 + "\n"),
    "session memory: 8 MB": _session_memory(BIG_MEMORY[:7_900_000]),
    "session memory: nesting 3,000": _session_memory("items: " + "[" * 3000 + "]" * 3000 + "\n"),
    "transcript: a FIFO": _fifo_transcript,
    "stdin: 10 MB": None,
    "stdin: not JSON": None,
    "queue lock held": None,
}


def _stdin(case: str, root: Path, transcript: Path, event: str) -> bytes:
    if case == "stdin: 10 MB":
        return json.dumps({**json.loads(hook_stdin(root, event, transcript)), "padding": "p" * 10_000_000}).encode()
    if case == "stdin: not JSON":
        return b"\x1b]52;c;aGk=\x07{not json" * 1000
    if case == "transcript: a FIFO":
        return hook_stdin(root, event, root / "fifo.jsonl", source="compact")
    return hook_stdin(root, event, transcript, source="compact")


def _time(root: Path, hook: str, stdin: bytes) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ctx_tui", "hook", hook], cwd=root, input=stdin, capture_output=True, timeout=120)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'case':<32} {'hook':<20} {'median':>8} {'worst':>8}")
    for case, prepare in CASES.items():
        with tempfile.TemporaryDirectory(prefix="ctx-hostile-") as folder:
            root = Path(folder)
            install_hooks(root)
            transcript = write_transcript(root, PROMPTS)
            register(root, "no-push", "constraint", "Never push to main without a review")
            if prepare is not None:
                prepare(root)
            for hook, event in (("user-prompt-submit", "UserPromptSubmit"), ("session-start", "SessionStart")):
                stdin = _stdin(case, root, transcript, event)
                times = []
                for _ in range(args.runs):
                    if case == "queue lock held":
                        queue_path(root, SESSION_ID).parent.mkdir(parents=True, exist_ok=True)
                        queue_path(root, SESSION_ID).write_text("[]")
                        with FileLock(str(lock_path(queue_path(root, SESSION_ID)))):
                            times.append(_time(root, hook, stdin))
                    else:
                        times.append(_time(root, hook, stdin))
                print(f"{case:<32} {hook:<20} {statistics.median(times):>7.2f}s {max(times):>7.2f}s")


if __name__ == "__main__":
    main()
