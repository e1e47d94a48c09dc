"""Display rows for the memory panels, built from the memory model's view.

Only this module knows the shape of ``ctx_tui.memory.view.MemoryView``; the
widgets take these plain rows.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ItemRow:
    """A tracked item with its decay status (decay table, heat-map markers)."""

    id: str
    type: str
    importance: str  # "high" | "medium" | "low"
    content: str
    rounds_since: int | None
    position: float | None  # 0..1 in the live window, None when out of context
    in_danger_zone: bool
    decayed: bool
    recommendation: str
    risk: float


@dataclass(frozen=True, slots=True)
class TierRow:
    name: str
    count: int
    tokens: int
    top: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PromotionRow:
    id: str
    type: str
    content: str
    reason: str


@dataclass(frozen=True, slots=True)
class MemoryRows:
    items: tuple[ItemRow, ...] = ()
    tiers: tuple[TierRow, ...] = ()
    promotions: tuple[PromotionRow, ...] = ()


def memory_rows(view: object | None) -> MemoryRows:
    """The display rows of a memory view (empty when the memory model gave none)."""
    if view is None:
        return MemoryRows()
    raise TypeError(f"unknown memory view {type(view).__name__}")
