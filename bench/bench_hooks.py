"""How fast the Claude Code hooks answer, on a ~100 MB transcript.

Claude Code starts a hook process for every prompt and waits for it, so each
hook must answer well under a second whatever the transcript's size. This
script grows a synthetic Claude Code session to about 100 MB (large tool
results, as real sessions have), then runs each hook as Claude Code does (a
subprocess with the hook JSON on stdin), with ``--version`` and ``--help``,
alternated round by round with the reference ``python -c pass`` so that load
on the machine hits them alike. It prints the median wall and CPU time of each
and its ratio to the reference measured in the same run (targets: the empty
prompt hook <= 1.5x, delivering a restatement, session-start, --version and
--help <= 2x; ``--help`` prints the text its first run rendered with argparse
and kept in the user's cache, and that first run is timed too), and ``python -c "import json, signal"``: what the hooks
imported to read their stdin and keep their time budget (SIGALRM) before
``ctx_tui.json_light`` and ``_signal``. It also times the detached jobs that read the
transcript (auto-refresh and the pre-compact summary): the hooks never wait
for them.

Each command runs three ways, each against its own venv's reference: ``python
-m ctx_tui`` in the development venv (an editable install, as this bench first
measured it), and in a venv that has ctx_tui as a wheel install has it
(``benchlib.installed_ctx_tui``) the ``ctx-tui`` console script (what a user
types; pip's template imports re) and the command ``hook install`` writes
into Claude Code's settings (that venv's python, ``-P -c`` on main): the editable
install's finder imports pathlib, contextlib and re at every start of its
interpreter, the reference's included, which a user's ctx-tui does not have.
Children run with their bytecode cached, as an installed ctx-tui does
(``benchlib.child_env``).

    python bench/bench_hooks.py [--mb 100] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import benchlib
from ctx_tui import audit, usercache
from ctx_tui.cli import HELP_FILE
from ctx_tui.actions.hook_install import ctx_tui_command
from ctx_tui.actions.restate_queue import QueuedItem, enqueue
from ctx_tui.memory.items import TrackedItem
from ctx_tui.memory.session_store import update_session_memory

SESSION = "0b7e4a52-3f1c-4a8e-9d6b-2c5f8e1a7d30"
FILLER = "".join(f"    line {n}: value = compute(item_{n}, cache[{n}])  # padding\n" for n in range(600))


def _rows(round_: int, cwd: Path) -> list[dict]:
    stamp = f"2026-03-01T{10 + round_ // 3600 % 10:02d}:{round_ // 60 % 60:02d}:{round_ % 60:02d}.000Z"
    common = {"sessionId": SESSION, "cwd": str(cwd), "version": "2.0.76", "timestamp": stamp}
    prompt = "Build the exporter. Never push to main without a review." if round_ == 1 else f"Continue with step {round_}."
    usage = {"input_tokens": 50, "output_tokens": 20, "cache_creation_input_tokens": 500,
             "cache_read_input_tokens": 90_000 + round_ % 50_000}
    return [
        {**common, "type": "user", "uuid": f"u{round_}", "message": {"role": "user", "content": prompt}},
        {**common, "type": "assistant", "uuid": f"c{round_}", "message": {
            "id": f"m{round_}", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
            "content": [{"type": "tool_use", "id": f"t{round_}", "name": "Read", "input": {"file_path": f"src/m{round_}.py"}}]}},
        {**common, "type": "user", "uuid": f"r{round_}", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{round_}", "content": FILLER}]}},
        {**common, "type": "assistant", "uuid": f"a{round_}", "message": {
            "id": f"n{round_}", "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
            "content": [{"type": "text", "text": f"Step {round_} done."}]}},
    ]


def grow(path: Path, target_bytes: int) -> int:
    """Write rounds until the file reaches ``target_bytes``; the number of rounds."""
    round_ = 0
    with path.open("w", encoding="utf-8") as fh:
        while fh.tell() < target_bytes:
            round_ += 1
            fh.write("".join(json.dumps(r) + "\n" for r in _rows(round_, path.parent)))
    return round_


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


CPU: list[float] = []  # CPU seconds of each hook process, next to its wall time
CHILD_ENV: dict[str, str] = benchlib.child_env()


def run_hook(project: Path, hook: str, stdin: dict) -> tuple[float, bytes]:
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ctx_tui", "hook", hook], cwd=project, env=CHILD_ENV,
                          input=json.dumps(stdin).encode(), capture_output=True, timeout=120)
    elapsed = time.perf_counter() - started
    CPU.append(_children_cpu() - cpu)
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"hook {hook} failed: {done.returncode} {done.stderr!r}")
    return elapsed, done.stdout


def run_child(argv: list[str], cwd: Path, stdin: dict | None) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of the command ``argv`` (stdin JSON if given), and its stdout."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=120, env=CHILD_ENV,
                          input=json.dumps(stdin).encode() if stdin is not None else b"")
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{argv} failed: {done.returncode} {done.stderr!r}")
    return elapsed, _children_cpu() - cpu, done.stdout


def wait_for(condition: Callable[[], bool], timeout: float = 600) -> float:
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > timeout:
            raise SystemExit("timed out waiting for a deferred job")
        time.sleep(0.05)
    return time.perf_counter() - started


def forget_help() -> None:
    """Delete ``--help``'s kept text (``ctx_tui.cli.print_top_help``) from the user's cache the children share."""
    Path(usercache.cache_dir(), HELP_FILE).unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ctx-bench-hooks-") as tmp:
        project = Path(tmp)
        transcript = project / f"{SESSION}.jsonl"
        started = time.perf_counter()
        rounds = grow(transcript, args.mb * 1024 * 1024)
        print(f"transcript: {transcript.stat().st_size / 1e6:.1f} MB, {rounds} rounds "
              f"(written in {time.perf_counter() - started:.1f} s)")
        item = TrackedItem(id="no-push", type="constraint", content="Never push to main without a review")
        update_session_memory(project, SESSION, lambda m: m.upsert_item(item))
        base = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(project)}
        ups = {**base, "hook_event_name": "UserPromptSubmit", "prompt": "next"}

        # argv: ctx-tui's arguments, or Python code (a str) run by the same interpreter
        cases: list[tuple[str, list[str] | str, dict | None, Callable[[], object] | None, str]] = [
            ("python -c pass (the reference)", "pass", None, None, ""),
            ("python -c 'import json, signal'", "import json, signal", None, None, ""),
            ("--version", ["--version"], None, None, "2.0"),
            ("--help, first (rendered by argparse, kept)", ["--help"], None, forget_help, ""),
            ("--help (the kept text)", ["--help"], None, None, "2.0"),
            ("hook user-prompt-submit, empty queue", ["hook", "user-prompt-submit"], ups, None, "1.5"),
            ("hook user-prompt-submit, 5 queued items", ["hook", "user-prompt-submit"], ups,
             lambda: enqueue(project, SESSION, [QueuedItem(f"i{n}", "constraint", "high", f"fact {n}") for n in range(5)]),
             "2.0"),
            ("hook session-start (source compact)", ["hook", "session-start"],
             {**base, "hook_event_name": "SessionStart", "source": "compact"}, None, "2.0"),
        ]
        # Each case three ways: as this bench first ran it (the development venv's python -m ctx_tui,
        # an editable install), and as a user's install runs it (benchlib.installed_ctx_tui): the
        # ctx-tui console script (what a user types, and what hook install wrote before 2480ce9),
        # and the command hook install writes into settings.json, run by that venv's python.
        python, script = benchlib.installed_ctx_tui(Path(tmp) / "venv")
        settings_command = [python, *shlex.split(ctx_tui_command())[1:]]
        ways = {
            "editable, python -m": lambda argv: [sys.executable, *(["-c", argv] if isinstance(argv, str) else ["-m", "ctx_tui", *argv])],
            "installed, console script": lambda argv: [python, "-c", argv] if isinstance(argv, str) else [script, *argv],
            "installed, settings.json command": lambda argv: [python, "-c", argv] if isinstance(argv, str) else [*settings_command, *argv],
        }
        for _label, argv, stdin, _prepare, _target in cases:  # untimed: writes the bytecode
            for way in ways.values():
                run_child(way(argv), project, stdin)
        walls: dict[tuple[str, str], list[float]] = {(c[0], w): [] for c in cases for w in ways}
        cpus: dict[tuple[str, str], list[float]] = {(c[0], w): [] for c in cases for w in ways}
        for _ in range(args.runs):  # round by round, so each case sees the same load
            for label, argv, stdin, prepare, _target in cases:
                for way, command in ways.items():
                    if prepare:
                        prepare()
                    wall, cpu, out = run_child(command(argv), project, stdin)
                    if stdin is not None and "queued" in label and b"additionalContext" not in out:
                        raise SystemExit(f"{label}: nothing delivered")
                    walls[label, way].append(wall)
                    cpus[label, way].append(cpu)
        for way in ways:
            ref = cases[0][0]
            ref_wall, ref_cpu = statistics.median(walls[ref, way]), statistics.median(cpus[ref, way])
            print(f"{way + ': median of ' + str(args.runs) + ' alternated runs':44} {'wall':>8} {'cpu':>8} {'wall x':>7} {'cpu x':>6}  target")
            for label, *_rest, target in cases:
                wall, cpu = statistics.median(walls[label, way]), statistics.median(cpus[label, way])
                print(f"{label:44} {wall * 1000:6.1f}ms {cpu * 1000:6.1f}ms {wall / ref_wall:6.2f}x {cpu / ref_cpu:5.2f}x"
                      f"  {'<= ' + target + 'x' if target else ''}")

        # auto-refresh on: the hook answers at once, a detached job analyses the 100 MB
        def done(action: str, count: int = 1) -> Callable[[], bool]:
            return lambda: sum(e["action"] == action for e in audit.read_events(project)) >= count

        (project / ".ctx" / "config.yaml").write_text("decay:\n  auto_refresh: true\n")
        elapsed, _ = run_hook(project, "user-prompt-submit", ups)
        job = wait_for(done("restate.auto_refreshed"))
        print(f"{'user-prompt-submit, auto_refresh on':48} {elapsed * 1000:7.0f} ms wall, "
              f"{CPU.pop() * 1000:.0f} ms CPU; the detached analysis finished {job:.1f} s later")
        elapsed, out = run_hook(project, "user-prompt-submit", ups)
        print(f"{'  next prompt delivers what it queued':48} {elapsed * 1000:7.0f} ms wall, "
              f"{CPU.pop() * 1000:.0f} ms CPU, {len(out)} bytes of JSON")
        wait_for(done("restate.auto_refreshed", 2))
        (project / ".ctx" / "config.yaml").write_text("")

        pre = {**base, "hook_event_name": "PreCompact", "trigger": "auto"}
        elapsed, _ = run_hook(project, "pre-compact", pre)
        job = wait_for(done("compress.saved"))
        print(f"{'pre-compact':48} {elapsed * 1000:7.0f} ms wall, {CPU.pop() * 1000:.0f} ms CPU; "
              f"the detached summary was saved {job:.1f} s later")

if __name__ == "__main__":
    main()
