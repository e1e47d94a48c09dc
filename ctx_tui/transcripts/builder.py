"""What every reader writes into: the session's entries, rounds, compactions, usage.

A reader turns raw rows into calls on :class:`Transcript` (``add``,
``start_round``, ``compact``, ``report_usage``); the transcript numbers entries,
assigns rounds, bounds the text it keeps and remembers the reported usage by
the rule in docs/transcripts.md#context-usage. ``ctx_tui.window.Session`` turns it into a ``WindowState``.

Over 400 lines: :meth:`Transcript.add` sets each entry's slots itself, both layouts (every
reader's hot path: a call per entry cost as much, docs/performance.md), beside the helpers it uses.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import orjson

from ctx_tui.tokens import estimate_from_utf8
from ctx_tui.transcripts.model import (
    PREVIEW_CHARS,
    TOOL_INPUT_CHARS,
    Compaction,
    Entry,
    EntryPlace,
    Format,
    FullEntry,
    Kind,
    SessionMeta,
    Usage,
    UsagePoint,
    keep_tool_input_in_text,
    store_tool_input_json,
)

#: Enum members as module constants: ``Kind.X`` costs an enum attribute lookup, and ``add`` runs once per entry.
_TOOL_CALL, _TOOL_RESULT, _THINKING = Kind.TOOL_CALL, Kind.TOOL_RESULT, Kind.THINKING
#: ``UsagePoint(...)`` in two steps: what ``type.__call__`` does, without its argument tuple.
_new, _init_point = object.__new__, UsagePoint.__init__
#: Lines of an apply_patch input that name the files it touches (kept when the input is cut).
_PATCH_HEADER_RE = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to):.*$", re.M)
#: A reported usage figure above this many windows is implausible (ignored, counted).
USAGE_WINDOWS_CAP = 10
#: The largest context window taken from a transcript; the cap's window when none is stated.
MAX_WINDOW = 10_000_000


def preview(text: str, limit: int = PREVIEW_CHARS) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, and whether it was cut."""
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n…[+{len(text) - limit} chars]", True


_CUT_MARK_RE = re.compile(r"\n…\[\+(\d+) chars\]$")


def cut_from(text: str) -> tuple[str, int]:
    """What :func:`preview` kept of a text and the length of the whole (``text`` and its length if it was not cut)."""
    mark = _CUT_MARK_RE.search(text, max(0, len(text) - 40)) if text.endswith(" chars]") else None
    if mark is None:
        return text, len(text)
    return text[: mark.start()], mark.start() + int(mark.group(1))


def _bound_value(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) <= TOOL_INPUT_CHARS:
            return value
        cut, _ = preview(value, TOOL_INPUT_CHARS)
        headers = _PATCH_HEADER_RE.findall(value, TOOL_INPUT_CHARS) if "\n*** " in value else []
        return cut + ("\n" + "\n".join(headers) if headers else "")
    if isinstance(value, dict):
        return {k: _bound_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bound_value(v) for v in value]
    return value


def bound_tool_input(data: dict[str, Any]) -> dict[str, Any]:
    """A tool input with every long string cut to ``TOOL_INPUT_CHARS`` characters.

    Patch texts keep their ``*** Update File:``-style header lines even past the
    cut, so the files an edit touched stay known (the handoff prefill needs them).
    """
    return {k: _bound_value(v) for k, v in data.items()}


def content_text(content: Any) -> str:
    """The text of a message / tool-result ``content``: a string, or a list of parts.

    Parts are strings or ``{"type": ..., "text": ...}`` blocks; an image part
    (``image``, ``input_image``...) counts as ``[image]``; other parts say nothing.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        if len(content) == 1 and type(part := content[0]) is dict and type(text := part.get("text")) is str:
            return text  # one text block: the common case
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    parts.append(part["text"])
                elif "image" in str(part.get("type", "")):
                    parts.append("[image]")
        return "\n".join(parts)
    return "" if content is None else str(content)


class Transcript:
    """The session as read so far (one per reader run; rebuilt on reset)."""

    def __init__(self, fmt: Format) -> None:
        self.meta = SessionMeta(format=fmt)
        self.entries: list[Entry] = []
        self.compactions: list[Compaction] = []
        self.round = 0  # the current round; 0 before the first real user message
        self.skipped = 0  # lines that could not be parsed
        self.implausible_usage = 0  # usage reports ignored by ``plausible``
        #: Reported usage that counts by the usage rule (None: none since the last compaction).
        self.last_usage: Usage | None = None
        #: Reported context tokens at the end of each round so far (for the trend).
        self.history: list[UsagePoint] = []
        self.ever_reported = False
        self.live_start = 0  # index in ``entries`` where the live window starts
        #: tool_use_id -> the (last) tool call with that id and a tool name: a result takes its name and id.
        self.tool_calls: dict[str, Entry] = {}
        #: The first usage reported in the latest window that had one, as
        #: (live_start, entries before the reply, context tokens): what the agent
        #: sends besides the conversation (system prompt, tools) is learned from it.
        self.baseline_source: tuple[int, int, int] | None = None
        #: The largest context ever reported (a Claude session past 200k runs with a 1M window).
        self.peak_usage = 0
        #: Times the conversation was rewound (:meth:`rewind`): entries already read left the context.
        self.rewinds = 0
        #: The last entry's timestamp: an equal one is held as the same object (see :meth:`add`).
        self._timestamp: str | None = None
        #: Build an entry as an :class:`Entry` (14 slots, not a :class:`FullEntry`'s 19) when its
        #: fields allow (:meth:`add`). Set by the Codex reader, whose entries always do: one
        #: layout per session keeps the attribute reads above specialised to it.
        self.compact_entries = False
        #: The place of the last entries (their round, the first's seq): shared while both hold.
        self._place = EntryPlace(1, 0, self.round)

    def add(
        self,
        kind: Kind,
        role: str,
        text: str,
        timestamp: str | None = None,
        uuid: str | None = None,
        message_id: str | None = None,
        tool_name: str | None = None,
        tool_input: dict[str, Any] | None = None,
        tool_use_id: str | None = None,
        is_sidechain: bool = False,
        is_error: bool = False,
        in_context: bool = True,
        usage: Usage | None = None,
        input_in_text: bool = False,
        whole_chars: int | None = None,
    ) -> Entry:
        """Append an entry; long tool results / thinking keep a preview only.

        The arguments after ``text`` are meant as keywords, not declared so: CPython 3.11 fills
        each keyword-only argument left out by a dict lookup per call (~1,400 instructions here).
        Tool results and thinking are cut to ``PREVIEW_CHARS`` characters, tool
        calls (``name {input JSON}``) to ``TOOL_INPUT_CHARS`` (``Entry.truncated``);
        the other kinds keep their text whole. (Compared by identity: a dict keyed
        by ``Kind`` hashes each member through ``Enum.__hash__``, a Python call.)
        ``input_in_text``: a tool call's text is ``tool_name``, a space and the
        JSON of its input (:meth:`add_tool_call`), so an :class:`Entry` can hold it.
        ``whole_chars``: the text stands for a longer one of this many characters
        (counted as a preview is: ``truncated``), such as a summary the agent keeps sealed.
        """
        chars = len(text)
        truncated = False
        if kind is _TOOL_RESULT or kind is _THINKING:
            limit: int | None = PREVIEW_CHARS
        else:
            limit = TOOL_INPUT_CHARS if kind is _TOOL_CALL else None
        # what the Entry stores: an ASCII text as it is, else its UTF-8 (see model.py)
        if limit is not None and chars > limit:
            # estimate from the preview, scaled: no pass over a huge text; the preview's first ``limit`` characters
            # encoded once, for that and the entry (a lone surrogate raises here, as estimate_tokens does)
            head = text[:limit].encode("utf-8")
            tokens = round(estimate_from_utf8(limit, len(head)) * chars / limit)
            text, truncated = preview(text, limit)
            stored: str | bytes = head + text[limit:].encode("utf-8", "surrogatepass")
        elif text.isascii():  # the common case of estimate_tokens, inlined (hot path)
            tokens = (chars + 3) // 4
            stored = text
        else:  # encoded once, for the estimate and the entry (a lone surrogate raises here, as estimate_tokens does)
            stored = text.encode("utf-8")
            tokens = estimate_from_utf8(chars, len(stored))
        if whole_chars is not None:
            chars, truncated = whole_chars, True
        if timestamp == self._timestamp:
            # The same instant as the entry before (rows written together: one in eleven on a Codex
            # rollout, whose parsed rows each give a new str of ~80 bytes): held once.
            timestamp = self._timestamp
        else:
            self._timestamp = timestamp
        if kind is _TOOL_RESULT and tool_use_id and (call := self.tool_calls.get(tool_use_id)) is not None:
            # The call's id, an equal str held once: a session has as many results as calls (Codex,
            # 100 MB: 35,000 ids of ~80 bytes), and the result's own row gave it a new one.
            if uuid is tool_use_id:
                uuid = call.tool_use_id
            tool_use_id = call.tool_use_id
            if not tool_name:
                tool_name = call.tool_name
        # The entry's slots are set here, not by its ``__init__``: a call with 19 arguments cost
        # as much as the stores (a 100 MB Codex transcript builds 125,000 entries). Built as
        # ``object.__new__``, without ``type.__call__``. test_builder_fills_every_field and
        # test_entry_layouts check that every field lands in its own slot.
        place = self._place
        offset = len(self.entries) - place.base
        if offset > 255 or place.of is not self.round:  # a new round (or an equal int: harmless); small offsets
            place = self._place = EntryPlace(self.round or 1, len(self.entries), self.round)
            offset = 0
        if (
            self.compact_entries and uuid is tool_use_id and message_id is None and usage is None
            and not (is_sidechain or is_error) and in_context and whole_chars is None
            and (input_in_text and not truncated if kind is _TOOL_CALL else tool_input is None)
            # an Entry whose text is longer than a preview's limit is one if it ends as one
            and (chars <= PREVIEW_CHARS or truncated or not text.endswith(" chars]"))
        ):
            entry = _new(Entry)  # its 12 slots: the test above vouches for the rest (model.Entry)
        else:
            entry = _new(FullEntry)
            entry.uuid = uuid
            entry.message_id = message_id
            if tool_input is None:
                entry._stored_tool_input = None  # type: ignore[attr-defined]  # FullEntry's slot (model.py)
            else:
                entry.tool_input = tool_input  # stored by the property (model.py)
            entry.is_sidechain = is_sidechain
            entry.is_error = is_error
            entry.truncated = truncated
            entry.chars = chars
        # The slots both layouts have (an Entry's usage is None and it is in context: the test above).
        entry._place, entry._off = place, offset  # type: ignore[attr-defined]  # seq and round (model.EntryPlace)
        entry.kind = kind
        entry.role = role
        entry._stored_text = stored  # type: ignore[attr-defined]  # Entry's slot (model.py)
        entry.tokens = tokens
        entry.timestamp = timestamp
        entry.tool_name = tool_name
        entry.tool_use_id = tool_use_id
        entry._stored_usage = usage  # type: ignore[attr-defined]  # Entry's slot (model.py)
        entry.in_context = in_context and not is_sidechain
        entry.tokens_counted = False
        self.entries.append(entry)
        if kind is _TOOL_CALL and tool_use_id and tool_name:
            self.tool_calls[tool_use_id] = entry
        return entry

    def add_tool_call(
        self,
        name: str,
        data: dict[str, Any],
        json_text: str | None = None,
        parsed: bool = False,
        timestamp: str | None = None,
        uuid: str | None = None,
        message_id: str | None = None,
        tool_use_id: str | None = None,
        is_sidechain: bool = False,
    ) -> Entry:
        """A TOOL_CALL entry: text ``name {input JSON}`` (``json_text`` if the row has it).

        The arguments after ``data`` are meant as keywords (not declared so: see :meth:`add`).

        The input is bounded (:func:`bound_tool_input`) only when its JSON is
        longer than ``TOOL_INPUT_CHARS``: a shorter JSON has no longer string.
        ``parsed``: ``data`` came from ``orjson.loads`` (of ``json_text`` when
        given), a dict of what JSON holds exactly, so its JSON is stored as the
        entry's input as it is, not parsed back to be checked
        (:func:`~ctx_tui.transcripts.model.store_tool_input_json`). When the
        text is whole, that JSON is not stored twice: the input is read from
        the text's end (:func:`~ctx_tui.transcripts.model.keep_tool_input_in_text`).
        """
        if type(name) is str:
            # One object per tool name: a session calls a few tools tens of thousands of times,
            # and each parsed row gives a new str (2.1 MiB on the 100 MB Codex session).
            name = sys.intern(name)
        if json_text is not None:
            body = json_text
        else:
            try:
                body = orjson.dumps(data).decode()
            except TypeError:  # not for parsed data
                body, parsed = str(data), False
        as_json = False  # the input is stored as ``body``, its JSON
        if len(body) > TOOL_INPUT_CHARS:
            tool_input = bound_tool_input(data)
        elif parsed and data:
            tool_input, as_json = None, True
        else:
            tool_input = data
        entry = self.add(
            _TOOL_CALL, "assistant", f"{name} {body}", timestamp=timestamp, uuid=uuid, message_id=message_id,
            tool_name=name, tool_input=tool_input, tool_use_id=tool_use_id, is_sidechain=is_sidechain,
            # ``body`` is the JSON of ``data``, whole (parsed from it, or dumped: JSON gives it back exactly)
            input_in_text=(as_json or (parsed and tool_input is data)) and type(name) is str,
        )
        if type(entry) is Entry:  # its input is read from its text
            return entry
        # Or the setter stored it as ``orjson.dumps(data)``: ``body`` again.
        if as_json or (json_text is None and tool_input is data and entry._stored_tool_input is not data):  # type: ignore[attr-defined]  # FullEntry's slot (model.py)
            if not entry.truncated:
                keep_tool_input_in_text(entry, name)  # the text is ``name body``: the input kept once, as its end
            elif as_json:
                store_tool_input_json(entry, body.encode())  # exactly sized (orjson.dumps leaves its buffer over-allocated)
        return entry

    def start_round(self) -> None:
        """A real user message follows: it opens the next round."""
        self.round += 1

    def promote_to_user(self, entry: Entry) -> None:
        """Make an already added entry the real user message that opens the next round."""
        self.round += 1
        entry.kind = Kind.USER
        entry.role = "user"
        moved: dict[EntryPlace, EntryPlace] = {}  # each place the later entries held, in the new round
        for later in self.entries[entry.seq :]:
            place = later._place  # type: ignore[attr-defined]  # the slot (model.EntryPlace)
            if (new := moved.get(place)) is None:
                new = moved[place] = EntryPlace(self.round, place.base, self.round)
            later._place = new  # type: ignore[attr-defined]  # the slot (model.EntryPlace)
        self._place = moved.get(self._place, self._place)

    def compact(self, compaction: Compaction) -> None:
        """The agent compacted: the live window starts at the next entry."""
        if compaction.round is None:
            compaction.round = self.round
        self.compactions.append(compaction)
        self.live_start = compaction.seq
        self.last_usage = None

    def rewind(self, start: int) -> None:
        """The agent dropped its conversation from entry ``start`` on (Gemini CLI's ``$rewindTo``).

        Those entries stay in the session but leave the context (:meth:`reselect`).
        """
        if start < len(self.entries):
            self.reselect({i: False for i in range(start, len(self.entries))})

    def reselect(self, in_context: dict[int, bool]) -> None:
        """The agent's conversation is now another set of the entries read (a rewind, a branch).

        ``in_context`` maps entry indices to whether they are in the context
        now. The usage is again the last one reported by an entry still in
        it (none: estimated), the round the last prompt's in it, and the trend
        forgets the later rounds.
        """
        for index, flag in in_context.items():
            self.entries[index].in_context = flag
        kept = [e for e in self.entries[self.live_start :] if e.in_context]
        self.round = next((e.round for e in reversed(self.entries) if e.in_context and e.kind is Kind.USER and not e.is_sidechain), 0)
        self.last_usage = next((e.usage for e in reversed(kept) if e.usage is not None), None)
        self.history = [p for p in self.history if p.round <= self.round]
        if self.last_usage is not None:
            point = UsagePoint(round=self.round or 1, tokens=self.last_usage.context_tokens, source="reported")
            if self.history and self.history[-1].round == point.round:
                self.history[-1] = point
            else:
                self.history.append(point)
        if self.baseline_source is not None and any(not self.entries[i].in_context for i in range(self.baseline_source[0], self.baseline_source[1])):
            self.baseline_source = None
        self.rewinds += 1

    def plausible(self, *figures: int, window: int | None = None) -> bool:
        """Whether reported usage ``figures`` lie in [0, 10 x window]; an implausible report is counted.

        ``window`` is the one reported with the figures, else the transcript's,
        else ``MAX_WINDOW``. A caller drops the report when this is False:
        ``input_tokens: -500000`` or 2**64-1 never become the usage shown.
        """
        cap = USAGE_WINDOWS_CAP * (window or self.meta.context_window or MAX_WINDOW)
        for figure in figures:
            if not 0 <= figure <= cap:
                self.implausible_usage += 1
                return False
        return True

    def report_usage(self, usage: Usage) -> None:
        if self.last_usage is None:
            self.baseline_source = (self.live_start, len(self.entries), usage.context_tokens)
        if usage.context_tokens > self.peak_usage:
            self.peak_usage = usage.context_tokens
        self.last_usage = usage
        self.ever_reported = True
        # Once per report (a Codex rollout has one every few rows): the point is built positionally
        # and without ``type.__call__``, as ``add`` builds entries.
        point = _new(UsagePoint)
        _init_point(point, self.round or 1, usage.context_tokens, "reported")
        history = self.history
        if history and history[-1].round == point.round:
            history[-1] = point
        else:
            history.append(point)
