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

_PATH = re.compile(r"(?:~|\.{1,2})?(?:/?[\w@.+-]+/)+[\w@.+-]+|\b[\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|json|jsonl|md|ya?ml|toml|rs|go|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|sh|sql|css|scss|html|txt|cfg|ini|lock|env|xml|csv)\b")
_IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\b")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+(?:\.\d+)*", re.UNICODE)
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
    return "_" in token or "." in token.strip(".") or bool(_CAMEL.search(token)) or (
        any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
    )


def _words(text: str) -> set[str]:
    out: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group(0).lower()
        if len(word) < 3 or word in STOP_WORDS or word.isdigit() and len(word) < 2:
            continue
        out.add(stem(word))
    return out


@lru_cache(maxsize=16384)
def key_terms(text: str) -> frozenset[str]:
    """The key terms of ``text``: ``=path`` / ``=identifier`` specials plus stemmed content words."""
    terms: set[str] = set()
    rest = text
    for match in _PATH.finditer(text):
        path = match.group(0).strip("./")
        if "/" in path or "." in path:
            terms.add("=" + path.lower())
            terms.add("=" + path.rsplit("/", 1)[-1].lower())
    for match in _IDENTIFIER.finditer(rest):
        token = match.group(0)
        if _is_identifier(token):
            terms.add("=" + token.lower())
            for part in re.split(r"[._]", _CAMEL.sub("_", token)):
                terms |= _words(part)
    terms |= _words(_IDENTIFIER.sub(lambda m: " " if _is_identifier(m.group(0)) else m.group(0), rest))
    return frozenset(terms)


def _weight(term: str) -> float:
    return SPECIAL_WEIGHT if term.startswith("=") else 1.0


def match_score(item_terms: frozenset[str], text_terms: frozenset[str]) -> float:
    """Weighted share of ``item_terms`` found in ``text_terms`` (0..1)."""
    total = sum(_weight(t) for t in item_terms)
    if not total:
        return 0.0
    return sum(_weight(t) for t in item_terms & text_terms) / total


def refers_to(item_terms: frozenset[str], text: str, threshold: float) -> bool:
    """True when ``text`` mentions the item whose key terms are ``item_terms``."""
    if not item_terms:
        return False
    text_terms = key_terms(text)
    matched = item_terms & text_terms
    if len(matched) < min(MIN_MATCHED, len(item_terms)):
        return False
    return match_score(item_terms, text_terms) >= threshold


def mentions(entry: Entry) -> bool:
    """Whether ``entry`` is a place where the model or the user can mention an item."""
    return entry.kind in MENTION_KINDS and not entry.is_sidechain and getattr(entry, "in_context", True)


def occurrences(
    items: Sequence[TrackedItem], entries: Iterable[Entry], threshold: float
) -> dict[str, list[Entry]]:
    """For each item id, the entries (in order) that state or mention it."""
    terms = {item.id: key_terms(item.content) for item in items}
    found: dict[str, list[Entry]] = {item.id: [] for item in items}
    for entry in entries:
        if not mentions(entry) or not entry.text:
            continue
        for item in items:
            if refers_to(terms[item.id], entry.text, threshold):
                found[item.id].append(entry)
    return found

