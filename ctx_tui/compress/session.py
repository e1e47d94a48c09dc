"""Compressing a session's live window or its session memory (the ``c`` key, ``ctx-tui compress``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ctx_tui import audit
from ctx_tui.compress.core import CompressionResult, compress_text
from ctx_tui.compress.facts import ItemLike
from ctx_tui.transcripts.render import SOURCES, render_entries
from ctx_tui.config import Config
from ctx_tui.memory.session_store import (
    NOTE_FIELDS,
    SavedSummary,
    SessionMemory,
    load_session_memory,
    session_id_of,
    update_session_memory,
)
from ctx_tui.window import Session


def window_text(session: Session, sources: Sequence[str] = SOURCES) -> str:
    """The live window (since the last compaction) as clean text."""
    return render_entries((w.entry for w in session.state().live), sources)


def session_items(project: Path, session: Session) -> list[ItemLike]:
    """The session's tracked items that are not dismissed (from ``.ctx/sessions/<id>.yaml``)."""
    return list(load_session_memory(project, session_id_of(session)).active_items())


def compress_window(
    session: Session,
    config: Config | None = None,
    strategy: str | None = None,
    target_ratio: float | None = None,
    max_length: int | None = None,
    items: Sequence[ItemLike] | None = None,
    project: Path | None = None,
) -> CompressionResult:
    """Compress the live window; strategy and ratio default to the config's ``compression`` section.

    ``items`` default to the session's tracked items when ``project`` is given.
    """
    config = config or session.config
    if items is None:
        items = session_items(project, session) if project is not None else []
    return compress_text(
        window_text(session),
        strategy or config.compression.strategy,
        target_ratio=target_ratio,
        max_length=max_length,
        items=items,
        config=config,
    )


def memory_text(memory: SessionMemory) -> str:
    """The session memory as text: decisions with rationale and files, notes, other items, saved summaries."""
    parts: list[str] = []
    if memory.decisions:
        lines = []
        for d in memory.decisions:
            why = f" (because {d.rationale})" if d.rationale else ""
            files = f" [files: {', '.join(d.affects_files)}]" if d.affects_files else ""
            lines.append(f"- {d.decision}{why}{files}")
        parts.append("## Decisions\n" + "\n".join(lines))
    for name in NOTE_FIELDS:
        notes = getattr(memory, name)
        if notes:
            parts.append(f"## {name.capitalize()}\n" + "\n".join(f"- {n.text}" for n in notes))
    mirrored = {n.item_id for name in NOTE_FIELDS for n in getattr(memory, name)} | {
        d.item_id for d in memory.decisions
    }
    others = [i for i in memory.active_items() if i.id not in mirrored]
    if others:
        parts.append("## Other tracked items\n" + "\n".join(f"- ({i.type.value}) {i.content}" for i in others))
    for summary in memory.summaries:
        parts.append(f"## Saved summary ({summary.strategy}, {summary.created_at})\n{summary.text}")
    return "\n\n".join(parts)


def save_summary(project: Path, session_id: str, result: CompressionResult, via: str = "user") -> None:
    """Keep a compression result in the session memory (``summaries``) and log it (``compress.saved``)."""
    figures = result.metadata()

    def add(memory: SessionMemory) -> None:
        memory.summaries.append(SavedSummary(strategy=result.strategy, text=result.text, figures=figures))

    update_session_memory(project, session_id, add)
    audit.record(project, "compress.saved", session=session_id, via=via, **figures)
