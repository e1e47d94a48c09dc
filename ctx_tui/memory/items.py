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
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

# The kinds of item and their importance live apart from the model so the
# prompt hook can use them without building it (see ctx_tui/kinds.py).
from ctx_tui.kinds import (
    Importance,
    ItemType,
    importance_for,
    importance_rank,
    normalise_content,
    now_iso,
    parse_item_type,
)
from ctx_tui.memory.fields import InvalidField, from_mapping, flag, member, nonempty_text, one_of, sequence, text, whole

if TYPE_CHECKING:
    from ctx_tui.kinds import ItemSource

__all__ = [
    "MAX_REFERENCED_ROUNDS",
    "Importance",
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

#: ``\Z``, not ``$``: ``$`` also matches before a final newline, and ``"g1\n"`` is no id.
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}\Z")


#: The fields of a TrackedItem, in the order they are written.
_FIELDS = frozenset(
    ("id", "type", "content", "importance", "entered_round", "referenced_rounds", "source", "dismissed", "created_at")
)
_REQUIRED = ("id", "type", "content")
_SOURCES: tuple[str, ...] = ("registered", "extracted")
#: ``importance`` left out: the one the item's type implies (an Importance to mypy, like the field after the check).
_FROM_TYPE: Any = None


@dataclass(slots=True, kw_only=True)
class TrackedItem:
    """One fact the session tracks. ``importance`` defaults to the one its type implies.

    Every field is checked (and coerced, see :mod:`ctx_tui.memory.fields`) when
    the item is built; :meth:`from_data` builds one from a file's mapping.
    """

    id: str
    type: ItemType
    content: str
    importance: Importance = _FROM_TYPE
    #: The round where the item entered the conversation (0: registered before any round).
    entered_round: int = 0
    #: Rounds (1-based, ascending, unique, after ``entered_round``) where a later entry
    #: mentioned the item or it was restated; the latest MAX_REFERENCED_ROUNDS are kept.
    referenced_rounds: list[int] = field(default_factory=list)
    source: ItemSource = "registered"
    dismissed: bool = False
    created_at: str = field(default_factory=now_iso)

    def __post_init__(self) -> None:
        if type(self.id) is not str:
            self.id = text(self.id, "id")
        if not _ID_RE.match(self.id):
            raise InvalidField(
                ("id",),
                "an item id is 1-80 characters: letters, digits, '_', '-', '.', ':' (starting with a letter or digit)",
            )
        self.type = kind = member(ItemType, self.type, "type")
        self.content = nonempty_text(self.content, "content")
        importance: object = self.importance
        if importance.__class__ is not Importance:
            self.importance = importance_for(kind) if importance is None or importance == "" else member(Importance, importance, "importance")
        entered = self.entered_round
        if type(entered) is not int:
            self.entered_round = entered = whole(entered, "entered_round")
        if entered < 0:
            raise InvalidField(("entered_round",), "Input should be greater than or equal to 0")
        rounds = sequence(self.referenced_rounds, "referenced_rounds")
        if not all(type(r) is int for r in rounds):
            rounds = [_round(r, index) for index, r in enumerate(rounds)]
        # Rounds before (or of) the one the item entered are no references to it.
        self.referenced_rounds = sorted({r for r in rounds if r > entered})[-MAX_REFERENCED_ROUNDS:]
        self.source = one_of(_SOURCES, self.source, "source")  # type: ignore[assignment]  # one_of checked it is one of the Literal's values
        if type(self.dismissed) is not bool:
            self.dismissed = flag(self.dismissed, "dismissed")
        if type(self.created_at) is not str:
            self.created_at = text(self.created_at, "created_at")

    @classmethod
    def from_data(cls, data: object) -> TrackedItem:
        """The item a file's mapping describes: every field checked, no key unknown."""
        return from_mapping(cls, data, _FIELDS, _REQUIRED)

    def dump(self) -> dict[str, Any]:
        """The item as plain data, as written to the file (kinds by their value)."""
        return {
            "id": self.id,
            "type": self.type.value,
            "content": self.content,
            "importance": self.importance.value,
            "entered_round": self.entered_round,
            "referenced_rounds": list(self.referenced_rounds),
            "source": self.source,
            "dismissed": self.dismissed,
            "created_at": self.created_at,
        }

    @property
    def last_seen_round(self) -> int:
        """The latest round where the item entered or was referenced."""
        return max([self.entered_round, *self.referenced_rounds])

    def with_references(self, rounds: Iterable[int]) -> TrackedItem:
        """A copy with ``rounds`` added to the referenced rounds (those after ``entered_round`` only)."""
        return replace(self, referenced_rounds=[*self.referenced_rounds, *rounds])


def _round(value: object, index: int) -> int:
    try:
        return whole(value, index)
    except InvalidField as exc:
        raise exc.within("referenced_rounds") from None
