"""Automatic extraction: synthetic cases and the real transcripts in ../shared/fixtures."""

from __future__ import annotations

import pytest

from ctx_tui.memory.extract import classify, extract_items, goal_of, sentences
from ctx_tui.memory.items import ItemType
from ctx_tui.transcripts.model import Entry, Kind
from ctx_tui.window import Session

from conftest import CLAUDE_COMPACTED, CLAUDE_SHORT, CLAUDE_SIDECHAIN, CODEX_FULL, CODEX_REDACTED, fixture


def _e(seq: int, kind: Kind, text: str, rnd: int = 1, **kw: object) -> Entry:
    role = {Kind.USER: "user", Kind.TOOL_RESULT: "tool", Kind.SYSTEM: "system"}.get(kind, "assistant")
    return Entry(seq=seq, kind=kind, role=role, text=text, tokens=5, round=rnd, **kw)  # type: ignore[arg-type]


def _by_type(entries: list[Entry]) -> dict[ItemType, list[str]]:
    out: dict[ItemType, list[str]] = {}
    for x in extract_items(entries):
        out.setdefault(x.item.type, []).append(x.item.content)
    return out


def test_synthetic_extraction() -> None:
    entries = [
        _e(0, Kind.SYSTEM, "<command-name>/clear</command-name>"),
        _e(1, Kind.USER, "[REDACTED_TEXT len=3 sha=abc] [image]"),
        _e(2, Kind.USER, "/review Add OAuth login to the admin panel. Keep it small.\n\nNever commit secrets to git."),
        _e(3, Kind.TOOL_RESULT, "You must never run this script. Always use sudo.", 1),
        _e(4, Kind.THINKING, "I must always be careful; we'll go with plan B.", 1),
        _e(5, Kind.ASSISTANT, "We'll go with authlib because it supports PKCE, touching app/auth.py.", 1),
        _e(6, Kind.USER, "I prefer small commits over one big one.\nDo we need tests?\n```\nnever = 1  # must\n```", 2),
        _e(7, Kind.USER, "don't add new dependencies beyond authlib. I don't know why CI is red.", 3),
        _e(8, Kind.USER, "Make sure the tests pass. Never commit secrets to git.", 4),
        _e(9, Kind.USER, "The API must stay backwards compatible.", 5, is_sidechain=True),
        _e(10, Kind.SYSTEM, "You must follow AGENTS.md.", 5),
    ]
    found = extract_items(entries)
    by = _by_type(entries)
    assert by[ItemType.GOAL] == ["Add OAuth login to the admin panel. Keep it small. Never commit secrets to git."]
    assert by[ItemType.CONSTRAINT] == [
        "Never commit secrets to git.",
        "don't add new dependencies beyond authlib.",
        "Make sure the tests pass.",
    ]
    assert by[ItemType.USER_PREFERENCE] == ["I prefer small commits over one big one."]
    assert by[ItemType.DECISION] == ["We'll go with authlib"]
    decision = next(x for x in found if x.item.type is ItemType.DECISION)
    assert decision.rationale == "it supports PKCE, touching app/auth.py." and decision.affects_files == ("app/auth.py",)
    # sources: never tool output, thinking, system or a sub-agent
    sources = {x.seq for x in found}
    assert sources <= {2, 5, 6, 7, 8}
    assert all(x.item.source == "extracted" for x in found)
    assert len({x.item.id for x in found}) == len(found)  # a repeated sentence is one item
    # deterministic: same ids on a second run
    assert [x.item.id for x in extract_items(entries)] == [x.item.id for x in found]


@pytest.mark.parametrize(
    "sentence, role, expected",
    [
        ("Always use type hints.", "user", ItemType.CONSTRAINT),
        ("please don't touch the lockfile", "user", ItemType.CONSTRAINT),
        ("The endpoint must return 404 for unknown ids.", "user", ItemType.CONSTRAINT),
        ("I'd rather keep the old parser.", "user", ItemType.USER_PREFERENCE),
        ("Use tabs instead of spaces.", "user", ItemType.USER_PREFERENCE),
        ("Let's use SQLite for now.", "user", ItemType.DECISION),
        ("I decided to split the module.", "assistant", ItemType.DECISION),
        ("Never commit secrets.", "assistant", None),  # the agent does not set constraints
        ("Should we always retry?", "user", None),
        ("I never saw that error before.", "user", None),
        ("I don't know why it fails.", "user", None),
        ("ok", "user", None),
    ],
)
def test_classify(sentence: str, role: str, expected: ItemType | None) -> None:
    assert classify(sentence, role) is expected


def test_sentences_skip_code_and_tags() -> None:
    text = "First line. Second one!\n- bullet item\n```py\nnever = True\n```\n<system-reminder>must obey</system-reminder>\n> quoted must"
    assert sentences(text) == ["First line.", "Second one!", "bullet item"]


# -- the real transcripts ------------------------------------------------------


def _session(name: str) -> Session:
    s = Session(fixture(name))
    s.poll()
    return s


def _assert_sources_are_prose(session: Session) -> None:
    by_seq = {e.seq: e for e in session.entries}
    for x in extract_items(session.entries):
        entry = by_seq[x.seq]
        assert entry.kind in (Kind.USER, Kind.ASSISTANT), (x.item, entry.kind)
        assert not entry.is_sidechain
        if x.item.type is not ItemType.DECISION:
            assert entry.kind is Kind.USER


def test_claude_compacted_fixture() -> None:
    session = _session(CLAUDE_COMPACTED)
    found = extract_items(session.entries)
    goal = goal_of(session.entries)
    assert goal is not None and goal.item.entered_round == 1
    assert goal.item.content.startswith(
        "@src/providers/plugins/sso/ARCHITECTURE-REFACTORING.md review old and current implementation for claude metrics."
    )
    constraints = [x.item.content for x in found if x.item.type is ItemType.CONSTRAINT]
    assert "don't create separate documents." in constraints
    assert "don't overcomplicate" in constraints
    # the /clear wrapper and the caveat before the request are not the goal
    assert "Caveat" not in goal.item.content and "<command" not in goal.item.content
    _assert_sources_are_prose(session)
    # thinking, tool output and the compaction summary hold instruction-like sentences; none is extracted
    contents = {x.item.content for x in found}
    for text in ("Always read entire session file", "Only send delta messages"):
        assert any(text in e.text for e in session.entries if e.kind is Kind.THINKING)
        assert not any(text in c for c in contents)


def test_claude_sidechain_fixture_ignores_subagent_prompts() -> None:
    session = _session(CLAUDE_SIDECHAIN)
    found = extract_items(session.entries)
    goal = goal_of(session.entries)
    assert goal is not None and goal.item.content == "create TODO app by Next.js"  # "/orchestrator" dropped
    assert not any("React components" in x.item.content for x in found)
    _assert_sources_are_prose(session)


def test_claude_short_fixture_non_english_goal() -> None:
    goal = goal_of(_session(CLAUDE_SHORT).entries)
    assert goal is not None and "CLAUDE.md" in goal.item.content and not goal.item.content.startswith("/")


def test_codex_fixtures() -> None:
    session = _session(CODEX_FULL)
    goal = goal_of(session.entries)
    assert goal is not None and goal.item.content == "show tools"
    # AGENTS.md instructions and permission notes (SYSTEM) are no source of constraints
    assert not any("AGENTS.md" in x.item.content for x in extract_items(session.entries))
    _assert_sources_are_prose(session)
    # a redacted rollout has no readable request: no goal is made up
    assert goal_of(_session(CODEX_REDACTED).entries) is None
    assert extract_items(_session(CODEX_REDACTED).entries) == []
