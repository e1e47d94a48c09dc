"""Tracked items: the facts a session must not forget (docs/memory.md, "Tracked items").

An item has an id, a type, its content, an importance that follows from its
type, the round where it entered the conversation and the rounds where it was
referenced again. Items are registered by hand (``ctx-tui register`` or the
dashboard) or extracted from the transcript; both kinds live in the session
memory file (``.ctx/sessions/<session-id>.yaml``).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# The kinds of item and their importance live apart from the pydantic model so
# the prompt hook can use them without building it (see ctx_tui/kinds.py).
from ctx_tui.kinds import (
    Importance,
    ItemSource,
    ItemType,
    importance_for,
    importance_rank,
    normalise_content,
    now_iso,
    parse_item_type,
)

__all__ = [
    "MAX_REFERENCED_ROUNDS",
    "Importance",
    "ItemSource",
    "ItemType",
    "TrackedItem",
    "extracted_item_id",
    "importance_for",
    "importance_rank",
    "normalise_content",
    "now_iso",
    "parse_item_type",
]


def extracted_item_id(item_type: ItemType | str, content: str) -> str:
    """A stable id for an extracted item: the same fact always gets the same id."""
    digest = hashlib.sha1(normalise_content(content).encode("utf-8")).hexdigest()[:8]
    return f"{ItemType(item_type).value}-{digest}"


#: Referenced rounds kept per item (the latest ones): decay needs only the last, the rest is history.
MAX_REFERENCED_ROUNDS = 50

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}$")


class TrackedItem(BaseModel):
    """One fact the session tracks. ``importance`` defaults to the one its type implies."""

    model_config = ConfigDict(extra="forbid")

    id: str
    type: ItemType
    content: str = Field(min_length=1)
    importance: Importance
    #: The round where the item entered the conversation (0: registered before any round).
    entered_round: int = Field(0, ge=0)
    #: Rounds (1-based, ascending, unique, after ``entered_round``) where a later entry
    #: mentioned the item or it was restated; the latest MAX_REFERENCED_ROUNDS are kept.
    referenced_rounds: list[int] = Field(default_factory=list)
    source: ItemSource = "registered"
    dismissed: bool = False
    created_at: str = Field(default_factory=now_iso)

    @model_validator(mode="before")
    @classmethod
    def _default_importance(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("importance") in (None, "") and "type" in data:
            try:
                data = {**data, "importance": importance_for(data["type"])}
            except ValueError:
                pass  # the type error itself is reported by field validation
        return data

    @field_validator("id")
    @classmethod
    def _valid_id(cls, value: str) -> str:
        if not _ID_RE.match(value):
            raise ValueError(
                "an item id is 1-80 characters: letters, digits, '_', '-', '.', ':' (starting with a letter or digit)"
            )
        return value

    @field_validator("referenced_rounds")
    @classmethod
    def _sorted_rounds(cls, value: list[int]) -> list[int]:
        return sorted({r for r in value if r >= 1})[-MAX_REFERENCED_ROUNDS:]

    @model_validator(mode="after")
    def _references_after_entry(self) -> "TrackedItem":
        """Rounds before (or of) the one the item entered are no references to it."""
        self.referenced_rounds = [r for r in self.referenced_rounds if r > self.entered_round]
        return self

    @property
    def last_seen_round(self) -> int:
        """The latest round where the item entered or was referenced."""
        return max([self.entered_round, *self.referenced_rounds])

    def with_references(self, rounds: list[int]) -> "TrackedItem":
        """A copy with ``rounds`` added to the referenced rounds (those after ``entered_round`` only)."""
        later = (r for r in (*self.referenced_rounds, *rounds) if r > self.entered_round)
        merged = sorted(set(later))[-MAX_REFERENCED_ROUNDS:]
        return self.model_copy(update={"referenced_rounds": merged})
