"""Finding the handoffs of a project and turning the newest into a resume prompt."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ctx_tui.config import Config
from ctx_tui.handoff.gate import Finding, check_handoff, passes
from ctx_tui.handoff.schema import HandoffReadError, read_handoff
from ctx_tui.handoff.writer import handoff_dir
from ctx_tui.paths import shown_path

#: How many files the prompt lists per group before it says "and N more".
PROMPT_FILES = 15


@dataclass
class HandoffFile:
    """One file of the handoff folder: its data (or why it could not be read) and its gate result."""

    path: Path
    data: dict[str, Any] | None
    error: str | None = None
    findings: list[Finding] = field(default_factory=list)
    written_at: datetime | None = None

    @property
    def status(self) -> str:
        """``pass``, ``warn`` (passes with warnings), ``FAIL`` or ``unreadable``."""
        if self.data is None:
            return "unreadable"
        if not passes(self.findings):
            return "FAIL"
        return "warn" if self.findings else "pass"


def _when(data: Mapping[str, Any] | None, path: Path) -> datetime:
    stamp = data.get("timestamp") if data else None
    if isinstance(stamp, datetime):
        parsed: datetime | None = stamp
    else:
        try:
            parsed = datetime.fromisoformat(stamp.strip()) if isinstance(stamp, str) else None
        except ValueError:
            parsed = None
    if parsed is None:
        return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def list_handoffs(project: Path, config: Config) -> list[HandoffFile]:
    """Every ``*.yaml`` of the handoff folder, newest first (by its timestamp, then file time)."""
    folder = handoff_dir(project, config)
    try:
        paths = [p for p in folder.glob("*.yaml") if p.is_file()]
    except OSError:
        return []
    files: list[tuple[tuple[datetime, int, str], HandoffFile]] = []
    for path in paths:
        findings: list[Finding] = []
        try:
            data: dict[str, Any] | None = read_handoff(path)
            error = None
            findings = check_handoff(data, project)
        except HandoffReadError as exc:
            data, error = None, str(exc)
        except (ValueError, TypeError, RecursionError) as exc:  # a value of a shape the gate cannot judge
            data, error = None, f"{path}: cannot be checked ({type(exc).__name__}: {exc})"
        try:
            mtime_ns = path.stat().st_mtime_ns
            when = _when(data, path)
        except OSError:
            continue  # removed while listing
        item = HandoffFile(path, data, error, findings, when)
        files.append(((when, mtime_ns, path.name), item))
    files.sort(key=lambda pair: pair[0], reverse=True)
    return [item for _, item in files]


def latest_handoff(project: Path, config: Config) -> HandoffFile | None:
    """The newest readable handoff, or None when there is none."""
    return next((h for h in list_handoffs(project, config) if h.data is not None), None)


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str) and v.strip()] if isinstance(value, list) else []


def _file_lines(title: str, paths: list[str]) -> list[str]:
    if not paths:
        return []
    lines = [f"{title}:"] + [f"  - {p}" for p in paths[:PROMPT_FILES]]
    if len(paths) > PROMPT_FILES:
        lines.append(f"  - … and {len(paths) - PROMPT_FILES} more (see the handoff file)")
    return lines


def resume_prompt(handoff: HandoffFile, project: Path | None = None) -> str:
    """The text to start the next session with: where things stand, what to read, the first action."""
    data = handoff.data or {}
    task = data.get("task_state")
    if not isinstance(task, Mapping):
        task = {}
    rel = shown_path(handoff.path, project)
    head = f"You are continuing the work of a previous session (handoff {rel}"
    who = [f"role {data['agent_role']}" if isinstance(data.get("agent_role"), str) else None,
           f"written {data['timestamp']}" if data.get("timestamp") else None,
           f"session {data['session_id']}" if isinstance(data.get("session_id"), str) else None]
    lines = [head + "".join(f", {w}" for w in who if w) + ")."]
    if not passes(handoff.findings):
        lines.append("Warning: this handoff failed the quality gate when it was written; verify before trusting it.")
    lines.append("")
    if isinstance(task.get("assigned_task"), str):
        lines.append(f"Task: {task['assigned_task'].strip()}")
    pct = task.get("completion_pct")
    if isinstance(pct, (int, float)) and not isinstance(pct, bool):
        lines.append(f"Progress: {pct:g}% complete.")
    for title, key in (("Done", "completed_subtasks"), ("Remaining", "remaining_subtasks"), ("Blockers", "blockers")):
        items = _strings(task.get(key))
        if items:
            lines.append(f"{title}:")
            lines += [f"  - {i}" for i in items]
    decisions = [d for d in data.get("decisions_made") or [] if isinstance(d, Mapping)]
    if decisions:
        lines.append("Decisions already made (keep them unless you find a reason in the code):")
        for d in decisions:
            why = f" — because {d['rationale']}" if isinstance(d.get("rationale"), str) and d["rationale"].strip() else ""
            lines.append(f"  - {d.get('decision')}{why}")
    lines.append("")
    lines.append("Read first:")
    lines.append(f"  - the handoff itself: {rel}")
    lines += [f"  - {p} (contract)" for p in _strings(data.get("contracts_consumed"))]
    lines += _file_lines("Files modified in that session", _strings(data.get("files_modified")))
    lines += _file_lines("Files created in that session", _strings(data.get("files_created")))
    context = data.get("continuation_context")
    if isinstance(context, str) and context.strip():
        lines += ["", "Context:", context.strip()]
    action = data.get("suggested_first_action")
    if isinstance(action, str) and action.strip():
        lines += ["", f"First action: {action.strip()}"]
    return "\n".join(lines) + "\n"
