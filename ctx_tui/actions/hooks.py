"""The Claude Code hooks: what each one does with its :class:`HookInput`.

- ``UserPromptSubmit``: deliver the session's restatement queue as
  ``additionalContext`` (and empty it). It never reads the transcript unless
  ``decay.auto_refresh`` is on.
- ``SessionStart`` (matcher ``compact``): re-inject goals, constraints and
  preferences from session memory after a compaction.
- ``PreCompact``: audit the compaction and save a summary of the live window
  into session memory.

Each handler returns the JSON object to print, or None for no output.
"""

from __future__ import annotations

from typing import Any

from ctx_tui import audit
from ctx_tui.actions.hook_runtime import HookInput, log_hook_error
from ctx_tui.actions.restate import restatement_text, take_restatements
from ctx_tui.config import Config, load_config


def _config(hook: HookInput, name: str) -> Config | None:
    """The project's config; a broken one is logged and the hook goes on without it."""
    try:
        return load_config(hook.cwd).config
    except Exception as exc:
        log_hook_error(hook.cwd, name, exc, hook.session_id)
        return None


def _context(event: str, text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def user_prompt_submit(hook: HookInput) -> dict[str, Any] | None:
    """Deliver (and empty) the restatement queue; None when nothing waits."""
    items = take_restatements(hook.cwd, hook.session_id)
    text = restatement_text(items)
    if not text:
        return None
    audit.record(
        hook.cwd,
        "restatement_delivered",
        session=hook.session_id,
        items=[i.id for i in items],
        via="UserPromptSubmit",
    )
    return _context("UserPromptSubmit", text)
