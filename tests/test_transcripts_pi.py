"""pi coding agent sessions, read from a real session (tests/fixtures/pi, provenance beside it)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctx_tui.cli import main
from ctx_tui.transcripts.discover import PI, find_session
from ctx_tui.transcripts.model import Format, Kind
from ctx_tui.window import Session

PI_SESSION = Path(__file__).parent / "fixtures" / "pi" / "pi-mono__before-compaction-first-364-lines.jsonl"


def _read(path: Path) -> Session:
    session = Session(path)
    session.poll()
    return session


def _cut(tmp_path: Path, lines: int) -> Path:
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"".join(PI_SESSION.read_bytes().splitlines(keepends=True)[:lines]))
    return path


def test_pi_session_reads() -> None:
    session = _read(PI_SESSION)
    state = session.state()
    assert session.format == Format.PI and session.unsupported is None and state.skipped_lines == 0
    meta = session.meta
    assert (meta.session_id, meta.model, meta.cwd) == ("ffae836b-9420-4060-ac13-7745215f90ff", "claude-opus-4-5", "/Users/badlogic/workspaces/pi-mono")
    assert meta.extra["provider"] == "anthropic" and meta.extra["parent_session"].endswith("d97339c6-6c10-4827-846b-9ff1d9c3dc37.jsonl")
    # the last reply's totalTokens (pi's own rule), in claude-opus-4-5's window
    assert (state.context_tokens, state.usage_source, state.context_window) == (26_171, "reported", 200_000)
    assert state.rounds == 14
    kinds = Counter(e.kind for e in session.entries)
    assert kinds == {Kind.TOOL_CALL: 170, Kind.TOOL_RESULT: 169, Kind.ASSISTANT: 88, Kind.USER: 14, Kind.THINKING: 12, Kind.SYSTEM: 4, Kind.SUMMARY: 1}
    first = session.entries[0]
    assert first.kind == Kind.USER and first.text.startswith("alright, read @packages/coding-agent/src/main.ts")
    call = next(e for e in session.entries if e.kind == Kind.TOOL_CALL)
    assert (call.tool_name, call.tool_input) == ("read", {"path": "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/main.ts"})
    result = next(e for e in session.entries if e.kind == Kind.TOOL_RESULT and e.tool_use_id == call.tool_use_id)
    assert result.tool_name == "read" and result.text.startswith("import { Agent")
    # aborted replies report no usage; their error is a note outside the context
    notes = [e for e in session.entries if e.kind == Kind.SYSTEM]
    assert {n.text for n in notes} == {"Request was aborted."} and not any(n.in_context for n in notes)
    assert [(p.round, p.tokens) for p in state.history][-3:] == [(11, 153_493), (12, 175_004), (14, 26_171)]


def test_compaction_keeps_the_entries_from_the_first_kept_row(tmp_path: Path) -> None:
    """A version-1 compaction names its first kept row by number (firstKeptEntryIndex 293): the live
    window holds that row's entries on, then the summary; the usage is estimated until the next reply."""
    session = _read(_cut(tmp_path, 360))  # up to and with the compaction row
    state = session.state()
    rows = [json.loads(line) for line in PI_SESSION.read_bytes().splitlines()[:360]]
    compaction = rows[359]
    assert compaction["type"] == "compaction" and compaction["firstKeptEntryIndex"] == 293
    assert len(state.compactions) == 1 and state.compactions[0].pre_tokens == 175_004
    live = [w.entry for w in state.live]
    assert live[0].text == rows[293]["message"]["content"][0]["text"] == "i reviwed what we have, it's good. continue"
    assert live[-1].kind == Kind.SUMMARY and live[-1].text == compaction["summary"]
    assert state.usage_source == "estimated" and 20_000 < state.context_tokens < 30_000


def test_followed_as_it_grows(tmp_path: Path) -> None:
    whole = _read(PI_SESSION)
    data = PI_SESSION.read_bytes()
    path = tmp_path / "growing.jsonl"
    path.write_bytes(b"")
    session = Session(path)
    for at in range(0, len(data), 65_537):
        with open(path, "ab") as fh:
            fh.write(data[at : at + 65_537])
        session.poll()
    digest = lambda s: [(e.kind, e.text, e.round, e.in_context, e.usage.context_tokens if e.usage else None) for e in s.entries]  # noqa: E731
    assert digest(session) == digest(whole)
    assert session.state().context_tokens == whole.state().context_tokens


def _row(id_: str, parent: str | None, role: str, text: str, total: int | None = None) -> dict:
    message: dict = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1}
    if total is not None:
        message |= {"model": "claude-sonnet-4-5", "stopReason": "stop", "usage": {"input": total - 10, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total}}
    return {"type": "message", "id": id_, "parentId": parent, "timestamp": "2026-01-02T10:00:00.000Z", "message": message}


def test_a_branch_is_the_path_to_its_row(tmp_path: Path) -> None:
    """Version 3 rows form a tree: the context is the path from the root to the newest row (/tree moves it)."""
    rows = [
        {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-01-02T10:00:00.000Z", "cwd": "/w"},
        _row("a1", None, "user", "add a cache"),
        _row("a2", "a1", "assistant", "Added an LRU cache.", 5_000),
        _row("a3", "a2", "user", "now make it async"),
        _row("a4", "a3", "assistant", "Made it async.", 6_000),
        {"type": "label", "id": "a5", "parentId": "a4", "timestamp": "2026-01-02T10:01:00.000Z", "targetId": "a2", "label": "cache"},
        {"type": "branch_summary", "id": "b1", "parentId": "a2", "timestamp": "2026-01-02T10:02:00.000Z", "fromId": "a4", "summary": "Tried async; dropped."},
        _row("b2", "b1", "user", "keep it sync, add a TTL"),
    ]
    path = tmp_path / "tree.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    session = _read(path)
    state = session.state()
    assert [w.entry.text for w in state.live] == ["add a cache", "Added an LRU cache.", "Tried async; dropped.", "keep it sync, add a TTL"]
    assert (state.context_tokens, state.usage_source, state.rounds) == (5_000, "reported", 2)
    assert [e.text for e in session.entries if not e.in_context] == ["now make it async", "Made it async."]
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(_row("b3", "b2", "assistant", "TTL added.", 5_400)) + "\n")
    session.poll()
    assert (session.state().context_tokens, session.state().rounds) == (5_400, 2)
    # back to the async branch (/tree to a4): its rows are the context again, the TTL branch leaves it
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(_row("c1", "a4", "user", "after all, go async")) + "\n")
    session.poll()
    state = session.state()
    assert [w.entry.text for w in state.live] == ["add a cache", "Added an LRU cache.", "now make it async", "Made it async.", "after all, go async"]
    assert state.context_tokens == 6_000 and state.usage_source == "reported"
    assert _read(path).state().context_tokens == 6_000  # the same read whole


def test_discovery_and_stats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """pi keeps sessions in ~/.pi/agent/sessions/--<cwd>--/ ($PI_CODING_AGENT_DIR moves it)."""
    project = tmp_path / "work" / "app"
    project.mkdir(parents=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    folder = tmp_path / "agent" / "sessions" / ("--" + str(project).lstrip("/").replace("/", "-") + "--")
    folder.mkdir(parents=True)
    session_file = folder / "2025-12-09T00-53-29-825Z_ffae836b.jsonl"
    session_file.write_bytes(PI_SESSION.read_bytes())
    assert find_session(project, PI) == session_file
    assert find_session(project) == session_file
    monkeypatch.chdir(project)
    assert main(["stats", "--pi", "--json", "--full"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["format"], data["context_tokens"], data["usage_source"], data["compactions"]) == ("pi", 26_171, "reported", 1)


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8,
)
_ids = st.one_of(st.sampled_from(["a", "b", "c", None]), _json)
_pi_rows = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("message"), "message": st.fixed_dictionaries(
            {"role": st.sampled_from(["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary", "other"])},
            optional={k: _json for k in ("content", "usage", "model", "stopReason", "errorMessage", "toolCallId", "toolName", "isError",
                                         "command", "output", "excludeFromContext", "summary")},
        )},
        optional={"id": _ids, "parentId": _ids, "timestamp": _json},
    ),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["model_change", "compaction", "branch_summary", "custom_message", "session_info", "label", "custom"])},
        optional={k: _json for k in ("modelId", "summary", "firstKeptEntryId", "firstKeptEntryIndex", "tokensBefore", "fromHook", "content", "name")}
        | {"id": _ids, "parentId": _ids},
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(_pi_rows, min_size=1, max_size=8))
def test_pi_rows_of_any_shape_never_raise(tmp_path: Path, rows: list) -> None:
    """Values of any type under the keys the pi reader reads: no exception, figures stay sane."""
    path = tmp_path / "pi.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [{"type": "session", "id": "s", "cwd": "/w"}, *rows]))
    session = _read(path)
    state = session.state()
    assert session.format == Format.PI
    assert 0 <= state.context_tokens and state.skipped_lines <= len(rows)
    assert all(e.uuid is None or isinstance(e.uuid, str) for e in session.entries)
