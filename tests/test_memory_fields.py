"""The session memory's models without pydantic: what a file may hold, the errors, the text written.

The models check their fields themselves (ctx_tui/memory/fields.py). These
tests pin what a file read before the change still gives: the coercions kept
on purpose (and those refused), the key path and message of each error, the
YAML written (byte for byte), and that reading and writing a session memory
imports no pydantic.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CLAUDE_COMPACTED, fixture
from ctx_tui.errors import CtxError
from ctx_tui.memory import session_store
from ctx_tui.memory.fields import InvalidField
from ctx_tui.memory.items import MAX_REFERENCED_ROUNDS, Importance, ItemType, TrackedItem
from ctx_tui.memory.session_store import (
    Decision,
    Note,
    Promotion,
    SavedSummary,
    SessionMemory,
    load_session_memory,
    session_memory_path,
    update_session_memory,
)

ITEM = {"id": "a1", "type": "goal", "content": "Ship the importer"}


def _load(tmp_path: Path, text: str) -> SessionMemory:
    path = session_memory_path(tmp_path, "s")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return load_session_memory(tmp_path, "s")


def _item_file(**fields: object) -> str:
    return yaml.safe_dump({"items": [{**ITEM, **fields}]})


# -- what a file may hold ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({"entered_round": "3"}, {"entered_round": 3}),  # a number quoted by hand (pydantic read it)
        ({"entered_round": " 4 "}, {"entered_round": 4}),
        ({"entered_round": "1_000"}, {"entered_round": 1000}),
        ({"entered_round": "7.0"}, {"entered_round": 7}),
        ({"entered_round": 3.0}, {"entered_round": 3}),
        ({"referenced_rounds": ["5", 2.0, 5, 0]}, {"referenced_rounds": [2, 5]}),
        ({"importance": None}, {"importance": Importance.HIGH}),  # left out: the type's
        ({"importance": ""}, {"importance": Importance.HIGH}),
        ({"importance": "low"}, {"importance": Importance.LOW}),
        ({"dismissed": "yes"}, {"dismissed": True}),
        ({"dismissed": 0}, {"dismissed": False}),
        ({"type": "user_preference"}, {"type": ItemType.USER_PREFERENCE, "importance": Importance.HIGH}),
    ],
)
def test_values_a_file_may_hold(tmp_path: Path, fields: dict[str, object], expected: dict[str, object]) -> None:
    item = _load(tmp_path, _item_file(**fields)).items[0]
    assert {key: getattr(item, key) for key in expected} == expected
    assert type(item.entered_round) is int and all(type(r) is int for r in item.referenced_rounds)


@pytest.mark.parametrize(
    "text, key, message",
    [
        (_item_file(type="Goal"), "items.0.type", "Input should be 'goal', 'constraint', "),
        (_item_file(importance="High"), "items.0.importance", "Input should be 'high', 'medium' or 'low'"),
        (_item_file(content=""), "items.0.content", "String should have at least 1 character"),
        (_item_file(content=12), "items.0.content", "Input should be a valid string"),
        (_item_file(entered_round=-1), "items.0.entered_round", "Input should be greater than or equal to 0"),
        (_item_file(entered_round=2.5), "items.0.entered_round", "with a fractional part"),
        (_item_file(entered_round="3.5"), "items.0.entered_round", "unable to parse string as an integer"),
        # int() refuses text of over 4,300 digits with a ValueError: still a bad field, not an internal error
        (_item_file(entered_round="9" * 5000), "items.0.entered_round", "Unable to parse input string as an integer, exceeded maximum size"),
        (_item_file(referenced_rounds=["1" * 5000]), "items.0.referenced_rounds.0", "exceeded maximum size"),
        ("goals:\n  - {text: g, round: '%s'}\n" % ("7" * 5000), "goals.0.round", "exceeded maximum size"),
        ("items:\n  - {id: a1, type: goal, content: x, entered_round: .inf}\n", "items.0.entered_round", "Input should be a finite number"),
        ("items:\n  - {id: a1, type: goal, content: x, referenced_rounds: [.nan]}\n", "items.0.referenced_rounds.0", "Input should be a finite number"),
        # refused on purpose where pydantic took them: a flag as a round, a set as a list, bytes as text
        (_item_file(entered_round=True), "items.0.entered_round", "Input should be a valid integer"),
        ("items:\n  - {id: a1, type: goal, content: x, referenced_rounds: !!set {1: null}}\n", "items.0.referenced_rounds", "valid list"),
        ("items:\n  - {id: a1, type: goal, content: !!binary aGk=}\n", "items.0.content", "valid string"),
        (_item_file(referenced_rounds=[1, "x"]), "items.0.referenced_rounds.1", "unable to parse string"),
        (_item_file(dismissed=2), "items.0.dismissed", "Input should be a valid boolean"),
        (_item_file(source="Registered"), "items.0.source", "Input should be 'registered' or 'extracted'"),
        (_item_file(id="../etc"), "items.0.id", "an item id is 1-80 characters"),
        (_item_file(id="a1\n"), "items.0.id", "an item id is 1-80 characters"),  # '$' took a final newline
        (_item_file(colour="blue"), "items.0.colour", "Extra inputs are not permitted"),
        (_item_file(colour="blue", type="wish"), "items.0.type", "Input should be"),  # a known field first
        ("items:\n  - {id: a1, type: goal}\n", "items.0.content", "Field required"),
        ("items:\n  - just text\n", "items.0", "Input should be a valid dictionary or instance of TrackedItem"),
        ("items: {a: 1}\n", "items", "Input should be a valid list"),
        ("goals:\n  - {text: g, round: x}\n", "goals.0.round", "unable to parse string"),
        ("decisions:\n  - {decision: d, affects_files: [a.py, 3]}\n", "decisions.0.affects_files.1", "valid string"),
        ("summaries:\n  - {strategy: s, text: t, figures: {kept: [1]}}\n", "summaries.0.figures.kept", "valid number or string"),
        ("promotions:\n  - {item_id: a, type: goal, content: c, status: done}\n", "promotions.0.status", "'pending', 'approved' or 'rejected'"),
        ("decay_reported: {a1: 3}\n", "decay_reported.a1", "valid string"),
        ("decay_reported: {1: flagged}\n", "decay_reported.1.[key]", "valid string"),
        ("session_id: 5\n", "session_id", "valid string"),
    ],
)
def test_a_bad_value_names_its_key(tmp_path: Path, text: str, key: str, message: str) -> None:
    with pytest.raises(CtxError) as info:
        _load(tmp_path, text)
    report = str(info.value)
    assert f"key '{key}': " in report and message in report and report.endswith("; fix or remove the file")
    assert "\n" not in report


def test_code_builds_items_through_the_same_checks() -> None:
    item = TrackedItem(id="x", type="constraint", content="Never push", entered_round=14, referenced_rounds=[1, 20, 14, 20])
    assert item.type is ItemType.CONSTRAINT and item.importance is Importance.HIGH and item.referenced_rounds == [20]
    assert replace(item, referenced_rounds=list(range(100))).referenced_rounds == list(range(50, 100))[-MAX_REFERENCED_ROUNDS:]
    with pytest.raises(InvalidField) as info:
        replace(item, content="")
    assert info.value.key == "content"
    with pytest.raises(InvalidField):
        Promotion(item_id="x", type="wish", content="c")  # type: ignore[arg-type]
    assert Promotion(item_id="x", type=ItemType.GOAL, content="c").status == "pending"
    # a str subclass (a kind's value given for text) is stored as a plain str
    assert type(SavedSummary(strategy=ItemType.NOTE, text="t").strategy) is str  # type: ignore[arg-type]


# -- the text written ------------------------------------------------------------------------------

WRITTEN = """\
session_id: s
items:
- id: c1
  type: constraint
  content: Never push to main — ask first
  importance: high
  entered_round: 2
  referenced_rounds:
  - 4
  - 9
  source: registered
  dismissed: false
  created_at: '2026-01-02T03:04:05+00:00'
goals: []
decisions:
- decision: Use SQLite
  rationale: one file
  affects_files:
  - db.py
  round: null
  item_id: null
  created_at: '2026-01-02T03:04:05+00:00'
constraints:
- text: Never push to main — ask first
  round: 2
  item_id: c1
  created_at: '2026-01-02T03:04:05+00:00'
preferences: []
findings: []
progress: []
summaries:
- created_at: '2026-01-02T03:04:05+00:00'
  strategy: structured
  text: kept
  figures:
    originalLength: 900
    retentionRate: 0.25
    duration: 12 ms
promotions:
- item_id: c1
  type: constraint
  content: Never push to main — ask first
  status: pending
  proposed_at: '2026-01-02T03:04:05+00:00'
  decided_at: null
  reason: manual
  written_at: null
  written_to: null
decay_reported:
  c1: fresh
updated_at: '2026-01-02T03:04:05+00:00'
"""


def test_the_file_written_keeps_every_field_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Byte for byte what the pydantic models wrote for the same memory (nulls and empty lists included)."""
    when = "2026-01-02T03:04:05+00:00"
    monkeypatch.setattr(session_store, "now_iso", lambda: when)

    def fill(memory: SessionMemory) -> None:
        memory.upsert_item(TrackedItem(id="c1", type=ItemType.CONSTRAINT, content="Never push to main — ask first", entered_round=2, created_at=when))
        memory.add_references({"c1": [9, 4, 1]})
        memory.constraints[0].created_at = when
        memory.decisions.append(Decision(decision="Use SQLite", rationale="one file", affects_files=["db.py"], created_at=when))
        memory.summaries.append(SavedSummary(created_at=when, strategy="structured", text="kept", figures={"originalLength": 900, "retentionRate": 0.25, "duration": "12 ms"}))
        memory.promotions.append(Promotion(item_id="c1", type=ItemType.CONSTRAINT, content="Never push to main — ask first", reason="manual", proposed_at=when))
        memory.decay_reported["c1"] = "fresh"

    memory = update_session_memory(tmp_path, "s", fill)
    assert session_memory_path(tmp_path, "s").read_text(encoding="utf-8") == WRITTEN
    session_store._PARSED.clear()
    assert load_session_memory(tmp_path, "s") == memory
    assert memory.dump() == yaml.safe_load(WRITTEN)


# -- any file --------------------------------------------------------------------------------------

_values = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 60), st.floats(allow_nan=False), st.sampled_from(["", "3", "goal", "high", "x y", "extracted"]),
    st.lists(st.integers(-2, 70), max_size=4), st.lists(st.sampled_from(["1", "a"]), max_size=2), st.dictionaries(st.sampled_from(["k", "1"]), st.integers(), max_size=2),
)
_fields = ["id", "type", "content", "importance", "entered_round", "referenced_rounds", "source", "dismissed", "created_at", "extra"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.dictionaries(st.sampled_from(_fields), _values, max_size=6).map(lambda d: {**ITEM, **d}), max_size=4))
def test_any_item_file_loads_or_is_a_clear_error_and_saves_as_it_loads(tmp_path: Path, items: list[dict[str, object]]) -> None:
    session_store._PARSED.clear()
    try:
        memory = _load(tmp_path, yaml.safe_dump({"items": items}))
    except CtxError as exc:
        assert "fix or remove the file" in str(exc)
        return
    assert len(memory.items) == len(items)
    # what was read is written back as read (normalised once), and reads back the same
    saved = update_session_memory(tmp_path, "s", lambda m: m.decay_reported.update(x="y"))
    session_store._PARSED.clear()
    assert load_session_memory(tmp_path, "s") == saved
    assert [i.dump() for i in saved.items] == [i.dump() for i in memory.items]


# -- no pydantic ----------------------------------------------------------------------------------

_NO_PYDANTIC = """
import sys
from pathlib import Path
from ctx_tui.actions.hooks import save_window_summary
from ctx_tui.config import Config
from ctx_tui.memory.items import ItemType
from ctx_tui.memory.registry import dismiss_item, register_item
from ctx_tui.memory.session_store import load_session_memory, session_id_of, update_session_memory
from ctx_tui.window import Session
project, transcript = Path(sys.argv[1]), Path(sys.argv[2])
session = Session(transcript, Config())
session.poll()
sid = session_id_of(session)
register_item(project, sid, "no-push", ItemType.CONSTRAINT, "Never push to main", 3)
register_item(project, sid, "csv", ItemType.DECISION, "Export as CSV", 4)
update_session_memory(project, sid, lambda m: m.add_references({"no-push": [5]}))
dismiss_item(project, sid, "csv")
# the pre-compact job's work (extraction, references, a saved summary) on a file with items
assert save_window_summary(project, sid, transcript, Config()) is not None
memory = load_session_memory(project, sid)
assert memory.items[0].id == "no-push" and len(memory.items) > 2 and len(memory.summaries) == 1
print(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core")))
"""


def test_reading_and_writing_a_session_memory_imports_no_pydantic(tmp_path: Path) -> None:
    """With no config file, the session memory is read, checked, changed and saved without pydantic."""
    transcript = fixture(CLAUDE_COMPACTED)
    done = subprocess.run([sys.executable, "-c", _NO_PYDANTIC, str(tmp_path), str(transcript)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
