"""Gemini CLI chats, read from real transcripts (tests/fixtures/gemini, provenance beside them)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_tui.transcripts.discover import GEMINI, find_session
from ctx_tui.transcripts.model import Format, Kind
from ctx_tui.window import Session

GEMINI_FIXTURES = Path(__file__).parent / "fixtures" / "gemini"
JSON_CHAT = GEMINI_FIXTURES / "vibecodingtracker__session-eefc44a3.json"
JSONL_CHAT = GEMINI_FIXTURES / "vibecodingtracker__session-0ab84937.jsonl"


def _read(path: Path) -> Session:
    session = Session(path)
    session.poll()
    return session


def test_json_document_chat() -> None:
    """The older whole-document form: one prompt, 18 replies with thoughts and reported tokens."""
    session = _read(JSON_CHAT)
    state = session.state()
    assert session.format == Format.GEMINI and session.unsupported is None
    assert session.meta.session_id == "eefc44a3-0832-4bc0-ac33-fa668f038213"
    assert session.meta.model == "gemini-2.5-pro"
    assert session.meta.extra["project_hash"].startswith("ab14fe39")
    # the last reply's tokens: input 37,206 (+ tool 0) is what its call sent
    assert (state.context_tokens, state.usage_source, state.context_window) == (37_206, "reported", 1_048_576)
    assert state.rounds == 1 and state.skipped_lines == 0
    kinds = Counter(e.kind for e in session.entries)
    assert kinds == {Kind.USER: 1, Kind.ASSISTANT: 18, Kind.THINKING: 30}
    assert session.entries[0].text == "請幫我檢查一下所有代碼是否足夠簡潔 而不是一堆冗餘代碼"
    thought = session.entries[1]
    assert thought.kind == Kind.THINKING and thought.text.startswith("Considering User Needs: I'm analyzing")
    assert [p.tokens for p in state.history] == [37_206]


def test_jsonl_chat_with_tool_calls_and_rewritten_messages() -> None:
    """The newer JSONL form: header, $set patches, each gemini message written twice (then with its tool calls)."""
    session = _read(JSONL_CHAT)
    state = session.state()
    assert session.format == Format.GEMINI and session.unsupported is None
    assert session.meta.session_id == "0ab84937-9fe7-4284-986a-33c832af0b6a"
    assert session.meta.extra["kind"] == "main"
    assert session.meta.model == "gemini-3.1-pro-preview"  # the model of the last reply
    assert (state.context_tokens, state.usage_source) == (40_238, "reported")
    assert state.skipped_lines == 0
    kinds = Counter(e.kind for e in session.entries)
    # 12 tool calls, each once although its message row is written twice
    assert kinds[Kind.TOOL_CALL] == 12 and kinds[Kind.TOOL_RESULT] == 12
    calls = [e for e in session.entries if e.kind == Kind.TOOL_CALL]
    assert [c.tool_name for c in calls[:5]] == ["update_topic", "read_file", "read_file", "read_file", "read_file"]
    assert calls[1].tool_input == {"file_path": "README.md"}
    result = session.entries[calls[1].seq + 1]
    assert result.kind == Kind.TOOL_RESULT and result.tool_use_id == calls[1].tool_use_id == "aao1q07o"
    assert result.tool_name == "read_file" and "AI-Powered Discord Bot" in result.text
    # rounds: the /init prompt and the user's later request; "System: Please continue." is the CLI's own
    users = [e.text for e in session.entries if e.kind == Kind.USER]
    assert len(users) == 2 and state.rounds == 2
    assert users[0].lstrip().startswith("You are an AI agent that brings the power of Gemini")
    notes = [e for e in session.entries if e.kind == Kind.SYSTEM]
    assert [n.text for n in notes] == [
        "Empty GEMINI.md created. Now analyzing the project to populate it.",
        "System: Please continue.",
        "Request cancelled.",
    ]
    assert [n.in_context for n in notes] == [False, True, False]
    # usage once per message: five reported replies before the second prompt, then one
    assert [(p.round, p.tokens) for p in state.history] == [(1, 40_122), (2, 40_238)]


def _digest(session: Session) -> list[tuple]:
    return [(e.seq, e.kind, e.text, e.round, e.tool_use_id, e.usage.context_tokens if e.usage else None) for e in session.entries]


def test_jsonl_chat_followed_as_it_grows(tmp_path: Path) -> None:
    """Appended a few lines at a time (a half-written line held back), it reads as the whole file does."""
    whole = _read(JSONL_CHAT)
    data = JSONL_CHAT.read_bytes()
    path = tmp_path / "session-2026-04-23T12-52-0ab84937.jsonl"
    path.write_bytes(b"")
    session = Session(path)
    step = 997  # cuts lines in the middle
    for at in range(0, len(data), step):
        with open(path, "ab") as fh:
            fh.write(data[at : at + step])
        session.poll()
    assert _digest(session) == _digest(whole)
    assert session.state().context_tokens == whole.state().context_tokens


def test_rewind_drops_the_later_messages_from_the_window(tmp_path: Path) -> None:
    """``{"$rewindTo": id}`` (what Gemini CLI's /rewind appends, read as its loader does): that message
    and the later ones leave the live window, the usage is the last reply's before them, and the chat
    goes on from there."""
    path = tmp_path / "session-rewound.jsonl"
    path.write_bytes(JSONL_CHAT.read_bytes())
    session = Session(path)
    session.poll()
    second_prompt = "1b8df650-1638-435e-b736-1f1f42357da9"  # the user's request after the /init round
    before = [e.seq for e in session.entries if e.uuid == second_prompt][0]
    with open(path, "ab") as fh:
        fh.write(json.dumps({"$rewindTo": second_prompt}).encode() + b"\n")
    update = session.poll()
    state = session.state()
    assert update.changed and session.unsupported is None and state.skipped_lines == 0
    # the last reply before the rewound prompt reported input 40,914 (+ tool 0)
    assert (state.context_tokens, state.usage_source, state.rounds) == (40_914, "reported", 1)
    assert [(p.round, p.tokens) for p in state.history] == [(1, 40_914)]
    assert [w.entry.seq for w in state.live] == [e.seq for e in session.entries[:before] if e.in_context]
    assert all(not e.in_context for e in session.entries[before:])
    assert len(session.entries) > before  # the rewound messages stay in the session, out of the context
    # a new prompt after the rewind opens round 2 again; its reply's usage is the figure
    with open(path, "ab") as fh:
        fh.write(json.dumps({"id": "u-new", "timestamp": "2026-04-23T13:00:00Z", "type": "user", "content": [{"text": "only README"}]}).encode() + b"\n")
        fh.write(json.dumps({"id": "g-new", "timestamp": "2026-04-23T13:00:05Z", "type": "gemini", "content": "Done.",
                             "tokens": {"input": 41_000, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": 41_005},
                             "model": "gemini-3.1-pro-preview"}).encode() + b"\n")
    session.poll()
    state = session.state()
    assert (state.context_tokens, state.rounds) == (41_000, 2)
    assert [w.entry.text for w in state.live[-2:]] == ["only README", "Done."]
    # the whole file read at once gives the same
    again = _read(path).state()
    assert (again.context_tokens, again.rounds, [w.entry.seq for w in again.live]) == (41_000, 2, [w.entry.seq for w in state.live])


def test_rewind_to_an_unknown_message_drops_them_all(tmp_path: Path) -> None:
    """As Gemini CLI loads a chat: a ``$rewindTo`` naming no message it holds clears the conversation."""
    path = tmp_path / "session-rewound.jsonl"
    path.write_bytes(JSONL_CHAT.read_bytes() + b'{"$rewindTo":"not-a-message"}\n')
    state = _read(path).state()
    assert state.live == [] and state.rounds == 0
    assert (state.context_tokens, state.usage_source) == (0, "estimated")


def test_json_document_rewritten_in_place(tmp_path: Path) -> None:
    """The JSON form is rewritten whole on every change: it is read again, not appended to."""
    path = tmp_path / "session-2025-10-05T07-11-eefc44a3.json"
    text = JSON_CHAT.read_text(encoding="utf-8")
    cut = text.index('    {\n      "id": "0e733da5')  # the second reply onwards removed
    path.write_text(text[:cut].rstrip().rstrip(",") + "\n  ]\n}\n", encoding="utf-8")
    session = Session(path)
    session.poll()
    assert session.state().context_tokens == 7_228
    shutil.copyfile(JSON_CHAT, path)
    os.utime(path, (1, 1))
    update = session.poll()
    assert update.reset and session.state().context_tokens == 37_206


def test_discovery_under_gemini_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """~/.gemini/tmp/<sha256 of the cwd>/chats (older) and a folder whose .project_root names the cwd (newer)."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "proj"
    project.mkdir()
    by_hash = home / ".gemini" / "tmp" / hashlib.sha256(str(project).encode()).hexdigest() / "chats"
    by_hash.mkdir(parents=True)
    old = by_hash / "session-2025-10-05T07-11-eefc44a3.json"
    shutil.copyfile(JSON_CHAT, old)
    os.utime(old, (1_000, 1_000))
    named = home / ".gemini" / "tmp" / "proj"
    (named / "chats").mkdir(parents=True)
    (named / ".project_root").write_text(f"{project}\n")
    new = named / "chats" / "session-2026-04-23T12-52-0ab84937.jsonl"
    shutil.copyfile(JSONL_CHAT, new)
    assert find_session(project, GEMINI) == new
    new.unlink()
    assert find_session(project, GEMINI) == old
    assert find_session(project) == old  # found without --gemini too
    other = tmp_path / "elsewhere"
    other.mkdir()
    with pytest.raises(Exception, match=r"\.gemini/tmp/<project>/chats"):
        find_session(other, GEMINI)


_json = st.recursive(
    # valid JSON only (64-bit integers, finite floats): a whole document orjson cannot parse is one skipped line
    st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8,
)
_gemini_rows = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["gemini", "user", "info", "error"]), "id": st.one_of(st.text(max_size=3), _json)},
        optional={k: _json for k in ("content", "thoughts", "tokens", "toolCalls", "model", "displayContent", "timestamp")},
    ),
    st.fixed_dictionaries({"$set": st.dictionaries(st.sampled_from(["lastUpdated", "messages", "summary"]), _json, max_size=2)}),
    st.fixed_dictionaries({"$rewindTo": st.one_of(st.text(max_size=3), _json)}),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(_gemini_rows, min_size=1, max_size=6), document=st.booleans())
def test_gemini_rows_of_any_shape_never_raise(tmp_path: Path, rows: list, document: bool) -> None:
    """Values of any type under the keys the Gemini reader reads: no exception, figures stay sane."""
    header = {"sessionId": "s", "projectHash": "p"}
    if document:
        path = tmp_path / "chat.json"
        path.write_text(json.dumps({**header, "messages": rows}))
    else:
        path = tmp_path / "chat.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in [header, *rows]))
    state = _read(path).state()
    assert state.meta.format == Format.GEMINI
    assert 0 <= state.context_tokens and state.skipped_lines <= len(rows)
