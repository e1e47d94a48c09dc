"""The kinds of tracked item and their importance, without the item model.

:mod:`ctx_tui.memory.items` builds the :class:`~ctx_tui.memory.items.TrackedItem`
model on these. They live apart, at the bottom of the layers, because the
config and compression name them without depending on the memory package, and
because the Claude Code prompt hook runs on every prompt and needs only the
importance order (to sort a restatement): importing the memory models (and,
when they were pydantic's, building them) would cost it more than needed.
"""

from __future__ import annotations

import re
import time
from enum import StrEnum

from ctx_tui.errors import CtxError

TYPE_CHECKING = False  # typing is not imported at run time: the prompt hook imports this module

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
        return {"high": 2, "medium": 1, "low": 0}[self.value]


def importance_rank(value: object) -> int:
    """:attr:`Importance.rank` of an importance or its name; -1 for anything else (sorts after low)."""
    try:
        return Importance(str(getattr(value, "value", value))).rank
    except ValueError:
        return -1


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


def now_iso() -> str:
    """The UTC time as ``datetime.now(timezone.utc).isoformat(timespec="seconds")`` writes it.

    From the time module: the prompt hook and the audit log do not import datetime
    (its module defines the pure-Python classes before loading the C ones: ~1.3 ms).
    """
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time_ns() // 1_000_000_000))


def now_iso_ms() -> str:
    """:func:`now_iso` with milliseconds, as ``isoformat(timespec="milliseconds")`` writes them."""
    ns = time.time_ns()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 1_000_000_000)) + f".{ns // 1_000_000 % 1000:03d}+00:00"


def normalise_content(text: str) -> str:
    """Content compared for duplicates: case-folded, whitespace collapsed, end punctuation dropped."""
    return re.sub(r"\s+", " ", text).strip().casefold().rstrip(".!;:, ")


