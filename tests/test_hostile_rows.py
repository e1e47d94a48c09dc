"""Hostile transcript rows and files at the reader's edge (issue 15, items 3, 7, 9, 10).

Any JSON value where a row is expected is a skipped line, counted, never an
exception; a BOM is stepped over; usage figures outside [0, 10 x window] are
ignored and counted; a FIFO, device or folder at the transcript path is refused
without ever blocking.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_tui.config import Config
from ctx_tui.transcripts.rows import row_shape_ok
from ctx_tui.ui.feed import SessionFeed
from ctx_tui.window import Session

CLAUDE_USER = {"type": "user", "sessionId": "s-1", "message": {"role": "user", "content": "fix src/app.py"}}
CODEX_META = {"timestamp": "t", "type": "session_meta", "payload": {"id": "codex-1", "cwd": "/p"}}

_json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.text(max_size=8))
_json = st.recursive(
    _json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=10,
)
_keys = st.sampled_from(["type", "role", "message", "payload", "content", "subtype", "isSidechain", "sessionId", "info", "usage"])
#: Rows whose dispatch keys hold any JSON value (a list, a dict, a huge int...).
hostile_rows = st.one_of(
    _json,
    st.dictionaries(_keys, _json, max_size=5),
    st.fixed_dictionaries({"type": _json}, optional={"payload": _json, "message": _json, "role": _json}),
)


def _poll(path: Path) -> Session:
    session = Session(path)
    session.poll()
    session.state()
    return session


def _write(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


BAD_ROWS = [
    {"type": []}, {"type": {"a": 1}}, {"type": "response_item", "payload": {"type": ["x"]}},
    {"type": "user", "message": {"role": {}}}, {"type": "assistant", "message": []}, {"role": [1]}, [1, 2], "text", 12,
]


@pytest.mark.parametrize("bad", BAD_ROWS)
@pytest.mark.parametrize("first", [CLAUDE_USER, CODEX_META, {"role": "user", "content": "hi"}])
def test_a_row_of_the_wrong_shape_is_a_skipped_line(tmp_path: Path, bad, first) -> None:
    # Not first when it is a list: a file that starts with "[" is read as one JSON document.
    rows = [bad, first, bad] if isinstance(bad, dict) else [first, bad, bad]
    state = _poll(_write(tmp_path / "t.jsonl", rows)).state()
    assert state.skipped_lines == 2
    assert state.entries_total == (0 if first is CODEX_META else 1)


def test_a_file_of_bad_rows_only(tmp_path: Path) -> None:
    rows = [r for r in BAD_ROWS if isinstance(r, dict)]
    state = _poll(_write(tmp_path / "t.jsonl", rows)).state()
    assert state.skipped_lines == len(rows) and state.entries_total == 0


def test_row_shape_check() -> None:
    assert row_shape_ok(CLAUDE_USER) and row_shape_ok(CODEX_META) and row_shape_ok({"role": "user", "content": {"x": 1}})
    assert not row_shape_ok({"type": []}) and not row_shape_ok({"payload": "x"}) and not row_shape_ok({"message": {"type": 1}})
    assert not row_shape_ok([CLAUDE_USER])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(hostile_rows, min_size=1, max_size=6), first=st.sampled_from([CLAUDE_USER, CODEX_META, {"role": "user", "content": "x"}]))
def test_rows_of_any_shape_never_raise(tmp_path: Path, rows: list, first: dict) -> None:
    path = _write(tmp_path / "any.jsonl", [first, *rows])
    state = _poll(path).state()
    assert state.skipped_lines <= len(rows)
    assert state.context_tokens >= 0
    assert not state.window_known or state.context_tokens <= 10 * state.context_window  # a generic chat with no model: window unknown


def test_a_running_follow_survives_a_hostile_row(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", [CLAUDE_USER])
    session = _poll(path)
    with path.open("a") as fh:
        fh.write('{"type":[]}\n{"type":"user","message":{"role":"user","content":"again"}}\n')
    update = session.poll()
    assert update.skipped == 1 and [e.text for e in update.new_entries] == ["again"]


# -- BOM ---------------------------------------------------------------------------------


def test_bom_does_not_drop_the_first_row(tmp_path: Path) -> None:
    codex = tmp_path / "rollout.jsonl"
    codex.write_bytes(b"\xef\xbb\xbf" + json.dumps(CODEX_META).encode() + b"\n")
    assert _poll(codex).meta.session_id == "codex-1"
    claude = tmp_path / "claude.jsonl"
    claude.write_bytes(b"\xef\xbb\xbf" + json.dumps(CLAUDE_USER).encode() + b"\n")
    session = _poll(claude)
    assert session.meta.session_id == "s-1" and session.state().skipped_lines == 0 and len(session.entries) == 1
    document = tmp_path / "chat.json"
    document.write_bytes(b"\xef\xbb\xbf" + json.dumps([{"role": "user", "content": "hi"}]).encode())
    assert [e.text for e in _poll(document).entries] == ["hi"]


def test_bom_file_followed_as_it_grows(tmp_path: Path) -> None:
    path = tmp_path / "claude.jsonl"
    path.write_bytes(b"\xef\xbb\xbf")
    session = _poll(path)
    with path.open("ab") as fh:
        fh.write(json.dumps(CLAUDE_USER).encode() + b"\n")
    session.poll()
    assert session.meta.session_id == "s-1" and session.state().skipped_lines == 0


# -- implausible usage -----------------------------------------------------------------------


def _claude_usage(**usage) -> dict:
    return {"type": "assistant", "sessionId": "s-1", "message": {"id": f"m{usage}", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "ok"}], "usage": usage}}


@pytest.mark.parametrize("usage", [{"input_tokens": -500000}, {"input_tokens": 2**64 - 1}, {"input_tokens": 10, "cache_read_input_tokens": -3}, {"output_tokens": -1}])
def test_implausible_claude_usage_is_ignored_and_counted(tmp_path: Path, usage: dict) -> None:
    path = _write(tmp_path / "t.jsonl", [CLAUDE_USER, _claude_usage(input_tokens=50_000), _claude_usage(**usage)])
    state = _poll(path).state()
    assert state.context_tokens == 50_000 and state.usage_source == "reported"
    assert state.implausible_usage == 1 and 0 <= state.usage_pct <= 100


def test_usage_above_ten_model_windows_falls_back_to_the_estimate(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", [CLAUDE_USER, _claude_usage(input_tokens=5_000_000)])
    state = _poll(path).state()
    assert state.context_window == 200_000 and state.usage_source == "estimated" and state.implausible_usage == 1


def test_implausible_codex_usage_is_ignored_and_counted(tmp_path: Path) -> None:
    def count(total: int) -> dict:
        info = {"last_token_usage": {"total_tokens": total}, "model_context_window": 200_000}
        return {"timestamp": "t", "type": "event_msg", "payload": {"type": "token_count", "info": info, "rate_limits": None}}

    path = _write(tmp_path / "r.jsonl", [CODEX_META, count(40_000), count(-5), count(2**64 - 1)])
    state = _poll(path).state()
    assert (state.context_tokens, state.context_window, state.implausible_usage) == (40_000, 200_000, 2)


# -- special files ---------------------------------------------------------------------------


def _within(seconds: float, fn) -> object:
    """``fn()`` run in a thread; fails the test if it has not returned after ``seconds``."""
    box: list = []
    thread = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked"
    return box[0]


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    session = _within(5, lambda: _poll(fifo))
    assert not session.exists and session.problem == "not a regular file (a FIFO)"


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused(path: str) -> None:
    session = _within(5, lambda: _poll(Path(path)))
    assert session.problem == "not a regular file (a character device)"


def test_a_folder_is_refused(tmp_path: Path) -> None:
    assert _poll(tmp_path).problem == "not a regular file (a folder)"


def test_a_file_replaced_by_a_fifo_while_followed(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.jsonl", [CLAUDE_USER])
    session = _poll(path)
    path.unlink()
    os.mkfifo(path)
    update = _within(5, session.poll)
    assert update.reset and session.problem == "not a regular file (a FIFO)"


def test_feed_reports_an_unreadable_transcript_and_recovers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "t.jsonl", [CLAUDE_USER])
    feed = SessionFeed(path, tmp_path, Config())
    first = feed.read()
    assert first.snapshot is not None and not first.problems

    import ctx_tui.transcripts.follow as follow

    real = follow.open_regular

    def denied(*_a, **_k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(follow, "open_regular", denied)
    with path.open("a") as fh:
        fh.write(json.dumps(CLAUDE_USER) + "\n")
    stalled = feed.read({path})
    assert stalled.snapshot is first.snapshot and stalled.problems == ("t.jsonl: unreadable (Permission denied)",)
    monkeypatch.setattr(follow, "open_regular", real)
    again = feed.read()
    assert again.snapshot is not first.snapshot and not again.problems  # a fresh snapshot clears the problem


def test_feed_reports_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    result = _within(5, lambda: SessionFeed(fifo, tmp_path, Config()).read())
    assert result.snapshot is None and result.problems == ("t.jsonl: not a regular file (a FIFO)",)
