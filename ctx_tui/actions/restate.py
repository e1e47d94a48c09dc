"""The restatement queue: facts waiting to be put back into the agent's context.

One JSON file per session, ``.ctx/restate/<session-id>.json``::

    {"version": 1, "session_id": "...", "items": [
        {"id": "...", "type": "constraint", "importance": "high",
         "content": "...", "reason": "manual", "queued_at": "2026-...+00:00"}]}

Writers (``ctx-tui refresh``, the dashboard's ``r``, the auto-refresh of the
``UserPromptSubmit`` hook, all through :func:`restate_items`) add under the
file's lock; an item already waiting is not queued twice. Only a project whose
prompt hook is installed gets a queue: without the hook the user pastes the
restatement, and nothing waits to be delivered twice. The hook takes the whole queue under the same lock and
removes the file before releasing it, so two hooks running at once can never
deliver the same item twice. A damaged queue file is moved aside (kept, never
deleted) and the queue starts empty.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import orjson

from ctx_tui import audit
from ctx_tui.actions.hook_install import is_hook_installed
from ctx_tui.errors import CtxError
from ctx_tui.memory.items import TrackedItem, importance_rank, normalise_content, now_iso
from ctx_tui.memory.session_store import SessionMemory, load_session_memory, update_session_memory
from ctx_tui.paths import safe_name, state_dir
from ctx_tui.plain_text import one_line
from ctx_tui.storage import locked, write_atomic

RESTATE_DIR = "restate"
QUEUE_VERSION = 1
#: Longest piece of one item's text that goes into a restatement.
MAX_ITEM_CHARS = 600
#: Longest restatement as a whole (the hook's additionalContext stays short).
MAX_TEXT_CHARS = 4000
HEADER = (
    "[ctx-tui] Restatement of facts stated earlier in this session. They may have "
    "faded from your context; they still apply:"
)

Reason = Literal["manual", "auto"]


@dataclass(frozen=True, slots=True)
class QueuedItem:
    """One fact waiting in the queue (a copy of the item at the time it was queued)."""

    id: str
    type: str
    importance: str
    content: str
    reason: str = "manual"
    queued_at: str = ""


@dataclass(frozen=True, slots=True)
class QueueResult:
    """What :func:`queue_restatement` did."""

    item_id: str
    queued: bool  # False: the item was already waiting (queued once only)
    queue_length: int
    path: Path


def queue_path(project: Path, session_id: str) -> Path:
    return state_dir(project) / RESTATE_DIR / f"{safe_name(session_id)}.json"


def _value(field: Any) -> str:
    """An enum member or a plain string as its string value."""
    return str(getattr(field, "value", field))


def queued_item_from(item: TrackedItem, reason: Reason = "manual") -> QueuedItem:
    return QueuedItem(
        id=item.id,
        type=_value(item.type),
        importance=_value(item.importance),
        content=item.content,
        reason=reason,
        queued_at=now_iso(),
    )


def _parse_items(raw: bytes) -> list[QueuedItem]:
    data = orjson.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise ValueError("not a restatement queue (no 'items' list)")
    items = []
    for row in data["items"]:
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise ValueError("a queued item without an id")
        items.append(
            QueuedItem(
                id=row["id"],
                type=str(row.get("type", "")),
                importance=str(row.get("importance", "low")),
                content=str(row.get("content", "")),
                reason=str(row.get("reason", "manual")),
                queued_at=str(row.get("queued_at", "")),
            )
        )
    return items


def _read_queue(path: Path) -> list[QueuedItem]:
    """The queue's items; a damaged file is renamed ``*.damaged-<time>`` and reads as empty.

    The caller holds the queue's lock.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    try:
        return _parse_items(raw)
    except (orjson.JSONDecodeError, ValueError):
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        os.replace(path, path.with_name(f"{path.name}.damaged-{stamp}"))
        return []


def _write_queue(path: Path, session_id: str, items: Sequence[QueuedItem]) -> None:
    payload = {"version": QUEUE_VERSION, "session_id": session_id, "items": [asdict(i) for i in items]}
    write_atomic(path, orjson.dumps(payload, option=orjson.OPT_INDENT_2))


def enqueue(project: Path, session_id: str, items: Iterable[QueuedItem]) -> list[QueueResult]:
    """Add items to the session's queue under its lock; ids already waiting are skipped."""
    path = queue_path(project, session_id)
    results: list[QueueResult] = []
    with locked(path):
        queue = _read_queue(path)
        waiting = {q.id for q in queue}
        for item in items:
            added = item.id not in waiting
            if added:
                queue.append(item)
                waiting.add(item.id)
            results.append(QueueResult(item.id, added, len(queue), path))
        if any(r.queued for r in results):
            _write_queue(path, session_id, queue)
    return [QueueResult(r.item_id, r.queued, len(queue), path) for r in results]


def queue_restatement(
    project: Path, session_id: str, item: TrackedItem, reason: Reason = "manual"
) -> QueueResult:
    """Queue one item for the next prompt (no reference or audit: see :func:`restate_items`)."""
    return enqueue(project, session_id, [queued_item_from(item, reason)])[0]


def pending_restatements(project: Path, session_id: str) -> list[QueuedItem]:
    """What the next prompt would receive, without taking it."""
    path = queue_path(project, session_id)
    if not path.exists():
        return []
    with locked(path):
        return _read_queue(path)


def take_restatements(project: Path, session_id: str) -> list[QueuedItem]:
    """Empty the queue and return what it held; concurrent takers never both get an item.

    Cheap when nothing waits: no lock is taken and nothing is created.
    """
    path = queue_path(project, session_id)
    if not path.exists():
        return []
    with locked(path):
        items = _read_queue(path)
        try:
            path.unlink()
        except FileNotFoundError:
            pass
    return items


def restatement_text(items: Iterable[QueuedItem | TrackedItem]) -> str:
    """The plain-text restatement of ``items``, most important first ("" when none).

    One line per item, ``- (type, importance) content``; it says that these are
    earlier facts, and stays under ``MAX_TEXT_CHARS`` (items that do not fit are
    counted, not cut in half).
    """
    rows = [(_value(i.importance), _value(i.type), i.content) for i in items]
    lines = []
    for importance, kind, content in sorted(rows, key=lambda row: -importance_rank(row[0])):  # stable: queue order within a rank
        text = one_line(content, MAX_ITEM_CHARS)
        if text:
            lines.append(f"- ({one_line(kind.replace('_', ' '), 40)}, {one_line(importance, 10)}) {text}")
    return _fit(HEADER, lines, "({} more queued item(s) did not fit; see `ctx-tui detect-decay`.)")


def _fit(header: str, lines: Sequence[str], overflow: str) -> str:
    """``header`` and as many ``lines`` as fit in ``MAX_TEXT_CHARS``, in order.

    A line that does not fit is counted (never cut in half) and the count is
    named by ``overflow`` (a format string); "" when there are no lines.
    """
    kept = [header]
    size = len(header)
    left_out = 0
    for line in lines:
        if size + 1 + len(line) > MAX_TEXT_CHARS:
            left_out += 1
            continue
        kept.append(line)
        size += 1 + len(line)
    if len(kept) == 1:
        return ""
    if left_out:
        kept.append(overflow.format(left_out))
    return "\n".join(kept)


@dataclass(frozen=True, slots=True)
class Restatement:
    """What :func:`restate_items` did.

    ``hook_installed``: the items were queued for the prompt hook (``queued``
    says, per id, whether it was new in the queue; ``queue_length`` is what
    waits now). Otherwise nothing was queued and ``text`` is the restatement
    for the user to paste into the agent.
    """

    item_ids: tuple[str, ...]
    hook_installed: bool
    queued: tuple[bool, ...]  # per id: False when already waiting (or not queued: no hook)
    queue_length: int
    text: str  # "" when the hook delivers the items


def _active_items(memory: SessionMemory, session_id: str, item_ids: Sequence[str]) -> list[TrackedItem]:
    items = []
    for item_id in dict.fromkeys(item_ids):
        item = memory.get_item(item_id)
        if item is None or item.dismissed:
            known = ", ".join(i.id for i in memory.active_items()) or "none"
            state = "dismissed" if item is not None else "unknown"
            raise CtxError(f"{state} item {item_id!r} in session {session_id}; known items: {known}")
        items.append(item)
    return items


def restate_items(
    project: Path,
    session_id: str,
    item_ids: Sequence[str],
    current_round: int,
    reason: Reason = "manual",
    hook_installed: bool | None = None,
) -> Restatement:
    """Restate items: the one place that decides how (``ctx-tui refresh``, the dashboard's ``r``, the hook).

    With the ``UserPromptSubmit`` hook installed for the project the items are
    queued for the next prompt (``restate.queued``). Without it nothing is
    queued (a hook installed later would deliver what the user already pasted):
    the text to paste is returned (``restate.copied``). Either way each item
    counts as referenced in ``current_round``. ``hook_installed`` None looks it
    up (:func:`~ctx_tui.actions.hook_install.is_hook_installed`); the hook's own
    auto-refresh passes True. An unknown or dismissed id is a :class:`CtxError`
    naming the known ones, raised before anything changes.
    """
    memory = load_session_memory(project, session_id)
    items = _active_items(memory, session_id, item_ids)
    ids = tuple(item.id for item in items)
    if hook_installed is None:
        hook_installed = is_hook_installed(project)
    if hook_installed:
        results = enqueue(project, session_id, [queued_item_from(item, reason) for item in items])
        queued = tuple(r.queued for r in results)
        length, text = (results[-1].queue_length if results else 0), ""
    else:
        queued, length, text = tuple(False for _ in ids), 0, restatement_text(items)
    reference = current_round if current_round >= 1 else None
    if reference is not None:
        update_session_memory(project, session_id, lambda m: m.add_references({i: [reference] for i in ids}))
    for item_id, was_queued in zip(ids, queued):
        if hook_installed:
            audit.record(project, "restate.queued", session=session_id, item=item_id, reason=reason,
                         queued=was_queued, reference_round=reference)
        else:
            audit.record(project, "restate.copied", session=session_id, item=item_id, reason=reason,
                         reference_round=reference)
    return Restatement(ids, hook_installed, queued, length, text)


REINJECT_HEADER = (
    "[ctx-tui] Carried over the compaction from this session's memory: its goals, "
    "constraints and preferences. They still apply:"
)


def reinjection_text(memory: SessionMemory) -> str:
    """Goals, constraints and preferences of session memory as plain text ("" when none).

    What the ``SessionStart`` hook re-injects after ``/compact``; each fact once,
    one line each, within ``MAX_TEXT_CHARS`` (later facts are counted, not cut).
    """
    groups = (("Goal", memory.goals), ("Constraint", memory.constraints), ("Preference", memory.preferences))
    lines = []
    seen: set[str] = set()
    for label, notes in groups:
        for note in notes:
            text = one_line(note.text, MAX_ITEM_CHARS)
            key = normalise_content(text)
            if text and key not in seen:
                seen.add(key)
                lines.append(f"- {label}: {text}")
    return _fit(REINJECT_HEADER, lines, "({} more in .ctx/sessions/; see `ctx-tui summarize-session`.)")
