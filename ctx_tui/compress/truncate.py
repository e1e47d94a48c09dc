"""The ``truncate`` strategy: the head and the tail of the text, whole lines and blocks only.

The text is cut into atoms: a code block or a JSON value is one atom (kept
whole or dropped whole), every other line is an atom, and a line longer than
half the budget is split at sentence ends. The head takes atoms from the
start while they fit in ``HEAD_SHARE`` of the budget, the tail takes atoms
from the end with the rest, and a marker line says how much was cut between.
"""

from __future__ import annotations

from ctx_tui.compress.blocks import sentences, split_blocks
from ctx_tui.compress.select import TokenEstimate

HEAD_SHARE = 0.6


def cut_marker(tokens: int) -> str:
    return f"[… {tokens:,} tokens cut …]"


def _atoms(text: str, budget: int, tok: TokenEstimate) -> list[tuple[int, str, int]]:
    """(block number, atom text, tokens) in order."""
    atoms: list[tuple[int, str, int]] = []
    for n, block in enumerate(split_blocks(text)):
        if block.kind in ("code", "json"):
            out = block.rendered()
            atoms.append((n, out, tok(out) + 1))
            continue
        for line in block.text.split("\n"):
            tokens = tok(line) + 1
            if tokens > budget // 2:
                atoms.extend((n, s, tok(s) + 1) for s in sentences(line))
            else:
                atoms.append((n, line, tokens))
    return atoms


def _join(atoms: list[tuple[int, str, int]]) -> str:
    out: list[str] = []
    last = None
    for n, atom, _ in atoms:
        if out:
            out.append("\n" if n == last else "\n\n")
        out.append(atom)
        last = n
    return "".join(out)


def truncate(text: str, budget: int, tok: TokenEstimate) -> str:
    """Head and tail of ``text`` in at most about ``budget`` tokens (the caller checks exactly)."""
    atoms = _atoms(text, budget, tok)
    total = sum(a[2] for a in atoms)
    if total <= budget:
        return _join(atoms)
    budget -= tok(cut_marker(total)) + 2
    head: list[tuple[int, str, int]] = []
    used = 0
    for atom in atoms:
        if used + atom[2] > budget * HEAD_SHARE:
            break
        head.append(atom)
        used += atom[2]
    tail: list[tuple[int, str, int]] = []
    for atom in reversed(atoms[len(head):]):
        if used + atom[2] > budget:
            break
        tail.append(atom)
        used += atom[2]
    tail.reverse()
    cut = total - used
    parts = [p for p in (_join(head), cut_marker(cut), _join(tail)) if p]
    return "\n\n".join(parts)
