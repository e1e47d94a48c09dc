"""Which formats are read, what is said about the rest, windows, sub-agent files, the gauge after a compaction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import CLAUDE_COMPACTED, CLAUDE_SHORT, CLAUDE_SIDECHAIN, CODEX_REDACTED, fixture
from ctx_tui.cli import main
from ctx_tui.tokens import count_tokens
from ctx_tui.transcripts.formats import FORMATS, detect_row
from ctx_tui.transcripts.model import Entry, Format, Kind
from ctx_tui.ui.widgets.heatmap import FILL_GROUPS, fill_shares
from ctx_tui.transcripts.reattach import mentions_files, reattached_tokens
from ctx_tui.window import Session, count_entry
from ctx_tui.window_state import WindowEntry


def _read(path: Path) -> Session:
    session = Session(path)
    session.poll()
    return session


def _digest(session: Session) -> list[tuple]:
    return [
        (e.kind, e.role, e.text, e.round, e.is_sidechain, e.in_context, e.usage.context_tokens if e.usage else None)
        for e in session.entries
    ]


def test_every_format_is_one_row_of_the_table() -> None:
    assert [spec.format for spec in FORMATS] == [Format.CODEX, Format.CLAUDE_CODE, Format.GEMINI, Format.PI, Format.GENERIC]
    assert detect_row({"type": "user", "content": [{"text": "hi"}], "id": "1", "timestamp": "t"}).format == Format.GEMINI
    assert detect_row({"type": "user", "message": {"content": "hi"}, "uuid": "u"}).format == Format.CLAUDE_CODE
    assert detect_row({"sessionId": "s", "projectHash": "p", "startTime": "t"}).format == Format.GEMINI
    assert detect_row({"role": "user", "content": "hi"}).format == Format.GENERIC
    assert detect_row({"type": "message", "message": {"role": "user"}}).format == Format.PI
    assert detect_row({"type": "session", "id": "s", "cwd": "/w"}).format == Format.PI
    assert detect_row({"type": "message", "message": {"content": "no role"}}) is None


def test_claude_web_export_reads_as_its_jsonl(tmp_path: Path) -> None:
    """The Claude Code web export is the session's rows in a pretty-printed {"loglines": [...]} document."""
    source = fixture(CLAUDE_SHORT)
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    export = tmp_path / "session-export.json"
    export.write_text(json.dumps({"loglines": rows}, indent=2, ensure_ascii=False), encoding="utf-8")
    session, reference = _read(export), _read(source)
    assert session.format == Format.CLAUDE_CODE and session.unsupported is None
    assert _digest(session) == _digest(reference)
    assert session.state(positions=False).context_tokens == reference.state(positions=False).context_tokens == 26_080
    assert session.state().skipped_lines == 0


AIDER_HISTORY = """# aider chat started at 2025-03-02 14:11:07

> /home/dev/.local/bin/aider --model sonnet
> Aider v0.75.1

#### add a --dry-run flag to the sync command

I'll add the flag to `cli.py`.
"""
OPENCODE_MESSAGE = '{\n  "id": "msg_01",\n  "sessionID": "ses_01",\n  "role_kind": "user",\n  "time": {"created": 1}\n}\n'


@pytest.mark.parametrize(
    ("name", "content", "first"),
    [
        ("aider", AIDER_HISTORY, "'# aider chat started at 2025-03-02 14:11:07'"),
        ("opencode", OPENCODE_MESSAGE, "'{'"),
        ("text", "just some notes\nnot a chat\n", "'just some notes'"),
    ],
)
def test_unsupported_input_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, first: str) -> None:
    """A file no reader recognises is an error naming the formats tried and its first row; stats exits 2."""
    path = tmp_path / f"{name}.session"
    path.write_text(content, encoding="utf-8")
    session = _read(path)
    message = session.unsupported
    assert message is not None and session.state().unsupported == message
    for spec in FORMATS:
        assert spec.label in message
    assert f"its first row: {first}" in message
    assert main(["stats", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert "not a transcript format ctx-tui reads" in err and "\n" not in err.strip()


def test_mostly_skipped_lines_are_unsupported(tmp_path: Path) -> None:
    """A recognised first row followed by lines nothing understands is not a quiet 0%."""
    path = tmp_path / "odd.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n' + "".join(f"line {i} of a log\n" for i in range(12)))
    session = _read(path)
    assert session.unsupported is not None and "12 lines skipped, 1 rows read" in session.unsupported


def test_an_empty_or_healthy_file_is_not_unsupported(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert _read(empty).unsupported is None
    assert _read(fixture(CLAUDE_SHORT)).unsupported is None


def test_old_layout_subagent_file_reads_as_its_own_main_chain(tmp_path: Path) -> None:
    """Rows with isSidechain: true (one Task sub-agent of the old layout) opened on their own, even as agent-<id>.jsonl."""
    rows = [json.loads(line) for line in fixture(CLAUDE_SIDECHAIN).read_text(encoding="utf-8").splitlines() if line.strip()]
    side = [r for r in rows if r.get("isSidechain")]
    # one sub-agent: from its prompt to the next sidechain prompt
    prompts = [i for i, r in enumerate(side) if r.get("type") == "user" and isinstance(r["message"].get("content"), str)]
    agent = side[prompts[0] : prompts[1]]
    path = tmp_path / "agent-5c1a2b3c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in agent))
    session = _read(path)
    state = session.state()
    last_usage = next(r["message"]["usage"] for r in reversed(agent) if r.get("type") == "assistant")
    expected = last_usage["input_tokens"] + last_usage["cache_creation_input_tokens"] + last_usage["cache_read_input_tokens"]
    assert (state.context_tokens, state.usage_source, state.rounds) == (expected, "reported", 1)
    assert not any(e.is_sidechain for e in session.entries)
    assert state.context_window == 200_000
    # the same rows inside a session that starts on its main chain stay sub-agent traffic
    assert all(e.is_sidechain for e in _read(fixture(CLAUDE_SIDECHAIN)).entries if e.uuid in {r.get("uuid") for r in agent})


def _rows(name: str) -> list[bytes]:
    return fixture(name).read_bytes().splitlines(keepends=True)


def test_claude_without_a_model_gets_200k(tmp_path: Path) -> None:
    path = tmp_path / "nomodel.jsonl"
    lines = [json.loads(x) for x in _rows(CLAUDE_SHORT)]
    for row in lines:
        if isinstance(row.get("message"), dict):
            row["message"].pop("model", None)
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    state = _read(path).state()
    assert state.context_window == 200_000 and state.usage_source == "reported"


def _codex_without_token_counts(tmp_path: Path, keep_model: bool = True) -> Path:
    path = tmp_path / "rollout-2026-02-23T12-54-34-cut.jsonl"
    kept = []
    for line in _rows(CODEX_REDACTED):
        if b'"token_count"' in line or b'"task_started"' in line:
            continue
        if not keep_model and b'"turn_context"' in line:
            continue
        kept.append(line)
    path.write_bytes(b"".join(kept))
    return path


def test_codex_without_token_count_gets_the_window_codex_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    state = _read(_codex_without_token_counts(tmp_path)).state(positions=False)
    assert state.meta.model == "gpt-5.3-codex"
    assert state.context_window == 258_400  # 95% of gpt-5's 272,000, as Codex itself reports (was 272,000)


def test_codex_window_from_another_rollout_of_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Better than the table: the latest model_context_window Codex reported for the model under CODEX_HOME."""
    home = tmp_path / "codex"
    day = home / "sessions" / "2026" / "03" / "01"
    day.mkdir(parents=True)
    other = [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "o", "cwd": "/elsewhere"}},
        {"timestamp": "t", "type": "turn_context", "payload": {"cwd": "/elsewhere", "model": "gpt-5.3-codex"}},
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "token_count", "info": {"model_context_window": 353_400}}},
    ]
    (day / "rollout-2026-03-01T10-00-00-other.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in other))
    monkeypatch.setenv("CODEX_HOME", str(home))
    assert _read(_codex_without_token_counts(tmp_path)).state().context_window == 353_400


def test_unknown_window_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A Codex rollout with no model at all: "window unknown", not 128,000 and a made-up percentage."""
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    path = _codex_without_token_counts(tmp_path, keep_model=False)
    state = _read(path).state()
    assert not state.window_known and state.usage_pct == 0.0
    assert main(["stats", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["context_window"] is None and data["usage_pct"] is None and data["headroom_tokens"] is None
    assert data["context_tokens"] > 0
    assert main(["stats", str(path)]) == 0
    assert "window unknown" in capsys.readouterr().out


def test_gauge_after_compaction_before_the_next_reply(tmp_path: Path) -> None:
    """Cut just after the auto compaction: the agent's cached prefix (the first prompt @-mentions a file,
    sent but not written) + the summary + the files Claude Code re-attaches, estimated."""
    lines = _rows(CLAUDE_COMPACTED)
    boundary = next(i for i, line in enumerate(lines) if b'"compact_boundary"' in line)
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"".join(lines[: boundary + 2]))  # the boundary and the summary row
    session = _read(path)
    state = session.state()
    assert state.usage_source == "estimated" and len(state.compactions) == 1
    compaction = state.compactions[0].seq
    summary = next(e for e in session.entries[compaction:] if e.kind == Kind.SUMMARY)
    first_reply = next(e for e in session.entries if e.usage is not None)
    assert first_reply.usage.context_tokens == 50_999
    assert mentions_files(next(e.text for e in session.entries if e.kind == Kind.USER))
    reattached = reattached_tokens(session.entries[:compaction], lambda e: count_entry(e, None), count_tokens)
    assert 7_000 < reattached < 8_500  # two files whole, three notes
    # Claude's tokens per cl100k token: the window grew from the first reply's 50,999 to the
    # last one's 155,741 by what was added in between
    last = max(e.seq for e in session.entries[:compaction] if e.usage is not None)
    grown = sum(count_entry(e, None) for e in session.entries[first_reply.seq : last] if e.in_context)
    ratio = (155_741 - 50_999) / grown
    assert 1.1 < ratio < 1.2
    # 23,254: the longest cache read shorter than the first request (tools + system prompt)
    assert state.context_tokens == 23_254 + round(ratio * reattached) + round(ratio * count_tokens(summary.text))
    # the next reply replaces the estimate with its reported figure
    path.write_bytes(b"".join(lines[: boundary + 3]))
    session = _read(path)
    assert (session.state().context_tokens, session.state().usage_source) == (36_541, "reported")


def test_heatmap_legend_keeps_system_text_apart() -> None:
    """System notes fill their own share, not "summary" (a Codex session with no compaction showed summary 80%)."""
    labels = [label for label, _, _ in FILL_GROUPS]
    assert labels[-2:] == ["summary", "system"]
    entries = [Entry(0, Kind.SYSTEM, "system", "<permissions>", 80, 1), Entry(1, Kind.USER, "user", "hi", 20, 1)]
    live = [WindowEntry(entries[0], 0, 80, 0.4), WindowEntry(entries[1], 80, 20, 0.9)]
    shares = dict(zip(labels, fill_shares(live)))
    assert shares["system"] == pytest.approx(0.8) and shares["summary"] == 0.0 and shares["user"] == pytest.approx(0.2)
