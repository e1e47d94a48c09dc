"""The peak a Claude Code session's window depends on, found in the bytes of its file.

A Claude Code session whose context went past 200,000 tokens runs with a 1M
window (:func:`ctx_tui.model_windows.table_window`: 1M when the largest context
reported lies in (CLAUDE_WINDOW, CLAUDE_1M_WINDOW]), so the window of a session
read from its end (:mod:`ctx_tui.usage_tail`) depends on every usage report
before that end. A whole read parses every row for it; :func:`claude_peak`
reads the bytes instead and parses only the rows that may change the window:

* every ``"usage"`` in the file is found with a SIMD substring search
  (stringzilla). Where it opens an object in the shape Claude Code writes (its
  three context fields first, in that order, then other keys only, in any JSON
  spacing), one compiled regular expression reads the three figures: a report
  whose total is in no higher window class than one already found (200,000 or
  less, to begin with) cannot change the window, and is skipped unparsed;
* the line of any other ``"usage"`` (another key order, a float, a nested or
  a value ``"usage"``), and any line that may spell that key with ``\\u``
  escapes, is read as a whole read reads it: the reader's ``prepare``, orjson,
  the row shape, the Claude reader (main chain, no API error, plausible
  figures) into a scratch transcript;
* a line a whole read drops as over-long is left out.

The scan stops at the first report past CLAUDE_1M_WINDOW: no other can change
the window then.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import stringzilla

from ctx_tui.model_windows import CLAUDE_1M_WINDOW, CLAUDE_WINDOW
from ctx_tui.transcripts.blocks import line_blocks
from ctx_tui.transcripts.follow import BOM
from ctx_tui.transcripts.model import Format
from ctx_tui.transcripts.reader import TranscriptReader

_KEY = b'"usage"'
#: JSON whitespace within a line.
_WS = rb"[ \t\r]*"
#: A string without escapes.
_STRING = rb'"[^"\\\n]*"'
#: A value: a number, a string without escapes, a literal, or an object of such values.
_VALUE = rb"(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|" + _STRING + rb"|true|false|null|\{[^{}\"\n]*(?:" + _STRING + rb"[^{}\"\n]*)*\})"
_CONTEXT_KEYS = (b"input_tokens", b"cache_creation_input_tokens", b"cache_read_input_tokens")


def _field(key: bytes) -> bytes:
    return _WS + b'"' + key + b'"' + _WS + b":" + _WS + rb"(\d{1,19})" + _WS


#: A usage object as Claude Code writes it: the three context fields first, each a whole integer,
#: then only keys other than those three (so that no later duplicate overrides them) to its end.
_USAGE = re.compile(
    _KEY + _WS + b":" + _WS + rb"\{"
    + b",".join(_field(key) for key in _CONTEXT_KEYS)
    + rb"(?:," + _WS + rb'(?!"(?:' + b"|".join(_CONTEXT_KEYS) + rb')")' + _STRING + _WS + b":" + _WS + _VALUE + _WS + rb")*\}"
)
#: ``\\u00XX`` escapes of the letters of ``usage``: a key that decodes to "usage" without being the bytes ``"usage"``.
_ESCAPE = b"\\u00"
_ESCAPED_LETTERS = (b"75", b"73", b"61", b"67", b"65")


def _ceiling(tokens: int) -> int:
    """The largest report in the window class of ``tokens`` that ``table_window`` tells apart (up to CLAUDE_WINDOW,
    up to CLAUDE_1M_WINDOW); a report above it may change the window."""
    return CLAUDE_WINDOW if tokens <= CLAUDE_WINDOW else CLAUDE_1M_WINDOW


def claude_peak(path: Path, end: int, lead: Sequence[bytes]) -> int:
    """A context a whole read takes as reported over the file's first ``end`` bytes, in the window class of their peak.

    0 when none passes CLAUDE_WINDOW; else one that does, and one past
    CLAUDE_1M_WINDOW when any is. ``end`` is a line start; ``lead``: rows the
    scratch reader is fed before each row it parses (a stand-in for the file's
    first turn, which decides whether sidechain rows are its main chain).
    Raises ``OSError`` when the file cannot be read.
    """
    best = 0
    ceiling = _ceiling(best)
    find, match = stringzilla.find, _USAGE.match
    for offset, buf, first, size in line_blocks(path, end):
        parsed: set[int] = set()  # line starts in this block: each line is parsed at most once

        def take(at: int) -> bool:
            """Parse the line around ``buf[at]`` (once) and keep its report if it raises the class; True past 1M."""
            nonlocal best, ceiling
            start = buf.rfind(b"\n", first, at) + 1 or first
            if start not in parsed:
                parsed.add(start)
                line = bytes(buf[start : buf.find(b"\n", at, size)])
                reported = _reported(path, lead, line.removeprefix(BOM) if offset + start == 0 else line)
                if reported > ceiling:
                    best, ceiling = reported, _ceiling(reported)
            return best > CLAUDE_1M_WINDOW

        at = find(buf, _KEY, first, size)
        while at >= 0:
            shaped = match(buf, at)  # (it cannot run past the line: nothing it matches is a newline)
            if (shaped is None or int(shaped[1]) + int(shaped[2]) + int(shaped[3]) > ceiling) and take(at):
                return best
            at = find(buf, _KEY, at + 7, size)  # 7: len(_KEY)
        at = find(buf, _ESCAPE, first, size)
        while at >= 0:
            if bytes(buf[at + 4 : at + 6]) in _ESCAPED_LETTERS and take(at):
                return best
            at = find(buf, _ESCAPE, at + 4, size)  # 4: len(_ESCAPE)
    return best


def _reported(path: Path, lead: Sequence[bytes], line: bytes) -> int:
    """The largest context a whole read takes as reported from ``line`` (after ``lead``)."""
    reader = TranscriptReader(path)
    reader.read_lines_as(Format.CLAUDE_CODE, [*lead, line])
    return reader.transcript.peak_usage
