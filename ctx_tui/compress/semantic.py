"""The ``semantic`` strategy: keep the most relevant and central units, in original order.

Units are sentences of prose, list items, table rows, and whole code and JSON
blocks. Each unit is scored with BM25 (``scoring.BM25`` over the units):

* relevance: its score for a query made of the tracked items' terms;
* centrality: its score for a query made of the text's 40 most characteristic
  terms (tf x idf over the units) — how much it talks about what the text is about;
* a bonus for decisions, constraints and preferences, and a small one for recency.

Both scores are scaled to 0..1 by their maximum. Units are chosen by
``select`` (value = score + new key facts, per token) and printed in their
original order under the heading they came from, with ``[…]`` where units
were left out. Tracked items open the output (the start of a context is
where a model attends most).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from ctx_tui.compress.blocks import sentences, split_blocks
from ctx_tui.compress.facts import Fact, ItemLike, extract_facts, fragment_facts, stated_type
from ctx_tui.compress.scoring import BM25, terms
from ctx_tui.compress.select import JOIN_TOKENS, Candidate, TokenEstimate, listing_costs, referenced_line, select

CENTROID_TERMS = 40
GAP = "[…]"
#: What a unit may cost on top of its text: the gap marker and blank lines around it.
GAP_TOKENS = 3


def _units(text: str, tok: TokenEstimate) -> list[tuple[int, str, str]]:
    """(block number, unit text, heading it sits under) for every unit, in order."""
    units: list[tuple[int, str, str]] = []
    heading = ""
    for n, block in enumerate(split_blocks(text)):
        if block.kind == "heading":
            heading = block.text
            continue
        if block.kind in ("code", "json"):
            units.append((n, block.rendered(), heading))
        elif block.kind == "table":
            units.extend((n, row, heading) for row in block.text.split("\n"))
        elif block.kind == "list" and tok(block.text) <= 80:
            units.append((n, block.text, heading))
        else:
            units.extend((n, s, heading) for s in sentences(block.text))
    return units


def _scaled(values: list[float]) -> list[float]:
    top = max(values, default=0.0)
    return [v / top for v in values] if top > 0 else [0.0] * len(values)


def plan_semantic(
    text: str, facts: Sequence[Fact], items: Sequence[ItemLike], tok: TokenEstimate, preserve: frozenset[str]
) -> Callable[[int], str]:
    """Score the units once; the returned function renders the best of them for a token budget.

    Tracked items and stated sentences whose type is in ``preserve`` are kept first, whole.
    """
    units = _units(text, tok)
    index = {(f.kind, f.value): i for i, f in enumerate(facts)}
    docs = [terms(u[1]) for u in units]
    bm25 = BM25(docs)
    tf = Counter(t for doc in docs for t in doc)
    centroid = [t for t, _ in sorted(tf.items(), key=lambda kv: -kv[1] * bm25.idf.get(kv[0], 0.0))][:CENTROID_TERMS]
    centrality = _scaled(bm25.scores(centroid)) if centroid else [0.0] * len(units)
    query = [t for item in items for t in terms(item.content)]
    relevance = _scaled(bm25.scores(query)) if query else [0.0] * len(units)

    candidates: list[Candidate] = []
    for n, item in enumerate(items):
        kind = getattr(item.type, "value", item.type)
        ids = frozenset(i for f in extract_facts(item.content, [item]) if (i := index.get((f.kind, f.value))) is not None)
        line = f"- [{kind}] {item.content}"
        candidates.append(
            Candidate(-len(items) + n, line, 3.0, tok(line) + JOIN_TOKENS, ids, "tracked", must=kind in preserve)
        )
    total = max(len(units), 1)
    seen: set[str] = set()
    for k, (_, unit, _) in enumerate(units):
        key = " ".join(unit.split()).casefold()
        if key in seen:
            continue  # a repeated sentence is said once (its first time)
        seen.add(key)
        ids = frozenset(i for f in fragment_facts(unit) if (i := index.get((f.kind, f.value))) is not None)
        base = relevance[k] + 0.6 * centrality[k] + 0.1 * k / total
        stated = stated_type(unit)
        if stated:
            base += 1.0
        candidates.append(
            Candidate(k, unit, base, tok(unit) + JOIN_TOKENS + GAP_TOKENS, ids, "unit", must=stated in preserve)
        )
    heading_cost = sum(tok(h) + 1 for h in {u[2] for u in units if u[2]})
    return lambda budget: _render(units, candidates, facts, budget, heading_cost, tok)


def _render(
    units: list[tuple[int, str, str]],
    candidates: list[Candidate],
    facts: Sequence[Fact],
    budget: int,
    heading_cost: int,
    tok: TokenEstimate,
) -> str:
    inner = max(0, budget - min(heading_cost, budget // 10))
    chosen, covered = select(candidates, inner, fill=False, costs=listing_costs(facts, tok))
    used = sum(c.tokens for c in chosen)
    missing = [i for i in range(len(facts)) if i not in covered]
    also = referenced_line(facts, missing, inner - used - 2, tok) if missing else ""
    used += tok(also) + 2 if also else 0
    chosen_ids = {id(c) for c in chosen}
    extra, _ = select([c for c in candidates if id(c) not in chosen_ids], max(0, inner - used), fill=True)
    chosen += extra

    out: list[str] = []
    tracked = sorted((c for c in chosen if c.section == "tracked"), key=lambda c: c.order)
    if tracked:
        out.append("Tracked items:\n" + "\n".join(c.text for c in tracked))
    picked = sorted(c.order for c in chosen if c.section == "unit")
    body: list[str] = []
    last_block, last_k, last_heading = -1, -1, None
    for k in picked:
        block_no, unit, heading = units[k]
        if last_k >= 0 and k != last_k + 1:
            body.append(GAP)
        if heading and heading != last_heading:
            body.append(heading)
            last_heading = heading
        if block_no == last_block and k == last_k + 1 and body and body[-1] not in (GAP, heading):
            body[-1] += ("\n" if unit.startswith(("|", "- ", "* ")) else " ") + unit
        else:
            body.append(unit)
        last_block, last_k = block_no, k
    if picked and picked[-1] != len(units) - 1:
        body.append(GAP)
    if body:
        out.append("\n\n".join(body))
    if also:
        out.append(also)
    return "\n\n".join(out)
