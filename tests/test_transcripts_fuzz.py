"""Rows of the right type with values of any shape never break reading (no exception reaches the user)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_tui.window import Session

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.text(max_size=20))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["type", "text", "content", "id", "name", "input"]), inner, max_size=3)),
    max_leaves=8,
)
_claude_keys = ["type", "message", "isSidechain", "isMeta", "isCompactSummary", "subtype", "compactMetadata", "uuid", "summary", "content", "isApiErrorMessage"]
_codex_keys = ["type", "role", "content", "name", "arguments", "call_id", "output", "info", "message", "replacement_history", "summary", "model", "id", "cwd"]

_claude_row = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "system", "summary"]), "sessionId": st.just("s")},
    optional={k: _values for k in _claude_keys[1:]},
)
_codex_payload = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "reasoning", "function_call", "custom_tool_call", "function_call_output", "token_count", "user_message", "context_compacted", "web_search_call"])},
    optional={k: _values for k in _codex_keys[1:]},
)
_codex_row = st.fixed_dictionaries(
    {"type": st.sampled_from(["response_item", "event_msg", "session_meta", "turn_context", "compacted"]), "payload": _codex_payload}
)


def _figures(session: Session) -> tuple:
    state = session.state()
    return (
        state.context_tokens, state.context_window, state.usage_source, state.rounds, state.entries_total,
        state.skipped_lines, len(state.compactions), [(w.entry.kind, w.entry.text, w.offset, w.tokens) for w in state.live],
    )


def _read(tmp_path: Path, name: str, rows: list[dict]) -> None:
    """Read cold, and followed (the rows appended in two parts): both give the same window."""
    lines = [json.dumps(r) + "\n" for r in rows]
    path = tmp_path / name
    path.write_text("".join(lines))
    cold = Session(path)
    cold.poll()
    state = cold.state()
    assert state.skipped_lines <= len(rows)
    if state.live:
        assert sum(w.tokens for w in state.live) == state.context_tokens
        assert all(0.0 <= w.position <= 1.0 for w in state.live)
    half = len(lines) // 2
    followed_path = tmp_path / f"followed-{name}"
    followed_path.write_text("".join(lines[:half]))
    followed = Session(followed_path)
    followed.poll()
    with followed_path.open("a") as fh:
        fh.write("".join(lines[half:]))
    followed.poll()
    assert _figures(followed) == _figures(cold)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(_claude_row, min_size=1, max_size=6))
def test_claude_rows_of_any_shape(tmp_path: Path, rows: list[dict]) -> None:
    _read(tmp_path, "claude.jsonl", rows)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(_codex_row, min_size=1, max_size=6))
def test_codex_rows_of_any_shape(tmp_path: Path, rows: list[dict]) -> None:
    _read(tmp_path, "codex.jsonl", [{"type": "session_meta", "payload": {"id": "x"}}, *rows])
