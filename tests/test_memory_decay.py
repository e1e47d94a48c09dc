"""Decay, position risk and references on a synthetic session with planted items.

The session is generated here (a generic chat JSONL read by the real engine):
30 rounds of filler, with planted items mentioned — mostly by paraphrase — on
a known schedule. Decay detection is checked against the truth the schedule
implies, at every round, and its precision and recall asserted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctx_tui.config import Config
from ctx_tui.config_file import validate_config
from ctx_tui.memory.decay import ATTENTION_FLOOR, analyze, attention, risk_score, threshold_for
from ctx_tui.memory.items import Importance, TrackedItem
from ctx_tui.mentions import Vocabulary, mention, stem, term_keys
from ctx_tui.transcripts.model import Entry, Kind
from ctx_tui.window import Session
from ctx_tui.window_state import WindowEntry

ROUNDS = 30

#: id -> (type, registered content, {round: mention text})
PLANTED: dict[str, tuple[str, str, dict[int, str]]] = {
    "migrations": (
        "constraint",
        "Always run the alembic database migrations before deploying the service.",
        {
            1: "Always run the alembic database migrations before deploying the service.",
            **{
                r: text
                for r, text in zip(
                    range(4, 30, 3),
                    [
                        "Deployed the service only after the alembic migrations ran against the database.",
                        "The database migrations (alembic) went first, then I deployed the service.",
                        "Reminder to self: alembic migrations on the database precede any service deploy.",
                        "Ran alembic to migrate the database; the service deployment followed.",
                        "Before deploying the service again, the alembic database migrations were applied.",
                        "Service deployed; alembic database migrations had been run beforehand.",
                        "Applied pending alembic migrations to the database ahead of the service deploy.",
                        "The service deploy waited for the alembic database migrations as agreed.",
                        "Alembic migrations first, database checked, service deployed.",
                    ],
                )
            },
        },
    ),
    "feishu": (
        "user_preference",
        "Use Feishu for build notifications.",
        {2: "I prefer Feishu for build notifications.", 6: "Build notifications now go to Feishu.", 18: "Sent the build notification through Feishu."},
    ),
    "k8s": (
        "finding",
        "The staging cluster runs Kubernetes 1.29.",
        {3: "Found that the staging cluster runs Kubernetes 1.29.", 5: "Kubernetes on the staging cluster is 1.29, as found."},
    ),
    "redis": (
        "decision",
        "We'll go with Redis for the session cache.",
        {13: "We'll go with Redis for the session cache.", 15: "Wired Redis in as the session cache.", 16: "The session cache (Redis) now holds the tokens."},
    ),
    "tokens": (
        "critical_info",
        "The API token expires every 24 hours.",
        {9: "Note: the API token expires every 24 hours.", 24: "Renewed the API token; it expires every 24 hours."},
    ),
    "freeze": (
        "state",
        "The release branch is frozen for QA.",
        {5: "The release branch is frozen for QA.", 7: "QA froze the release branch, it stays frozen."},
    ),
}
FILLER_WORDS = ["tidy", "rename", "polish", "reorder", "annotate", "simplify"]


def _filler(r: int, who: str) -> str:
    verb = FILLER_WORDS[r % len(FILLER_WORDS)]
    return f"{who} round {r}: {verb} the widget{r} layout and the helper{r} function in gizmo{r}.py, then report."


def write_session(path: Path) -> Path:
    """A generic chat transcript: per round one user message and one assistant reply of similar size."""
    lines = []
    for r in range(1, ROUNDS + 1):
        user, assistant = [_filler(r, "User")], [_filler(r, "Assistant")]
        for item_id, (_, _, mentions) in PLANTED.items():
            if r in mentions:
                # the first statement comes from the user, later mentions from the assistant
                (user if r == min(mentions) else assistant).append(mentions[r])
        lines.append({"role": "user", "content": " ".join(user)})
        lines.append({"role": "assistant", "content": " ".join(assistant)})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def planted_items() -> list[TrackedItem]:
    return [
        TrackedItem(id=item_id, type=kind, content=content, entered_round=min(mentions))
        for item_id, (kind, content, mentions) in PLANTED.items()
    ]


@pytest.fixture
def session(tmp_path: Path) -> Session:
    s = Session(write_session(tmp_path / "chat.jsonl"), Config())
    s.poll()
    return s


def _truth(item: TrackedItem, r: int, config: Config) -> bool:
    mentions = [m for m in PLANTED[item.id][2] if m <= r]
    return r - max(mentions) >= threshold_for(item.importance, config)


def test_decay_precision_and_recall_at_every_round(session: Session) -> None:
    config = Config()
    state = session.state()
    assert state.rounds == ROUNDS
    tp = fp = fn = 0
    for r in range(1, ROUNDS + 1):
        entries = [e for e in session.entries if e.round <= r]
        live = [w for w in state.live if w.entry.round <= r]
        items = [i for i in planted_items() if i.entered_round <= r]
        predicted = {s.item.id for s in analyze(items, entries, live, r, config) if s.decayed}
        truth = {i.id for i in items if _truth(i, r, config)}
        tp += len(predicted & truth)
        fp += len(predicted - truth)
        fn += len(truth - predicted)
    precision = tp / (tp + fp)
    recall = tp / (tp + fn)
    print(f"decay detection over {ROUNDS} rounds: precision {precision:.3f}, recall {recall:.3f} ({tp} true positives)")
    assert tp >= 20  # the schedule makes items decay often enough for the figures to mean something
    assert precision == 1.0 and recall == 1.0


def test_planted_items_at_the_last_round(session: Session) -> None:
    statuses = {s.item.id: s for s in analyze(planted_items(), session.entries, session.state().live, ROUNDS, Config())}
    # referenced by paraphrase every few rounds: never decays
    assert not statuses["migrations"].decayed and statuses["migrations"].rounds_since_reference == 2
    assert statuses["migrations"].referenced_rounds == tuple(range(4, 30, 3))
    # high importance, silent for 12 rounds: decayed (threshold 10), restate now
    feishu = statuses["feishu"]
    assert feishu.decayed and feishu.rounds_since_reference == 12 and feishu.threshold == 10
    assert feishu.recommendation == "restate now"
    # low importance, silent for 25 rounds: decayed, can ignore
    k8s = statuses["k8s"]
    assert k8s.decayed and k8s.rounds_since_reference == 25 and k8s.recommendation == "can ignore"
    # medium importance silent 23 rounds: consider restating
    assert statuses["freeze"].decayed and statuses["freeze"].recommendation == "consider restating"
    # sitting in the middle of the window: position risk, not decayed
    redis = statuses["redis"]
    assert not redis.decayed and redis.in_danger_zone and 0.45 < redis.position < 0.6  # type: ignore[operator]
    assert redis.recommendation == "restate to move it to the end"
    assert not statuses["tokens"].in_danger_zone and not statuses["tokens"].decayed
    assert not statuses["migrations"].in_danger_zone
    # the list is sorted by attention risk; decayed high first, a fresh item last
    order = [s.item.id for s in analyze(planted_items(), session.entries, session.state().live, ROUNDS, Config())]
    assert order[0] == "feishu" and order[-1] == "migrations"


def test_thresholds_come_from_config(session: Session) -> None:
    config = validate_config({"decay": {"threshold_rounds": 30, "high_importance_threshold": 15}})
    statuses = {s.item.id: s for s in analyze(planted_items(), session.entries, session.state().live, ROUNDS, config)}
    assert not statuses["feishu"].decayed and not statuses["k8s"].decayed
    off = validate_config({"decay": {"enabled": False}})
    assert not any(s.decayed for s in analyze(planted_items(), session.entries, session.state().live, ROUNDS, off))


def _entry(seq: int, kind: Kind, text: str, rnd: int, **kw: object) -> Entry:
    return Entry(seq=seq, kind=kind, role="user" if kind is Kind.USER else "assistant", text=text, tokens=10, round=rnd, **kw)  # type: ignore[arg-type]


def test_after_compaction_a_dropped_item_is_out_of_context() -> None:
    entries = [
        _entry(0, Kind.USER, "Never touch the vendored libfoo directory.", 1),
        _entry(1, Kind.ASSISTANT, "Understood.", 1),
        _entry(2, Kind.SUMMARY, "Summary: we refactored the parser and added tests.", 2),
        _entry(3, Kind.USER, "Now update the changelog.", 3),
    ]
    live = [WindowEntry(entry=e, offset=i * 10, tokens=10, position=(i + 0.5) / 2) for i, e in enumerate(entries[2:])]
    items = [
        TrackedItem(id="libfoo", type="constraint", content="Never touch the vendored libfoo directory.", entered_round=1),
        TrackedItem(id="parser", type="note", content="The parser was refactored with tests added.", entered_round=2),
    ]
    statuses = {s.item.id: s for s in analyze(items, entries, live, 3, Config())}
    lost = statuses["libfoo"]
    assert lost.out_of_context and lost.position is None and lost.flagged
    assert lost.risk == 1.0 and lost.recommendation == "restate now"
    kept = statuses["parser"]
    assert not kept.out_of_context and kept.position == 0.25


def test_tool_results_are_not_references() -> None:
    item = TrackedItem(id="x", type="constraint", content="Never delete the fixtures folder under tests.", entered_round=1)
    entries = [
        _entry(0, Kind.USER, item.content, 1),
        _entry(1, Kind.TOOL_RESULT, "deleted tests/fixtures folder: never again", 5),
        _entry(2, Kind.ASSISTANT, "Kept the fixtures folder under tests, nothing deleted.", 6, is_sidechain=True),
    ]
    live = [WindowEntry(entry=e, offset=0, tokens=10, position=0.5) for e in entries]
    (status,) = analyze([item], entries, live, 8, Config())
    assert status.referenced_rounds == () and status.last_seen_round == 1


def test_terms_and_paraphrase() -> None:
    assert stem("deployment") == stem("deploying") == stem("deployed") == stem("deploys") == "deploy"
    assert stem("runs") == stem("running") == "run" and stem("applied") == stem("apply") != "app"
    assert stem("settings") == "set" and stem("logging") == "log" and stem("notes") == "note"
    terms = term_keys("Edit src/app/config_loader.py and call loadConfig()")
    assert {"=src/app/config_loader.py", "=config_loader.py", "=loadconfig", "load", "config"} <= terms
    session = Vocabulary(["the build is green", "the build failed on lint", "the release build is slow", "deploy the app"])
    item = "Use Feishu for build notifications"
    assert mention(item, "the notification for the build went to feishu", session)
    assert not mention(item, "the build is green", session)  # one common word is not a reference
    assert mention(item, "feishu again?", session)  # a short follow-up naming its rare word
    assert not mention("", "anything", session)
    long_item = "Deploy the billing service with blue green rollout on Kubernetes"
    assert not mention(long_item, "the billing page looks slow", session)
    assert mention(long_item, "blue/green rollout of the billing service done on kubernetes", session)


def test_attention_curve_and_risk() -> None:
    assert attention(0.0) == attention(1.0) == 1.0
    assert attention(0.5) == pytest.approx(ATTENTION_FLOOR)
    assert attention(0.3) < attention(0.1)
    assert risk_score(Importance.HIGH, 0.0, None, True) == 1.0
    decayed_high = risk_score(Importance.HIGH, 1.0, 0.95, False)
    fresh_middle = risk_score(Importance.HIGH, 0.0, 0.5, False)
    assert decayed_high >= 0.75 > fresh_middle == 0.25
    assert risk_score(Importance.LOW, 1.0, 0.5, False) < risk_score(Importance.MEDIUM, 1.0, 0.5, False) < decayed_high


def test_incremental_scan_matches_a_full_scan(session: Session) -> None:
    """The reference scan reads only appended entries on the next call; the result is the same."""
    from ctx_tui.memory.references import occurrences

    items = planted_items()
    growing = list(session.entries[:20])
    occurrences(items, growing)
    growing.extend(session.entries[20:])
    incremental = occurrences(items, growing)
    full = occurrences(items, list(session.entries))
    assert {k: [e.seq for e in v] for k, v in incremental.items()} == {k: [e.seq for e in v] for k, v in full.items()}
    # a new item on the same list is scanned over every entry; a shorter list starts over
    extra = TrackedItem(id="extra", type="note", content="widget3 layout helper3 gizmo3.py")
    assert [e.round for e in occurrences([*items, extra], growing)["extra"]] == [3, 3]
    del growing[10:]
    assert all(e.round <= 5 for e in occurrences(items, growing)["feishu"])
