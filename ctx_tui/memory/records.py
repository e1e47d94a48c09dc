"""The notes, decisions, saved summaries and promotions of a session memory (its models besides the items).

Plain dataclasses, checked as they are built (:mod:`ctx_tui.memory.fields`);
``from_data`` builds one from a file's mapping, ``dump`` gives the plain data
written. :class:`~ctx_tui.memory.session_store.SessionMemory` holds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ctx_tui.kinds import ItemType, now_iso
from ctx_tui.memory.fields import (
    InvalidField,
    from_mapping,
    member,
    nonempty_text,
    one_of,
    optional_text,
    optional_whole,
    text,
    text_map,
    texts,
)


@dataclass(slots=True, kw_only=True)
class Note:
    """A goal, constraint, preference, finding or progress note."""

    text: str
    round: int | None = None
    item_id: str | None = None
    created_at: str = field(default_factory=now_iso)

    def __post_init__(self) -> None:
        self.text = nonempty_text(self.text, "text")
        if self.round.__class__ is not int:
            self.round = optional_whole(self.round, "round")
        self.item_id = optional_text(self.item_id, "item_id")
        self.created_at = text(self.created_at, "created_at")

    @classmethod
    def from_data(cls, data: object) -> Note:
        return from_mapping(cls, data, _NOTE_KEYS, ("text",))

    def dump(self) -> dict[str, Any]:
        return {"text": self.text, "round": self.round, "item_id": self.item_id, "created_at": self.created_at}


_NOTE_KEYS = frozenset(("text", "round", "item_id", "created_at"))


@dataclass(slots=True, kw_only=True)
class Decision:
    decision: str
    rationale: str = ""
    affects_files: list[str] = field(default_factory=list)
    round: int | None = None
    item_id: str | None = None
    created_at: str = field(default_factory=now_iso)

    def __post_init__(self) -> None:
        self.decision = nonempty_text(self.decision, "decision")
        self.rationale = text(self.rationale, "rationale")
        self.affects_files = texts(self.affects_files, "affects_files")
        if self.round.__class__ is not int:
            self.round = optional_whole(self.round, "round")
        self.item_id = optional_text(self.item_id, "item_id")
        self.created_at = text(self.created_at, "created_at")

    @classmethod
    def from_data(cls, data: object) -> Decision:
        return from_mapping(cls, data, _DECISION_KEYS, ("decision",))

    def dump(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "rationale": self.rationale,
            "affects_files": list(self.affects_files),
            "round": self.round,
            "item_id": self.item_id,
            "created_at": self.created_at,
        }


_DECISION_KEYS = frozenset(("decision", "rationale", "affects_files", "round", "item_id", "created_at"))


def _figure(value: object, key: str) -> float | int | str:
    if type(value) is int or type(value) is float or type(value) is str:
        return value
    raise InvalidField((key,), "Input should be a valid number or string")


@dataclass(slots=True, kw_only=True)
class SavedSummary:
    """A compressed summary the user chose to keep."""

    created_at: str = field(default_factory=now_iso)
    strategy: str
    text: str
    #: originalLength, compressedLength, retentionRate, duration, ...
    figures: dict[str, float | int | str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.created_at = text(self.created_at, "created_at")
        self.strategy = text(self.strategy, "strategy")
        self.text = text(self.text, "text")
        self.figures = text_map(self.figures, "figures", _figure)

    @classmethod
    def from_data(cls, data: object) -> SavedSummary:
        return from_mapping(cls, data, _SUMMARY_KEYS, ("strategy", "text"))

    def dump(self) -> dict[str, Any]:
        return {"created_at": self.created_at, "strategy": self.strategy, "text": self.text, "figures": dict(self.figures)}


_SUMMARY_KEYS = frozenset(("created_at", "strategy", "text", "figures"))

PromotionStatus = Literal["pending", "approved", "rejected"]
_STATUSES: tuple[str, ...] = ("pending", "approved", "rejected")


@dataclass(slots=True, kw_only=True)
class Promotion:
    """A proposal to copy an item into long-term memory (MEMORY.md)."""

    item_id: str
    type: ItemType
    content: str
    status: PromotionStatus = "pending"
    proposed_at: str = field(default_factory=now_iso)
    decided_at: str | None = None
    reason: str | None = None
    #: When the approved entry was written to (or found already in) the memory file,
    #: and which file: ``sync`` writes an approved promotion once, so an entry the
    #: user deletes by hand later stays deleted. None: not written yet.
    written_at: str | None = None
    written_to: str | None = None

    def __post_init__(self) -> None:
        self.item_id = text(self.item_id, "item_id")
        self.type = member(ItemType, self.type, "type")
        self.content = text(self.content, "content")
        self.status = one_of(_STATUSES, self.status, "status")  # type: ignore[assignment]  # one_of checked it is one of the Literal's values
        self.proposed_at = text(self.proposed_at, "proposed_at")
        self.decided_at = optional_text(self.decided_at, "decided_at")
        self.reason = optional_text(self.reason, "reason")
        self.written_at = optional_text(self.written_at, "written_at")
        self.written_to = optional_text(self.written_to, "written_to")

    @classmethod
    def from_data(cls, data: object) -> Promotion:
        return from_mapping(cls, data, _PROMOTION_KEYS, ("item_id", "type", "content"))

    def dump(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "type": self.type.value,
            "content": self.content,
            "status": self.status,
            "proposed_at": self.proposed_at,
            "decided_at": self.decided_at,
            "reason": self.reason,
            "written_at": self.written_at,
            "written_to": self.written_to,
        }


_PROMOTION_KEYS = frozenset(
    ("item_id", "type", "content", "status", "proposed_at", "decided_at", "reason", "written_at", "written_to")
)
