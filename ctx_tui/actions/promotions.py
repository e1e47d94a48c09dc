"""Promotions: session facts proposed for MEMORY.md, written only once the user approves.

The pending list lives in session memory (``SessionMemory.promotions``, one
promotion per item id, status pending / approved / rejected). A proposal comes
from the user (``promote``, the dashboard's ``p``) or, with
``sync.auto_promote``, from :func:`auto_propose`: active items at or above
``sync.promotion_threshold`` importance, plus every user preference and
project-config item. A rejected item is never proposed again automatically in
that session. Approved items are written to MEMORY.md under the section of
their type, each preceded by a provenance comment (session and date); an entry
whose text is already anywhere in the file (also one written by hand) is not
added again. Either way the promotion records when and where it was written
(``written_at``, ``written_to``) and is never written again: an entry the user
deletes by hand stays deleted. Every step goes to the audit log.

Concurrency: session memory changes are locked read-modify-writes; MEMORY.md is
changed under its lock, re-read just before the atomic replace, and
deduplicated against what is there at that moment, so any number of
``approve`` / ``sync`` processes at once write each entry exactly once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from ctx_tui import audit
from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.memory.items import Importance, ItemType, TrackedItem, normalise_content, now_iso
from ctx_tui.memory.memory_md import (
    SECTION_FOR_TYPE,
    NewEntry,
    append_entries,
    entry_markdown,
    read_memory,
    unescape,
)
from ctx_tui.memory.session_store import Promotion, PromotionStatus, SessionMemory, load_session_memory, update_session_memory
from ctx_tui.paths import safe_name
from ctx_tui.storage import read_regular

#: Types proposed automatically whatever their importance (long-lived by nature).
ALWAYS_PROMOTED = frozenset({ItemType.USER_PREFERENCE, ItemType.PROJECT_CONFIG})


@dataclass(frozen=True, slots=True)
class ProposeResult:
    item_id: str
    proposed: bool  # True: the item is now pending (newly, or again after a rejection)
    status: str  # pending | approved | rejected | in_memory (already in MEMORY.md)
    message: str


@dataclass(frozen=True, slots=True)
class ApproveResult:
    """What an ``approve`` or ``sync`` did."""

    memory_path: Path
    approved: list[str] = field(default_factory=list)  # ids newly approved by this call
    written: list[str] = field(default_factory=list)  # ids whose entry this call added to MEMORY.md
    already_present: list[str] = field(default_factory=list)  # approved ids whose text was already there
    #: MEMORY.md changed on disk since the caller saw it (``seen_digest``); the
    #: change was kept and the entries applied on top.
    changed_meanwhile: bool = False


def memory_digest(path: Path) -> str:
    """A digest of MEMORY.md as it is now ("" when missing); pass it back as ``seen_digest``."""
    try:
        return hashlib.sha256(read_regular(path)).hexdigest()
    except FileNotFoundError:
        return ""


def _keys_in(path: Path) -> set[str]:
    return {entry.key for entry in read_memory(path).entries}


def _entry_key(text: str) -> str:
    """The key MEMORY.md will compare this text on once written."""
    return normalise_content(unescape(entry_markdown(text)))


def _find(memory: SessionMemory, item_id: str) -> Promotion | None:
    return next((p for p in memory.promotions if p.item_id == item_id), None)


def _eligible(item: TrackedItem, config: Config) -> bool:
    threshold = Importance(config.sync.promotion_threshold).rank
    return item.type in ALWAYS_PROMOTED or item.importance.rank >= threshold


# -- proposing -------------------------------------------------------------


def propose(
    project: Path, session_id: str, item_ids: Sequence[str], memory_path: Path, *, again: bool = False
) -> list[ProposeResult]:
    """Put items on the pending list (``promote --id``, the dashboard's ``p``).

    An unknown or dismissed item is an error (nothing changes). A rejected item
    is proposed again only with ``again``; one already pending, approved, or
    whose text is already in MEMORY.md is left as it is.
    """
    in_memory = _keys_in(memory_path)
    results: list[ProposeResult] = []

    def change(memory: SessionMemory) -> None:
        results.clear()
        for item_id in item_ids:
            item = memory.get_item(item_id)
            if item is None or item.dismissed:
                known = ", ".join(i.id for i in memory.active_items()) or "none"
                state = "dismissed" if item is not None else "unknown"
                raise CtxError(f"{state} item {item_id!r} in session {session_id}; known items: {known}")
            existing = _find(memory, item_id)
            if existing is not None and existing.status == "pending":
                results.append(ProposeResult(item_id, False, "pending", "already pending"))
            elif existing is not None and existing.status == "approved":
                results.append(ProposeResult(item_id, False, "approved", "already approved"))
            elif existing is not None and existing.status == "rejected" and not again:
                results.append(
                    ProposeResult(item_id, False, "rejected", "rejected earlier; propose it again with --again")
                )
            elif _entry_key(item.content) in in_memory:
                results.append(ProposeResult(item_id, False, "in_memory", f"already in {memory_path.name}"))
            else:
                if existing is not None:
                    memory.promotions.remove(existing)
                memory.promotions.append(
                    Promotion(item_id=item.id, type=item.type, content=item.content, reason="manual")
                )
                results.append(ProposeResult(item_id, True, "pending", "proposed"))

    update_session_memory(project, session_id, change)
    for result in results:
        if result.proposed:
            audit.record(project, "promotion.proposed", session=session_id, item=result.item_id, source="manual")
    return list(results)


def auto_propose(project: Path, session_id: str, config: Config, memory_path: Path) -> list[Promotion]:
    """Propose every eligible item not yet proposed (when ``sync.auto_promote`` is on).

    Items already proposed in any state (rejected included) and items whose
    text is already in MEMORY.md are skipped. Returns the new proposals.
    """
    if not config.sync.auto_promote:
        return []
    memory = load_session_memory(project, session_id)
    if not any(_eligible(i, config) and _find(memory, i.id) is None for i in memory.active_items()):
        return []
    in_memory = _keys_in(memory_path)
    added: list[Promotion] = []

    def change(memory: SessionMemory) -> None:
        added.clear()
        for item in memory.active_items():
            if not _eligible(item, config) or _find(memory, item.id) is not None:
                continue
            if _entry_key(item.content) in in_memory:
                continue
            promotion = Promotion(item_id=item.id, type=item.type, content=item.content, reason="auto")
            memory.promotions.append(promotion)
            added.append(promotion)

    update_session_memory(project, session_id, change)
    for promotion in added:
        audit.record(
            project,
            "promotion.proposed",
            session=session_id,
            item=promotion.item_id,
            source="auto",
            threshold=config.sync.promotion_threshold,
        )
    return list(added)


def pending(project: Path, session_id: str) -> list[Promotion]:
    """The promotions waiting for a decision, oldest first."""
    return load_session_memory(project, session_id).pending_promotions()


# -- deciding ----------------------------------------------------------------


def _decide(
    project: Path, session_id: str, ids: Sequence[str], status: PromotionStatus, allowed_from: set[str]
) -> list[str]:
    """Set ``status`` on the promotions of ``ids``; the ids actually changed. All-or-nothing."""
    if not ids:
        raise CtxError("name at least one item id (see `ctx-tui pending`)")
    changed: list[str] = []

    def change(memory: SessionMemory) -> None:
        changed.clear()
        for item_id in ids:
            promotion = _find(memory, item_id)
            if promotion is None:
                waiting = ", ".join(p.item_id for p in memory.pending_promotions()) or "none"
                raise CtxError(f"no promotion for {item_id!r} in session {session_id}; pending: {waiting}")
            if promotion.status == status:
                continue
            if promotion.status not in allowed_from:
                raise CtxError(f"{item_id!r} is already {promotion.status}; it cannot be {status} now")
            index = memory.promotions.index(promotion)
            memory.promotions[index] = replace(promotion, status=status, decided_at=now_iso())
            changed.append(item_id)

    update_session_memory(project, session_id, change)
    return list(changed)


def reject(project: Path, session_id: str, ids: Sequence[str]) -> list[str]:
    """Reject pending promotions (they are not proposed again in this session)."""
    rejected = _decide(project, session_id, ids, "rejected", {"pending"})
    for item_id in rejected:
        audit.record(project, "promotion.rejected", session=session_id, item=item_id)
    return rejected


def approve(
    project: Path, session_id: str, ids: Sequence[str], memory_path: Path, seen_digest: str | None = None
) -> ApproveResult:
    """Approve promotions (pending or rejected earlier) and write every approved one to MEMORY.md."""
    approved = _decide(project, session_id, ids, "approved", {"pending", "rejected"})
    for item_id in approved:
        audit.record(project, "promotion.approved", session=session_id, item=item_id)
    result = sync(project, session_id, memory_path, seen_digest)
    return ApproveResult(
        memory_path, approved, result.written, result.already_present, result.changed_meanwhile
    )


def _mark_written(project: Path, session_id: str, item_ids: Sequence[str], memory_path: Path) -> None:
    """Record on the promotions of ``item_ids`` that their entry is in ``memory_path`` now."""
    ids = set(item_ids)
    when = now_iso()

    def change(memory: SessionMemory) -> None:
        for index, promotion in enumerate(memory.promotions):
            if promotion.item_id in ids and promotion.status == "approved" and promotion.written_at is None:
                memory.promotions[index] = replace(promotion, written_at=when, written_to=str(memory_path))

    update_session_memory(project, session_id, change)


def sync(project: Path, session_id: str, memory_path: Path, seen_digest: str | None = None) -> ApproveResult:
    """Write the approved promotions not written yet to MEMORY.md, and mark them written.

    An entry already in the file counts as written. A promotion written once is
    never written again, so an entry the user deleted by hand stays deleted.
    """
    approved = [
        p for p in load_session_memory(project, session_id).promotions if p.status == "approved" and p.written_at is None
    ]
    changed = seen_digest is not None and memory_digest(memory_path) != seen_digest
    if not approved:
        return ApproveResult(memory_path, changed_meanwhile=changed)
    written = write_entries(memory_path, approved, session_id)
    written_ids = [p.item_id for p in written]
    present = [p.item_id for p in approved if p.item_id not in set(written_ids)]
    _mark_written(project, session_id, [p.item_id for p in approved], memory_path)
    if written:
        audit.record(
            project,
            "promotion.written",
            session=session_id,
            items=written_ids,
            memory_file=str(memory_path),
            sections=sorted({SECTION_FOR_TYPE[p.type] for p in written}),
        )
    return ApproveResult(memory_path, [], written_ids, present, changed)


# -- writing MEMORY.md ------------------------------------------------------


def provenance_comment(session_id: str, when: datetime | None = None) -> str:
    """The comment written above a promoted entry: which session, which day.

    Its text only: ``memory_md.append_entries`` writes it as an HTML comment line.
    """
    day = (when or datetime.now(timezone.utc)).date().isoformat()
    return f"ctx-tui: promoted from session {safe_name(session_id)} on {day}"


def write_entries(memory_path: Path, promotions: Sequence[Promotion], session_id: str) -> list[Promotion]:
    """Add the promotions' entries not already in MEMORY.md, each under its provenance comment; return those added.

    ``memory_md.append_entries`` does the writing (lock, dedup against the file
    as it is, re-read before the atomic replace).
    """
    entries = {id(p): NewEntry(section=SECTION_FOR_TYPE[p.type], text=p.content) for p in promotions}
    added = append_entries(memory_path, list(entries.values()), comment=provenance_comment(session_id))
    added_ids = {id(e) for e in added}
    return [p for p in promotions if id(entries[id(p)]) in added_ids]
