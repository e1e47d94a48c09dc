"""Choosing what fits: greedy selection of candidates under a token budget.

Shared by the ``summary`` and ``semantic`` strategies. A candidate is a piece
of output text with a base score (priority, recency, relevance) and the key
facts it carries *in context* (a candidate that is only a list of names
carries none: see ``facts.is_sentence``). Selection runs in three passes:

1. ``must`` candidates (tracked items, decisions, constraints, preferences,
   errors) by base score, as long as they fit;
2. the rest by value per token, where value = base score + ``FACT_WEIGHT`` x
   the facts it adds that nothing chosen so far carries (lazy greedy: a
   candidate's gain only falls as others are chosen, so stale heap entries
   are re-scored when popped);
3. whatever still fits, by base score (only with ``fill``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ctx_tui.tokens import estimate_tokens

FACT_WEIGHT = 3.0
#: Tokens a candidate costs on top of its text (the newline/bullet that joins it).
JOIN_TOKENS = 1


class TokenEstimate:
    """Token counts for choosing: the cheap estimate, scaled so the whole input's estimate equals its exact count.

    Counting every candidate with tiktoken costs ~50 us a call; the scaled
    estimate is free and, summed over many candidates, close. The assembled
    output is always counted exactly (``core.compress_text``).
    """

    def __init__(self, text: str, exact: int) -> None:
        self.scale = exact / max(estimate_tokens(text), 1)

    def __call__(self, text: str) -> int:
        return math.ceil(estimate_tokens(text) * self.scale)


@dataclass(slots=True)
class Candidate:
    order: int  # position in the original, for output order
    text: str
    base: float
    tokens: int  # its cost, JOIN_TOKENS included
    facts: frozenset[int] = frozenset()
    section: str = ""
    must: bool = False


def select(candidates: Sequence[Candidate], budget: int, fill: bool = True) -> tuple[list[Candidate], set[int]]:
    """The chosen candidates (in the order they were chosen) and the facts they cover."""
    chosen: list[Candidate] = []
    covered: set[int] = set()
    used = 0
    taken: set[int] = set()

    def take(i: int, cand: Candidate) -> None:
        nonlocal used
        chosen.append(cand)
        taken.add(i)
        covered.update(cand.facts)
        used += cand.tokens

    musts = sorted((i for i, c in enumerate(candidates) if c.must), key=lambda i: -candidates[i].base)
    for i in musts:
        if used + candidates[i].tokens <= budget:
            take(i, candidates[i])

    def value(cand: Candidate) -> float:
        return (cand.base + FACT_WEIGHT * len(cand.facts - covered)) / max(cand.tokens, 1)

    heap = [(-value(c), i) for i, c in enumerate(candidates) if i not in taken and c.facts]
    heapq.heapify(heap)
    while heap:
        neg, i = heapq.heappop(heap)
        cand = candidates[i]
        if used + cand.tokens > budget:
            continue
        current = value(cand)
        if current < -neg - 1e-12:
            if cand.facts - covered:
                heapq.heappush(heap, (-current, i))
            continue
        if not cand.facts - covered:
            continue
        take(i, cand)

    if fill:
        for i in sorted(range(len(candidates)), key=lambda i: -candidates[i].base):
            if i not in taken and used + candidates[i].tokens <= budget:
                take(i, candidates[i])
    return chosen, covered
