"""How long ``ctx-tui statusline`` takes per call, against ``python -c pass`` measured in the same run.

Claude Code runs the status line command after every message, so a call must
cost about as much as starting Python (the target: at most 2x ``python -c
pass``), whatever the transcript's size. This script grows a synthetic Claude
Code session (default ~100 MB, large tool results as real sessions have), then
times, alternating the cases run by run and taking medians of wall and CPU time:

* ``python -c pass`` with the same interpreter (the reference);
* a call with the cache warm and the file unchanged;
* a call after one round was appended (reads only the new bytes);
* a call where Claude Code sends its own context_window figures;
* a call after ctx-tui changed the session memory file (its notes record read);
* a cold call (the user cache emptied first: reads the file's tail);
* a call after the session memory file was edited by hand (YAML parsed once).

Each case runs two ways, each against its own venv's reference: the
development venv's ``ctx-tui`` script (an editable install, as this bench
first measured it: its finder imports pathlib and re at every start, the
reference's included), and the command ``statusline install`` writes into
Claude Code's settings, run by a venv that has this tree as a wheel install
has it (``benchlib.installed_ctx_tui``): what a user's status bar runs.
Children run with their bytecode cached, as an installed ctx-tui does
(``benchlib.child_env``).

    python bench/bench_statusline.py [--mb 100] [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import benchlib  # puts the project on sys.path
from bench_hooks import SESSION, _rows, grow

from ctx_tui.actions.hook_install import statusline_command
from ctx_tui.memory.session_store import Note, update_session_memory


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(cmd: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    cpu, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, input=stdin, capture_output=True, env=env, timeout=60)
    wall, cpu = time.perf_counter() - started, _children_cpu() - cpu
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{cmd} failed: {done.returncode} {done.stderr!r}")
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    script = Path(sys.executable).parent / "ctx-tui"
    if not script.is_file():
        raise SystemExit(f"{script}: not found (pip install -e . in this venv first)")

    with tempfile.TemporaryDirectory(prefix="ctx-bench-statusline-") as tmp:
        project = Path(tmp)
        transcript = project / f"{SESSION}.jsonl"
        rounds = grow(transcript, args.mb * 1024 * 1024)
        print(f"transcript: {transcript.stat().st_size / 1e6:.1f} MB, {rounds} rounds")
        memory = project / ".ctx" / "sessions" / f"{SESSION}.yaml"
        memory.parent.mkdir(parents=True)
        memory.write_text(
            "session_id: " + SESSION + "\nitems:\n- id: no-push\n  type: constraint\n  importance: high\n"
            "  content: Never push to main without a review\n  entered_round: 1\n  referenced_rounds: []\n"
            "decay_reported:\n  no-push: decayed@1\npromotions: []\n"
        )
        env = benchlib.child_env(XDG_CACHE_HOME=str(project / "cache"), NO_COLOR="1")
        base = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(project)}
        stdin = json.dumps(base).encode()
        with_cc = json.dumps({**base, "context_window": {"context_window_size": 200_000, "current_usage": {
            "input_tokens": 10, "cache_creation_input_tokens": 500, "cache_read_input_tokens": 90_000}}}).encode()
        appended = [rounds]
        notes = [0]

        def append() -> None:
            appended[0] += 1
            with transcript.open("a", encoding="utf-8") as fh:
                fh.write("".join(json.dumps(r) + "\n" for r in _rows(appended[0], project)))

        def touch_memory() -> None:
            memory.write_text(memory.read_text() + "\n")

        def note_progress() -> None:  # what the dashboard and the hooks do: a change through session_store
            notes[0] += 1
            update_session_memory(project, SESSION, lambda m: m.progress.append(Note(text=f"step {notes[0]}")))

        python, _script = benchlib.installed_ctx_tui(project / "venv")
        ways = {  # the reference and the statusline command of each
            "editable, ctx-tui script": ([sys.executable, "-c", "pass"], [str(script), "statusline"]),
            "installed, settings.json command": ([python, "-c", "pass"],
                                                 [python, *shlex.split(statusline_command())[1:]]),
        }
        cases: list[tuple[str, bytes, Callable[[], None] | None]] = [
            ("python -c pass (reference)", b"", None),
            ("statusline, warm cache, file unchanged", stdin, None),
            ("statusline, one round appended", stdin, append),
            ("statusline, Claude Code's figures on stdin", with_cc, None),
            ("statusline, memory changed by ctx-tui", stdin, note_progress),
            # after a change by ctx-tui, so that the memory is summarised from its notes record as a new
            # session's first call does (a hand edit comes next: YAML, the case below)
            ("statusline, cold (cache emptied)", stdin,
             lambda: shutil.rmtree(project / "cache", ignore_errors=True)),
            ("statusline, memory edited by hand (YAML)", stdin, touch_memory),
        ]
        for _reference, statusline in ways.values():
            _run(statusline, stdin, env)  # compile bytecode, fill the cache
        print("line:", _run(statusline, stdin, env)[2].decode().strip())
        walls: dict[tuple[str, str], list[float]] = {(label, way): [] for label, *_ in cases for way in ways}
        cpus: dict[tuple[str, str], list[float]] = {(label, way): [] for label, *_ in cases for way in ways}
        for _ in range(args.runs):
            for label, data, prepare in cases:  # alternating: the machine's load hits every case alike
                for way, (reference, statusline) in ways.items():
                    if prepare:
                        prepare()
                    wall, cpu, _out = _run(reference if label == cases[0][0] else statusline, data, env)
                    walls[label, way].append(wall)
                    cpus[label, way].append(cpu)
        for way in ways:
            ref_wall = statistics.median(walls[cases[0][0], way])
            ref_cpu = statistics.median(cpus[cases[0][0], way])
            print(f"{way:44} {'wall ms':>8} {'CPU ms':>7} {'x pass (wall)':>14} {'x pass (CPU)':>13}")
            for label, *_ in cases:
                wall, cpu = statistics.median(walls[label, way]), statistics.median(cpus[label, way])
                print(f"{label:44} {wall * 1000:8.1f} {cpu * 1000:7.1f} {wall / ref_wall:14.2f} {cpu / ref_cpu:13.2f}")

if __name__ == "__main__":
    main()
