"""The peak scan (ctx_tui.usage_peak) decides a Claude window as a whole read does.

A whole read parses every row; the scan reads the bytes and parses only the
rows that may change the window. Both are run on the real Claude transcripts
with their usage figures scaled past 200,000 and past 1,000,000 (real row
shapes, sidechain and error rows included), compact and spaced, cut at many
points; and on crafted rows in every shape the scan treats apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import CLAUDE_COMPACTED, CLAUDE_SHORT, CLAUDE_SIDECHAIN, fixture
from ctx_tui import usage_peak, usage_tail
from ctx_tui.config import Config
from ctx_tui.config_file import validate_config
from ctx_tui.transcripts import blocks, follow
from ctx_tui.transcripts.follow import BOM, Follower, longest_line
from ctx_tui.transcripts.model import Format
from ctx_tui.transcripts.reader import TranscriptReader
from ctx_tui.usage_peak import claude_peak
from ctx_tui.usage_tail import read_usage_tail
from ctx_tui.window import Session

CLAUDE_FIXTURES = [CLAUDE_COMPACTED, CLAUDE_SIDECHAIN, CLAUDE_SHORT]
_CONTEXT_FIELD = re.compile(rb'("(?:input_tokens|cache_creation_input_tokens|cache_read_input_tokens)":)(\d+)')


@pytest.fixture(autouse=True)
def _small_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usage_tail, "WHOLE_READ_BELOW", 0)  # small files take the tail path too
    monkeypatch.setattr(blocks, "BLOCK", 4096)  # many blocks: lines across their edges, buffers that grow


def _window_class(tokens: int) -> int:
    return (tokens > 200_000) + (tokens > 1_000_000)


def _scaled(data: bytes, factor: int, spaced: bool) -> bytes:
    """The transcript with every context field times ``factor``; ``spaced``: each row re-written with spaces."""
    data = _CONTEXT_FIELD.sub(lambda m: m[1] + str(int(m[2]) * factor).encode(), data)
    if not spaced:
        return data
    lines = (json.dumps(json.loads(line), separators=(", ", ": "), ensure_ascii=False).encode() for line in data.splitlines())
    return b"".join(line + b"\n" for line in lines)


def _running_peaks(path: Path) -> list[tuple[int, int]]:
    """(line start, the peak a whole read has taken before that line), through the Claude reader."""
    reader = TranscriptReader(path)
    points: list[tuple[int, int]] = []

    def lines() -> Iterator[bytes]:
        offset = 0
        for line in path.read_bytes().splitlines(keepends=True):
            points.append((offset, reader.transcript.peak_usage))
            yield line
            offset += len(line)

    reader.read_lines_as(Format.CLAUDE_CODE, lines())
    return points


def _first_turn_lead(path: Path, end: int) -> list[bytes]:
    first = usage_tail._claude_first_turn(path, end)
    return [json.dumps(first).encode()] if first is not None else []


@pytest.mark.parametrize("spaced", [False, True])
@pytest.mark.parametrize("factor", [12, 45])
@pytest.mark.parametrize("name", CLAUDE_FIXTURES)
def test_the_scan_gives_the_window_class_of_a_whole_read_on_real_rows(name: str, factor: int, spaced: bool, tmp_path: Path) -> None:
    path = tmp_path / "scaled.jsonl"
    path.write_bytes(_scaled(fixture(name).read_bytes(), factor, spaced))
    points = _running_peaks(path)
    classes = set()
    for offset, peak in points[:: max(1, len(points) // 40)] + [points[-1]]:
        found = claude_peak(path, offset, _first_turn_lead(path, offset))
        assert _window_class(found) == _window_class(peak), f"cut at byte {offset}"
        classes.add(_window_class(peak))
    assert classes != {0}  # the scaled figures do pass 200,000


@pytest.mark.parametrize("spaced", [False, True])
@pytest.mark.parametrize("final_peak", [600_000, 3_000_000])
@pytest.mark.parametrize("name", CLAUDE_FIXTURES)
def test_the_tail_read_gives_the_window_of_a_whole_read_on_scaled_real_rows(name: str, final_peak: int, spaced: bool, tmp_path: Path) -> None:
    """Scaled so that the session's peak ends at ``final_peak``: on a 1M window, or past it (then 200,000)."""
    reader = TranscriptReader(fixture(name))
    reader.poll()
    factor = final_peak // reader.transcript.peak_usage
    lines = _scaled(fixture(name).read_bytes(), factor, spaced).splitlines(keepends=True)
    path = tmp_path / "cut.jsonl"
    for cut in sorted({max(1, len(lines) * k // 8) for k in range(1, 9)}):
        path.write_bytes(b"".join(lines[:cut]))
        usage, whole = read_usage_tail(path), _whole(path)
        assert (usage.context_tokens, usage.context_window, usage.usage_source) == whole, f"cut after line {cut}"
    assert usage.context_window == (1_000_000 if final_peak <= 1_000_000 else 200_000)


def _whole(path: Path, config: Config | None = None) -> tuple[int, int, str]:
    session = Session(path, config)
    session.poll()
    state = session.state(positions=False)
    return state.context_tokens, state.context_window, state.usage_source


def _row(i: int, context: int = 1000, **extra: object) -> dict:
    return {"type": "assistant", "uuid": f"a{i}", "sessionId": "s1", "cwd": "/p",
            "message": {"id": f"m{i}", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": f"step {i}"}],
                        "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": context, "output_tokens": 5}},
            **extra}


def _line(row: dict, spaced: bool = False) -> bytes:
    return json.dumps(row, separators=(", ", ": ") if spaced else (",", ":")).encode()


def _session(path: Path, special: list[bytes], *, before: int = 20, after: int = 20) -> None:
    """Ordinary rows, the ``special`` lines, ordinary rows: the last usage (the tail's start) lies after them."""
    rows = [_line(_row(i)) for i in range(before)] + special + [_line(_row(before + i)) for i in range(after)]
    path.write_bytes(b"".join(line + b"\n" for line in rows))


def _usage_text(fields: str) -> bytes:
    """An assistant row whose usage object is written out by hand (``fields``, JSON members)."""
    return (b'{"type":"assistant","uuid":"x","sessionId":"s1","message":{"id":"mx","role":"assistant","model":"claude-sonnet-4-5",'
            b'"content":[{"type":"text","text":"x"}],"usage":{' + fields.encode() + b"}}}")


PAST_200K = 300_000
PAST_1M = 1_500_000

CASES: dict[str, tuple[list[bytes], int]] = {
    "compact": ([_line(_row(100, PAST_200K))], 1_000_000),
    "spaced": ([_line(_row(100, PAST_200K), spaced=True)], 1_000_000),
    "tabs and carriage return": ([_line(_row(100, PAST_200K)).replace(b'":', b'"\t:\t') + b"\r"], 1_000_000),
    "past 1M, then a 1M peak": ([_line(_row(100, PAST_1M)), _line(_row(101, PAST_200K))], 200_000),
    "sidechain row": ([_line(_row(100, PAST_200K, isSidechain=True))], 200_000),
    "API error row": ([_line(_row(100, PAST_200K, isApiErrorMessage=True))], 200_000),
    "synthetic model": ([_line(_row(100, PAST_200K)).replace(b"claude-sonnet-4-5", b"<synthetic>")], 200_000),
    "implausible (past 10 windows of 10M)": ([_line(_row(100, 200_000_000))], 200_000),
    "a nested object before the fields": (
        [_usage_text('"cache_creation":{"ephemeral_5m_input_tokens":0},"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":300000')],
        1_000_000),
    "fields in another order": ([_usage_text('"cache_read_input_tokens":300000,"input_tokens":1,"cache_creation_input_tokens":0')], 1_000_000),
    "a later duplicate wins": (
        [_usage_text('"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"cache_read_input_tokens":300000')],
        1_000_000),
    "a later small duplicate wins": (
        [_usage_text('"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":300000,"cache_read_input_tokens":5')],
        200_000),
    "the key spelled with escapes": ([_line(_row(100, PAST_200K)).replace(b'"usage"', b'"\\u0075s\\u0061ge"')], 1_000_000),
    "a float is no figure": ([_usage_text('"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":300000.0')], 200_000),
    "a malformed line": ([_line(_row(100, PAST_200K))[:-1]], 200_000),
    "a row the reader skips unparsed": ([b'{"type":"file-history-snapshot",' + _line(_row(100, PAST_200K))[1:]], 200_000),
    "a usage key in a tool's input": (
        [_line({**_row(100), "message": {**_row(100)["message"], "content": [
            {"type": "tool_use", "id": "t1", "name": "Write", "input": {"usage": {"input_tokens": PAST_200K, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}]}})],
        200_000),
    "a usage in a tool result's copy": (
        [_line({"type": "user", "uuid": "u1", "sessionId": "s1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "done"}]},
            "toolUseResult": {"usage": {"input_tokens": PAST_200K, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})],
        200_000),
    "a second row of the same message": ([_line(_row(100, 5000)), _line({**_row(101, PAST_200K), "message": {**_row(101, PAST_200K)["message"], "id": "m100"}})],
                                         1_000_000),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_crafted_rows_give_the_window_of_a_whole_read(case: str, tmp_path: Path) -> None:
    special, window = CASES[case]
    path = tmp_path / "s.jsonl"
    _session(path, special)
    usage = read_usage_tail(path)
    assert not usage.whole_file and usage.bytes_read < path.stat().st_size / 4  # the special rows are the scan's
    assert (usage.context_tokens, usage.context_window, usage.usage_source) == _whole(path)
    assert usage.context_window == window


def test_a_byte_order_mark_before_the_peak_row(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _session(path, [], before=0)
    path.write_bytes(BOM + _line(_row(0, PAST_200K)) + b"\n" + path.read_bytes())
    assert _whole(path)[1] == read_usage_tail(path).context_window == 1_000_000


@pytest.mark.parametrize("first_side", [False, True])
def test_a_file_that_starts_on_a_sidechain_is_its_own_main_chain(first_side: bool, tmp_path: Path) -> None:
    path = tmp_path / "agent-1.jsonl"
    _session(path, [_line(_row(100, PAST_200K, isSidechain=True))], before=0)
    lines = path.read_bytes().splitlines(keepends=True)
    first = _line({"type": "user", "uuid": "u0", "sessionId": "s1", "isSidechain": first_side, "message": {"role": "user", "content": "go"}})
    path.write_bytes(first + b"\n" + b"".join(lines))
    assert _whole(path)[1] == read_usage_tail(path).context_window == (1_000_000 if first_side else 200_000)


@pytest.mark.parametrize("extra", [0, 1])
def test_a_line_a_whole_read_drops_as_too_long_counts_for_neither(extra: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(follow, "CHUNK", 1024)
    monkeypatch.setattr(follow, "MAX_LINE", 8 * 1024)
    row = _line(_row(100, PAST_200K))
    padded = row[:-1] + b',"pad":"' + b"x" * (longest_line() - len(row) - 10 + extra) + b'"}'
    assert len(padded) + 1 == longest_line() + extra
    path = tmp_path / "s.jsonl"
    _session(path, [padded])
    assert _whole(path)[1] == read_usage_tail(path).context_window == (200_000 if extra else 1_000_000)


def test_longest_line_is_what_the_follower_keeps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(follow, "CHUNK", 1024)
    monkeypatch.setattr(follow, "MAX_LINE", 5000)
    path = tmp_path / "lines.txt"
    path.write_bytes(b"a" * (longest_line() - 1) + b"\n" + b"b" * longest_line() + b"\nend\n")
    follower = Follower(path)
    follower.check()
    assert [len(line) for line in follower.read_lines()] == [longest_line(), 4]
    assert follower.take_overlong() == 1


def test_the_peak_is_not_searched_when_the_window_does_not_depend_on_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object) -> int:
        raise AssertionError("searched")

    path = tmp_path / "s.jsonl"
    _session(path, [_line(_row(100, PAST_200K))])
    config = validate_config({"window": {"sizes": {"claude-sonnet-4-5": 400_000}}})
    monkeypatch.setattr(usage_tail, "claude_peak", refuse)
    assert read_usage_tail(path, config).context_window == _whole(path, config)[1] == 400_000
    path.write_bytes(path.read_bytes().replace(b"claude-sonnet-4-5", b"claude-sonnet-4-5[1m]"))
    assert read_usage_tail(path).context_window == _whole(path)[1] == 1_000_000
    plain = tmp_path / "plain.jsonl"
    _session(plain, [_line(_row(100, PAST_200K))])
    with pytest.raises(AssertionError, match="searched"):
        read_usage_tail(plain)


def test_a_report_past_1m_ends_the_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.jsonl"
    _session(path, [_line(_row(100, PAST_1M))] + [_line(_row(200 + i, PAST_200K)) for i in range(50)])
    parsed: list[bytes] = []
    reported = usage_peak._reported
    monkeypatch.setattr(usage_peak, "_reported", lambda path, lead, line: parsed.append(line) or reported(path, lead, line))
    end = path.stat().st_size - 200
    assert claude_peak(path, path.read_bytes().rindex(b"\n", 0, end) + 1, []) == PAST_1M + 10
    assert len(parsed) == 1
