"""The restatement queue: facts waiting to be put back into the agent's context.

One JSON file per session, ``.ctx/restate/<session-id>.json``::

    {"version": 1, "session_id": "...", "items": [
        {"id": "...", "type": "constraint", "importance": "high",
         "content": "...", "reason": "manual", "queued_at": "2026-...+00:00"}]}

Writers (``ctx-tui refresh``, the dashboard's ``r``, the auto-refresh of the
``UserPromptSubmit`` hook, all through
:func:`~ctx_tui.actions.restate.restate_items`) add under the file's lock; an
item already waiting is not queued twice. Only a project whose prompt hook is
installed gets a queue: without the hook the user pastes the restatement, and
nothing waits to be delivered twice. The hook takes the whole queue under the
same lock and removes the file before releasing it, so two hooks running at
once can never deliver the same item twice. A damaged queue file is moved
aside (kept, never deleted) and the queue starts empty.

This module is what the prompt hook runs when something waits, so it stays
light: no pydantic, no orjson (the files are small; json_light reads them
with the json module's C scanner, without json's import of re), no
dataclasses (``import dataclasses`` pulls in ``inspect``, ~9 ms of the hook's
~30 ms budget), no pathlib (:func:`take_restatements` works on the string
path), no enum (kinds_plain). Restating an item, which changes session
memory, lives in :mod:`ctx_tui.actions.restate`.
"""

from __future__ import annotations

import os
from collections import namedtuple

from ctx_tui import json_light
from ctx_tui.kinds_plain import importance_rank, normalise_content, now_iso
from ctx_tui.paths import file_exists, restate_queue_file
from ctx_tui.paths import restate_queue_path as queue_path
from ctx_tui.plain_text import one_line
from ctx_tui.storage import LOCK_TIMEOUT_S, locked, read_regular, write_atomic

TYPE_CHECKING = False  # typing is not imported at run time (NamedTuple: collections' own, typed below)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path
    from typing import Any, Literal

    from ctx_tui.memory.items import TrackedItem

    Reason = Literal["manual", "auto"]

QUEUE_VERSION = 1
#: Longest piece of one item's text that goes into a restatement.
MAX_ITEM_CHARS = 600
#: Longest restatement as a whole (the hook's additionalContext stays short).
MAX_TEXT_CHARS = 4000
HEADER = (
    "[ctx-tui] Restatement of facts stated earlier in this session. They may have "
    "faded from your context; they still apply:"
)


class QueuedItem(namedtuple("QueuedItem", "id type importance content reason queued_at", defaults=("manual", ""))):
    """One fact waiting in the queue (a copy of the item at the time it was queued)."""

    __slots__ = ()
    id: str
    type: str
    importance: str
    content: str
    reason: str
    queued_at: str


class QueueResult(namedtuple("QueueResult", "item_id queued queue_length path")):
    """What :func:`queue_restatement` did."""

    __slots__ = ()
    item_id: str
    queued: bool  # False: the item was already waiting (queued once only)
    queue_length: int
    path: Path


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
    data = json_light.loads(raw)  # a small file read by the prompt hook: no orjson, no json (hook_runtime)
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


def _read_queue(path: Path | str) -> list[QueuedItem]:
    """The queue's items; a damaged file is renamed ``*.damaged-<time>`` and reads as empty.

    The caller holds the queue's lock.
    """
    try:
        raw = read_regular(path)
    except FileNotFoundError:
        return []
    try:
        return _parse_items(raw)
    except ValueError:  # not JSON, not UTF-8, or not a queue
        from datetime import datetime, timezone  # a damaged queue only (see kinds.now_iso)

        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        os.replace(path, f"{os.fspath(path)}.damaged-{stamp}")
        return []


def _write_queue(path: Path, session_id: str, items: Sequence[QueuedItem]) -> None:
    import json  # the writers (refresh, the dashboard, auto-refresh): json_light writes no indented text

    payload = {"version": QUEUE_VERSION, "session_id": session_id, "items": [i._asdict() for i in items]}
    write_atomic(path, json.dumps(payload, ensure_ascii=False, indent=2))


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


def take_restatements(
    project: Path | str, session_id: str, lock_timeout: float = LOCK_TIMEOUT_S
) -> list[QueuedItem]:
    """Empty the queue and return what it held; concurrent takers never both get an item.

    Cheap when nothing waits: no lock is taken and nothing is created. A lock
    not had within ``lock_timeout`` raises ``storage.LockTimeout`` (the queue is untouched).
    """
    path = restate_queue_file(project, session_id)
    if not file_exists(path):
        return []
    with locked(path, lock_timeout):
        items = _read_queue(path)
        try:
            os.unlink(path)
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
    return fit_lines(HEADER, lines, "({} more queued item(s) did not fit; see `ctx-tui detect-decay`.)")


def fit_lines(header: str, lines: Sequence[str], overflow: str) -> str:
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


REINJECT_HEADER = (
    "[ctx-tui] Carried over the compaction from this session's memory: its goals, "
    "constraints and preferences. They still apply:"
)


def reinjection_text(goals: Sequence[str], constraints: Sequence[str], preferences: Sequence[str]) -> str:
    """The goals, constraints and preferences of session memory (their texts) as plain text ("" when none).

    What the ``SessionStart`` hook re-injects after ``/compact``; each fact once,
    one line each, within ``MAX_TEXT_CHARS`` (later facts are counted, not cut).
    """
    lines = []
    seen: set[str] = set()
    for label, notes in (("Goal", goals), ("Constraint", constraints), ("Preference", preferences)):
        for note in notes:
            text = one_line(note, MAX_ITEM_CHARS)
            key = normalise_content(text)
            if text and key not in seen:
                seen.add(key)
                lines.append(f"- {label}: {text}")
    return fit_lines(REINJECT_HEADER, lines, "({} more in .ctx/sessions/; see `ctx-tui summarize-session`.)")
