"""Reference detection: does a later entry talk about a tracked item?

An item and an entry are each reduced to *key terms*:

* identifiers (``snake_case``, ``camelCase``, ``dotted.names``) and file paths,
  kept whole (weight 2), and also split into their word parts;
* content words, lower-cased, minus stop words, lightly stemmed (weight 1).

An entry refers to an item when the weighted share of the item's terms it
contains reaches ``config.decay.reference_threshold`` (default 0.5) and at
least three of them match (all of them for an item with three terms or fewer).
So a paraphrase counts ("send the notifications via Feishu" refers to "Use
Feishu for notifications"), an unrelated entry sharing one common word does not.

What counts as a mention: user and assistant text, thinking, tool calls,
compaction summaries and system notes (a restatement arrives as one) of the
main chain. Tool results do not: a file listing that happens to contain a
word is not the agent attending to the item.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache

from ctx_tui.memory.items import TrackedItem
from ctx_tui.transcripts.model import Entry, Kind

#: Entry kinds whose text can refer to an item.
MENTION_KINDS = frozenset({Kind.USER, Kind.ASSISTANT, Kind.THINKING, Kind.TOOL_CALL, Kind.SUMMARY, Kind.SYSTEM})
#: A mention shares at least this many key terms with the item (all of them for shorter items).
MIN_MATCHED = 3
#: Terms that are identifiers or paths weigh this much; plain words weigh 1.
SPECIAL_WEIGHT = 2.0

STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been before being below
    between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
    few for from further had hadn't has hasn't have haven't having he her here hers herself him himself his how i
    if in into is isn't it it's its itself just let let's me more most mustn't my myself no nor not now of off on
    once only or other ought our ours ourselves out over own same shan't she should shouldn't so some such than
    that that's the their theirs them themselves then there there's these they this those through to too under
    until up very was wasn't we were weren't what when where which while who whom why will with won't would
    wouldn't you your yours yourself yourselves i'm i've i'd i'll we're we've we'll you're you've you'll
    please thanks thank ok okay yes yeah sure also just really actually maybe might may must shall
    use used using uses make makes made get gets got set sets need needs want wants like likes way thing things
    one two new now still even well always never every everything something anything nothing
    """.split()
)

#: A run of path characters; it is a path when it holds a "/" or ends in a known extension.
_PATHISH = re.compile(r"[\w@.+~/-]+")
_EXTENSION = re.compile(r"\.(?:py|pyi|ts|tsx|js|jsx|mjs|json|jsonl|md|ya?ml|toml|rs|go|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|sh|sql|css|scss|html|txt|cfg|ini|lock|env|xml|csv)$")
#: Words, identifiers (snake_case, dotted.names, camelCase), versions and contractions.
_TOKEN = re.compile(r"\w+(?:[.'\u2019]\w+)*")
_PARTS = re.compile(r"[._]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SUFFIXES = (
    ("ational", "ate"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("ization", "ize"),
    ("ments", ""),
    ("ment", ""),
    ("ings", ""),
    ("ing", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("edly", ""),
    ("ed", ""),
    ("ly", ""),
    ("es", ""),
    ("s", ""),
)


def stem(word: str) -> str:
    """A light suffix-stripping stem: deploy, deploys, deployed, deploying, deployment -> deploy."""
    w = word.lower()
    if len(w) <= 4 or not w.isascii():
        return w
    for suffix, replacement in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)] + replacement
    return w


def _is_identifier(token: str) -> bool:
    return "_" in token or "." in token or bool(_CAMEL.search(token)) or (
        not token.isalpha() and not token.isdigit()
    )


def _word(token: str) -> str | None:
    """The stemmed content word of a plain token, or None for stop words, short words and small numbers."""
    word = token.lower()
    if len(word) < 3 or word in STOP_WORDS:
        return None
    return stem(word)


@lru_cache(maxsize=1 << 17)
def _token_terms(token: str) -> tuple[str, ...]:
    """The terms one token gives (cached: a session's vocabulary is small next to its text)."""
    if "'" in token or "\u2019" in token or not _is_identifier(token):
        word = _word(token)
        return (word,) if word else ()
    terms = ["=" + token.lower()]
    for part in _PARTS.split(_CAMEL.sub("_", token)):
        word = _word(part) if part and not part.isdigit() else None
        if word:
            terms.append(word)
    return tuple(terms)


@lru_cache(maxsize=16384)
def key_terms(text: str) -> frozenset[str]:
    """The key terms of ``text``: ``=path`` / ``=identifier`` specials plus stemmed content words."""
    terms: set[str] = set()
    for candidate in set(_PATHISH.findall(text)):
        if "/" not in candidate and "." not in candidate:
            continue
        path = candidate.strip("./-")
        if ("/" in path and any(c.isalnum() for c in path)) or _EXTENSION.search(path):
            terms.add("=" + path.lower())
            terms.add("=" + path.rsplit("/", 1)[-1].lower())
    for token in set(_TOKEN.findall(text)):  # each distinct token once
        terms.update(_token_terms(token))
    return frozenset(terms)


def _weight(term: str) -> float:
    return SPECIAL_WEIGHT if term.startswith("=") else 1.0


class ItemMatcher:
    """Decides whether a text mentions one item; its terms and weights are computed once."""

    __slots__ = ("terms", "total", "needed", "threshold")

    def __init__(self, terms: frozenset[str], threshold: float) -> None:
        self.terms = terms
        self.total = sum(_weight(t) for t in terms)
        self.needed = min(MIN_MATCHED, len(terms))
        self.threshold = threshold

    def matches(self, text_terms: frozenset[str]) -> bool:
        if not self.terms:
            return False
        common = self.terms & text_terms
        if len(common) < self.needed:
            return False
        return sum(_weight(t) for t in common) / self.total >= self.threshold


def mentions(entry: Entry) -> bool:
    """Whether ``entry`` is a place where the model or the user can mention an item."""
    return entry.kind in MENTION_KINDS and not entry.is_sidechain and getattr(entry, "in_context", True)


class _ScanCache:
    """What the last :func:`occurrences` call over a growing entry list found.

    A session's entry list only grows (a reset replaces the list), so the next
    call on the same list scans the appended entries only. One slot: the
    latest list; matches are kept per (terms, threshold) of the items asked for.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entries: Sequence[Entry] | None = None
        self.scanned = 0
        self.found: dict[tuple[frozenset[str], float], list[Entry]] = {}


_CACHE = _ScanCache()


def _scan(matchers: dict[tuple[frozenset[str], float], ItemMatcher], entries: Iterable[Entry]) -> dict[tuple[frozenset[str], float], list[Entry]]:
    found: dict[tuple[frozenset[str], float], list[Entry]] = {key: [] for key in matchers}
    for entry in entries:
        if not entry.text or not mentions(entry):
            continue
        text_terms = key_terms(entry.text)
        for key, matcher in matchers.items():
            if matcher.matches(text_terms):
                found[key].append(entry)
    return found


def occurrences(items: Sequence[TrackedItem], entries: Sequence[Entry], threshold: float) -> dict[str, list[Entry]]:
    """For each item id, the entries (in order) that state or mention it."""
    keys = {item.id: (key_terms(item.content), threshold) for item in items}
    wanted = set(keys.values())
    with _CACHE.lock:
        cache = _CACHE
        if cache.entries is not entries or len(entries) < cache.scanned:
            cache.entries, cache.scanned, cache.found = entries, 0, {}
        cache.found = {key: found for key, found in cache.found.items() if key in wanted}
        known = {key: ItemMatcher(*key) for key in cache.found}
        fresh = {key: ItemMatcher(*key) for key in wanted if key not in cache.found}
        for key, more in _scan(known, entries[cache.scanned :]).items():
            cache.found[key].extend(more)
        cache.found.update(_scan(fresh, entries))
        cache.scanned = len(entries)
        return {item_id: list(cache.found[key]) for item_id, key in keys.items()}
