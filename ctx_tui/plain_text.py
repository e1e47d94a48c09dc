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
  output, MEMORY.md bullets and comments;
- :func:`terminal_text` is a multi-line text as it may reach a terminal or a
  clipboard: :func:`clean_block` without invisible formatting either;
- :func:`json_text` is JSON whose strings carry no raw C1, DEL or invisible
  formatting character (``json`` already escapes C0 controls);
- :class:`GuardedStream` wraps ``sys.stdout`` / ``sys.stderr`` for the whole of
  a CLI command (``ctx_tui.cli.main``): the boundary every line of CLI output
  crosses, whichever command printed it.

The dashboard does not strip but *shows* control and invisible characters
(``ctx_tui/ui/safe.py``, built on the same character classes), so a user can
see that they were there; its input fields and the clipboard get
:func:`one_line` / :func:`terminal_text`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (~4 ms): ctx-tui statusline runs this module
if TYPE_CHECKING:
    import re
    from typing import Any, TextIO

#: The patterns by name, compiled on first use (:func:`pattern`): printable text
#: needs none of them, and the status line starts a process per message.
_SOURCES: dict[str, str] = {
    # Terminal escape sequences, 7-bit (ESC ...) and 8-bit (C1) forms:
    # CSI (``ESC [`` params final), string sequences (OSC ``ESC ]``, DCS ``ESC P``,
    # SOS ``ESC X``, PM ``ESC ^``, APC ``ESC _``) up to BEL / ST — or, unterminated,
    # up to the end of the line — and every other ``ESC`` + intermediates + final byte.
    "ESCAPE_SEQUENCE": (
        r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
        r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
        r"|\x1b[ -/]*[0-~]"
    ),
    # C0 controls except tab and newline, DEL and C1 controls (a lone ESC among them).
    "CONTROL_CHARS": r"[\x00-\x08\x0b-\x1f\x7f-\x9f]",
    # Invisible formatting that can hide or reorder text on screen: the Arabic letter
    # mark, zero-width characters, LRM/RLM, line/paragraph separators, bidi
    # embeddings/overrides/isolates, word joiner and invisible operators, BOM.
    "INVISIBLE_CHARS": r"[\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]",
    # Characters ``json.dumps(ensure_ascii=False)`` leaves raw that a terminal acts on or hides:
    # DEL, C1 controls and invisible formatting (bidi overrides, zero-width, separators).
    "JSON_RAW_UNSAFE": r"[\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]",
    # Select Graphic Rendition (colour, bold): the only sequences Rich writes for ``ctx-tui stats``.
    "SGR": r"\x1b\[[0-9;:]*m",
}
_COMPILED: dict[str, re.Pattern[str]] = {}


def pattern(name: str) -> re.Pattern[str]:
    """The compiled pattern ``name`` of :data:`_SOURCES` (also ``plain_text.NAME``)."""
    compiled = _COMPILED.get(name)
    if compiled is None:
        import re  # here: printable text needs no pattern, and the hooks deliver without re (and enum)

        compiled = _COMPILED[name] = re.compile(_SOURCES[name])
    return compiled


def __getattr__(name: str) -> re.Pattern[str]:
    if name in _SOURCES:
        return pattern(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def strip_escapes(text: str) -> str:
    """``text`` without terminal escape sequences (their parameters removed with them)."""
    return pattern("ESCAPE_SEQUENCE").sub("", text)


def clean_block(text: str) -> str:
    """``text`` without escapes and control characters; newlines (CRLF as LF) and tabs kept.

    Invisible formatting characters are kept: the text stays what was written.
    """
    return pattern("CONTROL_CHARS").sub("", strip_escapes(text).replace("\r\n", "\n"))


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` as one line of plain text, at most ``limit`` characters (``…`` marks a cut).

    Escapes are removed; control and invisible characters become spaces; runs of
    whitespace (newlines included) fold to one space; the ends are trimmed.
    Printable text (``str.isprintable``: no control, format or separator
    character, so no escape either) skips the patterns.
    """
    if not text.isprintable():
        text = strip_escapes(text)
        text = pattern("INVISIBLE_CHARS").sub(" ", pattern("CONTROL_CHARS").sub(" ", text))
    text = " ".join(text.split())
    if limit is not None and len(text) > limit:
        return text[: limit - 1].rstrip() + "…" if limit > 1 else "…"[:limit]
    return text


def terminal_text(text: str) -> str:
    """``text`` fit for a terminal or a clipboard: lines and tabs kept; no escape, control or invisible character.

    Text that is printable but for its newlines and tabs is returned as it is:
    every character the patterns remove is unprintable (``str.isprintable``),
    so no pattern is compiled for it (``ctx-tui --help``: 6M instructions).
    """
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text
    return pattern("INVISIBLE_CHARS").sub("", clean_block(text))


def json_text(obj: Any, **options: Any) -> str:
    """``json.dumps(obj, ensure_ascii=False, **options)`` with DEL, C1 and invisible characters as ``\\u`` escapes.

    The value is unchanged (a JSON reader gets the same strings back); only
    what a terminal would act on when the JSON is printed is escaped.
    """
    import json  # here: every command's output crosses GuardedStream, and `--help` needs no json

    return escape_json(json.dumps(obj, ensure_ascii=False, **options))


def escape_json(dumped: str) -> str:
    """JSON text (from ``json`` or ``orjson``) with raw DEL, C1 and invisible characters escaped."""
    return pattern("JSON_RAW_UNSAFE").sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)


class GuardedStream:
    """A text stream that passes every write through :func:`terminal_text`.

    Installed over ``sys.stdout`` and ``sys.stderr`` while a CLI command runs,
    so no escape, control or invisible character from a transcript, memory
    file or handoff reaches the terminal, whatever code printed it. When the
    stream is a terminal, colour sequences (SGR, ``ESC [ ... m``) pass: Rich
    writes them, and they can only colour text (no title, clipboard, cursor or
    link). A sequence split across two writes loses its ``ESC`` and shows as
    text, never acts.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._colour = bool(getattr(stream, "isatty", lambda: False)())

    def write(self, text: str) -> int:
        if self._colour and "\x1b[" in text:
            sgr = pattern("SGR")
            pieces = sgr.split(text)
            codes = sgr.findall(text)
            cleaned = terminal_text(pieces[0]) + "".join(c + terminal_text(p) for c, p in zip(codes, pieces[1:]))
        else:
            cleaned = terminal_text(text)
        self._stream.write(cleaned)
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, buffer...
        return getattr(self._stream, name)
