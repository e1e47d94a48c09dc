"""handoff.draft: one starting draft for the form and ``handoff new --from-session``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import CLAUDE_COMPACTED, CLAUDE_SIDECHAIN, CODEX_FULL, fixture
from ctx_tui.cli import main
from ctx_tui.config import Config
from ctx_tui.handoff.draft import continue_from, draft_from_session, merge, read_starting_draft
from ctx_tui.handoff.gate import check_handoff
from ctx_tui.handoff.writer import write_handoff
from ctx_tui.window import Session
from test_handoff_gate import make

CODEX_SESSION_ID = "019e1625-789d-76c0-80ab-3724b5ddb799"


def test_merge_keeps_base_values_over_empty_ones_and_merges_the_task() -> None:
    base = {"agent_role": "main", "task_state": {"assigned_task": "t", "completion_pct": 40}, "files_modified": ["a"]}
    over = {"agent_role": "", "task_state": {"completion_pct": 60}, "files_modified": []}
    assert merge(base, over) == {"agent_role": "main", "task_state": {"assigned_task": "t", "completion_pct": 60},
                                 "files_modified": ["a"]}


def test_continue_from_follows_the_plan_and_keeps_the_authors_text() -> None:
    previous = make(task={"completion_pct": 50, "completed_subtasks": ["a"], "remaining_subtasks": ["b", "c"]})
    fresh = {"timestamp": "2026-11-30T10:00:00+00:00", "session_id": "s", "files_modified": ["new.py"],
             "task_state": {"assigned_task": "", "completion_pct": 67, "completed_subtasks": ["a", "b"],
                            "remaining_subtasks": ["c"]},
             "decisions_made": [{"decision": "new one", "rationale": "", "affects_files": []}]}
    draft = continue_from(previous, fresh)
    assert draft["continuation_context"] == previous["continuation_context"]
    assert draft["timestamp"] == "2026-11-30T10:00:00+00:00"
    assert draft["task_state"]["completed_subtasks"] == ["a", "b"]
    assert draft["task_state"]["remaining_subtasks"] == ["c"]
    assert draft["task_state"]["completion_pct"] == 67  # from the subtasks, as the plan moved on
    assert draft["task_state"]["assigned_task"] == previous["task_state"]["assigned_task"]
    assert [d["decision"] for d in draft["decisions_made"]][-1] == "new one"
    assert draft["files_modified"][-1] == "new.py"


def test_without_a_plan_the_authors_completion_stays() -> None:
    previous = make(task={"completion_pct": 35})
    fresh = {"task_state": {"assigned_task": "", "completion_pct": None, "completed_subtasks": [],
                            "remaining_subtasks": []}}
    assert continue_from(previous, fresh)["task_state"]["completion_pct"] == 35


def _previous_handoff(project: Path, session_id: str) -> None:
    data = make(session_id=session_id, files_modified=[], files_created=[],
                continuation_context="codemie-code.plugin.ts maps reasoning_effort; `npm test` fails in "
                "codemie-code-reasoning.test.ts (expected 'high', got undefined).")
    write_handoff(project, data, Config())


def test_cli_from_session_continues_from_the_sessions_last_handoff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    _previous_handoff(tmp_path, CODEX_SESSION_ID)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    main(["handoff", "new", str(fixture(CODEX_FULL)), "--dry-run"])
    out = capsys.readouterr()
    draft = yaml.safe_load(out.out)
    assert "started from this session's last handoff" in out.err
    assert "expected 'high', got undefined" in draft["continuation_context"]
    assert draft["session_id"] == CODEX_SESSION_ID
    assert "src/agents/plugins/codemie-code.plugin.ts" in draft["files_modified"]


def test_the_form_and_the_cli_start_from_the_same_draft(tmp_path: Path) -> None:
    _previous_handoff(tmp_path, CODEX_SESSION_ID)
    session = Session(fixture(CODEX_FULL))
    session.poll()
    from_cli = draft_from_session(session, tmp_path, Config())
    from_form = read_starting_draft(fixture(CODEX_FULL), tmp_path, Config())
    for start in (from_cli, from_form):
        start.draft.pop("timestamp")
    assert from_cli.draft == from_form.draft and from_cli.previous == from_form.previous is not None


def _draft(name: str, tmp_path: Path) -> dict[str, Any]:
    return read_starting_draft(fixture(name), tmp_path, Config()).draft


def test_real_session_decisions_come_from_the_extraction(tmp_path: Path) -> None:
    decisions = _draft(CLAUDE_COMPACTED, tmp_path)["decisions_made"]
    assert decisions, "the session settles choices ('Let's use unified tracking ...')"
    assert all(d["decision"].strip() for d in decisions)


def test_real_session_task_is_the_request_without_its_slash_command(tmp_path: Path) -> None:
    assert _draft(CLAUDE_SIDECHAIN, tmp_path)["task_state"]["assigned_task"] == "create TODO app by Next.js"


def test_codex_task_comes_from_a_user_message_event(tmp_path: Path) -> None:
    """Codex Desktop writes some prompts only as an event_msg user_message."""
    rows = [
        {"timestamp": "2026-11-30T10:00:00Z", "type": "session_meta",
         "payload": {"id": "c0ffee00-0000-4000-8000-000000000001", "cwd": str(tmp_path)}},
        {"timestamp": "2026-11-30T10:00:01Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "Add retry with backoff to fetch_rates() in rates/client.py"}},
        {"timestamp": "2026-11-30T10:00:02Z", "type": "response_item",
         "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "On it."}]}},
    ]
    path = tmp_path / "rollout-2026-11-30T10-00-00-c0ffee00-0000-4000-8000-000000000001.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    task = read_starting_draft(path, tmp_path, Config()).draft["task_state"]
    assert task["assigned_task"] == "Add retry with backoff to fetch_rates() in rates/client.py"
    assert task["completion_pct"] is None  # no plan: the author states it


@pytest.mark.parametrize("name", [CLAUDE_COMPACTED, CODEX_FULL])
def test_real_draft_fails_only_on_what_the_author_must_write(name: str, tmp_path: Path) -> None:
    errors = {f.field for f in check_handoff(_draft(name, tmp_path)) if f.is_error}
    allowed = {"continuation_context", "suggested_first_action", "task_state.completion_pct"}
    # Extracted decisions without a "because" clause ask for their rationale.
    assert {e for e in errors if not e.endswith(".rationale")} <= allowed, errors
    # completion_pct is filled only when the agent kept a plan (the Codex session did).
    assert (name == CODEX_FULL) == ("task_state.completion_pct" not in errors)
