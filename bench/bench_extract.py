"""Extraction timings on a ~100 MB session built from the real Claude fixture.

Copies the rows of the shared compacted Claude transcript until the file
reaches ``--mb`` megabytes, each copy's user and assistant text made unique
(a copy number appended), so the per-text cache cannot hide the work. Prints:

* the cold read of the file (reader only) and the number of entries;
* the cold extraction over all entries (median of ``--repeat`` runs, each on
  a fresh list so nothing is cached across runs), per entry and per
  user/assistant entry (the "typical entry" extraction reads);
* one appended round read incrementally (median);
* with ``--compare REV``: the extractor of git revision REV on the same
  entries, alternated with the current one (the machine is shared: compare
  medians taken in the same run).

Times are CPU seconds of this process (``time.process_time``): on a shared
machine wall-clock times measure the other processes as much as this one.

Usage: ``python bench/bench_extract.py [--mb 100] [--repeat 3] [--compare REV]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib

from ctx_tui.memory import extract as current
from ctx_tui.transcripts.model import Kind
from ctx_tui.window import Session


def _build(path: Path, megabytes: int) -> None:
    rows = [json.loads(line) for line in (benchlib.FIXTURES / benchlib.CLAUDE_COMPACTED).read_text().splitlines() if line.strip()]
    target = megabytes * 1_000_000
    written = 0
    copy = 0
    with path.open("w", encoding="utf-8") as out:
        while written < target:
            copy += 1
            for row in rows:
                message = row.get("message")
                if isinstance(message, dict) and row.get("type") in ("user", "assistant"):
                    content = message.get("content")
                    if isinstance(content, str):
                        message = {**message, "content": f"{content} (copy {copy})"}
                    elif isinstance(content, list):
                        message = {**message, "content": [
                            {**b, "text": f"{b['text']} (copy {copy})"} if isinstance(b, dict) and isinstance(b.get("text"), str) else b
                            for b in content
                        ]}
                    row = {**row, "message": message, "uuid": f"{row.get('uuid')}-{copy}"}
                line = json.dumps(row) + "\n"
                out.write(line)
                written += len(line.encode())


def _load_revision(rev: str):
    source = subprocess.run(
        ["git", "-C", str(benchlib.ROOT), "show", f"{rev}:ctx_tui/memory/extract.py"], capture_output=True, text=True, check=True
    ).stdout
    spec = importlib.util.spec_from_loader(f"extract_{rev}", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    exec(compile(source, f"extract@{rev}", "exec"), module.__dict__)
    return module


def _time_cold(module, entries) -> float:
    for cached in list(vars(module).values()):  # the per-text caches (statements, asks): each run cold
        if callable(getattr(cached, "cache_clear", None)):
            cached.cache_clear()
    fresh = list(entries)
    start = time.process_time()
    module.extract_items(fresh)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare", default=None, help="git revision whose extractor to time alongside")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        _build(path, args.mb)
        size = path.stat().st_size
        start = time.process_time()
        session = Session(path)
        session.poll()
        read = time.process_time() - start
        entries = session.entries
        typical = sum(1 for e in entries if e.kind in (Kind.USER, Kind.ASSISTANT) and not e.is_sidechain)
        print(f"file {size / 1e6:.1f} MB, {len(entries):,} entries ({typical:,} user/assistant); cold read (reader) {read:.2f} s")
        modules = [("current", current)]
        if args.compare:
            modules.append((args.compare, _load_revision(args.compare)))
        times: dict[str, list[float]] = {name: [] for name, _ in modules}
        for _ in range(args.repeat):
            for name, module in modules:
                times[name].append(_time_cold(module, entries))
        for name, _ in modules:
            t = statistics.median(times[name])
            print(
                f"extraction [{name}]: cold {t:.2f} s (median of {args.repeat}) = {t / len(entries) * 1e6:.1f} µs/entry, "
                f"{t / typical * 1e3:.3f} ms per user/assistant entry"
            )
        for name, module in modules:
            same = list(entries)
            module.extract_items(same)
            start = time.process_time()
            module.extract_items(same)
            print(f"again with nothing new [{name}]: {(time.process_time() - start) * 1e3:.1f} ms")
        grown = list(entries[:-200])
        current.extract_items(grown)
        appended = []
        for entry in entries[-200:-100:10]:
            grown.extend(entries[len(grown) : len(grown) + 10])
            start = time.process_time()
            current.extract_items(grown)
            appended.append(time.process_time() - start)
        print(f"incremental: 10 appended entries read in {statistics.median(appended) * 1e3:.2f} ms (median)")


if __name__ == "__main__":
    main()
