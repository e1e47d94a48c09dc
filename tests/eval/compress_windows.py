"""The real windows the compression evaluation runs on, and a classical extractive baseline.

Two parts. ``fixtures``: live windows of the shared real transcripts
(``../shared/fixtures``), plus two earlier moments of them: the Claude Code
session just before its auto compaction (its largest window) and the Codex
session half-way. ``real2``: the live windows of eight public Claude Code
sessions kept in ``tests/data/compress/`` (xz-compressed JSONL; provenance and
licences in its README), never used to build the compressor. Each window comes
with the tracked items the project's own extraction finds in it (what the
dashboard would hand the compressor).
"""

from __future__ import annotations

import lzma
import math
import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from conftest import ALL_FIXTURES, CLAUDE_COMPACTED, CODEX_FULL, FIXTURES

from ctx_tui.compress.session import window_text
from ctx_tui.memory.extract import extract_items
from ctx_tui.tokens import count_tokens
from ctx_tui.window import Session


REAL2 = Path(__file__).parents[1] / "data" / "compress"


def _session(path: Path) -> Session:
    session = Session(path)
    session.poll()
    return session


def _prefix(path: Path, keep: int) -> Path:
    """A copy of the first ``keep`` lines of ``path`` in a temporary file (the window at that moment)."""
    lines = path.read_bytes().splitlines(keepends=True)[:keep]
    out = Path(tempfile.mkdtemp(prefix="ctx-eval-")) / path.name
    out.write_bytes(b"".join(lines))
    return out


def _before_compaction(path: Path) -> int:
    lines = path.read_bytes().splitlines()
    return next(i for i, line in enumerate(lines) if b'"compact_boundary"' in line)


def windows() -> Iterator[tuple[str, str, list]]:
    """(name, window text, tracked items) for every evaluation window whose transcript is present."""
    for name in ALL_FIXTURES:
        path = FIXTURES / name
        if path.exists():
            session = _session(path)
            items = [e.item for e in extract_items(session.entries)]
            yield Path(name).stem[:40], window_text(session), items
    compacted = FIXTURES / CLAUDE_COMPACTED
    if compacted.exists():
        session = _session(_prefix(compacted, _before_compaction(compacted)))
        yield "codemie-claude before compaction", window_text(session), [e.item for e in extract_items(session.entries)]
    codex = FIXTURES / CODEX_FULL
    if codex.exists():
        half = len(codex.read_bytes().splitlines()) // 2
        session = _session(_prefix(codex, half))
        yield "codemie-codex half-way", window_text(session), [e.item for e in extract_items(session.entries)]


def real_windows() -> Iterator[tuple[str, str, list]]:
    """(name, window text, tracked items) for each session of ``tests/data/compress/``."""
    for packed in sorted(REAL2.glob("*.jsonl.xz")):
        with tempfile.TemporaryDirectory(prefix="ctx-eval-") as tmp:
            path = Path(tmp) / packed.name.removesuffix(".xz")
            path.write_bytes(lzma.decompress(packed.read_bytes()))
            session = _session(path)
            text, items = window_text(session), [e.item for e in extract_items(session.entries)]
        yield path.stem.split("__", 1)[-1][:40], text, items


#: The evaluation's parts, printed and pinned apart.
PARTS = {"fixtures": windows, "real2": real_windows}


_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(])|\n+")
_WORD = re.compile(r"[a-z0-9_]{3,}")


def textrank(text: str, budget: int) -> str:
    """TextRank (Mihalcea & Tarau 2004): sentences ranked by PageRank over word-overlap similarity, kept in order within ``budget`` tokens."""
    sents = [s.strip() for s in _SENT.split(text) if len(s.strip()) > 1]
    if not sents:
        return ""
    bags = [Counter(_WORD.findall(s.lower())) for s in sents]
    n = len(sents)
    post: dict[str, list[int]] = {}
    for i, bag in enumerate(bags):
        for w in bag:
            post.setdefault(w, []).append(i)
    edges: list[dict[int, float]] = [dict() for _ in range(n)]
    for w, docs in post.items():
        if len(docs) > 50:
            continue  # a word in most sentences links everything; skip it (keeps the graph sparse)
        for a in docs:
            for b in docs:
                if a < b:
                    edges[a][b] = edges[a].get(b, 0) + 1
    for a in range(n):
        for b in list(edges[a]):
            la, lb = len(bags[a]), len(bags[b])
            if la > 1 and lb > 1:
                w = edges[a][b] / (math.log(la) + math.log(lb))
                edges[a][b] = w
                edges[b][a] = w
    out_weight = [sum(e.values()) or 1.0 for e in edges]
    rank = [1.0] * n
    for _ in range(30):
        rank = [0.15 + 0.85 * sum(rank[b] * w / out_weight[b] for b, w in edges[a].items()) for a in range(n)]
    chosen, used = [], 0
    for i in sorted(range(n), key=lambda i: -rank[i]):
        cost = count_tokens(sents[i]) + 1
        if used + cost <= budget:
            chosen.append(i)
            used += cost
    return "\n".join(sents[i] for i in sorted(chosen))
