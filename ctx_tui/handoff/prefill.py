"""A handoff draft pre-filled from the session and its session memory.

What is filled, and from where:

- ``session_id``, ``context_usage_pct`` — the transcript (``SessionMeta``,
  ``WindowState``); ``timestamp`` — now; ``agent_role`` — ``handoff.agent_role``.
- ``files_modified`` / ``files_created`` — the agent's *successful* edit calls
  (:func:`~ctx_tui.transcripts.activity.file_activity`), relative to the
  project root (the session's cwd);
  paths outside it are dropped.
- ``task_state`` — the latest plan the agent kept (Claude ``TodoWrite``, Codex
  ``update_plan``): completed and remaining steps, and the share done as
  ``completion_pct`` (without a plan it is left for the author); the first
  goal of session memory, else the goal extraction finds (the first real user
  request, :func:`~ctx_tui.memory.extract.extract_items`), followed by ``— now:``
  and the task in hand when the user set another task since, as ``assigned_task``;
  progress notes of session memory join the completed list.
- ``decisions_made`` — decisions of session memory, then the decisions the
  extraction finds in the transcript (:func:`~ctx_tui.memory.extract.extract_items`),
  with their rationale (an empty rationale stays empty: the gate asks for it).
- ``contracts_consumed`` — files the agent read that match
  ``handoff.contracts`` globs.

``continuation_context`` and ``suggested_first_action`` are left for the
author: they are the judgement a transcript cannot supply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctx_tui.config import Config
from ctx_tui.errors import CtxError
from ctx_tui.handoff.schema import HANDOFF_VERSION
from ctx_tui.memory.extract import extract_items
from ctx_tui.memory.items import ItemType
from ctx_tui.memory.session_store import load_session_memory
from ctx_tui.transcripts.activity import file_activity, latest_plan
from ctx_tui.transcripts.model import Entry, SessionMeta
from ctx_tui.window_state import WindowState

if TYPE_CHECKING:
    from ctx_tui.window import Session

@dataclass
class Prefill:
    """A draft handoff (a plain dict for the gate and the editor) and notes on what could not be filled."""

    draft: dict[str, Any]
    notes: list[str] = field(default_factory=list)


# -- paths ---------------------------------------------------------------------------


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A project-relative glob: ``*`` and ``?`` stay within a folder, ``**`` spans folders.

    A pattern without ``/`` matches the file name at any depth (as in .gitignore).
    """
    pattern = pattern.strip().removeprefix("./")
    if "/" not in pattern:
        pattern = "**/" + pattern
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out + r"\Z")


def matching_contracts(paths: Iterable[str], patterns: Sequence[str]) -> list[str]:
    """The ``paths`` (project-relative) that match any contract glob, in first-seen order."""
    regexes = [_glob_regex(p) for p in patterns if p.strip()]
    out: list[str] = []
    for path in paths:
        if path not in out and any(r.match(path) for r in regexes):
            out.append(path)
    return out


# -- the draft -------------------------------------------------------------------------


def now_stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="seconds")


def base_draft(config: Config, now: datetime | None = None) -> dict[str, Any]:
    """A draft with every field: role and time filled, the rest empty for the author."""
    return {
        "handoff_version": HANDOFF_VERSION,
        "agent_role": config.handoff.agent_role,
        "timestamp": now_stamp(now),
        "session_id": None,
        "context_usage_pct": None,
        "task_state": {
            "assigned_task": "",
            "completion_pct": None,
            "completed_subtasks": [],
            "remaining_subtasks": [],
            "blockers": [],
        },
        "decisions_made": [],
        "files_modified": [],
        "files_created": [],
        "contracts_consumed": [],
        "continuation_context": "",
        "suggested_first_action": "",
    }


def prefill_handoff(
    entries: Sequence[Entry],
    meta: SessionMeta,
    state: WindowState | None,
    project: Path,
    config: Config,
    *,
    session_id: str | None = None,
    now: datetime | None = None,
) -> Prefill:
    """A draft from a session's entries; ``project`` holds ``.ctx/`` (session memory)."""
    notes: list[str] = []
    draft = base_draft(config, now)
    sid = meta.session_id or session_id
    draft["session_id"] = sid
    if state is not None and state.context_window:
        draft["context_usage_pct"] = round(state.usage_pct, 1)
    root = Path(meta.cwd) if meta.cwd else project
    activity = file_activity(entries, root)

    task: dict[str, Any] = draft["task_state"]
    extracted = extract_items(entries)
    # the session's goal, and the task in hand when the user has moved on to another one since
    goals = [e.item.content for e in extracted if e.item.type is ItemType.GOAL]
    goal = f"{goals[0]} — now: {goals[-1]}" if len(goals) > 1 else goals[0] if goals else None
    decisions: list[dict[str, Any]] = []
    progress: list[str] = []
    if sid:
        try:
            memory = load_session_memory(project, sid)
        except CtxError as exc:
            notes.append(f"session memory not used: {exc}")
        else:
            goals = [g.text for g in memory.goals if g.text.strip()]
            goal = goals[0] if goals else goal
            decisions = [
                {"decision": d.decision, "rationale": d.rationale, "affects_files": list(d.affects_files)}
                for d in memory.decisions
            ]
            progress = [p.text for p in memory.progress if p.text.strip()]
    if goal:
        task["assigned_task"] = goal
    known = {" ".join(str(d["decision"]).lower().split()) for d in decisions}
    for found in extracted:
        key = " ".join(found.item.content.lower().split())
        if found.item.type is ItemType.DECISION and key not in known:
            known.add(key)
            decisions.append({"decision": found.item.content, "rationale": found.rationale,
                              "affects_files": list(found.affects_files)})
    plan = latest_plan(entries)
    done, todo = plan if plan is not None else ([], [])
    done += [p for p in progress if p not in done]
    # From the plan's share; without a plan (progress notes alone say nothing of what remains)
    # the author states it (the key is there, empty, for the editor).
    task["completion_pct"] = (round(100 * len(done) / (len(done) + len(todo)))
                              if (plan is not None or todo) and (done or todo) else None)
    task.update({"completed_subtasks": done, "remaining_subtasks": todo})
    draft["decisions_made"] = decisions
    draft["files_modified"] = activity.modified
    draft["files_created"] = activity.created
    draft["contracts_consumed"] = matching_contracts(activity.read, config.handoff.contracts)
    if root.resolve() != project.resolve():
        notes.append(f"paths are relative to the session's directory {root}")
    return Prefill(draft=draft, notes=notes)


def prefill_from_session(session: Session, project: Path, config: Config, now: datetime | None = None) -> Prefill:
    """:func:`prefill_handoff` for a polled :class:`~ctx_tui.window.Session`."""
    return prefill_handoff(
        session.entries, session.meta, session.state(), project, config,
        session_id=session.path.stem, now=now,
    )
