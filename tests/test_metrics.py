"""``ctx-tui metrics``: the figures equal the counts of a scripted session's audit log, and the transcript's per-round usage."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import CLAUDE_COMPACTED, CODEX_REDACTED, fixture

from ctx_tui import audit
from ctx_tui.cli import main
from ctx_tui.demo.replay import demo_transcript
from ctx_tui.metrics import count_events, sparkline
from ctx_tui.window import Session

SESSION = "d3e0c0de-7a1e-4c0d-8e5f-00000000c7a1"
VAGUE = """handoff_version: "1.0.0"
agent_role: dev
session_id: {sid}
task_state:
  assigned_task: stuff
  completion_pct: 50
continuation_context: continue the work and fix remaining issues
suggested_first_action: keep going
"""


def _cli(capsys, *args: str, stdin: str | None = None, monkeypatch=None) -> str:
    if stdin is not None:
        import io
        import sys

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    code = main(list(args))
    out = capsys.readouterr()
    return f"{code}\n{out.out}{out.err}"


@pytest.fixture()
def scripted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> tuple[Path, list[dict]]:
    """A session driven through the CLI as a user would: decay, restatements, searches, promotions, handoffs.

    Returns the project and the items ``detect-decay --json`` flagged (the ids
    come from the extractor, so the script reads them instead of naming them).
    """
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "s.jsonl"
    path.write_text(demo_transcript(), encoding="utf-8")
    run = lambda *a, **kw: _cli(capsys, *a, monkeypatch=monkeypatch, **kw)  # noqa: E731
    flagged = json.loads(run("detect-decay", str(path), "--json").split("\n", 1)[1])  # extraction, references, decay
    assert len(flagged) >= 3
    first, second, third = (item["id"] for item in flagged[:3])
    run("detect-decay", str(path))  # nothing new: no second decay event
    run("hook", "install")
    run("refresh", str(path), "--id", first, "--id", second)
    hook = json.dumps({"session_id": SESSION, "transcript_path": str(path), "cwd": str(tmp_path),
                       "hook_event_name": "UserPromptSubmit", "prompt": "next"})
    run("hook", "user-prompt-submit", stdin=hook)  # delivers both
    run("refresh", str(path), "--id", third)  # queued, not delivered yet
    run("enhance", str(path), "--query", "staging redis port for the rate limiter")
    run("enhance", str(path), "--query", "zebra quantum chromodynamics xylophone")
    run("enhance", str(path), "--query", "migrations folder")
    run("promote", str(path), "--id", second, "--id", third)
    run("approve", second, "--transcript", str(path))
    run("reject", third, "--transcript", str(path))
    draft = tmp_path / "draft.yaml"
    draft.write_text(VAGUE.format(sid=SESSION), encoding="utf-8")
    run("handoff", "new", "--from", str(draft))  # refused by the gate
    run("handoff", "new", "--from", str(draft), "--force")  # forced
    run("compress", str(path))
    return tmp_path, flagged


def test_metrics_equal_the_audit_log_counts(scripted: tuple[Path, list[dict]], capsys) -> None:
    scripted, flagged = scripted
    events = list(audit.read_events(scripted))
    actions = Counter(e["action"] for e in events)
    mine = [e for e in events if e["session"] == SESSION]
    assert main(["metrics", str(scripted / "s.jsonl"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    m = data["audit"]
    decayed = [i for e in mine if e["action"] == "memory.decayed" for i in e["details"]["items"]]
    delivered = [i for e in mine if e["action"] == "restate.delivered" for i in e["details"]["items"]]
    searches = [e for e in events if e["action"] == "retrieve.searched"]
    assert m["events"] == len(mine)
    assert (m["decay_events"], m["decayed_items"]) == (actions["memory.decayed"], len(decayed))
    assert m["decayed_high"] == sum(i["importance"] == "high" for i in decayed)
    assert (m["restatements_queued"], m["restatements_delivered"], m["deliveries"]) == (
        actions["restate.queued"], len(delivered), actions["restate.delivered"])
    assert m["retrieval_queries"] == len(searches)
    assert m["retrieval_hits"] == sum(e["details"]["hits"] > 0 for e in searches)
    assert (m["promotions_proposed"], m["promotions_approved"], m["promotions_rejected"]) == (
        actions["promotion.proposed"], actions["promotion.approved"], actions["promotion.rejected"])
    assert (m["handoffs_written"], m["handoffs_refused"], m["handoffs_forced"]) == (
        actions["handoff.written"], actions["handoff.refused"], actions["handoff.forced"])
    assert m["compressions"] == actions["compress.ran"]
    # and what the script did, counted by hand
    high = sum(item["importance"] == "high" for item in flagged)
    assert (m["decay_events"], m["decayed_items"], m["decayed_high"]) == (1, len(flagged), high)
    assert (m["restatements_queued"], m["restatements_delivered"], m["deliveries"]) == (3, 2, 1)
    assert m["restatement_delivery_rate"] == pytest.approx(2 / 3)
    assert (m["retrieval_queries"], m["retrieval_hits"], m["retrieval_misses"]) == (3, 2, 1)
    assert m["retrieval_hit_rate"] == pytest.approx(2 / 3)
    assert (m["promotions_proposed"], m["promotions_approved"], m["promotions_rejected"], m["promotions_written"]) == (2, 1, 1, 1)
    assert (m["handoffs_written"], m["handoffs_refused"], m["handoffs_forced"]) == (0, 1, 1)
    assert m["decayed_by_round"] == {"25": len(flagged)}
    # the human form says the same
    assert main(["metrics", str(scripted / "s.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "3 queued, 2 delivered in 1 prompt(s) (67%)" in out
    assert "3 queries, 2 hit, 1 missed (hit rate 67%)" in out
    assert "0 written, 1 refused by the gate, 1 forced" in out


def test_project_metrics_count_every_session(scripted: tuple[Path, list[dict]], capsys) -> None:
    scripted, _ = scripted
    audit.record(scripted, "retrieve.searched", session="other", query="q", hits=0)
    assert main(["metrics", "--project", "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["audit"]
    assert m["sessions"] == 2 and m["retrieval_queries"] == 4 and m["retrieval_hits"] == 2


@pytest.mark.parametrize("name", [CLAUDE_COMPACTED, CODEX_REDACTED])
def test_context_per_round_and_compactions_from_the_transcript(name: str, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    path = fixture(name)
    assert main(["metrics", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    session = Session(path)
    session.poll()
    state = session.state(positions=False)
    assert [(p["round"], p["tokens"]) for p in data["context_by_round"]] == [(p.round, p.tokens) for p in state.history]
    assert len(data["compactions"]) == len(state.compactions) == 1
    compaction = data["compactions"][0]
    before = [p["tokens"] for p in data["context_by_round"] if p["round"] < compaction["round"]]
    after = [p["tokens"] for p in data["context_by_round"] if p["round"] > compaction["round"]]
    assert after and before and after[0] < max(before)  # the compaction shows as a drop
    assert data["usage_pct"] == round(state.usage_pct, 2)


def test_damaged_audit_lines_are_skipped() -> None:
    events = [{"action": "retrieve.searched", "details": "not a dict"}, {"action": "memory.decayed", "details": {"items": "x"}},
              {"action": "restate.delivered", "details": {"items": None}}, {"no": "action"}]
    m = count_events(events)
    assert (m.retrieval_queries, m.retrieval_hits, m.decay_events, m.decayed_items, m.deliveries) == (1, 0, 1, 0, 1)


def test_sparkline() -> None:
    assert sparkline([], 10) == ""
    assert sparkline([0, 4, 8], 10) == " ▄█"
    assert len(sparkline(list(range(1000)), 50)) == 50
