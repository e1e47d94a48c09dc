"""A file's whole lines a buffer at a time, forwards or backwards, for byte searches across large transcripts.

Searching a 100 MB transcript for a few bytes costs little more than reading
it when the search runs over large buffers rather than line by line: a caller
searches ``buffer[first:stop]`` (whole lines only) and looks at the lines
around what it finds. One buffer is refilled at each step (no copy per block);
a line longer than the buffer is read into a larger one, up to the longest
line a whole read keeps (:func:`ctx_tui.transcripts.follow.longest_line`), and
a longer line is left out, as a whole read drops it.
"""

from __future__ import annotations

from collections.abc import Iterator
from io import RawIOBase
from pathlib import Path
from typing import cast

from ctx_tui.storage import open_regular
from ctx_tui.transcripts.follow import longest_line

#: Bytes read per step.
BLOCK = 1 << 20


def line_blocks(path: Path, end: int, backwards: bool = False) -> Iterator[tuple[int, bytearray, int, int]]:
    """(offset, buffer, first, stop): the whole lines of the file before ``end`` (a line start) in
    ``buffer[first:stop]``, where ``buffer[0]`` is the file's byte ``offset``; first lines first, or last first.

    The buffer is refilled for the next step. A file that shrank ends the steps.
    Raises ``OSError`` when the file cannot be read.
    """
    buf = bytearray(BLOCK)
    with open_regular(path, buffering=0) as opened:
        fh = cast(RawIOBase, opened)  # unbuffered: read straight into the buffer
        if backwards:
            yield from _backwards(fh, buf, end)
        else:
            yield from _forwards(fh, buf, end)


def _forwards(fh: RawIOBase, buf: bytearray, end: int) -> Iterator[tuple[int, bytearray, int, int]]:
    pos = 0
    while pos < end:
        wanted = min(len(buf), end - pos)
        got = _read(fh, buf, pos, wanted)
        stop = buf.rfind(b"\n", 0, got) + 1
        if stop:
            yield pos, buf, 0, stop
            pos += stop
        elif got < wanted:
            return  # the file shrank: no whole line left
        elif not _grow(buf):  # a line a whole read drops: on after its newline
            ahead = pos + got
            while True:
                got = _read(fh, buf, ahead, min(len(buf), end - ahead))
                if not got:
                    return
                cut = buf.find(b"\n", 0, got)
                if cut >= 0:
                    pos = ahead + cut + 1
                    break
                ahead += got


def _backwards(fh: RawIOBase, buf: bytearray, end: int) -> Iterator[tuple[int, bytearray, int, int]]:
    pos = end
    while pos > 0:
        start = max(0, pos - len(buf))
        got = _read(fh, buf, start, pos - start)
        if got < pos - start:
            return  # the file shrank
        first = 0 if start == 0 else buf.find(b"\n", 0, got - 1) + 1  # (buf[got - 1] ends the line before pos)
        if first or start == 0 or _newline_at(fh, start - 1):
            yield start, buf, first, got
            pos = start + first
        elif not _grow(buf):  # a line a whole read drops: on before its start
            while start > 0:
                behind = max(0, start - len(buf))
                got = _read(fh, buf, behind, start - behind)
                cut = buf.rfind(b"\n", 0, got)
                if cut >= 0:
                    break
                start = behind
            pos = behind + cut + 1 if start > 0 else 0


def _newline_at(fh: RawIOBase, pos: int) -> bool:
    fh.seek(pos)
    return fh.read(1) == b"\n"


def _read(fh: RawIOBase, buf: bytearray, pos: int, size: int) -> int:
    fh.seek(pos)
    got = fh.readinto(memoryview(buf)[:size])
    return got or 0


def _grow(buf: bytearray) -> bool:
    """Make ``buf`` larger, up to the longest line a whole read keeps; False when it already is that large."""
    if len(buf) >= longest_line():
        return False
    buf.extend(bytes(min(len(buf), longest_line() - len(buf))))
    return True
