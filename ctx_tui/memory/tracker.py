"""The write step of the memory model: bring the session memory and the audit log up to date.

:func:`refresh` reads what the transcript now says (extraction, references,
decay), writes what is new into ``.ctx/sessions/<session-id>.yaml`` (new
extracted items, newly referenced rounds, decay states entered) and logs it to
the audit log — one event per kind per refresh, never one per poll — and
returns a :class:`TrackerUpdate`. Reading and judging are not here: the pure
read step is :func:`ctx_tui.memory.view.memory_view`.

Nothing is written when nothing is new (``update_session_memory`` compares),
so calling it on every poll costs a read of the session file, not a write.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from ctx_tui import audit
from ctx_tui.config import Config
from ctx_tui.memory.decay import ItemStatus, analyze
from ctx_tui.memory.extract import Extraction, Statements, extract_items
from ctx_tui.memory.items import ItemType, TrackedItem
from ctx_tui.memory.registry import registered_duplicate
from ctx_tui.memory.scan_cache import ScanCache, scan_cache_path
from ctx_tui.memory.session_store import SessionMemory, session_id_of, update_session_memory
from ctx_tui.window_state import SessionLike, WindowState


@dataclass(frozen=True, slots=True)
class TrackerUpdate:
    """What one refresh found and wrote."""

    session_id: str
    current_round: int
    state: WindowState
    memory: SessionMemory  # the session memory as written
    statuses: tuple[ItemStatus, ...]  # active items, highest attention risk first
    extractions: tuple[Extraction, ...]  # everything the transcript yields now
    added: tuple[TrackedItem, ...] = ()  # new in the session memory with this refresh
    duplicates: tuple[str, ...] = ()  # extracted ids skipped: a registered item says the same
    new_references: dict[str, list[int]] = field(default_factory=dict)  # item id -> rounds newly recorded
    entered_decay: tuple[ItemStatus, ...] = ()  # items that entered a decayed / out-of-context state


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
                memory.upsert_item(replace(known, content=item.content).with_references(item.referenced_rounds))
            continue
        if registered_duplicate(memory, item.content) is not None:
            duplicates.append(item.id)
            continue
        memory.upsert_item(item)
        if item.type is ItemType.DECISION and (extraction.rationale or extraction.affects_files):
            for index, decision in enumerate(memory.decisions):
                if decision.item_id == item.id:
                    memory.decisions[index] = replace(
                        decision, rationale=extraction.rationale, affects_files=list(extraction.affects_files)
                    )
        added.append(item)
    return added, duplicates


@dataclass(slots=True)
class _Found:
    added: list[TrackedItem] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    statuses: list[ItemStatus] = field(default_factory=list)
    new_references: dict[str, list[int]] = field(default_factory=dict)
    entered_decay: list[ItemStatus] = field(default_factory=list)


def refresh(
    project: Path,
    session: SessionLike,
    config: Config,
    current_round: int | None = None,
    state: WindowState | None = None,
    latest_only: bool = False,
) -> TrackerUpdate:
    """Update the session memory and the audit log with what the transcript now says.

    ``current_round`` judges decay as of that round (default: the session's
    last round; a what-if round logs no decay events); ``state`` saves a
    second ``session.state()`` when the caller has one. ``latest_only``: a
    one-off job's refresh, which reads the references from the end, only those
    the statuses need (see :func:`ctx_tui.memory.decay.analyze`; as of the last round only), with the
    hits and the texts' statements an earlier one-off job kept for the session (:mod:`ctx_tui.memory.scan_cache`).
    """
    session_id = session_id_of(session)
    state = state if state is not None else session.state()
    entries = session.entries
    current = state.rounds if current_round is None else current_round
    log_decay = current == state.rounds
    one_off = latest_only and log_decay
    cache = ScanCache(scan_cache_path(project, session_id), config.decay.reference_threshold) if one_off else None
    statements = Statements(cache.statements) if cache is not None else None
    extractions = extract_items(entries, statements)
    found = _Found()

    def sync(memory: SessionMemory) -> None:
        found.added, found.duplicates = _store_extractions(memory, extractions)
        found.statuses = analyze(memory.items, entries, state.live, current, config, one_off, cache)
        # only rounds after the last one stored are new (older ones may have been trimmed)
        latest = {i.id: max(i.referenced_rounds, default=0) for i in memory.items}
        found.new_references = memory.add_references(
            {s.item.id: [r for r in s.referenced_rounds if r > latest.get(s.item.id, 0)] for s in found.statuses}
        )
        found.entered_decay = []
        for status in found.statuses if log_decay else ():
            if status.flagged and memory.decay_reported.get(status.item.id) != _decay_state(status):
                memory.decay_reported[status.item.id] = _decay_state(status)
                found.entered_decay.append(status)

    memory = update_session_memory(project, session_id, sync)
    if cache is not None and statements is not None:
        cache.statements = statements.found
        cache.save()
    _audit(project, session_id, current, found)
    return TrackerUpdate(
        session_id=session_id,
        current_round=current,
        state=state,
        memory=memory,
        statuses=tuple(found.statuses),
        extractions=tuple(extractions),
        added=tuple(found.added),
        duplicates=tuple(found.duplicates),
        new_references=found.new_references,
        entered_decay=tuple(found.entered_decay),
    )


def _audit(project: Path, session_id: str, current: int, found: _Found) -> None:
    if found.added:
        audit.record(
            project,
            "memory.extracted",
            session=session_id,
            items=[{"id": i.id, "type": i.type.value, "content": i.content, "round": i.entered_round} for i in found.added],
        )
    if found.new_references:
        audit.record(project, "memory.referenced", session=session_id, rounds=found.new_references, current_round=current)
    if found.entered_decay:
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
                    "last_reference": None if s.last_reference is None else s.last_reference.as_dict(),
                }
                for s in found.entered_decay
            ],
        )
