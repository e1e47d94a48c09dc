"""line_blocks: a file's whole lines a buffer at a time, as a whole read keeps them, forwards and backwards."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ctx_tui.transcripts import blocks, follow
from ctx_tui.transcripts.blocks import line_blocks
from ctx_tui.transcripts.follow import longest_line


@pytest.fixture(autouse=True)
def _small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blocks, "BLOCK", 64)
    monkeypatch.setattr(follow, "CHUNK", 32)
    monkeypatch.setattr(follow, "MAX_LINE", 200)  # lines of more than longest_line() = 224 bytes are dropped


def _lines(seed: int) -> list[bytes]:
    rng = random.Random(seed)
    lengths = [rng.choice([1, 2, 30, 63, 64, 65, 100, 223, 224, 225, 400]) for _ in range(60)]
    return [bytes([97 + n % 26]) * (length - 1) + b"\n" for n, length in enumerate(lengths)]


def _seen(path: Path, end: int, backwards: bool) -> list[tuple[int, bytes]]:
    """(offset, line) of every line in the blocks, in file order."""
    seen = []
    for offset, buf, first, stop in line_blocks(path, end, backwards):
        text = bytes(buf[first:stop])
        assert text.endswith(b"\n")
        lines, at = [], offset + first
        for line in text.splitlines(keepends=True):
            lines.append((at, line))
            at += len(line)
        seen = seen + lines if not backwards else lines + seen
    return seen


@pytest.mark.parametrize("backwards", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_the_blocks_hold_every_line_a_whole_read_keeps(seed: int, backwards: bool, tmp_path: Path) -> None:
    lines = _lines(seed)
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"".join(lines))
    ends = [0]
    for line in lines:
        ends.append(ends[-1] + len(line))
    for end in ends[:: 7] + [ends[-1]]:
        expected, at = [], 0
        for line in lines:
            if at >= end:
                break
            if len(line) <= longest_line():
                expected.append((at, line))
            at += len(line)
        assert _seen(path, end, backwards) == expected, f"end {end}"


def test_a_file_shorter_than_the_end_asked_ends_the_blocks(tmp_path: Path) -> None:
    """(A file that shrank after its size was taken.) Forwards, its whole lines; backwards, nothing: never an error."""
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"x" * 10 + b"\n" + b"partial")
    assert _seen(path, 1000, backwards=False) == [(0, b"x" * 10 + b"\n")]
    assert _seen(path, 1000, backwards=True) == []
