"""Gemini CLI chats (``~/.gemini/tmp/<project>/chats/session-*.json[l]``) -> entries.

Two layouts carry the same records:

* the older whole JSON document ``{"sessionId", "projectHash", "startTime",
  "lastUpdated", "messages": [...]}`` (pretty-printed, rewritten on every change);
* the newer JSONL: a header row ``{"sessionId", "projectHash", "startTime",
  "lastUpdated", "kind"}``, one row per message, and ``{"$set": {...}}`` rows
  that patch the header (``lastUpdated``; a ``messages`` list there holds
  messages too). A ``gemini`` message is written when the turn starts and again,
  with the same ``id``, once its tool calls and usage are known: a repeated id
  adds only what is new (text, thoughts, tool calls) and updates the usage.
  ``{"$rewindTo": id}`` (``/rewind``) drops that message and every later one:
  their entries stay in the session but leave the context, and the usage is
  again the last one reported before them.

What each message becomes:

* ``user``: the text parts -> USER (opens a round). A message whose
  ``displayContent`` shows no text (only tool responses: the CLI continuing
  by itself after a tool, e.g. "System: Please continue.") -> SYSTEM.
* ``gemini``: ``thoughts`` (subject + description) -> THINKING, ``content`` ->
  ASSISTANT, each of ``toolCalls`` -> TOOL_CALL (name, ``args``, id) followed by
  its TOOL_RESULT (the ``functionResponse`` output, else ``resultDisplay``).
  ``tokens`` is the reported usage: the context is ``input`` (the prompt,
  cached tokens included) + ``tool`` (tool-use prompt tokens); ``model`` names the model.
* ``info`` / ``warning`` / ``error``: CLI notes -> SYSTEM outside the context.
"""

from __future__ import annotations

from typing import Any

from ctx_tui.transcripts.builder import Transcript, content_text
from ctx_tui.transcripts.model import Entry, Kind, Usage

_NOTE_TYPES = frozenset({"info", "warning", "error"})
_MESSAGE_TYPES = frozenset({"user", "gemini"}) | _NOTE_TYPES


def is_gemini_row(row: dict[str, Any]) -> bool:
    """A chat header (``sessionId`` + ``projectHash``), a ``$set`` patch, or a Gemini message.

    A message is ``{id, type, content}`` with a Gemini type and none of Claude's
    keys (``message``, ``uuid``); ``type: "gemini"`` says it alone.
    """
    if "projectHash" in row and "sessionId" in row and "type" not in row:
        return True
    if len(row) == 1 and (isinstance(row.get("$set"), dict) or "$rewindTo" in row):
        return True
    rtype = row.get("type")
    if rtype == "gemini":
        return True
    return rtype in _MESSAGE_TYPES and "content" in row and "id" in row and "message" not in row and "uuid" not in row


def _text(content: Any) -> str:
    return content_text(content)


def _list(value: Any) -> list[Any]:
    """``value`` if it is a list, else empty (rows are untrusted: read defensively)."""
    return value if isinstance(value, list) else []


def _shows_text(display: Any) -> bool:
    """Whether a ``displayContent`` has any text part (the user typed something)."""
    if isinstance(display, str):
        return bool(display.strip())
    if isinstance(display, list):
        return any(isinstance(p, str) or (isinstance(p, dict) and isinstance(p.get("text"), str)) for p in display)
    return True


def _result_text(call: dict[str, Any]) -> str:
    """What a tool call returned: its ``functionResponse`` outputs, else what the CLI displayed."""
    parts: list[str] = []
    for item in _list(call.get("result")):
        response = item.get("functionResponse") if isinstance(item, dict) else None
        if isinstance(response, dict):
            body = response.get("response")
            if isinstance(body, dict):
                value = body.get("output", body.get("error", body))
                parts.append(value if isinstance(value, str) else str(value))
            elif body is not None:
                parts.append(str(body))
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            parts.append(item["text"])
    if parts:
        return "\n".join(parts)
    display = call.get("resultDisplay")
    if isinstance(display, str):
        return display
    if isinstance(display, dict):
        return str(display.get("fileDiff") or display.get("newContent") or "")
    return ""


class _Seen:
    """What a message id has added so far (the JSONL form writes a message more than once)."""

    __slots__ = ("text", "thoughts", "calls", "last")

    def __init__(self) -> None:
        self.text = ""
        self.thoughts = 0
        self.calls: set[str] = set()
        self.last: Entry | None = None


class GeminiReader:
    """Feeds Gemini CLI chat rows (header, messages, ``$set`` patches) into a :class:`Transcript`."""

    def __init__(self, transcript: Transcript) -> None:
        self.t = transcript
        self._seen: dict[str, _Seen] = {}
        self._usage: dict[str, Usage] = {}

    @staticmethod
    def prepare(line: bytes) -> bytes | None:
        return line

    def feed(self, row: dict[str, Any]) -> bool:
        patch = row.get("$set")
        if isinstance(patch, dict) and len(row) == 1:
            self._header(patch)
            for message in _list(patch.get("messages")):
                if isinstance(message, dict):
                    self._message(message)
            return True
        if "$rewindTo" in row:
            self._rewind(row["$rewindTo"])
            return True
        if "type" not in row:
            if "sessionId" in row or "projectHash" in row:
                self._header(row)
                return True
            return False
        return self._message(row)

    def _rewind(self, target: Any) -> None:
        """``{"$rewindTo": id}``: the message ``id`` and every later one leave the conversation.

        As Gemini CLI loads its chat: an id it does not hold drops every message.
        """
        if not isinstance(target, str):
            return
        entries = self.t.entries
        start = next(
            (i for i, e in enumerate(entries) if e.message_id == target or (e.message_id is None and e.uuid == target)),
            0,
        )
        for entry in entries[start:]:
            mid = entry.message_id or entry.uuid
            if mid is not None:
                self._seen.pop(mid, None)
                self._usage.pop(mid, None)
        self.t.rewind(start)

    def _header(self, row: dict[str, Any]) -> None:
        meta = self.t.meta
        if isinstance(row.get("sessionId"), str):
            meta.session_id = row["sessionId"]
        for key, name in (("projectHash", "project_hash"), ("startTime", "start_time"), ("lastUpdated", "last_updated"), ("kind", "kind")):
            if isinstance(row.get(key), str):
                meta.extra[name] = row[key]
        if isinstance(row.get("summary"), str) and row["summary"]:
            meta.extra["title"] = row["summary"]

    def _message(self, row: dict[str, Any]) -> bool:
        rtype = row.get("type")
        if rtype not in _MESSAGE_TYPES:
            return False
        ts = row.get("timestamp") if isinstance(row.get("timestamp"), str) else None
        mid = row.get("id") if isinstance(row.get("id"), str) else None
        if rtype == "gemini":
            self._gemini(row, mid, ts)
            return True
        if mid is not None:
            if mid in self._seen:
                return True  # the same user message or note written again
            self._seen[mid] = _Seen()
        text = _text(row.get("content"))
        if rtype in _NOTE_TYPES:
            if text:
                self.t.add(Kind.SYSTEM, "system", text, timestamp=ts, uuid=mid, in_context=False)
            return True
        if "displayContent" in row and not _shows_text(row["displayContent"]):
            self.t.add(Kind.SYSTEM, "user", text, timestamp=ts, uuid=mid)
            return True
        self.t.start_round()
        self.t.add(Kind.USER, "user", text, timestamp=ts, uuid=mid)
        return True

    def _gemini(self, row: dict[str, Any], mid: str | None, ts: str | None) -> None:
        seen = self._seen.get(mid) if mid is not None else None
        if seen is None:
            seen = _Seen()
            if mid is not None:
                self._seen[mid] = seen
        common: dict[str, Any] = {"timestamp": ts, "message_id": mid}
        if isinstance(row.get("model"), str) and row["model"]:
            self.t.meta.model = row["model"]
        thoughts = _list(row.get("thoughts"))
        for thought in thoughts[seen.thoughts :]:
            if isinstance(thought, dict):
                subject, description = str(thought.get("subject") or ""), str(thought.get("description") or "")
                text = f"{subject}: {description}" if subject and description else subject or description
                if text:
                    seen.last = self.t.add(Kind.THINKING, "assistant", text, **common)
        seen.thoughts = max(seen.thoughts, len(thoughts))
        text = _text(row.get("content"))
        if text and text != seen.text:
            seen.last = self.t.add(Kind.ASSISTANT, "assistant", text[len(seen.text) :] if text.startswith(seen.text) else text, **common)
            seen.text = text
        for call in _list(row.get("toolCalls")):
            if not isinstance(call, dict):
                continue
            call_id = call.get("id") if isinstance(call.get("id"), str) else None
            key = call_id or f"{len(seen.calls)}"
            if key in seen.calls:
                continue
            seen.calls.add(key)
            name = str(call.get("name") or "")
            args = call.get("args")
            data = args if isinstance(args, dict) else {"raw": "" if args is None else str(args)}
            self.t.add_tool_call(name, data, uuid=call_id, tool_use_id=call_id, **common)
            seen.last = self.t.add(
                Kind.TOOL_RESULT,
                "tool",
                _result_text(call),
                tool_use_id=call_id,
                tool_name=name,
                is_error=call.get("status") == "error",
                **common,
            )
        self._report(row.get("tokens"), mid, seen.last)

    def _report(self, tokens: Any, mid: str | None, entry: Entry | None) -> None:
        if not isinstance(tokens, dict):
            return
        fields = {k: v if type(v := tokens.get(k)) is int and v >= 0 else 0 for k in ("input", "output", "cached", "tool")}
        if not self.t.plausible(fields["input"] + fields["tool"], *fields.values()):
            return
        usage = self._usage.get(mid) if mid is not None else None
        if usage is None:
            usage = Usage(context_tokens=0)
            if mid is not None:
                self._usage[mid] = usage
        usage.context_tokens = fields["input"] + fields["tool"]
        usage.input_tokens = fields["input"]
        usage.output_tokens = fields["output"]
        usage.cache_read_input_tokens = fields["cached"]
        if entry is not None and entry.usage is None:
            entry.usage = usage
        self.t.report_usage(usage)
