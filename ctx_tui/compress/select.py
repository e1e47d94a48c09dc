"""Choosing what fits: greedy selection of candidates under a token budget.

Shared by the ``summary`` and ``semantic`` strategies. A candidate is a piece
of output text with a base score (priority, recency, relevance) and the key
facts it carries. Selection runs in three passes:

1. ``must`` candidates (tracked items, decisions, constraints, preferences,
   errors) by base score, as long as they fit;
2. the rest by value per token, where value = base score + ``FACT_WEIGHT`` x
   the facts it adds that nothing chosen so far carries (lazy greedy: a
   candidate's gain only falls as others are chosen, so stale heap entries
   are re-scored when popped); while the "Also referenced" line for the
   facts still uncovered fits in what is left, a candidate that would leave
   no room for it is passed over (naming a fact costs fewer tokens than
   most sentences that carry it);
3. whatever still fits, by base score (only with ``fill``).

The facts no chosen candidate carries can then be listed in one compact
"Also referenced" line (:func:`referenced_line`).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ctx_tui.compress.facts import KIND_ORDER, Fact
from ctx_tui.tokens import estimate_tokens

FACT_WEIGHT = 1.0
REFERENCED_PREFIX = "Also referenced:"
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


def listing_costs(facts: Sequence[Fact], tok: TokenEstimate) -> list[int]:
    """Tokens it takes to name each fact in the "Also referenced" line (0: not listable)."""
    return [0 if f.kind in ("item", "decision") else tok(f.label) + 1 for f in facts]


def select(
    candidates: Sequence[Candidate], budget: int, fill: bool = True, costs: Sequence[int] = ()
) -> tuple[list[Candidate], set[int]]:
    """The chosen candidates (in the order they were chosen) and the facts they cover.

    ``costs`` (from :func:`listing_costs`) turns on the reserve for the
    "Also referenced" line described in the module doc.
    """
    chosen: list[Candidate] = []
    covered: set[int] = set()
    used = 0
    taken: set[int] = set()
    reserve = sum(costs)

    def take(i: int, cand: Candidate) -> None:
        nonlocal used, reserve
        chosen.append(cand)
        taken.add(i)
        if costs:
            reserve -= sum(costs[f] for f in cand.facts - covered)
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
        new = cand.facts - covered
        if not new:
            continue
        if costs and reserve <= budget - used:
            after = reserve - sum(costs[f] for f in new)
            if after > budget - used - cand.tokens:
                continue  # would crowd out the line naming the other facts
        take(i, cand)

    if fill:
        for i in sorted(range(len(candidates)), key=lambda i: -candidates[i].base):
            if i not in taken and used + candidates[i].tokens <= budget:
                take(i, candidates[i])
    return chosen, covered


def referenced_line(facts: Sequence[Fact], missing: Sequence[int], budget: int, tok: TokenEstimate) -> str:
    """``Also referenced: files: a, b; errors: X; ...`` naming as many ``missing`` facts as fit ``budget`` tokens."""
    by_kind: dict[str, list[str]] = {}
    for i in missing:
        fact = facts[i]
        if fact.kind in ("item", "decision"):
            continue  # whole sentences: chosen as candidates or not at all
        by_kind.setdefault(fact.kind, []).append(f"`{fact.label}`" if fact.kind == "command" else fact.label)
    names = {"path": "files", "error": "errors", "command": "commands", "url": "urls",
             "identifier": "identifiers", "number": "numbers"}
    prefix = REFERENCED_PREFIX
    used = tok(prefix) + 1
    if used >= budget:
        return ""
    groups: list[str] = []
    for kind in KIND_ORDER:
        values = by_kind.get(kind)
        if not values:
            continue
        head = f"{names[kind]}: "
        cost = tok(head) + 1
        if used + cost >= budget:
            break
        kept: list[str] = []
        for value in values:
            c = tok(value) + 1
            if used + cost + c > budget:
                break
            kept.append(value)
            cost += c
        if kept:
            groups.append(head + ", ".join(kept))
            used += cost
        if len(kept) < len(values):
            break
    return f"{prefix} " + "; ".join(groups) if groups else ""
