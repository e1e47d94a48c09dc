"""Helpers for the actions / hooks tests: a synthetic Claude Code session and the CLI as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ctx_tui.memory.items import TrackedItem
from ctx_tui.memory.session_store import update_session_memory

SESSION_ID = "5f0c1c2e-8a8b-4d7e-9a51-0c4f7e2b9d10"


def claude_rows(session_id: str, cwd: Path, prompts: Sequence[str], tool_output: str = "") -> list[dict]:
    """Rows as Claude Code writes them: a user prompt, a tool call + result, an answer with usage."""
    rows: list[dict] = []
    parent = None
    for n, prompt in enumerate(prompts, start=1):
        stamp = f"2026-03-01T10:{n // 60:02d}:{n % 60:02d}.000Z"
        common = {"sessionId": session_id, "cwd": str(cwd), "version": "2.0.76", "timestamp": stamp}
        user = {**common, "type": "user", "uuid": f"u{n}", "parentUuid": parent,
                "message": {"role": "user", "content": prompt}}
        call = {**common, "type": "assistant", "uuid": f"c{n}", "parentUuid": f"u{n}",
                "message": {"id": f"msg_c{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                            "content": [{"type": "tool_use", "id": f"t{n}", "name": "Read",
                                         "input": {"file_path": f"src/mod{n}.py"}}],
                            "usage": {"input_tokens": 50, "output_tokens": 5,
                                      "cache_creation_input_tokens": 1000 * n, "cache_read_input_tokens": 0}}}
        result = {**common, "type": "user", "uuid": f"r{n}", "parentUuid": f"c{n}",
                  "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}",
                                                           "content": tool_output or f"def f{n}(): pass"}]}}
        answer = {**common, "type": "assistant", "uuid": f"a{n}", "parentUuid": f"r{n}",
                  "message": {"id": f"msg_a{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                              "content": [{"type": "text", "text": f"Done with step {n}."}],
                              "usage": {"input_tokens": 60, "output_tokens": 20,
                                        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1100 * n}}}
        rows += [user, call, result, answer]
        parent = f"a{n}"
    return rows


def write_transcript(project: Path, prompts: Sequence[str], session_id: str = SESSION_ID) -> Path:
    path = project / f"{session_id}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in claude_rows(session_id, project, prompts)))
    return path


def register(project: Path, item_id: str, item_type: str, content: str, session_id: str = SESSION_ID) -> None:
    """Register a tracked item the way ``ctx-tui register`` does (through session memory)."""
    item = TrackedItem(id=item_id, type=item_type, content=content)
    update_session_memory(project, session_id, lambda m: m.upsert_item(item))


def hook_stdin(project: Path, event: str, transcript: Path | None, session_id: str = SESSION_ID, **extra: str) -> bytes:
    data = {"session_id": session_id, "cwd": str(project), "hook_event_name": event,
            "permission_mode": "default", **extra}
    if transcript is not None:
        data["transcript_path"] = str(transcript)
    return json.dumps(data).encode()


def cli(project: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None,
        timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """``python -m ctx_tui ARGS`` in ``project`` (bytes in, bytes out)."""
    return subprocess.run(
        [sys.executable, "-m", "ctx_tui", *args],
        cwd=project,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    """Wait for a detached ``hook deferred`` job to leave its mark (polling, bounded)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the deferred hook job did not finish in time")
        time.sleep(0.05)
