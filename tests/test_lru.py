"""The bounded caches keep at most their size, dropping the least recently used first."""

from __future__ import annotations

import pytest

from ctx_tui.lru import LruCache


def test_storing_past_the_size_drops_the_least_recently_used() -> None:
    cache: LruCache[str, int] = LruCache(maxsize=2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent: "b" goes first
    cache.put("c", 3)
    assert len(cache) == 2
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c")) == (1, 3)


def test_storing_an_existing_key_replaces_it_without_growing() -> None:
    cache: LruCache[str, int] = LruCache(maxsize=2)
    cache.put("a", 1)
    cache.put("a", 2)
    assert len(cache) == 1 and cache.get("a") == 2


def test_a_cache_holds_at_least_one_entry() -> None:
    with pytest.raises(ValueError):
        LruCache(maxsize=0)


def test_the_session_memory_cache_is_bounded(tmp_path) -> None:
    from ctx_tui.memory import session_store
    from ctx_tui.memory.session_store import load_session_memory, session_memory_path

    bound = session_store._PARSED.maxsize
    for n in range(bound + 5):
        path = session_memory_path(tmp_path, f"s{n}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"session_id: s{n}\nitems: []\n", encoding="utf-8")
        assert load_session_memory(tmp_path, f"s{n}").session_id == f"s{n}"
    assert len(session_store._PARSED) == bound
