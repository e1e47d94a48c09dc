"""Generated agent homes for the session picker: N Claude Code and Codex sessions with known figures.

Used by tests/test_sessions.py and bench/bench_sessions.py. Every session gets
a distinct modification time (session ``i`` is ``i`` minutes older than
``now``), a model, a reported usage and a working directory; every fifth one
carries a ~200 KB tool result, so a reader that does not start from the tail
pays for it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

FILLER = "x = compute(item)  # padding line\n" * 6000


@dataclass(frozen=True)
class Made:
    path: Path
    agent: str
    project: str
    model: str
    tokens: int
    window: int
    modified: float


def _claude(path: Path, i: int, project: str, model: str, tokens: int) -> None:
    sid = path.stem
    common = {"sessionId": sid, "cwd": project, "version": "2.0.76", "timestamp": f"2026-11-30T10:{i % 60:02d}:00.000Z"}
    usage = {"input_tokens": 10, "cache_creation_input_tokens": 90, "cache_read_input_tokens": tokens - 100, "output_tokens": 7}
    rows = [
        {"type": "file-history-snapshot", "messageId": "m0", "snapshot": {}},
        {**common, "type": "user", "uuid": f"u{i}", "message": {"role": "user", "content": f"Task {i}: build the exporter"}},
        {**common, "type": "assistant", "uuid": f"a{i}", "message": {"id": f"m{i}", "role": "assistant", "model": model,
         "usage": {**usage, "cache_read_input_tokens": 1}, "content": [{"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {}}]}},
        {**common, "type": "user", "uuid": f"r{i}", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": FILLER if i % 5 == 0 else "ok"}]}},
        {**common, "type": "assistant", "uuid": f"b{i}", "message": {"id": f"n{i}", "role": "assistant", "model": model,
         "usage": usage, "content": [{"type": "text", "text": "Done."}]}},
        {**common, "type": "assistant", "isSidechain": True, "uuid": f"s{i}", "message": {"id": f"s{i}", "role": "assistant",
         "model": model, "usage": {"input_tokens": 5}, "content": [{"type": "text", "text": "sub-agent"}]}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _codex(path: Path, i: int, project: str, model: str, tokens: int, window: int) -> None:
    ts = f"2026-11-30T10:{i % 60:02d}:00.000Z"
    info = {"last_token_usage": {"input_tokens": tokens - 50, "cached_input_tokens": 0, "output_tokens": 50, "total_tokens": tokens},
            "model_context_window": window}
    rows = [
        {"timestamp": ts, "type": "session_meta", "payload": {"id": f"codex-{i}", "cwd": project, "cli_version": "0.125.0",
                                                              "base_instructions": {"text": "You are Codex. " * 300}}},
        {"timestamp": ts, "type": "turn_context", "payload": {"turn_id": "t1", "cwd": project, "model": model}},
        {"timestamp": ts, "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}},
        {"timestamp": ts, "type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1",
                                                               "output": FILLER if i % 5 == 0 else "ok"}},
        {"timestamp": ts, "type": "event_msg", "payload": {"type": "token_count", "info": info, "rate_limits": {}}},
        {"timestamp": ts, "type": "event_msg", "payload": {"type": "token_count", "info": None, "rate_limits": {}}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def make_sessions(claude_home: Path, codex_home: Path, n: int, now: float) -> list[Made]:
    """Write ``n`` sessions (two Claude Code for each Codex one); returns them newest first."""
    made: list[Made] = []
    for i in range(n):
        project = f"/home/dev/project-{i % 37}"
        modified = now - 60.0 * i - 5
        if i % 3 == 2:
            folder = codex_home / "sessions" / "2026" / "11" / f"{1 + i % 28:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"rollout-2026-11-30T10-00-00-0000000{i:05d}.jsonl"
            model, tokens, window = "gpt-5.5", 1_000 + 97 * i, 258_400
            _codex(path, i, project, model, tokens, window)
            agent = "codex"
        else:
            folder = claude_home / "projects" / project.replace("/", "-")
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"00000000-0000-4000-8000-{i:012d}.jsonl"
            model, tokens, window = "claude-sonnet-4-5-20250929", 2_000 + 131 * i, 200_000
            _claude(path, i, project, model, tokens)
            agent = "claude"
        os.utime(path, (modified, modified))
        made.append(Made(path, agent, project, model, tokens, window, modified))
    return made
