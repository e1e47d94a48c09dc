"""The kinds of tracked item and their importance, without the item model.

:mod:`ctx_tui.memory.items` builds the :class:`~ctx_tui.memory.items.TrackedItem`
model on these. They live apart, at the bottom of the layers, because the
config and compression name them without depending on the memory package, and
because the Claude Code prompt hook runs on every prompt and needs only the
importance order (to sort a restatement): importing the memory models (and,
when they were pydantic's, building them) would cost it more than needed. The
hooks import even less: :mod:`ctx_tui.kinds_plain` (no enum), which this module
re-exports.
"""

from __future__ import annotations

from enum import StrEnum

from ctx_tui.errors import CtxError
from ctx_tui.kinds_plain import IMPORTANCE_RANKS
from ctx_tui.kinds_plain import importance_rank as importance_rank  # re-exported: the hooks import kinds_plain
from ctx_tui.kinds_plain import normalise_content as normalise_content
from ctx_tui.kinds_plain import now_iso as now_iso
from ctx_tui.kinds_plain import now_iso_ms as now_iso_ms

TYPE_CHECKING = False  # typing is not imported at run time

if TYPE_CHECKING:
    from typing import Literal


class ItemType(StrEnum):
    GOAL = "goal"
    CONSTRAINT = "constraint"
    USER_PREFERENCE = "user_preference"
    CRITICAL_INFO = "critical_info"
    DECISION = "decision"
    STATE = "state"
    PROGRESS = "progress"
    FINDING = "finding"
    PROJECT_CONFIG = "project_config"
    NOTE = "note"


#: What compression keeps whole first when ``compression.preserve_types`` is not set.
PRESERVED_BY_DEFAULT: tuple[ItemType, ...] = (ItemType.DECISION, ItemType.CONSTRAINT, ItemType.USER_PREFERENCE)


class Importance(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def rank(self) -> int:
        """2 for high, 1 for medium, 0 for low (for sorting and thresholds)."""
        return IMPORTANCE_RANKS[self.value]


_HIGH = {ItemType.GOAL, ItemType.CONSTRAINT, ItemType.USER_PREFERENCE, ItemType.CRITICAL_INFO}
_MEDIUM = {ItemType.DECISION, ItemType.STATE, ItemType.PROGRESS}

if TYPE_CHECKING:
    ItemSource = Literal["registered", "extracted"]


def importance_for(item_type: ItemType | str) -> Importance:
    """High: goal, constraint, user_preference, critical_info; medium: decision, state, progress; low: the rest."""
    kind = ItemType(item_type)
    if kind in _HIGH:
        return Importance.HIGH
    if kind in _MEDIUM:
        return Importance.MEDIUM
    return Importance.LOW


def parse_item_type(text: str) -> ItemType:
    """The ItemType named by ``text``; a CtxError listing the known types otherwise."""
    cleaned = text.strip().lower().replace("-", "_")
    try:
        return ItemType(cleaned)
    except ValueError:
        known = ", ".join(t.value for t in ItemType)
        raise CtxError(f"unknown item type {text!r}; known types: {known}") from None
