"""One starting draft for a handoff, shared by the TUI form and ``handoff new --from-session``.

The draft is the session's prefill (:mod:`ctx_tui.handoff.prefill`: files,
plan, usage, task, decisions), continued from this session's newest handoff
when it already wrote one: that handoff's text stays, the session's new facts
are added. Options and draft files given on the command line are merged over
it with :func:`merge`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ctx_tui.config import Config
from ctx_tui.handoff.prefill import prefill_from_session
from ctx_tui.handoff.resume import list_handoffs
from ctx_tui.window import Session


@dataclass
class StartingDraft:
    draft: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    previous: Path | None = None  # the handoff of this session it starts from


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over``'s values win, except empty ones; ``task_state`` merges key by key."""
    out = dict(base)
    for key, value in over.items():
        if value in (None, "", []):
            out.setdefault(key, value)
        elif key == "task_state" and isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(dict(out[key]), value)
        else:
            out[key] = value
    return out


def _union(first: Sequence[Any], then: Sequence[Any]) -> list[Any]:
    out = list(first)
    out += [v for v in then if v not in out]
    return out


def subtask_share(done: Sequence[Any], todo: Sequence[Any]) -> int | None:
    """completion_pct from the subtasks: the share done, when there is anything to count."""
    return round(100 * len(done) / (len(done) + len(todo))) if done or todo else None


def continue_from(previous: Mapping[str, Any], fresh: Mapping[str, Any]) -> dict[str, Any]:
    """A second handoff of a session: the last one's text, with the session's new facts added.

    The time and usage come from ``fresh`` (the prefill of now); edited and
    created files, decisions and completed subtasks are the union, the last
    handoff's first; subtasks completed since are dropped from the remaining
    ones. completion_pct follows the subtasks when the session has a plan
    (``fresh`` has a completion), else stays the author's.
    """
    draft = dict(previous)
    for key in ("handoff_version", "timestamp", "context_usage_pct", "session_id"):
        if fresh.get(key) is not None:
            draft[key] = fresh[key]
    for key in ("files_modified", "files_created", "contracts_consumed"):
        draft[key] = _union(previous.get(key) or [], fresh.get(key) or [])
    seen = {str(d.get("decision")) for d in previous.get("decisions_made") or [] if isinstance(d, Mapping)}
    draft["decisions_made"] = list(previous.get("decisions_made") or []) + [
        d for d in fresh.get("decisions_made") or [] if isinstance(d, Mapping) and str(d.get("decision")) not in seen
    ]
    old_task = previous.get("task_state")
    if not isinstance(old_task, Mapping):
        old_task = {}
    new_task = fresh.get("task_state")
    if not isinstance(new_task, Mapping):
        new_task = {}
    task = dict(old_task)
    done = _union(old_task.get("completed_subtasks") or [], new_task.get("completed_subtasks") or [])
    todo = _union([t for t in old_task.get("remaining_subtasks") or [] if t not in done],
                  [t for t in new_task.get("remaining_subtasks") or [] if t not in done])
    task["completed_subtasks"] = done
    task["remaining_subtasks"] = todo
    if new_task.get("completion_pct") is not None:
        task["completion_pct"] = subtask_share(done, todo)
    if not task.get("assigned_task"):
        task["assigned_task"] = new_task.get("assigned_task") or ""
    draft["task_state"] = task
    return draft


def draft_from_session(session: Session, project: Path, config: Config, now: datetime | None = None) -> StartingDraft:
    """The starting draft of a polled session: its prefill, continued from its newest handoff."""
    prefill = prefill_from_session(session, project, config, now)
    sid = prefill.draft.get("session_id")
    previous = next(
        (h for h in list_handoffs(project, config) if h.data is not None and sid and h.data.get("session_id") == sid),
        None,
    )
    if previous is None or previous.data is None:
        return StartingDraft(prefill.draft, list(prefill.notes))
    notes = [*prefill.notes, f"started from this session's last handoff {previous.path.name}"]
    return StartingDraft(continue_from(previous.data, prefill.draft), notes, previous.path)


def read_starting_draft(transcript: Path, project: Path, config: Config) -> StartingDraft:
    """Read the transcript and build its starting draft. Blocking: the form runs it in a thread."""
    session = Session(transcript, config)
    session.poll()
    return draft_from_session(session, project, config)
