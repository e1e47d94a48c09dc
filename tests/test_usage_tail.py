"""Tail-first reading gives the figures of a whole read, reading only the end.

Each real transcript is cut after many of its lines (a session as it was at
that moment) and read both ways: the usage figure, its source, the window and
the session facts must be equal. The tail read is forced on (no whole-read
threshold) so small fixtures exercise it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ALL_FIXTURES, fixture
from ctx_tui import usage_tail as tail
from ctx_tui.transcripts import blocks
from ctx_tui.usage_tail import TailUsage, read_usage_tail
from ctx_tui.window import Session

CUTS = 25


@pytest.fixture(autouse=True)
def _always_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tail, "WHOLE_READ_BELOW", 0)
    monkeypatch.setattr(tail, "BLOCK", 4096)  # many blocks: the walk's block edges are exercised
    monkeypatch.setattr(blocks, "BLOCK", 4096)  # and the searches' (session facts, Codex meta rows)


def _figures(usage: TailUsage) -> tuple:
    m = usage.meta
    return (usage.context_tokens, usage.context_window, usage.usage_source, usage.token_source,
            m.format, m.session_id, m.model, m.cwd, m.agent_version, m.git_branch, m.context_window)


def _whole(path: Path) -> tuple:
    session = Session(path)
    session.poll()
    s = session.state(positions=False)
    m = s.meta
    return (s.context_tokens, s.context_window, s.usage_source, s.token_source,
            m.format, m.session_id, m.model, m.cwd, m.agent_version, m.git_branch, m.context_window)


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_tail_read_equals_whole_read_at_every_cut(name: str, tmp_path: Path) -> None:
    lines = fixture(name).read_bytes().splitlines(keepends=True)
    path = tmp_path / "cut.jsonl"
    cuts = sorted({max(1, len(lines) * k // CUTS) for k in range(1, CUTS + 1)})
    decided = 0
    for cut in cuts:
        path.write_bytes(b"".join(lines[:cut]) + b'{"half": "a line still being writ')
        usage = read_usage_tail(path)
        assert _figures(usage) == _whole(path), f"cut after line {cut}"
        decided += not usage.whole_file
    assert decided >= len(cuts) // 3  # the tail decides, not a whole read (sidechain-heavy stretches aside)


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_tail_reads_a_small_part_of_a_long_session(name: str) -> None:
    path = fixture(name)
    usage = read_usage_tail(path)
    assert _figures(usage) == _whole(path)
    assert not usage.whole_file and usage.bytes_read < path.stat().st_size / 2


def _claude(i: int, **extra: object) -> dict:
    return {"type": "assistant", "uuid": f"a{i}", "sessionId": "s-first" if i == 0 else "s-later", "cwd": "/p",
            "message": {"id": f"m{i}", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": f"step {i}"}],
                        "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1000 * (i + 1), "output_tokens": 5}},
            **extra}


@pytest.mark.parametrize("spaced", [False, True])
def test_sidechain_and_error_rows_at_the_end_are_walked_past(tmp_path: Path, spaced: bool) -> None:
    rows = [_claude(i) for i in range(30)]
    rows += [_claude(30 + i, isSidechain=True) for i in range(5)]
    rows += [_claude(40, isApiErrorMessage=True)]
    sep = (", ", ": ") if spaced else (",", ":")
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r, separators=sep) + "\n" for r in rows))
    usage = read_usage_tail(path)
    assert _figures(usage) == _whole(path)
    assert usage.context_tokens == 10 + 30_000 and usage.meta.session_id == "s-first"
    assert not usage.whole_file


def _compaction(n: int) -> list[dict]:
    return [{"type": "system", "subtype": "compact_boundary", "uuid": f"b{n}", "sessionId": "s-later", "cwd": "/p",
             "compactMetadata": {"trigger": "auto", "preTokens": 31000}},
            {"type": "user", "uuid": f"c{n}", "sessionId": "s-later", "cwd": "/p", "isCompactSummary": True,
             "message": {"role": "user", "content": f"Summary {n}: the exporter is half done."}}]


def test_compaction_after_the_last_usage_reads_back_to_the_window_that_had_one(tmp_path: Path) -> None:
    """The estimate after a compaction adds a baseline learned from the window before it."""
    rows = [_claude(i) for i in range(30)] + _compaction(1) + [_claude(i) for i in range(30, 40)] + _compaction(2)
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    usage = read_usage_tail(path)
    assert usage.usage_source == "estimated" and _figures(usage) == _whole(path)
    assert not usage.whole_file and usage.bytes_read < path.stat().st_size / 2
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[:32]))  # one compaction: its window starts the file
    usage = read_usage_tail(path)
    assert usage.usage_source == "estimated" and _figures(usage) == _whole(path)


def test_no_usage_anywhere_is_a_whole_read(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps({"role": "user", "content": f"message {i}"}) + "\n" for i in range(50)))
    usage = read_usage_tail(path)
    assert usage.whole_file and usage.usage_source == "estimated" and _figures(usage) == _whole(path)


def test_missing_file_reads_as_empty(tmp_path: Path) -> None:
    usage = read_usage_tail(tmp_path / "nope.jsonl")
    assert usage.context_tokens == 0 and usage.whole_file


def test_codex_compaction_report_is_no_context_reading(tmp_path: Path) -> None:
    """The token_count Codex writes as it compacts (total 940,499, no input or output, on a 258,400
    window) is not the context, and the last real report (212,134, 82%) measured the window the
    compaction replaced: cut right after the compaction, the whole read and the tail read give the
    post-compaction estimate, and the status line's scan its own (text / 4), never 364% nor 82%;
    the next token_count (48,687) is reported again."""
    from conftest import CODEX_REDACTED
    from ctx_tui.transcripts.tail import read_tail

    lines = fixture(CODEX_REDACTED).read_bytes().splitlines(keepends=True)
    cut = next(n for n, line in enumerate(lines) if b'"context_compacted"' in line) + 1
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"".join(lines[:cut]))
    whole = _whole(path)
    usage = read_usage_tail(path)
    assert usage.usage_source == "estimated" and _figures(usage) == whole
    assert 0 < usage.context_tokens < 212_134 / 4
    scan = read_tail(path)[0]
    assert scan.estimated and scan.compacted and 0 < scan.tokens < 212_134 / 4
    reply = next(n for n in range(cut, len(lines)) if b'"token_count"' in lines[n] and b'"input_tokens":48297' in lines[n])
    path.write_bytes(b"".join(lines[: reply + 1]))
    assert _whole(path)[0] == read_usage_tail(path).context_tokens == read_tail(path)[0].context_tokens == 48_687