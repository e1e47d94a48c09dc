"""Kill run for the shared writers: SIGKILL writers at random moments, then check what is left.

Three writers loop in child processes, each through the real core call:
MEMORY.md through ``append_entries`` (a growing file), a session memory file
through ``update_session_memory``, and handoffs through ``create_exclusive``.
Each is killed ``--kills`` times (SIGKILL a random 0-300 ms after its imports are done). After the
run it prints:

* whether every file is whole (MEMORY.md parses and every entry line is
  complete; the session memory YAML loads; every handoff is complete);
* the temp files left behind by the kills (count and bytes), then the temp
  files still there after one more write with the clock moved past
  ``STALE_TEMP_S`` (target: 0).

Usage: ``python bench/bench_kill_writes.py [--kills 250]``
"""

from __future__ import annotations

import argparse
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib  # noqa: F401  (puts the project on sys.path)

from ctx_tui.memory.memory_md import read_memory
from ctx_tui.memory.session_store import load_session_memory
from ctx_tui.storage import remove_stale_temps

WRITERS = {
    "memory_md": (
        "from ctx_tui.memory.memory_md import NewEntry, append_entries\n"
        "print('ready', flush=True)\n"
        "i = 0\n"
        "while True:\n"
        "    i += 1\n"
        "    append_entries(ROOT / 'MEMORY.md', [NewEntry('Decisions', f'decision {PID}-{i} ' + 'x' * 2000)])\n"
    ),
    "session": (
        "from ctx_tui.memory.items import TrackedItem\n"
        "from ctx_tui.memory.session_store import update_session_memory\n"
        "print('ready', flush=True)\n"
        "i = 0\n"
        "while True:\n"
        "    i += 1\n"
        "    item = TrackedItem(id=f'i{i % 50}', type='finding', content=f'finding {PID}-{i} ' + 'y' * 2000)\n"
        "    update_session_memory(ROOT, 's1', lambda m: m.upsert_item(item))\n"
    ),
    "handoff": (
        "from ctx_tui.storage import create_exclusive\n"
        "print('ready', flush=True)\n"
        "while True:\n"
        "    create_exclusive(ROOT / '.claude' / 'handoffs' / 'h.yaml', 'continuation_context: ' + 'z' * 200000 + '\\nend: true\\n')\n"
    ),
}


def _temps(root: Path) -> list[Path]:
    return [p for p in root.rglob("*.tmp")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=250)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ctx-kill-"))
    (root / ".claude" / "handoffs").mkdir(parents=True)
    rng = random.Random(15)
    started = time.perf_counter()
    for n in range(args.kills):
        name = list(WRITERS)[n % len(WRITERS)]
        code = f"import os\nfrom pathlib import Path\nROOT = Path({str(root)!r}); PID = os.getpid()\n" + WRITERS[name]
        # the writer says "ready" once its imports are done, then writes in a loop until killed
        proc = subprocess.Popen([sys.executable, "-c", code], cwd=benchlib.ROOT, stdout=subprocess.PIPE)
        proc.stdout.readline()
        time.sleep(rng.uniform(0.0, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    took = time.perf_counter() - started
    entries = read_memory(root / "MEMORY.md").entries if (root / "MEMORY.md").exists() else []
    whole_md = all(e.text.endswith("x" * 2000) for e in entries)
    items = load_session_memory(root, "s1").items if (root / ".ctx").exists() else []
    handoffs = list((root / ".claude" / "handoffs").glob("*.yaml"))
    whole_handoffs = all(h.read_text().endswith("end: true\n") for h in handoffs)
    left = _temps(root)
    left_bytes = sum(p.stat().st_size for p in left)
    future = time.time() + 3600
    for folder in {p.parent for p in left}:
        remove_stale_temps(folder, now=future)
    after = _temps(root)
    print(f"{args.kills} kills in {took:.1f} s")
    print(f"MEMORY.md: {len(entries)} entries, all whole: {whole_md}")
    print(f"session memory: {len(items)} items, loads: True")
    print(f"handoffs: {len(handoffs)} files, all whole: {whole_handoffs}")
    print(f"temp files left by the kills: {len(left)} ({left_bytes / 1e6:.1f} MB)")
    print(f"temp files after the next write's clean-up: {len(after)}")


if __name__ == "__main__":
    main()
