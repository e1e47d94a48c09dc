"""ctx_tui.plain_text: hostile terminal input becomes plain text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctx_tui.plain_text import clean_block, one_line, strip_escapes, terminal_text

OSC8_LINK = "\x1b]8;;https://evil.example/x\x1b\\click me\x1b]8;;\x1b\\"
OSC52_CLIPBOARD = "before\x1b]52;c;cm0gLXJmIH4K\x07after"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b[1;38;5;196mbold\x1b[m", "bold"),
        ("\x1b[2J\x1b[Hclear", "clear"),
        ("\x1b[?1049hscreen", "screen"),
        (OSC8_LINK, "click me"),
        (OSC52_CLIPBOARD, "beforeafter"),
        ("title\x1b]0;pwned\x07!", "title!"),
        ("unterminated\x1b]52;c;cm0gLXJmIH4K\nnext line", "unterminated\nnext line"),
        ("\x1bPq#0;2;0;0;0\x1b\\sixel", "sixel"),
        ("\x1b_apc payload\x1b\\ok", "ok"),
        ("\x1b(Bcharset\x1b7saved\x1b8", "charsetsaved"),
        ("\x9b31m8-bit csi", "8-bit csi"),
        ("\x9d52;c;eA==\x9cx", "x"),
        ("plain [bold]text[/bold]", "plain [bold]text[/bold]"),
    ],
)
def test_strip_escapes_removes_whole_sequences(text: str, expected: str) -> None:
    assert strip_escapes(text) == expected


def test_lone_esc_is_left_for_the_control_filter() -> None:
    assert strip_escapes("end\x1b") == "end\x1b"
    assert clean_block("end\x1b") == "end"
    assert one_line("a\x1b\nb\x1b") == "a b"


def test_clean_block_keeps_lines_and_tabs_and_drops_controls() -> None:
    text = "\x1b[31mFAILED\x1b[0m test\x07\r\n\tdone\x00\x7f\x85\x9f"
    assert clean_block(text) == "FAILED test\n\tdone"


def test_clean_block_keeps_invisible_formatting() -> None:
    # the compressed window stays what was written; only one-line output drops these
    assert clean_block("a\u202eb\u200dc") == "a\u202eb\u200dc"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("multi\nline\r\n\ttext", "multi line text"),
        ("bidi \u202eevil\u202c override", "bidi evil override"),
        ("isolate\u2066x\u2069", "isolate x"),
        ("zero\u200bwidth\ufeff", "zero width"),
        ("sep\u2028arator\u2029", "sep arator"),
        ("c1\x85next\x81line", "c1 next line"),
        ("nul\x00and\x08bs", "nul and bs"),
        ("  \x1b[31m \x1b[0m  ", ""),
        (OSC8_LINK + " " + OSC52_CLIPBOARD, "click me beforeafter"),
    ],
)
def test_one_line(text: str, expected: str) -> None:
    assert one_line(text) == expected


def test_one_line_limit() -> None:
    assert one_line("abcdef", 10) == "abcdef"
    assert one_line("abcdef", 6) == "abcdef"
    assert one_line("abc def", 5) == "abc…"
    assert one_line("abcdef", 1) == "…"
    assert one_line("abcdef", 0) == ""


@given(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(["\x1b", "\x9b", "\x9d", "\x07", "["])))
def test_one_line_never_leaves_escapes_or_controls(text: str) -> None:
    out = one_line(text, 50)
    assert len(out) <= 50
    assert "\n" not in out and "\x1b" not in out
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in out)
    assert not any(c in out for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@given(st.text())
def test_clean_block_output_has_only_newline_and_tab_controls(text: str) -> None:
    out = clean_block(text)
    assert not any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in out)


def test_printable_text_holds_nothing_the_patterns_act_on() -> None:
    """one_line skips the patterns for ``str.isprintable()`` text: exact only if no character they act on is printable.

    Every class of the patterns lies in the Basic Multilingual Plane, so its code points are checked one by one.
    """
    from ctx_tui import plain_text

    for name in ("CONTROL_CHARS", "INVISIBLE_CHARS", "JSON_RAW_UNSAFE"):
        matched = [chr(c) for c in range(0x10000) if plain_text.pattern(name).fullmatch(chr(c))]
        assert matched and not [c for c in matched if c.isprintable()], name
    escape = plain_text.pattern("ESCAPE_SEQUENCE")
    starts = [chr(c) for c in range(0x10000) if escape.match(chr(c) + "[0m\x07")]  # every sequence's first character
    assert "\x1b" in starts and not [c for c in starts if c.isprintable()]


@given(st.text())
def test_the_printable_fast_path_is_the_patterns_answer(text: str) -> None:
    from ctx_tui import plain_text

    slow = plain_text.pattern("INVISIBLE_CHARS").sub(" ", plain_text.pattern("CONTROL_CHARS").sub(" ", strip_escapes(text)))
    assert one_line(text) == " ".join(slow.split())


@given(st.lists(st.text() | st.sampled_from(["\n", "\t", "\r\n", "\x1b[31m", "\u202e", "plain words"])).map("".join))
def test_terminal_texts_printable_fast_path_is_the_patterns_answer(text: str) -> None:
    from ctx_tui import plain_text

    assert terminal_text(text) == plain_text.pattern("INVISIBLE_CHARS").sub("", clean_block(text))
