"""The bundled demo: generated deterministically, realistic enough to move every panel, replayed at pace."""

from __future__ import annotations

import importlib.util
import json
import threading
from pathlib import Path
from types import ModuleType

import pytest

from ctx_tui.cli import main
from ctx_tui.config import Config
from ctx_tui.demo.project import prepare_demo_project
from ctx_tui.demo.replay import DEMO_SECONDS, OPENING_LINES, Step, demo_transcript, plan, replay
from ctx_tui.memory.view import build_memory_view
from ctx_tui.window import Session

ROOT = Path(__file__).resolve().parents[1]


def _load_generator() -> ModuleType:
    """scripts/generate_demo.py (a dev tool, not part of the package)."""
    spec = importlib.util.spec_from_file_location("generate_demo", ROOT / "scripts" / "generate_demo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = _load_generator()


def _rows() -> list[str]:
    return [json.dumps(row, ensure_ascii=False, separators=(",", ":")) for row in generate.build_rows()]


def test_bundled_transcript_is_what_the_generator_writes() -> None:
    assert _rows() == _rows()  # deterministic
    assert demo_transcript().splitlines() == _rows(), "run: python scripts/generate_demo.py"


def test_demo_session_crosses_the_handoff_threshold_and_items_fade(tmp_path: Path) -> None:
    transcript = prepare_demo_project(tmp_path)
    lines = demo_transcript().splitlines()
    transcript.write_text("\n".join(lines[: len(lines) // 4]) + "\n")
    session = Session(transcript, Config())
    session.poll()
    early = session.state()
    assert early.usage_pct < 60 and early.usage_source == "reported"
    with transcript.open("a") as fh:
        fh.write("\n".join(lines[len(lines) // 4 :]) + "\n")
    session.poll()
    late = session.state()
    assert late.usage_pct > 80 and late.rounds == len(generate.ROUNDS)
    kinds = {e.entry.kind.value for e in late.live}
    assert {"user", "assistant", "tool_call", "tool_result", "thinking"} <= kinds
    view = build_memory_view(tmp_path, session, Config())
    types = {s.type.value for s in view.statuses}
    assert {"goal", "constraint", "decision", "user_preference"} <= types
    assert any(s.decayed for s in view.statuses), "a fact must fade"
    decision = next(s for s in view.statuses if s.type.value == "decision")
    assert decision.in_danger_zone, "the decision sits mid-window"
    long_term = next(t for t in view.tiers if t.name == "long-term")
    assert long_term.count > 0  # the demo's MEMORY.md


def test_plan_spreads_the_replay_over_a_minute_divided_by_speed() -> None:
    text = demo_transcript()
    steps = plan(text)
    assert len(steps) == len(text.splitlines())
    assert all(s.delay == 0 for s in steps[:OPENING_LINES])
    assert sum(s.delay for s in steps) == pytest.approx(DEMO_SECONDS)
    assert sum(s.delay for s in plan(text, speed=4)) == pytest.approx(DEMO_SECONDS / 4)
    with pytest.raises(ValueError):
        plan(text, speed=0)


def test_replay_appends_every_line_and_stops_when_asked(tmp_path: Path) -> None:
    target = tmp_path / "t.jsonl"
    target.write_text("")
    written = replay([Step("a", 0.0), Step("b", 0.0)], target, threading.Event())
    assert written == 2 and target.read_text() == "a\nb\n"
    stop = threading.Event()
    stop.set()
    assert replay([Step("c", 0.0), Step("d", 30.0)], target, stop) == 1  # stops at the first wait
    assert target.read_text().endswith("c\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--demo", "--speed", "0"], "--speed must be a positive number"),
        (["--demo", "some.jsonl"], "takes no PATH"),
        (["/nonexistent/x.jsonl"], "no such file"),
    ],
)
def test_dashboard_arguments_are_checked_before_the_app_starts(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err
