"""A transcript's current usage figure from its tail, and kept up to date from appended bytes.

The full readers (:mod:`ctx_tui.transcripts.reader`) build every entry of a
session; the status line and the session picker only need the usage figure
(docs/transcripts.md#context-usage), the model and a few ids, on every call
and for a thousand files. So:

* :func:`read_tail` reads a file *backwards* in blocks until it holds the row
  that decides the figure, then scans forward from there:

  - Claude Code: the last main-chain (not ``isSidechain``), non-error, non-
    ``<synthetic>`` assistant row with ``message.usage`` (its ``input +
    cache_creation + cache_read`` tokens; rows sharing a ``message.id`` carry
    the same usage, the last one wins as in the full reader) — unless a
    ``compact_boundary`` comes after it: then nothing is reported since the
    compaction and the figure is an estimate (characters of the text after
    the boundary / 4).
  - Codex: the last ``event_msg`` ``token_count`` with an ``info`` object
    (``last_token_usage.total_tokens``, ``model_context_window``), unless a
    ``compacted`` row comes after it: then, as for Claude Code, the figure is
    an estimate (characters of the replacement history, of the encrypted
    summary's size and of the items after it / 4). The model comes from the
    last ``turn_context``.

* :class:`TailScan` is the forward scanner both use; its :meth:`state` is a
  small JSON-able dict, so a caller can keep it with the byte offset it was
  read to and feed only the bytes appended since (see ``ctx_tui.statusline``).

Only lines that can matter are parsed (a byte test first). A half-written last
line is never read: the offset stops at the last newline. The module imports
nothing but ``os``, ``stat`` and :mod:`ctx_tui.json_light` (json's own
answers without its ``re``): ``ctx-tui statusline`` runs it on every message
Claude Code shows.

Over 400 lines: the deciding rows of two formats, read backwards and then followed, must give
the full readers' figures exactly; split, one rule would live in two places.
"""

from __future__ import annotations

import os
import stat

from ctx_tui import json_light

TYPE_CHECKING = False  # typing is not imported at run time (~4 ms): ctx-tui statusline imports this module
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

CLAUDE = "claude"
CODEX = "codex"
#: The transcript format's value (ctx_tui.transcripts.model.Format) of each.
FORMAT_VALUES = {CLAUDE: "claude-code", CODEX: "codex"}
#: Bytes read backwards per step; the block doubles up to MAX_BLOCK.
FIRST_BLOCK = 16 << 10
MAX_BLOCK = 4 << 20
#: A cold read looks at most this far back for the deciding row (then it gives up: no figure).
MAX_TAIL = 64 << 20
#: Reads forward in chunks of this size.
READ_CHUNK = 1 << 20
#: The first line (Codex session_meta) is read for its ids up to this size.
HEAD_LIMIT = 1 << 20
#: Bytes before the cached offset compared by :func:`follow_tail`: a rewrite of the file is read cold.
FINGERPRINT = 64
#: Characters per token for the estimate after a compaction with no usage since.
CHARS_PER_TOKEN = 4
_SYNTHETIC = "<synthetic>"
_CLAUDE_USAGE_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
#: As ctx_tui.transcripts.builder (not imported: the status line imports only this module):
#: a usage figure above USAGE_WINDOWS_CAP windows is implausible and ignored; no window is above MAX_WINDOW.
USAGE_WINDOWS_CAP = 10
MAX_WINDOW = 10_000_000
_CODEX_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
_CLAUDE_TYPES = frozenset({"user", "assistant", "system", "summary"})


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _field(value: Any) -> int:
    """A usage field as the full readers take it: an int as it is (checked by :func:`_plausible`), anything else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _plausible(*figures: int, window: int | None) -> bool:
    """The full readers' rule (``Transcript.plausible``): every figure in [0, USAGE_WINDOWS_CAP x window]."""
    cap = USAGE_WINDOWS_CAP * (window or MAX_WINDOW)
    return all(0 <= f <= cap for f in figures)


def codex_context_reading(last: dict[str, Any]) -> bool:
    """Whether a Codex ``last_token_usage`` measures a request's context.

    Codex writes a ``token_count`` whose total (940,499 on a 258,400 window in a
    real rollout) stands on an input and an output of 0 as it compacts: that is no
    request's context, and showing it put the gauge at 364% until the next reply.
    """
    total = last.get("total_tokens")
    return not (isinstance(total, int) and total > 0 and last.get("input_tokens") == 0 and last.get("output_tokens") == 0)


def _text_chars(content: Any) -> int:
    """Characters of text in a message's content (strings, text/thinking blocks, tool results)."""
    if isinstance(content, str):
        return len(content)
    total = 0
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict):
                for key in ("text", "thinking", "content", "input"):
                    value = block.get(key)
                    if isinstance(value, str):
                        total += len(value)
                    elif isinstance(value, (list, dict)):
                        total += _text_chars(value if isinstance(value, list) else [value])
            elif isinstance(block, str):
                total += len(block)
    return total


def sealed_chars(token: str) -> int:
    """The size of the text in a Codex ``compaction`` item's ``encrypted_content``, from the ciphertext's length.

    The server returns its summary as a Fernet token (base64 of a 57-byte
    envelope and the AES-CBC ciphertext, padded to 16 bytes): the plaintext
    is the decoded length less the envelope, within 16 bytes. Unmeasured: whether
    the server compresses the text before encrypting it (then it is longer).
    """
    return max(0, len(token) * 3 // 4 - 57)


def _codex_compacted_chars(payload: dict[str, Any]) -> int:
    """Characters a Codex ``compacted`` row puts in the window: its message, the replacement history's
    messages and the encrypted summary's size."""
    total = len(payload["message"]) if isinstance(payload.get("message"), str) else 0
    history = payload.get("replacement_history")
    for item in history if isinstance(history, list) else []:
        if isinstance(item, dict) and item.get("type") == "message":
            total += _text_chars(item.get("content"))
        elif isinstance(item, dict) and item.get("type") == "compaction" and isinstance(item.get("encrypted_content"), str):
            total += sealed_chars(item["encrypted_content"])
    return total


class TailScan:
    """The usage figure of a transcript, from lines fed in file order."""

    __slots__ = (
        "format", "context_tokens", "window", "model", "session_id", "cwd",
        "compacted", "estimate_chars", "last_timestamp", "usage_seen", "compactions", "peak",
    )

    def __init__(self, state: dict[str, Any] | None = None) -> None:
        state = state or {}
        self.format: str | None = state.get("format")
        #: Reported context tokens in force, or None (nothing reported, or a compaction since).
        self.context_tokens: int | None = state.get("context_tokens")
        self.window: int | None = state.get("window")  # stated by the transcript (Codex)
        self.model: str | None = state.get("model")
        self.session_id: str | None = state.get("session_id")
        self.cwd: str | None = state.get("cwd")
        self.compacted: bool = bool(state.get("compacted"))  # a compaction after the last usage
        self.estimate_chars: int = int(state.get("estimate_chars") or 0)
        self.last_timestamp: str | None = state.get("last_timestamp")
        self.usage_seen: bool = bool(state.get("usage_seen"))
        #: Compactions seen by this scan (a cold read sees only those in its tail).
        self.compactions: int = int(state.get("compactions") or 0)
        #: The largest usage reported in what was fed (a cold read feeds only the tail: a lower bound).
        self.peak: int = int(state.get("peak") or 0)

    def state(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    @property
    def estimated(self) -> bool:
        return self.context_tokens is None

    @property
    def tokens(self) -> int:
        """The figure: reported tokens, else the estimate."""
        if self.context_tokens is not None:
            return self.context_tokens
        return self.estimate_chars // CHARS_PER_TOKEN

    # -- feeding --------------------------------------------------------------------------
    def feed(self, line: bytes) -> None:
        """One complete line of the transcript (the newline may be there or not)."""
        row = None
        if self.format is None:
            row = _loads(line)
            if isinstance(row, dict):
                kind = row.get("type")
                if "payload" in row and kind in _CODEX_TYPES:
                    self.format = CODEX
                elif kind in _CLAUDE_TYPES or "sessionId" in row:
                    self.format = CLAUDE
            if self.format is None:
                return
        if self.format == CODEX:
            self._codex(line, row)
        else:
            self._claude(line, row)

    def _claude(self, line: bytes, row: Any = None) -> None:
        usage_row = b'"usage"' in line and b'"assistant"' in line
        boundary = b'"compact_boundary"' in line
        counts = self.compacted and (b'"type":"user"' in line or b'"type":"assistant"' in line)
        stamp = b'"timestamp"' in line
        if row is None:
            if not (usage_row or boundary or counts or stamp or self.session_id is None):
                return
            row = _loads(line)
        if not isinstance(row, dict):
            return
        if isinstance(row.get("timestamp"), str):
            self.last_timestamp = row["timestamp"]
        if row.get("isSidechain"):
            return
        if self.session_id is None and isinstance(row.get("sessionId"), str):
            self.session_id = row["sessionId"]
        if isinstance(row.get("cwd"), str):
            self.cwd = row["cwd"]
        kind = row.get("type")
        if kind == "system" and row.get("subtype") == "compact_boundary":
            self.compacted = True
            self.compactions += 1
            self.context_tokens = None
            self.estimate_chars = 0
            return
        message = row.get("message")
        if not isinstance(message, dict):
            return
        if kind == "assistant":
            model = message.get("model")
            error = bool(row.get("isApiErrorMessage")) or model == _SYNTHETIC
            usage = message.get("usage")
            if not error and isinstance(model, str) and model:
                self.model = model
            if not error and isinstance(usage, dict):
                fields = [_field(usage.get(k)) for k in _CLAUDE_USAGE_KEYS]
                context = fields[0] + fields[1] + fields[2]
                if not _plausible(context, *fields, window=None):
                    return  # ignored, as the full reader ignores it
                self.context_tokens = context
                self.usage_seen = True
                self.compacted = False
                self.estimate_chars = 0
                return
        if self.compacted and kind in ("user", "assistant"):
            self.estimate_chars += _text_chars(message.get("content"))

    def _codex(self, line: bytes, row: Any = None) -> None:
        if row is None:
            if b'"token_count"' in line:
                if b'"info":null' in line:
                    return
            elif not (
                b'"turn_context"' in line or b'"session_meta"' in line or b'ompacted"' in line
                or (self.compacted and b'"response_item"' in line)
            ):
                return
            row = _loads(line)
        if not isinstance(row, dict) or not isinstance(row.get("payload"), dict):
            return
        payload = row["payload"]
        if isinstance(row.get("timestamp"), str):
            self.last_timestamp = row["timestamp"]
        kind = row.get("type")
        if kind == "session_meta":
            if isinstance(payload.get("id"), str):
                self.session_id = payload["id"]
            if isinstance(payload.get("cwd"), str):
                self.cwd = payload["cwd"]
        elif kind == "turn_context":
            if isinstance(payload.get("model"), str):
                self.model = payload["model"]
            if isinstance(payload.get("cwd"), str):
                self.cwd = payload["cwd"]
        elif kind == "compacted":
            self.compactions += 1
            self.compacted = True
            self.context_tokens = None
            self.estimate_chars = _codex_compacted_chars(payload)
        elif kind == "response_item" and self.compacted:
            self.estimate_chars += _text_chars([payload])
        elif kind == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info")
            last = info.get("last_token_usage") if isinstance(info, dict) else None
            if isinstance(last, dict):
                window = info.get("model_context_window")
                window = window if _int(window) and window <= MAX_WINDOW else None
                figures = [_field(last.get(k)) for k in ("total_tokens", "output_tokens", "input_tokens", "cached_input_tokens")]
                if not _plausible(*figures, window=window or self.window) or not codex_context_reading(last):
                    return
                self.context_tokens = figures[0]
                self.usage_seen = True
                self.compacted = False
                self.estimate_chars = 0
                if window:
                    self.window = window

    def decided(self) -> bool:
        """Whether what was fed holds the row that decides the figure (see the module doc)."""
        if self.format == CODEX:
            return (self.usage_seen or self.compacted) and self.model is not None
        return self.usage_seen or self.compacted


def _loads(line: bytes) -> Any:
    try:
        return json_light.loads(line)
    except ValueError:  # not JSON, or not UTF-8
        return None


def feed_bytes(scan: TailScan, data: bytes) -> int:
    """Feed the complete lines of ``data``; returns how many bytes they took (a partial last line is left)."""
    end = data.rfind(b"\n") + 1
    if end:
        for line in data[:end].split(b"\n"):
            if line.strip():
                scan.feed(line)
    return end


def lines_backward(fh: Any, size: int, limit: int = MAX_TAIL) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` of the complete lines of ``fh`` from the last one back, at most ``limit`` bytes back.

    Bytes after the last newline (a line being written) are not a line yet.
    """
    pos = size
    block = FIRST_BLOCK
    carried = b""  # the cut start of the last line seen, completed by the next block
    while pos > 0 and size - pos < limit:
        step = min(block, pos)
        pos -= step
        fh.seek(pos)
        data = fh.read(step) + carried
        if pos == size - step:  # the first block: drop a trailing partial line
            data = data[: data.rfind(b"\n") + 1]
        cut = data.find(b"\n") + 1 if pos else 0
        carried, data = data[:cut], data[cut:]
        end = len(data)
        while end > 0:
            start = data.rfind(b"\n", 0, end - 1) + 1
            line = data[start:end]
            if line.strip():
                yield pos + cut + start, line
            end = start
        block = min(block * 2, MAX_BLOCK)


def _deciding_start(fh: Any, size: int) -> int:
    """The offset of the line from which a forward scan sees the deciding rows (0: the whole file).

    Claude Code: the last usage row or compaction boundary. Codex: the last
    ``token_count`` with usage and the last ``turn_context`` (the model).
    """
    have_usage = have_model = False
    fmt: str | None = None
    for offset, line in lines_backward(fh, size):
        probe = TailScan({"format": fmt})
        probe.feed(line)
        fmt = probe.format
        if fmt == CLAUDE and (probe.usage_seen or probe.compacted):
            return offset
        if fmt == CODEX:
            have_usage = have_usage or probe.usage_seen or probe.compacted
            have_model = have_model or probe.model is not None
            if have_usage and have_model:
                return offset
    return 0


def read_tail(path: str | os.PathLike[str]) -> tuple[TailScan, int]:
    """A cold read of the usage figure; returns the scan and the offset read to (the end of its last complete line).

    Reads backwards to the deciding row, then forwards from it. When the
    deciding row is not within ``MAX_TAIL`` bytes of the end, the whole file is
    scanned forwards (a file with no usage at all is read once, whole).
    """
    scan, offset, _ = _read_tail(path)
    return scan, offset


def _read_tail(path: str | os.PathLike[str]) -> tuple[TailScan, int, bytes]:
    """:func:`read_tail`, and the last FINGERPRINT bytes before the offset."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        start = _deciding_start(fh, size)
        scan = TailScan()
        if start > 0:
            fh.seek(0)
            first = fh.readline(HEAD_LIMIT)
            if first.endswith(b"\n"):
                scan.feed(first)  # the session's own meta (Codex session_meta; Claude's first row)
                _forget_figures(scan)
        if start >= FINGERPRINT:
            fh.seek(start - FINGERPRINT)
            tail = fh.read(FINGERPRINT)
        else:
            fh.seek(0)
            tail = fh.read(start)
        offset, rest = start, b""
        while chunk := fh.read(READ_CHUNK):
            data = rest + chunk
            used = feed_bytes(scan, data)
            tail = (tail + data[:used])[-FINGERPRINT:]
            rest = data[used:]
            offset += used
    return scan, offset, tail


def _forget_figures(scan: TailScan) -> None:
    """After reading the first line for ids: the figures come from the tail alone."""
    scan.context_tokens = None
    scan.usage_seen = scan.compacted = False
    scan.estimate_chars = scan.compactions = scan.peak = 0


def _identity(st: os.stat_result) -> list[int]:
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def follow_tail(path: str, cached: dict[str, Any] | None) -> tuple[TailScan, dict[str, Any]]:
    """The usage figure of ``path`` and the cache entry to keep; reads only what was appended.

    The cached figure stands when the file's identity (device, inode, size,
    mtime) is unchanged; it is carried forward over the new bytes when the same
    file grew and its last bytes before the cached offset are still those read
    (a fingerprint); any other change (shrunk, replaced, rewritten in place) is
    read cold from the tail.

    ``cached``: the entry a previous call returned (or None); entries are small
    JSON-able dicts, so a caller may keep them on disk (the status line) or in
    memory (the session picker). Raises OSError when the file cannot be read
    or is not a regular file (a FIFO would block).
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):  # a FIFO would block, a device never ends
        raise OSError(f"{path}: not a regular file")
    ident = _identity(st)
    if isinstance(cached, dict) and cached.get("path") == path:
        if cached.get("identity") == ident:
            return TailScan(cached.get("scan")), cached
        old = cached.get("identity")
        offset = cached.get("offset")
        # Same file, grown (a change without growth rewrote it: read it cold).
        if (
            isinstance(old, list) and len(old) == 4 and old[:2] == ident[:2] and st.st_size > old[2]
            and isinstance(offset, int) and 0 <= offset <= st.st_size
        ):
            with open(path, "rb") as fh:
                start = max(0, offset - FINGERPRINT)
                fh.seek(start)
                data = fh.read(st.st_size - start)
            if data[: offset - start].hex() == cached.get("fingerprint"):
                scan = TailScan(cached.get("scan"))
                used = feed_bytes(scan, data[offset - start :])
                return scan, _entry(path, ident, offset + used, data[: offset - start + used][-FINGERPRINT:], scan)
    scan, offset, fingerprint = _read_tail(path)
    return scan, _entry(path, ident, offset, fingerprint, scan)


def _entry(path: str, ident: list[int], offset: int, fingerprint: bytes, scan: TailScan) -> dict[str, Any]:
    return {"path": path, "identity": ident, "offset": offset, "fingerprint": fingerprint.hex(), "scan": scan.state()}
