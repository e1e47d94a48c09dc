"""The handoff form's field logic without Textual: what is "to fill", which findings show."""

from __future__ import annotations

from ctx_tui.handoff.gate import check_handoff
from ctx_tui.ui.screens.handoff_fields import FIELDS, build_draft, field_mark, field_text, fields_to_fill, shown_findings
from test_handoff_gate import make


def _texts(data: dict) -> dict[str, str]:
    return {spec.key: field_text(data, spec) for spec in FIELDS}


def test_empty_author_fields_are_to_fill_and_hide_their_findings_until_typed_or_saved() -> None:
    opened = _texts(make(continuation_context="", suggested_first_action=""))
    findings = check_handoff(build_draft(opened))
    to_fill = fields_to_fill(findings)
    assert {"continuation_context", "suggested_first_action"} <= to_fill
    assert "task_state.assigned_task" not in to_fill
    assert not shown_findings(findings, to_fill, opened, opened, save_tried=False).get("continuation_context")
    assert shown_findings(findings, to_fill, opened, opened, save_tried=True)["continuation_context"]
    assert field_mark("continuation_context", to_fill, opened, opened, {}).plain.strip() == "to fill"
    assert field_mark("task_state.assigned_task", to_fill, opened, opened, {}).plain.strip() == "✔ filled"

    typed = dict(opened, continuation_context="Fix stuff.")
    shown = shown_findings(check_handoff(build_draft(typed)), to_fill, opened, typed, save_tried=False)
    assert shown["continuation_context"]  # typed: its findings appear
    assert not shown.get("suggested_first_action")  # not typed yet
    assert field_mark("continuation_context", to_fill, opened, typed, shown).plain == ""
