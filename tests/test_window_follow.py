"""Following a growing transcript: appends, partial lines, truncation, replacement, bad input."""

from __future__ import annotations

import dataclasses
import json
import os
import random
from pathlib import Path

import pytest

from conftest import ALL_FIXTURES, CLAUDE_COMPACTED, CODEX_REDACTED, fixture
from ctx_tui.transcripts.follow import BOM, Follower
from ctx_tui.transcripts.model import Entry, Kind
from ctx_tui.window import Session
from ctx_tui.window_state import WindowState

_VOLATILE = {"tokens", "tokens_counted"}  # counted lazily: depends on when state() was called


def _entry_view(entry: Entry) -> dict:
    data = dataclasses.asdict(entry)
    for key in _VOLATILE:
        data.pop(key)
    return data


def _state_view(state: WindowState) -> dict:
    return {
        "meta": dataclasses.asdict(state.meta),
        "context_tokens": state.context_tokens,
        "context_window": state.context_window,
        "usage_source": state.usage_source,
        "compactions": [dataclasses.asdict(c) for c in state.compactions],
        "rounds": state.rounds,
        "entries_total": state.entries_total,
        "skipped_lines": state.skipped_lines,
        "live": [(w.entry.seq, w.offset, w.tokens, round(w.position, 9)) for w in state.live],
        "history": [dataclasses.asdict(p) for p in state.history],
    }


def _whole(path: Path) -> Session:
    session = Session(path)
    session.poll()
    return session


def _assert_same(a: Session, b: Session) -> None:
    assert [_entry_view(e) for e in a.entries] == [_entry_view(e) for e in b.entries]
    assert _state_view(a.state()) == _state_view(b.state())


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_line_by_line_append_matches_whole_read(name: str, tmp_path: Path) -> None:
    source = fixture(name)
    data = source.read_bytes()
    target = tmp_path / "live.jsonl"
    target.write_bytes(b"")
    session = Session(target)
    session.poll()
    seen = 0
    with open(target, "ab") as out:
        for line in data.splitlines(keepends=True):
            out.write(line)
            out.flush()
            update = session.poll()
            assert update.bytes_read == len(line)  # only the new bytes
            assert not update.reset
            seen += len(update.new_entries)
            if seen % 97 == 0:
                session.state()  # states in the middle must not disturb the end result
    assert seen == len(session.entries)
    _assert_same(session, _whole(source))


@pytest.mark.parametrize("name", [CLAUDE_COMPACTED, CODEX_REDACTED])
def test_random_chunks_splitting_lines_match_whole_read(name: str, tmp_path: Path) -> None:
    source = fixture(name)
    data = source.read_bytes()
    target = tmp_path / "live.jsonl"
    target.write_bytes(b"")
    session = Session(target)
    rng = random.Random(20260101)
    pos = 0
    total_read = 0
    with open(target, "ab") as out:
        while pos < len(data):
            size = rng.randint(1, 60_000)
            out.write(data[pos : pos + size])
            out.flush()
            pos += size
            update = session.poll()
            total_read += update.bytes_read
            assert update.skipped == 0  # a half-written line is held, never counted as bad
    assert total_read == len(data)
    _assert_same(session, _whole(source))


def _claude_row(text: str, uuid: str = "u1") -> bytes:
    row = {"type": "user", "sessionId": "s1", "uuid": uuid, "message": {"role": "user", "content": text}}
    return json.dumps(row).encode() + b"\n"


def test_partial_last_line_is_held_until_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    row = _claude_row("hello there")
    path.write_bytes(row[:10])
    session = Session(path)
    assert session.poll().new_entries == []
    with open(path, "ab") as out:
        out.write(row[10:-1])
    assert session.poll().new_entries == []
    with open(path, "ab") as out:
        out.write(b"\n")
    update = session.poll()
    assert [e.text for e in update.new_entries] == ["hello there"]
    assert update.skipped == 0 and session.state().skipped_lines == 0


@pytest.mark.parametrize("bom", [b"", BOM], ids=["plain", "bom"])
def test_a_dropped_line_iterator_goes_on_after_the_last_line_it_gave(tmp_path: Path, bom: bytes) -> None:
    """The position is the bytes consumed (the file's ``tell()``): lines given, the held start of the next."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(bom + b'{"a":1}\n{"b":2}\n{"c":3}\n{"d"')
    follower = Follower(path)
    follower.check()
    lines = follower.read_lines()
    assert next(lines) == b'{"a":1}\n'
    lines.close()  # the caller stops after one line
    assert follower.offset == len(bom) + 8
    assert list(follower.read_lines()) == [b'{"b":2}\n', b'{"c":3}\n']
    assert follower.offset == path.stat().st_size  # the held start of the last line counts as read
    with open(path, "ab") as out:
        out.write(b":4}\n")
    assert list(follower.read_lines()) == [b'{"d":4}\n']
    assert follower.offset == path.stat().st_size and follower.bytes_read == 4


def test_truncated_file_is_read_again_from_zero(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_claude_row("first", "a") + _claude_row("second", "b"))
    session = Session(path)
    assert len(session.poll().new_entries) == 2
    with open(path, "r+b") as fh:
        fh.truncate(0)
        fh.write(_claude_row("third", "c"))
    update = session.poll()
    assert update.reset and update.changed
    assert [e.text for e in session.entries] == ["third"]
    assert session.state().rounds == 1


def test_replaced_file_is_read_again_from_zero(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_claude_row("old one", "a"))
    session = Session(path)
    session.poll()
    fresh = tmp_path / "new.jsonl"
    fresh.write_bytes(_claude_row("new one", "b") + _claude_row("and more", "c"))
    os.replace(fresh, path)
    update = session.poll()
    assert update.reset
    assert [e.text for e in session.entries] == ["new one", "and more"]


def test_missing_file_appearing_later(tmp_path: Path) -> None:
    path = tmp_path / "later.jsonl"
    session = Session(path)
    update = session.poll()
    assert not update.changed and session.entries == []
    state = session.state()
    assert state.context_tokens == 0 and state.live == []
    path.write_bytes(_claude_row("now I exist"))
    update = session.poll()
    assert [e.text for e in update.new_entries] == ["now I exist"]
    path.unlink()
    update = session.poll()
    assert update.reset and session.entries == []


def test_malformed_and_non_utf8_lines_are_counted_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        _claude_row("one", "a")
        + b"{not json at all\n"
        + b'{"type":"user","message":{"role":"user","content":"\xff\xfe bad bytes"}}\n'
        + b"[1, 2, 3]\n"
        + b"\n"
        + _claude_row("two", "b")
    )
    session = Session(path)
    update = session.poll()
    assert [e.text for e in update.new_entries] == ["one", "two"]
    assert update.skipped == 3
    assert session.state().skipped_lines == 3


def test_ten_megabyte_single_line(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    big = "x" * 10_000_000
    row = {
        "type": "user",
        "sessionId": "s1",
        "uuid": "r1",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": big}]},
        "toolUseResult": {"stdout": big},
    }
    path.write_bytes(_claude_row("go") + json.dumps(row).encode() + b"\n")
    session = Session(path)
    update = session.poll()
    result = update.new_entries[-1]
    assert result.kind == Kind.TOOL_RESULT and result.truncated
    assert result.chars == 10_000_000 and len(result.text) < 3_000
    assert result.tokens > 1_000_000  # the whole original counts, estimated
    state = session.state()
    assert state.skipped_lines == 0 and state.usage_source == "estimated"
    assert state.context_tokens == sum(w.tokens for w in state.live)


def test_ten_megabyte_line_split_across_polls(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    line = _claude_row("y" * 10_000_000)
    path.write_bytes(line[:4_000_000])
    session = Session(path)
    assert session.poll().new_entries == []
    with open(path, "ab") as out:
        out.write(line[4_000_000:])
    update = session.poll()
    assert update.bytes_read == len(line) - 4_000_000
    assert len(update.new_entries) == 1 and update.new_entries[0].chars == 10_000_000


def test_unchanged_file_poll_reports_no_change(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_claude_row("one"))
    session = Session(path)
    assert session.poll().changed
    version = session.version
    update = session.poll()
    assert not update.changed and update.bytes_read == 0 and session.version == version


def test_over_long_line_is_dropped_and_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctx_tui.transcripts import follow

    monkeypatch.setattr(follow, "MAX_LINE", 100_000)
    monkeypatch.setattr(follow, "CHUNK", 30_000)
    path = tmp_path / "s.jsonl"
    path.write_bytes(_claude_row("before", "a") + b"z" * 250_000)
    session = Session(path)
    session.poll()
    with open(path, "ab") as out:
        out.write(b"z" * 50_000 + b"\n" + _claude_row("after", "b"))
    session.poll()
    assert [e.text for e in session.entries] == ["before", "after"]
    assert session.state().skipped_lines == 1


def test_codex_prompt_confirmed_in_a_later_poll_is_a_change(tmp_path: Path) -> None:
    def row(kind: str, payload: dict) -> bytes:
        return json.dumps({"timestamp": "t", "type": kind, "payload": payload}).encode() + b"\n"

    path = tmp_path / "r.jsonl"
    path.write_bytes(
        row("session_meta", {"id": "x", "cwd": "/w"})
        + row("event_msg", {"type": "user_message", "message": "one"})
        + row("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "one"}]})
        + row("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "two"}]})
    )
    session = Session(path)
    session.poll()
    assert session.state().rounds == 1
    with open(path, "ab") as out:
        out.write(row("event_msg", {"type": "user_message", "message": "two"}))
    update = session.poll()
    assert update.changed and update.new_entries == []
    assert session.state().rounds == 2 and session.entries[-1].kind == Kind.USER


def test_calibration_sums_to_the_total_even_for_empty_entries() -> None:
    from ctx_tui.transcripts.builder import Transcript
    from ctx_tui.transcripts.model import Format
    from ctx_tui.window import calibrate

    t = Transcript(Format.GENERIC)
    entries = [t.add(Kind.SYSTEM, "system", "") for _ in range(3)]
    placed = calibrate(entries, [0, 0, 0], 1000)
    assert [w.tokens for w in placed] == [333, 334, 333] and placed[-1].position < 1.0
    assert [w.tokens for w in calibrate(entries, [5, 0, 5], 0)] == [0, 0, 0]
