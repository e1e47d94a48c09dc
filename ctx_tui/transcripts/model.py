"""Typed entries every transcript reader yields, whatever the format.

This module is the contract between the readers and everything above them
(window, memory, compression, handoff, UI). Readers turn raw rows into
:class:`Entry` objects plus a few session-level events; nothing above the
readers looks at raw JSON.

Memory is bounded: ``Entry.text`` holds the whole text only for the kinds the
memory features read (user messages, assistant text, summaries, system notes);
tool results and thinking keep a preview of at most ``PREVIEW_CHARS``
characters, tool calls (text ``name {input JSON}``) at most ``TOOL_INPUT_CHARS``
(their ``tool_input`` keeps every string up to that length), while ``tokens``
still counts the whole original and ``chars`` gives its length.

Over 400 lines: the entry's contract with its stored forms (text, tool input,
usage) and its two layouts (:class:`Entry`, :class:`FullEntry`); the class must
be whole when this module is imported, so a split would patch it from elsewhere.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import StrEnum
from operator import attrgetter
from typing import Any, Literal, TypeVar, cast

import orjson

#: How much of a tool result or a thinking block an entry keeps in memory.
PREVIEW_CHARS = 2000
#: How much of a tool call's input an entry keeps (as compact JSON text).
TOOL_INPUT_CHARS = 4000


class Format(StrEnum):
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    GEMINI = "gemini"
    PI = "pi"
    GENERIC = "generic"


class Kind(StrEnum):
    """What an entry is. ``role`` says who wrote it."""

    USER = "user"  # a real user message (a prompt), not a tool result
    ASSISTANT = "assistant"  # the assistant's visible text
    THINKING = "thinking"  # reasoning / thinking blocks
    TOOL_CALL = "tool_call"  # the assistant calls a tool (name + input)
    TOOL_RESULT = "tool_result"  # what a tool returned
    SUMMARY = "summary"  # a compaction summary or a Claude `summary` row
    SYSTEM = "system"  # system / developer / meta notes, hook output


@dataclass(slots=True)
class Usage:
    """Token usage reported by the agent for one model call.

    ``context_tokens`` is what occupies the context window by the rule in docs/transcripts.md#context-usage:
    Claude ``input + cache_creation + cache_read``; Codex
    ``last_token_usage.total_tokens``.
    """

    context_tokens: int
    output_tokens: int = 0
    input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    #: Codex reports the window with each token_count event.
    context_window: int | None = None


#: Whether a usage figure was reported by the agent or estimated from the entries.
UsageSource = Literal["reported", "estimated"]


@dataclass(slots=True)
class UsagePoint:
    """Context usage after one round (for the trend sparkline)."""

    round: int
    tokens: int
    source: UsageSource


_T = TypeVar("_T")

#: The slots of every entry (:class:`Entry`): the fields every reader sets, ``text`` and ``usage``
#: as stored, ``seq`` and ``round`` as a place (see :class:`EntryPlace`). What a Codex rollout's entries hold.
_ENTRY_SLOTS = (
    "_place", "_off", "kind", "role", "_stored_text", "tokens", "timestamp", "tool_name", "tool_use_id",
    "_stored_usage", "in_context", "tokens_counted",
)
#: The slots a :class:`FullEntry` adds: the fields only some formats set, or that follow from the text.
_FULL_SLOTS = ("uuid", "message_id", "_stored_tool_input", "is_sidechain", "is_error", "truncated", "chars")


def _slotted(*slots: str) -> Callable[[type[_T]], type[_T]]:
    """What ``dataclass(slots=True)`` does to a class, with only ``slots`` as slots.

    The class is made again with ``__slots__ = slots``; its other fields stay
    class attributes (their defaults), which a subclass's slots or a property
    may replace.
    """

    def rebuild(cls: type[_T]) -> type[_T]:
        namespace = {k: v for k, v in cls.__dict__.items() if k not in slots and k not in ("__dict__", "__weakref__")}
        namespace["__slots__"] = slots
        return cast("type[_T]", type(cls.__name__, cls.__bases__, namespace))

    return rebuild


@_slotted(*_ENTRY_SLOTS)
@dataclass
class Entry:
    """One unit of the conversation: a message, or one content block of it.

    ``transcripts.builder.Transcript.add`` sets an entry's slots itself: a new
    field goes at the end, with a default, and into ``add`` too.

    Two layouts, the same fields (``dataclasses.fields(Entry)``) and equal when
    their fields are: an ``Entry`` itself has 12 slots (128 bytes): ten fields and
    ``seq`` and ``round`` as a shared place and an offset (:class:`EntryPlace`);
    ``uuid`` reads as its ``tool_use_id``, ``tool_input`` is read from a tool
    call's text (``name {input JSON}``), ``truncated`` and ``chars`` from its
    text (a preview is longer than ``PREVIEW_CHARS`` and ends with
    ``…[+N chars]``, see ``builder.preview``),
    ``message_id``, ``is_sidechain`` and ``is_error`` are their defaults; none
    of these seven can be set, nor the text they follow from. A
    :class:`FullEntry` has a slot for each field (184 bytes).
    ``Entry(...)`` gives a ``FullEntry``; the builder gives an ``Entry`` only to
    a transcript that asks for them (``Transcript.compact_entries``: Codex, whose
    125,000 entries at 100 MB never need the seven) and only when its fields are
    those (see ``docs/performance.md``, "The entry's shape").
    """

    seq: int  # position in the whole session, 0-based, across compactions
    kind: Kind
    role: str  # "user", "assistant", "system", "tool"
    text: str  # full text, or a preview for tool results / thinking (see module doc)
    tokens: int  # tokens of the whole original text (tiktoken, or estimate)
    round: int  # 1-based; a round starts at each real user message
    timestamp: str | None = None  # ISO 8601 as written by the agent
    uuid: str | None = None  # Claude row uuid / Codex call id
    message_id: str | None = None  # Claude message.id (shared by block rows)
    tool_name: str | None = None  # for TOOL_CALL (and TOOL_RESULT when known)
    tool_input: dict[str, Any] | None = None  # TOOL_CALL input (bounded)
    tool_use_id: str | None = None  # links a TOOL_RESULT to its TOOL_CALL
    is_sidechain: bool = False  # sub-agent traffic (old layout) or subagent file
    is_error: bool = False  # tool result flagged as an error
    truncated: bool = False  # text is a preview, not the whole original
    usage: Usage | None = None  # reported usage, on the row that carries it
    #: False for what the model never sees: sub-agent traffic, Claude title
    #: ``summary`` rows, UI-only ``system`` rows, API error notes.
    in_context: bool = True
    chars: int = 0  # length of the whole original text (``text`` may be a preview)
    #: True once ``tokens`` is a tokenizer count (see ``ctx_tui.window``); before,
    #: it is ``ctx_tui.tokens.estimate_tokens`` of the original text.
    tokens_counted: bool = False


class EntryPlace:
    """The round of a run of consecutive entries and the ``seq`` of its first: shared by the run.

    An entry holds its place and its offset in the run (``seq = base + offset``):
    the builder starts a new place with each round and every 256 entries, so an
    offset is one of CPython's cached small ints, where a ``seq`` past 256 was an
    int object of its own (32 bytes: 3.8 MiB of the Codex 100 MB session's). The
    two are read rarely (~3,700 ``seq`` and ~20 ``round`` reads for the
    dashboard's first snapshot or a pre-compact job on that session).
    """

    __slots__ = ("round", "base", "of")

    def __init__(self, round: int, base: int, of: int | None = None) -> None:  # noqa: A002 - the field's name
        self.round = round
        self.base = base
        self.of = of  # the builder's round counter it was made for (``Transcript.add`` compares by identity)


def _seq_get(entry: Entry) -> int:
    return cast(int, entry._place.base + entry._off)  # type: ignore[attr-defined]  # the slots (see _ENTRY_SLOTS)


def _seq_put(entry: Entry, value: int) -> None:
    """A place of its own (the builder shares them; this is for an entry made or changed by hand)."""
    place = getattr(entry, "_place", None)
    entry._place = EntryPlace(place.round if place is not None else 0, value)  # type: ignore[attr-defined]  # the slot (see _ENTRY_SLOTS)
    entry._off = 0  # type: ignore[attr-defined]  # the slot (see _ENTRY_SLOTS)


def _round_get(entry: Entry) -> int:
    return cast(int, entry._place.round)  # type: ignore[attr-defined]  # the slot (see _ENTRY_SLOTS)


def _round_put(entry: Entry, value: int) -> None:
    place = getattr(entry, "_place", None)
    entry._place = EntryPlace(value, place.base if place is not None else 0)  # type: ignore[attr-defined]  # same seq
    if place is None:
        entry._off = 0  # type: ignore[attr-defined]  # the slot (see _ENTRY_SLOTS)


setattr(Entry, "seq", property(_seq_get, _seq_put, doc="Position in the whole session, 0-based."))
setattr(Entry, "round", property(_round_get, _round_put, doc="The round, 1-based."))


class FullEntry(Entry):
    """An :class:`Entry` with a slot for each field: what ``Entry(...)`` gives, and every reader but Codex's."""

    __slots__ = _FULL_SLOTS


#: The slot descriptors of the stored forms of ``text``, ``tool_input`` and ``usage`` (see below).
_TEXT_SLOT = Entry.__dict__["_stored_text"]
_TOOL_INPUT_SLOT = FullEntry.__dict__["_stored_tool_input"]
_USAGE_SLOT = Entry.__dict__["_stored_usage"]
_TOOL_CALL = Kind.TOOL_CALL


def _entry_new(cls: type[Entry], *args: Any, **kwargs: Any) -> Entry:
    """``Entry(...)`` is a :class:`FullEntry` (every field settable); ``cls.__new__(cls)`` alone, as copy and pickle call it, is ``cls``."""
    return object.__new__(FullEntry if cls is Entry and (args or kwargs) else cls)


setattr(Entry, "__new__", _entry_new)

#: Every field's value, in order (``__eq__``).
_FIELD_VALUES = attrgetter(*[f.name for f in fields(Entry)])


def _entry_eq(self: Entry, other: object) -> object:
    """Equal fields, whichever the layouts (the generated ``__eq__`` wants one class)."""
    if not isinstance(other, Entry):
        return NotImplemented
    return _FIELD_VALUES(self) == _FIELD_VALUES(other)


_entry_eq.__qualname__ = "Entry.__eq__"
setattr(Entry, "__eq__", _entry_eq)


def _text_get(entry: Entry) -> str:
    value = _TEXT_SLOT.__get__(entry, Entry)
    return value.decode("utf-8", "surrogatepass") if type(value) is bytes else value


def _text_put(entry: Entry, value: str) -> None:
    if type(entry) is Entry:
        raise AttributeError("an Entry reads its length, cut and tool input from its text: make a new entry (dataclasses.replace)")
    try:
        held = _TOOL_INPUT_SLOT.__get__(entry, FullEntry)
    except AttributeError:  # not set yet (a copy or a pickle sets the slots in order)
        held = None
    if type(held) is int:  # the tool input is the old text's end (see below): it keeps its own copy
        stored = _TEXT_SLOT.__get__(entry, Entry)[held:]
        _TOOL_INPUT_SLOT.__set__(entry, stored.encode() if type(stored) is str else stored)
    _TEXT_SLOT.__set__(entry, value.encode("utf-8", "surrogatepass") if type(value) is str and not value.isascii() else value)


# ``Entry.text`` is kept as UTF-8 bytes when it is not ASCII and read back as the same ``str``.
# CPython stores a string at the width of its widest character: one "—" or "…" (every preview
# ends with one) makes a text 2 bytes a character, an emoji 4. Most transcript text is ASCII with
# a few such characters, so in UTF-8 it takes about half, and entries are the dashboard's largest
# data (~19 MiB of texts at 100 MB, ~10 MiB less packed). The slot keeps the stored form; a
# property over it encodes on write and decodes on read, so every reader of ``entry.text`` sees
# a ``str`` equal to what was given (``surrogatepass``: a lone surrogate round-trips).
setattr(Entry, "text", property(_text_get, _text_put, doc="The entry's text (see the field's comment)."))


def _tool_input_get(entry: Entry) -> dict[str, Any] | None:
    if type(entry) is Entry:  # a tool call's text is ``name {input JSON}`` (``Transcript.add``)
        if entry.kind is _TOOL_CALL:
            return cast("dict[str, Any]", orjson.loads(_text_get(entry)[len(cast(str, entry.tool_name)) + 1 :]))
        return None
    value = _TOOL_INPUT_SLOT.__get__(entry, FullEntry)
    if type(value) is bytes:
        return cast("dict[str, Any]", orjson.loads(value))
    if type(value) is int:  # the stored text from there on (``keep_tool_input_in_text``)
        return cast("dict[str, Any]", orjson.loads(_TEXT_SLOT.__get__(entry, Entry)[value:]))
    return cast("dict[str, Any] | None", value)


def _tool_input_put(entry: Entry, value: dict[str, Any] | None) -> None:
    if type(entry) is Entry:
        raise AttributeError("an Entry's tool input is read from its text: make a new entry (dataclasses.replace)")
    if type(value) is dict and value:
        try:
            packed = bytes(memoryview(orjson.dumps(value)))  # exact size: orjson leaves its buffer over-allocated
        except TypeError:  # a value JSON cannot hold (a lone surrogate, a custom object): kept as given
            pass
        else:
            if orjson.loads(packed) == value:  # exactly what was given (no tuple, NaN or big int changed)
                _TOOL_INPUT_SLOT.__set__(entry, packed)
                return
    _TOOL_INPUT_SLOT.__set__(entry, value)


# ``Entry.tool_input`` is kept as compact JSON (UTF-8 bytes) and parsed again on each read.
# A dict of a few short strings costs several hundred bytes of object headers, and an input
# cut to ``TOOL_INPUT_CHARS`` ends with "…", which makes its 4,000 characters 2 bytes each:
# at 100 MB the inputs took ~6.3 MiB as dicts. Each read returns a new dict equal to the one
# given (the setter keeps a value as given when JSON would not give it back exactly); the
# readers of ``tool_input`` (activity, references, extraction, render) read each entry's once
# per scan.
setattr(Entry, "tool_input", property(_tool_input_get, _tool_input_put, doc="The tool call's input (bounded)."))


def _uuid_get(entry: Entry) -> str | None:
    return entry.tool_use_id  # an Entry's (a FullEntry's slot hides this property)


setattr(Entry, "uuid", property(_uuid_get, doc="The row's uuid (Codex: the call id, its ``tool_use_id``)."))

#: The end of a preview (``builder.preview``): ``\n…[+N chars]``, N the characters cut.
_CUT_MARK = re.compile(r"\n…\[\+(\d+) chars\]\Z")


def _preview_text(entry: Entry) -> str | None:
    """An Entry's text if it is a preview: longer than ``PREVIEW_CHARS`` and ending with the mark.

    An Entry's previews are tool results' and thinking's (a tool call's text
    is whole); the builder makes an ``Entry`` of a whole text longer than
    that only when it does not end so.
    """
    stored = _TEXT_SLOT.__get__(entry, Entry)
    if len(stored) > PREVIEW_CHARS and stored.endswith(" chars]" if type(stored) is str else b" chars]"):
        text = _text_get(entry)
        if len(text) > PREVIEW_CHARS:
            return text
    return None


def _truncated_get(entry: Entry) -> bool:
    return _preview_text(entry) is not None  # an Entry's (a FullEntry's slot hides this property)


def _chars_get(entry: Entry) -> int:
    """An Entry's: its text's length, or for a preview the length its mark gives."""
    text = _preview_text(entry)
    if text is not None and (mark := _CUT_MARK.search(text, len(text) - 40)) is not None:
        return mark.start() + int(mark.group(1))
    return len(_text_get(entry))


setattr(Entry, "truncated", property(_truncated_get, doc="Whether the text is a preview, not the whole original."))
setattr(Entry, "chars", property(_chars_get, doc="The length of the whole original text."))

#: A usage packed by :func:`keep_usage_packed`: its six figures (no window: 0).
_USAGE_PACKED = struct.Struct("<6I")


def _usage_get(entry: Entry) -> Usage | None:
    value = _USAGE_SLOT.__get__(entry, Entry)
    if type(value) is bytes:
        context, output, given, created, cached, window = _USAGE_PACKED.unpack(value)
        return Usage(context, output, given, created, cached, window or None)
    return cast("Usage | None", value)


def _usage_put(entry: Entry, value: Usage | None) -> None:
    _USAGE_SLOT.__set__(entry, value)


def keep_usage_packed(entry: Entry, usage: Usage) -> None:
    """Set ``entry.usage``, kept as its figures packed in 24 bytes when they fit (else as given).

    A Codex rollout attaches a usage to one entry in four (31,000 at 100 MB):
    a ``Usage`` and its figures of over 256 take ~210 bytes, packed 64
    (3.2 MiB less). Each read gives a new, equal ``Usage``: so only for a
    usage nothing changes once attached (the Codex reader's; Gemini's grows
    with its message and stays an object). Figures that are not plain ints in
    0..2**32-1, and a window of 0, are kept as given.
    """
    context, output, given = usage.context_tokens, usage.output_tokens, usage.input_tokens
    created, cached, window = usage.cache_creation_input_tokens, usage.cache_read_input_tokens, usage.context_window
    if (
        type(context) is int and type(output) is int and type(given) is int and type(created) is int and type(cached) is int
        and (window is None or (type(window) is int and window > 0))
    ):
        try:
            entry._stored_usage = _USAGE_PACKED.pack(context, output, given, created, cached, window or 0)  # type: ignore[attr-defined]  # the slot (see _ENTRY_SLOTS)
        except struct.error:  # a figure out of range
            pass
        else:
            return
    entry._stored_usage = usage  # type: ignore[attr-defined]  # the slot (see _ENTRY_SLOTS)


# ``Entry.usage`` may be kept packed (:func:`keep_usage_packed`); every read gives a ``Usage``.
setattr(Entry, "usage", property(_usage_get, _usage_put, doc="Reported usage, on the row that carries it."))


def store_tool_input_json(entry: Entry, packed: bytes) -> None:
    """Store a :class:`FullEntry`'s non-empty tool input as ``packed``, its JSON, without the setter's parse-back check.

    Only for an input ``orjson.loads`` produced from ``packed`` or whose
    ``orjson.dumps`` is ``packed`` (every value JSON holds exactly: no tuple,
    NaN or lone surrogate), exactly sized (not ``orjson.dumps``'s
    over-allocated buffer): reading it gives back an equal dict.
    """
    entry._stored_tool_input = packed  # type: ignore[attr-defined]  # FullEntry's slot


def keep_tool_input_in_text(entry: Entry, name: str) -> None:
    """Keep a :class:`FullEntry`'s tool input as the end of its text, ``f"{name} {json}"``, instead of a second copy.

    Only for an entry whose whole text (not a preview) is ``name``, a space and
    the input's JSON as :func:`store_tool_input_json` would store it (or the
    setter would: ``orjson.dumps`` of an input JSON gives back exactly). The
    slot then holds where the JSON starts in the stored text (a small int:
    characters when the text is ASCII, else bytes of its UTF-8), and a read
    parses it from there. A tool call's input is also in its text; kept once,
    a 100 MB session holds ~2.9 MiB less (Codex, 35,000 calls). (An
    :class:`Entry` always reads it there, with no slot.)
    """
    stored = _TEXT_SLOT.__get__(entry, Entry)
    entry._stored_tool_input = len(name) + 1 if type(stored) is str else len(name.encode("utf-8", "surrogatepass")) + 1  # type: ignore[attr-defined]  # FullEntry's slot


def _entry_init(
    self: Entry,
    seq: int,
    kind: Kind,
    role: str,
    text: str,
    tokens: int,
    round: int,  # noqa: A002 - the field's name
    timestamp: str | None = None,
    uuid: str | None = None,
    message_id: str | None = None,
    tool_name: str | None = None,
    tool_input: dict[str, Any] | None = None,
    tool_use_id: str | None = None,
    is_sidechain: bool = False,
    is_error: bool = False,
    truncated: bool = False,
    usage: Usage | None = None,
    in_context: bool = True,
    chars: int = 0,
    tokens_counted: bool = False,
) -> None:
    """A :class:`FullEntry`'s ``__init__``: the dataclass's, with ``text`` and ``tool_input`` stored straight into their slots.

    The generated one writes them through the properties above: two Python
    calls per entry, which made building an entry cost twice the stores
    themselves (a 100 MB transcript builds 125,000). Same parameters,
    defaults and stored forms (``test_entry_init_matches_the_dataclass``).
    """
    self.seq = seq
    self.kind = kind
    self.role = role
    self._stored_text = text.encode("utf-8", "surrogatepass") if type(text) is str and not text.isascii() else text  # type: ignore[attr-defined]  # the slot (see _ENTRY_SLOTS)
    self.tokens = tokens
    self.round = round
    self.timestamp = timestamp
    self.uuid = uuid
    self.message_id = message_id
    self.tool_name = tool_name
    if tool_input is None:
        self._stored_tool_input = None  # type: ignore[attr-defined]  # FullEntry's slot
    else:
        _tool_input_put(self, tool_input)
    self.tool_use_id = tool_use_id
    self.is_sidechain = is_sidechain
    self.is_error = is_error
    self.truncated = truncated
    self._stored_usage = usage  # type: ignore[attr-defined]  # the slot (see _ENTRY_SLOTS)
    self.in_context = in_context
    self.chars = chars
    self.tokens_counted = tokens_counted


_entry_init.__qualname__ = "Entry.__init__"
setattr(Entry, "__init__", _entry_init)


def text_key(entry: Entry) -> str | bytes:
    """``entry.text`` as stored: the str itself when ASCII, else its UTF-8 bytes.

    Equal for equal texts and only for them, hashable, and no copy: a cache
    keyed by it holds the entry's own object instead of a decoded copy.
    """
    return cast("str | bytes", _TEXT_SLOT.__get__(entry, Entry))


def key_text(key: str | bytes) -> str:
    """The text a :func:`text_key` stands for."""
    return key.decode("utf-8", "surrogatepass") if isinstance(key, bytes) else key


@dataclass(slots=True)
class Compaction:
    """The agent compacted its context at this point of the session."""

    seq: int  # seq of the first entry after the compaction
    timestamp: str | None = None
    trigger: str | None = None  # "auto" / "manual" when the agent says
    pre_tokens: int | None = None  # context size before, when reported
    round: int | None = None  # the round it happened in (set by Transcript.compact)


@dataclass(slots=True)
class SessionMeta:
    """What the transcript says about the session itself."""

    format: Format
    session_id: str | None = None
    model: str | None = None
    cwd: str | None = None
    agent_version: str | None = None
    context_window: int | None = None  # when the transcript states it
    git_branch: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
