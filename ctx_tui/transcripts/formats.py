"""Every transcript format ctx-tui reads, in one table: how a row is recognised, which reader reads it.

A reader is a :class:`RowReader`: ``prepare(line)`` gives the bytes of a JSONL
line worth parsing (or None to drop it unparsed), ``feed(row)`` adds one parsed
row to the transcript and returns False when the row is not one of its own
(counted in ``skipped``). A reader may also offer ``feed_lines(lines) -> (rows
read, lines skipped)``, its own loop over the lines with the same result (the
Codex reader's hot path). Adding an agent means writing its reader and adding
one :class:`FormatSpec` to :data:`FORMATS`; detection, the unsupported-input
message and the whole-document path all read this table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ctx_tui.transcripts.builder import Transcript
from ctx_tui.transcripts.claude import ClaudeReader, is_claude_row
from ctx_tui.transcripts.codex import CodexReader, is_codex_row
from ctx_tui.transcripts.gemini import GeminiReader, is_gemini_row
from ctx_tui.transcripts.generic import GenericReader, is_generic_row
from ctx_tui.transcripts.model import Format
from ctx_tui.transcripts.pi import PiReader, is_pi_row
from ctx_tui.transcripts.rows import row_shape_ok


class RowReader(Protocol):
    """What the incremental reader asks of a format's reader."""

    def prepare(self, line: bytes) -> bytes | None:
        """The bytes of ``line`` worth parsing, or None for a row dropped unparsed."""
        ...

    def feed(self, row: dict[str, Any]) -> bool:
        """Add one parsed row; False when it is not a row of this format."""
        ...


@dataclass(frozen=True, slots=True)
class FormatSpec:
    format: Format
    #: How the format is named to the user (e.g. in the unsupported-input message).
    label: str
    #: True for a parsed row that can only belong to this format.
    recognises: Callable[[dict[str, Any]], bool]
    #: A reader writing into the transcript of the file at the given path.
    reader: Callable[[Transcript, Path], RowReader]


def is_subagent_file(path: Path) -> bool:
    """A `<session>/subagents/agent-*.jsonl` file (the newer sub-agent layout)."""
    return path.parent.name == "subagents"


#: Tried in this order: the first whose ``recognises`` accepts a row decides the file's format.
FORMATS: tuple[FormatSpec, ...] = (
    FormatSpec(Format.CODEX, "Codex rollout JSONL", is_codex_row, lambda t, _path: CodexReader(t)),
    FormatSpec(
        Format.CLAUDE_CODE,
        "Claude Code JSONL",
        is_claude_row,
        lambda t, path: ClaudeReader(t, subagent_file=is_subagent_file(path)),
    ),
    FormatSpec(Format.GEMINI, "Gemini CLI chat", is_gemini_row, lambda t, _path: GeminiReader(t)),
    FormatSpec(Format.PI, "pi session JSONL", is_pi_row, lambda t, _path: PiReader(t)),
    FormatSpec(Format.GENERIC, "generic {role, content} chat", is_generic_row, lambda t, _path: GenericReader(t)),
)
SPECS = {spec.format: spec for spec in FORMATS}


#: Keys of a whole JSON document's row list: a chat's (generic, Gemini CLI) and Claude Code's web export.
DOCUMENT_KEYS = ("messages", "loglines")


def split_document(document: Any) -> tuple[dict[str, Any], list[Any]] | None:
    """A whole JSON document as (header, rows), or None if it holds no row list.

    An array is all rows; an object's rows are its ``messages`` (or ``loglines``)
    list and its header the other keys (a Gemini chat's session id and project).
    """
    if isinstance(document, list):
        return {}, document
    if isinstance(document, dict):
        for key in DOCUMENT_KEYS:
            if isinstance(document.get(key), list):
                return {k: v for k, v in document.items() if k != key}, document[key]
    return None


def unsupported_message(first_row: str | None) -> str:
    """What to tell the user about a file no reader understood."""
    tried = ", ".join(spec.label for spec in FORMATS)
    shown = f"its first row: {first_row}; " if first_row else ""
    return f"not a transcript format ctx-tui reads ({shown}tried {tried})"


def detect_row(row: Any) -> FormatSpec | None:
    """The format a parsed row belongs to, or None when it says nothing (or is of no row's shape)."""
    if not row_shape_ok(row):
        return None
    for spec in FORMATS:
        if spec.recognises(row):
            return spec
    return None
