"""Typed, forgiving access to a half-filled draft: each rule sees only usable values."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctx_tui.handoff.gate.findings import Finding, Severity

#: What each field should hold, used as the hint of schema findings.
HINTS: dict[str, str] = {
    "agent_role": "the role of the agent writing it, e.g. main, backend, reviewer",
    "timestamp": "ISO 8601, e.g. 2026-01-31T17:05:00+00:00",
    "task_state": "a mapping with assigned_task, completion_pct and the subtask lists",
    "assigned_task": "one line: what this session was asked to do",
    "completion_pct": "an honest number from 0 to 100",
    "continuation_context": "what the next session must know: what is done, what is broken or pending, "
                            "with evidence (errors, test names, commands and results) (<= 500 words)",
    "suggested_first_action": "one executable step: a command, or an edit naming its target and the change, "
                              "e.g. Run `pytest tests/test_io.py -k partial`",
    "files_modified": "a list of paths relative to the project",
    "files_created": "a list of paths relative to the project",
    "contracts_consumed": "a list of paths relative to the project",
    "affects_files": "a list of paths relative to the project",
    "completed_subtasks": "a list of one-line subtasks",
    "remaining_subtasks": "a list of one-line subtasks",
    "blockers": "a list of what blocks the remaining work",
    "decisions_made": "a list of {decision, rationale, affects_files}",
    "context_usage_pct": "the context window usage, 0 to 100",
}


class DraftView:
    """The draft, the fields that already have a schema error, and the findings so far."""

    def __init__(self, data: Mapping[str, Any], bad: set[str], project: Path | None) -> None:
        self.data = data
        self.bad = bad
        self.project = project
        self.findings: list[Finding] = []
        ts = data.get("task_state")
        self.task: Mapping[str, Any] = ts if isinstance(ts, Mapping) else {}

    def add(self, field: str, severity: Severity, message: str, hint: str, rule: str) -> None:
        self.findings.append(Finding(field, severity, message, hint, rule))

    def text(self, field: str, value: Any) -> str | None:
        """``value`` when it is usable text of a field without a schema error."""
        if field in self.bad or not isinstance(value, str):
            return None
        return value

    def strings(self, field: str, value: Any) -> list[str]:
        """The non-blank texts of a list field without a schema error."""
        if field in self.bad or not isinstance(value, list):
            return []
        return [v for v in value if isinstance(v, str) and v.strip()]

    def task_list(self, key: str) -> list[str]:
        return self.strings(f"task_state.{key}", self.task.get(key))

    def task_text(self, key: str) -> str:
        return self.text(f"task_state.{key}", self.task.get(key)) or ""

    def context(self) -> str:
        return self.text("continuation_context", self.data.get("continuation_context")) or ""

    def action(self) -> str:
        return (self.text("suggested_first_action", self.data.get("suggested_first_action")) or "").strip()
