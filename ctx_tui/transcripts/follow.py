"""Follow a growing file: read only the bytes appended since the last poll.

A :class:`Follower` keeps its byte offset and the file's identity (device,
inode). Each :meth:`Follower.read_lines` reads what was appended, through a buffer of
``CHUNK`` bytes so a 100 MB file never sits in one buffer, and yields complete
lines; a partial last line is held until its newline arrives. A file that
shrank or was replaced (another inode) is read again from zero, and the caller
is told (``reset``). A missing file is not an error: it yields nothing until it
appears.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

#: Bytes read per system call.
CHUNK = 1 << 20


class Follower:
    """Incremental line reader of one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0  # bytes consumed (complete lines + the held partial line)
        self.identity: tuple[int, int] | None = None
        self.partial = b""  # an incomplete last line, held until its newline arrives
        self.bytes_read = 0  # bytes consumed by the last read_lines (for tests and the bench)

    @property
    def exists(self) -> bool:
        return self.identity is not None

    def check(self) -> bool:
        """Stat the file; return True when it shrank or was replaced (state was reset)."""
        self.bytes_read = 0
        try:
            st = os.stat(self.path)
        except OSError:
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

    def reset(self) -> None:
        """Forget the position: the next read starts again from byte zero."""
        self.offset = 0
        self.partial = b""
        self.identity = None

    def size(self) -> int:
        try:
            return os.stat(self.path).st_size
        except OSError:
            return 0

    def read_lines(self) -> Iterator[bytes]:
        """Yield the complete lines appended since the last call (each ends with b"\\n").

        Lines come in batches of about ``CHUNK`` bytes from the C-level
        ``readlines``. An incomplete last line is held in ``partial`` (the offset moves
        past it) and completed by the bytes of the next read.
        """
        self.bytes_read = 0
        if self.identity is None:
            return
        try:
            fh = open(self.path, "rb", buffering=CHUNK)
        except OSError:
            return
        with fh:
            try:
                fh.seek(self.offset)
                while lines := fh.readlines(CHUNK):
                    size = sum(map(len, lines))
                    self.offset += size
                    self.bytes_read += size
                    if self.partial:
                        lines[0] = self.partial + lines[0]
                        self.partial = b""
                    if not lines[-1].endswith(b"\n"):
                        self.partial = lines.pop()
                    yield from lines
            except OSError:
                return

    def read_all(self) -> bytes | None:
        """The whole file (for whole-document formats), or None when unreadable."""
        try:
            data = self.path.read_bytes()
        except OSError:
            return None
        self.offset = len(data)
        self.bytes_read = len(data)
        return data
