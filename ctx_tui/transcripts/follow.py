"""Follow a growing file: read only the bytes appended since the last poll.

A :class:`Follower` keeps its byte offset and the file's identity (device,
inode). Each :meth:`Follower.read_lines` reads what was appended through a
``CHUNK``-byte buffer (a 100 MB file never sits in one buffer) and yields
complete lines; a partial last line is held until its newline arrives. A line longer
than ``MAX_LINE`` (a file that is not a transcript, say) is dropped and counted
in ``overlong`` instead of growing without bound. A file that shrank or was
replaced (another inode) is read again from zero, and the caller is told
(``check()`` returns True). A missing file is not an error: it yields nothing
until it appears. A UTF-8 byte-order mark at the start is skipped.

A FIFO, device or folder at the path is never opened for reading (a read
would block forever or never end), and a file that cannot be opened is not
an error either: both leave a one-line reason in ``problem`` until the file
is readable again.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from ctx_tui.storage import NotRegularFile, open_regular, special_kind

#: Bytes read per system call.
CHUNK = 1 << 20
#: The UTF-8 byte-order mark some editors write first: stepped over, never part of the first line.
BOM = b"\xef\xbb\xbf"
#: Longest line kept; a longer one is skipped (and counted), never held whole.
MAX_LINE = 32 << 20


def longest_line() -> int:
    """The longest line :meth:`Follower.read_lines` yields in one pass, its newline included.

    It holds the ``CHUNK``-byte pieces of a line before the last one, and drops
    the line once they pass ``MAX_LINE``.
    """
    return (MAX_LINE // CHUNK + 1) * CHUNK


def _unreadable(exc: OSError) -> str:
    if isinstance(exc, NotRegularFile):
        return str(exc.strerror)
    return f"unreadable ({exc.strerror or type(exc).__name__})"


class Follower:
    """Incremental line reader of one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.identity: tuple[int, int] | None = None
        self.bytes_read = 0  # bytes read by the last read_lines / read_all (tests, bench)
        self.overlong = 0  # lines dropped for exceeding MAX_LINE, not yet taken by the caller
        #: Why the file cannot be read now ("not a regular file (a FIFO)", "unreadable (Permission denied)"), or None.
        self.problem: str | None = None
        self.reset()

    def reset(self) -> None:
        """Forget the position: the next read starts again from byte zero."""
        self.offset = 0  # bytes consumed (complete lines + the held start of the next one)
        self.identity = None
        self._held: list[bytes] = []  # the start of an incomplete last line
        self._held_size = 0
        self._discarding = False  # inside an over-long line: drop bytes up to its newline

    @property
    def exists(self) -> bool:
        return self.identity is not None

    def check(self) -> bool:
        """Stat the file; return True when it shrank or was replaced (state was reset)."""
        self.bytes_read = 0
        try:
            st = os.stat(self.path)
        except OSError as exc:
            self.problem = None if isinstance(exc, FileNotFoundError) else _unreadable(exc)
            st = None
        kind = None if st is None else special_kind(st.st_mode)
        if kind is not None:
            self.problem = f"not a regular file ({kind})"
        if st is None or kind is not None:
            if self.identity is not None:
                self.reset()
                return True
            return False
        identity = (st.st_dev, st.st_ino)
        if self.identity is not None and (identity != self.identity or st.st_size < self.offset):
            self.reset()
            self.identity = identity
            return True
        self.identity = identity
        return False

    def take_overlong(self) -> int:
        """Over-long lines dropped since the last call."""
        count, self.overlong = self.overlong, 0
        return count

    def read_lines(self) -> Iterator[bytes]:
        """Yield the complete lines appended since the last call (ending in b"\\n").

        Reads go through a ``CHUNK``-byte buffer with ``readline(CHUNK)``, so a
        line longer than that arrives in pieces that are held and joined; the
        C-level readline is several times faster than splitting chunks here.
        The position is the file's (``tell()``), written back as the loop ends
        or the caller drops the iterator: no count per line (a 100 MB
        transcript has 270k lines).
        """
        self.bytes_read = 0
        if self.identity is None:
            return
        try:
            fh = open_regular(self.path, buffering=CHUNK)
        except OSError as exc:
            self.problem = _unreadable(exc)
            return
        self.problem = None
        with fh:
            try:
                fh.seek(self.offset)
                if self.offset == 0 and fh.read(len(BOM)) != BOM:
                    fh.seek(0)  # no byte-order mark to step over
                elif self.offset == 0:
                    self.offset = self.bytes_read = len(BOM)
            except OSError:
                return
            start = self.offset
            partial_line = bool(self._held) or self._discarding  # a line began in an earlier read
            try:
                for line in iter(partial(fh.readline, CHUNK), b""):
                    if line[-1] == 10 and not partial_line:
                        yield line  # the common case: a whole line
                        continue
                    partial_line = not line.endswith(b"\n")
                    if not partial_line:
                        if self._discarding:
                            self._discarding = False  # the end of an over-long line
                            continue
                        self._held.append(line)
                        line = b"".join(self._held)
                        self._held, self._held_size = [], 0
                        yield line
                    elif not self._discarding:  # a piece of a long line, or the end of the file
                        self._held.append(line)
                        self._held_size += len(line)
                        if self._held_size > MAX_LINE:
                            self._held, self._held_size = [], 0
                            self._discarding = True
                            self.overlong += 1
            except OSError:
                return
            finally:
                try:
                    offset = fh.tell()  # the bytes consumed: whole lines yielded and the held start of the next
                except (OSError, ValueError):
                    offset = start
                self.offset = offset
                self.bytes_read += offset - start

    def read_all(self) -> bytes | None:
        """The whole file (for whole-document formats), or None when unreadable."""
        try:
            with open_regular(self.path) as fh:
                data = fh.read()
        except OSError as exc:
            self.problem = _unreadable(exc)
            return None
        self.problem = None
        self.offset = len(data)
        self.bytes_read = len(data)
        return data.removeprefix(BOM)
