"""pi coding agent sessions (``~/.pi/agent/sessions/--<cwd>--/*.jsonl``) -> entries.

Read from pi's own description of its files (badlogic/pi-mono,
``packages/coding-agent/docs/session.md``) and real sessions. One JSON row a line:

* ``{"type": "session", "id", "cwd", ...}``: the header (the first row). Version 1
  (no ``version``) also names ``provider`` / ``modelId``.
* ``{"type": "message", "message": {"role": ...}}``: ``user`` -> USER (opens a
  round); ``assistant`` -> ASSISTANT (``text``), THINKING (``thinking``) and a
  TOOL_CALL per ``toolCall`` (name, ``arguments``, id), with its ``model`` and
  ``usage``; ``toolResult`` -> TOOL_RESULT; ``bashExecution`` (a ``!command`` the
  user ran) -> SYSTEM, outside the context when ``excludeFromContext``;
  ``custom`` (an extension's message) -> SYSTEM; ``branchSummary`` /
  ``compactionSummary`` -> SUMMARY.
* ``model_change`` -> the model; ``compaction`` -> a compaction whose live window
  starts at its first kept entry (``firstKeptEntryId``, or version 1's
  ``firstKeptEntryIndex``, a row number) and holds its ``summary``;
  ``branch_summary`` / ``custom_message`` -> SUMMARY / SYSTEM in the context;
  ``session_info`` -> the title; ``thinking_level_change``, ``custom`` and
  ``label`` carry nothing shown.

Usage is pi's own rule: ``totalTokens`` (else ``input + output + cacheRead +
cacheWrite``) of the last assistant message that was not aborted or an error.

From version 2 rows form a tree (``id`` / ``parentId``): a row whose parent is
not the row before it continues the conversation from that row (``/tree``, a
branch): the context is then the path from the root to it, as pi builds it;
the other rows' entries leave it (and come back when a later row continues
their branch).
"""

from __future__ import annotations

from typing import Any

from ctx_tui.transcripts.builder import Transcript, content_text
from ctx_tui.transcripts.model import Compaction, Kind, Usage

#: Row types of a pi session besides ``session`` and ``message``.
_ENTRY_TYPES = frozenset(
    {"model_change", "thinking_level_change", "compaction", "branch_summary", "custom", "custom_message", "label", "session_info"}
)
#: Roles of ``message.role`` that only pi writes.
_PI_ROLES = frozenset({"toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary", "hookMessage"})
_USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


def is_pi_row(row: dict[str, Any]) -> bool:
    """pi's header (``type: session`` with a ``cwd``) or a ``type: message`` row whose ``message`` has a role."""
    rtype = row.get("type")
    if rtype == "session":
        return "cwd" in row and "payload" not in row
    if rtype == "message":
        message = row.get("message")
        return isinstance(message, dict) and isinstance(message.get("role"), str)
    return False


def _int(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


class PiReader:
    """Feeds pi session rows into a :class:`Transcript`."""

    def __init__(self, transcript: Transcript) -> None:
        self.t = transcript
        self._rows = 0  # rows read, the header included (version 1 names rows by this number)
        self._start_of_row: dict[int, int] = {}  # row number -> the first entry it wrote
        self._span: dict[str, tuple[int, int]] = {}  # row id -> the entries it wrote (start, end)
        self._parent: dict[str, str | None] = {}  # row id -> its parent's id
        self._natural: list[bool] = []  # each entry's own in_context (a note stays out on any path)
        self._last_id: str | None = None

    @staticmethod
    def prepare(line: bytes) -> bytes | None:
        return line

    def feed(self, row: dict[str, Any]) -> bool:
        rtype = row.get("type")
        if rtype == "session":
            self._header(row)
        elif rtype == "message" or rtype in _ENTRY_TYPES:
            self._branch(row)
            start = len(self.t.entries)
            if rtype == "message":
                if not self._message(row):
                    return False
            else:
                self._entry(rtype, row)
            self._written(row, start)
        else:
            return False
        self._rows += 1
        return True

    def _header(self, row: dict[str, Any]) -> None:
        meta = self.t.meta
        if isinstance(row.get("id"), str):
            meta.session_id = row["id"]
        if isinstance(row.get("cwd"), str):
            meta.cwd = row["cwd"]
        if isinstance(row.get("modelId"), str) and row["modelId"]:
            meta.model = row["modelId"]
        for key, name in (("version", "version"), ("parentSession", "parent_session"), ("branchedFrom", "parent_session"), ("provider", "provider")):
            if isinstance(row.get(key), (str, int)):
                meta.extra[name] = row[key]

    def _branch(self, row: dict[str, Any]) -> None:
        """A row that continues from another row than the last: the context is the path from the root to it."""
        rid, parent = row.get("id"), row.get("parentId")
        if not isinstance(rid, str) or "parentId" not in row or not (parent is None or isinstance(parent, str)):
            return
        if parent != self._last_id and (parent is None or parent in self._parent):
            path: set[str] = set()
            while parent is not None and parent not in path:
                path.add(parent)
                parent = self._parent.get(parent)
            flags = {}
            for row_id, (start, end) in self._span.items():
                for index in range(start, end):
                    flags[index] = row_id in path and self._natural[index]
            self.t.reselect(flags)
        self._parent[rid] = row.get("parentId")
        self._last_id = rid

    def _written(self, row: dict[str, Any], start: int) -> None:
        end = len(self.t.entries)
        self._natural.extend(e.in_context for e in self.t.entries[start:end])
        self._start_of_row[self._rows] = start
        if isinstance(row.get("id"), str):
            self._span[row["id"]] = (start, end)

    def _entry(self, rtype: str, row: dict[str, Any]) -> None:
        ts = row.get("timestamp") if isinstance(row.get("timestamp"), str) else None
        uid = row.get("id") if isinstance(row.get("id"), str) else None
        if rtype == "model_change" and isinstance(row.get("modelId"), str) and row["modelId"]:
            self.t.meta.model = row["modelId"]
        elif rtype == "compaction":
            self._compaction(row, ts, uid)
        elif rtype == "branch_summary":
            self.t.add(Kind.SUMMARY, "user", str(row.get("summary") or ""), timestamp=ts, uuid=uid)
        elif rtype == "custom_message":
            self.t.add(Kind.SYSTEM, "user", content_text(row.get("content")), timestamp=ts, uuid=uid)
        elif rtype == "session_info" and isinstance(row.get("name"), str) and row["name"]:
            self.t.meta.extra["title"] = row["name"]

    def _compaction(self, row: dict[str, Any], ts: str | None, uid: str | None) -> None:
        kept = row.get("firstKeptEntryId")
        index = row.get("firstKeptEntryIndex")
        if isinstance(kept, str):
            first = self._span[kept][0] if kept in self._span else None
        elif type(index) is int:
            first = self._start_of_row.get(index)
        else:
            first = None
        before = row.get("tokensBefore")
        self.t.compact(
            Compaction(
                seq=len(self.t.entries) if first is None else first,
                timestamp=ts,
                trigger="auto" if not row.get("fromHook") else "extension",
                pre_tokens=before if type(before) is int and self.t.plausible(before) else None,
            )
        )
        self.t.add(Kind.SUMMARY, "user", str(row.get("summary") or ""), timestamp=ts, uuid=uid)

    def _message(self, row: dict[str, Any]) -> bool:
        message = row.get("message")
        if not isinstance(message, dict):
            return False
        role = message.get("role")
        ts = row.get("timestamp") if isinstance(row.get("timestamp"), str) else None
        uid = row.get("id") if isinstance(row.get("id"), str) else None
        text = content_text(message.get("content")) if role != "assistant" else ""
        if role == "user":
            self.t.start_round()
            self.t.add(Kind.USER, "user", text, timestamp=ts, uuid=uid)
        elif role == "assistant":
            self._assistant(message, ts, uid)
        elif role == "toolResult":
            call_id = message.get("toolCallId") if isinstance(message.get("toolCallId"), str) else None
            name = message.get("toolName") if isinstance(message.get("toolName"), str) else None
            self.t.add(Kind.TOOL_RESULT, "tool", text, timestamp=ts, uuid=uid, tool_use_id=call_id, tool_name=name,
                       is_error=bool(message.get("isError")))
        elif role == "bashExecution":
            shown = f"$ {message.get('command') or ''}\n{message.get('output') or ''}".rstrip()
            self.t.add(Kind.SYSTEM, "user", shown, timestamp=ts, uuid=uid, in_context=not message.get("excludeFromContext"))
        elif role in ("branchSummary", "compactionSummary"):
            self.t.add(Kind.SUMMARY, "user", str(message.get("summary") or ""), timestamp=ts, uuid=uid)
        elif role in _PI_ROLES:  # custom (hookMessage before version 3): an extension's message
            self.t.add(Kind.SYSTEM, "user", text, timestamp=ts, uuid=uid)
        else:
            return False
        return True

    def _assistant(self, message: dict[str, Any], ts: str | None, uid: str | None) -> None:
        stop = message.get("stopReason")
        failed = stop in ("aborted", "error")
        model = message.get("model")
        if not failed and isinstance(model, str) and model:
            self.t.meta.model = model
        usage = None if failed else self._usage(message.get("usage"))
        common: dict[str, Any] = {"timestamp": ts, "uuid": uid}
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            entry = None
            if btype == "text" and block.get("text"):
                entry = self.t.add(Kind.ASSISTANT, "assistant", str(block["text"]), **common)
            elif btype == "thinking" and block.get("thinking"):
                entry = self.t.add(Kind.THINKING, "assistant", str(block["thinking"]), **common)
            elif btype == "toolCall":
                raw = block.get("arguments")
                data = raw if isinstance(raw, dict) else {"raw": "" if raw is None else str(raw)}
                call_id = block.get("id") if isinstance(block.get("id"), str) else None
                entry = self.t.add_tool_call(str(block.get("name") or ""), data, tool_use_id=call_id, **common)
            if entry is not None and usage is not None:
                entry.usage, usage = usage, None  # once per message
        if failed and isinstance(message.get("errorMessage"), str) and message["errorMessage"]:
            self.t.add(Kind.SYSTEM, "assistant", message["errorMessage"], in_context=False, **common)

    def _usage(self, raw: Any) -> Usage | None:
        if not isinstance(raw, dict):
            return None
        fields = {key: _int(raw.get(key)) for key in _USAGE_KEYS}
        context = fields["totalTokens"] or fields["input"] + fields["output"] + fields["cacheRead"] + fields["cacheWrite"]
        if not self.t.plausible(context, *fields.values()):
            return None
        usage = Usage(
            context_tokens=context,
            input_tokens=fields["input"],
            output_tokens=fields["output"],
            cache_read_input_tokens=fields["cacheRead"],
            cache_creation_input_tokens=fields["cacheWrite"],
        )
        self.t.report_usage(usage)
        return usage
