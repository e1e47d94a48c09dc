"""The memory model as the CLI and the dashboard see it: one snapshot, read only.

Two steps, kept apart:

* the **write step**, :func:`ctx_tui.memory.tracker.refresh`: extraction,
  references and decay brought into the session memory file and the audit
  log (only what is new), returning a ``TrackerUpdate``;
* the **read step**, :func:`memory_view`: a pure function of that update, the
  config and the long-term memory files, giving a :class:`MemoryView` — the
  tracked items with their status sorted by attention risk, the four tier
  summaries, the pending promotions and what the extraction found.

:func:`build_memory_view` is both, the one call the CLI and the dashboard make.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ctx_tui.config import Config
from ctx_tui.memory.decay import ItemStatus
from ctx_tui.memory.items import TrackedItem
from ctx_tui.memory.session_store import Promotion, SessionMemory, session_id_of
from ctx_tui.memory.tiers import TierSummary, read_long_term, tier_summary
from ctx_tui.memory.tracker import TrackerUpdate, refresh
from ctx_tui.transcripts.model import Entry
from ctx_tui.window_state import SessionLike, WindowState

__all__ = ["ExtractionReport", "MemoryView", "SessionLike", "build_memory_view", "memory_view", "session_id_of"]


@dataclass(frozen=True, slots=True)
class ExtractionReport:
    found: tuple[TrackedItem, ...]  # everything the transcript yields now
    added: tuple[TrackedItem, ...]  # new in the session memory with this view
    duplicates: tuple[str, ...]  # ids skipped because a registered item says the same


@dataclass(frozen=True, slots=True)
class MemoryView:
    session_id: str
    current_round: int
    statuses: tuple[ItemStatus, ...]  # active items, highest attention risk first
    tiers: tuple[TierSummary, ...]
    pending_promotions: tuple[Promotion, ...]
    extraction: ExtractionReport
    memory: SessionMemory
    danger_zone: tuple[float, float]
    decay_enabled: bool

    @property
    def flagged(self) -> tuple[ItemStatus, ...]:
        """Decayed or out-of-context items, highest risk first."""
        return tuple(s for s in self.statuses if s.flagged)

    @property
    def decayed(self) -> tuple[ItemStatus, ...]:
        return tuple(s for s in self.statuses if s.decayed)

    def status(self, item_id: str) -> ItemStatus | None:
        return next((s for s in self.statuses if s.item.id == item_id), None)


def memory_view(project: Path, update: TrackerUpdate, entries: Sequence[Entry], config: Config) -> MemoryView:
    """The snapshot of what ``update`` found over ``entries`` (reads the long-term memory files; writes nothing)."""
    memory = update.memory
    long_term = read_long_term(project, config)
    tiers = tier_summary(project, update.state, entries, memory, update.statuses, long_term, update.current_round)
    return MemoryView(
        session_id=update.session_id,
        current_round=update.current_round,
        statuses=update.statuses,
        tiers=tuple(tiers),
        pending_promotions=tuple(memory.pending_promotions()),
        extraction=ExtractionReport(
            found=tuple(x.item for x in update.extractions), added=update.added, duplicates=update.duplicates
        ),
        memory=memory,
        danger_zone=config.position.danger_zone,
        decay_enabled=config.decay.enabled,
    )


def build_memory_view(
    project: Path,
    session: SessionLike,
    config: Config,
    current_round: int | None = None,
    state: WindowState | None = None,
    latest_only: bool = False,
) -> MemoryView:
    """Refresh the session memory and the audit log (:func:`~ctx_tui.memory.tracker.refresh`), then read the snapshot.

    ``current_round`` judges decay as of that round (default: the session's last
    round); ``state`` saves a second ``session.state()`` when the caller has one; ``latest_only``:
    for a one-off job (see :func:`~ctx_tui.memory.tracker.refresh`).
    """
    update = refresh(project, session, config, current_round, state, latest_only)
    return memory_view(project, update, session.entries, config)
