"""Untrusted text made plain: no terminal escapes, no control or bidi characters.

Transcripts, tool output and user-written files can hold terminal escape
sequences (colours, OSC 8 hyperlinks, OSC 52 clipboard writes, cursor moves),
C0/C1 control characters and invisible Unicode formatting (bidi overrides,
zero-width characters, line/paragraph separators). None of it may reach a
terminal, an agent's context or a file ctx-tui writes as live bytes.

- :func:`strip_escapes` removes whole escape sequences, so their parameters
  (``31m``, a clipboard payload, a link target) do not stay behind as text;
- :func:`clean_block` keeps a multi-line text (newlines and tabs) and drops the
  rest: for text an agent reads (compressed window);
- :func:`one_line` folds a text to one bounded line: for queue items, CLI
  output, MEMORY.md bullets and comments.

The dashboard does not strip but *shows* control characters
(``ctx_tui/ui/safe.py``), so a user can see that they were there.
"""

from __future__ import annotations

import re

#: Terminal escape sequences, 7-bit (ESC ...) and 8-bit (C1) forms:
#: CSI (``ESC [`` params final), string sequences (OSC ``ESC ]``, DCS ``ESC P``,
#: SOS ``ESC X``, PM ``ESC ^``, APC ``ESC _``) up to BEL / ST — or, unterminated,
#: up to the end of the line — and every other ``ESC`` + intermediates + final byte.
ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]"
)
#: C0 controls except tab and newline, DEL and C1 controls (a lone ESC among them).
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Invisible formatting that can hide or reorder text on screen: the Arabic letter
#: mark, zero-width characters, LRM/RLM, line/paragraph separators, bidi
#: embeddings/overrides/isolates, word joiner and invisible operators, BOM.
INVISIBLE_CHARS = re.compile(r"[\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def strip_escapes(text: str) -> str:
    """``text`` without terminal escape sequences (their parameters removed with them)."""
    return ESCAPE_SEQUENCE.sub("", text)


def clean_block(text: str) -> str:
    """``text`` without escapes and control characters; newlines (CRLF as LF) and tabs kept.

    Invisible formatting characters are kept: the text stays what was written.
    """
    return CONTROL_CHARS.sub("", strip_escapes(text).replace("\r\n", "\n"))


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` as one line of plain text, at most ``limit`` characters (``…`` marks a cut).

    Escapes are removed; control and invisible characters become spaces; runs of
    whitespace (newlines included) fold to one space; the ends are trimmed.
    """
    text = strip_escapes(text)
    text = INVISIBLE_CHARS.sub(" ", CONTROL_CHARS.sub(" ", text))
    text = " ".join(text.split())
    if limit is not None and len(text) > limit:
        return text[: limit - 1].rstrip() + "…" if limit > 1 else "…"[:limit]
    return text
