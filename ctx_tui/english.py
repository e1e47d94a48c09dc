"""Which words are everyday English: the most frequent words of English usage.

A part of a name that is also an everyday word (*Fast* of ``FastAPI``, *Next* of ``NextAuth``,
*Payment* of ``PaymentIntent``) is no evidence of the name by itself: "make it fast" is not about
FastAPI. A part that is not one (*Rx* of ``RxJava``, *Keychain* of ``KeychainHelper``, *Tailwind*
of ``TailwindCSS``) names it (see :mod:`ctx_tui.mentions`).

The frequencies are those `pyspellchecker` ships for English (word counts of a large corpus of
everyday, spoken-style English, in the package: nothing is downloaded). Read on first use, and
only where a part of a name is all a sentence shares with an item; the everyday words found
(reading and ranking the 160,000 counts takes ~0.1 s) are kept in the user's cache
(:mod:`ctx_tui.usercache`, by the file's :func:`source`), so a later process only reads those.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import orjson

from ctx_tui import usercache

#: The everyday words: this many of the most frequent (the 5,000th is about as common as *codes*,
#: *locks* or *intent*; *helper*, *query*, *token* and *cache* are further down, *rx* and *tailwind* far).
COMMON_RANK = 5000
_PACKAGE = "spellchecker"
#: The everyday words found, in the user's cache.
EVERYDAY_WORDS = "everyday-words.json"


def _counts_file() -> Path | None:
    """The word counts' file inside the installed package, found without importing it."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "resources" / "en.json.gz"
        if path.is_file():
            return path
    return None


def source() -> str:
    """Which word counts these are (part of what a cached scan depends on): the file's size and
    modification time, '' if it is missing (``stat`` only: no import, no reading)."""
    path = _counts_file()
    if path is None:
        return ""
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}"


@lru_cache(maxsize=4)
def common_keys(key_of: Callable[[str], str]) -> frozenset[str]:
    """The :data:`COMMON_RANK` most frequent English words, each read by ``key_of`` (the matcher's
    stemming); empty where the word counts cannot be read."""
    return frozenset(key_of(word) for word in everyday_words())


def everyday_words() -> list[str]:
    """The :data:`COMMON_RANK` most frequent English words (those all letters: ties at the last
    count included), taken from the user's cache when it holds them for these word counts.

    Without them there, a child process ranks the words and keeps them (:mod:`ctx_tui.apart`:
    parsing the 160,000 counts left a dashboard's heap ~7.6 MiB larger for as long as it ran),
    and this process reads what it kept; where that fails, the words are ranked here."""
    path = _counts_file()
    if path is None:
        return []
    kept_at = os.path.join(usercache.cache_dir(), EVERYDAY_WORDS)
    key = f"{source()}:{COMMON_RANK}"
    words = _kept(kept_at, key)
    if words is None:
        from ctx_tui.apart import built_apart

        if built_apart("ctx_tui.english", "_ranked_and_kept"):
            words = _kept(kept_at, key)
    return words if words is not None else _ranked(path, kept_at, key)


def _kept(kept_at: str, key: str) -> list[str] | None:
    """The words kept at ``kept_at`` for the word counts ``key``; None when there are none."""
    words = usercache.kept(kept_at, key)
    return words if isinstance(words, list) and all(type(w) is str for w in words) else None


def _ranked_and_kept() -> int:
    """The child of :func:`everyday_words`: 0 when the words are ranked and kept, else 1."""
    path = _counts_file()
    if path is None:
        return 1
    kept_at = os.path.join(usercache.cache_dir(), EVERYDAY_WORDS)
    key = f"{source()}:{COMMON_RANK}"
    return 0 if _ranked(path, kept_at, key) and _kept(kept_at, key) is not None else 1


def _ranked(path: Path, kept_at: str, key: str) -> list[str]:
    """The everyday words ranked from the word counts at ``path``, kept at ``kept_at`` for the next process."""
    import gzip
    import heapq

    try:
        counts = orjson.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError, EOFError):
        return []
    if not isinstance(counts, dict):
        return []
    values = [c for c in counts.values() if type(c) is int]
    if not values:
        return []
    cut = heapq.nlargest(COMMON_RANK, values)[-1]
    words = [word for word, c in counts.items() if type(c) is int and c >= cut and word.isalpha()]
    usercache.keep(kept_at, key, words)
    return words
