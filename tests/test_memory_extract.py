"""Automatic extraction: synthetic cases and the real transcripts in ../shared/fixtures."""

from __future__ import annotations

import json

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
    # the goal is the ask; the rule after it is a constraint of its own
    assert by[ItemType.GOAL] == ["Add OAuth login to the admin panel. Keep it small."]
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
        if x.item.type is ItemType.PROGRESS:
            assert entry.kind is Kind.TOOL_CALL and entry.tool_name in ("TodoWrite", "update_plan")
            continue
        if entry.kind in (Kind.TOOL_CALL, Kind.TOOL_RESULT):  # a plan to approve, the user's answers
            assert x.item.type is ItemType.DECISION and entry.tool_name in ("ExitPlanMode", "AskUserQuestion")
            continue
        assert entry.kind in (Kind.USER, Kind.ASSISTANT), (x.item, entry.kind)
        assert not entry.is_sidechain
        if x.item.type is not ItemType.DECISION:
            assert entry.kind is Kind.USER


def test_claude_compacted_fixture() -> None:
    session = _session(CLAUDE_COMPACTED)
    found = extract_items(session.entries)
    goal = goal_of(session.entries)
    assert goal is not None and goal.item.entered_round == 1
    # the file-mention preamble and the trailing "ultrathink" are no part of the ask
    assert goal.item.content.startswith("review old and current implementation for claude metrics.")
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
    # "show tools" is a probe, not the session's task: the goal is the first substantive prompt
    assert goal is not None and goal.item.content == "let's update the defailt context compart to 90 in env var"
    # AGENTS.md instructions and permission notes (SYSTEM) are no source of constraints
    assert not any("AGENTS.md" in x.item.content for x in extract_items(session.entries))
    _assert_sources_are_prose(session)
    # a redacted rollout has no readable request: no goal is made up
    assert goal_of(_session(CODEX_REDACTED).entries) is None
    assert extract_items(_session(CODEX_REDACTED).entries) == []


# -- issue 12: what people actually state ------------------------------------------


@pytest.mark.parametrize(
    "sentence, role, expected",
    [
        ("important not to commit changes until final step", "user", ItemType.CONSTRAINT),
        ("Important: never push to the release branch on Fridays.", "user", ItemType.CONSTRAINT),
        ("Also: Never log the raw tokens.", "user", ItemType.CONSTRAINT),
        ("Also, never log the raw tokens.", "user", ItemType.CONSTRAINT),
        ("great, but keep in mind that the new file lands in the same folder", "user", ItemType.CONSTRAINT),
        ("TODO is not acceptable, implementation must be full.", "user", ItemType.CONSTRAINT),
        ("the orchestrator must not be agent specific", "user", ItemType.CONSTRAINT),
        ("Decided: we pin numpy to 1.26 for the training image.", "user", ItemType.DECISION),
        ("We'll pin the base image to alpine 3.19.", "assistant", ItemType.DECISION),
        ("Let's store the feature flags in Redis.", "user", ItemType.DECISION),
        ("Let's store the feature flags in Redis.", "assistant", ItemType.DECISION),
        ("Make the DAG retries three instead of one.", "user", ItemType.DECISION),
        ("put them in single table for better readability", "user", ItemType.USER_PREFERENCE),
        ("Let's run the tests first.", "assistant", None),  # an action, not a choice
        ("I'll use the Explore agent to analyze the repository.", "assistant", None),
        ("We never got a reply from the vendor?", "user", None),
        ("ok, that should work now, thanks", "user", None),
        ("Let's wrap up with a summary.", "assistant", None),
    ],
)
def test_classify_real_phrasings(sentence: str, role: str, expected: ItemType | None) -> None:
    assert classify(sentence, role) is expected


def test_assistant_decision_structure() -> None:
    text = (
        "## Options\n\n### Approach 1: Polling\n**Approach:** poll the folder every 5 s\n\n"
        "### Approach 2: Watching\n**Approach:** use inotify\n\n"
        "## Recommended Design: Approach 2 (inotify watcher)\n\n"
        "**✓ Technical Decisions**\n- Object-based watermarking (track record IDs)\n- Timestamp-based prompt correlation\n\n"
        "**Solution**: keep one state file per session because the sync reads it incrementally\n"
        "### Alternative: hash every file\n**Design:** hash all files on each pass\n"
    )
    entries = [_e(0, Kind.USER, "Design the session sync for the CLI."), _e(1, Kind.ASSISTANT, text)]
    decisions = [x for x in extract_items(entries) if x.item.type is ItemType.DECISION]
    assert [d.item.content for d in decisions] == [
        "Approach 2 (inotify watcher)",
        "Object-based watermarking (track record IDs)",
        "Timestamp-based prompt correlation",
        "keep one state file per session",
    ]
    assert decisions[-1].rationale == "the sync reads it incrementally"


def test_approval_names_the_option() -> None:
    entries = [
        _e(0, Kind.USER, "Pick a queue for the ingest pipeline."),
        _e(1, Kind.ASSISTANT, "Two ways:\n1. Option 1: Kafka with 3 partitions\n2. Option 2: SQS FIFO queue per tenant\nWhich one?"),
        _e(2, Kind.USER, "yes, go with option 2", 2),
    ]
    decisions = [x.item for x in extract_items(entries) if x.item.type is ItemType.DECISION]
    assert [(d.content, d.entered_round) for d in decisions] == [("Option 2: SQS FIFO queue per tenant", 2)]


@pytest.mark.parametrize(
    "prompt, goal",
    [
        ("ultrathink there is logic that syncs files. there is a case when /clear starts a new file. there is a need to plan how to track it",
         "there is a need to plan how to track it"),
        ('@"solution-architect (agent)" analyze the CLI and write a spec', "analyze the CLI and write a spec"),
        ("@src/app.py review the parser. ultrathink", "review the parser"),
        ("# Context from my IDE setup:\n\n## Active file: a.py\n\n## My request for Codex:\nadd retries to the uploader",
         "add retries to the uploader"),
        ("/orchestrator @CLAUDE.md を最新の状態にアップデートしてください", "CLAUDE.md を最新の状態にアップデートしてください"),
        ("Bitte füge dem Exporter einen Streaming-Modus hinzu.", "Bitte füge dem Exporter einen Streaming-Modus hinzu."),
        ("给训练脚本加上断点续训功能", "给训练脚本加上断点续训功能"),
    ],
)
def test_goal_is_the_actual_ask(prompt: str, goal: str) -> None:
    found = goal_of([_e(0, Kind.USER, prompt)])
    assert found is not None and found.item.content == goal


def test_goal_skips_probes_and_noise_and_follows_a_redirect() -> None:
    entries = [
        _e(0, Kind.USER, "[trimmed for fixture]"),
        _e(1, Kind.USER, "show tools"),
        _e(2, Kind.USER, "hi", 2),
        _e(3, Kind.USER, "Build the nightly export job for the billing data.", 3),
        _e(4, Kind.USER, "Actually, migrate the export to the new warehouse first.", 4),
    ]
    goals = [(x.item.content, x.item.entered_round) for x in extract_items(entries) if x.item.type is ItemType.GOAL]
    assert goals == [("Build the nightly export job for the billing data.", 3), ("migrate the export to the new warehouse first.", 4)]


def test_the_session_goal_and_the_task_in_hand() -> None:
    entries = [
        _e(0, Kind.USER, "why does brew say it is up to date"),
        _e(1, Kind.USER, "fix the brew and npm confusion, I only want one install", 2),
        _e(2, Kind.ASSISTANT, "Done. Only the Homebrew install is left.", 2),
        _e(3, Kind.USER, "verify", 3),
        _e(4, Kind.USER, "yes, go ahead and clean the download cache", 4),
        _e(5, Kind.USER, "tell me more about the brew cask lag", 5),
        _e(6, Kind.USER, "install the WARP Zero Trust client", 6),
        _e(7, Kind.USER, "Never expose port 22 to the internet.", 7),
        _e(8, Kind.USER, "can you set up a tunnel to the home server too?", 8),
        _e(9, Kind.ASSISTANT, "Two ways: 1. a Cloudflare tunnel 2. Tailscale. Which approach do you prefer?", 8),
        _e(10, Kind.USER, "can we use Tailscale with key-only auth", 9),
    ]
    found = extract_items(entries)
    goals = [(x.item.content, x.item.entered_round, x.item.referenced_rounds) for x in found if x.item.type is ItemType.GOAL]
    # the first task is the session's goal; each later one (no reply, rule or question) the task in hand,
    # one item whose wording follows the latest task, each new task a reference
    assert goals == [
        ("fix the brew and npm confusion, I only want one install", 2, []),
        ("can you set up a tunnel to the home server too?", 6, [8]),
    ]
    decisions = [x.item.content for x in found if x.item.type is ItemType.DECISION]
    assert decisions == ["can we use Tailscale with key-only auth"]  # the way picked, not a new task


def test_the_users_picks_and_the_agents_own_choices_are_decisions() -> None:
    menu = "### 7. Window API\n- A) Accessibility API\n- B) Private APIs\n- C) Hybrid\n\n**Recommended: Option C (Hybrid)**"
    entries = [
        _e(0, Kind.USER, "Build a tiling window manager for macOS."),
        _e(1, Kind.ASSISTANT, menu),
        _e(2, Kind.USER, "7. C sounds best. What does AeroSpace use? Option 1 is fine too", 2),
        _e(3, Kind.ASSISTANT, "There's a tracker, ccusage. Want me to install ccusage for you?", 2),
        _e(4, Kind.USER, "yes install ccusage", 3),
        _e(5, Kind.ASSISTANT, "**My recommendation**: Yes, a fresh session.\n\nI'll merge the two test folders. "
                              "I'll search for the docs first.", 3),
        _e(6, Kind.ASSISTANT, "**Recommendation:** Enable BitLocker on all drives\n**Recommended Fix - Re-pair the key:**", 3),
    ]
    assert [x.item.content for x in extract_items(entries) if x.item.type is ItemType.DECISION] == [
        "Recommended: Option C (Hybrid)",
        "7. C sounds best",
        "yes install ccusage",
        "My recommendation: Yes, a fresh session.",
        "I'll merge the two test folders.",
        "Recommended Fix - Re-pair the key",
    ]


def test_a_reply_to_the_plan_changes_it() -> None:
    plan = "## Plan\n\n**Approach:** a SessionStart hook captures the transcript path"
    entries = [
        _e(0, Kind.USER, "Plan a plugin that publishes the session transcript."),
        _e(1, Kind.TOOL_CALL, "ExitPlanMode {}", tool_name="ExitPlanMode", tool_input={"plan": plan}),
        _e(2, Kind.USER, "- name the command /share:publish\n- use `gh` to authenticate", 2),
    ]
    assert [(x.item.type, x.item.content) for x in extract_items(entries)] == [
        (ItemType.GOAL, "Plan a plugin that publishes the session transcript."),
        (ItemType.DECISION, "a SessionStart hook captures the transcript path"),
        (ItemType.DECISION, "name the command /share:publish"),
        (ItemType.DECISION, "use `gh` to authenticate"),
    ]


def test_progress_from_plan_tools_follows_the_latest_plan() -> None:
    def todo(seq: int, statuses: list[str], rnd: int = 1) -> Entry:
        todos = [{"content": f"step {i}", "status": st} for i, st in enumerate(statuses, 1)]
        return _e(seq, Kind.TOOL_CALL, "TodoWrite {}", rnd, tool_name="TodoWrite", tool_input={"todos": todos})

    entries = [_e(0, Kind.USER, "Ship the mobile release build."), todo(1, ["pending", "pending", "pending"])]
    progress = [x.item for x in extract_items(entries) if x.item.type is ItemType.PROGRESS]
    assert [p.content for p in progress] == ["next: step 1; step 2; step 3"]
    entries += [
        todo(2, ["completed", "in_progress", "pending"], 2),
        _e(3, Kind.TOOL_CALL, "update_plan {}", 3, tool_name="update_plan",
           tool_input={"plan": [{"step": "a", "status": "completed"}, {"step": "b", "status": "completed"}]}),
    ]
    progress = [x.item for x in extract_items(entries) if x.item.type is ItemType.PROGRESS]
    assert len(progress) == 1 and progress[0].content == "done: a; b" and progress[0].entered_round == 1
    assert progress[0].id == extract_items(entries[:2])[-1].item.id  # one item, updated


def test_memory_note_is_a_standing_rule() -> None:
    entries = [
        _e(0, Kind.SYSTEM, "<user-memory-input>always use the conventional-commits convention</user-memory-input>"),
        _e(1, Kind.USER, "Fix the flaky upload test."),
    ]
    items = {x.item.type: x.item.content for x in extract_items(entries)}
    assert items[ItemType.CONSTRAINT] == "always use the conventional-commits convention"
    assert items[ItemType.GOAL] == "Fix the flaky upload test."


def test_near_duplicates_merge_later_wording_wins() -> None:
    entries = [
        _e(0, Kind.USER, "Set up the staging cluster. Never deploy to production on Fridays."),
        _e(1, Kind.USER, "again: never deploy to production on Fridays!", 4),
    ]
    constraints = [x.item for x in extract_items(entries) if x.item.type is ItemType.CONSTRAINT]
    assert len(constraints) == 1
    c = constraints[0]
    assert c.content == "again: never deploy to production on Fridays!" and c.entered_round == 1 and c.referenced_rounds == [4]
    assert c.id == extract_items(entries[:1])[-1].item.id  # the first wording's id stays


def test_noise_is_no_source() -> None:
    text = (
        "$ npm test\nERROR: must not be null\n  at Object.<anonymous> (a.js:1:2)\n"
        "<system-reminder>Never use emojis.</system-reminder>\n> never quote me\n"
        "```\n# always\nnever()\n```\nShould we always retry?"
    )
    entries = [_e(0, Kind.USER, "Refactor the auth middleware."), _e(1, Kind.USER, text, 2)]
    assert [x.item.type for x in extract_items(entries)] == [ItemType.GOAL]


def test_pasted_agent_ui_and_unmarked_questions_are_no_source() -> None:
    pasted = "⏺ Ran 1 stop hook\n  ⎿  Stop hook prevented continuation"
    entries = [
        _e(0, Kind.USER, "Refactor the auth middleware."),
        _e(1, Kind.USER, pasted, 2),
        _e(2, Kind.USER, "not sure if we should fork it or start fresh. Never touch the vendored copy.", 3),
    ]
    assert [(x.item.type, x.item.content) for x in extract_items(entries)] == [
        (ItemType.GOAL, "Refactor the auth middleware."),
        (ItemType.CONSTRAINT, "Never touch the vendored copy."),
    ]


def test_a_request_for_work_now_is_no_standing_rule() -> None:
    entries = [
        _e(0, Kind.USER, "Port the tiling layout to macOS."),
        _e(1, Kind.USER, "Please provide the config commands required to replicate the workflow.", 2),
        _e(2, Kind.USER, "do whatever you need to fix the brew and npm confusion.", 3),
        _e(3, Kind.USER, "move the docs into projects/, but be sure to keep the two boards apart", 4),
        _e(4, Kind.USER, "write a README for it (no need to go into implementation details)", 5),
        _e(5, Kind.USER, "Each subagent must run the linter first. We need to keep the API stable.", 6),
    ]
    assert [x.item.content for x in extract_items(entries) if x.item.type is ItemType.CONSTRAINT] == [
        "be sure to keep the two boards apart",
        "no need to go into implementation details",
        "Each subagent must run the linter first.",
        "We need to keep the API stable.",
    ]


def test_answers_that_give_a_fact_are_no_decision() -> None:
    answers = (
        'User has answered your questions: "What is the IP address of your server?"="10.0.0.5", '
        '"Do you have SSH access set up already?"="Yes, with keys", "Is the router powered on?"="Yes", '
        '"Do you want me to re-pair the key?"="Yes, re-pair it", "How should I reach the router?"="Try the web UI". '
        "You can now continue with the user's answers in mind."
    )
    entries = [_e(0, Kind.USER, "Set up the VPN on the home server."), _e(1, Kind.TOOL_RESULT, answers, tool_name="AskUserQuestion")]
    assert [x.item.content for x in extract_items(entries) if x.item.type is ItemType.DECISION] == [
        "Yes, re-pair it — Do you want me to re-pair the key?",
        "Try the web UI — How should I reach the router?",
    ]


def test_extraction_is_incremental_and_equal_to_a_full_read() -> None:
    session = _session(CLAUDE_COMPACTED)
    entries = session.entries
    grown: list[Entry] = []
    for i in range(0, len(entries), 37):
        grown.extend(entries[i : i + 37])
        extract_items(grown)
    assert [(x.item.id, x.item.content) for x in extract_items(grown)] == [
        (x.item.id, x.item.content) for x in extract_items(list(entries))
    ]


def test_decisions_for_the_handoff() -> None:
    from ctx_tui.memory.extract import decisions_of

    entries = [
        _e(0, Kind.USER, "Add caching to the API."),
        _e(1, Kind.ASSISTANT, "We'll use Redis for the cache because it supports TTLs, wired in api/cache.py."),
    ]
    (d,) = decisions_of(entries)
    assert d.decision == "We'll use Redis for the cache"
    assert d.rationale == "it supports TTLs, wired in api/cache.py." and d.affects_files == ("api/cache.py",)


def test_answers_to_ask_user_question_and_the_exit_plan_are_decisions() -> None:
    answers = (
        'User has answered your questions: "Which store for sessions?"="Redis (Recommended)", '
        '"Retry policy?"="3 retries, exponential backoff". You can now continue with the user\'s answers in mind.'
    )
    plan = "## Plan\n\n**Approach:** one worker per queue, scaled by depth\n\n1. Add the worker\n2. Add the autoscaler"
    entries = [
        _e(0, Kind.USER, "Design the job runner for the ETL."),
        _e(1, Kind.TOOL_CALL, "AskUserQuestion {}", tool_name="AskUserQuestion", tool_use_id="t1"),
        _e(2, Kind.TOOL_RESULT, answers, tool_name="AskUserQuestion", tool_use_id="t1"),
        _e(3, Kind.TOOL_CALL, "ExitPlanMode {}", tool_name="ExitPlanMode", tool_input={"plan": plan}),
        _e(4, Kind.TOOL_RESULT, "You must never run this; we'll use Kafka.", tool_name="Bash"),
    ]
    decisions = [x.item.content for x in extract_items(entries) if x.item.type is ItemType.DECISION]
    assert decisions == [
        "Redis (Recommended) — Which store for sessions?",
        "3 retries, exponential backoff — Retry policy?",
        "one worker per queue, scaled by depth",
    ]


def test_the_agents_recommendation_accepted_is_a_decision() -> None:
    advice = "Two ways: a cron job or a systemd timer.\n\nI'd recommend the systemd timer, since it logs to journald. Want me to set it up?"
    entries = [
        _e(0, Kind.USER, "Schedule the backup script every night."),
        _e(1, Kind.ASSISTANT, advice),
        _e(2, Kind.USER, "yes, go ahead", 2),
        _e(3, Kind.ASSISTANT, "The simplest fix is to pin the version. Should I also bump the lockfile?", 2),
        _e(4, Kind.USER, "no, leave the lockfile", 3),  # not an assent: nothing accepted
        _e(5, Kind.ASSISTANT, "I suggest we look at the logs first. Ok?", 3),
        _e(6, Kind.USER, "check the cron output too", 4),  # no assent
    ]
    assert [x.item.content for x in extract_items(entries) if x.item.type is ItemType.DECISION] == [
        "I'd recommend the systemd timer, since it logs to journald.",
    ]


def test_codex_request_user_input_answers_are_the_users_choices_and_words() -> None:
    questions = {"questions": [
        {"id": "store", "question": "Which store should the cache use?", "options": [{"label": "SQLite (Recommended)"}]},
        {"id": "access", "question": "What access do you currently have to the cluster?", "options": [{"label": "None yet"}]},
    ]}
    answers = {"answers": {
        "store": {"answers": ["SQLite (Recommended)", "user_note: Avoid network services. Check the docs first?"]},
        "access": {"answers": ["None yet"]},
    }}
    entries = [
        _e(0, Kind.USER, "Add a cache to the price fetcher."),
        _e(1, Kind.TOOL_CALL, "request_user_input {}", tool_name="request_user_input", tool_input=questions),
        _e(2, Kind.TOOL_RESULT, json.dumps(answers), tool_name="request_user_input"),
        _e(3, Kind.TOOL_RESULT, "request_user_input is unavailable in Default mode", tool_name="request_user_input"),
    ]
    assert [(x.item.type, x.item.content) for x in extract_items(entries)][1:] == [
        (ItemType.DECISION, "SQLite (Recommended) — Which store should the cache use?"),
        (ItemType.CONSTRAINT, "Avoid network services."),  # the note: the user's words; a fact asked for is no choice
    ]


def test_a_codex_proposed_plan_states_the_agents_choices_and_the_plans_rules() -> None:
    plan = ("I checked the feeds.\n\n<proposed_plan>\n# Price cache\n\n## Summary\nWe'll use SQLite for the cache.\n\n"
            "## Rules\n- Prices are fixed-point integers. Floating-point values must not enter the risk checks.\n"
            "- Create the schema first.\n</proposed_plan>")
    entries = [
        _e(0, Kind.USER, "Add a cache to the price fetcher."),
        _e(1, Kind.ASSISTANT, plan),
        _e(2, Kind.USER, "- keep the cache in memory", 2),  # the reply to the plan: the way chosen
    ]
    assert [(x.item.type, x.item.content) for x in extract_items(entries)][1:] == [
        (ItemType.DECISION, "We'll use SQLite for the cache."),
        (ItemType.CONSTRAINT, "Floating-point values must not enter the risk checks."),
        (ItemType.DECISION, "keep the cache in memory"),
    ]


def test_a_link_above_the_ask_and_a_question_without_its_mark() -> None:
    prompt = "https://example.com/hackathon/brief\n\ni want to build a fast trading tool what should i build, give some ideas"
    entries = [_e(0, Kind.USER, prompt)]
    assert [(x.item.type, x.item.content) for x in extract_items(entries)] == [
        (ItemType.GOAL, "i want to build a fast trading tool what should i build, give some ideas"),
    ]
    assert classify("not sure how we should store it, ideas welcome", "user") is None
    assert classify("we should store it in the keychain", "user") is ItemType.CONSTRAINT


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Prioritize low-level systems design over AI wrappers.", ItemType.USER_PREFERENCE),
        ("Optimize for readability, not cleverness", ItemType.USER_PREFERENCE),
        ("a CLI would be even nicer than a web UI", ItemType.USER_PREFERENCE),
        ("prioritize the login bug today", None),  # the order of today's work
        ("optimize the slow query", None),
        ("would it be better to use redis?", None),
    ],
)
def test_a_priority_or_a_comparison_states_a_taste(sentence: str, expected: ItemType | None) -> None:
    assert classify(sentence, "user") is expected


def test_a_pasted_agent_session_is_not_the_users_words() -> None:
    paste = (
        "Next Steps\n- Tag the release\n"
        "Thinking: The user wants a release. We should NOT commit the keypair. I must check the .gitignore first.\n"
        "# Check git status\n$ git status\nChanges not staged for commit: src/lib.rs\n"
        "Thinking: The keypair should be ignored. I'll add it to .gitignore.\n"
        "▣  Build · Model · 4m 32s\n"
    )
    entries = [_e(0, Kind.USER, paste + "Continue with the release. Never force-push."), _e(1, Kind.USER, "fix the flaky test in ci.yml", 2)]
    assert [(x.item.type, x.item.content) for x in extract_items(entries)] == [
        (ItemType.GOAL, "Continue with the release."),
        (ItemType.CONSTRAINT, "Never force-push."),
        (ItemType.GOAL, "fix the flaky test in ci.yml"),
    ]
    above = "Summarise what went wrong here, never guess:\n" + paste[paste.index("Thinking") :]  # typed above the paste
    assert [x.item.content for x in extract_items([_e(0, Kind.USER, above)])] == [
        "Summarise what went wrong here, never guess:",
        "never guess:",
    ]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("yes, lets be cautious and verify at each step", ItemType.USER_PREFERENCE),  # a manner, not a choice
        ("I'm not really comfortable with telemetry in the build", ItemType.USER_PREFERENCE),
        ("i don't trust the auto-updater", ItemType.USER_PREFERENCE),
        ("I only want one install of it, preferably brew", ItemType.USER_PREFERENCE),
        ("I only want to know why it fails", None),
        ("let's use the queue for the retries", ItemType.DECISION),
        ("add the research to the plan and we'll start fresh", ItemType.DECISION),  # restart, not continue: a choice
        ("let's start with the tests", None),
        ("the users are not comfortable with it yet?", None),
    ],
)
def test_a_manner_of_working_or_an_unease_is_a_taste(sentence: str, expected: ItemType | None) -> None:
    assert classify(sentence, "user") is expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("keep it in one file", ItemType.CONSTRAINT),
        ("do it in a single commit", ItemType.CONSTRAINT),
        ("put everything in the same module", ItemType.CONSTRAINT),
        ("put it in one of the slots", None),
        ("do it in one go", None),
    ],
)
def test_where_the_work_goes_held_is_a_rule(sentence: str, expected: ItemType | None) -> None:
    assert classify(sentence, "user") is expected


def test_a_short_reply_to_which_way_is_the_way_picked() -> None:
    entries = [
        _e(0, Kind.USER, "Add a cache to the price fetcher."),
        _e(1, Kind.ASSISTANT, "Two options: an in-memory LRU or Redis. Which one do you prefer?"),
        _e(2, Kind.USER, "redis for now", 2),
        _e(3, Kind.ASSISTANT, "Done. Which TTL should it use, 60 s or 300 s?", 2),
        _e(4, Kind.USER, "your call", 3),  # the choice left to the agent
        _e(5, Kind.ASSISTANT, "Ready to deploy it?", 3),
        _e(6, Kind.USER, "why redis?", 4),  # a question
    ]
    assert [x.item.content for x in extract_items(entries) if x.item.type is ItemType.DECISION] == [
        "redis for now — Which one do you prefer?",
    ]
