"""A score bound is never below the score.

:class:`~ctx_tui.mentions.ScoreBound` lets the backward reference scan rule out
an item for a sentence without scoring it, from bounds of the terms' IDFs. On
real sessions, with items cut from their own sentences and the vocabulary
learning as the session is read, the bound must be at least the score
:func:`~ctx_tui.mentions.similarity` gives, for every item that shares a term
or a concept with the sentence: with the exact IDFs, and with IDFs known only
within a margin either side (what the scan knows over a stretch of sentences).
"""

from __future__ import annotations

import pytest

from ctx_tui.mentions import (
    THRESHOLD,
    Profile,
    ScoreBound,
    Vocabulary,
    _Idf,
    _MARGIN,
    _parse,
    sentences,
    similarity,
)

from conftest import CLAUDE_SHORT, CODEX_FULL
from test_mentions_index import _items, _texts


class _Exact(dict[str, float]):
    """Each key's IDF at one state of the vocabulary, ``shift`` added (at least 0)."""

    def __init__(self, idf: _Idf, shift: float = 0.0) -> None:
        super().__init__()
        self.idf = idf
        self.shift = shift

    def __missing__(self, key: str) -> float:
        value = self[key] = max(0.0, next(self.idf.of([key])) + self.shift)
        return value


@pytest.mark.parametrize("name", [CLAUDE_SHORT, CODEX_FULL])
def test_the_bound_is_never_below_the_score(name: str) -> None:
    texts = _texts(name)[:600]
    profiles = [Profile(text) for text in _items(texts, 40).values()]
    vocab = Vocabulary()
    hits = ruled_out = 0
    for text, strict in texts:
        for sentence in sentences(text):
            parsed = _parse(sentence)
            vocab.add_keys(parsed.keys)
            idf = _Idf(vocab)
            exact = ScoreBound(parsed, _Exact(idf), _Exact(idf), strict, exact=True)
            loose = ScoreBound(parsed, _Exact(idf, 0.4), _Exact(idf, -0.7), strict, exact=False)
            for profile in profiles:
                if parsed.keys.isdisjoint(profile.index_keys()):
                    continue
                score, matched = similarity(profile, sentence, vocab, strict)
                for bound in (exact, loose):
                    assert bound.of(profile, bound.item_base(profile)) >= score * _MARGIN, (sentence, profile.text)
                hits += bool(matched) and score >= THRESHOLD
                ruled_out += not exact.may_reach(profile, exact.item_base(profile), THRESHOLD)
    assert hits and ruled_out  # both kinds are met
