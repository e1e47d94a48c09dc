"""Restating items: the one place that decides how a fact goes back to the agent.

:func:`restate_items` (``ctx-tui refresh``, the dashboard's ``r``, the prompt
hook's auto-refresh) queues the items for the ``UserPromptSubmit`` hook when it
is installed (:mod:`ctx_tui.actions.restate_queue`), else returns the text to
paste; either way each item counts as referenced. What the ``SessionStart``
hook puts back after ``/compact`` is
:func:`~ctx_tui.actions.restate_queue.reinjection_text`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ctx_tui import audit
from ctx_tui.actions.hook_install import is_hook_installed
from ctx_tui.actions.restate_queue import enqueue, queued_item_from, restatement_text
from ctx_tui.errors import CtxError
from ctx_tui.memory.items import TrackedItem
from ctx_tui.memory.session_store import SessionMemory, load_session_memory, update_session_memory

if TYPE_CHECKING:
    from ctx_tui.actions.restate_queue import Reason


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
