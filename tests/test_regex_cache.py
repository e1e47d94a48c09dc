"""Regular expressions' programs kept in the user's cache (ctx_tui.regex_cache): a later process makes the
same pattern objects from them without compiling, and takes nothing from a damaged or foreign file."""

from __future__ import annotations

import marshal
import re
from pathlib import Path

import pytest

from ctx_tui import regex_cache
from ctx_tui.memory import sentence_frames, sentence_types

PATTERNS = [
    (r"\b(?:we decide|we take)\b", re.I),
    (r"(?P<url>https?://\S+)|(?P<path>/[\w./-]+)", 0),
    (r"^(?:ok|yes)[.!]*$", re.I | re.M),
    (r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", 0),
    ("[^\t\n\r -~\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]", 0),
    (sentence_types._TRIGGER.pattern, sentence_types._TRIGGER.flags),
    (sentence_frames._FOREIGN.pattern, sentence_frames._FOREIGN.flags),
]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user cache, and the module as a new process finds it (nothing read, nothing new)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(regex_cache, "_kept", None)
    monkeypatch.setattr(regex_cache, "_new", {})
    monkeypatch.setattr(regex_cache.atexit, "register", lambda function: function)  # written by the test
    return tmp_path / "ctx-tui" / regex_cache.FILE


def _new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regex_cache, "_kept", None)
    monkeypatch.setattr(regex_cache, "_new", {})


def test_programs_are_kept_and_make_the_same_patterns(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = [regex_cache.compile(pattern, flags) for pattern, flags in PATTERNS]
    assert compiled == [re.compile(pattern, flags) for pattern, flags in PATTERNS]
    assert len(regex_cache._new) == len(PATTERNS)
    regex_cache._save()
    _new_process(monkeypatch)

    def not_again(pattern: str, flags: int = 0) -> re.Pattern[str]:
        raise AssertionError("compiled again")

    with monkeypatch.context() as patch:
        patch.setattr(regex_cache.re, "compile", not_again)
        read = [regex_cache.compile(pattern, flags) for pattern, flags in PATTERNS]
    for made, expected in zip(read, compiled, strict=True):
        assert made == expected  # the pattern, the flags and the program
        assert (made.groups, made.groupindex) == (expected.groups, expected.groupindex)
    assert not regex_cache._new  # nothing to write again
    text = "We decide: https://x.io/a and /usr/bin; MkDocsHelper\nok!"
    for made, expected in zip(read, compiled, strict=True):
        assert [m.span() for m in made.finditer(text)] == [m.span() for m in expected.finditer(text)]


def test_a_process_keeps_what_the_file_held_and_its_own(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Processes that compile other patterns do not undo each other's."""
    (first, flags_1), (second, flags_2) = PATTERNS[:2]
    regex_cache.compile(first, flags_1)
    regex_cache._save()
    _new_process(monkeypatch)
    regex_cache.compile(second, flags_2)
    regex_cache._save()
    _, table = marshal.loads(cache.read_bytes())
    assert set(table) == {(first, int(flags_1)), (second, int(flags_2))}


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"",
        lambda data: data[: len(data) // 2],
        lambda data: b"\x00not marshal",
        lambda data: marshal.dumps((("another python",), marshal.loads(data)[1])),
        lambda data: marshal.dumps((regex_cache._VERSION, {key: (0, [1, 2, 3], 0, {}, ()) for key in marshal.loads(data)[1]})),
        lambda data: marshal.dumps((regex_cache._VERSION, {key: (0, "code", 0, {}, ()) for key in marshal.loads(data)[1]})),
        lambda data: marshal.dumps((regex_cache._VERSION, {key: 7 for key in marshal.loads(data)[1]})),
        lambda data: marshal.dumps((regex_cache._VERSION, [])),
        lambda data: marshal.dumps(7),
    ],
)
def test_a_damaged_or_foreign_file_is_no_cache(cache: Path, monkeypatch: pytest.MonkeyPatch, damage: object) -> None:
    """Whatever the file holds, the patterns are those re.compile makes (compiled again and kept again)."""
    expected = [re.compile(pattern, flags) for pattern, flags in PATTERNS]
    for pattern, flags in PATTERNS:
        regex_cache.compile(pattern, flags)
    regex_cache._save()
    cache.write_bytes(damage(cache.read_bytes()))  # type: ignore[operator]  # the parametrized callables
    _new_process(monkeypatch)
    assert [regex_cache.compile(pattern, flags) for pattern, flags in PATTERNS] == expected
    regex_cache._save()
    _new_process(monkeypatch)
    assert [regex_cache.compile(pattern, flags) for pattern, flags in PATTERNS] == expected
    assert not regex_cache._new  # kept again by the process before


def test_a_folder_or_fifo_at_the_path_is_no_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.mkdir(parents=True)
    pattern, flags = PATTERNS[0]
    assert regex_cache.compile(pattern, flags) == re.compile(pattern, flags)
    regex_cache._save()  # a write that fails is skipped
    assert cache.is_dir()
