"""Claude Code's newer layout: sub-agents in ``<session>/subagents/agent-*.jsonl``."""

from __future__ import annotations

import json
from pathlib import Path

from ctx_tui.transcripts.model import Kind
from ctx_tui.window import Session


def _row(kind: str, content, uuid: str, **extra) -> str:
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=f"msg_{uuid}", model="claude-opus-4-1", usage={"input_tokens": 10, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 5, "output_tokens": 7})
    return json.dumps({"type": kind, "sessionId": "sess", "uuid": uuid, "message": message, **extra}) + "\n"


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    main = tmp_path / "sess.jsonl"
    main.write_text(_row("user", "Plan the refactor", "u1") + _row("assistant", [{"type": "text", "text": "On it."}], "a1"))
    sub = tmp_path / "sess" / "subagents" / "agent-1.jsonl"
    sub.parent.mkdir(parents=True)
    big_usage = {"input_tokens": 99_999, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    sub_assistant = json.loads(_row("assistant", [{"type": "text", "text": "sub result"}], "s2", isSidechain=True))
    sub_assistant["message"]["usage"] = big_usage
    sub.write_text(_row("user", "Search the code", "s1", isSidechain=True) + json.dumps(sub_assistant) + "\n")
    return main, sub


def test_subagent_files_are_sidechain_entries(tmp_path: Path) -> None:
    main, sub = _layout(tmp_path)
    session = Session(main)
    session.poll()
    side = [e for e in session.entries if e.is_sidechain]
    assert [e.text for e in side] == ["Search the code", "sub result"]
    assert all(not e.in_context and e.usage is None for e in side)
    state = session.state()
    assert state.rounds == 1
    assert state.context_tokens == 1015  # the main chain's usage, not the sub-agent's
    assert all(not w.entry.is_sidechain for w in state.live)
    with open(sub, "a") as out:
        out.write(_row("user", "more", "s3", isSidechain=True))
    update = session.poll()
    assert [e.text for e in update.new_entries] == ["more"] and not update.reset


def test_subagent_file_shrinking_rereads_the_session(tmp_path: Path) -> None:
    main, sub = _layout(tmp_path)
    session = Session(main)
    session.poll()
    sub.write_text(_row("user", "only", "s9", isSidechain=True))
    update = session.poll()
    assert update.reset
    assert [e.text for e in session.entries if e.is_sidechain] == ["only"]
    assert [e.kind for e in session.entries if not e.is_sidechain] == [Kind.USER, Kind.ASSISTANT]


def test_subagent_file_opened_alone_is_a_main_chain(tmp_path: Path) -> None:
    _, sub = _layout(tmp_path)
    session = Session(sub)
    session.poll()
    assert not any(e.is_sidechain for e in session.entries)
    state = session.state()
    assert state.rounds == 1 and state.context_tokens == 99_999
