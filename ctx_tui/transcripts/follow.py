"""Follow a growing file: read only the bytes appended since the last poll.

A :class:`Follower` keeps its byte offset and the file's identity (device,
inode). Each :meth:`Follower.read_lines` reads what was appended, in chunks of
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
        self.partial = b""
        self.bytes_read = 0  # bytes read by the last read_lines (for tests and the bench)

    @property
    def exists(self) -> bool:
        return self.identity is not None

    def check(self) -> bool:
        """Stat the file; return True when it shrank or was replaced (state was reset)."""
        try:
            st = os.stat(self.path)
        except OSError:
            if self.identity is not None:
                self._reset()
                return True
            return False
        identity = (st.st_dev, st.st_ino)
        if self.identity is not None and (identity != self.identity or st.st_size < self.offset):
            self._reset()
            self.identity = identity
            return True
        self.identity = identity
        return False

    def _reset(self) -> None:
        self.offset = 0
        self.partial = b""
        self.identity = None

    def size(self) -> int:
        try:
            return os.stat(self.path).st_size
        except OSError:
            return 0

    def read_lines(self) -> Iterator[bytes]:
        """Yield the complete lines appended since the last call (without b"\\n")."""
        self.bytes_read = 0
        if self.identity is None:
            return
        try:
            fh = open(self.path, "rb", buffering=0)
        except OSError:
            return
        with fh:
            try:
                fh.seek(self.offset)
            except OSError:
                return
            while True:
                try:
                    chunk = fh.read(CHUNK)
                except OSError:
                    return
                if not chunk:
                    return
                self.offset += len(chunk)
                self.bytes_read += len(chunk)
                start = 0
                end = chunk.find(b"\n")
                if end < 0:
                    self.partial += chunk
                    continue
                if self.partial:
                    yield self.partial + chunk[:end]
                    self.partial = b""
                    start = end + 1
                while True:
                    end = chunk.find(b"\n", start)
                    if end < 0:
                        break
                    yield chunk[start:end]
                    start = end + 1
                self.partial = chunk[start:]

    def read_all(self) -> bytes | None:
        """The whole file (for whole-document formats), or None when unreadable."""
        try:
            data = self.path.read_bytes()
        except OSError:
            return None
        self.offset = len(data)
        self.bytes_read = len(data)
        return data
