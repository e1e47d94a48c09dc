"""The gauge after a compaction, within 15% of the next reply's reported figure on every real session with one.

bench/eval_compaction.py finds the cases (a compaction, then a main-chain
reply with usage) in the real transcripts present and prints the table in
docs/transcripts.md. Today: the codemie Claude Code session 35,604 estimated
against 36,541 reported (-2.6%; it was +47% while the baseline kept the
unwritten @-attached file and left out the re-attached files), the pi session
25,664 against 26,171 (-1.9%; -21.1% before our counts were scaled to the
agent's tokenizer).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from functools import cache
from pathlib import Path

from conftest import ROOT, fixture
from ctx_tui.transcripts.model import Entry, Kind
from ctx_tui.tokens import count_tokens
from ctx_tui.transcripts.reattach import mentioned_paths, mentions_files, reattached_tokens
from ctx_tui.window import Session

TOLERANCE = 0.15


@cache
def _eval():
    spec = importlib.util.spec_from_file_location("eval_compaction", ROOT / "bench" / "eval_compaction.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["eval_compaction"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_estimate_after_a_compaction_within_15_percent_of_the_next_reply() -> None:
    fixture("claude/codemie-code__session-624a4a58.jsonl")  # skips when the shared fixtures are absent
    cases = _eval().cases()
    # every real case there is today
    assert [c.session for c in cases] == ["codemie-code__session-624a4a58", "pi-mono__before-compaction-first-364-lines"]
    for case in cases:
        assert abs(case.error) <= TOLERANCE, case
        # the table in docs/transcripts.md shows these figures
        row = f"| {case.session} | {case.trigger}, {case.pre_tokens:,} | {case.reported:,} | {case.estimated:,} | {case.error:+.1%} |"
        assert row in (ROOT / "docs" / "transcripts.md").read_text(encoding="utf-8")


def test_at_mentions_are_files() -> None:
    assert mentioned_paths('see @src/app.py#L10-20, and @"docs/my notes.md".') == ["src/app.py", "docs/my notes.md"]
    assert mentions_files("@src/app.py review it")
    assert mentions_files('look at @"docs/my notes.md" first')
    assert mentions_files("review\n@README.md")
    assert not mentions_files("mail me at user@example.com")
    assert not mentions_files("ask @alice about it")
    assert not mentions_files("no mention here")


def _entry(seq: int, kind: Kind, name: str | None = None, tool_input: dict | None = None, use_id: str | None = None, text: str = "") -> Entry:
    return Entry(seq, kind, "assistant", text or f"{name} {tool_input}", len(text) // 4, 1, tool_name=name, tool_input=tool_input, tool_use_id=use_id, chars=len(text))


def test_reattached_files_follow_claude_codes_limits() -> None:
    """Newest written files first, then read ones; whole up to 5,000 tokens, else a note; 5 files at most."""
    entries = []
    seq = 0

    def read(path: str, text: str, **extra: int) -> None:
        nonlocal seq
        entries.append(_entry(seq, Kind.TOOL_CALL, "Read", {"file_path": path, **extra}, f"r{seq}"))
        entries.append(_entry(seq + 1, Kind.TOOL_RESULT, "Read", None, f"r{seq}", text))
        seq += 2

    def write(path: str, text: str) -> None:
        nonlocal seq
        entries.append(_entry(seq, Kind.TOOL_CALL, "Write", {"file_path": path, "content": text}, f"w{seq}"))
        seq += 1

    count = lambda e: e.tokens  # noqa: E731
    count_text = lambda s: len(s) // 4  # noqa: E731
    read("/p/small.py", "x" * 4_000)  # 1,000 tokens
    assert reattached_tokens(entries, count, count_text) == 1_000 + 30
    read("/p/big.py", "x" * 40_000)  # 10,000 tokens: a note
    assert reattached_tokens(entries, count, count_text) == 1_000 + 30 + 45
    read("/p/part.py", "x" * 400, offset=10, limit=5)  # size unknown: a note
    write("/p/new.md", "y" * 8_000)  # 2,000 tokens
    assert reattached_tokens(entries, count, count_text) == 1_030 + 45 + 45 + 2_030
    for n in range(4):  # four more written files push the read ones out (5 files at most)
        write(f"/p/w{n}.md", "z" * 400)
    assert reattached_tokens(entries, count, count_text) == 2_030 + 4 * (100 + 30)


def test_without_an_at_mention_the_first_reply_gives_the_baseline(tmp_path: Path) -> None:
    """No unwritten attachment: the baseline is the first reply minus the prompt; the re-attached file is added."""
    rows = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": "read app.py"}},
        {"type": "assistant", "uuid": "a1", "sessionId": "s", "message": {"id": "m1", "model": "claude-sonnet-4-5", "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/p/app.py"}}],
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 15_000, "cache_read_input_tokens": 0, "output_tokens": 5}}},
        {"type": "user", "uuid": "u2", "sessionId": "s", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "def main():\n    return 1\n" * 200}]}},
        {"type": "system", "subtype": "compact_boundary", "uuid": "b", "compactMetadata": {"trigger": "manual", "preTokens": 17_000}},
        {"type": "user", "uuid": "s1", "sessionId": "s", "isCompactSummary": True, "message": {"role": "user", "content": "Summary: the user asked to read app.py."}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    session = Session(path)
    session.poll()
    state = session.state()
    prompt, result, summary = (e for e in session.entries if e.kind in (Kind.USER, Kind.TOOL_RESULT, Kind.SUMMARY))
    assert not mentions_files(prompt.text)
    assert state.usage_source == "estimated"
    assert state.context_tokens == (15_010 - prompt.tokens) + (result.tokens + 30) + summary.tokens


def test_an_at_mentioned_file_on_disk_is_taken_off_the_baseline(tmp_path: Path) -> None:
    """The prompt's @-mentioned file was sent with it: counted as it is on disk (numbered lines, as Claude Code
    sends a Read), it comes off the first reply's figure; gone from disk, the baseline keeps it (no cached prefix here)."""
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    source = "".join(f"def handler_{n}(event):\n    return route(event, {n})\n" for n in range(300))
    (project / "src" / "app.py").write_text(source, encoding="utf-8")
    numbered = "\n".join(f"{n:>6}\u2192{line}" for n, line in enumerate(source.splitlines(), 1))
    prompt = "@src/app.py why is routing slow?"
    attached = count_tokens(numbered) + 30
    first = 20_000 + count_tokens(prompt) + attached  # 20,000: system prompt and tools
    rows = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "cwd": str(project), "message": {"role": "user", "content": prompt}},
        {"type": "assistant", "uuid": "a1", "sessionId": "s", "message": {"id": "m1", "model": "claude-sonnet-4-5", "role": "assistant",
            "content": [{"type": "text", "text": "The router scans every handler."}],
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": first - 10, "cache_read_input_tokens": 0, "output_tokens": 9}}},
        {"type": "system", "subtype": "compact_boundary", "uuid": "b", "compactMetadata": {"trigger": "manual", "preTokens": first + 20}},
        {"type": "user", "uuid": "s1", "sessionId": "s", "isCompactSummary": True, "message": {"role": "user", "content": "Summary: routing is slow."}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    summary = count_tokens("Summary: routing is slow.")
    assert mentioned_paths(prompt) == ["src/app.py"]
    state = _read(path).state()
    assert (state.context_tokens, state.usage_source) == (20_000 + summary, "estimated")
    (project / "src" / "app.py").unlink()
    assert _read(path).state().context_tokens == first - count_tokens(prompt) + summary


def _read(path: Path) -> Session:
    session = Session(path)
    session.poll()
    return session


def test_codex_after_a_compaction_the_estimate_not_the_last_report() -> None:
    """No real Codex rollout with readable text has a compaction and a reply after it (the one found, localpush,
    is redacted: not a measurement, left out above). Rebuilt at its recorded lengths (bench/eval_compaction.py):
    the estimate 32,604 against the 48,687 reported next (-33.0%), where the last report before the compaction,
    which the gauge kept until then, was 212,134 (82%, +336%)."""
    fixture("codex/localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl")
    (case,) = _eval().rebuilt_cases()
    assert (case.session, case.pre_tokens, case.reported) == (
        "localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9", 212_134, 48_687)
    assert -0.35 <= case.error <= 0.0, case  # what the estimate misses there: see docs/transcripts.md
    assert abs(case.error) < abs(case.pre_tokens - case.reported) / case.reported / 10
    row = f"| {case.session} | {case.trigger}, {case.pre_tokens:,} | {case.reported:,} | {case.estimated:,} | {case.error:+.1%} |"
    assert row in (ROOT / "docs" / "transcripts.md").read_text(encoding="utf-8")


def _codex_row(kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": "2026-05-11T10:00:00.000Z", "type": kind, "payload": payload}) + "\n"


def test_codex_estimate_is_the_baseline_plus_the_replacement_history_and_the_sealed_summary(tmp_path: Path) -> None:
    def message(role: str, text: str) -> str:
        kind = "input_text" if role != "assistant" else "output_text"
        return _codex_row("response_item", {"type": "message", "role": role, "content": [{"type": kind, "text": text}]})

    def tokens(total: int, given: int) -> str:
        last = {"input_tokens": given, "cached_input_tokens": 0, "output_tokens": total - given, "total_tokens": total}
        return _codex_row("event_msg", {"type": "token_count", "info": {"last_token_usage": last, "model_context_window": 258_400}})

    prompt = "Add a --json flag to the export command and document it in the README."
    head = [
        _codex_row("session_meta", {"id": "s", "cwd": "/w", "cli_version": "0.104.0"}),
        _codex_row("turn_context", {"model": "gpt-5.5", "cwd": "/w"}),
        message("user", prompt),
        _codex_row("event_msg", {"type": "user_message", "message": prompt}),
        message("assistant", "Done: the flag is in cli.py and the README has a section on it."),
        tokens(12_020, 12_000),
        message("user", "Thanks"),
        _codex_row("event_msg", {"type": "user_message", "message": "Thanks"}),
        tokens(90_000, 89_900),  # a long session later
    ]
    kept = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}]
    sealed = {"type": "compaction", "encrypted_content": "gAAAAA" + "x" * 7_994}  # 8,000 base64 characters

    def read(history: list[dict]) -> tuple[int, str]:
        path = tmp_path / "rollout.jsonl"
        path.write_text("".join(head) + _codex_row("compacted", {"message": "", "replacement_history": history})
                        + _codex_row("event_msg", {"type": "context_compacted"}))
        session = Session(path)
        session.poll()
        state = session.state()
        return state.context_tokens, state.usage_source

    plain, source = read(kept)
    assert source == "estimated"
    baseline = 12_020 - count_tokens(prompt, "gpt-5.5") - count_tokens("Done: the flag is in cli.py and the README has a section on it.", "gpt-5.5")
    assert plain == baseline + count_tokens(f"[user] {prompt}", "gpt-5.5")  # not 90,000, the last report
    with_summary, _ = read([*kept, sealed])
    summary = 8_000 * 3 // 4 - 57  # the Fernet token's plaintext: 5,943 characters
    assert summary / 6 < with_summary - plain < summary / 3  # about 4 characters a token
