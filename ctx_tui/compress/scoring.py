"""Term extraction and a small Okapi BM25 shared by the semantic strategy and retrieval.

Hand-written rather than ``bm25s``: importing bm25s pulls numpy and costs
90-135 ms cold, more than half of the 200 ms budget of one ``ctx-tui api``
call, while the corpora here (a live window's sentences, a few hundred memory
entries) index in a few milliseconds in pure Python (figures in
``bench/bench_compress.py``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_TERM_RE = re.compile(r"[A-Za-z0-9_]+(?:[.\-/][A-Za-z0-9_]+)*")
_SPLIT_RE = re.compile(r"[._\-/]")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have
    he her here him his how i if in into is it its just let me more most my no not
    now of on once one only or our out over she should so some such than that the
    their them then there these they this those to too up us very was we were what
    when where which while who why will with would you your yes also any all each
    about after again before being both down few further off same own until use
    used using get got via per may might shall need want like make made""".split()
)


def terms(text: str) -> list[str]:
    """Lower-cased search terms of ``text``.

    A compound such as ``src/ctx_tui/api.py`` or ``TrackedItem`` yields the
    whole token plus its parts (``src``, ``ctx``, ``tui``, ``api``, ``py``,
    ``tracked``, ``item``), so a query for a part still matches. Stopwords and
    one-character terms are dropped.
    """
    out: list[str] = []
    for token in _TERM_RE.findall(text):
        low = token.lower()
        if low.isalnum() and (token.islower() or token.isupper() or token[1:].islower()):
            if len(low) > 1 and low not in STOPWORDS:
                out.append(low)  # a plain word: the common case, no splitting
            continue
        parts = [p for piece in _SPLIT_RE.split(token) for p in _CAMEL_RE.split(piece) if p]
        if len(parts) > 1:
            out.append(low)
            out.extend(p.lower() for p in parts if len(p) > 1 and p.lower() not in STOPWORDS)
        elif len(low) > 1 and low not in STOPWORDS:
            out.append(low)
    return out


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
