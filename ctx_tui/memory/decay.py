"""Decay, position and attention risk of tracked items (docs/memory.md, "Decay, position and attention risk").

For each item, from the transcript:

* **rounds since reference** — the current round minus the latest round the
  item was stated or mentioned (see :mod:`ctx_tui.memory.references`; a
  restatement recorded in the session memory counts too); an item never
  mentioned counts from the round it was registered in. Only rounds from the
  one the item entered count: an item registered in round 14 has no
  references in rounds 1-13, even when they said the same thing.
* **decayed** — rounds since reference >= ``decay.threshold_rounds`` (20), or
  >= ``decay.high_importance_threshold`` (10) for high importance (the smaller
  of the two applies). The recommendation follows the importance: restate now
  (high), consider restating (medium), can ignore (low).
* **position** — where the item's latest occurrence sits in the live window
  (0 = start, 1 = end); inside ``position.danger_zone`` (0.3–0.7) it is
  flagged: the U-shaped attention curve is lowest there.
* **out of context** — no entry of the live window states or mentions the
  item (after a compaction dropped it, or it was never said): the worst state.

**Attention risk** (0..1, sorts the dashboard's list), documented in docs/memory.md::

    weight     = 1.0 high, 0.6 medium, 0.3 low
    forgetting = min(1, rounds_since_reference / threshold)      (1 when out of context)
    placement  = (1 - attention(position)) / (1 - ATTENTION_FLOOR)   (0 at the ends, 1 in the middle)
    risk       = weight                                      when out of context
               = weight * (0.75 * forgetting + 0.25 * placement)   otherwise

so an out-of-context high item (1.0) ranks above a decayed high one (>= 0.75),
which ranks above anything medium or low.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from ctx_tui.config import Config
from ctx_tui.memory.items import Importance, ItemType, TrackedItem
from ctx_tui.memory.references import Reference, occurrences
from ctx_tui.transcripts.model import Entry
from ctx_tui.window_state import WindowEntry

if TYPE_CHECKING:
    from ctx_tui.memory.scan_cache import ScanCache

#: The attention the U-shaped curve gives the middle of the window (1.0 at either end).
ATTENTION_FLOOR = 0.4
IMPORTANCE_WEIGHT: Mapping[Importance, float] = {Importance.HIGH: 1.0, Importance.MEDIUM: 0.6, Importance.LOW: 0.3}
FORGETTING_SHARE = 0.75

RESTATE_NOW: Final = "restate now"
CONSIDER: Final = "consider restating"
CAN_IGNORE: Final = "can ignore"
MOVE: Final = "restate to move it to the end"
OK: Final = "ok"
Recommendation = Literal["restate now", "consider restating", "can ignore", "restate to move it to the end", "ok"]
_BY_IMPORTANCE: Mapping[Importance, Recommendation] = {
    Importance.HIGH: RESTATE_NOW,
    Importance.MEDIUM: CONSIDER,
    Importance.LOW: CAN_IGNORE,
}


def attention(position: float) -> float:
    """The U-shaped attention curve: 1.0 at the start and the end, ATTENTION_FLOOR in the middle."""
    p = min(1.0, max(0.0, position))
    return ATTENTION_FLOOR + (1.0 - ATTENTION_FLOOR) * (2.0 * p - 1.0) ** 2


def in_danger_zone(position: float, zone: tuple[float, float]) -> bool:
    return zone[0] <= position <= zone[1]


def threshold_for(importance: Importance, config: Config) -> int:
    """Rounds without a reference after which an item of this importance counts as decayed."""
    decay = config.decay
    if importance is Importance.HIGH:
        return min(decay.high_importance_threshold, decay.threshold_rounds)
    return decay.threshold_rounds


@dataclass(frozen=True, slots=True)
class ItemStatus:
    """What the transcript says about one tracked item now."""

    item: TrackedItem
    last_seen_round: int | None  # latest round it was stated, mentioned or restated
    rounds_since_reference: int
    threshold: int
    position: float | None  # of its latest occurrence in the live window; None when out of context
    seq: int | None  # the entry of that latest live occurrence
    in_danger_zone: bool
    out_of_context: bool
    decayed: bool
    recommendation: Recommendation
    risk: float
    #: The rounds where later entries mentioned the item (from the transcript and the session memory).
    referenced_rounds: tuple[int, ...] = ()
    #: Why ``last_seen_round`` is what it is: the latest sentence that stated or mentioned the item.
    last_reference: Reference | None = None

    @property
    def id(self) -> str:
        return self.item.id

    @property
    def type(self) -> ItemType:
        return self.item.type

    @property
    def importance(self) -> Importance:
        return self.item.importance

    @property
    def content(self) -> str:
        return self.item.content

    @property
    def flagged(self) -> bool:
        """Decayed or out of context: what ``detect-decay`` lists."""
        return self.decayed or self.out_of_context

    @property
    def why(self) -> str:
        """Why the item is (or is not) decayed, in one line: the latest sentence that mentioned it."""
        ref = self.last_reference
        if ref is None:
            return f"nothing has mentioned it since it entered (round {self.item.entered_round})"
        if ref.kind == "memory":
            return f"round {ref.round}: {ref.sentence}"
        if ref.followup:
            evidence = " (a follow-up of the turn before)"
        else:
            evidence = f" (matched: {', '.join(ref.matched)})" if ref.matched else ""
        return f'round {ref.round}, {ref.speaker}: "{ref.sentence}"{evidence}'

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of ``detect-decay --json``."""
        return {
            "id": self.item.id,
            "type": self.item.type.value,
            "content": self.item.content,
            "importance": self.item.importance.value,
            "rounds_since_reference": self.rounds_since_reference,
            "last_seen_round": self.last_seen_round,
            "position": None if self.position is None else round(self.position, 4),
            "in_danger_zone": self.in_danger_zone,
            "out_of_context": self.out_of_context,
            "decayed": self.decayed,
            "recommendation": self.recommendation,
            "risk": self.risk,
            "last_reference": None if self.last_reference is None else self.last_reference.as_dict(),
        }


def risk_score(importance: Importance, forgetting: float, position: float | None, out_of_context: bool) -> float:
    weight = IMPORTANCE_WEIGHT[importance]
    if out_of_context or position is None:
        return round(weight, 3)
    placement = (1.0 - attention(position)) / (1.0 - ATTENTION_FLOOR)
    return round(weight * (FORGETTING_SHARE * min(1.0, forgetting) + (1 - FORGETTING_SHARE) * placement), 3)


def _recommendation(importance: Importance, decayed: bool, out_of_context: bool, danger: bool) -> Recommendation:
    if decayed or out_of_context:
        return _BY_IMPORTANCE[importance]
    if danger and importance is not Importance.LOW:
        return MOVE
    return OK


def _last_reference(found: Sequence[Reference], last_seen: int | None) -> Reference | None:
    """The evidence for ``last_seen``: the latest sentence of that round, or a note that only the memory has it."""
    if last_seen is None:
        return None
    in_round = [r for r in found if r.round == last_seen]
    if in_round:
        return in_round[-1]
    return Reference(-1, last_seen, "ctx-tui", "memory", "restated, or referenced in a part of the transcript no longer read", (), 0.0)


def live_entry(live: Sequence[WindowEntry], seq: int) -> WindowEntry | None:
    """The live-window entry of ``seq``, or None: a binary search (the live window is in
    transcript order), so an append does not pay a look-up table over the whole window."""
    at = bisect_left(live, seq, key=lambda w: w.entry.seq)
    return live[at] if at < len(live) and live[at].entry.seq == seq else None


def status_of(
    item: TrackedItem,
    found: Sequence[Reference],
    live: Sequence[WindowEntry],
    current_round: int,
    config: Config,
) -> ItemStatus:
    """The status of one item given the references that state or mention it, as of ``current_round``."""
    found = [e for e in found if e.round <= current_round]
    # nothing said before the item entered refers to it (a statement earlier in the live
    # window still places it: position and out-of-context look at every live occurrence)
    counted = [e for e in found if e.round >= max(1, item.entered_round)]
    rounds = {e.round for e in counted} | {r for r in item.referenced_rounds if item.entered_round < r <= current_round}
    if item.source == "extracted" and item.entered_round >= 1:
        rounds.add(item.entered_round)
    last_seen = max(rounds) if rounds else None
    since = max(0, current_round - (last_seen if last_seen is not None else item.entered_round))
    threshold = threshold_for(item.importance, config)
    holder = None  # the latest occurrence still in the live window
    for ref in reversed(found):
        holder = live_entry(live, ref.seq)
        if holder is not None:
            break
    seq = holder.entry.seq if holder is not None else None
    position = holder.position if holder is not None else None
    out_of_context = position is None
    enabled = config.decay.enabled
    decayed = enabled and since >= threshold
    danger = position is not None and in_danger_zone(position, config.position.danger_zone)
    risk = risk_score(item.importance, since / threshold, position, out_of_context)
    references = sorted(r for r in rounds if r != item.entered_round)  # where it entered is no reference
    return ItemStatus(
        item=item,
        last_seen_round=last_seen,
        rounds_since_reference=since,
        threshold=threshold,
        position=position,
        seq=seq,
        in_danger_zone=danger,
        out_of_context=out_of_context and enabled,
        decayed=decayed,
        recommendation=_recommendation(item.importance, decayed, out_of_context and enabled, danger),
        risk=risk,
        referenced_rounds=tuple(references),
        last_reference=_last_reference(counted, last_seen),
    )


def analyze(
    items: Sequence[TrackedItem],
    entries: Sequence[Entry],
    live: Sequence[WindowEntry],
    current_round: int,
    config: Config,
    latest_only: bool = False,
    scan_cache: ScanCache | None = None,
) -> list[ItemStatus]:
    """Statuses of the active (not dismissed) items, highest attention risk first.

    ``latest_only`` (a one-off job, ``current_round`` the session's last): read only the references
    the statuses need, from the end (:mod:`ctx_tui.memory.latest_references`; the same statuses,
    ``referenced_rounds`` holding at least the latest ones the session memory keeps), with what an
    earlier job kept in ``scan_cache`` (:mod:`ctx_tui.memory.scan_cache`) when given."""
    active = [item for item in items if not item.dismissed]
    if latest_only:
        from ctx_tui.memory.latest_references import latest_occurrences

        live_from = live[0].entry.seq if live else 1 << 62
        found = latest_occurrences(
            active, entries, live_from, current_round, config.decay.reference_threshold, cache=scan_cache
        )
    else:
        found = occurrences(active, entries, config.decay.reference_threshold)
    statuses = [status_of(item, found[item.id], live, current_round, config) for item in active]
    statuses.sort(key=lambda s: (-s.risk, -s.item.importance.rank, -s.rounds_since_reference, s.item.id))
    return statuses
