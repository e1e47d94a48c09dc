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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ctx_tui.errors import CtxError
from ctx_tui.lru import LruCache
from ctx_tui.memory.fields import InvalidField, from_mapping, models, optional_text, text, text_map
from ctx_tui.memory.items import ItemType, TrackedItem, now_iso
from ctx_tui.memory.records import Decision as Decision
from ctx_tui.memory.records import Note as Note
from ctx_tui.memory.records import Promotion as Promotion
from ctx_tui.memory.records import PromotionStatus as PromotionStatus
from ctx_tui.memory.records import SavedSummary as SavedSummary
from ctx_tui.memory.session_notes import write_notes
from ctx_tui.paths import SESSIONS_DIR, session_memory_path, state_dir
from ctx_tui.storage import locked, read_regular, write_atomic
from ctx_tui.window_state import SessionLike
from ctx_tui.yaml_load import DEFAULT_LIMITS, YamlLoadError, load_yaml

#: libyaml's safe dumper when PyYAML has it (several times faster), else the pure one.
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


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
_MEMORY_KEYS = frozenset(
    ("session_id", "items", "goals", "decisions", *NOTE_FIELDS, "summaries", "promotions", "decay_reported", "updated_at")
)


@dataclass(slots=True, kw_only=True)
class SessionMemory:
    session_id: str
    items: list[TrackedItem] = field(default_factory=list)
    goals: list[Note] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    constraints: list[Note] = field(default_factory=list)
    preferences: list[Note] = field(default_factory=list)
    findings: list[Note] = field(default_factory=list)
    progress: list[Note] = field(default_factory=list)
    summaries: list[SavedSummary] = field(default_factory=list)
    promotions: list[Promotion] = field(default_factory=list)
    #: item id -> the decay state last written to the audit log (one event per new state).
    decay_reported: dict[str, str] = field(default_factory=dict)
    updated_at: str | None = None

    def __post_init__(self) -> None:
        """Each list holds its models: one given as a mapping (read from a file) is built and checked."""
        self.session_id = text(self.session_id, "session_id")
        self.items = models(self.items, "items", TrackedItem, TrackedItem.from_data)
        self.goals = models(self.goals, "goals", Note, Note.from_data)
        self.decisions = models(self.decisions, "decisions", Decision, Decision.from_data)
        self.constraints = models(self.constraints, "constraints", Note, Note.from_data)
        self.preferences = models(self.preferences, "preferences", Note, Note.from_data)
        self.findings = models(self.findings, "findings", Note, Note.from_data)
        self.progress = models(self.progress, "progress", Note, Note.from_data)
        self.summaries = models(self.summaries, "summaries", SavedSummary, SavedSummary.from_data)
        self.promotions = models(self.promotions, "promotions", Promotion, Promotion.from_data)
        self.decay_reported = text_map(self.decay_reported, "decay_reported", text)
        self.updated_at = optional_text(self.updated_at, "updated_at")

    @classmethod
    def from_data(cls, data: object) -> SessionMemory:
        """The memory a file's mapping describes: every field of every model checked, no key unknown."""
        return from_mapping(cls, data, _MEMORY_KEYS, ("session_id",))

    def dump(self) -> dict[str, Any]:
        """The memory as plain data, as written to the file: every field, in the order declared."""
        return {
            "session_id": self.session_id,
            "items": [item.dump() for item in self.items],
            "goals": [note.dump() for note in self.goals],
            "decisions": [decision.dump() for decision in self.decisions],
            "constraints": [note.dump() for note in self.constraints],
            "preferences": [note.dump() for note in self.preferences],
            "findings": [note.dump() for note in self.findings],
            "progress": [note.dump() for note in self.progress],
            "summaries": [summary.dump() for summary in self.summaries],
            "promotions": [promotion.dump() for promotion in self.promotions],
            "decay_reported": dict(self.decay_reported),
            "updated_at": self.updated_at,
        }

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
        dismissed = replace(item, dismissed=True)
        self.items[self.items.index(item)] = dismissed
        self._sync_note(dismissed)
        return True

    def add_references(self, refs: dict[str, list[int]]) -> dict[str, list[int]]:
        """Record referenced rounds per item id; returns only the rounds that were new."""
        added: dict[str, list[int]] = {}
        for index, item in enumerate(self.items):
            rounds = refs.get(item.id)
            if not rounds:
                continue
            updated = item.with_references(rounds)
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
                if isinstance(note, Decision):
                    notes[index] = replace(note, decision=item.content, round=round_)
                else:
                    notes[index] = replace(note, text=item.content, round=round_)
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


def _parse(path: Path, raw: str, session_id: str) -> tuple[SessionMemory, dict[str, Any]]:
    """The memory the file's text ``raw`` describes, and the plain data it was built from."""
    try:
        data: Any = load_yaml(raw, str(path))
    except YamlLoadError as exc:
        raise CtxError(f"{exc}; fix or remove the file") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise CtxError(f"{path}: expected a mapping of session memory fields, got {type(data).__name__}")
    data.setdefault("session_id", session_id)
    try:
        return SessionMemory.from_data(data), data
    except InvalidField as exc:
        raise CtxError(f"{path}: key '{exc.key}': {exc.msg}; fix or remove the file") from None


#: path -> (the file's text, the plain data it parsed to): the dashboard reads the file on
#: every poll; reading is cheap, parsing YAML is not, and equal text is the only safe cache
#: key. Plain data, not the model: each read builds fresh models from it (the checks copy
#: every list and mapping, and never change the data they read).
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
        return SessionMemory.from_data(cached[1])
    memory, data = _parse(path, raw, session_id)
    _PARSED.put(path, (raw, data))
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
        before = memory.dump()
        fn(memory)
        after = memory.dump()
        if after == before:
            return memory
        after["updated_at"] = now_iso()
        # Check what fn produced before it reaches the disk (and normalise it, as a load would).
        memory = SessionMemory.from_data(after)
        data = memory.dump()
        text = _yaml_text(data)
        write_atomic(path, text)
        write_notes(path, text, data)
        _PARSED.put(path, (text, data))
    return memory
