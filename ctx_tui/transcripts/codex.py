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
  read as nothing. Token counts and repeated turn contexts are read from
  their bytes when the bytes prove what the parse would give
  (:meth:`CodexReader.feed_lines`); every other line is parsed.

Over 400 lines: one reader for one format, like the others; a split would cut its state
(pending calls, compactions, repeated prompts) across modules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import orjson

from ctx_tui.transcripts.builder import MAX_WINDOW, USAGE_WINDOWS_CAP, Transcript, content_text
from ctx_tui.transcripts.model import Compaction, Entry, Kind, Usage, keep_usage_packed
from ctx_tui.transcripts.rows import row_shape_ok
from ctx_tui.transcripts.tail import codex_context_reading, sealed_chars

CODEX_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
_CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
_RESULT_TYPES = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})
_ASSISTANT, _SYSTEM, _THINKING, _TOOL_RESULT = Kind.ASSISTANT, Kind.SYSTEM, Kind.THINKING, Kind.TOOL_RESULT


#: A JSON string with no escape, quote, control or non-ASCII byte (its bytes are its value).
_PLAIN = rb'"[\x20\x21\x23-\x5b\x5d-\x7e]*"'
#: The start of a row as Codex writes it (``{"timestamp":"…","type":"…"``), compact or with one space
#: after a ``,`` or ``:`` (as Python's json module and some tools rewrite rows). Group 1: a response
#: item; 2: a token_count, up to its ``info`` value (``rate_limits`` is the payload's last key);
#: 3: a turn_context, up to its turn id (the rest of the row is alike from turn to turn).
_ROW_HEAD = re.compile(
    rb'\{"timestamp": ?' + _PLAIN + rb', ?"type": ?"(?:(response_item)"|event_msg", ?"payload": ?\{"type": ?"(token_count)", ?"info": ?'
    rb'|(turn_context)", ?"payload": ?\{"turn_id": ?' + _PLAIN + rb")"
)
_RESPONSE_ITEM, _TOKEN_COUNT, _TURN_CONTEXT = 1, 2, 3
_ITEM_OR_EVENT = frozenset({"response_item", "event_msg"})
#: The event rows ``_event`` reads; the others repeat response items or show progress.
_EVENTS_READ = frozenset({"token_count", "user_message", "task_started", "context_compacted"})
#: Where a response item's type starts in a compact row with Codex's 24-character timestamps.
_ITEM_TYPE_AT = len(b'{"timestamp":"2026-01-01T00:00:00.000Z","type":"')
_SPACE = b" \t\r\n"
#: The rest of a token_count row after its ``info`` value: ``, "rate_limits": VALUE } }``.
_RATE_LIMITS = re.compile(rb'[ \t\r\n]*,[ \t\r\n]*"rate_limits"[ \t\r\n]*:')
#: How many distinct rate-limit tails are remembered as valid JSON (Codex repeats a few dozen).
_RATE_LIMITS_KEPT = 256
#: Matches no line: what ``_token_count_bytes`` starts from (0xff is never in UTF-8).
_NO_BYTES = b"\xff"


def _rate_limits_tail_ok(tail: bytes) -> bool:
    """True when ``tail`` is ``, "rate_limits": VALUE } }`` with VALUE one JSON value (any JSON white space)."""
    match = _RATE_LIMITS.match(tail)
    body = tail.rstrip(_SPACE)
    if match is None or not body.endswith(b"}"):
        return False
    body = body[:-1].rstrip(_SPACE)
    if not body.endswith(b"}"):
        return False
    try:
        orjson.loads(body[match.end() : -1])
    except orjson.JSONDecodeError:
        return False
    return True


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
        transcript.compact_entries = True  # its entries never set the fields an Entry has no slot for
        self._user_events_seen = False
        self._candidates: list[Entry] = []  # user items not yet confirmed as prompts
        self._event_prompt: str | None = None  # text of a prompt read from its event, item not seen yet
        self._compaction_open = False  # a compaction with no entry after its summary yet
        self._last_token_count: tuple[Any, int] | None = None  # the last token_count's info and round
        # what _token_count_bytes read last: the info bytes and their value, the rate-limit tail
        self._info_bytes = _NO_BYTES
        self._info_value: Any = None
        self._limits_bytes = _NO_BYTES
        self._limits_seen: set[bytes] = set()  # rate-limit tails known to be valid JSON
        # the last turn_context parsed: its bytes after the turn id, and its model and cwd (_turn_context_bytes)
        self._turn_context_tail: bytes | None = None
        self._turn_context_values: tuple[Any, Any] = (None, None)

    def feed_lines(self, lines: Iterable[bytes]) -> tuple[int, int]:
        """Feed JSONL ``lines``; returns (rows read, lines skipped).

        The same result as ``orjson.loads``, ``row_shape_ok`` and ``feed`` on
        each line (what ``TranscriptReader`` does for the other formats), in
        one loop that parses less:

        * a response item (half the rows; the type is found in its first
          bytes) goes from its parse straight to ``_item``, its shape checked
          in place (without the calls per row that cost more than its parse);
        * a token_count (a fifth of the rows, 40% of the bytes) or a
          turn_context (another 25% of the bytes) is read from its bytes when
          they prove what its parse would give (:meth:`_token_count_bytes`,
          :meth:`_turn_context_bytes`);
        * every other line, and any of these whose bytes prove nothing (keys
          in another order, escapes, a key Codex does not write), is parsed
          whole on the general path.
        """
        loads, malformed, head = orjson.loads, orjson.JSONDecodeError, _ROW_HEAD.match
        feed, item, event = self.feed, self._item, self._event
        token_count, turn_context = self._token_count_bytes, self._turn_context_bytes
        item_at = _ITEM_TYPE_AT  # where the last response item's type was: a hint, the parse decides
        read = skipped = 0
        for line in lines:
            if not line.startswith(b'response_item"', item_at) and (match := head(line)) is not None:
                kind = match.lastindex
                if kind == _RESPONSE_ITEM:
                    item_at = match.start(kind)
                elif token_count(line, match.end()) if kind == _TOKEN_COUNT else turn_context(line, match.end()):
                    read += 1
                    continue
            try:
                row = loads(line)
            except malformed:
                if line.strip():  # blank lines are not errors
                    skipped += 1
                continue
            try:
                if (
                    type(row) is dict
                    and type(payload := row.get("payload")) is dict
                    and "role" not in row
                    and "message" not in row
                    and type(ptype := payload.get("type")) is str
                    and type(payload.get("role", "")) is str
                    and (rtype := row.get("type")) in _ITEM_OR_EVENT
                ):  # of the shape row_shape_ok checks: what feed would do, without its calls
                    if rtype == "response_item":
                        ts = row.get("timestamp")
                        item(payload, ptype, ts if type(ts) is str else None)
                    elif ptype in _EVENTS_READ:
                        ts = row.get("timestamp")
                        event(payload, ts if isinstance(ts, str) else None)
                elif row_shape_ok(row):
                    feed(row)
                    if type(row) is dict and row.get("type") == "turn_context":
                        self._remember_turn_context(line, row)
                else:
                    skipped += 1
                    continue
                read += 1
            except (TypeError, ValueError, AttributeError, KeyError):
                skipped += 1  # a row of an unexpected shape: counted, never fatal
        return read, skipped

    @staticmethod
    def prepare(line: bytes) -> bytes:
        """Every line is worth parsing on the per-row path; ``feed_lines`` holds the shortcuts."""
        return line

    def _token_count_bytes(self, line: bytes, start: int) -> bool:
        """Read a token_count row from its bytes; False when they prove nothing and the row must be parsed.

        ``line[:start]`` is ``{"timestamp": PLAIN, "type": "event_msg",
        "payload": {"type": "token_count", "info":`` (``_ROW_HEAD``). If the
        rest is ``INFO, "rate_limits": LIMITS } }`` with INFO and LIMITS each
        one JSON value, the row parses to exactly that: no other key, none
        twice. INFO is parsed alone (bytes equal to the last token_count's are
        its value again), LIMITS only checked (remembered once valid).

        Codex repeats the rate limits more often than the info (three rows in
        four on the fixtures): a row ending with the last LIMITS bytes has its
        INFO right before them, found without searching the row.
        """
        limits = self._limits_bytes
        cut = len(line) - len(limits)
        if cut > start and line.endswith(limits):
            info = line[start:cut]
            if info != self._info_bytes:
                try:
                    value = orjson.loads(info)
                except orjson.JSONDecodeError:
                    return False
                self._info_bytes, self._info_value = info, value
            self._token_count(self._info_value)
            return True
        info = self._info_bytes
        if line.startswith(info, start):
            cut = start + len(info)
            value = self._info_value
        else:
            end = line.find(b'"rate_limits"', start)
            cut = line.rfind(b",", start, end) if end > 0 else -1
            if cut < 0:
                return False
            info = line[start:cut]
            try:
                value = orjson.loads(info)
            except orjson.JSONDecodeError:
                return False
        limits = line[cut:]  # not the last LIMITS (those were tried above)
        if limits not in self._limits_seen:
            if not _rate_limits_tail_ok(limits):
                return False
            if len(self._limits_seen) >= _RATE_LIMITS_KEPT:
                self._limits_seen.clear()
            self._limits_seen.add(limits)
        self._limits_bytes = limits
        self._info_bytes, self._info_value = info, value
        self._token_count(value)
        return True

    def _turn_context_bytes(self, line: bytes, start: int) -> bool:
        """Read a turn_context row from its bytes; False when they prove nothing and the row must be parsed.

        ``line[:start]`` is ``{"timestamp": PLAIN, "type": "turn_context",
        "payload": {"turn_id": PLAIN`` (``_ROW_HEAD``). Codex writes one per
        model call, all alike but for those two strings: a row whose bytes
        after them equal those of the last turn_context parsed
        (:meth:`_remember_turn_context`) parses to that row but for two
        strings nothing reads, and sets the same model and cwd.
        """
        tail = self._turn_context_tail
        if tail is None or len(line) - len(tail) != start or not line.endswith(tail):
            return False
        self._turn_context_settings(*self._turn_context_values)
        return True

    def _remember_turn_context(self, line: bytes, row: dict[str, Any]) -> None:
        """After a turn_context row was parsed and fed: its bytes after the turn id, and what it set."""
        match = _ROW_HEAD.match(line)
        payload = row.get("payload")
        if match is not None and match.lastindex == _TURN_CONTEXT and type(payload) is dict:
            self._turn_context_tail = line[match.end() :]
            self._turn_context_values = (payload.get("model"), payload.get("cwd"))

    def _turn_context_settings(self, model: Any, cwd: Any) -> None:
        if isinstance(model, str):
            self.t.meta.model = model
        if isinstance(cwd, str):
            self.t.meta.cwd = cwd

    def _token_count(self, info: Any) -> None:
        """A token_count event's ``info``; one equal to the last token_count's, in the same round, repeats it.

        Codex writes each report again after the tool outputs: the usage is the
        same, and it stays attached to the entry before the first one.
        """
        marker = (info, self.t.round)
        if marker == self._last_token_count:
            return
        self._last_token_count = marker
        if isinstance(info, dict):
            self._usage(info)

    def feed(self, row: dict[str, Any]) -> bool:
        payload = row.get("payload")
        if not isinstance(payload, dict):
            return True  # a Codex row carrying nothing (never counted as skipped)
        ts = row.get("timestamp")
        if not isinstance(ts, str):
            ts = None
        kind = row.get("type")
        if kind == "response_item":
            self._item(payload, payload.get("type"), ts if type(ts) is str else None)
        elif kind == "event_msg":
            self._event(payload, ts)
        elif kind == "turn_context":
            self._turn_context_settings(payload.get("model"), payload.get("cwd"))
        elif kind == "session_meta":
            self._session_meta(payload)
        elif kind == "compacted":
            self._compacted(payload, ts)
        return True

    def _session_meta(self, p: dict[str, Any]) -> None:
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

    def _item(self, p: dict[str, Any], ptype: Any, ts: str | None) -> None:
        # The hot path of a cold read (one call per response item): Kind members
        # come from module constants (an enum attribute lookup costs as much as a
        # dict lookup), the transcript's ``add`` is called without ``_add`` and the
        # candidate list is only settled when it holds one. ``ptype``: ``p["type"]``.
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
            summary = p.get("summary")
            if (
                p.get("content") is None
                and type(summary) is list
                and len(summary) == 1
                and type(block := summary[0]) is dict
                and type(text := block.get("text", "")) is str
            ):
                pass  # one summary block and no content: what the loop below gives, without it
            else:
                parts = []
                for key in ("summary", "content"):
                    for block in p.get(key) or ():
                        if isinstance(block, dict) and (part := block.get("text", "")):
                            parts.append(part if type(part) is str else str(part))
                text = "\n".join(parts)
            self._compaction_open = False
            self.t.add(_THINKING, "assistant", text, timestamp=ts)

    def _tool_call(self, p: dict[str, Any], ts: str | None) -> None:
        ptype = p["type"]
        call_id = p.get("call_id")
        if not isinstance(call_id, str):
            call_id = None
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
        self.t.add_tool_call(name, data, json_text=json_text, parsed=True, timestamp=ts, uuid=call_id, tool_use_id=call_id)

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
            self._token_count(p.get("info"))
        elif etype == "user_message":
            self._user_message(p, ts)
        elif etype == "task_started":
            window = p.get("model_context_window")
            known = self.t.meta.context_window
            if isinstance(window, int) and 0 < window <= MAX_WINDOW and not (window == known and type(window) is type(known)):
                self.t.meta.context_window = window  # else the int already held: shared by the usage reports
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
            if window == (known := t.meta.context_window) and type(window) is type(known):
                window = known  # the same int object in every usage, not one per report
            else:
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
        if entries and entries[-1]._stored_usage is None:  # type: ignore[attr-defined]  # ``usage`` as stored (model.py), without its property
            keep_usage_packed(entries[-1], usage)  # figures never changed once reported
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
            self.t.add(Kind.SUMMARY, "system", f"[encrypted compaction summary, about {sealed:,} characters]", timestamp=ts, whole_chars=sealed)
