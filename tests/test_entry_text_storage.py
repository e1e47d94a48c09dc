"""Entry.text is stored as UTF-8 bytes when it is not ASCII and always read back as the same str."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import sys
import tracemalloc

import pytest

from ctx_tui.transcripts.model import Entry, Kind, key_text, text_key

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
