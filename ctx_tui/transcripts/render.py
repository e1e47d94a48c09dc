"""The live window (or any run of transcript entries) as clean text, and back.

Every entry becomes a section under a heading that marks its source and kind::

    ### [session] user · round 3
    ### [tools] tool call: Bash
    ### [tools] tool result: Bash (error)

``session`` covers user and assistant messages, compaction summaries and
system notes; ``tools`` covers tool calls and their results. Thinking blocks
are left out (the agent's private reasoning is not part of what it was told).
Tool results and code go into fences longer than any backtick run inside, so
a result that itself contains fences stays one closed block.
:func:`parse_sections` reads this format back for the summary strategy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ctx_tui.plain_text import clean_block
from ctx_tui.transcripts.activity import PATH_KEYS, tool_command, tool_path
from ctx_tui.transcripts.model import Entry, Kind

SOURCES = ("session", "tools")
_SESSION_KINDS = {Kind.USER, Kind.ASSISTANT, Kind.SUMMARY, Kind.SYSTEM}
_TOOL_KINDS = {Kind.TOOL_CALL, Kind.TOOL_RESULT}
_HEADING_RE = re.compile(
    r"^### \[(?P<source>session|tools)\] (?P<kind>user|assistant|summary|system|tool call|tool result)"
    r"(?::\s*(?P<tool>[^(·\n]*?))?(?P<error> \(error\))?(?: · round (?P<round>\d+))?\s*$",
    re.M,
)


def source_of(entry: Entry) -> str | None:
    """``"session"`` or ``"tools"`` for an entry rendered into context, None for the rest."""
    if entry.kind in _SESSION_KINDS:
        return "session"
    if entry.kind in _TOOL_KINDS:
        return "tools"
    return None


def fence(text: str, lang: str = "") -> str:
    """``text`` in a backtick fence longer than any backtick run it contains."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marker = "`" * max(3, longest + 1)
    return f"{marker}{lang}\n{text.rstrip()}\n{marker}"


def _render_call(entry: Entry) -> str:
    name = entry.tool_name or "tool"
    command = tool_command(entry.tool_input)
    if command is not None:
        return "\n".join(f"$ {line}" if i == 0 else f"  {line}" for i, line in enumerate(command.splitlines()))
    inp = dict(entry.tool_input or {})
    path = tool_path(inp)
    new = inp.get("new_string") or inp.get("content")
    if path and isinstance(new, str):
        old = inp.get("old_string")
        verb = "edit" if isinstance(old, str) else "write"
        lines = [f"{verb} {path}"]
        if isinstance(old, str) and old:
            lines.append(fence(old, "old"))
        lines.append(fence(new))
        return "\n".join(lines)
    if path and len(inp) <= 3:
        rest = {k: v for k, v in inp.items() if k not in PATH_KEYS}
        return f"{name.lower()} {path}" + (f" {json.dumps(rest, ensure_ascii=False)}" if rest else "")
    if isinstance(inp.get("input"), str):  # Codex custom tool calls (apply_patch)
        return fence(inp["input"], "patch" if "patch" in name else "")
    return json.dumps(inp, ensure_ascii=False) if inp else entry.text.strip()


def render_entry(entry: Entry, tool_names: dict[str, str] | None = None) -> str | None:
    """One entry as a section, or None for what is left out (thinking, empty text)."""
    source = source_of(entry)
    if source is None:
        return None
    if entry.kind == Kind.TOOL_CALL:
        body = _render_call(entry)
        label = f"tool call: {entry.tool_name or 'tool'}"
    elif entry.kind == Kind.TOOL_RESULT:
        name = entry.tool_name or (tool_names or {}).get(entry.tool_use_id or "", "") or "tool"
        text = entry.text.rstrip()
        if entry.truncated:
            text += "\n… (output shortened in the transcript reader)"
        body = fence(text) if text.strip() else "(no output)"
        label = f"tool result: {name}" + (" (error)" if entry.is_error else "")
    else:
        body = entry.text.strip()
        if not body:
            return None
        label = entry.kind.value
    round_part = f" · round {entry.round}" if entry.kind == Kind.USER else ""
    return f"### [{source}] {label}{round_part}\n{body}"


def render_entries(entries: Iterable[Entry], sources: Sequence[str] = SOURCES) -> str:
    """Entries of the wanted ``sources``, in order, as clean text (sections separated by a blank line).

    Terminal escapes and control characters are dropped (:func:`ctx_tui.plain_text.clean_block`).
    """
    wanted = set(sources)
    tool_names: dict[str, str] = {}
    parts: list[str] = []
    for entry in entries:
        if entry.kind == Kind.TOOL_CALL and entry.tool_use_id and entry.tool_name:
            tool_names[entry.tool_use_id] = entry.tool_name
        if source_of(entry) not in wanted:
            continue
        section = render_entry(entry, tool_names)
        if section:
            parts.append(clean_block(section))
    return "\n\n".join(parts)


@dataclass(slots=True)
class Section:
    """A section of rendered window text: what the heading says plus its body."""

    source: str
    kind: str  # user, assistant, summary, system, tool call, tool result
    tool: str
    error: bool
    body: str
    text: str  # the heading line and the body, as written


def parse_sections(text: str) -> list[Section] | None:
    """The sections of text written by :func:`render_entries`, or None when it is not such a text."""
    matches = list(_HEADING_RE.finditer(text))
    if not matches or text[: matches[0].start()].strip():
        return None
    sections = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        sections.append(
            Section(
                source=m.group("source"),
                kind=m.group("kind"),
                tool=(m.group("tool") or "").strip(),
                error=bool(m.group("error")),
                body=text[m.end() : end].strip("\n"),
                text=text[m.start() : end].strip("\n"),
            )
        )
    return sections


def conversation_text(text: str) -> str:
    """``text`` without its system sections (agent instructions, reminders, wrappers), when it is rendered window text.

    What compression counts key facts in: the agent is sent its instructions
    again anyway, so a name that stands only there is no fact of the session.
    Other text comes back unchanged.
    """
    sections = parse_sections(text)
    if sections is None or all(sec.kind != "system" for sec in sections):
        return text
    return "\n\n".join(sec.text for sec in sections if sec.kind != "system")
