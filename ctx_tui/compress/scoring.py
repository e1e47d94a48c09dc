"""A small Okapi BM25 shared by the semantic strategy and retrieval, over :mod:`ctx_tui.mentions` terms.

Hand-written rather than ``bm25s``: importing bm25s pulls numpy and costs
90-135 ms cold, more than half of the 200 ms budget of one ``ctx-tui api``
call, while the corpora here (a live window's sentences, a few hundred memory
entries) index in a few milliseconds in pure Python (figures in
``bench/bench_compress.py``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from ctx_tui.mentions import search_terms

def terms(text: str) -> list[str]:
    """Search terms of ``text``: the terms of :mod:`ctx_tui.mentions` (one notion of a term for
    mentions, retention and retrieval) — stemmed words without stop words, identifiers and paths
    whole and in parts, numbers."""
    return search_terms(text)


class BM25:
    """Okapi BM25 (k1=1.5, b=0.75, idf with +1 smoothing so it stays positive)."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.n = len(docs)
        self._tfs = [Counter(doc) for doc in docs]
        self._lens = [len(doc) for doc in docs]
        self.avgdl = (sum(self._lens) / self.n) if self.n else 0.0
        df: Counter[str] = Counter()
        for tf in self._tfs:
            df.update(tf.keys())
        self.idf = {t: math.log(1.0 + (self.n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self._postings: dict[str, list[int]] = {}
        for i, tf in enumerate(self._tfs):
            for t in tf:
                self._postings.setdefault(t, []).append(i)

    def scores(self, query: Sequence[str]) -> list[float]:
        """BM25 score of every document for ``query`` (0.0 where no term matches)."""
        out = [0.0] * self.n
        if not self.n or self.avgdl == 0:
            return out
        k1, b, avgdl = self.k1, self.b, self.avgdl
        for term, qf in Counter(query).items():
            idf = self.idf.get(term)
            if idf is None:
                continue
            for i in self._postings[term]:
                f = self._tfs[i][term]
                norm = f * (k1 + 1) / (f + k1 * (1 - b + b * self._lens[i] / avgdl))
                out[i] += qf * idf * norm
        return out
