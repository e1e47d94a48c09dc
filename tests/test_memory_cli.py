"""The memory commands end to end through the dispatcher."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctx_tui.audit import read_events
from ctx_tui.cli import main
from ctx_tui.config import Config
from ctx_tui.memory.decay import ItemStatus
from ctx_tui.memory.session_store import load_session_memory
from ctx_tui.memory.view import build_memory_view
from ctx_tui.window import Session

from test_memory_decay import ROUNDS, write_session


@pytest.fixture
def transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    return str(write_session(tmp_path / "chat.jsonl"))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_detect_decay_json_lists_decayed_only(transcript: str, capsys: pytest.CaptureFixture[str]) -> None:
    # registered without reading the transcript: round 0, every mention counts
    code, out, _ = _run(
        capsys, "register", "--session-id", "chat", "--id", "k8s", "--type", "finding", "--content", "The staging cluster runs Kubernetes 1.29"
    )
    assert code == 0 and "registered finding k8s" in out
    code, out, _ = _run(capsys, "detect-decay", transcript, "--json")
    assert code == 0
    data = json.loads(out)
    by_id = {d["id"]: d for d in data}
    assert by_id["k8s"]["rounds_since_reference"] == ROUNDS - 5 and by_id["k8s"]["recommendation"] == "can ignore"
    pref = next(d for d in data if d["type"] == "user_preference")
    assert pref["importance"] == "high" and pref["rounds_since_reference"] == 12 and pref["recommendation"] == "restate now"
    for d in data:
        assert {"id", "type", "content", "importance", "rounds_since_reference", "position", "recommendation"} <= set(d)
        assert d["decayed"] or d["out_of_context"]
    # as of an earlier round, fewer are decayed
    code, out, _ = _run(capsys, "detect-decay", transcript, "--json", "--current-round", "20")
    assert {d["id"] for d in json.loads(out)} < set(by_id)


def test_detect_decay_readable(transcript: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "detect-decay", transcript)
    assert code == 0
    assert f"Current round: {ROUNDS}" in out
    assert "[High importance] user_preference" in out and "Suggestion: restate now" in out
    assert "Position warnings:" in out  # the Redis decision sits mid-window
    code, _, err = _run(capsys, "detect-decay", transcript, "--current-round", "0")
    assert code == 2 and "1-based" in err


def test_register_refuses_unknown_type_and_updates_by_id(transcript: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "register", transcript, "--id", "x", "--type", "wish", "--content", "c")
    assert code == 2 and "known types: goal, constraint, user_preference" in err and "Traceback" not in err
    assert _run(capsys, "register", transcript, "--id", "x", "--type", "note", "--content", "first")[0] == 0
    code, out, _ = _run(capsys, "register", transcript, "--id", "x", "--type", "note", "--content", "second", "--json")
    data = json.loads(out)
    assert code == 0 and data["created"] is False and data["item"]["content"] == "second"
    assert data["item"]["importance"] == "low" and data["item"]["entered_round"] == ROUNDS


def test_check_position(transcript: str, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "register", transcript, "--id", "redis", "--type", "decision", "--content", "We'll go with Redis for the session cache")
    code, out, _ = _run(capsys, "check-position", transcript, "--id", "redis", "--json")
    data = json.loads(out)
    assert code == 0 and data["in_danger_zone"] is True and 0.3 < data["fraction"] < 0.7
    code, out, _ = _run(capsys, "check-position", transcript, "--id", "redis", "--position", "2500", "--total", "5000")
    assert code == 0 and "Position warning" in out and "2500/5000" in out
    code, out, _ = _run(capsys, "check-position", transcript, "--id", "redis", "--position", "100", "--total", "5000")
    assert code == 0 and "outside the danger zone" in out
    code, _, err = _run(capsys, "check-position", transcript, "--id", "redis", "--position", "100")
    assert code == 2 and "together" in err
    code, _, err = _run(capsys, "check-position", transcript, "--id", "ghost")
    assert code == 2 and "no active item 'ghost'" in err and "redis" in err


def test_summarize_session_markdown(transcript: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "summarize-session", transcript)
    assert code == 0
    for heading in ("# Session chat", "## Goals", "## Decisions", "## Constraints", "## Progress", "## Decayed items"):
        assert heading in out
    assert "- We'll go with Redis for the session cache" in out
    assert "restate now" in out
    code, out, _ = _run(capsys, "summarize-session", transcript, "--json")
    data = json.loads(out)
    assert data["round"] == ROUNDS and data["decisions"][0]["decision"].startswith("We'll go with Redis")


def test_tiers_command(transcript: str, capsys: pytest.CaptureFixture[str]) -> None:
    Path("MEMORY.md").write_text("## Notes\n- hello\n")
    code, out, _ = _run(capsys, "tiers", transcript, "--json")
    tiers = json.loads(out)
    assert code == 0 and [t["name"] for t in tiers] == ["working", "short-term", "medium-term", "long-term"]
    assert tiers[3]["count"] == 1
    code, out, _ = _run(capsys, "tiers", transcript)
    assert code == 0 and out.startswith("working")


def test_hostile_content_is_printed_inert(transcript: str, capsys: pytest.CaptureFixture[str]) -> None:
    evil = "\x1b[2J\x1b]0;pwned\x07 [bold red]boom[/] never do this"
    assert _run(capsys, "register", transcript, "--id", "evil", "--type", "constraint", "--content", evil)[0] == 0
    code, out, _ = _run(capsys, "summarize-session", transcript)
    assert code == 0 and "\x1b" not in out and "\x07" not in out


def test_bad_session_memory_file_exits_2(transcript: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(".ctx/sessions/chat.yaml")
    path.parent.mkdir(parents=True)
    path.write_text("items: {broken: [\n")
    code, _, err = _run(capsys, "detect-decay", transcript)
    assert code == 2 and "chat.yaml" in err and "invalid YAML" in err and "Traceback" not in err


def test_register_and_dismiss_by_session_id_without_a_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run(capsys, "register", "--session-id", "s-1", "--id", "g", "--type", "goal", "--content", "Ship it", "--json")
    assert code == 0 and json.loads(out)["item"]["entered_round"] == 0
    assert Path(".ctx/sessions/s-1.yaml").is_file()
    code, out, _ = _run(capsys, "dismiss", "--session-id", "s-1", "--id", "g")
    assert code == 0 and "dismissed registered goal g" in out
    code, _, err = _run(capsys, "dismiss", "--session-id", "s-1", "--id", "zzz")
    assert code == 2 and "no item 'zzz'" in err


def test_an_item_registered_at_round_14_has_no_earlier_references(
    transcript: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The migrations constraint is mentioned in rounds 1, 4, 7, 10, 13, 16, ... (test_memory_decay.PLANTED)."""
    path = Path(transcript)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[: 2 * 14]))  # the session as it was at round 14
    content = "Always run the alembic database migrations before deploying the service"
    code, out, _ = _run(capsys, "register", transcript, "--id", "mig", "--type", "constraint", "--content", content, "--json")
    assert code == 0 and json.loads(out)["item"]["entered_round"] == 14

    def status() -> ItemStatus:
        session = Session(path, Config())
        session.poll()
        found = build_memory_view(path.parent, session, Config()).status("mig")
        assert found is not None
        return found

    fresh = status()
    assert fresh.rounds_since_reference == 0 and fresh.referenced_rounds == ()
    assert fresh.last_seen_round is None and not fresh.decayed  # the mention in round 13 came before it entered
    path.write_text("".join(lines))  # rounds 15-30 arrive; mentions in 16, 19, 22, 25, 28
    later = status()
    assert later.referenced_rounds == (16, 19, 22, 25, 28)
    assert later.last_seen_round == 28 and later.rounds_since_reference == ROUNDS - 28
    memory = load_session_memory(path.parent, "chat")
    assert memory.get_item("mig").referenced_rounds == [16, 19, 22, 25, 28]  # type: ignore[union-attr]
    logged = [e["details"]["rounds"].get("mig") for e in read_events(path.parent) if e["action"] == "memory.referenced"]
    assert [r for r in logged if r] == [[16, 19, 22, 25, 28]]


def test_codex_desktop_rollout_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Prompts only as user_message events and no model (Codex Desktop): the round, the goal, the
    decision and the plan are read; the usage is not turned into a percentage of a guessed window."""
    monkeypatch.chdir(tmp_path)

    def row(kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": "2026-05-01T10:00:00Z", "type": kind, "payload": payload}) + "\n"

    plan = {"plan": [{"step": "Write the exporter", "status": "completed"}, {"step": "Add a test", "status": "in_progress"}]}
    path = tmp_path / "rollout.jsonl"
    path.write_text(
        row("session_meta", {"id": "desk1", "cwd": "/w", "originator": "Codex Desktop", "cli_version": "0.128.0"})
        + row("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\n<cwd>/w</cwd>\n</environment_context>"}]})
        + row("event_msg", {"type": "user_message", "message": "Add CSV export to the reports page. Never load a whole report into memory.", "images": []})
        + row("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "We'll use the streaming writer because reports can be large."}]})
        + row("response_item", {"type": "function_call", "name": "update_plan", "arguments": json.dumps(plan), "call_id": "c1"})
        + row("event_msg", {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 120000, "cached_input_tokens": 0, "output_tokens": 5000, "total_tokens": 125000}}, "rate_limits": {}})
    )
    code, out, _ = _run(capsys, "summarize-session", str(path), "--json")
    data = json.loads(out)
    assert code == 0 and data["round"] == 1
    assert data["goals"] == ["Add CSV export to the reports page."]
    assert data["constraints"] == ["Never load a whole report into memory."]
    assert data["decisions"][0]["decision"] == "We'll use the streaming writer"
    assert data["decisions"][0]["rationale"] == "reports can be large."
    assert data["progress"] == ["in progress: Add a test — done: Write the exporter"]
    assert data["usage_pct"] is None and data["context_tokens"] == 125000
    code, out, _ = _run(capsys, "summarize-session", str(path))
    assert "125,000 tokens, window unknown" in out
