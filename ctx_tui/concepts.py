"""The software-engineering concept lexicon (``concepts.txt``) as written, before the matcher reads it.

The file ships in the package; :func:`raw_lexicon` parses it once. The matcher
(:mod:`ctx_tui.mentions`) turns its words into terms with its own stemmer and
stop words, so the lexicon and the text it is compared with are read alike.

Two kinds of entries (the file's header says more):

* ``= key: variant, ...`` — one word written differently: each variant (a whole
  lower-case word) is read as ``key``;
* ``name: term, ...`` — a concept: each term (word, identifier or phrase) also
  gives the weak term ``~name``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path


def _entry(number: int, line: str) -> tuple[str, tuple[str, ...]]:
    head, sep, rest = line.partition(":")
    items = tuple(t.strip().lower() for t in rest.split(",") if t.strip())
    if not sep or not items:
        raise ValueError(f"concepts.txt:{number}: expected 'name: term, term' or '= key: variant, variant'")
    return head.strip(), items


def parse_same(text: str) -> dict[str, str]:
    """The ``= key: variant, ...`` entries: each variant (and the key) -> the key."""
    same: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("="):
            head, items = _entry(number, line)
            key = head[1:].strip().lower()
            for variant in (key, *items):
                same[variant] = key
    return same


def parse_concepts(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The concept entries: (name, terms as written); a malformed line is an error naming it (the file is ours)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith(("#", "=")):
            out.append(_entry(number, line))
    return tuple(out)


def _text() -> str:
    return (Path(__file__).parent / "concepts.txt").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def same_words() -> dict[str, str]:
    """The packaged lexicon's one-word-written-differently table (read once: every term needs it)."""
    return parse_same(_text())


def concept_entries() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The packaged lexicon's concepts, read from the file at each call: the matcher compiles them
    once (``mentions._lexicon``) and keeps only that (~0.6 MiB less for a dashboard's life)."""
    return parse_concepts(_text())
