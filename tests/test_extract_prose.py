"""Extraction's prose (ctx_tui.memory.extract._prose) drops fenced code blocks exactly as the lazy pattern first
written for them did: the line-by-line pattern read after a line break gives the same text on any input; and a
line is split into the same sentences by the pattern that opens with the space (extract._split)."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ctx_tui.memory import extract

#: The fenced blocks as first written.
WRITTEN = re.compile(r"(^|\n)[ \t]*(```|~~~).*?(\n[ \t]*\2[^\n]*|$)", re.S)
_PIECES = ["`", "``", "```", "````", "~", "~~~", "\n", " ", "\t", "a", "py", "\n```", "\n~~~", "\n \t```", "```\n", "</x>", "<x>"]


def _written(text: str) -> str:
    return WRITTEN.sub("\n", text)


def test_the_same_text_on_random_pieces() -> None:
    """Openings at the start, after spaces and tabs, after a line break; unclosed blocks, with and without a last
    line break; a closing fence of the other kind; fences longer than three; text after a closing fence."""
    rng = random.Random(7)
    for _ in range(40_000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 16)))
        assert extract._unfenced(text) == _written(text), repr(text)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES) | st.text(alphabet="`~\n \tab\r", max_size=6), max_size=30).map("".join))
def test_the_same_text_on_any_pieces(text: str) -> None:
    assert extract._unfenced(text) == _written(text)


def test_examples() -> None:
    assert extract._unfenced("intro\n```py\ncode\n```\noutro") == "intro\n\noutro"
    assert extract._unfenced("```\ncode\n```\nafter") == "\n\nafter"  # a block that opens the text
    assert extract._unfenced("  ~~~\nunclosed\n") == "\n\n"  # to the end, the last line break left
    assert extract._unfenced("a ``` b\nc") == "a ``` b\nc"  # not at a line's start
    assert extract._unfenced("no fence") == "no fence"
    assert extract._prose("keep <note>drop\nthis</note> and ```x``` inline") == "keep   and ```x``` inline"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?;\n\t\x0b\x1c\x85\u2028\u3000。！？；")), max_size=40))
def test_sentences_split_as_the_written_pattern(line: str) -> None:
    """A line without 。！？ is split by the pattern that opens with the space: the same sentences."""
    written = re.compile(r"(?<=[.!?;。！？])\s+|(?<=[。！？])")
    assert extract._split(line) == [s.strip() for s in written.split(line) if s and s.strip()]
