"""The handoff form's fields: draft <-> field text, where a finding goes, and what to fill (pure).

The form shows a pre-filled draft; a field the user must still write (empty
or wrong when the form opens) is marked "to fill" and its findings stay
hidden until the user types in it or tries to save, so the form opens
helpful, not red. Everything here is plain data and Rich text: the screen
(:mod:`ctx_tui.ui.screens.handoff_form`) only renders it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rich.text import Text

from ctx_tui.handoff.gate import Finding
from ctx_tui.handoff.schema import HANDOFF_VERSION
from ctx_tui.ui.safe import clean, literal

Kind = Literal["text", "number", "lines", "decisions", "prose"]


@dataclass(frozen=True, slots=True)
class FieldSpec:
    key: str  # dotted path in the handoff: "task_state.completion_pct"
    label: str
    kind: Kind

    @property
    def widget_id(self) -> str:
        return "hf-" + self.key.replace(".", "-").replace("_", "-")


#: The form's fields, what the user must write first; every schema field but the version.
FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("task_state.assigned_task", "Assigned task", "text"),
    FieldSpec("task_state.completion_pct", "Completion %", "number"),
    FieldSpec("continuation_context", "Continuation context", "prose"),
    FieldSpec("suggested_first_action", "Suggested first action", "text"),
    FieldSpec("task_state.completed_subtasks", "Completed subtasks (one per line)", "lines"),
    FieldSpec("task_state.remaining_subtasks", "Remaining subtasks (one per line)", "lines"),
    FieldSpec("task_state.blockers", "Blockers (one per line)", "lines"),
    FieldSpec("decisions_made", "Decisions (decision | rationale | file, file)", "decisions"),
    FieldSpec("files_modified", "Files modified (one per line)", "lines"),
    FieldSpec("files_created", "Files created (one per line)", "lines"),
    FieldSpec("contracts_consumed", "Contracts consumed (one per line)", "lines"),
    FieldSpec("agent_role", "Agent role", "text"),
    FieldSpec("session_id", "Session id", "text"),
    FieldSpec("timestamp", "Timestamp (ISO 8601)", "text"),
    FieldSpec("context_usage_pct", "Context usage %", "number"),
)
BY_KEY = {spec.key: spec for spec in FIELDS}
GENERAL = "general"


# -- draft <-> field text (pure) -------------------------------------------------------------


def _get(data: Mapping[str, Any], key: str) -> Any:
    value: Any = data
    for part in key.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def _number_text(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def decision_line(decision: Mapping[str, Any]) -> str:
    parts = [str(decision.get("decision", "")).strip(), str(decision.get("rationale", "")).strip()]
    files = [str(f) for f in decision.get("affects_files") or []]
    if files:
        parts.append(", ".join(files))
    return " | ".join(parts).removesuffix(" | ")


def field_text(data: Mapping[str, Any], spec: FieldSpec) -> str:
    """What the field's widget shows for the draft ``data``."""
    value = _get(data, spec.key)
    if spec.kind == "number":
        return _number_text(value)
    if spec.kind == "lines":
        return "\n".join(str(v) for v in value) if isinstance(value, list) else ""
    if spec.kind == "decisions":
        return "\n".join(decision_line(d) for d in value if isinstance(d, Mapping)) if isinstance(value, list) else ""
    return "" if value is None else str(value)


def parse_decision(line: str) -> dict[str, Any]:
    """``decision | rationale | a.py, b.py``; a missing rationale stays missing (the gate says so)."""
    parts = [p.strip() for p in line.split("|", 2)]
    out: dict[str, Any] = {"decision": parts[0]}
    if len(parts) > 1 and parts[1]:
        out["rationale"] = parts[1]
    out["affects_files"] = [f.strip() for f in parts[2].split(",") if f.strip()] if len(parts) > 2 else []
    return out


def _number(text: str) -> float | str | None:
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return text  # the gate says "must be a number"


def field_value(spec: FieldSpec, text: str) -> Any:
    """The draft value of a field's text (None: leave the key out)."""
    if spec.kind == "number":
        return _number(text)
    if spec.kind == "lines":
        return [line.strip() for line in text.splitlines() if line.strip()]
    if spec.kind == "decisions":
        return [parse_decision(line) for line in text.splitlines() if line.strip()]
    if spec.kind == "prose":
        return text.strip("\n")
    stripped = text.strip()
    if not stripped and spec.key == "session_id":
        return None  # optional: an empty one is left out
    return stripped


def build_draft(texts: Mapping[str, str]) -> dict[str, Any]:
    """The handoff dict of the form's field texts (keys of :data:`FIELDS`)."""
    draft: dict[str, Any] = {"handoff_version": HANDOFF_VERSION}
    task: dict[str, Any] = {}
    for spec in FIELDS:
        value = field_value(spec, texts.get(spec.key, ""))
        if value is None:
            continue
        if spec.key.startswith("task_state."):
            task[spec.key.split(".", 1)[1]] = value
        else:
            draft[spec.key] = value
    draft["task_state"] = task
    return draft


def field_of(finding: Finding) -> str:
    """The form field a finding belongs to (``GENERAL`` when none matches)."""
    base = re.sub(r"\[\d+\].*$", "", finding.field)
    if base in BY_KEY:
        return base
    if base == "task_state":
        return "task_state.assigned_task"
    return GENERAL


def finding_text(finding: Finding) -> Text:
    """``✖ message — hint`` (``▲`` for a warning); which line of a list it is about, when it is."""
    key = field_of(finding)
    where = finding.field[len(key):] if key != GENERAL and finding.field.startswith(key) else ""
    match = re.match(r"\[(\d+)\]\.?(.*)", where)
    prefix = ""
    if match:
        prefix = f"line {int(match.group(1)) + 1}{' ' + match.group(2) if match.group(2) else ''}: "
    elif key == GENERAL:
        prefix = f"{finding.field}: "
    mark, style = ("✖ ", "bold red") if finding.is_error else ("▲ ", "yellow")
    return Text.assemble((mark, style), literal(prefix + finding.message), (" — " + clean(finding.hint), "dim"))


def fields_to_fill(findings: list[Finding]) -> frozenset[str]:
    """The fields the user must write: those with an error when the form opens."""
    return frozenset(field_of(f) for f in findings if f.is_error) - {GENERAL}


def shown_findings(findings: list[Finding], to_fill: frozenset[str], initial: Mapping[str, str],
                   texts: Mapping[str, str], save_tried: bool) -> dict[str, list[Finding]]:
    """The findings each field shows: a field to fill shows its own once typed in, or once a save is tried."""
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        key = field_of(finding)
        if save_tried or key not in to_fill or texts.get(key) != initial.get(key):
            grouped.setdefault(key, []).append(finding)
    return grouped


def field_mark(key: str, to_fill: frozenset[str], initial: Mapping[str, str], texts: Mapping[str, str],
               shown: Mapping[str, list[Finding]]) -> Text:
    """The mark after a field's label: "to fill" while the user has not written it, "filled" for a prefilled one."""
    errors = any(f.is_error for f in shown.get(key, []))
    if key in to_fill and not errors and texts.get(key) == initial.get(key):
        return Text("  to fill", style="bold cyan")
    if key in to_fill and not errors:
        return Text("  ✔", style="green")
    if key not in to_fill and initial.get(key, "").strip() and texts.get(key) == initial.get(key):
        return Text("  ✔ filled", style="dim green")
    return Text()
