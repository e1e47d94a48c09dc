"""One transcript file, followed as it grows: bytes -> lines -> rows -> entries.

:class:`TranscriptReader` detects the format from the content (never from the
file name): the first row some format of ``ctx_tui.transcripts.formats.FORMATS``
recognises decides it, and every appended line is then fed to that format's
:class:`~ctx_tui.transcripts.formats.RowReader`. A file that starts with ``[``
(or a pretty-printed ``{"messages": [...]}`` object) is a whole-document
generic chat: it is re-read whenever it changes.

Lines that are not JSON objects, not UTF-8, not of the row shape every reader
expects (:func:`~ctx_tui.transcripts.rows.row_shape_ok`: ``{"type": []}`` is
valid JSON but no row) or not understood by the detected reader are counted in
``skipped`` and never stop the reading.
"""

from __future__ import annotations

import gc
import itertools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from ctx_tui.storage import open_regular
from ctx_tui.transcripts.builder import Transcript
from ctx_tui.transcripts.claude import ClaudeReader
from ctx_tui.transcripts.follow import BOM, Follower
from ctx_tui.transcripts.formats import (
    DOCUMENT_KEYS,
    SPECS,
    RowReader,
    detect_row,
    is_subagent_file,
    split_document,
    unsupported_message,
)
from ctx_tui.transcripts.model import Format
from ctx_tui.transcripts.rows import row_shape_ok

_MALFORMED = object()
#: How far to look for the end of the first line when telling JSONL from a JSON document.
_FIRST_LINE_LIMIT = 4 << 20
#: How much of an unrecognised first row the unsupported-input message shows.
_EXCERPT_CHARS = 100
#: A file with at least this many skipped lines, more than it has rows read, is mostly unreadable.
_MOSTLY_SKIPPED = 10


def _excerpt(line: bytes) -> str:
    """The start of a row, as one printable line (for the unsupported-input message)."""
    text = line.decode("utf-8", "replace").strip()
    text = "".join(c if c.isprintable() else " " for c in text)
    return repr(text[:_EXCERPT_CHARS] + ("…" if len(text) > _EXCERPT_CHARS else ""))


class TranscriptReader:
    """Reads one transcript file incrementally into a :class:`Transcript`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.follower = Follower(path)
        self.document_mode = False
        self._doc_size = -1
        self._doc_mtime = -1.0
        self._clear()

    def _clear(self) -> None:
        self.format: Format | None = None
        self.transcript = Transcript(Format.GENERIC)
        self._reader: RowReader | None = None
        self.rows_read = 0  # rows a reader accepted
        self._first_row: str | None = None  # an excerpt of the first non-blank line, for the unsupported message
        self._subagents: dict[Path, tuple[Follower, ClaudeReader]] = {}

    @property
    def exists(self) -> bool:
        return self.follower.exists

    @property
    def unsupported(self) -> str | None:
        """Why the file cannot be read as a transcript, or None when it can (or is still empty).

        No reader recognised any row, or the lines skipped outnumber the rows read.
        """
        skipped = self.transcript.skipped
        if not skipped:
            return None
        if self.rows_read == 0 and not self.transcript.entries:
            return unsupported_message(self._first_row)
        if skipped >= _MOSTLY_SKIPPED and skipped > self.rows_read:
            label = SPECS[self.format].label if self.format is not None else "any format"
            return f"mostly unreadable as {label}: {skipped:,} lines skipped, {self.rows_read:,} rows read; first row: {self._first_row}"
        return None

    def poll(self) -> tuple[bool, int]:
        """Read what was appended. Returns (reset, entries_before_this_poll_start)."""
        reset = self.follower.check()
        if reset:
            self._clear()
            self.document_mode = False
            self._doc_size = -1
        if not self.follower.exists:
            return reset, len(self.transcript.entries)
        if self.format is None and not self.document_mode and self.follower.offset == 0:
            self.document_mode = self._starts_as_document()
        if self.document_mode:
            return self._poll_document(reset)
        before = len(self.transcript.entries)
        self._feed_lines(self.follower.read_lines())
        self.transcript.skipped += self.follower.take_overlong()
        if self.format == Format.CLAUDE_CODE and not is_subagent_file(self.path):
            if self._poll_subagents():
                self.follower.reset()
                self._clear()
                return self.poll()[0] or True, 0
        return reset, before

    def read_from(self, fmt: Format, lead: Iterable[bytes], offset: int) -> int:
        """Read ``lead`` lines, then the file from byte ``offset`` (a line start) on, as ``fmt``.

        For a tail-first read (:mod:`ctx_tui.usage_tail`), which picks
        ``offset`` so that what it needs lies after it; sub-agent files (only
        sidechain rows) are not read. Later ``poll()`` calls go on from the end.
        Returns the bytes read from the file.
        """
        self.follower.check()
        self.read_lines_as(fmt, lead)
        self.follower.offset = offset
        self._feed_lines(self.follower.read_lines())
        self.transcript.skipped += self.follower.take_overlong()
        return self.follower.bytes_read

    def read_lines_as(self, fmt: Format, lines: Iterable[bytes]) -> None:
        """Start a transcript of ``fmt`` and feed it ``lines`` (not read from the file) as a read of the file feeds its own."""
        self._choose(fmt)
        self._feed_lines(lines)

    def _poll_subagents(self) -> bool:
        """Read the session's ``<session>/subagents/agent-*.jsonl`` files as sidechain rows.

        Their entries are appended when read (ordered by read time, not by
        timestamp). Returns True when one of them shrank or was replaced: the
        caller then re-reads the whole session.
        """
        folder = self.path.with_suffix("") / "subagents"
        try:
            names = sorted(e.name for e in os.scandir(folder) if e.name.startswith("agent-") and e.name.endswith(".jsonl"))
        except OSError:
            names = []
        for name in names:
            path = folder / name
            if path not in self._subagents:
                self._subagents[path] = (Follower(path), ClaudeReader(self.transcript, sidechain=True))
        for follower, reader in self._subagents.values():
            if follower.check():
                return True
            self._feed_lines(follower.read_lines(), reader)
            self.transcript.skipped += follower.take_overlong()
        return False

    def _starts_as_document(self) -> bool:
        """True for a whole JSON document: an array, or a ``{"messages"|"loglines": [...]}`` object."""
        try:
            with open_regular(self.path) as fh:
                head = fh.read(4096)
                stripped = head.removeprefix(BOM).lstrip()
                if not stripped.startswith(b"{"):
                    return stripped.startswith(b"[")
                while b"\n" not in stripped and len(stripped) < _FIRST_LINE_LIMIT:
                    more = fh.read(1 << 16)
                    if not more:
                        break
                    stripped += more
        except OSError:
            return False
        first = stripped.partition(b"\n")[0]
        try:
            row = orjson.loads(first)
        except orjson.JSONDecodeError:
            # a pretty-printed {"messages": [...]} or {"loglines": [...]} document
            return any(f'"{key}"'.encode() in stripped for key in DOCUMENT_KEYS)
        return split_document(row) is not None and (isinstance(row, list) or not ({"type", "role"} & row.keys()))

    def _poll_document(self, reset: bool) -> tuple[bool, int]:
        try:
            st = self.path.stat()
        except OSError:
            return reset, len(self.transcript.entries)
        if st.st_size == self._doc_size and st.st_mtime == self._doc_mtime:
            return reset, len(self.transcript.entries)
        data = self.follower.read_all()
        if data is None:
            return reset, len(self.transcript.entries)
        had = bool(self.transcript.entries) or self._doc_size >= 0
        self._doc_size, self._doc_mtime = st.st_size, st.st_mtime
        self._clear()  # a fresh transcript: the whole document is read again
        try:
            parts = split_document(orjson.loads(data))
        except orjson.JSONDecodeError:
            parts = None  # half-written: count it and wait for the next change
        if parts is None:
            self._choose(Format.GENERIC)
            self.transcript.skipped += 1
            return reset or had, 0
        header, rows = parts
        spec = detect_row(header) or next((s for row in rows if (s := detect_row(row)) is not None), None)
        self._choose(spec.format if spec is not None else Format.GENERIC)
        if rows and self._first_row is None:
            self._first_row = _excerpt(orjson.dumps(rows[0]) if not isinstance(rows[0], str) else rows[0].encode())
        reader = self._reader
        assert reader is not None
        for row in ([header] if header and spec is not None and spec.recognises(header) else []) + rows:
            try:
                accepted = row_shape_ok(row) and reader.feed(row)
            except (TypeError, ValueError, AttributeError, KeyError):
                accepted = False  # a row of an unexpected shape: counted, never fatal
            if accepted:
                self.rows_read += 1
            else:
                self.transcript.skipped += 1
        return reset or had, 0

    def _choose(self, fmt: Format) -> None:
        self.format = fmt
        skipped = self.transcript.skipped
        self.transcript = Transcript(fmt)
        self.transcript.skipped = skipped
        self._reader = SPECS[fmt].reader(self.transcript, self.path)

    def _feed_lines(self, lines: Iterable[bytes], reader: RowReader | None = None) -> None:
        """Feed ``lines`` with the cyclic garbage collector paused.

        Reading allocates one dict per row and keeps one entry per message:
        on a 100 MB transcript the collector's passes over the growing set of
        live objects cost a fifth of the read, and parsed rows hold no cycles.
        """
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            self._feed(lines, reader)
        finally:
            if paused:
                gc.enable()

    def _feed(self, lines: Iterable[bytes], fixed: RowReader | None) -> None:
        """Feed ``lines`` to ``fixed``, or to the file's reader (chosen by the first row that says).

        A reader with its own line loop (``feed_lines``) takes the lines once
        the format is known and the first row's excerpt taken.
        """
        rest: Iterator[bytes] = iter(lines)
        if (fixed or self._reader) is None:
            self._feed_rows(rest, None)
        reader = fixed or self._reader
        feed_lines = getattr(reader, "feed_lines", None)
        if feed_lines is None:
            self._feed_rows(rest, fixed)
            return
        if self._first_row is None:
            for line in rest:
                if line.strip():
                    self._first_row = _excerpt(line[:400])
                    rest = itertools.chain((line,), rest)
                    break
        read, skipped = feed_lines(rest)
        self.rows_read += read
        self.transcript.skipped += skipped

    def _feed_rows(self, lines: Iterator[bytes], fixed: RowReader | None) -> None:
        """Feed ``lines`` one by one; without a reader, stop after the row that chose one with a line loop."""
        loads = orjson.loads
        t = self.transcript
        for line in lines:
            reader = fixed or self._reader
            if self._first_row is None and line.strip():
                self._first_row = _excerpt(line[:400])
            data = line if reader is None else reader.prepare(line)
            if data is None:
                continue
            try:
                row = loads(data)
            except orjson.JSONDecodeError:
                row = _MALFORMED
                if data is not line:  # the trimmed form did not parse: try the whole line
                    try:
                        row = loads(line)
                    except orjson.JSONDecodeError:
                        pass
            if row is _MALFORMED:
                if line.strip():  # blank lines are not errors
                    t.skipped += 1
                continue
            if not row_shape_ok(row):
                t.skipped += 1
                continue
            if reader is None:
                spec = detect_row(row)
                if spec is None:
                    t.skipped += 1
                    continue
                self._choose(spec.format)
                reader = self._reader
                assert reader is not None
                t = self.transcript
                stop = hasattr(reader, "feed_lines")
            else:
                stop = False
            try:
                if reader.feed(row):
                    self.rows_read += 1
                else:
                    t.skipped += 1
            except (TypeError, ValueError, AttributeError, KeyError):
                t.skipped += 1  # a row of an unexpected shape: counted, never fatal
            if stop:
                return
