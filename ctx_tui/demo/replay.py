"""Replay a transcript into another file at a readable pace (the ``--demo`` mode).

Core code (no Textual): the dashboard command runs :func:`replay` in a thread
while the dashboard follows the target file like any live session.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

#: How long the whole replay takes at speed 1 (every panel moves within it).
DEMO_SECONDS = 60.0
#: Lines written at once before the replay starts pacing (the session's opening).
OPENING_LINES = 4
#: A user's prompt takes longer to arrive than the agent's tool traffic.
_WEIGHTS = {"prompt": 4.0, "assistant": 1.0, "tool_result": 0.6}


def demo_transcript() -> str:
    """The bundled demo session (package data), as text."""
    return (files("ctx_tui.demo") / "demo_session.jsonl").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class Step:
    line: str
    delay: float  # seconds to wait before writing it


def _weight(line: str) -> float:
    try:
        row = json.loads(line)
    except ValueError:
        return _WEIGHTS["assistant"]
    if row.get("type") == "user":
        content = row.get("message", {}).get("content")
        return _WEIGHTS["prompt"] if isinstance(content, str) else _WEIGHTS["tool_result"]
    return _WEIGHTS["assistant"]


def plan(text: str, speed: float = 1.0, total_seconds: float = DEMO_SECONDS) -> list[Step]:
    """The lines of ``text`` with the pause before each, spread over ``total_seconds / speed``."""
    if speed <= 0:
        raise ValueError("speed must be positive")
    lines = [line for line in text.splitlines() if line.strip()]
    head, tail = lines[:OPENING_LINES], lines[OPENING_LINES:]
    weights = [_weight(line) for line in tail]
    unit = (total_seconds / speed) / sum(weights) if weights else 0.0
    return [Step(line, 0.0) for line in head] + [Step(line, w * unit) for line, w in zip(tail, weights)]


def replay(steps: list[Step], target: Path, stop: threading.Event) -> int:
    """Append each step's line to ``target`` after its delay; returns the number of lines written.

    ``stop`` ends the replay early (the dashboard was closed). Each line is one
    ``write`` + flush, as an agent writes its transcript.
    """
    written = 0
    with target.open("a", encoding="utf-8", newline="\n") as fh:
        for step in steps:
            if step.delay and stop.wait(step.delay):
                break
            fh.write(step.line + "\n")
            fh.flush()
            written += 1
    return written
