"""Codex CLI rollout JSONL (``{timestamp, type, payload}`` lines) -> entries.

* ``session_meta`` -> meta (id, cwd, cli_version, originator); ``turn_context``
  -> the model; ``task_started`` / ``token_count`` -> the context window.
* ``response_item`` is the source of the conversation (it is what the model
  sees): ``message`` by role (``developer`` -> SYSTEM; ``user`` -> USER or, for
  the client's wrappers such as ``<environment_context>`` / AGENTS.md
  instructions, SYSTEM; ``assistant`` -> ASSISTANT), ``reasoning`` -> THINKING
  (summary and reasoning text; encrypted content is not text), ``function_call``
  / ``custom_tool_call`` / ``web_search_call`` / ``local_shell_call`` ->
  TOOL_CALL, ``*_output`` -> TOOL_RESULT.
* ``event_msg`` ``agent_message`` / ``agent_reasoning`` repeat response items
  and never become entries. ``user_message`` is the authority on which user
  item is a real prompt (it opens the round): transcripts with redacted text
  cannot be told apart from the AGENTS.md wrappers by content. When the event
  comes after its response item, that item is promoted; when no user item
  precedes it (Codex Desktop writes some prompts only as the event), the event
  itself becomes the USER entry, and a response item with the same text that
  follows before the model answers is the same prompt, counted once. Until a
  session shows its first ``user_message`` event (old rollouts have none), a
  non-wrapper user item opens a round by itself.
* Client wrappers (``<environment_context>``, AGENTS.md instructions, any
  message that is one ``<snake_case_tag>…</snake_case_tag>`` block) are SYSTEM
  text, never prompts.
* ``event_msg`` ``token_count`` with ``info`` -> reported usage
  (``last_token_usage.total_tokens``, ``model_context_window``).
* ``compacted`` -> a Compaction plus a SUMMARY entry (``message`` and the text of
  ``replacement_history``; its encrypted ``compaction`` item, the server's own
  summary, is a second SUMMARY entry sized from the ciphertext, see
  :func:`~ctx_tui.transcripts.tail.sealed_chars`); the ``context_compacted`` event that goes with it is
  the same compaction, counted once. The last ``token_count`` measured the
  window before it: until the next one the figure is the post-compaction
  estimate (``ctx_tui.window``: the baseline learned from the first report of the
  session or of the last window that had one, plus the live window).
* Other ``event_msg`` rows (command output, patches, task start/end...) are
  skipped before JSON parsing.

Over 400 lines: one reader for one format, like the others; a split would cut its state
(pending calls, compactions, repeated prompts) across modules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, NamedTuple

import orjson

from ctx_tui.transcripts.builder import MAX_WINDOW, USAGE_WINDOWS_CAP, Transcript, content_text
from ctx_tui.transcripts.model import Compaction, Entry, Kind, Usage
from ctx_tui.transcripts.rows import row_shape_ok
from ctx_tui.transcripts.tail import codex_context_reading, sealed_chars

#: Event rows that are parsed; the others only repeat response items or show UI progress.
_EVENTS_KEPT = frozenset({b"token_count", b"context_compacted", b"user_message", b"task_started"})
CODEX_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
_CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
_RESULT_TYPES = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})
_ASSISTANT, _SYSTEM, _THINKING, _TOOL_RESULT = Kind.ASSISTANT, Kind.SYSTEM, Kind.THINKING, Kind.TOOL_RESULT


class _Bytes(NamedTuple):
    """The byte patterns of one JSON spelling: compact (``","``, ``":"``) or spaced (``", "``, ``": "``)."""

    type_end: int  # from ``"type":`` to the first character of its string value
    event_head: bytes
    turn_context_head: bytes
    info: bytes
    rate_limits: bytes
    turn_id: bytes
    keys: tuple[bytes, bytes]  # model, cwd


def _spelling(comma: bytes, colon: bytes) -> _Bytes:
    return _Bytes(
        len(b'"type"%s"' % colon),
        b'"type"%s"event_msg"%s"payload"%s{"type"%s"' % (colon, comma, colon, colon),
        b'"type"%s"turn_context"%s"payload"%s{' % (colon, comma, colon),
        b'"info"%s' % colon,
        b'%s"rate_limits"%s' % (comma, colon),
        b'"turn_id"%s"' % colon,
        (b'"model"%s"' % colon, b'"cwd"%s"' % colon),
    )


#: Codex writes compact JSON; other tools rewrite rows with a space after ``,`` and ``:``.
_COMPACT, _SPACED = _spelling(b",", b":"), _spelling(b", ", b": ")
#: First characters of a string that may parse as a JSON object (JSON whitespace or a brace).
_OBJECT_STARTS = frozenset("{ \t\n\r")
#: A whole message that is one ``<snake_case>...</snake_case>`` block: text the client injects.
_TAGGED_WRAPPER = re.compile(r"\A\s*<([a-z]+_[a-z_]+)>.*</\1>\s*\Z", re.S)
_WRAPPER_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<user_shell_command>",
    "<turn_aborted>",
)


def is_codex_row(row: dict[str, Any]) -> bool:
    """A ``{timestamp, type, payload}`` row of a Codex row type."""
    return "payload" in row and row.get("type") in CODEX_TYPES


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, dict) and isinstance(output.get("content"), str):
        return str(output["content"])
    return content_text(output)


def is_wrapper(text: str) -> bool:
    """True for the user-role text Codex injects (environment, instructions, shell-command echoes)."""
    head = text.lstrip()
    return head.startswith(_WRAPPER_PREFIXES) or (head.startswith("<") and _TAGGED_WRAPPER.match(head) is not None)


def _same_prompt(message: str, text: str) -> bool:
    """True when a response item's ``text`` is the prompt of a ``user_message`` event."""
    a, b = " ".join(message.split()), " ".join(text.split())
    return bool(a) and (a == b or a in b)


class CodexReader:
    """Feeds parsed Codex rollout rows into a :class:`Transcript`."""

    def __init__(self, transcript: Transcript) -> None:
        self.t = transcript
        self._user_events_seen = False
        self._candidates: list[Entry] = []  # user items not yet confirmed as prompts
        self._event_prompt: str | None = None  # text of a prompt read from its event, item not seen yet
        self._compaction_open = False  # a compaction with no entry after its summary yet
        self._last_token_count: tuple[bytes | None, int] | None = None
        self._turn_context_tail: bytes | None = None  # see _turn_context_from_bytes

    def feed_lines(self, lines: Iterable[bytes]) -> tuple[int, int]:
        """Feed JSONL ``lines``; returns (rows read, lines skipped).

        The same result as ``prepare``, ``orjson.loads``, ``row_shape_ok`` and
        ``feed`` on each line (what ``TranscriptReader`` does for the other
        formats), in one loop: a response item (half the rows of a rollout)
        whose type is found in its first bytes goes from the parse straight to
        ``_item``, without the three calls per row that cost more than its
        parse. Every other line takes the general path.
        """
        loads, malformed = orjson.loads, orjson.JSONDecodeError
        prepare, feed, item = self._prepare_at, self.feed, self._item
        compact, spaced = _COMPACT, _SPACED
        read = skipped = 0
        for line in lines:
            b = compact
            at = line.find(b'"type":"', 0, 80)
            if at < 0:
                b = spaced
                at = line.find(b'"type": "', 0, 80)
            fast = at >= 0 and line.startswith(b'response_item"', at + b.type_end)
            if not fast and prepare(line, at, b) is None:
                continue
            try:
                row = loads(line)
            except malformed:
                if line.strip():  # blank lines are not errors
                    skipped += 1
                continue
            try:
                if (
                    fast
                    and type(row) is dict
                    and type(payload := row.get("payload")) is dict
                    and row.get("type") == "response_item"
                    and "role" not in row
                    and "message" not in row
                    and type(payload.get("type")) is str
                    and type(payload.get("role", "")) is str
                ):  # of the shape row_shape_ok checks
                    ts = row.get("timestamp")
                    item(payload, ts if type(ts) is str else None)
                elif row_shape_ok(row):
                    feed(row)
                else:
                    skipped += 1
                    continue
                read += 1
            except (TypeError, ValueError, AttributeError, KeyError):
                skipped += 1  # a row of an unexpected shape: counted, never fatal
        return read, skipped

    def prepare(self, line: bytes) -> bytes | None:
        """``line``, or None for rows dropped without parsing.

        Dropped: event rows that only repeat response items or show progress; a
        ``token_count`` whose ``info`` bytes equal the previous one's in the same
        round (Codex writes each one again after the tool outputs: the usage is
        the same, and it stays attached to the entry before the first one); a
        ``turn_context`` whose model and cwd are read straight from the bytes
        (plain strings).

        The row type is read at the first ``"type":"`` (Codex writes the row's
        right after ``timestamp``), or ``"type": "`` in spaced JSON; a row with its
        keys in another order is searched for the event and turn_context heads
        instead. Any other spelling is parsed whole (same result, slower).
        """
        b = _COMPACT
        at = line.find(b'"type":"', 0, 80)
        if at < 0:
            b = _SPACED
            at = line.find(b'"type": "', 0, 80)
        if at >= 0 and line.startswith(b'response_item"', at + b.type_end):  # half the rows: straight to parsing
            return line
        return self._prepare_at(line, at, b)

    def _prepare_at(self, line: bytes, at: int, b: _Bytes) -> bytes | None:
        """``prepare`` of a row that is no response item, its first ``"type"`` at ``at`` (or -1) in spelling ``b``."""
        if at >= 0:
            if line.startswith(b.event_head, at):
                return self._event_row(line, at + len(b.event_head), b)
            if line.startswith(b.turn_context_head, at):
                return None if self._turn_context_from_bytes(line, at, b) else line
        for b in (_COMPACT, _SPACED):
            at = line.find(b.event_head, 0, 200)
            if at >= 0:
                return self._event_row(line, at + len(b.event_head), b)
            at = line.find(b.turn_context_head, 0, 200)
            if at >= 0:
                return None if self._turn_context_from_bytes(line, at, b) else line
        return line

    def _event_row(self, line: bytes, start: int, b: _Bytes) -> bytes | None:
        etype = line[start : line.find(b'"', start, start + 40)]
        if etype not in _EVENTS_KEPT:
            return None
        if etype == b"token_count":
            return self._new_token_count(line, start, b)
        return line

    def _new_token_count(self, line: bytes, start: int, b: _Bytes) -> bytes | None:
        """Read a ``token_count`` from its ``info`` object alone (the rest is rate limits).

        ``"info":null`` carries nothing. When the ``info`` bytes cannot be cut
        out or do not parse on their own, the whole row is parsed instead.
        """
        info_at = line.find(b.info, start)
        end = line.find(b.rate_limits, info_at)
        info = line[info_at + len(b.info) : end] if info_at >= 0 and end >= 0 else None
        marker = (info, self.t.round)
        if info is not None and marker == self._last_token_count:
            return None
        self._last_token_count = marker
        if info is None:
            return line
        if info == b"null":
            return None
        try:
            parsed = orjson.loads(info)
        except orjson.JSONDecodeError:
            return line
        if isinstance(parsed, dict):
            self._usage(parsed)
        return None

    def _turn_context_from_bytes(self, line: bytes, at: int, b: _Bytes) -> bool:
        """Set model and cwd from the row's bytes; False when the row must be parsed.

        Codex writes a turn_context per model call, all alike but for their
        ``turn_id``: a row whose bytes after the turn id equal those of the
        last one read here changes nothing (model and cwd lie in those bytes).
        """
        start = at + len(b.turn_context_head)
        tail = None
        if line.startswith(b.turn_id, start):
            end = line.find(b'"', start + len(b.turn_id))
            if end >= 0:
                tail = line[end:]
                if tail == self._turn_context_tail:
                    return True
        self._turn_context_tail = None
        values = []
        for key in b.keys:
            pos = line.find(key, at)
            end = line.find(b'"', pos + len(key)) if pos >= 0 else -1
            value = line[pos + len(key) : end] if end >= 0 else b"\\"
            if b"\\" in value:  # absent, or with JSON escapes: parse the row instead
                return False
            values.append(value)
        try:
            self.t.meta.model, self.t.meta.cwd = (v.decode() for v in values)
        except UnicodeDecodeError:
            return False
        self._turn_context_tail = tail
        return True

    def feed(self, row: dict[str, Any]) -> bool:
        payload = row.get("payload")
        if not isinstance(payload, dict):
            return True  # a Codex row carrying nothing (never counted as skipped)
        ts = row.get("timestamp")
        if not isinstance(ts, str):
            ts = None
        kind = row.get("type")
        if kind == "response_item":
            self._item(payload, ts if type(ts) is str else None)
        elif kind == "event_msg":
            self._event(payload, ts)
        elif kind == "turn_context":
            self._turn_context_tail = None
            if isinstance(payload.get("model"), str):
                self.t.meta.model = payload["model"]
            if isinstance(payload.get("cwd"), str):
                self.t.meta.cwd = payload["cwd"]
        elif kind == "session_meta":
            self._session_meta(payload)
        elif kind == "compacted":
            self._compacted(payload, ts)
        return True

    def _session_meta(self, p: dict[str, Any]) -> None:
        self._turn_context_tail = None  # it sets the cwd: the next turn_context must set it again
        meta = self.t.meta
        meta.session_id = p.get("id") if isinstance(p.get("id"), str) else meta.session_id
        meta.cwd = p.get("cwd") if isinstance(p.get("cwd"), str) else meta.cwd
        meta.agent_version = p.get("cli_version") if isinstance(p.get("cli_version"), str) else meta.agent_version
        for key in ("originator", "model_provider", "source"):
            if isinstance(p.get(key), str):
                meta.extra[key] = p[key]
        git = p.get("git")
        if isinstance(git, dict) and isinstance(git.get("branch"), str):
            meta.git_branch = git["branch"]

    def _add(self, kind: Kind, role: str, text: str, ts: str | None, call_id: str | None = None) -> Entry:
        self._compaction_open = False
        return self.t.add(kind, role, text, timestamp=ts, uuid=call_id, tool_use_id=call_id)

    def _item(self, p: dict[str, Any], ts: str | None) -> None:
        # The hot path of a cold read (one call per response item): Kind members
        # come from module constants (an enum attribute lookup costs as much as a
        # dict lookup), the transcript's ``add`` is called without ``_add`` and the
        # candidate list is only settled when it holds one.
        ptype = p.get("type")
        if ptype == "message":
            role = p.get("role")
            content = p.get("content")
            text = content if isinstance(content, str) else content_text(content)
            if role == "user":
                self._user_item(text, ts)
                return
            self._compaction_open = False
            if role == "assistant":
                if self._candidates:
                    self._settle_candidates()
                self._event_prompt = None
                self.t.add(_ASSISTANT, "assistant", text, timestamp=ts)
            else:
                self.t.add(_SYSTEM, "system", text, timestamp=ts)
            return
        if self._candidates:
            self._settle_candidates()
        self._event_prompt = None
        if ptype in _RESULT_TYPES:
            call_id = p.get("call_id")
            if type(call_id) is not str:
                call_id = None
            output = p.get("output")
            text = output if isinstance(output, str) else _output_text(output)
            self._compaction_open = False
            self.t.add(_TOOL_RESULT, "tool", text, timestamp=ts, uuid=call_id, tool_use_id=call_id)
        elif ptype in _CALL_TYPES:
            self._tool_call(p, ts)
        elif ptype == "reasoning":
            parts = []
            for key in ("summary", "content"):
                for block in p.get(key) or ():
                    if isinstance(block, dict) and (part := block.get("text", "")):
                        parts.append(part if type(part) is str else str(part))
            self._compaction_open = False
            self.t.add(_THINKING, "assistant", "\n".join(parts), timestamp=ts)

    def _tool_call(self, p: dict[str, Any], ts: str | None) -> None:
        ptype = p["type"]
        call_id = p.get("call_id") if isinstance(p.get("call_id"), str) else None
        json_text = None
        if ptype == "function_call":
            name = str(p.get("name") or "")
            raw = p.get("arguments")
            if not isinstance(raw, str):
                data = raw
            elif raw[:1] in _OBJECT_STARTS:
                try:
                    data = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    data = None
            else:  # cannot be a JSON object (redacted transcripts): no parse, no exception
                data = None
            if isinstance(data, dict):
                json_text = raw if isinstance(raw, str) else None
            else:
                data = {"raw": raw if isinstance(raw, str) else str(raw)}
        elif ptype == "custom_tool_call":
            name = str(p.get("name") or "")
            data = {"input": str(p.get("input") or "")}
        elif ptype == "local_shell_call":
            name = "local_shell"
            data = p.get("action")
            if not isinstance(data, dict):
                data = {}
        else:
            name = "web_search"
            data = p.get("action")
            if not isinstance(data, dict):
                data = {}
        self._compaction_open = False
        self.t.add_tool_call(name, data, json_text=json_text, timestamp=ts, uuid=call_id, tool_use_id=call_id)

    def _user_item(self, text: str, ts: str | None) -> None:
        if is_wrapper(text):
            self._add(_SYSTEM, "user", text, ts)
            return
        if self._event_prompt is not None and _same_prompt(self._event_prompt, text):
            self._event_prompt = None  # the prompt its event already added
            return
        self._candidates.append(self._add(_SYSTEM, "user", text, ts))

    def _settle_candidates(self) -> None:
        """Before the first user_message event: the last candidate was the prompt."""
        if self._candidates and not self._user_events_seen:
            self.t.promote_to_user(self._candidates[-1])
        self._candidates.clear()

    def _event(self, p: dict[str, Any], ts: str | None) -> None:
        etype = p.get("type")
        if etype == "token_count":
            info = p.get("info")
            if isinstance(info, dict):
                self._usage(info)
        elif etype == "user_message":
            self._user_message(p, ts)
        elif etype == "task_started":
            window = p.get("model_context_window")
            if isinstance(window, int) and 0 < window <= MAX_WINDOW:
                self.t.meta.context_window = window
        elif etype == "context_compacted":
            if not self._compaction_open:
                self._open_compaction(ts)

    def _user_message(self, p: dict[str, Any], ts: str | None) -> None:
        """A prompt event: it confirms the user item before it, or is the prompt itself."""
        self._user_events_seen = True
        message = p.get("message")
        message = message if isinstance(message, str) else ""
        if self._candidates:
            last = self._candidates[-1]
            match = next((c for c in reversed(self._candidates) if _same_prompt(message, c.text)), last)
            self.t.promote_to_user(match)
            self._candidates.clear()
            return
        images = [i for key in ("images", "local_images") for i in p.get(key) or []]
        text = "\n".join([message] + ["[image]"] * len(images)) if message else "\n".join(["[image]"] * len(images))
        if not text.strip() or is_wrapper(text):
            return
        self.t.start_round()
        self._add(Kind.USER, "user", text, ts)
        self._event_prompt = message

    def _usage(self, info: dict[str, Any]) -> None:
        # Once per new token_count (a third of a rollout's rows are token counts):
        # written flat, the checks of ``Transcript.plausible`` and
        # ``codex_context_reading`` made in place when every figure is a plain int.
        last = info.get("last_token_usage")
        if not isinstance(last, dict):
            return
        get = last.get
        total, given, cached, output = get("total_tokens"), get("input_tokens"), get("cached_input_tokens"), get("output_tokens")
        window = info.get("model_context_window")
        t = self.t
        if isinstance(window, int) and 0 < window <= MAX_WINDOW:
            t.meta.context_window = window
        else:
            window = None
        if type(total) is int and type(given) is int and type(cached) is int and type(output) is int:
            cap = USAGE_WINDOWS_CAP * (window or t.meta.context_window or MAX_WINDOW)
            if not (0 <= total <= cap and 0 <= output <= cap and 0 <= given <= cap and 0 <= cached <= cap):
                t.implausible_usage += 1
                return
            if total > 0 and given == 0 and output == 0:
                return  # no context reading (see codex_context_reading)
        else:
            figures = [value if isinstance(value, int) else 0 for value in (total, output, given, cached)]
            if not t.plausible(*figures, window=window) or not codex_context_reading(last):
                return
            total, output, given, cached = figures
        # Positional, in Usage's field order (context, output, input, cache creation, cache read, window).
        usage = Usage(total, output, given, 0, cached, window)
        entries = t.entries
        if entries and entries[-1].usage is None:
            entries[-1].usage = usage
        t.report_usage(usage)

    def _open_compaction(self, ts: str | None) -> None:
        """The live window starts here, and the last report no longer measures it: the figure is estimated until the next one."""
        usage = self.t.last_usage
        self.t.compact(Compaction(seq=len(self.t.entries), timestamp=ts, pre_tokens=usage.context_tokens if usage else None))
        self._compaction_open = True

    def _compacted(self, p: dict[str, Any], ts: str | None) -> None:
        self._settle_candidates()
        if not self._compaction_open:
            self._open_compaction(ts)
        parts = [p["message"]] if isinstance(p.get("message"), str) and p["message"] else []
        sealed = 0
        for item in p.get("replacement_history") or []:
            if isinstance(item, dict) and item.get("type") == "message":
                text = content_text(item.get("content"))
                if text:
                    parts.append(f"[{item.get('role', '?')}] {text}")
            elif isinstance(item, dict) and item.get("type") == "compaction" and isinstance(item.get("encrypted_content"), str):
                sealed += sealed_chars(item["encrypted_content"])
        self.t.add(Kind.SUMMARY, "system", "\n\n".join(parts), timestamp=ts)
        if sealed:
            # The summary the server wrote and encrypted: the model reads it, ctx-tui cannot; it stands
            # in the window as a note whose count is scaled to the summary's size (as a preview's is).
            note = self.t.add(Kind.SUMMARY, "system", f"[encrypted compaction summary, about {sealed:,} characters]", timestamp=ts)
            note.chars, note.truncated = sealed, True
