"""The four memory tiers (docs/memory.md, "The four tiers") and a summary of each: count, tokens, items.

| tier        | what it holds                                              | where it lives                    |
|-------------|------------------------------------------------------------|-----------------------------------|
| working     | tracked items inside the live window + the last rounds     | the live window of the transcript |
| short-term  | the whole conversation of this session                     | the transcript                    |
| medium-term | goals, decisions, constraints, preferences, findings,      | ``.ctx/sessions/<id>.yaml``       |
|             | progress, saved summaries, pending promotions              |                                   |
| long-term   | MEMORY.md entries, plus CLAUDE.md / AGENTS.md (read-only)  | the project's memory files        |
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import takewhile
from pathlib import Path
from typing import Literal

from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.memory.decay import ItemStatus, live_entry
from ctx_tui.memory.memory_md import MemoryDoc, read_memory
from ctx_tui.memory.session_store import SessionMemory
from ctx_tui.paths import session_memory_path
from ctx_tui.storage import read_regular
from ctx_tui.tokens import count_tokens
from ctx_tui.transcripts.model import Entry
from ctx_tui.window_state import WindowState

#: The working tier holds the live entries of this many latest rounds.
WORKING_ROUNDS = 3
#: Read-only instruction files shown in the long-term tier.
INSTRUCTION_FILES = ("CLAUDE.md", "AGENTS.md")
#: Labels kept per tier (the summary is for a panel, not a dump).
MAX_LABELS = 12
LABEL_CHARS = 120

#: The tiers, nearest the model first (``TierSummary.name``, ``retrieve.Hit.tier``).
Tier = Literal["working", "short-term", "medium-term", "long-term"]


@dataclass(frozen=True, slots=True)
class TierSummary:
    name: Tier
    location: str  # where the tier lives
    count: int
    tokens: int
    items: tuple[str, ...]  # labels, most relevant first, at most MAX_LABELS
    problem: str | None = None  # a source that could not be read

    @property
    def top(self) -> tuple[str, ...]:
        return self.items


@dataclass(frozen=True, slots=True)
class LongTermFile:
    path: Path
    read_only: bool
    doc: MemoryDoc | None  # None when missing or unreadable
    tokens: int = 0
    problem: str | None = None


@lru_cache(maxsize=16)
def _tokens(text: str) -> int:
    """Token count of a whole state file (cached: the dashboard asks on every poll)."""
    return count_tokens(text)


def _label(prefix: str, text: str) -> str:
    one = " ".join(text.split())
    label = f"{prefix}: {one}" if prefix else one
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def read_long_term(project: Path, config: Config) -> list[LongTermFile]:
    """MEMORY.md (from config) and the read-only instruction files that exist."""
    out: list[LongTermFile] = []
    memory_path = config.paths.memory_path(project)
    candidates = [(memory_path, False)] + [(project / name, True) for name in INSTRUCTION_FILES]
    for path, read_only in candidates:
        if read_only and path == memory_path:
            continue
        if not path.exists():
            if not read_only:
                out.append(LongTermFile(path, read_only, None))
            continue
        try:
            doc = read_memory(path)
        except CtxError as exc:
            out.append(LongTermFile(path, read_only, None, problem=str(exc)))
            continue
        out.append(LongTermFile(path, read_only, doc, tokens=_tokens(doc.render())))
    return out


def _working(state: WindowState, statuses: Sequence[ItemStatus], current_round: int) -> TierSummary:
    in_window = [s for s in statuses if not s.out_of_context]
    # rounds only grow along the transcript, so the latest ones end the live window: read it
    # backwards (an append costs those rounds, not the whole window)
    recent = list(takewhile(lambda w: w.entry.round > current_round - WORKING_ROUNDS, reversed(state.live)))
    holders = {w.entry.seq for w in recent}
    tokens = sum(w.tokens for w in recent)
    for status in in_window:
        if status.seq is not None and status.seq not in holders:
            held = live_entry(state.live, status.seq)
            if held is not None:
                holders.add(status.seq)
                tokens += held.tokens
    labels = [_label(s.item.type.value, s.item.content) for s in in_window]
    labels.append(f"last {WORKING_ROUNDS} rounds: {len(recent)} entries")
    return TierSummary("working", "live window", len(in_window), tokens, tuple(labels[:MAX_LABELS]))


class _Totals:
    """The main chain's entry count and tokens, kept up to date as a session's entry list grows.

    Summing every entry on every poll cost ~5 ms of each append on a 100 MB session. An
    entry's tokens change once at most, when ``ctx_tui.window`` counts it (an estimate
    before): as it joins the live window, or, for the entries before the last compaction,
    when a compaction happens. So each entry is summed once, and the runs of entries still
    uncounted are summed again when they reach into the live window, or all of them after a
    new compaction.

    Runs, not one index per entry: most entries of a long session stay estimates (all
    before the live window), and an index and a token sum for each (124k entries on a
    100 MB Codex session) took 2 MiB, plus ~3 MiB of heap freed while those arrays grew
    and kept by the process. The totals hold ``tokens`` = the tokens of the main-chain
    entries outside every run (counted: they never change again) + ``sums``.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._reset(None)

    def _reset(self, entries: Sequence[Entry] | None) -> None:
        self.entries = entries
        self.read = self.count = self.tokens = 0
        self.compactions = 0
        # Run k is entries[starts[k]:ends[k]] (ascending, disjoint); its main-chain entries'
        # tokens summed to sums[k] when it was last looked at.
        self.starts, self.ends, self.sums = array("q"), array("q"), array("q")

    def of(self, entries: Sequence[Entry], live_start: int, compactions: int) -> tuple[int, int]:
        with self.lock:
            if self.entries is not entries or len(entries) < self.read:
                self._reset(entries)  # another session, or its list was replaced
            if compactions != self.compactions:
                self.compactions = compactions
                first, live_start = 0, 0
            else:
                first = bisect_right(self.ends, live_start)  # the runs that reach into the live window
            runs = _Runs()
            for start, end, summed in zip(self.starts[first:], self.ends[first:], self.sums[first:]):
                self.tokens -= summed
                if start < live_start:  # its part before the live window stays a run as it is (summed once)
                    head = _main_tokens(entries, start, live_start)
                    runs.close_at(start, live_start, head)
                    self.tokens += head
                    start = live_start
                self.tokens += runs.scan(entries, start, end)[1]
            del self.starts[first:], self.ends[first:], self.sums[first:]
            if not runs.starts and self.ends and self.ends[-1] == self.read:
                runs.close_at(self.starts.pop(), self.ends.pop(), self.sums.pop())
            runs.resume_last(self.read)  # the new entries may go on with the last run
            count, tokens = runs.scan(entries, self.read, len(entries))
            self.count += count
            self.tokens += tokens
            self.read = len(entries)
            self.starts.extend(runs.starts)
            self.ends.extend(runs.ends)
            self.sums.extend(runs.sums)
            return self.count, self.tokens


def _main_tokens(entries: Sequence[Entry], start: int, end: int) -> int:
    return sum(entry.tokens for entry in entries[start:end] if not entry.is_sidechain)


class _Runs:
    """The runs of uncounted entries found by :meth:`scan`, in order."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.sums: list[int] = []
        self._open: int | None = None  # the start of the run being scanned
        self._sum = 0

    def close_at(self, start: int, end: int, summed: int) -> None:
        self.starts.append(start)
        self.ends.append(end)
        self.sums.append(summed)

    def resume_last(self, at: int) -> None:
        """When the last run ends at ``at``, the next :meth:`scan` (from ``at``) goes on with it."""
        if self.ends and self.ends[-1] == at:
            self.ends.pop()
            self._open, self._sum = self.starts.pop(), self.sums.pop()

    def scan(self, entries: Sequence[Entry], start: int, end: int) -> tuple[int, int]:
        """The main-chain entries of ``entries[start:end]`` and their tokens; the runs of the uncounted ones are kept."""
        count = total = 0
        open_at, summed = self._open, self._sum
        for index in range(start, end):
            entry = entries[index]
            if entry.is_sidechain:
                continue
            count += 1
            total += entry.tokens
            if not entry.tokens_counted:
                if open_at is None:
                    open_at, summed = index, 0
                summed += entry.tokens
            elif open_at is not None:
                self.close_at(open_at, index, summed)
                open_at = None
        if open_at is not None:
            self.close_at(open_at, end, summed)
        self._open, self._sum = None, 0
        return count, total


_TOTALS = _Totals()


def _short_term(state: WindowState, entries: Sequence[Entry]) -> TierSummary:
    live_start = state.live[0].entry.seq if state.live else len(entries)
    count, tokens = _TOTALS.of(entries, live_start, len(state.compactions))
    labels = (
        f"{state.rounds} rounds, {count} entries",
        f"{len(state.compactions)} compactions",
        f"live window: {len(state.live)} entries, {state.context_tokens:,} tokens",
    )
    return TierSummary("short-term", str(state.path), count, tokens, labels)


def _medium_term(project: Path, memory: SessionMemory) -> TierSummary:
    groups: list[tuple[str, list[str]]] = [
        ("goal", [n.text for n in memory.goals]),
        ("constraint", [n.text for n in memory.constraints]),
        ("preference", [n.text for n in memory.preferences]),
        ("decision", [d.decision for d in memory.decisions]),
        ("finding", [n.text for n in memory.findings]),
        ("progress", [n.text for n in memory.progress]),
        ("summary", [f"{s.strategy}, {len(s.text):,} chars" for s in memory.summaries]),
        ("pending promotion", [p.content for p in memory.pending_promotions()]),
    ]
    labels = [_label(kind, text) for kind, texts in groups for text in texts]
    path = session_memory_path(project, memory.session_id)
    try:
        tokens = _tokens(read_regular(path).decode("utf-8", errors="replace"))
    except OSError:
        tokens = 0
    return TierSummary("medium-term", str(path), len(labels), tokens, tuple(labels[:MAX_LABELS]))


def _long_term(files: Sequence[LongTermFile]) -> TierSummary:
    labels: list[str] = []
    count = tokens = 0
    problems = [f.problem for f in files if f.problem]
    for f in files:
        if f.doc is None:
            continue
        entries = f.doc.entries
        count += len(entries)
        tokens += f.tokens
        if f.read_only:
            labels.append(f"{f.path.name} (read-only): {len(entries)} entries")
        else:
            labels[:0] = [_label(e.section or f.path.name, e.text) for e in entries]
    location = str(files[0].path) if files else "MEMORY.md"
    return TierSummary("long-term", location, count, tokens, tuple(labels[:MAX_LABELS]), "; ".join(problems) or None)


def tier_summary(
    project: Path,
    state: WindowState,
    entries: Sequence[Entry],
    memory: SessionMemory,
    statuses: Sequence[ItemStatus],
    long_term: Sequence[LongTermFile],
    current_round: int | None = None,
) -> list[TierSummary]:
    """Working, short-term, medium-term and long-term, in that order."""
    current = state.rounds if current_round is None else current_round
    return [
        _working(state, statuses, current),
        _short_term(state, entries),
        _medium_term(project, memory),
        _long_term(long_term),
    ]
