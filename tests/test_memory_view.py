"""build_memory_view: persistence, dismissals, duplicates, sparse audit, tiers."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctx_tui.audit import read_events
from ctx_tui.config import Config
from ctx_tui.config_file import validate_config
from ctx_tui.errors import CtxError
from ctx_tui.memory.items import ItemType
from ctx_tui.memory.registry import dismiss_item, register_item
from ctx_tui.memory.session_store import load_session_memory, session_memory_path
from ctx_tui.memory.session_store import session_id_of
from ctx_tui.memory.view import build_memory_view
from ctx_tui.window import Session

from conftest import CLAUDE_COMPACTED, CLAUDE_SIDECHAIN, CODEX_REDACTED, fixture
from test_memory_decay import ROUNDS, write_session


@pytest.fixture
def session(tmp_path: Path) -> Session:
    s = Session(write_session(tmp_path / "chat.jsonl"), Config())
    s.poll()
    return s


def _actions(project: Path) -> list[str]:
    return [e["action"] for e in read_events(project)]


def test_extraction_is_persisted_and_audited_once(tmp_path: Path, session: Session) -> None:
    project = tmp_path / "project"
    view = build_memory_view(project, session, Config())
    sid = session_id_of(session)
    assert sid == "chat" and view.current_round == ROUNDS
    types = {i.type for i in view.extraction.added}
    assert {ItemType.GOAL, ItemType.CONSTRAINT, ItemType.USER_PREFERENCE, ItemType.DECISION} <= types
    memory = load_session_memory(project, sid)
    assert {i.id for i in memory.items} == {i.id for i in view.extraction.added}
    assert [n.text for n in memory.preferences] == ["I prefer Feishu for build notifications."]
    assert _actions(project).count("memory.extracted") == 1
    assert "memory.decayed" in _actions(project)  # the Feishu preference is 12 rounds old
    path = session_memory_path(project, sid)
    before = (path.read_bytes(), path.stat().st_mtime_ns, len(list(read_events(project))))
    again = build_memory_view(project, session, Config())
    assert again.extraction.added == ()
    assert (path.read_bytes(), path.stat().st_mtime_ns, len(list(read_events(project)))) == before
    assert [s.item.id for s in again.statuses] == [s.item.id for s in view.statuses]
    assert again.statuses == tuple(sorted(again.statuses, key=lambda s: -s.risk))


def test_decay_event_once_per_state(tmp_path: Path, session: Session) -> None:
    build_memory_view(tmp_path, session, Config(), current_round=ROUNDS)
    build_memory_view(tmp_path, session, Config(), current_round=ROUNDS)
    decays = [e for e in read_events(tmp_path) if e["action"] == "memory.decayed"]
    assert len(decays) == 1
    ids = {i["id"] for i in decays[0]["details"]["items"]}
    assert any(i.startswith("user_preference-") for i in ids)


def test_dismissed_stays_dismissed(tmp_path: Path, session: Session) -> None:
    view = build_memory_view(tmp_path, session, Config())
    pref = next(i for i in view.extraction.added if i.type is ItemType.USER_PREFERENCE)
    dismiss_item(tmp_path, view.session_id, pref.id)
    view = build_memory_view(tmp_path, session, Config())
    assert view.status(pref.id) is None and view.extraction.added == ()
    assert load_session_memory(tmp_path, view.session_id).get_item(pref.id).dismissed  # type: ignore[union-attr]
    assert "memory.dismissed" in _actions(tmp_path)
    with pytest.raises(CtxError, match="no item 'nope'"):
        dismiss_item(tmp_path, view.session_id, "nope")


def test_registered_item_is_never_duplicated_by_extraction(tmp_path: Path, session: Session) -> None:
    sid = session_id_of(session)
    item, created = register_item(
        tmp_path, sid, "migrations", ItemType.CONSTRAINT, "Always run the alembic database migrations before deploying the service", 1
    )
    assert created and item.source == "registered"
    view = build_memory_view(tmp_path, session, Config())
    constraints = [s for s in view.statuses if s.item.type is ItemType.CONSTRAINT]
    assert [s.item.id for s in constraints] == ["migrations"]
    assert len(view.extraction.duplicates) == 1
    # registering what was extracted replaces the extracted item (dismissed, not deleted)
    pref = next(s.item for s in view.statuses if s.item.type is ItemType.USER_PREFERENCE)
    register_item(tmp_path, sid, "feishu", ItemType.USER_PREFERENCE, "I prefer Feishu for build notifications", ROUNDS)
    memory = load_session_memory(tmp_path, sid)
    assert memory.get_item(pref.id).dismissed  # type: ignore[union-attr]
    assert [n.item_id for n in memory.preferences] == ["feishu"]
    # an existing id is updated, not duplicated
    _, created = register_item(tmp_path, sid, "feishu", ItemType.USER_PREFERENCE, "Use Feishu for all notifications", ROUNDS)
    assert not created
    assert [i.id for i in load_session_memory(tmp_path, sid).items].count("feishu") == 1
    registrations = [e for e in read_events(tmp_path) if e["action"] == "memory.registered"]
    assert [e["details"]["created"] for e in registrations] == [True, True, False]
    with pytest.raises(CtxError, match="invalid --id"):
        register_item(tmp_path, sid, "bad id", ItemType.NOTE, "x", 1)
    with pytest.raises(CtxError, match="invalid --id"):  # a final newline is no part of an id
        register_item(tmp_path, sid, "feishu\n", ItemType.NOTE, "x", 1)


def test_tiers(tmp_path: Path, session: Session) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n\n## Constraints\n- Never force-push\n- Keep CI green\n")
    (tmp_path / "CLAUDE.md").write_text("# Rules\n\n- Use uv for Python\n")
    view = build_memory_view(tmp_path, session, Config())
    tiers = {t.name: t for t in view.tiers}
    assert list(tiers) == ["working", "short-term", "medium-term", "long-term"]
    assert tiers["long-term"].count == 3 and tiers["long-term"].tokens > 0
    assert tiers["long-term"].items[:2] == ("Constraints: Never force-push", "Constraints: Keep CI green")
    assert "CLAUDE.md (read-only): 1 entries" in tiers["long-term"].items
    assert tiers["short-term"].count == len(session.entries)
    assert tiers["working"].count == sum(1 for s in view.statuses if not s.out_of_context)
    memory = view.memory
    expected = len(memory.goals) + len(memory.constraints) + len(memory.preferences) + len(memory.decisions)
    assert tiers["medium-term"].count == expected and tiers["medium-term"].tokens > 0
    # CLAUDE.md is only read
    assert (tmp_path / "CLAUDE.md").read_text() == "# Rules\n\n- Use uv for Python\n"


@pytest.mark.parametrize("name", [CLAUDE_COMPACTED, CLAUDE_SIDECHAIN, CODEX_REDACTED])
def test_short_term_totals_follow_a_growing_real_session(tmp_path: Path, name: str) -> None:
    """The short-term tier's running totals equal a fresh sum after every poll (compactions included)."""
    lines = fixture(name).read_bytes().splitlines(keepends=True)
    path = tmp_path / "grow.jsonl"
    path.write_bytes(b"")
    session = Session(path, Config())
    step = max(1, len(lines) // 7)
    for end in range(step, len(lines) + step, step):
        path.write_bytes(b"".join(lines[:end]))
        session.poll()
        tiers = {t.name: t for t in build_memory_view(tmp_path, session, Config()).tiers}
        main = [e for e in session.entries if not e.is_sidechain]
        assert (tiers["short-term"].count, tiers["short-term"].tokens) == (len(main), sum(e.tokens for e in main))


def test_short_term_totals_equal_a_fresh_sum_under_random_counting() -> None:
    """The running totals (uncounted entries kept as arrays) against a fresh sum: entries counted as
    they join the live window, others only after a compaction, sidechains, a replaced list."""
    import random
    from types import SimpleNamespace

    from ctx_tui.memory.tiers import _Totals

    rng = random.Random(16)
    totals = _Totals()
    for _ in range(3):  # each round a new list: the totals start again
        entries: list[SimpleNamespace] = []
        compactions = 0
        for _ in range(120):
            for _ in range(rng.randrange(0, 30)):
                entries.append(SimpleNamespace(tokens=rng.randrange(0, 500), tokens_counted=rng.random() < 0.2,
                                               is_sidechain=rng.random() < 0.1))
            live_start = rng.randrange(0, len(entries) + 1)
            for entry in entries[live_start:]:  # the live window is counted
                if not entry.tokens_counted and rng.random() < 0.5:
                    entry.tokens, entry.tokens_counted = rng.randrange(0, 500), True
            if entries and rng.random() < 0.1:  # a compaction: entries anywhere may have been counted
                compactions += 1
                for entry in rng.sample(entries, k=min(5, len(entries))):
                    if not entry.tokens_counted:
                        entry.tokens, entry.tokens_counted = rng.randrange(0, 500), True
            main = [e for e in entries if not e.is_sidechain]
            assert totals.of(entries, live_start, compactions) == (len(main), sum(e.tokens for e in main))  # type: ignore[arg-type]


def test_short_term_totals_keep_runs_not_one_slot_per_uncounted_entry() -> None:
    """A long session read at once: every entry before the live window is an estimate, held as one run."""
    from types import SimpleNamespace

    from ctx_tui.memory.tiers import _Totals

    entries = [SimpleNamespace(tokens=i % 7, tokens_counted=i >= 9_000, is_sidechain=i % 10 == 3) for i in range(10_000)]
    totals = _Totals()
    main = [e for e in entries if not e.is_sidechain]
    assert totals.of(entries, 9_000, 1) == (len(main), sum(e.tokens for e in main))  # type: ignore[arg-type]
    assert (list(totals.starts), list(totals.ends)) == ([0], [9_000])
    entries.extend(SimpleNamespace(tokens=5, tokens_counted=False, is_sidechain=False) for _ in range(3))
    assert totals.of(entries, 9_000, 1) == (len(main) + 3, sum(e.tokens for e in main) + 15)  # type: ignore[arg-type]
    assert (list(totals.starts), list(totals.ends)) == ([0, 10_000], [9_000, 10_003])


def test_memory_file_from_config(tmp_path: Path, session: Session) -> None:
    notes = tmp_path / "notes" / "MEM.md"
    notes.parent.mkdir()
    notes.write_text("## Facts\n- one\n")
    config = validate_config({"paths": {"memory_file": "notes/MEM.md"}})
    tiers = {t.name: t for t in build_memory_view(tmp_path, session, config).tiers}
    assert tiers["long-term"].location == str(notes) and tiers["long-term"].count == 1


def test_corrupt_session_memory_is_a_clear_error(tmp_path: Path, session: Session) -> None:
    path = session_memory_path(tmp_path, session_id_of(session))
    path.parent.mkdir(parents=True)
    path.write_text("items: [\n")
    with pytest.raises(CtxError, match=str(path)):
        build_memory_view(tmp_path, session, Config())
    assert path.read_text() == "items: [\n"


def test_what_if_round_ignores_later_mentions_and_logs_no_decay(tmp_path: Path, session: Session) -> None:
    at_17 = build_memory_view(tmp_path, session, Config(), current_round=17)
    pref = next(s for s in at_17.statuses if s.item.type is ItemType.USER_PREFERENCE)
    assert pref.decayed and pref.rounds_since_reference == 11  # mentioned at round 6, not yet at 18
    at_20 = build_memory_view(tmp_path, session, Config(), current_round=20)
    assert not at_20.status(pref.item.id).decayed  # type: ignore[union-attr]
    assert "memory.decayed" not in _actions(tmp_path)


def test_dismissed_registered_item_blocks_its_extraction(tmp_path: Path, session: Session) -> None:
    sid = session_id_of(session)
    register_item(tmp_path, sid, "fs", ItemType.USER_PREFERENCE, "I prefer Feishu for build notifications", 1)
    dismiss_item(tmp_path, sid, "fs")
    view = build_memory_view(tmp_path, session, Config())
    assert not any(s.item.type is ItemType.USER_PREFERENCE for s in view.statuses)


def test_nothing_to_remember_writes_no_file(tmp_path: Path) -> None:
    chat = tmp_path / "quiet.jsonl"
    chat.write_text('{"role": "user", "content": "[REDACTED_TEXT len=3]"}\n{"role": "assistant", "content": "ok"}\n')
    quiet = Session(chat, Config())
    quiet.poll()
    view = build_memory_view(tmp_path, quiet, Config())
    assert view.statuses == () and not session_memory_path(tmp_path, "quiet").exists()
    assert {t.name: t.tokens for t in view.tiers}["medium-term"] == 0


def test_a_merged_near_duplicate_updates_the_stored_wording(tmp_path: Path) -> None:
    """The later wording of an extracted fact replaces the stored one; its id and references stay."""
    import json

    path = tmp_path / "s.jsonl"

    def user(text: str, uuid: str) -> str:
        return json.dumps({"type": "user", "sessionId": "s", "uuid": uuid, "message": {"role": "user", "content": text}}) + "\n"

    path.write_text(user("Set up the staging cluster. Never deploy to production on Fridays.", "u1"))
    session = Session(path, Config())
    session.poll()
    project = tmp_path / "project"
    first = build_memory_view(project, session, Config())
    (constraint,) = [i for i in first.extraction.added if i.type is ItemType.CONSTRAINT]
    with path.open("a") as out:
        out.write(user("ok", "u2") + user("again, never deploy to production on Fridays!", "u3"))
    session.poll()
    build_memory_view(project, session, Config())
    stored = load_session_memory(project, session_id_of(session)).get_item(constraint.id)
    assert stored is not None and stored.content == "again, never deploy to production on Fridays!"
    assert 3 in stored.referenced_rounds
