"""A hook never holds the prompt: it gives up within its budget, and never loses what it took (issue 15)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from actions_support import SESSION_ID, cli, hook_stdin, register, write_transcript
from filelock import FileLock

from ctx_tui.actions.hook_install import install_hooks
from ctx_tui.actions.hook_runtime import HOOK_BUDGET_S, run_hook
from ctx_tui.actions.restate_queue import pending_restatements, queue_path
from ctx_tui.storage import lock_path

PROMPTS = ["Build the export in src/export.py. Never push to main without a review.", "Add the CSV header."]


def test_a_slow_handler_is_cut_off_and_logged(tmp_path: Path) -> None:
    def slow(hook):
        time.sleep(30)
        return {"never": True}

    stdin = json.dumps({"session_id": "s", "cwd": str(tmp_path)}).encode()
    started = time.monotonic()
    assert run_hook("session-start", slow, stdin, tmp_path, budget=HOOK_BUDGET_S) == ""
    assert time.monotonic() - started < HOOK_BUDGET_S + 2
    assert "HookTimeout" in (tmp_path / ".ctx" / "hook-errors.log").read_text()


def test_a_held_queue_lock_delays_nothing_and_loses_nothing(tmp_path: Path) -> None:
    install_hooks(tmp_path)
    transcript = write_transcript(tmp_path, PROMPTS)
    register(tmp_path, "no-push", "constraint", "Never push to main without a review")
    assert cli(tmp_path, "refresh", "--id", "no-push", str(transcript)).returncode == 0
    stdin = hook_stdin(tmp_path, "UserPromptSubmit", transcript)
    with FileLock(str(lock_path(queue_path(tmp_path, SESSION_ID)))):
        out = cli(tmp_path, "hook", "user-prompt-submit", stdin=stdin, timeout=20)
        assert out.returncode == 0 and out.stdout == b"" and out.stderr == b""
    assert [q.id for q in pending_restatements(tmp_path, SESSION_ID)] == ["no-push"]  # still queued
    out = cli(tmp_path, "hook", "user-prompt-submit", stdin=stdin)
    assert b"Never push to main" in out.stdout and pending_restatements(tmp_path, SESSION_ID) == []
