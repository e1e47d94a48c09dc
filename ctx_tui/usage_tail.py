"""The usage figure of a session from the end of its transcript, exactly as a whole read gives it.

The figure a statusline or ``ctx-tui stats`` shows depends only on the end of
the file: the last main-chain usage report after the last compaction (or, with
none after it, the live window that starts at that compaction). Rows are
written in order, so scanning backwards from the end finds that point after a
few rows, whatever the file's size.

:func:`read_usage_tail` does that: it walks lines backwards from the end (whole
lines only: a half-written last line is left for later, as the incremental
reader does), stops at the first line that *may* be a usage report or a
compaction (a byte test: it works on compact and on spaced JSON), and reads
from there to the end with the ordinary reader of the format. When that read
has a reported usage, or a compaction (the live window then lies entirely in
what was read), its figures are those of a whole read; otherwise the candidate
was not one (a sidechain row, say) and the walk goes on, to a candidate at least
twice as far from the end (so the reads stay linear in what the figure needs). The rows that carry
session facts (Claude's first ``sessionId``; Codex's last ``session_meta``,
``turn_context`` and ``task_started``) are fed to the reader first, so the
model, window and session id are also those of a whole read. A Claude window
from the model table depends on the session's peak (past 200,000 tokens: 1M),
so when nothing else decides the window (Claude Code's own report, the config)
the reports before that point are found in the file's bytes
(:func:`ctx_tui.usage_peak.claude_peak`). A file too small to bother, a
whole-JSON-document chat, a file with no usage report near its end, or a
format without reported usage is read whole: the result is always the same as
:class:`~ctx_tui.window.Session` gives (tests/test_usage_tail.py checks this
on every fixture cut at many points).

What it cannot give: whole-session counts (rounds, entries, compactions,
skipped lines). Read the whole file (``Session``) for those.

It runs the ordinary readers (orjson, the config model): for a caller that
must start in a few milliseconds and can live with an estimate after a
compaction, a byte-level scan without those imports is the other trade-off.

Usage::

    usage = read_usage_tail(path, config)  # a TailUsage
    usage.context_tokens, usage.context_window, usage.usage_pct, usage.usage_source
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import stringzilla

from ctx_tui.storage import open_regular
from ctx_tui.transcripts.blocks import line_blocks
from ctx_tui.transcripts.follow import BOM
from ctx_tui.transcripts.builder import Transcript
from ctx_tui.transcripts.formats import SPECS, RowReader, detect_row
from ctx_tui.transcripts.model import Format, SessionMeta, UsageSource
from ctx_tui.usage_peak import claude_peak
from ctx_tui.window import Session
from ctx_tui.window_state import UsageFigures, WindowSource

if TYPE_CHECKING:
    from ctx_tui.config import Config

#: Below this size the whole file is read: a tail read would save nothing worth the walk.
WHOLE_READ_BELOW = 1 << 20
#: Bytes read per step of the backward walk.
BLOCK = 1 << 18
#: How much of the file's start is searched for the row that names the format.
HEAD_LIMIT = 1 << 20

#: Bytes a line that may decide the figure contains (any JSON spacing), per format.
_CANDIDATE_MARKS: dict[Format, tuple[bytes, ...]] = {
    Format.CLAUDE_CODE: (b'"usage"', b'"compact_boundary"'),
    Format.CODEX: (b'"token_count"', b'"compacted"', b'"context_compacted"'),
}
#: Bytes of a line that may be a compaction.
_BOUNDARY_MARKS = (b'"compact_boundary"', b'"compacted"', b'"context_compacted"')
#: Codex row types whose last occurrence sets session facts (meta, model, window).
_CODEX_META_TYPES = ("session_meta", "turn_context", "task_started")


@dataclass(frozen=True, slots=True)
class TailUsage(UsageFigures):
    """The usage figure of a transcript, as a whole read would give it.

    ``bytes_read`` says how much of the file was read to get it;
    ``whole_file`` is True when the tail did not decide and the file was read whole.
    """

    path: Path
    meta: SessionMeta
    context_tokens: int
    context_window: int
    usage_source: UsageSource
    token_source: str
    autocompact_threshold: float
    bytes_read: int
    whole_file: bool
    #: Why the file is not a transcript ctx-tui reads, or None (as ``Session.unsupported``).
    unsupported: str | None = None
    window_source: WindowSource = "model table"  # as WindowState.window_source


def read_usage_tail(path: Path, config: Config | None = None, *, positions: bool = False) -> TailUsage:
    """The current usage figure of the transcript at ``path``, reading as little of its end as it can.

    Same figures as ``Session(path, config)`` after one ``poll()`` and
    ``state(positions=False)`` (see the module docstring for how); ``config``
    None means the defaults, without building the config model. Raises
    ``OSError`` when the file cannot be read; a missing or unreadable file
    reads as an empty session, as ``Session`` does. ``positions`` is passed to
    ``state()`` (True also tokenizes the live window it read).
    """
    path = Path(path)
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    fmt = _format_of(path) if size >= WHOLE_READ_BELOW else None
    marks = _CANDIDATE_MARKS.get(fmt) if fmt is not None else None
    if fmt is not None and marks is not None:
        first_turn: dict[str, Any] | None = None
        searched_first_turn = False
        reach = 0  # a failed candidate at distance d from the end: try again at 2d or more (reads stay linear)
        for start, line in _candidates(path, marks):
            if size - start < reach and not any(mark in line for mark in _BOUNDARY_MARKS):
                continue  # (a compaction is always tried: an estimate after one must start at one)
            if size - start > size // 2:
                break  # reading more than half twice costs more than one whole read
            reach = 2 * (size - start)
            session = Session(path, config)
            if fmt is Format.CLAUDE_CODE:
                if not searched_first_turn:
                    first_turn, searched_first_turn = _claude_first_turn(path, start), True
                lead = [orjson.dumps(first_turn)] if first_turn is not None else []
            else:
                lead = _codex_meta_rows(path, start)
            read = session.read_from(fmt, lead, start)
            if session.tail_decides():
                if fmt is Format.CLAUDE_CODE:
                    _claude_facts_before(session.meta, path, start, first_turn)
                    if session.peak_decides_window():  # a session past 200k runs on a 1M window
                        session.note_peak(claude_peak(path, start, lead))
                return _usage(session, positions, read, whole_file=False)
    session = Session(path, config)
    session.poll()
    return _usage(session, positions, session.bytes_read, whole_file=True)


def _usage(session: Session, positions: bool, bytes_read: int, whole_file: bool) -> TailUsage:
    state = session.state(positions=positions)
    return TailUsage(
        path=state.path,
        meta=state.meta,
        context_tokens=state.context_tokens,
        context_window=state.context_window,
        usage_source=state.usage_source,
        token_source=state.token_source,
        autocompact_threshold=state.autocompact_threshold,
        bytes_read=bytes_read,
        whole_file=whole_file,
        unsupported=session.unsupported,
        window_source=state.window_source,
    )


def _head_lines(path: Path) -> Iterator[bytes]:
    """Whole lines of the file's first ``HEAD_LIMIT`` bytes (byte-order mark dropped)."""
    with open_regular(path) as fh:
        head = fh.read(HEAD_LIMIT)
    lines = head.removeprefix(BOM).split(b"\n")
    yield from lines[:-1]  # the last piece may be cut


def _format_of(path: Path) -> Format | None:
    """The format the first recognisable row of the file names; None for a JSON document or nothing found."""
    try:
        for line in _head_lines(path):
            stripped = line.strip()
            if stripped.startswith(b"["):
                return None  # a whole-document chat: read whole
            try:
                spec = detect_row(orjson.loads(stripped))
            except orjson.JSONDecodeError:
                continue
            if spec is not None:
                return spec.format
    except OSError:
        return None
    return None


def _lines_backwards(path: Path, end: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of the file's whole lines, last first, from ``end`` (default: the last newline)."""
    with open_regular(path) as fh:
        pos = fh.seek(0, os.SEEK_END) if end is None else end
        carry = b""
        first = end is None  # the bytes after the last newline are a line still being written
        while pos > 0:
            step = min(BLOCK, pos)
            pos -= step
            fh.seek(pos)
            data = fh.read(step) + carry
            pieces = data.split(b"\n")
            carry = pieces[0]
            offset = pos + len(data)
            for piece in reversed(pieces[1:]):
                offset -= len(piece) + 1
                if first:
                    first = False
                    continue
                yield offset + 1, piece
        if carry and not first:
            yield 0, carry.removeprefix(BOM)


def _candidates(path: Path, marks: tuple[bytes, ...]) -> Iterator[tuple[int, bytes]]:
    """Lines, last first, that may be a usage report or a compaction (by their bytes alone)."""
    for offset, line in _lines_backwards(path):
        if any(mark in line for mark in marks):
            yield offset, line


def _rows_marked(path: Path, mark: bytes, end: int, backwards: bool) -> Iterator[tuple[int, bytes, dict[str, Any]]]:
    """(offset, line, parsed row) of the whole lines before ``end`` that contain ``mark``; last or first first.

    Searches large buffers for the mark (stringzilla) rather than splitting
    lines, so crossing a large file costs little more than reading it.
    """
    search = stringzilla.rfind if backwards else stringzilla.find
    for offset, buf, first, stop in line_blocks(path, end, backwards):
        lo, hi = first, stop
        while (at := search(buf, mark, lo, hi)) >= 0:
            begin = buf.rfind(b"\n", first, at) + 1 or first
            cut = buf.find(b"\n", at, stop)
            if backwards:
                hi = begin
            else:
                lo = cut + 1
            line = bytes(buf[begin:cut])
            if offset + begin == 0:
                line = line.removeprefix(BOM)
            try:
                row = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(row, dict):
                yield offset + begin, line, row


#: Claude session facts a whole read keeps from the last row that states them: (field, bytes its rows contain).
_CLAUDE_LAST_SEEN = (("model", b'"model"'), ("cwd", b'"cwd"'), ("agent_version", b'"version"'), ("git_branch", b'"gitBranch"'))


def _claude_first_turn(path: Path, end: int) -> dict[str, Any] | None:
    """A stand-in for the file's first user or assistant row: its type and ``isSidechain`` only.

    The Claude reader decides from that row whether the file is a sub-agent's
    own (its sidechain rows are then its main chain). Fed first, the stand-in
    gives a reader of the file's end the same view, and adds nothing else (no
    message, no ids).
    """
    for _offset, _line, row in _rows_marked(path, b'"type"', end, backwards=False):
        if row.get("type") in ("user", "assistant"):
            return {"type": row["type"], "isSidechain": bool(row.get("isSidechain"))}
    return None


def _claude_scratch(path: Path, first_turn: dict[str, Any] | None, session_id: str | None = None) -> tuple[Transcript, RowReader]:
    """A Claude reader into a scratch transcript, in the state a whole read has at some row."""
    scratch = Transcript(Format.CLAUDE_CODE)
    reader = SPECS[Format.CLAUDE_CODE].reader(scratch, path)
    if first_turn is not None:
        reader.feed(first_turn)
    scratch.meta.session_id = session_id
    return scratch, reader


def _claude_facts_before(meta: SessionMeta, path: Path, start: int, first_turn: dict[str, Any] | None) -> None:
    """Set what a whole read takes from the rows before ``start``: its session id, and each
    last-seen fact (model, cwd, version, branch) that no row after ``start`` stated.

    Each candidate row goes through the Claude reader itself, into a scratch
    transcript in the state a whole read would be in there (first turn seen,
    session id known or not), so which rows state a fact is decided by the one
    set of rules in ``claude.py``.
    """
    scratch, reader = _claude_scratch(path, first_turn)
    known_from = start
    for offset, _line, row in _rows_marked(path, b'"sessionId"', start, backwards=False):
        try:
            reader.feed(row)
        except (TypeError, ValueError, AttributeError, KeyError):
            continue
        if scratch.meta.session_id is not None:
            meta.session_id, known_from = scratch.meta.session_id, offset
            break
    for name, mark in _CLAUDE_LAST_SEEN:
        if getattr(meta, name) is not None:
            continue
        for offset, _line, row in _rows_marked(path, mark, start, backwards=True):
            scratch, reader = _claude_scratch(path, first_turn, meta.session_id if offset > known_from else None)
            try:
                reader.feed(row)
            except (TypeError, ValueError, AttributeError, KeyError):
                continue
            if getattr(scratch.meta, name) is not None:
                setattr(meta, name, getattr(scratch.meta, name))
                break


def _codex_meta_rows(path: Path, start: int) -> list[bytes]:
    """Codex: the last ``session_meta``, ``turn_context`` and ``task_started`` rows before ``start``, in file order.

    A whole read takes the session facts (id, cwd, model, window) from the last
    of each; they carry neither usage nor entries, so they are read first.
    """
    found: dict[str, tuple[int, bytes]] = {}
    for kind in _CODEX_META_TYPES:
        for offset, line, row in _rows_marked(path, kind.encode(), start, backwards=True):
            payload = row.get("payload")
            row_kind = payload.get("type") if row.get("type") == "event_msg" and isinstance(payload, dict) else row.get("type")
            if row_kind == kind:
                found[kind] = (offset, line + b"\n")
                break
    return [line for _offset, line in sorted(found.values())]
