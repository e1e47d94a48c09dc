"""Retrieval across every memory tier (``/`` and ``ctx-tui enhance``; docs/compression.md, "Retrieval").

What is indexed, one document per unit, with its tier and source:

* ``working`` / ``short-term`` — entries of the given session: user and
  assistant messages, compaction summaries, tool commands; ``working`` when
  the entry is in the live window, ``short-term`` when it was compacted away;
* ``medium-term`` — every ``.ctx/sessions/*.yaml``: active tracked items,
  decisions (with rationale) and notes of their own (notes that mirror an
  item are the item);
* ``long-term`` — MEMORY.md entries (``config.paths.memory_file``),
  paragraphs of ``CLAUDE.md`` / ``AGENTS.md`` in the project (read only), and
  the fields of the handoff files in ``config.paths.handoff_dir`` (task,
  decisions, blockers, remaining subtasks, continuation context, first action).

Scoring is Okapi BM25 (``ctx_tui.compress.scoring``) over those documents;
the raw BM25 score is reported and compared with
``retrieval.relevance_threshold`` (default 0: any match). A file that cannot
be read or parsed is skipped and named in ``Index.skipped``. Each search is
counted in the audit log (``retrieve`` events with ``hits``) so the metrics
can show hits and misses.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctx_tui import audit
from ctx_tui.compress.scoring import BM25, terms
from ctx_tui.config import Config, load_config
from ctx_tui.errors import CtxError
from ctx_tui.handoff.schema import HandoffReadError, read_handoff
from ctx_tui.lru import LruCache
from ctx_tui.memory.items import normalise_content
from ctx_tui.memory.memory_md import read_memory
from ctx_tui.memory.session_store import NOTE_FIELDS, SessionMemory, load_session_memory, session_id_of, sessions_dir
from ctx_tui.memory.tiers import INSTRUCTION_FILES, Tier
from ctx_tui.storage import read_regular
from ctx_tui.transcripts.activity import tool_command
from ctx_tui.transcripts.model import Kind
from ctx_tui.window import Session

#: A long message or paragraph is indexed in pieces of about this many words.
PIECE_WORDS = 120
#: How much of a hit's text the enhance block shows.
BLOCK_CHARS = 400


@dataclass(frozen=True, slots=True)
class Doc:
    tier: Tier
    source: str
    text: str


@dataclass(frozen=True, slots=True)
class Hit:
    tier: Tier
    source: str
    score: float
    text: str


@dataclass(slots=True)
class Index:
    docs: list[Doc] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "path: why"
    _bm25: BM25 | None = None

    def search(self, query: str, top_k: int, threshold: float = 0.0) -> list[Hit]:
        """The ``top_k`` best documents scoring above ``threshold``, best first, one per distinct text."""
        words = terms(query)
        if not words or not self.docs:
            return []
        if self._bm25 is None:
            self._bm25 = BM25([terms(d.text) for d in self.docs])
        scores = self._bm25.scores(words)
        order = sorted((i for i, s in enumerate(scores) if s > threshold and s > 0), key=lambda i: -scores[i])
        hits: list[Hit] = []
        seen: set[str] = set()
        for i in order:
            key = normalise_content(self.docs[i].text)
            if key in seen:
                continue
            seen.add(key)
            hits.append(Hit(self.docs[i].tier, self.docs[i].source, round(scores[i], 3), self.docs[i].text))
            if len(hits) >= top_k:
                break
        return hits


def _pieces(text: str) -> Iterator[str]:
    """Paragraphs of ``text``, long ones cut into pieces of about PIECE_WORDS words."""
    for para in text.split("\n\n"):
        words = para.split()
        for start in range(0, len(words), PIECE_WORDS):
            piece = " ".join(words[start : start + PIECE_WORDS])
            if piece:
                yield piece


def _rel(path: Path, project: Path) -> str:
    try:
        return str(path.relative_to(project))
    except ValueError:
        return str(path)


def _session_docs(session: Session) -> Iterator[Doc]:
    live = {id(e) for e in session.live_entries()}
    for entry in session.entries:
        if entry.is_sidechain:
            continue
        tier: Tier = "working" if id(entry) in live else "short-term"
        where = f"transcript round {entry.round}"
        if entry.kind in (Kind.USER, Kind.ASSISTANT, Kind.SUMMARY):
            for piece in _pieces(entry.text):
                yield Doc(tier, f"{where} ({entry.kind.value})", piece)
        elif entry.kind == Kind.TOOL_CALL:
            command = tool_command(entry.tool_input)
            if command:
                yield Doc(tier, f"{where} (command)", f"$ {command}")


def _decision_text(text: str, rationale: str) -> str:
    return text + (f" (because {rationale})" if rationale else "")


def _memory_docs(memory: SessionMemory) -> Iterator[Doc]:
    sid = memory.session_id
    # an item's decision note holds the rationale extraction found ("... because ...")
    why = {d.item_id: d.rationale for d in memory.decisions if d.item_id is not None}
    for item in memory.active_items():
        text = _decision_text(item.content, why.get(item.id, ""))
        yield Doc("medium-term", f"session {sid} · {item.type.value} {item.id}", text)
    for decision in memory.decisions:
        if decision.item_id is None:
            yield Doc("medium-term", f"session {sid} · decision", _decision_text(decision.decision, decision.rationale))
    for name in NOTE_FIELDS:
        for note in getattr(memory, name):
            if note.item_id is None:
                yield Doc("medium-term", f"session {sid} · {name}", note.text)


def _session_memory_docs(project: Path, skipped: list[str]) -> Iterator[Doc]:
    folder = sessions_dir(project)
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.yaml")):
        try:
            memory = load_session_memory(project, path.stem)
        except CtxError as exc:
            skipped.append(str(exc))
            continue
        yield from _memory_docs(memory)


def _memory_md_docs(project: Path, config: Config, skipped: list[str]) -> Iterator[Doc]:
    path = config.paths.memory_path(project)
    try:
        doc = read_memory(path)
    except CtxError as exc:
        skipped.append(str(exc))
        return
    name = _rel(path, project)
    for entry in doc.entries:
        section = f" § {entry.section}" if entry.section else ""
        yield Doc("long-term", f"{name}{section}", entry.text)


def _instruction_docs(project: Path, skipped: list[str]) -> Iterator[Doc]:
    for name in INSTRUCTION_FILES:
        path = project / name
        if not path.is_file():
            continue
        try:
            text = read_regular(path).decode("utf-8", errors="replace")
        except OSError as exc:
            skipped.append(f"{path}: {exc.strerror or exc}")
            continue
        heading = ""
        for para in text.split("\n\n"):
            para = para.strip()
            if para.startswith("#") and "\n" not in para:
                heading = para.lstrip("# ").strip()
                continue
            for piece in _pieces(para):
                yield Doc("long-term", f"{name}" + (f" § {heading}" if heading else ""), piece)


def _handoff_texts(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    task = data.get("task_state")
    if not isinstance(task, dict):
        task = {}
    if isinstance(task.get("assigned_task"), str):
        yield "task", task["assigned_task"]
    for key in ("blockers", "remaining_subtasks"):
        for value in task.get(key) or []:
            if isinstance(value, str):
                yield key, value
    for decision in data.get("decisions_made") or []:
        if isinstance(decision, dict) and isinstance(decision.get("decision"), str):
            why = decision.get("rationale")
            yield "decision", decision["decision"] + (f" (because {why})" if isinstance(why, str) and why else "")
    if isinstance(data.get("continuation_context"), str):
        for piece in _pieces(data["continuation_context"]):
            yield "continuation", piece
    if isinstance(data.get("suggested_first_action"), str):
        yield "first action", data["suggested_first_action"]


def _handoff_docs(project: Path, config: Config, skipped: list[str]) -> Iterator[Doc]:
    folder = config.paths.handoff_path(project)
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.y*ml")):
        try:
            data = read_handoff(path)
        except HandoffReadError as exc:
            skipped.append(str(exc))
            continue
        name = _rel(path, project)
        for field_name, text in _handoff_texts(data):
            yield Doc("long-term", f"{name} · {field_name}", text)


def build_index(project: Path, config: Config, session: Session | None = None) -> Index:
    """Every tier's documents (see the module doc)."""
    index = Index()
    if session is not None:
        index.docs.extend(_session_docs(session))
    index.docs.extend(_session_memory_docs(project, index.skipped))
    index.docs.extend(_memory_md_docs(project, config, index.skipped))
    index.docs.extend(_instruction_docs(project, index.skipped))
    index.docs.extend(_handoff_docs(project, config, index.skipped))
    return index


def _signature(project: Path, config: Config, session: Session | None) -> tuple[object, ...]:
    """What the index depends on: the session's version and every source file's size and mtime."""
    files = [config.paths.memory_path(project), *(project / n for n in INSTRUCTION_FILES)]
    for folder, pattern in ((sessions_dir(project), "*.yaml"), (config.paths.handoff_path(project), "*.y*ml")):
        if folder.is_dir():
            files.extend(sorted(folder.glob(pattern)))
    stamps = []
    for path in files:
        try:
            st = path.stat()
        except OSError:
            continue
        stamps.append((str(path), st.st_mtime_ns, st.st_size))
    live = (id(session), str(session.path), session.version, len(session.entries)) if session is not None else None
    return (str(project), live, tuple(stamps))


#: project -> (what the index was built from, the index); a few projects at most per process.
_CACHE: LruCache[str, tuple[tuple[object, ...], Index]] = LruCache(maxsize=4)


def cached_index(project: Path, config: Config, session: Session | None = None) -> Index:
    """:func:`build_index`, reused while neither the session nor any source file changed (searches as you type)."""
    key = str(project)
    signature = _signature(project, config, session)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] == signature:
        return hit[1]
    index = build_index(project, config, session)
    _CACHE.put(key, (signature, index))
    return index


def search(
    project: Path,
    query: str,
    top_k: int | None = None,
    session: Session | None = None,
    config: Config | None = None,
    record: bool = True,
) -> list[Hit]:
    """The most relevant memory for ``query`` across all tiers, best first.

    ``top_k`` and the threshold default to the config's ``retrieval`` section.
    With ``record`` the search is counted in the audit log (a miss has 0 hits).
    """
    config = config or load_config(project).config
    started = time.perf_counter()
    index = cached_index(project, config, session)
    hits = index.search(query, top_k or config.retrieval.top_k, config.retrieval.relevance_threshold)
    if record:
        audit.record(
            project,
            "retrieve.searched",
            session=(session_id_of(session) if session is not None else None),
            query=query[:200],
            hits=len(hits),
            top_score=hits[0].score if hits else 0.0,
            documents=len(index.docs),
            duration_ms=round((time.perf_counter() - started) * 1000, 1),
        )
    return hits


def retrieval_counts(project: Path) -> dict[str, int]:
    """Searches so far (from the audit log): how many found something (hits) and how many nothing (misses)."""
    searches = hits = 0
    for event in audit.read_events(project):
        if event.get("action") == "retrieve.searched":
            searches += 1
            found = event.get("details", {}).get("hits", 0)
            hits += 1 if isinstance(found, int) and found > 0 else 0
    return {"searches": searches, "hits": hits, "misses": searches - hits}


def enhance_block(hits: list[Hit], position: str = "start") -> str:
    """The retrieved memory as a block to put at the ``start`` or ``end`` of a context.

    At the start the block ends with a rule separating it from what follows;
    at the end it begins with one. No hits: an empty string.
    """
    if position not in ("start", "end"):
        raise CtxError(f"enhance position must be 'start' or 'end', got {position!r}")
    if not hits:
        return ""
    lines = ["## Relevant context (retrieved by ctx-tui)", ""]
    for hit in hits:
        text = " ".join(hit.text.split())
        if len(text) > BLOCK_CHARS:
            text = text[: BLOCK_CHARS - 1].rstrip() + "…"
        lines.append(f"- [{hit.tier} · {hit.source}] {text}")
    block = "\n".join(lines)
    return f"{block}\n\n---\n\n" if position == "start" else f"\n\n---\n\n{block}\n"


def enhance(context: str, hits: list[Hit], position: str = "start") -> str:
    """``context`` with the retrieved block placed at ``position``."""
    block = enhance_block(hits, position)
    return block + context if position == "start" else context + block
