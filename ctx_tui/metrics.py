"""Observability of a session (or a whole project): what ctx-tui saw and did, counted.

Two sources:

* the transcript: context size per round (reported, else estimated) and the
  compactions, with the round each one happened in;
* the audit log (``.ctx/audit.jsonl``, see docs/audit.md): decay events,
  restatements queued and delivered, retrieval queries and their hit rate,
  promotions proposed / approved / rejected / written, handoffs written /
  forced / refused, compressions.

:func:`audit_metrics` counts the audit events of one session (or of every
session with ``session_id=None``); :func:`session_metrics` adds the
transcript's figures. Both return plain dataclasses the CLI prints as JSON and
the metrics screen plots.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ctx_tui import audit
from ctx_tui.window_state import WindowState


BLOCKS = " ▁▂▃▄▅▆▇█"


@dataclass(frozen=True, slots=True)
class RoundPoint:
    round: int
    tokens: int
    source: str  # reported / estimated


@dataclass(frozen=True, slots=True)
class CompactionPoint:
    round: int | None
    trigger: str | None
    pre_tokens: int | None
    timestamp: str | None


@dataclass(slots=True)
class AuditMetrics:
    """Counts from the audit log; ``session`` None means every session of the project."""

    session: str | None
    events: int = 0
    sessions: int = 0  # distinct sessions among the events
    first_event: str | None = None
    last_event: str | None = None
    decay_events: int = 0  # memory.decayed events (one per read that found new decayed items)
    decayed_items: int = 0  # items in them
    decayed_high: int = 0  # of which high importance
    decayed_out_of_context: int = 0
    decayed_by_round: dict[int, int] = field(default_factory=dict)  # current round -> items newly decayed
    restatements_queued: int = 0  # restate.queued (one per item)
    restatements_copied: int = 0  # restate.copied: no hook, given to paste
    restatements_delivered: int = 0  # items the prompt hook put into the agent's context
    deliveries: int = 0  # restate.delivered events (prompts that carried restatements)
    auto_refresh_runs: int = 0
    reinjections: int = 0  # restate.reinjected (after /compact)
    retrieval_queries: int = 0
    retrieval_hits: int = 0  # queries that found at least one result
    promotions_proposed: int = 0
    promotions_approved: int = 0
    promotions_rejected: int = 0
    promotions_written: int = 0  # entries written to MEMORY.md
    handoffs_written: int = 0  # passed the gate
    handoffs_forced: int = 0  # written with --force although the gate failed
    handoffs_refused: int = 0  # refused by the gate
    compressions: int = 0  # compress.ran
    summaries_saved: int = 0  # compress.saved

    @property
    def retrieval_misses(self) -> int:
        return self.retrieval_queries - self.retrieval_hits

    @property
    def retrieval_hit_rate(self) -> float | None:
        return self.retrieval_hits / self.retrieval_queries if self.retrieval_queries else None

    @property
    def restatement_delivery_rate(self) -> float | None:
        """Delivered / queued (restatements waiting for the next prompt are not delivered yet)."""
        return self.restatements_delivered / self.restatements_queued if self.restatements_queued else None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["decayed_by_round"] = {str(k): v for k, v in sorted(self.decayed_by_round.items())}
        data.update(
            retrieval_misses=self.retrieval_misses,
            retrieval_hit_rate=self.retrieval_hit_rate,
            restatement_delivery_rate=self.restatement_delivery_rate,
        )
        return data


@dataclass(slots=True)
class SessionMetrics:
    path: str
    session_id: str
    format: str
    rounds: int
    context_tokens: int
    context_window: int
    usage_pct: float
    usage_source: str
    context_by_round: list[RoundPoint]
    compactions: list[CompactionPoint]
    audit: AuditMetrics

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "session_id": self.session_id,
            "format": self.format,
            "rounds": self.rounds,
            "context_tokens": self.context_tokens,
            "context_window": self.context_window,
            "usage_pct": round(self.usage_pct, 2),
            "usage_source": self.usage_source,
            "context_by_round": [asdict(p) for p in self.context_by_round],
            "compactions": [asdict(c) for c in self.compactions],
            "audit": self.audit.as_dict(),
        }


#: Audit actions that each add one to a field of :class:`AuditMetrics`.
_ONE_EACH = {
    "restate.queued": "restatements_queued",
    "restate.copied": "restatements_copied",
    "restate.auto_refreshed": "auto_refresh_runs",
    "restate.reinjected": "reinjections",
    "promotion.proposed": "promotions_proposed",
    "promotion.approved": "promotions_approved",
    "promotion.rejected": "promotions_rejected",
    "handoff.written": "handoffs_written",
    "handoff.forced": "handoffs_forced",
    "handoff.refused": "handoffs_refused",
    "compress.ran": "compressions",
    "compress.saved": "summaries_saved",
}


def _count(value: Any) -> int:
    return len(value) if isinstance(value, list) else 0


def count_events(events: Iterable[dict[str, Any]], session_id: str | None = None) -> AuditMetrics:
    """The counts of ``events`` (audit log entries), only those of ``session_id`` unless it is None."""
    m = AuditMetrics(session=session_id)
    sessions: set[str] = set()
    for event in events:
        if session_id is not None and event.get("session") != session_id:
            continue
        action = event.get("action")
        details = event.get("details")
        if not isinstance(details, dict):
            details = {}
        m.events += 1
        if isinstance(event.get("session"), str):
            sessions.add(event["session"])
        when = event.get("time") if isinstance(event.get("time"), str) else None
        if when:
            m.first_event = m.first_event or when
            m.last_event = when
        if action == "memory.decayed":
            items = [i for i in details.get("items") or [] if isinstance(i, dict)]
            m.decay_events += 1
            m.decayed_items += len(items)
            m.decayed_high += sum(1 for i in items if i.get("importance") == "high")
            m.decayed_out_of_context += sum(1 for i in items if i.get("out_of_context"))
            current = details.get("current_round")
            if isinstance(current, int) and items:
                m.decayed_by_round[current] = m.decayed_by_round.get(current, 0) + len(items)
        elif action == "restate.delivered":
            m.deliveries += 1
            m.restatements_delivered += _count(details.get("items"))
        elif action == "retrieve.searched":
            m.retrieval_queries += 1
            hits = details.get("hits")
            m.retrieval_hits += 1 if isinstance(hits, int) and hits > 0 else 0
        elif action == "promotion.written":
            m.promotions_written += _count(details.get("items"))
        elif isinstance(action, str) and action in _ONE_EACH:
            field = _ONE_EACH[action]
            setattr(m, field, getattr(m, field) + 1)
    m.sessions = len(sessions)
    return m


def audit_metrics(project: Path, session_id: str | None = None) -> AuditMetrics:
    """Counts from the project's audit log (one session, or all with None)."""
    return count_events(audit.read_events(project), session_id)


def session_metrics(project: Path, state: WindowState, session_id: str) -> SessionMetrics:
    """The transcript's figures (from ``state``: usage history and compactions) with the session's audit counts."""
    return SessionMetrics(
        path=str(state.path),
        session_id=session_id,
        format=state.meta.format.value,
        rounds=state.rounds,
        context_tokens=state.context_tokens,
        context_window=state.context_window,
        usage_pct=state.usage_pct,
        usage_source=state.usage_source,
        context_by_round=[RoundPoint(p.round, p.tokens, p.source) for p in state.history],
        compactions=[CompactionPoint(c.round, c.trigger, c.pre_tokens, c.timestamp) for c in state.compactions],
        audit=audit_metrics(project, session_id),
    )


def sparkline(values: list[int], width: int) -> str:
    """``values`` as one line of block characters, at most ``width`` wide (the max of each bucket)."""
    if not values or width <= 0:
        return ""
    step = max(1, -(-len(values) // width))
    buckets = [max(values[i : i + step]) for i in range(0, len(values), step)]
    top = max(buckets) or 1
    return "".join(BLOCKS[min(len(BLOCKS) - 1, round(v / top * (len(BLOCKS) - 1)))] for v in buckets)


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def audit_rows(m: AuditMetrics) -> list[tuple[str, str]]:
    """(label, figures) lines of the audit counts, as the CLI and the metrics screen show them."""
    decayed = f"{m.decayed_items} item(s) in {m.decay_events} event(s)"
    if m.decayed_items:
        decayed += f" ({m.decayed_high} high, {m.decayed_out_of_context} out of context)"
    return [
        ("decay", decayed),
        ("restatements", f"{m.restatements_queued} queued, {m.restatements_delivered} delivered "
                         f"in {m.deliveries} prompt(s) ({_rate(m.restatement_delivery_rate)}), {m.restatements_copied} copied, "
                         f"{m.auto_refresh_runs} auto-refresh run(s), {m.reinjections} re-injection(s) after /compact"),
        ("retrieval", f"{m.retrieval_queries} quer{'y' if m.retrieval_queries == 1 else 'ies'}, {m.retrieval_hits} hit, "
                      f"{m.retrieval_misses} missed (hit rate {_rate(m.retrieval_hit_rate)})"),
        ("promotions", f"{m.promotions_proposed} proposed, {m.promotions_approved} approved, "
                       f"{m.promotions_rejected} rejected, {m.promotions_written} written to MEMORY.md"),
        ("handoffs", f"{m.handoffs_written} written, {m.handoffs_refused} refused by the gate, {m.handoffs_forced} forced"),
        ("compression", f"{m.compressions} run(s), {m.summaries_saved} summary(ies) saved"),
        ("audit log", f"{m.events} event(s)" + (f" from {m.first_event} to {m.last_event}" if m.first_event else "")
                      + (f", {m.sessions} session(s)" if m.session is None else "")),
    ]
