"""Structure-aware splitting: a text as blocks that are never cut in half.

A block is a fenced code block (``` or ~~~, any fence length, CommonMark
rules: the closing fence uses the same character and is at least as long), a
JSON value that starts at the beginning of a line and parses, a heading, a
list item (with its continuation lines), a table, or a paragraph. Every
strategy keeps a code or JSON block whole or drops it whole; prose is split
further into lines and sentences, which are also kept or dropped whole.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

BlockKind = Literal["code", "json", "heading", "list", "table", "para"]

_FENCE_RE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_HEADING_RE = re.compile(r"^#{1,6}\s")
_LIST_RE = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+")
_TABLE_RE = re.compile(r"^\s*\|")
_SENTENCE_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[`*])")
_DECODER = json.JSONDecoder()


@dataclass(slots=True)
class Block:
    kind: BlockKind
    text: str  # the block as written (a code block includes its fences)
    lang: str = ""  # a code block's info string (first word)
    closed: bool = True  # False for a code block whose fence the input never closed

    @property
    def body(self) -> str:
        """A code block's content without its fences (other blocks: the text)."""
        if self.kind != "code":
            return self.text
        lines = self.text.split("\n")
        return "\n".join(lines[1:-1] if self.closed else lines[1:])

    @property
    def marker(self) -> str:
        """The fence a code block opened with (what closes it)."""
        fence = _FENCE_RE.match(self.text.split("\n", 1)[0])
        return fence.group("fence") if fence else "```"

    def rendered(self) -> str:
        """The block as output: an unclosed code block gets its closing fence."""
        if self.kind == "code" and not self.closed:
            return self.text.rstrip("\n") + "\n" + self.marker
        return self.text


def _closing_fence(line: str, fence: str) -> bool:
    if fence[0] not in line:
        return False
    stripped = line.strip()
    return (
        len(line) - len(line.lstrip(" ")) <= 3
        and len(stripped) >= len(fence)
        and set(stripped) == {fence[0]}
    )


def _json_block(text: str, line_start: int, line: str) -> int:
    """How many lines from the line at ``line_start`` form one JSON object/array, or 0."""
    first = line.lstrip()
    if not first or first[0] not in "{[":
        return 0
    if first[0] == "[" and len(first) > 1 and first[1] not in " \t\"{[]0123456789-tfn":
        return 0  # "[link]" or "[x]" prose, not an array
    start = line_start + len(line) - len(first)
    try:
        _, end = _DECODER.raw_decode(text, start)
    except ValueError:
        return 0
    line_end = text.find("\n", end)
    if text[end : line_end if line_end >= 0 else len(text)].strip() not in ("", ","):
        return 0
    return text.count("\n", line_start, end) + 1


def split_blocks(text: str) -> list[Block]:
    """The blocks of ``text`` in order; blank lines separate prose blocks and are dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    starts = [0] * len(lines)
    for k in range(1, len(lines)):
        starts[k] = starts[k - 1] + len(lines[k - 1]) + 1
    blocks: list[Block] = []
    para: list[str] = []
    para_kind: BlockKind = "para"

    def flush() -> None:
        nonlocal para, para_kind
        if para:
            blocks.append(Block(para_kind, "\n".join(para)))
        para, para_kind = [], "para"

    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        fence = _FENCE_RE.match(line)
        if fence:
            flush()
            marker = fence.group("fence")
            info = fence.group("info").strip()
            if marker[0] == "`" and "`" in info:
                fence = None  # an inline code span, not a fence (CommonMark)
            else:
                j = i + 1
                while j < n and not _closing_fence(lines[j], marker):
                    j += 1
                closed = j < n
                body = lines[i : j + 1] if closed else lines[i:]
                blocks.append(Block("code", "\n".join(body), info.split()[0] if info else "", closed))
                i = j + 1
                continue
        if not line.strip():
            flush()
            i += 1
            continue
        span = _json_block(text, starts[i], line) if not para or para_kind != "list" else 0
        if span:
            flush()
            blocks.append(Block("json", "\n".join(lines[i : i + span])))
            i += span
            continue
        if _HEADING_RE.match(line):
            flush()
            blocks.append(Block("heading", line))
        elif _LIST_RE.match(line):
            flush()
            para, para_kind = [line], "list"
        elif _TABLE_RE.match(line):
            if para_kind != "table":
                flush()
                para_kind = "table"
            para.append(line)
        else:
            if para_kind == "table":
                flush()
            para.append(line)
        i += 1
    flush()
    return blocks


def close_open_fence(text: str) -> str:
    """``text`` with its last code block closed if a fence was left open.

    The strategies keep code blocks whole, but a line of prose that looks
    like a fence (a sentence ``` on its own) can open one in the output.
    """
    blocks = split_blocks(text)
    if blocks and blocks[-1].kind == "code" and not blocks[-1].closed:
        return text.rstrip("\n") + "\n" + blocks[-1].marker
    return text


def sentences(text: str) -> list[str]:
    """The sentences of a prose block; each line of it ends a sentence too."""
    out: list[str] = []
    for line in text.split("\n"):
        line = line.strip()
        if line:
            out.extend(s.strip() for s in _SENTENCE_RE.split(line) if s.strip())
    return out
