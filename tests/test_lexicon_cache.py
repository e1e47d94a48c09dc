"""The compiled lexicon is kept in the user's cache: a later process reads it instead of compiling it
(ctx_tui.mentions._lexicon), and takes only what was compiled from the same code and lexicon."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctx_tui import english, mentions, usercache


def _tables(lexicon: mentions._Lexicon) -> tuple[object, ...]:
    return lexicon.single, lexicon.phrases, lexicon.heads


def test_the_lexicon_is_kept_and_read_back_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first process compiles the lexicon and keeps it; a later one reads the same tables (in the
    same order) without compiling; a damaged file, one kept for another source, or one whose tables
    are not what a compiled lexicon holds is not taken (the lexicon compiled and kept again)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    compiled = _tables(mentions._compiled_lexicon())
    kept = tmp_path / "ctx-tui" / mentions.LEXICON_FILE
    try:
        mentions._lexicon.cache_clear()
        assert _tables(mentions._lexicon()) == compiled
        assert kept.is_file() and kept.stat().st_size < 1 << 20  # usercache.read_json reads at most 1 MiB
        data = json.loads(kept.read_text())
        assert data["source"] == mentions._lexicon_source()

        def not_again() -> mentions._Lexicon:
            raise AssertionError("compiled again")

        with monkeypatch.context() as patch:
            patch.setattr(mentions, "_compiled_lexicon", not_again)
            mentions._lexicon.cache_clear()
            read = mentions._lexicon()
        assert _tables(read) == compiled
        assert [list(t) for t in read.single.values()] == [list(t) for t in compiled[0].values()]  # type: ignore[attr-defined]
        assert list(read.phrases) == list(compiled[1])  # type: ignore[call-overload]
        tables = data["value"]
        key, concepts = next(iter(tables["phrases"]))
        for other in (
            "{",
            json.dumps({**data, "source": "another"}),
            json.dumps({**data, "value": {**tables, "single": {**tables["single"], "deploy": "~release"}}}),
            json.dumps({**data, "value": {**tables, "single": {**tables["single"], "deploy": []}}}),
            json.dumps({**data, "value": {**tables, "phrases": [[key[:1], concepts]]}}),
            json.dumps({**data, "value": {**tables, "phrases": [[key, [1]]]}}),
            json.dumps({**data, "value": {**tables, "phrases": {"a b": ["~c"]}}}),
            json.dumps({**data, "value": [1]}),
        ):
            kept.write_text(other)
            mentions._lexicon.cache_clear()
            assert _tables(mentions._lexicon()) == compiled
            assert usercache.read_json(str(kept)) == data  # kept again
    finally:
        mentions._lexicon.cache_clear()


def test_the_kept_lexicon_is_keyed_by_what_compiling_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another lexicon file, matcher or lexicon reader is another source: its kept lexicon is not taken;
    where those files cannot be read, the lexicon is compiled and not kept."""
    source = mentions._lexicon_source()
    assert source is not None
    read = Path.read_bytes
    for name in ("concepts.txt", "mentions.py", "concepts.py"):
        with monkeypatch.context() as patch:
            patch.setattr(Path, "read_bytes", lambda self, name=name: read(self) + (b"\n" if self.name == name else b""))
            assert mentions._lexicon_source() != source
    compiled = _tables(mentions._compiled_lexicon())
    with monkeypatch.context() as patch:
        patch.setattr(Path, "read_bytes", lambda self: (_ for _ in ()).throw(OSError("unreadable")))
        patch.setenv("XDG_CACHE_HOME", str(tmp_path))
        assert mentions._lexicon_source() is None
        try:
            mentions._lexicon.cache_clear()
            assert _tables(mentions._lexicon()) == compiled
        finally:
            mentions._lexicon.cache_clear()
    assert not (tmp_path / "ctx-tui" / mentions.LEXICON_FILE).exists()


def test_the_everyday_keys_are_kept_by_both_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The everyday words' term keys are kept and read back the same, without stemming; keys kept for another
    lexicon or other word counts, or a damaged file, are not taken (stemmed and kept again)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    kept = tmp_path / "ctx-tui" / mentions.EVERYDAY_KEYS_FILE
    stemmed = english.common_keys(mentions.word_key)
    assert stemmed  # the word counts ship with pyspellchecker
    try:
        mentions._everyday_keys.cache_clear()
        assert mentions._everyday_keys() == stemmed
        data = json.loads(kept.read_text())
        assert data["source"] == f"{mentions._lexicon_source()}:{english.source()}"
        with monkeypatch.context() as patch:
            patch.setattr(mentions, "common_keys", lambda key_of: (_ for _ in ()).throw(AssertionError("stemmed again")))
            mentions._everyday_keys.cache_clear()
            assert mentions._everyday_keys() == stemmed
        for other in ("{", json.dumps({**data, "source": "another"}), json.dumps({**data, "value": [1]}), json.dumps({**data, "value": "x"})):
            kept.write_text(other)
            mentions._everyday_keys.cache_clear()
            assert mentions._everyday_keys() == stemmed
            assert usercache.read_json(str(kept)) == data  # kept again
        with monkeypatch.context() as patch:
            patch.setattr(mentions, "english_source", lambda: "other counts")
            mentions._everyday_keys.cache_clear()
            patch.setattr(mentions, "common_keys", lambda key_of: frozenset({"other"}))
            assert mentions._everyday_keys() == {"other"}  # not the keys kept for the other counts
    finally:
        mentions._everyday_keys.cache_clear()
