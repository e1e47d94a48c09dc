"""Session memory file timings: loading and saving ``.ctx/sessions/<id>.yaml`` with many items.

Writes a session memory of ``--items`` items (registered and extracted, every
type, some dismissed, with referenced rounds; their mirrored notes; one
promotion and one saved summary per 20 items) and prints, in CPU time
(medians of ``--repeat``):

* ``load cold``: ``load_session_memory`` with the parse cache emptied (read,
  YAML, validation: what a fresh process pays);
* ``load cached``: ``load_session_memory`` again (same text: the models built
  from the cached plain data, as the dashboard's poll does);
* ``update, no change``: ``update_session_memory`` with a function that
  changes nothing (the dashboard's poll: nothing is written);
* ``update, one change``: one item's references added (validated, dumped as
  YAML, written with its notes record).

Usage: ``python bench/bench_session_store.py [--items 200] [--repeat 15]``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ctx_tui.memory import session_store
from ctx_tui.memory.items import ItemType, TrackedItem
from ctx_tui.memory.session_store import (
    Promotion,
    SavedSummary,
    SessionMemory,
    load_session_memory,
    update_session_memory,
)

SESSION = "bench-session"
TYPES = list(ItemType)


def fill(memory: SessionMemory, count: int) -> None:
    """``count`` items of every type, a few dismissed, with references; promotions and summaries."""
    for n in range(count):
        kind = TYPES[n % len(TYPES)]
        item = TrackedItem(
            id=f"{kind.value}-{n:05d}",
            type=kind,
            content=f"Item {n}: keep the {kind.value} about module_{n % 97}.py and its cache layer in mind",
            entered_round=n % 300,
            referenced_rounds=[n % 300 + k * 7 for k in range(1, 1 + n % 9)],
            source="extracted" if n % 3 else "registered",
        )
        memory.upsert_item(item)
        if n % 11 == 5:
            memory.dismiss(item.id)
        if n % 20 == 0:
            memory.promotions.append(Promotion(item_id=item.id, type=kind, content=item.content))
            memory.summaries.append(
                SavedSummary(strategy="structured", text=f"summary {n} " * 20, figures={"originalLength": 9000 + n, "retentionRate": 0.25, "duration": "12 ms"})
            )


def cpu(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        update_session_memory(project, SESSION, lambda m: fill(m, args.items))
        first = f"{TYPES[0].value}-00000"
        rounds = iter(range(1_000, 10**9))

        def cold() -> None:
            session_store._PARSED.clear()
            load_session_memory(project, SESSION)

        def one_change() -> None:
            update_session_memory(project, SESSION, lambda m: m.add_references({first: [next(rounds)]}))

        load_session_memory(project, SESSION)
        size = session_store.session_memory_path(project, SESSION).stat().st_size
        print(f"session memory: {args.items} items, {size / 1e6:.2f} MB of YAML; CPU s, medians of {args.repeat}")
        print(f"  load cold           {cpu(cold, args.repeat):.4f}")
        print(f"  load cached         {cpu(lambda: load_session_memory(project, SESSION), args.repeat):.4f}")
        print(f"  update, no change   {cpu(lambda: update_session_memory(project, SESSION, lambda m: None), args.repeat):.4f}")
        print(f"  update, one change  {cpu(one_change, args.repeat):.4f}")


if __name__ == "__main__":
    main()
