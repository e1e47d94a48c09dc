"""Show untrusted transcript text literally.

Transcript text is hostile input for a terminal UI: it may hold Rich markup
(``[bold]``, ``[link=...]``) and terminal escape sequences. Everything shown
from a transcript goes through :func:`literal`, which returns a Rich ``Text``
(never parsed as markup) whose control characters are replaced by visible
stand-ins, so an ESC byte is displayed as ``␛`` instead of reaching the terminal.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

_C0_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)}


def _visible(char: str) -> str:
    code = ord(char)
    if code in _C0_PICTURES:
        return _C0_PICTURES[code]
    if code == 0x7F:
        return "␡"
    if 0x80 <= code <= 0x9F or code in (0x2028, 0x2029):  # C1 controls, line/paragraph separators
        return f"<U+{code:04X}>"
    return char


def clean(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character made visible.

    With ``one_line`` newlines and tabs become spaces (for table cells).
    """
    if one_line:
        text = " ".join(text.split())
    out = []
    for char in text:
        if char == "\n" or char == "\t":
            out.append(char)
        elif ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F or char in "\u2028\u2029":
            out.append(_visible(char))
        else:
            out.append(char)
    return "".join(out)


def shorten(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters with an ellipsis."""
    if limit <= 1:
        return text[:limit]
    return text if len(text) <= limit else text[: limit - 1] + "…"


def literal(text: str, style: str | Style = "", *, one_line: bool = False, limit: int | None = None) -> Text:
    """A Rich ``Text`` that shows ``text`` exactly as characters, never as markup or escapes."""
    shown = clean(text, one_line=one_line)
    if limit is not None:
        shown = shorten(shown, limit)
    return Text(shown, style=style, no_wrap=one_line, end="")
