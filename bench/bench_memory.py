"""Memory-model timings: ``build_memory_view`` on a long synthetic session.

Writes a generic chat transcript of ``--rounds`` rounds (a user prompt, an
assistant reply, a tool call and a tool result per round, words drawn from a
fixed vocabulary) and registers ``--items`` items, then prints:

* the first view (key terms of every entry, extraction, references, decay);
* the steady view with nothing new (what the dashboard pays per refresh);
* the view after one appended round (the reference scan reads only the new
  entries), median over ``--appends`` appends, in CPU time: the memory part
  (``build_memory_view`` given the window state, as the dashboard calls it)
  and, apart, ``session.state()`` itself;
* the reference scan alone per appended entry (``occurrences`` over the
  tracked items for one appended round, divided by its entries).

``--mb 100`` sizes the session by file size instead of rounds.

Usage: ``python bench/bench_memory.py [--rounds 2500 | --mb 100] [--items 40] [--appends 10]``
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from ctx_tui.config import Config
from ctx_tui.memory.items import ItemType
from ctx_tui.memory.references import occurrences
from ctx_tui.memory.registry import register_item
from ctx_tui.memory.view import build_memory_view, session_id_of
from ctx_tui.window import Session

VOCABULARY = (
    "parser config session cache deploy database widget layout render token stream buffer handler request "
    "response module function test build release schema migration index query router client server queue "
    "worker retry timeout backoff metric logger trace span batch shard replica cluster node pod volume"
).split()


def _para(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(VOCABULARY) + (str(rng.randint(0, 500)) if rng.random() < 0.2 else "") for _ in range(words))


def _round(rng: random.Random, r: int) -> list[dict[str, object]]:
    return [
        {"role": "user", "content": _para(rng, 40) + (" Never deploy on Fridays." if r % 50 == 1 else "")},
        {"role": "assistant", "content": _para(rng, 200)},
        {"role": "assistant", "content": "", "tool_calls": [{"id": f"c{r}", "function": {"name": "bash", "arguments": json.dumps({"cmd": "ls"})}}]},
        {"role": "tool", "content": _para(rng, 300), "tool_call_id": f"c{r}"},
    ]


def _cpu_ms(start: float) -> float:
    return (time.process_time() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2500)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--appends", type=int, default=10)
    parser.add_argument("--mb", type=float, default=0.0, help="write rounds until the file is this many MB")
    args = parser.parse_args()
    rng = random.Random(7)
    project = Path(tempfile.mkdtemp(prefix="ctx-bench-memory-"))
    path = project / "session.jsonl"
    with path.open("w") as fh:
        r = 0
        while (r < args.rounds) if not args.mb else (fh.tell() < args.mb * 1e6):
            r += 1
            fh.writelines(json.dumps(row) + "\n" for row in _round(rng, r))
    args.rounds = r
    session = Session(path, Config())
    session.poll()
    sid = session_id_of(session)
    for i in range(args.items):
        register_item(project, sid, f"item{i}", ItemType.CONSTRAINT, _para(rng, 8), 1)
    print(f"session: {args.rounds} rounds, {len(session.entries):,} entries, {path.stat().st_size / 1e6:.1f} MB, {args.items} registered items")
    start = time.process_time()
    view = build_memory_view(project, session, Config())
    print(f"first view:  {_cpu_ms(start):8.0f} ms CPU ({len(view.statuses)} items, {len(view.flagged)} flagged)")
    steady = []
    for _ in range(5):
        start = time.process_time()
        build_memory_view(project, session, Config())
        steady.append(_cpu_ms(start))
    print(f"steady view: {statistics.median(steady):8.1f} ms CPU (median of 5)")
    after, window = [], []
    for k in range(args.appends):
        with path.open("a") as fh:
            fh.writelines(json.dumps(row) + "\n" for row in _round(rng, args.rounds + k + 1))
        session.poll()
        start = time.process_time()
        state = session.state()  # the dashboard computes it anyway and hands it over
        window.append(_cpu_ms(start))
        start = time.process_time()
        build_memory_view(project, session, Config(), state=state)
        after.append(_cpu_ms(start))
    print(f"after append: {statistics.median(after):7.1f} ms CPU, the memory part (median of {args.appends}), worst {max(after):.1f} ms")
    print(f"  + window state: {statistics.median(window):5.1f} ms CPU (session.state(), not memory's)")
    items = [i for i in build_memory_view(project, session, Config()).memory.items if not i.dismissed]
    per_entry = []
    for k in range(args.appends):
        with path.open("a") as fh:
            fh.writelines(json.dumps(row) + "\n" for row in _round(rng, args.rounds + args.appends + k + 1))
        before = len(session.entries)
        session.poll()
        start = time.process_time()
        occurrences(items, session.entries, Config().decay.reference_threshold)
        per_entry.append(_cpu_ms(start) / max(1, len(session.entries) - before))
    print(f"reference scan: {statistics.median(per_entry):6.2f} ms per appended entry (median, {len(items)} items)")


if __name__ == "__main__":
    main()
