"""Tracked items and the session memory file (the medium-term tier)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctx_tui.errors import CtxError
from ctx_tui.memory.fields import InvalidField
from ctx_tui.memory.items import (
    Importance,
    ItemType,
    TrackedItem,
    extracted_item_id,
    importance_for,
    parse_item_type,
)
from ctx_tui.memory.session_store import (
    Decision,
    Promotion,
    load_session_memory,
    session_memory_path,
    update_session_memory,
)


def test_importance_follows_the_type() -> None:
    assert {t for t in ItemType if importance_for(t) is Importance.HIGH} == {
        ItemType.GOAL,
        ItemType.CONSTRAINT,
        ItemType.USER_PREFERENCE,
        ItemType.CRITICAL_INFO,
    }
    assert {t for t in ItemType if importance_for(t) is Importance.MEDIUM} == {
        ItemType.DECISION,
        ItemType.STATE,
        ItemType.PROGRESS,
    }
    assert importance_for("finding") is Importance.LOW
    assert importance_for(ItemType.NOTE) is Importance.LOW


def test_item_defaults_importance_from_type_and_sorts_rounds() -> None:
    item = TrackedItem(id="pref", type="user_preference", content="Use Feishu", referenced_rounds=[5, 2, 5, 0])
    assert item.importance is Importance.HIGH
    assert item.referenced_rounds == [2, 5]
    assert item.last_seen_round == 5
    assert item.source == "registered" and not item.dismissed
    assert TrackedItem(id="x", type="note", content="n", importance="high").importance is Importance.HIGH


def test_unknown_type_lists_the_known_ones() -> None:
    with pytest.raises(CtxError) as info:
        parse_item_type("wish")
    assert "wish" in str(info.value) and "user_preference" in str(info.value)
    assert parse_item_type("User-Preference") is ItemType.USER_PREFERENCE


@pytest.mark.parametrize("bad", ["", "a b", "../x", "-lead", "x" * 81])
def test_bad_ids_are_refused(bad: str) -> None:
    with pytest.raises(InvalidField):
        TrackedItem(id=bad, type="goal", content="c")


def test_extracted_ids_are_stable_across_spacing_and_case() -> None:
    assert extracted_item_id("constraint", "Never push to main.") == extracted_item_id(
        ItemType.CONSTRAINT, "never  push to MAIN"
    )
    assert extracted_item_id("constraint", "a") != extracted_item_id("decision", "a")


def test_session_memory_round_trip_and_mirrored_notes(tmp_path: Path) -> None:
    def fill(memory):  # type: ignore[no-untyped-def]
        memory.upsert_item(TrackedItem(id="c1", type="constraint", content="never push", entered_round=2))
        memory.upsert_item(TrackedItem(id="d1", type="decision", content="use sqlite"))
        memory.decisions[0].rationale = "one file"
        memory.promotions.append(Promotion(item_id="c1", type="constraint", content="never push"))

    update_session_memory(tmp_path, "sess-1", fill)
    memory = load_session_memory(tmp_path, "sess-1")
    assert [n.text for n in memory.constraints] == ["never push"]
    assert memory.constraints[0].round == 2
    assert memory.decisions == [Decision(decision="use sqlite", rationale="one file", item_id="d1", created_at=memory.decisions[0].created_at)]
    assert [p.item_id for p in memory.pending_promotions()] == ["c1"]

    # Updating an id replaces it (no duplicate), keeps references and the decision's rationale.
    def update(memory):  # type: ignore[no-untyped-def]
        memory.add_references({"d1": [4, 6]})
        assert memory.upsert_item(TrackedItem(id="d1", type="decision", content="use sqlite with WAL")) is False

    memory = update_session_memory(tmp_path, "sess-1", update)
    assert [i.id for i in memory.items] == ["c1", "d1"]
    assert memory.get_item("d1").referenced_rounds == [4, 6]  # type: ignore[union-attr]
    assert [(d.decision, d.rationale) for d in memory.decisions] == [("use sqlite with WAL", "one file")]

    memory = update_session_memory(tmp_path, "sess-1", lambda m: m.dismiss("c1"))
    assert memory.constraints == [] and memory.get_item("c1").dismissed  # type: ignore[union-attr]
    assert [i.id for i in memory.active_items()] == ["d1"]


def test_type_change_moves_the_note(tmp_path: Path) -> None:
    def fill(memory):  # type: ignore[no-untyped-def]
        memory.upsert_item(TrackedItem(id="x", type="goal", content="ship it"))
        memory.upsert_item(TrackedItem(id="x", type="finding", content="ship it"))

    memory = update_session_memory(tmp_path, "s", fill)
    assert memory.goals == [] and [n.text for n in memory.findings] == ["ship it"]


def test_session_id_is_sanitised(tmp_path: Path) -> None:
    path = session_memory_path(tmp_path, "../../etc/passwd")
    assert path.parent == tmp_path / ".ctx" / "sessions"
    assert ".." not in path.name


def test_missing_file_is_an_empty_memory(tmp_path: Path) -> None:
    memory = load_session_memory(tmp_path, "nothing-yet")
    assert memory.session_id == "nothing-yet" and memory.items == []


@pytest.mark.parametrize(
    "content, expected",
    [
        ("items: [unclosed\n", "invalid YAML"),
        ("- a\n- b\n", "expected a mapping"),
        ("items:\n  - {id: a, type: wish, content: x}\n", "items.0.type"),
        ("colour: blue\n", "colour"),
    ],
)
def test_bad_session_file_names_the_file(tmp_path: Path, content: str, expected: str) -> None:
    path = session_memory_path(tmp_path, "s")
    path.parent.mkdir(parents=True)
    path.write_text(content)
    with pytest.raises(CtxError) as info:
        load_session_memory(tmp_path, "s")
    assert str(path) in str(info.value) and expected in str(info.value)
    # a failed update leaves the file as it was
    with pytest.raises(CtxError):
        update_session_memory(tmp_path, "s", lambda m: None)
    assert path.read_text() == content


def test_concurrent_updates_lose_nothing(tmp_path: Path) -> None:
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_add_items, args=(tmp_path, n)) for n in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    assert all(p.exitcode == 0 for p in procs)
    ids = {i.id for i in load_session_memory(tmp_path, "shared").items}
    assert ids == {f"p{n}-{k}" for n in range(4) for k in range(10)}


def _add_items(project: Path, n: int) -> None:
    for k in range(10):
        item = TrackedItem(id=f"p{n}-{k}", type="note", content=f"note {n} {k}")
        update_session_memory(project, "shared", lambda m, item=item: m.upsert_item(item))


def test_a_changed_file_is_read_again_even_at_the_same_size(tmp_path: Path) -> None:
    update_session_memory(tmp_path, "s", lambda m: m.upsert_item(TrackedItem(id="a1", type="note", content="aaaa")))
    path = session_memory_path(tmp_path, "s")
    assert load_session_memory(tmp_path, "s").get_item("a1") is not None
    text = path.read_text()
    path.write_text(text.replace("a1", "b2").replace("aaaa", "bbbb"))  # same size, same inode
    memory = load_session_memory(tmp_path, "s")
    assert memory.get_item("a1") is None and memory.get_item("b2").content == "bbbb"  # type: ignore[union-attr]
    # what a caller changes on a loaded copy never leaks into the next load
    memory.items.clear()
    assert load_session_memory(tmp_path, "s").get_item("b2") is not None


def test_no_reference_before_the_round_an_item_entered(tmp_path: Path) -> None:
    # a file written before the fix: references from before the item existed are dropped on load
    item = TrackedItem(id="x", type="constraint", content="Never push", entered_round=14, referenced_rounds=[1, 13, 14, 16])
    assert item.referenced_rounds == [16]
    assert item.with_references([3, 14, 20]).referenced_rounds == [16, 20]

    def add(memory) -> None:  # type: ignore[no-untyped-def]
        memory.upsert_item(item)
        assert memory.add_references({"x": [2, 14]}) == {}  # nothing new: no audit-worthy rounds
        assert memory.add_references({"x": [2, 17]}) == {"x": [17]}

    memory = update_session_memory(tmp_path, "s", add)
    assert memory.get_item("x").referenced_rounds == [16, 17]  # type: ignore[union-attr]
    # re-registered with another meaning (entered again in round 18): the old references are not its own
    moved = TrackedItem(id="x", type="constraint", content="Never force-push", entered_round=18)
    memory = update_session_memory(tmp_path, "s", lambda m: m.upsert_item(moved))
    assert memory.get_item("x").referenced_rounds == []  # type: ignore[union-attr]
