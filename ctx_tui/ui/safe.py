"""Show untrusted transcript text literally.

Transcript text is hostile input for a terminal UI: it may hold Rich markup
(``[bold]``, ``[link=...]``) and terminal escape sequences. Everything shown
from a transcript goes through :func:`literal`, which returns a Rich ``Text``
(never parsed as markup) whose control characters are replaced by visible
stand-ins, so an ESC byte is displayed as ``␛`` instead of reaching the terminal;
bidi overrides and zero-width characters are shown as ``<U+202E>`` so they can
neither reorder nor hide what is drawn (nor shift a border).

Text that becomes an input field's value or a clipboard payload is not shown
but *used*: :func:`input_value` and :func:`clipboard_text` strip instead, with
``ctx_tui.plain_text`` (the same boundary the CLI's output crosses).
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

from ctx_tui import plain_text

_C0_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)}
#: What is shown by a stand-in: C0 but newline and tab, DEL, C1, and invisible formatting.
_SHOWN = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f]|{plain_text.INVISIBLE_CHARS.pattern}")


def _visible(char: str) -> str:
    code = ord(char)
    if code in _C0_PICTURES:
        return _C0_PICTURES[code]
    if code == 0x7F:
        return "␡"
    return f"<U+{code:04X}>"  # C1 controls, bidi and zero-width characters, separators


def clean(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control character made visible.

    With ``one_line`` newlines and tabs become spaces (for table cells).
    """
    if one_line:
        text = " ".join(text.split())
    return _SHOWN.sub(lambda m: _visible(m.group()), text)


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


def input_value(text: str, *, multiline: bool = False) -> str:
    """``text`` as the initial value of an input field: one plain line (or plain lines for a text area)."""
    return plain_text.terminal_text(text) if multiline else plain_text.one_line(text)


def clipboard_text(text: str) -> str:
    """``text`` as it may be put on the clipboard: no escape, control or invisible character."""
    return plain_text.terminal_text(text)
