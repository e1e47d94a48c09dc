"""An Entry (the Codex reader's 12 slots) reads as the FullEntry the same rows would give."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import sys
from pathlib import Path

import pytest

from conftest import CODEX_FULL, CODEX_REDACTED, fixture
from ctx_tui.transcripts.builder import Transcript
from ctx_tui.transcripts.codex import CodexReader
from ctx_tui.transcripts.model import Entry, Format, FullEntry, Kind
from ctx_tui.transcripts.reader import TranscriptReader

NAMES = [f.name for f in dataclasses.fields(Entry)]


def _read(path: Path, monkeypatch: pytest.MonkeyPatch, compact: bool) -> list[Entry]:
    with monkeypatch.context() as patched:
        if not compact:
            made = CodexReader.__init__

            def full_entries(self: CodexReader, transcript: Transcript) -> None:
                made(self, transcript)
                transcript.compact_entries = False

            patched.setattr(CodexReader, "__init__", full_entries)
        reader = TranscriptReader(path)
        reader.poll()
        return reader.transcript.entries


@pytest.mark.parametrize("name", [CODEX_REDACTED, CODEX_FULL])
def test_a_codex_session_reads_the_same_in_either_layout(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    compact, full = _read(fixture(name), monkeypatch, True), _read(fixture(name), monkeypatch, False)
    assert {type(e) for e in compact} == {Entry} and {type(e) for e in full} == {FullEntry}
    assert [[getattr(e, n) for n in NAMES] for e in compact] == [[getattr(e, n) for n in NAMES] for e in full]
    assert compact == full  # equal across the layouts
    calls = [e for e in compact if e.kind is Kind.TOOL_CALL]
    assert calls and all(e.tool_input is not None and e.uuid is e.tool_use_id for e in calls)
    assert sys.getsizeof(compact[0]) + 56 == sys.getsizeof(full[0])


def test_an_entry_copies_pickles_and_replaces_as_itself() -> None:
    t = Transcript(Format.CODEX)
    t.compact_entries = True
    call = t.add_tool_call("shell", {"command": ["ls", "-la"], "note": "café"}, parsed=True, uuid="c1", tool_use_id="c1")
    result = t.add(Kind.TOOL_RESULT, "tool", "done — ok", uuid="c1", tool_use_id="c1")
    for entry in (call, result):
        assert type(entry) is Entry
        for again in (copy.copy(entry), pickle.loads(pickle.dumps(entry))):
            assert type(again) is Entry and again == entry and dataclasses.asdict(again) == dataclasses.asdict(entry)
        replaced = dataclasses.replace(entry, seq=9)
        assert type(replaced) is FullEntry and replaced.seq == 9 and dataclasses.replace(replaced, seq=entry.seq) == entry
    assert call.tool_input == {"command": ["ls", "-la"], "note": "café"} and call.uuid == "c1" and result.tool_name == "shell"
    assert type(Entry(0, Kind.USER, "user", "hi", 1, 1)) is FullEntry


def test_an_entry_refuses_what_it_has_no_slot_for() -> None:
    """Its text, a tool call's input and the seven fields it reads from others stay as built."""
    t = Transcript(Format.CODEX)
    t.compact_entries = True
    call = t.add_tool_call("shell", {"command": "ls"}, parsed=True, uuid="c1", tool_use_id="c1")
    reply = t.add(Kind.ASSISTANT, "assistant", "hello")
    with pytest.raises(AttributeError):
        call.tool_input = {}
    for entry in (call, reply):
        with pytest.raises(AttributeError):
            entry.text = "shell {}"
    fields = (("uuid", "u"), ("message_id", "m"), ("is_sidechain", True), ("is_error", True), ("truncated", True), ("chars", 1))
    for name, value in fields:
        with pytest.raises(AttributeError):
            setattr(reply, name, value)
    reply.kind, reply.tokens, reply.tokens_counted, reply.in_context, reply.round = Kind.USER, 3, True, False, 2
    assert (reply.kind, reply.tokens, reply.tokens_counted, reply.in_context, reply.round) == (Kind.USER, 3, True, False, 2)
    assert (reply.text, reply.truncated, reply.chars) == ("hello", False, 5)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"uuid": "row", "tool_use_id": "call"},  # a uuid of its own
        {"message_id": "m1"},
        {"is_sidechain": True},
        {"is_error": True},
        {"in_context": False},
        {"tool_input": {"a": 1}},  # an input not read from the text
    ],
)
def test_a_field_an_entry_cannot_hold_gives_a_full_entry(kwargs: dict[str, object]) -> None:
    t = Transcript(Format.CODEX)
    t.compact_entries = True
    entry = t.add(Kind.TOOL_RESULT, "tool", "out", **kwargs)  # type: ignore[arg-type]
    assert type(entry) is FullEntry and all(getattr(entry, k) == v for k, v in kwargs.items())


@pytest.mark.parametrize(
    "text", ["x" * 2500, "é — " * 700 + "ok", "y" * 2000, "a\n…[+4 chars] and more"], ids=["cut", "cut-utf8", "whole", "mark-inside"]
)
def test_an_entry_reads_its_cut_and_length_from_its_text(text: str) -> None:
    t = Transcript(Format.CODEX)
    t.compact_entries = True
    entry = t.add(Kind.TOOL_RESULT, "tool", text)
    assert type(entry) is Entry and entry.chars == len(text) and entry.truncated is (len(text) > 2000)
    assert entry.text == text[:2000] + (f"\n…[+{len(text) - 2000} chars]" if len(text) > 2000 else "")


@pytest.mark.parametrize(
    "text",
    ["ends as a preview does\n…[+40 chars]", "é" * 1900 + "\n…[+7 chars]", "x" * 2100 + "\n…[+7 chars]", "é" * 2100 + "\n…[+7 chars]"],
    ids=["short", "short-utf8-long-bytes", "long", "long-utf8"],
)
def test_a_whole_text_that_ends_as_a_preview_reads_as_whole(text: str) -> None:
    """Past ``PREVIEW_CHARS`` (where a preview is) such a text needs a FullEntry; shorter, an Entry reads it as whole."""
    t = Transcript(Format.CODEX)
    t.compact_entries = True
    entry = t.add(Kind.ASSISTANT, "assistant", text)
    assert type(entry) is (FullEntry if len(text) > 2000 else Entry)
    assert (entry.truncated, entry.chars, entry.text) == (False, len(text), text)
    sealed = t.add(Kind.SUMMARY, "system", "[a sealed summary]", whole_chars=90_000)
    assert type(sealed) is FullEntry and (sealed.truncated, sealed.chars) == (True, 90_000)


def test_a_cut_or_unparsed_tool_call_is_a_full_entry() -> None:
    t = Transcript(Format.CODEX)
    t.compact_entries = True
    assert type(t.add_tool_call("shell", {"command": "x" * 5000}, parsed=True)) is FullEntry  # its text is a preview
    assert type(t.add_tool_call("shell", {"t": (1, 2)})) is FullEntry  # not parsed: its input kept as given
    assert type(t.add_tool_call("shell", {}, parsed=True)) is Entry and t.entries[-1].tool_input == {}


@pytest.mark.parametrize("name", [CODEX_REDACTED, CODEX_FULL])
def test_entries_share_places_and_hold_no_seq_int_of_their_own(name: str) -> None:
    reader = TranscriptReader(fixture(name))
    reader.poll()
    entries = reader.transcript.entries
    assert [e.seq for e in entries] == list(range(len(entries)))
    places = {id(e._place) for e in entries}  # type: ignore[attr-defined]
    assert len(places) <= reader.transcript.round + len(entries) // 256 + 1
    assert all(0 <= e._off < 256 for e in entries)  # type: ignore[attr-defined]  # cached small ints


def test_a_promoted_prompt_moves_the_later_entries_to_its_round() -> None:
    t = Transcript(Format.CODEX)
    t.compact_entries = True
    t.start_round()
    first = [t.add(Kind.ASSISTANT, "assistant", f"reply {i}") for i in range(300)]  # two places in round 1
    candidate = t.add(Kind.SYSTEM, "user", "a prompt after all")
    later = [t.add(Kind.ASSISTANT, "assistant", f"answer {i}") for i in range(3)]
    t.promote_to_user(candidate)
    now = t.add(Kind.ASSISTANT, "assistant", "next")
    assert [e.round for e in first] == [1] * 300 and [e.round for e in [candidate, *later, now]] == [2] * 5
    assert [e.seq for e in t.entries] == list(range(305)) and candidate.kind is Kind.USER
    assert now._place is later[-1]._place  # type: ignore[attr-defined]  # the new round's place goes on
    entry = dataclasses.replace(first[5], round=7)
    assert (entry.seq, entry.round, first[5].round) == (5, 7, 1)
    entry.seq, entry.round = 9, 8
    assert (entry.seq, entry.round) == (9, 8)
