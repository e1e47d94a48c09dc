"""Which words are everyday English: the most frequent words of English usage.

A part of a name that is also an everyday word (*Fast* of ``FastAPI``, *Next* of ``NextAuth``,
*Payment* of ``PaymentIntent``) is no evidence of the name by itself: "make it fast" is not about
FastAPI. A part that is not one (*Rx* of ``RxJava``, *Keychain* of ``KeychainHelper``, *Tailwind*
of ``TailwindCSS``) names it (see :mod:`ctx_tui.mentions`).

The frequencies are those `pyspellchecker` ships for English (word counts of a large corpus of
everyday, spoken-style English, in the package: nothing is downloaded). Read once per process, on
first use (~0.1 s), and only where a part of a name is all a sentence shares with an item.
"""

from __future__ import annotations

import gzip
import heapq
import importlib.util
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import orjson

#: The everyday words: this many of the most frequent (the 5,000th is about as common as *codes*,
#: *locks* or *intent*; *helper*, *query*, *token* and *cache* are further down, *rx* and *tailwind* far).
COMMON_RANK = 5000
_PACKAGE = "spellchecker"


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
    path = _counts_file()
    if path is None:
        return frozenset()
    try:
        counts = orjson.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError, EOFError):
        return frozenset()
    if not isinstance(counts, dict):
        return frozenset()
    values = [c for c in counts.values() if type(c) is int]
    if not values:
        return frozenset()
    cut = heapq.nlargest(COMMON_RANK, values)[-1]
    return frozenset(key_of(word) for word, c in counts.items() if type(c) is int and c >= cut and word.isalpha())
