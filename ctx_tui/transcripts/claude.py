"""Claude Code session JSONL -> entries.

One row per line. What each row becomes:

* ``user`` rows: ``tool_result`` blocks -> TOOL_RESULT (role ``tool``); the
  compaction summary (``isCompactSummary``) -> SUMMARY; ``isMeta`` rows, local
  command output and caveats, interruptions, built-in slash commands -> SYSTEM;
  a custom slash command (``<command-name>/x</command-name>`` + args) is the
  user's prompt -> USER ``/x args``; any other text -> USER, which opens a round.
* ``assistant`` rows (one per content block, sharing ``message.id``): ``text`` ->
  ASSISTANT, ``thinking`` -> THINKING, ``tool_use`` -> TOOL_CALL. The usage is
  attached once per ``message.id`` (later rows of the same id update it); API
  error rows and the ``<synthetic>`` model are not usage sources (SYSTEM notes,
  outside the context).
* ``system`` rows: ``compact_boundary`` -> a Compaction (the live window starts
  at the next entry, the ``isCompactSummary`` row); the others are UI notes ->
  SYSTEM entries outside the context.
* ``summary`` rows (old layout) are session *titles* for the resume list, never
  sent to the model: a SUMMARY entry outside the context, and ``meta.extra["title"]``.
* ``isSidechain`` rows (old layout) and files under ``<session>/subagents/``
  are sub-agent traffic: ``is_sidechain`` entries, outside the main window, no
  rounds, no usage. A subagent file opened on its own (under ``subagents/``, or
  any file whose first user/assistant row is a sidechain row) is read as a main chain.
* ``file-history-snapshot``, ``queue-operation`` and ``progress`` rows carry
  nothing the panels show and are skipped before JSON parsing.
"""

from __future__ import annotations

import re
from typing import Any

from ctx_tui.transcripts.builder import Transcript, content_text
from ctx_tui.transcripts.model import Compaction, Entry, Kind, Usage

#: Cheap byte tests for rows skipped without parsing.
SKIP_PREFIXES = (b'{"type":"file-history-snapshot"', b'{"type":"queue-operation"', b'{"type":"last-prompt"')
SKIP_MARKERS = (b'"type":"progress","data":',)

#: Text the Claude Code client writes as a user row that the user did not type.
_WRAPPER_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "Caveat: The messages below were generated",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<system-reminder>",
    "<user-memory-input>",
    "<ide_opened_file>",
    "<ide_selection>",
    "<ide_diagnostics>",
    "[Request interrupted by user",
    "<task-notification>",
)
#: Built-in commands that talk to the client, not to the model.
_BUILTIN_COMMANDS = frozenset(
    "clear compact model cost context config status help exit quit resume login logout memory "
    "permissions mcp doctor hooks agents ide vim terminal-setup export bashes add-dir statusline "
    "upgrade usage rewind todos output-style release-notes privacy-settings theme".split()
)
_COMMAND_RE = re.compile(r"<command-name>\s*/?([^<\s]*)\s*</command-name>")
_ARGS_RE = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_SYNTHETIC = "<synthetic>"
_USAGE_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
#: Row types Claude Code writes (``user`` rows also carry ids or a ``message``).
CLAUDE_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "progress", "last-prompt"}
)


def is_claude_row(row: dict[str, Any]) -> bool:
    """A row with a Claude row ``type`` and Claude ids (a bare ``{"type": "user"}`` is not enough)."""
    rtype = row.get("type")
    return rtype in CLAUDE_TYPES and (
        "message" in row or "uuid" in row or "sessionId" in row or "leafUuid" in row or "snapshot" in row or rtype != "user"
    )


def classify_user_text(text: str) -> tuple[Kind, str]:
    """Whether a main-chain user text is the user's prompt (USER) or a client note (SYSTEM)."""
    stripped = text.lstrip()
    if stripped.startswith(_WRAPPER_PREFIXES):
        return Kind.SYSTEM, text
    match = _COMMAND_RE.search(stripped) if "<command-name>" in stripped[:200] else None
    if match:
        name = match.group(1)
        args_match = _ARGS_RE.search(stripped)
        args = args_match.group(1).strip() if args_match else ""
        if name in _BUILTIN_COMMANDS:
            return Kind.SYSTEM, text
        return Kind.USER, f"/{name} {args}".rstrip()
    if stripped.startswith("<command-message>"):
        return Kind.SYSTEM, text
    return Kind.USER, text


class ClaudeReader:
    """Feeds parsed Claude Code rows into a :class:`Transcript`."""

    def __init__(self, transcript: Transcript, subagent_file: bool = False, sidechain: bool = False) -> None:
        """``subagent_file``: the file opened is a sub-agent's own, read as a main chain;
        ``sidechain``: every row fed is sub-agent traffic (a ``subagents/`` file followed
        along with its session)."""
        self.t = transcript
        self.subagent_file = subagent_file
        self.sidechain = sidechain
        self._first_turn_seen = subagent_file or sidechain
        self._usage_by_message: dict[str, Usage] = {}

    @staticmethod
    def prepare(line: bytes) -> bytes | None:
        """The bytes of ``line`` worth parsing, or None for rows dropped unparsed.

        Tool-result rows end with ``toolUseResult``, the client's own copy of
        the result (often larger than the message itself, and unused here): it
        is cut off before parsing. A raw ``"toolUseResult":`` can only be a key,
        since quotes inside JSON strings are escaped; if the cut form does not
        parse, the caller parses the whole line.
        """
        if line.startswith(SKIP_PREFIXES):
            return None
        head = line[:600]
        if any(marker in head for marker in SKIP_MARKERS):
            return None
        cut = line.find(b',"toolUseResult":')
        return line[:cut] + b"}" if cut > 0 else line

    def feed(self, row: dict[str, Any]) -> bool:
        kind = row.get("type")
        if not self._first_turn_seen and (kind == "user" or kind == "assistant"):
            # A file whose conversation starts on a sidechain is a sub-agent's own
            # (older layout: agent-<id>.jsonl beside the sessions): its main chain.
            self._first_turn_seen = True
            self.subagent_file = bool(row.get("isSidechain"))
        side = self.sidechain or (bool(row.get("isSidechain")) and not self.subagent_file)
        if not side and (kind == "user" or self.t.meta.session_id is None):
            self._meta(row)
        if kind == "user":
            self._user(row, side)
        elif kind == "assistant":
            self._assistant(row, side)
        elif kind == "system":
            self._system(row, side)
        elif kind == "summary":
            title = str(row.get("summary") or "")
            if title:
                self.t.meta.extra["title"] = title
                self.t.add(Kind.SUMMARY, "system", title, uuid=row.get("leafUuid"), in_context=False)
        return True

    def _meta(self, row: dict[str, Any]) -> None:
        meta = self.t.meta
        if meta.session_id is None and isinstance(row.get("sessionId"), str):
            meta.session_id = row["sessionId"]
        if isinstance(row.get("cwd"), str):
            meta.cwd = row["cwd"]
        if isinstance(row.get("version"), str):
            meta.agent_version = row["version"]
        if isinstance(row.get("gitBranch"), str):
            meta.git_branch = row["gitBranch"] or meta.git_branch

    def _user(self, row: dict[str, Any], side: bool) -> None:
        message = row.get("message")
        if not isinstance(message, dict):
            return
        content = message.get("content")
        common: dict[str, Any] = {"timestamp": row.get("timestamp"), "uuid": row.get("uuid"), "is_sidechain": side}
        if row.get("isCompactSummary"):
            self.t.add(Kind.SUMMARY, "user", content_text(content), **common)
            return
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_result":
                    self.t.add(
                        Kind.TOOL_RESULT,
                        "tool",
                        content_text(block.get("content")),
                        tool_use_id=block.get("tool_use_id"),
                        is_error=bool(block.get("is_error")),
                        **common,
                    )
                elif block.get("type") == "text" and block.get("text"):
                    self.t.add(Kind.SYSTEM, "user", str(block["text"]), **common)
            return
        if row.get("isMeta"):
            text = content_text(content)
            if text:
                self.t.add(Kind.SYSTEM, "user", text, **common)
            return
        # Each text block on its own: the client puts reminders and IDE context in
        # blocks of their own before the prompt.
        blocks = [content_text([b]) for b in content] if isinstance(content, list) else [content_text(content)]
        prompt: list[str] = []
        notes: list[str] = []
        for block in blocks:
            if block:
                kind, shown = classify_user_text(block)
                (prompt if kind == Kind.USER else notes).append(shown)
        if notes:
            self.t.add(Kind.SYSTEM, "user", "\n".join(notes), **common)
        if prompt:
            if not side:
                self.t.start_round()
            self.t.add(Kind.USER, "user", "\n".join(prompt), **common)

    def _assistant(self, row: dict[str, Any], side: bool) -> None:
        message = row.get("message")
        if not isinstance(message, dict):
            return
        model = message.get("model")
        error = bool(row.get("isApiErrorMessage")) or model == _SYNTHETIC
        if not side and not error and isinstance(model, str) and model:
            self.t.meta.model = model
        message_id = message.get("id") if isinstance(message.get("id"), str) else None
        usage = None if side or error else self._usage(message.get("usage"), message_id)
        common: dict[str, Any] = {
            "timestamp": row.get("timestamp"),
            "uuid": row.get("uuid"),
            "message_id": message_id,
            "is_sidechain": side,
        }
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return
        for block in content:
            if not isinstance(block, dict):
                continue
            entry = self._assistant_block(block, error, common)
            if entry is not None and usage is not None:
                entry.usage = usage
                usage = None  # once per message.id

    def _assistant_block(self, block: dict[str, Any], error: bool, common: dict[str, Any]) -> Entry | None:
        btype = block.get("type")
        if btype == "text":
            text = str(block.get("text") or "")
            if error:
                return self.t.add(Kind.SYSTEM, "assistant", text, in_context=False, **common)
            return self.t.add(Kind.ASSISTANT, "assistant", text, **common) if text else None
        if btype in ("thinking", "redacted_thinking"):
            text = str(block.get("thinking") or "") if btype == "thinking" else "[redacted thinking]"
            return self.t.add(Kind.THINKING, "assistant", text, **common)
        if btype in ("tool_use", "server_tool_use"):
            name = str(block.get("name") or "")
            raw = block.get("input")
            data = raw if isinstance(raw, dict) else {"raw": str(raw)}
            return self.t.add_tool_call(name, data, tool_use_id=block.get("id"), **common)
        return None

    def _usage(self, raw: Any, message_id: str | None) -> Usage | None:
        """Report the row's usage; return it only for the first row of its message.id."""
        if not isinstance(raw, dict):
            return None

        fields = {key: value if isinstance(value := raw.get(key), int) else 0 for key in _USAGE_KEYS}
        context = fields["input_tokens"] + fields["cache_creation_input_tokens"] + fields["cache_read_input_tokens"]
        if not self.t.plausible(context, *fields.values()):
            return None
        known = self._usage_by_message.get(message_id) if message_id else None
        if known is not None:
            known.context_tokens = context
            for key, value in fields.items():
                setattr(known, key, value)
            self.t.report_usage(known)
            return None
        usage = Usage(context_tokens=context, **fields)
        if message_id:
            self._usage_by_message[message_id] = usage
        self.t.report_usage(usage)
        return usage

    def _system(self, row: dict[str, Any], side: bool) -> None:
        if row.get("subtype") == "compact_boundary" and not side:
            meta = row.get("compactMetadata")
            if not isinstance(meta, dict):
                meta = {}
            pre = meta.get("preTokens")
            self.t.compact(
                Compaction(
                    seq=len(self.t.entries),
                    timestamp=row.get("timestamp"),
                    trigger=meta.get("trigger") if isinstance(meta.get("trigger"), str) else None,
                    pre_tokens=pre if isinstance(pre, int) and self.t.plausible(pre) else None,
                )
            )
            return
        text = row.get("content")
        if isinstance(text, str) and text:
            self.t.add(
                Kind.SYSTEM,
                "system",
                text,
                timestamp=row.get("timestamp"),
                uuid=row.get("uuid"),
                is_sidechain=side,
                in_context=False,
            )
