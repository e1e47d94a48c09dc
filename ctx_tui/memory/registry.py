"""Registering and dismissing tracked items (``ctx-tui register``, the dashboard).

Registration is by id: an existing id is updated, never duplicated. A
registered item wins over an extracted one with the same meaning: the
extracted one is dismissed (it stays in the file, so extraction does not
bring it back). Every change is written to the audit log.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from ctx_tui import audit
from ctx_tui.errors import CtxError
from ctx_tui.memory.fields import InvalidField
from ctx_tui.memory.items import ItemType, TrackedItem, importance_for, normalise_content
from ctx_tui.memory.session_store import SessionMemory, update_session_memory
from ctx_tui.mentions import term_keys

#: Two items mean the same when this share of their key terms is common (Jaccard).
SAME_MEANING = 0.8


def same_meaning(a: str, b: str) -> bool:
    if normalise_content(a) == normalise_content(b):
        return True
    ta, tb = term_keys(a), term_keys(b)
    return bool(ta and tb) and len(ta & tb) / len(ta | tb) >= SAME_MEANING


#: Words a generated id leaves out: they say nothing about which item it is.
_ID_STOP = frozenset("a an the to of in on for and or but is are be it this that with by at as from".split())
#: Words taken from the content for a generated id.
ID_WORDS = 4


def new_item_id(content: str, taken: Iterable[str] = ()) -> str:
    """An id for a new registered item, made from its first words (``never-push-main``), unique among ``taken``.

    People never type or see ids; they only have to be valid, stable and unique.
    """
    ascii_text = unicodedata.normalize("NFKD", content.casefold()).encode("ascii", "ignore").decode()
    words = [w for w in re.findall(r"[a-z0-9]+", ascii_text) if w not in _ID_STOP][:ID_WORDS]
    base = "-".join(words)[:60].strip("-") or "item"
    taken = set(taken)
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def registered_duplicate(memory: SessionMemory, content: str) -> TrackedItem | None:
    """A registered item (dismissed ones too: the user chose) that means the same as ``content``."""
    return next(
        (i for i in memory.items if i.source == "registered" and same_meaning(i.content, content)),
        None,
    )


def register_item(
    project: Path, session_id: str, item_id: str, item_type: ItemType, content: str, current_round: int
) -> tuple[TrackedItem, bool]:
    """Add or update a registered item; returns it and whether it is new."""
    content = " ".join(content.split())
    if not content:
        raise CtxError("--content is empty: say what the agent must not forget")
    try:
        item = TrackedItem(
            id=item_id, type=item_type, content=content, importance=importance_for(item_type), entered_round=max(0, current_round)
        )
    except InvalidField as exc:
        raise CtxError(f"invalid --{exc.key}: {exc.msg}") from None
    outcome: dict[str, object] = {}

    def apply(memory: SessionMemory) -> None:
        old = memory.get_item(item_id)
        new_item = item
        if old is not None:
            # an update keeps when the item entered, unless its meaning changed
            if same_meaning(old.content, content):
                new_item = replace(item, entered_round=old.entered_round, created_at=old.created_at)
        outcome["created"] = memory.upsert_item(new_item)
        shadowed = [
            i.id
            for i in memory.items
            if i.source == "extracted" and not i.dismissed and i.id != item_id and same_meaning(i.content, content)
        ]
        for other in shadowed:
            memory.dismiss(other)
        outcome["item"] = memory.get_item(item_id)
        outcome["shadowed"] = shadowed

    update_session_memory(project, session_id, apply)
    saved = outcome["item"]
    assert isinstance(saved, TrackedItem)
    audit.record(
        project,
        "memory.registered",
        session=session_id,
        item_id=saved.id,
        type=saved.type.value,
        importance=saved.importance.value,
        content=saved.content,
        created=outcome["created"],
        replaces_extracted=outcome["shadowed"],
        round=current_round,
    )
    return saved, bool(outcome["created"])


def dismiss_item(project: Path, session_id: str, item_id: str) -> TrackedItem:
    """Dismiss an item (extracted or registered); it stays dismissed."""
    found: dict[str, TrackedItem] = {}

    def apply(memory: SessionMemory) -> None:
        if not memory.dismiss(item_id):
            known = ", ".join(i.id for i in memory.active_items()) or "none"
            raise CtxError(f"no item {item_id!r} in session {session_id}; known items: {known}")
        item = memory.get_item(item_id)
        assert item is not None
        found["item"] = item

    update_session_memory(project, session_id, apply)
    item = found["item"]
    audit.record(project, "memory.dismissed", session=session_id, item_id=item.id, type=item.type.value, source=item.source)
    return item
