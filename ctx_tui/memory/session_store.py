"""The medium-term tier: structured session memory in ``.ctx/sessions/<session-id>.yaml``.

One YAML file per session, validated by :class:`SessionMemory`. It holds the
tracked items (registered and extracted, dismissals included), the structured
notes (goals, decisions with rationale, constraints, preferences, findings,
progress), saved compressed summaries and the promotions waiting for the user.

Every change goes through :func:`update_session_memory`: a locked
read-modify-write with an atomic replace, so the TUI, the CLI and hook
processes can change the same file at once without losing each other's work.

Structured notes that mirror a tracked item carry its ``item_id``;
:meth:`SessionMemory.upsert_item` and :meth:`SessionMemory.dismiss` keep them
in step (``_sync_note`` is the one place that links an item to its note).
Notes without an ``item_id`` (a decision recorded with its rationale by the
handoff form, a progress line) are the session memory's own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ctx_tui.errors import CtxError
from ctx_tui.lru import LruCache
from ctx_tui.memory.items import ItemType, TrackedItem, now_iso
from ctx_tui.memory.session_notes import write_notes
from ctx_tui.paths import SESSIONS_DIR, session_memory_path, state_dir
from ctx_tui.storage import locked, read_regular, write_atomic
from ctx_tui.window_state import SessionLike
from ctx_tui.yaml_load import DEFAULT_LIMITS, YamlLoadError, load_yaml

#: libyaml's safe dumper when PyYAML has it (several times faster), else the pure one.
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Note(_Model):
    """A goal, constraint, preference, finding or progress note."""

    text: str = Field(min_length=1)
    round: int | None = None
    item_id: str | None = None
    created_at: str = Field(default_factory=now_iso)


class Decision(_Model):
    decision: str = Field(min_length=1)
    rationale: str = ""
    affects_files: list[str] = Field(default_factory=list)
    round: int | None = None
    item_id: str | None = None
    created_at: str = Field(default_factory=now_iso)


class SavedSummary(_Model):
    """A compressed summary the user chose to keep."""

    created_at: str = Field(default_factory=now_iso)
    strategy: str
    text: str
    #: originalLength, compressedLength, retentionRate, duration, ...
    figures: dict[str, float | int | str] = Field(default_factory=dict)


PromotionStatus = Literal["pending", "approved", "rejected"]


class Promotion(_Model):
    """A proposal to copy an item into long-term memory (MEMORY.md)."""

    item_id: str
    type: ItemType
    content: str
    status: PromotionStatus = "pending"
    proposed_at: str = Field(default_factory=now_iso)
    decided_at: str | None = None
    reason: str | None = None
    #: When the approved entry was written to (or found already in) the memory file,
    #: and which file: ``sync`` writes an approved promotion once, so an entry the
    #: user deletes by hand later stays deleted. None: not written yet.
    written_at: str | None = None
    written_to: str | None = None


#: Which structured list mirrors an item of each type (decisions are handled apart).
_NOTE_FIELD: dict[ItemType, str] = {
    ItemType.GOAL: "goals",
    ItemType.CONSTRAINT: "constraints",
    ItemType.USER_PREFERENCE: "preferences",
    ItemType.FINDING: "findings",
    ItemType.PROGRESS: "progress",
}
#: The note lists of a session memory, in the order they are shown (decisions aside).
NOTE_FIELDS: tuple[str, ...] = tuple(_NOTE_FIELD.values())


class SessionMemory(_Model):
    session_id: str
    items: list[TrackedItem] = Field(default_factory=list)
    goals: list[Note] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    constraints: list[Note] = Field(default_factory=list)
    preferences: list[Note] = Field(default_factory=list)
    findings: list[Note] = Field(default_factory=list)
    progress: list[Note] = Field(default_factory=list)
    summaries: list[SavedSummary] = Field(default_factory=list)
    promotions: list[Promotion] = Field(default_factory=list)
    #: item id -> the decay state last written to the audit log (one event per new state).
    decay_reported: dict[str, str] = Field(default_factory=dict)
    updated_at: str | None = None

    # -- items --------------------------------------------------------------

    def get_item(self, item_id: str) -> TrackedItem | None:
        return next((item for item in self.items if item.id == item_id), None)

    def active_items(self) -> list[TrackedItem]:
        """Items not dismissed, in the order they were added."""
        return [item for item in self.items if not item.dismissed]

    def upsert_item(self, item: TrackedItem) -> bool:
        """Add ``item`` or replace the item with its id; mirror it into its structured list.

        Returns True when the item is new. Referenced rounds already recorded
        for the id are kept (an update never forgets references).
        """
        old = self.get_item(item.id)
        if old is not None:
            item = item.with_references(old.referenced_rounds)
            self.items[self.items.index(old)] = item
        else:
            self.items.append(item)
        self._sync_note(item)
        return old is None

    def dismiss(self, item_id: str) -> bool:
        """Mark an item dismissed (it stays, so extraction never brings it back)."""
        item = self.get_item(item_id)
        if item is None:
            return False
        dismissed = item.model_copy(update={"dismissed": True})
        self.items[self.items.index(item)] = dismissed
        self._sync_note(dismissed)
        return True

    def add_references(self, refs: dict[str, list[int]]) -> dict[str, list[int]]:
        """Record referenced rounds per item id; returns only the rounds that were new."""
        added: dict[str, list[int]] = {}
        for index, item in enumerate(self.items):
            updated = item.with_references(list(refs.get(item.id, ())))
            new = sorted(set(updated.referenced_rounds) - set(item.referenced_rounds))
            if new:
                self.items[index] = updated
                added[item.id] = new
        return added

    def _sync_note(self, item: TrackedItem) -> None:
        """Make the structured lists mirror ``item``: one note in the list of its type, none if dismissed.

        An existing decision note keeps its rationale and files when its text changes.
        """
        target = "decisions" if item.type is ItemType.DECISION else _NOTE_FIELD.get(item.type)
        for field in (*NOTE_FIELDS, "decisions"):
            if field != target or item.dismissed:
                setattr(self, field, [n for n in getattr(self, field) if n.item_id != item.id])
        if target is None or item.dismissed:
            return
        notes = getattr(self, target)
        round_ = item.entered_round or None
        for index, note in enumerate(notes):
            if note.item_id == item.id:
                text_field = "decision" if target == "decisions" else "text"
                notes[index] = note.model_copy(update={text_field: item.content, "round": round_})
                return
        if target == "decisions":
            notes.append(Decision(decision=item.content, round=round_, item_id=item.id))
        else:
            notes.append(Note(text=item.content, round=round_, item_id=item.id))

    # -- promotions -----------------------------------------------------------

    def pending_promotions(self) -> list[Promotion]:
        return [p for p in self.promotions if p.status == "pending"]


def sessions_dir(project: Path) -> Path:
    return state_dir(project) / SESSIONS_DIR


def session_id_of(session: SessionLike) -> str:
    """The id the session memory file is named by: the transcript's session id, else its file name."""
    return session.meta.session_id or session.path.stem


def _parse(path: Path, raw: str, session_id: str) -> SessionMemory:
    try:
        data: Any = load_yaml(raw, str(path))
    except YamlLoadError as exc:
        raise CtxError(f"{exc}; fix or remove the file") from None
    if data is None:
        return SessionMemory(session_id=session_id)
    if not isinstance(data, dict):
        raise CtxError(f"{path}: expected a mapping of session memory fields, got {type(data).__name__}")
    data.setdefault("session_id", session_id)
    try:
        return SessionMemory.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise CtxError(f"{path}: key '{key}': {err['msg']}; fix or remove the file") from None


#: path -> (the file's text, the plain data it parsed to): the dashboard reads the file on
#: every poll; reading is cheap, parsing YAML is not, and equal text is the only safe cache
#: key. Plain data, not the model: each read builds fresh models from it (pydantic's
#: validation copies; for 200 items 1.9 ms a poll where a deep copy took 3.3 ms).
#: Bounded: a search reads every session file of the project.
_PARSED: LruCache[Path, tuple[str, dict[str, Any]]] = LruCache(maxsize=128)


def _read(path: Path, session_id: str) -> SessionMemory:
    try:
        raw = read_regular(path, DEFAULT_LIMITS.max_bytes).decode("utf-8")
    except FileNotFoundError:
        return SessionMemory(session_id=session_id)
    except OSError as exc:
        raise CtxError(f"{path}: cannot read session memory ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise CtxError(f"{path}: cannot read session memory (not UTF-8 text at byte {exc.start})") from None
    cached = _PARSED.get(path)
    if cached is not None and cached[0] == raw:
        return SessionMemory.model_validate(cached[1])
    memory = _parse(path, raw, session_id)
    _PARSED.put(path, (raw, memory.model_dump()))
    return memory


def load_session_memory(project: Path, session_id: str) -> SessionMemory:
    """The session's memory; an empty one when the file does not exist yet."""
    return _read(session_memory_path(project, session_id), session_id)


def _yaml_text(data: dict[str, Any]) -> str:
    return yaml.dump(data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=100)


def update_session_memory(
    project: Path, session_id: str, fn: Callable[[SessionMemory], object]
) -> SessionMemory:
    """Locked read-modify-write: ``fn`` changes the loaded memory in place; the result is saved atomically.

    Nothing is written when ``fn`` changed nothing (the dashboard calls this on every poll).
    """
    path = session_memory_path(project, session_id)
    with locked(path):
        memory = _read(path, session_id)
        before = memory.model_dump()
        fn(memory)
        if memory.model_dump() == before:
            return memory
        memory.updated_at = now_iso()
        # Validate what fn produced before it reaches the disk.
        memory = SessionMemory.model_validate(memory.model_dump())
        data = memory.model_dump(mode="json")
        text = _yaml_text(data)
        write_atomic(path, text)
        write_notes(path, text, data)
        _PARSED.put(path, (text, memory.model_dump()))
    return memory
