"""check_handoff: the schema findings, then every semantic rule on the fields that are usable."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctx_tui.handoff.gate.action_rules import check_action
from ctx_tui.handoff.gate.blocker_rules import check_blocker_collision, check_blockers
from ctx_tui.handoff.gate.context_rules import check_context
from ctx_tui.handoff.gate.decision_rules import check_decisions
from ctx_tui.handoff.gate.draft_view import DraftView
from ctx_tui.handoff.gate.findings import Finding
from ctx_tui.handoff.gate.path_rules import check_paths
from ctx_tui.handoff.gate.schema_rules import schema_findings
from ctx_tui.handoff.gate.task_rules import check_header, check_task_state
from ctx_tui.handoff.schema import Handoff

_RULES = (check_header, check_task_state, check_blockers, check_decisions, check_paths, check_context, check_action,
          check_blocker_collision)


def check_handoff(handoff: Handoff | Mapping[str, Any] | Any, project: Path | None = None) -> list[Finding]:
    """Every finding of the quality gate for a handoff or a partial draft.

    ``project`` is the folder listed paths are relative to; without it the
    existence of files is not checked (everything else is).
    """
    if isinstance(handoff, Handoff):
        data: Mapping[str, Any] = handoff.model_dump()
    elif isinstance(handoff, Mapping):
        data = handoff
    else:
        return [
            Finding("(handoff)", "error", f"a handoff is a mapping of fields, got {type(handoff).__name__}",
                    "write the fields of docs/handoff.md as `key: value` lines", "schema.not_mapping")
        ]
    findings = schema_findings(data)
    view = DraftView(data, {f.field for f in findings}, project)
    for rule in _RULES:
        rule(view)
    return findings + view.findings
