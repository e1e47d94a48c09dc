"""Generic chat transcripts: OpenAI-style ``{role, content}`` messages.

Accepted as a JSON array, a JSON object with a ``messages`` array, or JSONL
with one message per line. ``content`` may be a string or a list of parts
(``{"type": "text", "text": ...}``; image parts count as ``[image]``).
Roles: ``user`` -> USER (opens a round); ``assistant`` -> ASSISTANT, plus one
TOOL_CALL per entry of ``tool_calls``; ``tool`` / ``function`` -> TOOL_RESULT;
``system`` / ``developer`` and anything else -> SYSTEM. These files report no
usage: every figure is estimated from token counts.
"""

from __future__ import annotations

from typing import Any

import orjson

from ctx_tui.transcripts.builder import Transcript, content_text
from ctx_tui.transcripts.model import Kind


def messages_of(document: Any) -> list[Any] | None:
    """The message list of a whole JSON document, or None if it is not a chat."""
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        document = document["messages"]
    if isinstance(document, list):
        return document
    return None


def is_generic_row(row: dict[str, Any]) -> bool:
    """An OpenAI-style message: a string ``role``."""
    return isinstance(row.get("role"), str)


class GenericReader:
    """Feeds ``{role, content}`` messages into a :class:`Transcript`."""

    def __init__(self, transcript: Transcript) -> None:
        self.t = transcript

    @staticmethod
    def prepare(line: bytes) -> bytes | None:
        return line

    def feed(self, row: dict[str, Any]) -> bool:
        """Add one message; False when the row is not a message (counted as skipped)."""
        role = row.get("role")
        if not isinstance(role, str):
            return False
        text = content_text(row.get("content"))
        ts = row.get("timestamp") if isinstance(row.get("timestamp"), str) else None
        if role == "user":
            self.t.start_round()
            self.t.add(Kind.USER, "user", text, timestamp=ts)
        elif role == "assistant":
            if text:
                self.t.add(Kind.ASSISTANT, "assistant", text, timestamp=ts)
            for call in row.get("tool_calls") or []:
                self._tool_call(call, ts)
        elif role in ("tool", "function"):
            call_id = row.get("tool_call_id") if isinstance(row.get("tool_call_id"), str) else None
            name = row.get("name") if isinstance(row.get("name"), str) else None
            self.t.add(Kind.TOOL_RESULT, "tool", text, timestamp=ts, tool_use_id=call_id, tool_name=name)
        else:
            self.t.add(Kind.SYSTEM, role, text, timestamp=ts)
        if isinstance(row.get("model"), str):
            self.t.meta.model = row["model"]
        return True

    def _tool_call(self, call: Any, ts: str | None) -> None:
        if not isinstance(call, dict):
            return
        fn = call.get("function")
        if not isinstance(fn, dict):
            fn = call
        name = str(fn.get("name") or "")
        raw = fn.get("arguments")
        try:
            data = orjson.loads(raw) if isinstance(raw, str) else raw
        except orjson.JSONDecodeError:
            data = None
        if not isinstance(data, dict):
            data = {"raw": raw if isinstance(raw, str) else str(raw)}
        call_id = call.get("id") if isinstance(call.get("id"), str) else None
        self.t.add_tool_call(name, data, timestamp=ts, tool_use_id=call_id)
