"""Entry.text is stored as UTF-8 bytes when it is not ASCII and always read back as the same str."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import sys
import tracemalloc

import orjson
import pytest

from conftest import CLAUDE_COMPACTED, CODEX_REDACTED, fixture
from ctx_tui.transcripts.builder import Transcript
from ctx_tui.transcripts.model import TOOL_INPUT_CHARS, Entry, Format, Kind, Usage, keep_usage_packed, key_text, text_key
from ctx_tui.window import Session

TEXTS = ["", "plain ASCII", "a dash — and an ellipsis …", "emoji 🙂 wide", "x\ud800y (a lone surrogate)", "日本語のテキスト"]


def _entry(text: str) -> Entry:
    return Entry(0, Kind.ASSISTANT, "assistant", text, 1, 1)


@pytest.mark.parametrize("text", TEXTS)
def test_text_reads_back_as_given(text: str) -> None:
    entry = _entry(text)
    assert type(entry.text) is str and entry.text == text
    assert dataclasses.asdict(entry)["text"] == text
    assert dataclasses.replace(entry, seq=5).text == text
    assert copy.copy(entry).text == text and pickle.loads(pickle.dumps(entry)).text == text
    assert entry == _entry(text) and f"text={text!r}" in repr(entry)
    entry.text = "changed"
    assert entry.text == "changed"
    entry.text = text
    assert entry.text == text


def test_a_mostly_ascii_text_is_stored_compactly() -> None:
    """One dash makes a str 2 bytes a character; the entry keeps ~1 (its UTF-8)."""
    tracemalloc.start()
    try:
        entries = [_entry("ascii " * 500 + f"{i} —") for i in range(100)]
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    as_str = sum(sys.getsizeof(e.text) for e in entries)
    assert as_str > 100 * 6000 and held < 0.6 * as_str


def test_text_key_stands_for_the_text_without_a_copy() -> None:
    """Equal keys for equal texts and only for them; the key is the entry's stored object."""
    entries = [_entry(text) for text in TEXTS] + [_entry(text) for text in TEXTS]
    keys = [text_key(e) for e in entries]
    assert all(key_text(k) == e.text for k, e in zip(keys, entries))
    assert len(set(keys)) == len(set(TEXTS))
    entry = entries[2]
    assert text_key(entry) is text_key(entry)  # no new object per call (a decoded text would be)


TOOL_INPUTS = [
    {"command": "ls -la", "timeout": 120},
    {"content": "x" * 4000 + "\n…[+99 chars]", "path": "a/b.py", "nested": {"list": [1, 2.5, None, True]}},
    {"plan": [{"step": "emoji 🙂", "status": "done"}]},
]


def _call(tool_input: object) -> Entry:
    return Entry(0, Kind.TOOL_CALL, "assistant", "Bash {}", 1, 1, tool_name="Bash", tool_input=tool_input)  # type: ignore[arg-type]


@pytest.mark.parametrize("tool_input", TOOL_INPUTS)
def test_tool_input_reads_back_as_given(tool_input: dict[str, object]) -> None:
    entry = _call(tool_input)
    assert entry.tool_input == tool_input and type(entry.tool_input) is dict
    assert dataclasses.asdict(entry)["tool_input"] == tool_input
    assert pickle.loads(pickle.dumps(entry)).tool_input == tool_input
    assert dataclasses.replace(entry, seq=3).tool_input == tool_input and entry == _call(tool_input)
    entry.tool_input["command"] = "changed"  # a read is a copy: the entry keeps its input
    assert entry.tool_input == tool_input


@pytest.mark.parametrize("tool_input", [None, {}, {"t": (1, 2)}, {"n": float("nan")}, {"s": "x\ud800y"}, {1: "int key"}])
def test_a_tool_input_json_would_change_is_kept_as_given(tool_input: object) -> None:
    entry = _call(tool_input)
    assert entry.tool_input is tool_input


def test_a_cut_tool_input_is_stored_compactly() -> None:
    """A 4,000-character input cut with "…" took 2 bytes a character as a str; stored as JSON about 1."""
    tool_input = {"content": "x" * 4000 + "\n…[+99 chars]"}
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        entries = [_call({"content": "y" * 4000 + f"\n…[+{n} chars]"}) for n in range(50)]
        used = (tracemalloc.get_traced_memory()[0] - before) / len(entries)
    finally:
        tracemalloc.stop()
    assert used < 5000, used  # as dicts: > 8,000 bytes each
    assert _call(tool_input).tool_input == tool_input


def test_entry_init_matches_the_dataclass() -> None:
    """Entry's hand-written ``__init__`` takes the fields in order, with their defaults, and sets every one."""
    params = list(inspect.signature(Entry.__init__).parameters.values())[1:]
    empty = inspect.Parameter.empty
    expected = [(f.name, empty if f.default is dataclasses.MISSING else f.default) for f in dataclasses.fields(Entry)]
    assert [(p.name, p.default) for p in params] == expected
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params)
    values = [7, Kind.TOOL_CALL, "assistant", "Bash — {}", 3, 2, "ts", "u", "m", "Bash", {"a": 1}, "t", True, True, True, None, False, 9, True]
    entry = Entry(*values)
    assert [getattr(entry, f.name) for f in dataclasses.fields(Entry)] == values
    assert dataclasses.astuple(Entry(0, Kind.USER, "user", "x", 1, 1)) == (0, Kind.USER, "user", "x", 1, 1, *[p.default for p in params[6:]])


@pytest.mark.parametrize("name", ["Bash", "ツール"])
@pytest.mark.parametrize("tool_input", TOOL_INPUTS[::2] + [{"cmd": "échoué — 🙂"}])
@pytest.mark.parametrize("parsed", [True, False])
def test_a_tool_input_kept_in_its_text_reads_back_and_outlives_a_new_text(name: str, tool_input: dict[str, object], parsed: bool) -> None:
    """A whole ``name {json}`` text holds the input once; setting another text keeps the input."""
    transcript = Transcript(Format.CLAUDE_CODE)
    data = orjson.loads(orjson.dumps(tool_input))
    entry = transcript.add_tool_call(name, data, parsed=parsed)
    assert type(entry._stored_tool_input) is int  # type: ignore[attr-defined]  # no second copy of the JSON
    assert entry.tool_input == tool_input and entry.text == f"{name} {orjson.dumps(tool_input).decode()}"
    assert pickle.loads(pickle.dumps(entry)).tool_input == tool_input and copy.copy(entry).tool_input == tool_input
    assert dataclasses.replace(entry, text="other").tool_input == tool_input
    entry.text = "replaced — wholly"
    assert entry.tool_input == tool_input and entry.text == "replaced — wholly"


def test_a_cut_tool_call_text_keeps_its_own_input() -> None:
    """A text cut to ``TOOL_INPUT_CHARS`` is no longer the input's JSON: the input is stored apart."""
    transcript = Transcript(Format.CODEX)
    data = {"command": "y" * (TOOL_INPUT_CHARS - 20)}
    entry = transcript.add_tool_call("a_long_tool_name_" * 3, data, parsed=True)
    assert entry.truncated and type(entry._stored_tool_input) is bytes  # type: ignore[attr-defined]
    assert entry.tool_input == data


@pytest.mark.parametrize("name", [CODEX_REDACTED, CLAUDE_COMPACTED])
def test_a_session_holds_one_object_per_tool_name_and_call_id_and_no_input_twice(name: str) -> None:
    session = Session(fixture(name))
    session.poll()
    calls = [e for e in session.entries if e.kind is Kind.TOOL_CALL]
    assert len({id(e.tool_name) for e in calls}) == len({e.tool_name for e in calls}) < len(calls) / 4
    whole = [e for e in calls if not e.truncated and e.tool_input]
    if session.format is Format.CODEX:  # every entry an Entry: no slot for the input, read from the text
        assert all(type(e) is Entry for e in session.entries) and not hasattr(whole[0], "_stored_tool_input")
    else:
        assert whole and all(type(e._stored_tool_input) is int for e in whole)  # type: ignore[attr-defined]
    assert all(e.tool_input == orjson.loads(e.text[len(e.tool_name or "") + 1 :]) for e in whole)
    calls_by_id = {e.tool_use_id: e for e in calls if e.tool_use_id}
    results = [e for e in session.entries if e.kind is Kind.TOOL_RESULT and e.tool_use_id in calls_by_id]
    assert results and all(e.tool_use_id is calls_by_id[e.tool_use_id].tool_use_id for e in results)  # one id object
    assert all(e.tool_name == calls_by_id[e.tool_use_id].tool_name for e in results)
    if session.format is Format.CODEX:  # its usages are packed (no int object of their own)
        assert all(e.uuid is e.tool_use_id for e in results)
        reported = [e for e in session.entries if e.usage is not None]
        assert reported and all(type(e._stored_usage) is bytes for e in reported)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", [CODEX_REDACTED, CLAUDE_COMPACTED])
def test_equal_timestamps_of_consecutive_entries_are_one_object(name: str) -> None:
    session = Session(fixture(name))
    session.poll()
    pairs = list(zip(session.entries, session.entries[1:]))
    equal = [(a, b) for a, b in pairs if a.timestamp is not None and a.timestamp == b.timestamp]
    assert equal and all(a.timestamp is b.timestamp for a, b in equal)
    assert all(a.timestamp is not b.timestamp for a, b in pairs if a.timestamp != b.timestamp)


def test_a_codex_report_shares_the_window_int() -> None:
    from ctx_tui.transcripts.codex import CodexReader

    transcript = Transcript(Format.CODEX)
    reader = CodexReader(transcript)
    reported = []
    for total in (1000, 2000, 3000):
        info = orjson.loads(orjson.dumps({"last_token_usage": {"total_tokens": total, "input_tokens": total - 10, "cached_input_tokens": 5, "output_tokens": 10}, "model_context_window": 258400}))
        transcript.add(Kind.ASSISTANT, "assistant", f"reply {total}")
        reader._usage(info)
        reported.append(transcript.last_usage)
    assert all(u is not None and u.context_window is transcript.meta.context_window for u in reported)
    assert [e.usage for e in transcript.entries] == [Usage(t, 10, t - 10, 0, 5, 258400) for t in (1000, 2000, 3000)]


@pytest.mark.parametrize(
    "usage",
    [Usage(5, 6, 7, 8, 9, 200_000), Usage(5), Usage(2**32 - 1, 0, 0, 0, 0, 1)],
)
def test_a_packed_usage_reads_back_as_given(usage: Usage) -> None:
    entry = _entry("reply")
    keep_usage_packed(entry, usage)
    assert type(entry._stored_usage) is bytes  # type: ignore[attr-defined]
    assert entry.usage == usage and type(entry.usage) is Usage and entry.usage is not entry.usage
    assert dataclasses.asdict(entry)["usage"] == dataclasses.asdict(usage)
    assert pickle.loads(pickle.dumps(entry)).usage == usage and dataclasses.replace(entry, seq=2).usage == usage
    entry.usage = None
    assert entry.usage is None


@pytest.mark.parametrize(
    "usage",
    [Usage(True, 1), Usage(5, context_window=0), Usage(2**32), Usage(-1), Usage(5, 6, 7, 8, 9, 2**32), Usage(5, 1.5)],  # type: ignore[arg-type]
)
def test_a_usage_that_does_not_pack_is_kept_as_given(usage: Usage) -> None:
    entry = _entry("reply")
    keep_usage_packed(entry, usage)
    assert entry.usage is usage
