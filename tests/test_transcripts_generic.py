"""Generic chat transcripts and format detection from content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctx_tui.config import Config, WindowConfig
from ctx_tui.tokens import count_tokens
from ctx_tui.transcripts.model import Format, Kind
from ctx_tui.window import UNKNOWN_WINDOW, Session

MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Rename parse_row to read_row in src/app.py"},
    {
        "role": "assistant",
        "content": [{"type": "text", "text": "Renaming it now."}],
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "edit", "arguments": '{"path": "src/app.py"}'}}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    {"role": "user", "content": [{"type": "text", "text": "Now run the tests"}, {"type": "image_url", "image_url": {}}]},
    {"role": "assistant", "content": "All 12 tests pass."},
]


def _open(path: Path, config: Config | None = None) -> Session:
    session = Session(path, config)
    session.poll()
    return session


def _check(session: Session) -> None:
    assert session.format == Format.GENERIC
    kinds = [e.kind for e in session.entries]
    assert kinds == [Kind.SYSTEM, Kind.USER, Kind.ASSISTANT, Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.USER, Kind.ASSISTANT]
    call = session.entries[3]
    assert call.tool_name == "edit" and call.tool_input == {"path": "src/app.py"}
    assert session.entries[4].tool_name == "edit"
    assert session.entries[5].text == "Now run the tests\n[image]"
    state = session.state()
    assert state.usage_source == "estimated" and state.estimated
    assert state.rounds == 2
    assert state.context_window == UNKNOWN_WINDOW and not state.window_known  # no model: the window is not guessed
    expected = sum(count_tokens(e.text) for e in session.entries)
    assert state.context_tokens == expected
    assert [p.round for p in state.history] == [1, 2]
    assert state.history[-1].tokens == expected


def test_json_array(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(MESSAGES, indent=2))
    _check(_open(path))


def test_messages_object_pretty_printed(tmp_path: Path) -> None:
    path = tmp_path / "chat.txt"  # the name says nothing: detection reads the content
    path.write_text(json.dumps({"model": "x", "messages": MESSAGES}, indent=2))
    _check(_open(path))


def test_jsonl_named_like_json(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text("".join(json.dumps(m) + "\n" for m in MESSAGES))
    _check(_open(path))


def test_json_array_growing_is_reread(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(MESSAGES[:2]))
    session = _open(path)
    assert len(session.entries) == 2
    path.write_text(json.dumps(MESSAGES))
    update = session.poll()
    assert update.reset and len(session.entries) == 7


def test_half_written_json_array_is_counted_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(MESSAGES)[:50])
    session = _open(path)
    assert session.entries == [] and session.state().skipped_lines == 1


def test_window_size_from_config(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    rows = [dict(m, model="my-local-model") for m in MESSAGES]
    path.write_text("".join(json.dumps(m) + "\n" for m in rows))
    config = Config(window=WindowConfig(sizes={"my-local-model": 32_000}))
    state = _open(path, config).state()
    assert state.meta.model == "my-local-model"
    assert state.context_window == 32_000


@pytest.mark.parametrize(
    ("first", "fmt"),
    [
        ({"type": "session_meta", "payload": {"id": "x", "cwd": "/p"}}, Format.CODEX),
        ({"type": "summary", "summary": "A title", "leafUuid": "u"}, Format.CLAUDE_CODE),
        ({"type": "file-history-snapshot", "messageId": "m", "snapshot": {}}, Format.CLAUDE_CODE),
        ({"role": "user", "content": "hi"}, Format.GENERIC),
    ],
)
def test_format_detected_from_first_rows(tmp_path: Path, first: dict, fmt: Format) -> None:
    path = tmp_path / "x.log"
    path.write_text(json.dumps(first) + "\n")
    assert _open(path).format == fmt


def test_undetectable_lines_are_skipped_until_a_known_row(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"hello": 1}\nnot json\n' + json.dumps({"role": "user", "content": "hi"}) + "\n")
    session = _open(path)
    assert session.format == Format.GENERIC
    assert [e.text for e in session.entries] == ["hi"]
    assert session.state().skipped_lines == 2
