"""A hostile project for the output-boundary tests: every file ctx-tui reads holds terminal attacks.

The attacks (issue 15): OSC 0 (window title), OSC 52 (clipboard write), OSC 8
(hyperlink), CSI 2J (clear screen), an 8-bit CSI, BEL, DEL, bidi overrides and
zero-width characters, Rich markup. ``FORBIDDEN`` is what must never reach a
terminal, a screen or the clipboard.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ctx_tui.handoff.schema import dump_handoff

ATTACK = (
    "\x1b]0;TITLE\x07 \x1b]52;c;cm0gLXJmIH4K\x07 \x1b[2J \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ "
    "\x9b31m c1 \x7f del \u202eevil\u202c zero\u200bwidth [bold]markup[/bold]"
)
#: ESC, BEL and the other C0 controls but newline and tab, DEL, C1, bidi and zero-width characters.
FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
SESSION = "hostile-session"


def leaks(text: str) -> list[str]:
    """The forbidden characters in ``text`` (``repr`` of each, with its context)."""
    return [repr(text[max(0, m.start() - 20) : m.end() + 20]) for m in FORBIDDEN.finditer(text)]


def _row(kind: str, n: int, message: dict, **extra) -> dict:
    return {
        "type": kind, "uuid": f"u{n}", "sessionId": SESSION, "timestamp": f"2026-01-01T00:00:{n:02d}Z",
        "cwd": f"/work/{ATTACK}", "version": "1.0", "gitBranch": f"main{ATTACK}", "message": message, **extra,
    }


def write_transcript(path: Path) -> Path:
    """A Claude Code session whose prompts, replies, tool calls, results, model and ids are hostile."""
    model = f"claude-sonnet-4-5{ATTACK}"
    usage = {"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 30_000, "output_tokens": 50}
    rows = [
        _row("user", 1, {"role": "user", "content": f"Fix the export in src/export.py {ATTACK}. Never push to main {ATTACK}."}),
        _row("assistant", 2, {"id": "m1", "model": model, "role": "assistant", "usage": usage, "content": [
            {"type": "text", "text": f"We decided to use csv.DictWriter because {ATTACK} keeps the header."},
            {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": f"src/export{ATTACK}.py", "old_string": ATTACK, "new_string": "x"}},
        ]}),
        _row("user", 3, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": f"Error: {ATTACK} ValueError in export"}]}),
        _row("assistant", 4, {"id": "m2", "model": model, "role": "assistant", "usage": usage, "content": [
            {"type": "tool_use", "id": "t2", "name": "Write", "input": {"file_path": f"tests/test_{ATTACK}.py", "content": ATTACK}},
            {"type": "text", "text": f"Always run pytest tests/test_export.py before a commit {ATTACK}."},
        ]}),
        _row("user", 5, {"role": "user", "content": f"I prefer small commits {ATTACK}; the CSV header must keep order {ATTACK}."}),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def handoff_data() -> dict:
    return {
        "handoff_version": "1.0.0", "agent_role": f"backend{ATTACK}", "timestamp": "2026-01-01T00:00:00Z",
        "session_id": f"{SESSION}{ATTACK}", "context_usage_pct": 40,
        "task_state": {
            "assigned_task": f"Fix src/export.py {ATTACK}", "completion_pct": 50,
            "completed_subtasks": [f"header {ATTACK}"], "remaining_subtasks": [f"quoting {ATTACK}"], "blockers": [ATTACK],
        },
        "decisions_made": [{"decision": f"use DictWriter {ATTACK}", "rationale": f"keeps order {ATTACK}", "affects_files": [f"src/{ATTACK}.py"]}],
        "files_modified": [f"src/export{ATTACK}.py"], "files_created": [], "contracts_consumed": [],
        "continuation_context": f"Run pytest tests/test_export.py; ValueError in src/export.py line 40 {ATTACK}",
        "suggested_first_action": f"Run pytest tests/test_export.py {ATTACK}",
    }


def write_project(root: Path) -> Path:
    """A project with a hostile transcript, MEMORY.md and handoff; returns the transcript's path."""
    (root / "MEMORY.md").write_text(
        f"# Memory\n\n## Decisions\n- Use csv.DictWriter {ATTACK}\n\n## Constraints\n- Never push to main {ATTACK}\n", encoding="utf-8"
    )
    (root / "CLAUDE.md").write_text(f"# Rules\n- Run the tests {ATTACK}\n", encoding="utf-8")
    handoffs = root / ".claude" / "handoffs"
    handoffs.mkdir(parents=True)
    (handoffs / "backend-20260101T000000Z.yaml").write_text(dump_handoff(handoff_data()), encoding="utf-8")
    return write_transcript(root / "session.jsonl")
