"""A mapping bounded to its most recently used keys, for the module-level caches.

The caches it backs keep a parsed value next to what it was parsed from and
check that themselves (:mod:`ctx_tui.memory.session_store`,
:mod:`ctx_tui.retrieve`), so ``functools.lru_cache`` does not fit; what they
need from here is only the bound, so that a long-lived process (the
dashboard, hours on end) holds at most ``maxsize`` entries. Thread-safe: the
dashboard's worker threads and the UI's off-thread jobs share them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """At most ``maxsize`` entries; storing one more drops the least recently used."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("an LRU cache holds at least one entry")
        self.maxsize = maxsize
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value stored under ``key`` (now the most recently used), or None."""
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)
