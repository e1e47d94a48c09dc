"""The long-term tier: a byte-preserving round trip of MEMORY.md.

MEMORY.md is the user's file. :func:`parse_memory` splits it into blocks that
cover every byte (headings, bullet entries with their continuation lines,
other lines, blank lines), so ``render(parse_memory(text)) == text`` always;
sections (``##``) and entries (``- `` bullets, multi-line included) are read
from those blocks. :func:`append_entries` adds new entries as new blocks and
never changes a byte it did not add: hand edits, comments, unknown sections,
blank-line style and a missing final newline all survive.

Structure rules (a practical subset of CommonMark): a heading is ``#``..``######``
at the start of a line; ``#`` and ``##`` headings start a section; an entry is
a ``-``/``*``/``+`` bullet at column 0 and runs on over indented lines (also
after blank lines) and lazy continuation lines; fenced code blocks and HTML
comment blocks are opaque (nothing inside them is structure).

A new entry's text is written as ONE line that cannot break the structure:
newlines and control characters are collapsed, leading block markers and
HTML comment delimiters are backslash-escaped.

Over 400 lines: the parser and the writer share the block model that makes the round trip
byte-exact; they stay together.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ctx_tui.errors import CtxError
from ctx_tui.memory.items import ItemType, normalise_content
from ctx_tui.plain_text import one_line
from ctx_tui.storage import locked, read_regular, write_atomic

BlockKind = Literal["heading", "entry", "text", "blank"]

#: The MEMORY.md section an item of each type is promoted into.
SECTION_FOR_TYPE: dict[ItemType, str] = {
    ItemType.GOAL: "Goals",
    ItemType.CONSTRAINT: "Constraints",
    ItemType.USER_PREFERENCE: "Preferences",
    ItemType.CRITICAL_INFO: "Critical information",
    ItemType.DECISION: "Decisions",
    ItemType.STATE: "Project state",
    ItemType.PROGRESS: "Progress",
    ItemType.FINDING: "Findings",
    ItemType.PROJECT_CONFIG: "Project configuration",
    ItemType.NOTE: "Notes",
}

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_BULLET = re.compile(r"[-*+](?:[ \t]+|$)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_COMMENT_OPEN = re.compile(r" {0,3}<!--")
_MAX_RETRIES = 5


@dataclass(frozen=True, slots=True)
class Block:
    kind: BlockKind
    raw: str  # the exact text of the block, line ends included
    line: int  # 1-based line number of its first line
    level: int = 0  # heading level (headings only)
    title: str = ""  # heading text (headings only)


@dataclass(frozen=True, slots=True)
class MdEntry:
    section: str | None  # title of the ``##`` section, None before the first one
    text: str  # the bullet's text, continuation lines joined by single spaces, escapes removed
    line: int

    @property
    def key(self) -> str:
        """What duplicates are compared on."""
        return normalise_content(self.text)


@dataclass(slots=True)
class MdSection:
    title: str | None  # None for the part before the first heading
    level: int  # 0 (preamble), 1 (``#``) or 2 (``##``)
    first: int  # index of its first block (the heading, if any)
    end: int  # index after its last block
    entries: list[MdEntry] = field(default_factory=list)


@dataclass(slots=True)
class MemoryDoc:
    blocks: list[Block]
    newline: str = "\n"
    #: Set when a code fence or HTML comment is still open at the end of the file.
    unclosed: str | None = None

    def render(self) -> str:
        return "".join(b.raw for b in self.blocks)

    @property
    def sections(self) -> list[MdSection]:
        return _sections(self.blocks)

    @property
    def entries(self) -> list[MdEntry]:
        return [e for s in self.sections for e in s.entries]

    def find_section(self, title: str, entries: bool = True) -> MdSection | None:
        """The first ``##`` section whose title matches (case, spacing and escapes ignored).

        ``entries=False`` leaves its ``entries`` empty (a writer needs only the block span).
        """
        key = normalise_content(_plain(title))
        return next(
            (s for s in _sections(self.blocks, entries)
             if s.level == 2 and s.title is not None and normalise_content(_plain(s.title)) == key),
            None,
        )


@dataclass(frozen=True, slots=True)
class NewEntry:
    section: str
    text: str


# -- parsing ---------------------------------------------------------------


def _lines(text: str) -> list[str]:
    """Lines with their ``\\n`` kept (only ``\\n`` splits; ``\\r`` stays with its line)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _bare(line: str) -> str:
    return line.rstrip("\n").rstrip("\r")


def _entry_text(raw: str) -> str:
    first, *rest = _lines(raw)
    head = _BULLET.sub("", _bare(first), count=1)
    return " ".join(part for part in (head.strip(), *(_bare(r).strip() for r in rest)) if part)


def parse_memory(text: str) -> MemoryDoc:
    """Split ``text`` into blocks covering every character; never fails."""
    lines = _lines(text)
    blocks: list[Block] = []
    newline = "\r\n" if (lines and lines[0].endswith("\r\n")) else "\n"
    entry: list[str] = []  # lines of the open entry
    entry_line = 0
    pending: list[tuple[int, str]] = []  # blank lines after the open entry, not yet assigned
    opaque: str | None = None  # the fence marker, or "<!--", of an open opaque block
    opaque_in_entry = False

    def close_entry() -> None:
        nonlocal entry
        if entry:
            blocks.append(Block("entry", "".join(entry), entry_line))
            entry = []
        blocks.extend(Block("blank", blank, number) for number, blank in pending)
        pending.clear()

    for number, line in enumerate(lines, start=1):
        bare = _bare(line).lstrip("\ufeff") if number == 1 else _bare(line)
        if opaque is not None:
            if opaque == "<!--":
                if "-->" in bare:
                    opaque = None
            elif re.fullmatch(r" {0,3}" + re.escape(opaque[0]) + "{%d,}[ \t]*" % len(opaque), bare):
                opaque = None
            if opaque_in_entry:
                entry.append(line)
            else:
                blocks.append(Block("text", line, number))
            continue
        if not bare.strip():
            if entry:
                pending.append((number, line))
            else:
                blocks.append(Block("blank", line, number))
            continue
        heading = _HEADING.fullmatch(bare)
        bullet = _BULLET.match(bare)
        fence = _FENCE.match(bare)
        comment = _COMMENT_OPEN.match(bare) is not None
        in_entry = True
        if entry and bare[:1] in (" ", "\t"):
            entry.extend(blank for _, blank in pending)
            pending.clear()
            entry.append(line)
        elif entry and not pending and not (heading or bullet or fence or comment):
            entry.append(line)  # lazy continuation
        else:
            close_entry()
            if heading:
                blocks.append(Block("heading", line, number, level=len(heading.group(1)), title=(heading.group(2) or "").strip()))
                in_entry = False
            elif bullet:
                entry = [line]
                entry_line = number
            else:
                blocks.append(Block("text", line, number))
                in_entry = False
        if fence:
            opaque, opaque_in_entry = fence.group(1), in_entry
        elif comment and "-->" not in bare[bare.index("<!--") + 4 :]:
            opaque, opaque_in_entry = "<!--", in_entry
    close_entry()
    unclosed = None
    if opaque == "<!--":
        unclosed = "an HTML comment (<!--)"
    elif opaque is not None:
        unclosed = f"a code fence ({opaque})"
    return MemoryDoc(blocks=blocks, newline=newline, unclosed=unclosed)


def _sections(blocks: list[Block], entries: bool = True) -> list[MdSection]:
    sections = [MdSection(title=None, level=0, first=0, end=0)]
    for index, block in enumerate(blocks):
        if block.kind == "heading" and block.level <= 2:
            sections[-1].end = index
            sections.append(MdSection(title=block.title, level=block.level, first=index, end=index))
        elif entries and block.kind == "entry":
            sections[-1].entries.append(
                MdEntry(
                    section=sections[-1].title if sections[-1].level == 2 else None,
                    text=unescape(_entry_text(block.raw)),
                    line=block.line,
                )
            )
    sections[-1].end = len(blocks)
    if sections[0].end == 0 and len(sections) > 1:
        sections.pop(0)
    return sections


# -- writing -----------------------------------------------------------------

_LEADING_MARKER = re.compile(r"(#{1,6}(?:\s|$)|>|[-*+](?:\s|$)|`{3,}|~{3,}|=+\s*$|<|\||([-*_])(?:\s*\2){2,}\s*$)")
_ORDERED = re.compile(r"(\d{1,9})([.)])(\s|$)")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def entry_markdown(text: str) -> str:
    """``text`` as the content of one bullet line that cannot break the file's structure."""
    one = one_line(text)
    if not one:
        raise CtxError("a MEMORY.md entry cannot be empty")
    one = one.replace("<!--", "<\\!--").replace("-->", "--\\>")
    ordered = _ORDERED.match(one)
    if ordered:
        one = f"{ordered.group(1)}\\{one[len(ordered.group(1)):]}"
    elif _LEADING_MARKER.match(one):
        one = "\\" + one
    return one


def unescape(text: str) -> str:
    return _ESCAPED.sub(r"\1", text)


def _plain(text: str) -> str:
    """``text`` as it reads once written and parsed back (how titles and entries are compared)."""
    one = one_line(text)
    return unescape(one)


def _is_loose(blocks: list[Block], section: MdSection) -> bool:
    """True when the section's entries are separated by blank lines."""
    kinds = [b.kind for b in blocks[section.first : section.end]]
    seen_entry = False
    gap = False
    for kind in kinds:
        if kind == "entry":
            if seen_entry and gap:
                return True
            seen_entry, gap = True, False
        elif kind == "blank":
            gap = True
        elif seen_entry:
            seen_entry, gap = False, False
    return False


def comment_line(text: str) -> str:
    """``text`` as one HTML comment line that cannot end early or span lines."""
    one = one_line(text).replace("--", "- -")
    return f"<!-- {one} -->"


def _tail(blocks: list[Block], chars: int = 4) -> str:
    """The last ``chars`` characters (at least) of the rendered blocks, without rendering them all."""
    tail = ""
    for block in reversed(blocks):
        tail = block.raw + tail
        if len(tail) >= chars:
            break
    return tail


def _end_line(blocks: list[Block], index: int, nl: str) -> None:
    """Give the block at ``index`` the line end its last line lacks (the file ended without one)."""
    block = blocks[index]
    blocks[index] = Block(block.kind, block.raw + nl, block.line, block.level, block.title)


def _entry_blocks(entry: NewEntry, comment: str | None, nl: str, line_end: bool) -> list[Block]:
    """The blocks the parser would make of a new entry (its comment line is a text block of its own)."""
    blocks = [Block("text", comment_line(comment) + nl, 0)] if comment is not None else []
    blocks.append(Block("entry", f"- {entry_markdown(entry.text)}" + (nl if line_end else ""), 0))
    return blocks


def _insert(doc: MemoryDoc, entry: NewEntry, comment: str | None = None) -> None:
    """Insert ``entry`` into ``doc``'s blocks exactly as parsing the new text would split it.

    The blocks stay what :func:`parse_memory` of the rendered text gives (but
    for line numbers), so a batch of entries needs one parse, not one per entry.
    """
    nl = doc.newline
    entry_markdown(entry.text)  # an empty entry is refused before anything changes
    blocks = doc.blocks
    ends_without_newline = bool(blocks) and not blocks[-1].raw.endswith("\n")
    section = doc.find_section(entry.section, entries=False)
    if section is None:
        if doc.unclosed:
            raise CtxError(f"MEMORY.md: {doc.unclosed} is never closed; close it before ctx-tui adds entries")
        title = entry_markdown(entry.section)
        added: list[Block] = []
        text = _tail(blocks)
        if text:
            if not text.endswith("\n"):
                _end_line(blocks, len(blocks) - 1, nl)
                text += nl
            if not text.endswith(("\n\n", "\r\n\r\n")):
                added.append(Block("blank", nl, 0))
        added += [Block("heading", f"## {title}{nl}", 0, level=2, title=title), Block("blank", nl, 0)]
        added += _entry_blocks(entry, comment, nl, line_end=not ends_without_newline)
        blocks.extend(added)
        return
    at = section.end
    while at > section.first + 1 and blocks[at - 1].kind == "blank":
        at -= 1
    if at == len(blocks) and doc.unclosed:
        raise CtxError(f"MEMORY.md: {doc.unclosed} is never closed; close it before ctx-tui adds entries")
    new: list[Block] = []
    at_eof_without_newline = at == len(blocks) and at > 0 and not blocks[at - 1].raw.endswith("\n")
    if at_eof_without_newline:
        _end_line(blocks, at - 1, nl)
    if _is_loose(blocks, section):
        new.append(Block("blank", nl, 0))
    new += _entry_blocks(entry, comment, nl, line_end=not at_eof_without_newline)
    blocks[at:at] = new


def add_entries(
    text: str, entries: Sequence[NewEntry], comment: str | None = None
) -> tuple[str, list[NewEntry]]:
    """Pure form of :func:`append_entries`: the new text and the entries actually added."""
    doc = parse_memory(text)
    present = {e.key for e in doc.entries}
    added: list[NewEntry] = []
    # The file is parsed once: each insert keeps the block list valid for the next
    # (re-parsing a 10 MB file after each of 30 entries took 27.7 s).
    for entry in entries:
        key = normalise_content(unescape(entry_markdown(entry.text)))
        if key in present:
            continue
        _insert(doc, entry, comment)
        present.add(key)
        added.append(entry)
    return doc.render(), added


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def _read_bytes(path: Path) -> bytes:
    try:
        return read_regular(path)
    except FileNotFoundError:
        return b""
    except OSError as exc:
        raise CtxError(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_memory(path: Path) -> MemoryDoc:
    """The parsed file; an empty document when it does not exist."""
    return parse_memory(_decode(_read_bytes(path)))


def append_entries(path: Path, entries: Sequence[NewEntry], comment: str | None = None) -> list[NewEntry]:
    """Add the entries not already present (anywhere in the file); return those added.

    ``comment`` (e.g. where the entry came from) is written as an HTML comment
    line just above each new entry.

    Runs under the file's lock and applies the change to the file as it is at
    that moment. Just before the atomic replace the file is read again: if
    someone (an editor that does not take the lock) changed it meanwhile, the
    change is applied again to the new text instead of overwriting it.
    """
    with locked(path):
        for _ in range(_MAX_RETRIES):
            before = _read_bytes(path)
            text, added = add_entries(_decode(before), entries, comment)
            if not added:
                return []
            if _read_bytes(path) != before:
                continue
            write_atomic(path, _encode(text))
            return added
    raise CtxError(f"{path}: the file keeps changing while ctx-tui writes it; try again")
