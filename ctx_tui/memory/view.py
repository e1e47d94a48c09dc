"""The memory model as the CLI and the dashboard see it: one call, one snapshot.

:func:`build_memory_view` reads the session (extraction, references, decay,
position), brings the session memory file up to date, writes the audit log,
and returns a :class:`MemoryView`: the tracked items with their status sorted
by attention risk, the four tier summaries, the pending promotions and what
the extraction found.

Writes are sparse: the session memory file is written only when something is
new (an extracted item, a reference, a decay state), and the audit log gets
one event per batch (``extract``, ``references``, ``decay``), never one per
poll.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ctx_tui import audit
from ctx_tui.config import Config
from ctx_tui.memory.decay import ItemStatus, analyze
from ctx_tui.memory.extract import Extraction, extract_items
from ctx_tui.memory.items import ItemType, TrackedItem
from ctx_tui.memory.registry import registered_duplicate
from ctx_tui.memory.session_store import Promotion, SessionMemory, session_id_of, update_session_memory
from ctx_tui.memory.tiers import TierSummary, read_long_term, tier_summary
from ctx_tui.transcripts.model import Entry, SessionMeta
from ctx_tui.window_model import WindowState


class SessionLike(Protocol):
    """What the memory model needs of a session (``ctx_tui.window.Session`` has it)."""

    path: Path

    @property
    def entries(self) -> list[Entry]: ...

    @property
    def meta(self) -> SessionMeta: ...

    def state(self) -> WindowState: ...


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


def _decay_state(status: ItemStatus) -> str:
    return f"{'out-of-context' if status.out_of_context else 'decayed'}@{status.last_seen_round}"


def _store_extractions(memory: SessionMemory, extractions: list[Extraction]) -> tuple[list[TrackedItem], list[str]]:
    added: list[TrackedItem] = []
    duplicates: list[str] = []
    for extraction in extractions:
        item = extraction.item
        known = memory.get_item(item.id)
        if known is not None:
            # known: a registered or dismissed item stays as it is; an extracted one takes the
            # later wording of a merged near-duplicate or the latest plan (references are kept)
            if known.source == "extracted" and not known.dismissed and known.content != item.content:
                memory.upsert_item(known.model_copy(update={"content": item.content}).with_references(item.referenced_rounds))
            continue
        if registered_duplicate(memory, item.content) is not None:
            duplicates.append(item.id)
            continue
        memory.upsert_item(item)
        if item.type is ItemType.DECISION and (extraction.rationale or extraction.affects_files):
            for index, decision in enumerate(memory.decisions):
                if decision.item_id == item.id:
                    memory.decisions[index] = decision.model_copy(
                        update={"rationale": extraction.rationale, "affects_files": list(extraction.affects_files)}
                    )
        added.append(item)
    return added, duplicates


def build_memory_view(
    project: Path,
    session: SessionLike,
    config: Config,
    current_round: int | None = None,
    state: WindowState | None = None,
) -> MemoryView:
    """Read the session, update its memory file and the audit log, return the snapshot.

    ``current_round`` judges decay as of that round (default: the session's last
    round); ``state`` saves a second ``session.state()`` when the caller has one.
    """
    session_id = session_id_of(session)
    state = state if state is not None else session.state()
    entries = session.entries
    current = state.rounds if current_round is None else current_round
    # a what-if round (detect-decay --current-round) is not logged as decay events
    log_decay = current == state.rounds
    extractions = extract_items(entries)
    result: dict[str, object] = {}

    def sync(memory: SessionMemory) -> None:
        added, duplicates = _store_extractions(memory, extractions)
        statuses = analyze(memory.items, entries, state.live, current, config)
        # only rounds after the last one stored are new (older ones may have been trimmed)
        latest = {i.id: max(i.referenced_rounds, default=0) for i in memory.items}
        new_refs = memory.add_references(
            {s.item.id: [r for r in s.referenced_rounds if r > latest.get(s.item.id, 0)] for s in statuses}
        )
        decay_events = []
        for status in statuses if log_decay else ():
            if status.flagged and memory.decay_reported.get(status.item.id) != _decay_state(status):
                memory.decay_reported[status.item.id] = _decay_state(status)
                decay_events.append(status)
        result.update(added=added, duplicates=duplicates, statuses=statuses, refs=new_refs, decays=decay_events)

    memory = update_session_memory(project, session_id, sync)
    added: list[TrackedItem] = result["added"]  # type: ignore[assignment]
    statuses: list[ItemStatus] = result["statuses"]  # type: ignore[assignment]
    new_refs: dict[str, list[int]] = result["refs"]  # type: ignore[assignment]
    decays: list[ItemStatus] = result["decays"]  # type: ignore[assignment]
    if added:
        audit.record(
            project,
            "memory.extracted",
            session=session_id,
            items=[{"id": i.id, "type": i.type.value, "content": i.content, "round": i.entered_round} for i in added],
        )
    if new_refs:
        audit.record(project, "memory.referenced", session=session_id, rounds=new_refs, current_round=current)
    if decays:
        audit.record(
            project,
            "memory.decayed",
            session=session_id,
            current_round=current,
            items=[
                {
                    "id": s.item.id,
                    "importance": s.item.importance.value,
                    "rounds_since_reference": s.rounds_since_reference,
                    "out_of_context": s.out_of_context,
                    "recommendation": s.recommendation,
                }
                for s in decays
            ],
        )
    tiers = tier_summary(project, state, entries, memory, statuses, read_long_term(project, config), current)
    return MemoryView(
        session_id=session_id,
        current_round=current,
        statuses=tuple(statuses),
        tiers=tuple(tiers),
        pending_promotions=tuple(memory.pending_promotions()),
        extraction=ExtractionReport(
            found=tuple(x.item for x in extractions),
            added=tuple(added),
            duplicates=tuple(result["duplicates"]),  # type: ignore[arg-type]
        ),
        memory=memory,
        danger_zone=config.position.danger_zone,
        decay_enabled=config.decay.enabled,
    )
