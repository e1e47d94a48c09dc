"""The ``semantic`` strategy: keep what must survive, then the units that carry most, in original order.

Units are sentences of prose, list items, table rows, and whole code and JSON
blocks. On a rendered window (``window_text``) each unit knows whose section
it came from, and:

* system sections (reminders, environment and instruction wrappers, expanded
  commands) are left out: the agent is sent them again anyway;
* first, whole, as long as they fit: the tracked items of the preserved types
  and the goal, sentences stating a decision/constraint/preference of those
  types, the first sentence of every user message, a line for each error
  that no later run of the same tool followed, and the latest plan (a
  ``TodoWrite``/``update_plan`` call, when it is small);
* then every other unit by value per token: the key facts it adds in context
  (see ``facts.carried_facts``) plus its BM25 relevance to the tracked items,
  its centrality (BM25 score for the text's 40 most characteristic terms),
  a bonus for user sentences and stated rules, and for a line of tool output
  that names what the user or a tracked item names, and a little for recency.

A long tool output (not one JSON value) is cut by lines: its lines are units,
and the chosen ones are shown in the output's own fence with ``…`` where lines
were left out (code the agent wrote, and JSON, are kept or dropped whole).
Chosen units are printed in their original order under the heading they came
from, with ``[…]`` where units were left out. Tracked items open the output
(the start of a context is where a model attends most).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ctx_tui.compress.blocks import Block, sentences, split_blocks
from ctx_tui.compress.facts import (
    Fact,
    ItemLike,
    carried_facts,
    decision_fact,
    extract_facts,
    is_sentence,
    stated_type,
    token_facts,
)
from ctx_tui.compress.scoring import BM25, terms
from ctx_tui.compress.select import JOIN_TOKENS, Candidate, TokenEstimate, select
from ctx_tui.compress.summary import error_line
from ctx_tui.transcripts.render import parse_sections

CENTROID_TERMS = 40
GAP = "[…]"
#: What a unit may cost on top of its text: the gap marker and blank lines around it.
GAP_TOKENS = 3
#: Tool calls whose input is the agent's plan (Claude Code, Codex).
PLAN_TOOLS = frozenset({"TodoWrite", "update_plan", "todo_write"})
#: The latest plan is kept first only while it takes at most this share of the budget.
PLAN_SHARE = 0.125
USER_BONUS = 1.0
#: A line of tool output that names what a user message or a tracked item names.
ASKED_BONUS = 4.0
RULE_BONUS = 1.0
#: Whose sentences can state a rule (tool calls and outputs do not).
PROSE_ROLES = frozenset({"user", "assistant", "summary", ""})
#: The goal is always kept first, whatever ``compression.preserve_types`` says.
ALWAYS_FIRST = frozenset({"goal"})
#: A tool's output longer than this may be shown as an excerpt of its lines (in its fence).
EXCERPT_TOKENS = 60


@dataclass(slots=True)
class Unit:
    block: int  # number of the block it came from (units of one block join up again)
    text: str
    heading: str  # the heading it sits under
    role: str = ""  # user, assistant, summary, tool call, tool result ("" for plain text)
    first: bool = False  # the first sentence of a user message
    kind: str = ""  # "plan": the latest plan; "error": an open error's line; "line": a line of a tool's output
    shape: str = "sentence"  # "sentence", "block" (code or JSON, whole) or "list" (a short list item)
    fence: str = ""  # a line of a tool's output: the fence (with its info string) it is shown in


def _block_units(text: str, heading: str, role: str, tok: TokenEstimate, start: int) -> list[Unit]:
    units: list[Unit] = []
    for n, block in enumerate(split_blocks(text), start):
        if block.kind == "heading":
            heading = block.text
            continue
        if block.kind == "code" and role == "tool result" and _excerptable(block.body, tok):
            opening = block.text.split("\n", 1)[0]
            units.extend(Unit(n, line, heading, role, kind="line", fence=opening)
                         for line in block.body.split("\n") if line.strip())
        elif block.kind in ("code", "json"):
            units.append(Unit(n, block.rendered(), heading, role, shape="block"))
        elif block.kind == "table":
            units.extend(Unit(n, row, heading, role) for row in block.text.split("\n"))
        elif block.kind == "list" and tok(block.text) <= 80:
            units.append(Unit(n, block.text, heading, role, shape="list"))
        else:
            units.extend(Unit(n, s, heading, role) for s in sentences(block.text))
    return units


def _excerptable(body: str, tok: TokenEstimate) -> bool:
    """A tool's output long enough to be cut by lines, and not one JSON value (a structure is never cut)."""
    if tok(body) <= EXCERPT_TOKENS:
        return False
    try:
        json.loads(body)
    except ValueError:
        return True
    return False


def _units(text: str, tok: TokenEstimate) -> list[Unit]:
    """Every unit in order; on a rendered window, with the role of its section."""
    sections = parse_sections(text)
    if sections is None:
        return _block_units(text, "", "", tok, 0)
    units: list[Unit] = []
    latest_plan = max((i for i, s in enumerate(sections) if s.kind == "tool call" and s.tool in PLAN_TOOLS),
                      default=-1)
    later_runs: dict[str, int] = {}
    open_errors: set[int] = set()
    for i in range(len(sections) - 1, -1, -1):  # an error is open when no later result of its tool followed
        sec = sections[i]
        if sec.kind == "tool result":
            if sec.error and sec.tool not in later_runs:
                open_errors.add(i)
            later_runs.setdefault(sec.tool, i)
    block = 0
    for i, sec in enumerate(sections):
        heading = sec.text.split("\n", 1)[0]
        part = _block_units(sec.body, heading, sec.kind, tok, block)
        block += len(part) + 1
        if sec.kind == "user" and part:
            part[0].first = True
        if i == latest_plan:
            for unit in part:
                unit.kind = "plan"
        if i in open_errors:
            line = f"{sec.tool or 'tool'} failed: {error_line(sec.body)}"
            part = [Unit(block, line, heading, sec.kind, kind="error")]
            block += 1
        units.extend(part)
    return units


def _carried(unit: Unit, stated: bool) -> list[Fact]:
    """The facts a unit carries in context (``facts.carried_facts``, without re-splitting what is known)."""
    if unit.kind == "line":
        return token_facts(unit.text)
    if unit.shape == "block":
        return extract_facts(unit.text)
    if unit.shape == "list":
        return carried_facts(unit.text)
    found = token_facts(unit.text)
    # Read as the retention measure reads it (``facts.output_units``): in a ``$ command`` line
    # the command's words are plain words beside the names in it, not one name that leaves none.
    if not is_sentence(unit.text, None if "$ " in unit.text else found):
        return []
    decision = decision_fact(unit.text) if stated else None
    return found + [decision] if decision else found


def _bm25_scores(units: list[Unit], items: Sequence[ItemLike]) -> tuple[list[float], list[float]]:
    """Relevance to the tracked items and centrality of every unit, 0..1; lines of tool output score 0.

    Lines of a tool's output are chosen by the facts they carry: scoring them
    too would double the index (they are most of a window's units) for
    little change in what is kept.
    """
    scored = [k for k, u in enumerate(units) if u.kind != "line"]
    docs = [terms(units[k].text) for k in scored]
    bm25 = BM25(docs)
    tf = Counter(t for doc in docs for t in doc)
    centroid = [t for t, _ in sorted(tf.items(), key=lambda kv: -kv[1] * bm25.idf.get(kv[0], 0.0))][:CENTROID_TERMS]
    query = [t for item in items for t in terms(item.content)]
    relevance = [0.0] * len(units)
    centrality = [0.0] * len(units)
    for out, q in ((relevance, query), (centrality, centroid)):
        if q:
            for k, score in zip(scored, _scaled(bm25.scores(q))):
                out[k] = score
    return relevance, centrality


def _scaled(values: list[float]) -> list[float]:
    top = max(values, default=0.0)
    return [v / top for v in values] if top > 0 else [0.0] * len(values)


def plan_semantic(
    text: str, facts: Sequence[Fact], items: Sequence[ItemLike], tok: TokenEstimate, preserve: frozenset[str]
) -> Callable[[int], str]:
    """Score the units once; the returned function renders the best of them for a token budget.

    Tracked items and stated sentences whose type is in ``preserve`` (and the
    goal) are kept first, whole; so are user requests, open errors and the
    latest plan (see the module doc).
    """
    units = _units(text, tok)
    index = {(f.kind, f.value): i for i, f in enumerate(facts)}
    relevance, centrality = _bm25_scores(units, items)
    first = preserve | ALWAYS_FIRST

    candidates: list[Candidate] = []
    for n, item in enumerate(items):
        kind = str(getattr(item.type, "value", item.type))
        ids = frozenset(i for f in extract_facts(item.content, [item]) if (i := index.get((f.kind, f.value))) is not None)
        line = f"- [{kind}] {item.content}"
        candidates.append(
            Candidate(-len(items) + n, line, 4.0, tok(line) + JOIN_TOKENS, ids, "tracked", must=kind in first)
        )
    asked = {f.value for u in units if u.role == "user" for f in token_facts(u.text)}
    asked.update(f.value for item in items for f in token_facts(item.content))
    total = max(len(units), 1)
    seen: set[str] = set()
    for k, unit in enumerate(units):
        key = " ".join(unit.text.split()).casefold()
        if key in seen:
            continue  # a repeated sentence is said once (its first time)
        seen.add(key)
        recency = k / total
        if unit.role == "system":  # boilerplate the agent is sent again anyway: left out
            continue
        prose = unit.role in PROSE_ROLES and unit.shape != "block" and not unit.kind
        stated = stated_type(unit.text) if prose else None
        carried = _carried(unit, bool(stated))
        ids = frozenset(i for f in carried if (i := index.get((f.kind, f.value))) is not None)
        base = relevance[k] + 0.6 * centrality[k] + 0.1 * recency
        if unit.kind == "line" and any(f.value in asked for f in carried):
            base += ASKED_BONUS  # a line of output about what the user asked or an item names
        if stated and unit.role != "assistant" or stated == "decision":
            base += RULE_BONUS
        if unit.role == "user":
            base += USER_BONUS
        must = (stated in preserve and (unit.role != "assistant" or stated == "decision")) or unit.first
        section = "unit"
        if unit.kind == "error":
            base, must = base + 2.0, True
        elif unit.kind == "plan":
            section, base = "plan", base + 1.5
        if unit.first:
            base += 1.0 + recency  # the latest requests first
        candidates.append(
            Candidate(k, unit.text, base, tok(unit.text) + JOIN_TOKENS + GAP_TOKENS, ids, section, must=must)
        )
    heading_cost = sum(tok(h) + 1 for h in {u.heading for u in units if u.heading})
    return lambda budget: _render(units, candidates, budget, heading_cost)


def _render(units: list[Unit], candidates: list[Candidate], budget: int, heading_cost: int) -> str:
    inner = max(0, budget - min(heading_cost, budget // 10))
    plan_tokens = sum(c.tokens for c in candidates if c.section == "plan")
    if plan_tokens <= inner * PLAN_SHARE:
        for c in candidates:
            c.must = c.must or c.section == "plan"
    chosen, _ = select(candidates, inner, fill=True)

    out: list[str] = []
    tracked = sorted((c for c in chosen if c.section == "tracked"), key=lambda c: c.order)
    if tracked:
        out.append("Tracked items:\n" + "\n".join(c.text for c in tracked))
    picked = sorted(c.order for c in chosen if c.section != "tracked")
    body: list[str] = []
    excerpt: list[str] = []  # lines of one tool output, shown in its fence

    def close_excerpt() -> None:
        if excerpt:
            opening = excerpt[0]
            marker = opening[: len(opening) - len(opening.lstrip(opening[0]))]
            body.append("\n".join(excerpt) + "\n" + marker)
            excerpt.clear()

    last_block, last_k, last_heading = -1, -1, None
    for k in picked:
        unit = units[k]
        in_excerpt = bool(excerpt) and unit.kind == "line" and unit.block == last_block
        if in_excerpt:
            if k != last_k + 1:
                excerpt.append("…")
            excerpt.append(unit.text)
            last_k = k
            continue
        close_excerpt()
        if last_k >= 0 and k != last_k + 1:
            body.append(GAP)
        if unit.heading and unit.heading != last_heading:
            body.append(unit.heading)
            last_heading = unit.heading
        if unit.kind == "line":
            excerpt.extend([unit.fence] + (["…"] if k and units[k - 1].block == unit.block else []) + [unit.text])
        elif unit.block == last_block and k == last_k + 1 and body and body[-1] not in (GAP, unit.heading):
            body[-1] += ("\n" if unit.text.startswith(("|", "- ", "* ")) else " ") + unit.text
        else:
            body.append(unit.text)
        last_block, last_k = unit.block, k
    if excerpt and (last_k + 1 < len(units) and units[last_k + 1].block == last_block):
        excerpt.append("…")
    close_excerpt()
    if picked and picked[-1] != len(units) - 1:
        body.append(GAP)
    if body:
        out.append("\n\n".join(body))
    return "\n\n".join(out)
