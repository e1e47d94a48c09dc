"""The restatement queue file: queued once, delivered once, plain text out."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest
from actions_support import SESSION_ID, register

from ctx_tui.actions.hook_install import install_hooks
from ctx_tui.actions.restate import restate_items
from ctx_tui.actions.restate_queue import (
    HEADER,
    MAX_TEXT_CHARS,
    QueuedItem,
    enqueue,
    pending_restatements,
    queue_path,
    restatement_text,
    take_restatements,
)
from ctx_tui.audit import read_events
from ctx_tui.errors import CtxError
from ctx_tui.memory.session_store import load_session_memory


def _item(item_id: str, importance: str = "high", content: str = "Never push to main", kind: str = "constraint") -> QueuedItem:
    return QueuedItem(id=item_id, type=kind, importance=importance, content=content)


def test_same_item_twice_is_queued_once(tmp_path: Path) -> None:
    first = enqueue(tmp_path, "s1", [_item("a")])[0]
    second = enqueue(tmp_path, "s1", [_item("a")])[0]
    assert first.queued and not second.queued and second.queue_length == 1
    data = json.loads(queue_path(tmp_path, "s1").read_text())
    assert data["session_id"] == "s1" and [i["id"] for i in data["items"]] == ["a"]
    assert [i.id for i in pending_restatements(tmp_path, "s1")] == ["a"]


def test_take_empties_and_queues_are_per_session(tmp_path: Path) -> None:
    enqueue(tmp_path, "s1", [_item("a"), _item("b")])
    enqueue(tmp_path, "s2", [_item("c")])
    assert [i.id for i in take_restatements(tmp_path, "s1")] == ["a", "b"]
    assert take_restatements(tmp_path, "s1") == []
    assert [i.id for i in pending_restatements(tmp_path, "s2")] == ["c"]


def test_hostile_session_id_stays_inside_restate_dir(tmp_path: Path) -> None:
    path = queue_path(tmp_path, "../../etc/passwd")
    assert path.parent == tmp_path / ".ctx" / "restate"


def test_damaged_queue_is_kept_aside(tmp_path: Path) -> None:
    path = queue_path(tmp_path, "s1")
    path.parent.mkdir(parents=True)
    path.write_text("{half")
    assert take_restatements(tmp_path, "s1") == []
    kept = list(path.parent.glob("s1.json.damaged-*"))
    assert len(kept) == 1 and kept[0].read_text() == "{half"
    assert enqueue(tmp_path, "s1", [_item("a")])[0].queued


def _taker(args: tuple[str, str]) -> list[str]:
    project, session = args
    return [i.id for i in take_restatements(Path(project), session)]


def test_concurrent_takers_never_deliver_twice(tmp_path: Path) -> None:
    for round_ in range(2):
        ids = [f"r{round_}-{n}" for n in range(4)]
        enqueue(tmp_path, "s", [_item(i) for i in ids])
        with multiprocessing.get_context("fork").Pool(6) as pool:
            results = pool.map(_taker, [(str(tmp_path), "s")] * 6)
        delivered = [i for r in results for i in r]
        assert sorted(delivered) == sorted(ids)  # each exactly once, none lost


def test_text_is_ordered_plain_and_short() -> None:
    items = [
        _item("low", "low", "a note", "note"),
        _item("hi", "high", "\x1b[31mred\x1b[0m [bold]keep[/bold]\n# heading\n- bullet"),
        _item("mid", "medium", "decided: use SQLite", "decision"),
    ]
    text = restatement_text(items)
    lines = text.splitlines()
    assert lines[0] == HEADER and "earlier" in HEADER
    assert [l.split(")")[0] for l in lines[1:]] == ["- (constraint, high", "- (decision, medium", "- (note, low"]
    assert "\x1b" not in text and "red [bold]keep[/bold] # heading - bullet" in lines[1]
    assert restatement_text([]) == ""
    many = [_item(f"i{n}", content="x" * 590) for n in range(20)]
    long = restatement_text(many)
    assert len(long) <= MAX_TEXT_CHARS + 100 and "more queued item(s)" in long


def test_restate_queues_only_when_the_hook_is_installed(tmp_path: Path) -> None:
    """One decision for the CLI and the dashboard: queue for the hook, else hand back the text to paste."""
    register(tmp_path, "no-push", "constraint", "Never push to main without a review")
    register(tmp_path, "csv", "decision", "Export as CSV with a header row")
    copied = restate_items(tmp_path, SESSION_ID, ["csv", "no-push"], 5)
    assert not copied.hook_installed and copied.queued == (False, False) and copied.queue_length == 0
    assert copied.text.splitlines()[1:] == [
        "- (constraint, high) Never push to main without a review",
        "- (decision, medium) Export as CSV with a header row",
    ]
    assert pending_restatements(tmp_path, SESSION_ID) == [] and not queue_path(tmp_path, SESSION_ID).exists()
    memory = load_session_memory(tmp_path, SESSION_ID)
    assert memory.get_item("csv").referenced_rounds == [5] == memory.get_item("no-push").referenced_rounds  # type: ignore[union-attr]

    install_hooks(tmp_path)
    queued = restate_items(tmp_path, SESSION_ID, ["no-push", "no-push"], 6)
    assert queued.hook_installed and queued.item_ids == ("no-push",) and queued.queued == (True,)
    assert queued.text == "" and [q.id for q in pending_restatements(tmp_path, SESSION_ID)] == ["no-push"]
    assert restate_items(tmp_path, SESSION_ID, ["no-push"], 6).queued == (False,)  # already waiting

    events = [(e["action"], e["details"]["item"], e["details"]["reference_round"]) for e in read_events(tmp_path)]
    assert events == [
        ("restate.copied", "csv", 5),
        ("restate.copied", "no-push", 5),
        ("restate.queued", "no-push", 6),
        ("restate.queued", "no-push", 6),
    ]
    with pytest.raises(CtxError, match="unknown item 'nope'.*known items: no-push, csv"):
        restate_items(tmp_path, SESSION_ID, ["csv", "nope"], 7)
    assert len(list(read_events(tmp_path))) == 4  # nothing was done for csv either
