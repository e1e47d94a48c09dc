"""The engine on the real transcripts: usage by the SPEC rule, computed here from raw rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import (
    ALL_FIXTURES,
    CLAUDE_COMPACTED,
    CLAUDE_SHORT,
    CLAUDE_SIDECHAIN,
    CODEX_FULL,
    CODEX_REDACTED,
    fixture,
)
from ctx_tui.config import Config
from ctx_tui.transcripts.model import Kind
from ctx_tui.window import Session


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def expected_claude_context(rows: list[dict]) -> int | None:
    """SPEC 1: input + cache_creation + cache_read of the last main-chain assistant row after the last boundary."""
    last_boundary = max(
        (i for i, r in enumerate(rows) if r.get("type") == "system" and r.get("subtype") == "compact_boundary"),
        default=-1,
    )
    value = None
    for row in rows[last_boundary + 1 :]:
        if row.get("type") != "assistant" or row.get("isSidechain") or row.get("isApiErrorMessage"):
            continue
        message = row.get("message") or {}
        usage = message.get("usage")
        if not usage or message.get("model") == "<synthetic>":
            continue
        value = (
            usage.get("input_tokens", 0)
            + usage.get("cache_creation_input_tokens", 0)
            + usage.get("cache_read_input_tokens", 0)
        )
    return value


def expected_codex(rows: list[dict]) -> tuple[int | None, int | None]:
    """SPEC 1: last_token_usage.total_tokens and model_context_window of the last token_count with info."""
    tokens = window = None
    for row in rows:
        payload = row.get("payload") or {}
        if row.get("type") == "event_msg" and payload.get("type") == "token_count" and payload.get("info"):
            tokens = payload["info"]["last_token_usage"]["total_tokens"]
            window = payload["info"]["model_context_window"]
    return tokens, window


def _open(name: str) -> tuple[Session, list[dict]]:
    path = fixture(name)
    session = Session(path, Config())
    session.poll()
    return session, _rows(path)


@pytest.mark.parametrize("name", [CLAUDE_COMPACTED, CLAUDE_SIDECHAIN, CLAUDE_SHORT])
def test_claude_context_tokens_follow_the_spec_rule(name: str) -> None:
    session, rows = _open(name)
    state = session.state()
    expected = expected_claude_context(rows)
    assert expected is not None
    assert state.meta.format.value == "claude-code"
    assert state.context_tokens == expected
    assert state.usage_source == "reported"
    models = [
        r["message"]["model"]
        for r in rows
        if r.get("type") == "assistant" and not r.get("isSidechain") and r["message"].get("model") != "<synthetic>"
    ]
    assert state.meta.model == models[-1]
    assert state.context_window == 200_000
    assert state.meta.session_id == next(r["sessionId"] for r in rows if "sessionId" in r)


@pytest.mark.parametrize("name", [CODEX_REDACTED, CODEX_FULL])
def test_codex_context_tokens_follow_the_spec_rule(name: str) -> None:
    session, rows = _open(name)
    state = session.state()
    tokens, window = expected_codex(rows)
    assert state.meta.format.value == "codex"
    assert state.context_tokens == tokens
    assert state.context_window == window
    assert state.usage_source == "reported"
    models = [r["payload"]["model"] for r in rows if r.get("type") == "turn_context"]
    assert state.meta.model == models[-1]
    meta = next(r["payload"] for r in rows if r.get("type") == "session_meta")
    assert state.meta.session_id == meta["id"]
    assert state.meta.cwd == meta["cwd"]


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_live_window_is_calibrated_to_the_total(name: str) -> None:
    session, _ = _open(name)
    state = session.state()
    assert state.live
    assert sum(w.tokens for w in state.live) == state.context_tokens
    offsets = [w.offset for w in state.live]
    assert offsets == sorted(offsets) and offsets[0] == 0
    for before, after in zip(state.live, state.live[1:]):
        assert before.offset + before.tokens == after.offset
    assert all(0.0 <= w.position <= 1.0 for w in state.live)
    assert all(not w.entry.is_sidechain and w.entry.in_context for w in state.live)
    assert state.skipped_lines == 0


def test_claude_compaction_live_window_starts_at_the_summary() -> None:
    session, rows = _open(CLAUDE_COMPACTED)
    state = session.state()
    assert len(state.compactions) == 1
    boundary = next(r for r in rows if r.get("subtype") == "compact_boundary")
    assert state.compactions[0].pre_tokens == boundary["compactMetadata"]["preTokens"]
    assert state.compactions[0].trigger == "auto"
    first = state.live[0].entry
    assert first.kind == Kind.SUMMARY
    assert first.text.startswith("This session is being continued")
    assert first.seq == state.compactions[0].seq
    # nothing from before the compaction is live
    assert all(w.entry.seq >= first.seq for w in state.live)


def test_claude_rounds_count_real_user_messages() -> None:
    session, rows = _open(CLAUDE_COMPACTED)
    expected = 0
    for row in rows:
        if row.get("type") != "user" or row.get("isSidechain") or row.get("isMeta") or row.get("isCompactSummary"):
            continue
        content = row["message"]["content"]
        if isinstance(content, list):
            continue  # tool results, interruptions
        if content.startswith(("<command-name>/clear", "<local-command")):
            continue
        expected += 1
    assert session.state().rounds == expected
    users = [e for e in session.entries if e.kind == Kind.USER]
    assert [e.round for e in users] == list(range(1, expected + 1))


def test_claude_sidechain_rows_are_not_live_nor_rounds() -> None:
    session, rows = _open(CLAUDE_SIDECHAIN)
    side_rows = sum(1 for r in rows if r.get("isSidechain"))
    assert side_rows > 300
    side_entries = [e for e in session.entries if e.is_sidechain]
    assert side_entries and all(not e.in_context for e in side_entries)
    assert session.state().rounds == 2  # the /orchestrator command and the closing request
    assert session.meta.extra["title"] == rows[0]["summary"]


def test_claude_blocks_share_one_usage_per_message_id() -> None:
    session, _ = _open(CLAUDE_COMPACTED)
    with_usage = [e for e in session.entries if e.usage is not None]
    ids = [e.message_id for e in with_usage]
    assert len(ids) == len(set(ids))
    kinds = {e.kind for e in session.entries}
    assert {Kind.USER, Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.SUMMARY} <= kinds
    call = next(e for e in session.entries if e.kind == Kind.TOOL_CALL)
    assert call.tool_name and call.tool_use_id and isinstance(call.tool_input, dict)
    result = next(e for e in session.entries if e.kind == Kind.TOOL_RESULT and e.tool_use_id == call.tool_use_id)
    assert result.role == "tool" and result.tool_name == call.tool_name


def test_codex_compaction_counted_once_and_rounds_from_user_events() -> None:
    session, rows = _open(CODEX_REDACTED)
    state = session.state()
    assert len(state.compactions) == 1
    assert state.live[0].entry.kind == Kind.SUMMARY
    user_events = sum(1 for r in rows if r.get("type") == "event_msg" and r["payload"].get("type") == "user_message")
    assert state.rounds == user_events


def test_codex_tool_calls_parse_arguments() -> None:
    session, _ = _open(CODEX_FULL)
    calls = [e for e in session.entries if e.kind == Kind.TOOL_CALL]
    exec_call = next(e for e in calls if e.tool_name == "exec_command")
    assert "cmd" in exec_call.tool_input
    patch = next(e for e in calls if e.tool_name == "apply_patch")
    assert patch.tool_input["input"].startswith("*** Begin Patch")
    assert any(e.tool_name == "web_search" for e in calls)
    users = [e.text for e in session.entries if e.kind == Kind.USER]
    assert users[0] == "show tools"
    assert session.state().rounds == 2
