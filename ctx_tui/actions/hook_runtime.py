"""What every Claude Code hook shares: reading its stdin, and failing without harm.

Claude Code starts a hook command with a JSON object on stdin (``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name`` and per-event fields such as
``source`` for SessionStart or ``trigger`` for PreCompact). A hook must never
break the agent: :func:`run_hook` turns any error into a line of
``.ctx/hook-errors.log`` (or, when ``.ctx/`` cannot be written, the user's
``$XDG_STATE_HOME/ctx-tui/hook-errors.log``) and an empty answer.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from ctx_tui.paths import state_dir

# The hook's stdin, its answer and an error line are a few hundred bytes: the
# standard json module handles them; importing orjson (which imports uuid,
# platform, dataclasses, inspect) would cost the prompt hook ~15 ms each time.

HOOK_ERROR_LOG = "hook-errors.log"
#: A log this large is moved to ``hook-errors.log.1`` before the next line.
MAX_LOG_BYTES = 1_000_000


class HookInputError(ValueError):
    """The hook's stdin is not what Claude Code sends."""


class HookInput(NamedTuple):
    """The hook's stdin, parsed (a NamedTuple: ``import dataclasses`` would cost the hook ~9 ms)."""

    session_id: str
    cwd: Path  # the project: every state file of the hook lives in its .ctx/
    transcript_path: Path | None
    event: str | None  # hook_event_name as sent
    raw: dict[str, Any]  # the whole object as sent
    source: str | None = None  # SessionStart: startup | resume | clear | compact
    trigger: str | None = None  # PreCompact: manual | auto
    custom_instructions: str | None = None  # PreCompact: what the user passed to /compact


def _opt_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


def parse_hook_input(data: bytes, default_cwd: Path) -> HookInput:
    """The hook's stdin as a :class:`HookInput`; :class:`HookInputError` when malformed."""
    try:
        obj = json.loads(data)
    except ValueError as exc:  # not JSON, or not UTF-8
        raise HookInputError(f"stdin is not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise HookInputError("stdin is not a JSON object")
    session_id = _opt_str(obj, "session_id")
    if session_id is None:
        raise HookInputError("stdin has no session_id")
    cwd_text = _opt_str(obj, "cwd")
    cwd = default_cwd if cwd_text is None else default_cwd / cwd_text  # an absolute cwd replaces the default
    if not cwd.is_dir():  # never create a .ctx/ somewhere that is not a project
        raise HookInputError(f"cwd is not a folder: {cwd}")
    transcript = _opt_str(obj, "transcript_path")
    return HookInput(
        session_id=session_id,
        cwd=cwd,
        transcript_path=Path(os.path.expanduser(transcript)) if transcript else None,
        event=_opt_str(obj, "hook_event_name"),
        source=_opt_str(obj, "source"),
        trigger=_opt_str(obj, "trigger"),
        custom_instructions=_opt_str(obj, "custom_instructions"),
        raw=obj,
    )


def _dumps(obj: Any) -> str:
    """Compact JSON, non-ASCII kept as is (as orjson writes it)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def user_state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "ctx-tui"


def _append_log(path: Path, line: str) -> None:
    from ctx_tui.storage import append_line  # only when something went wrong

    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    except FileNotFoundError:
        pass
    append_line(path, line)


def log_hook_error(project: Path, hook: str, exc: BaseException, session: str | None = None) -> Path | None:
    """Write the error to the project's hook log, else the user's; the log written, or None."""
    import traceback
    from datetime import datetime, timezone

    line = _dumps(
        {
            "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            "hook": hook,
            "session": session,
            "project": str(project),
            "error": f"{type(exc).__name__}: {exc}",
            "traceback": "".join(traceback.format_exception(exc)),
        }
    )
    for path in (state_dir(project) / HOOK_ERROR_LOG, user_state_dir() / HOOK_ERROR_LOG):
        try:
            _append_log(path, line)
            return path
        except Exception:  # an unwritable place: try the next one
            continue
    return None


Handler = Callable[[HookInput], "dict[str, Any] | None"]


def run_hook(name: str, handler: Handler, stdin: bytes, default_cwd: Path) -> str:
    """Run one hook; the JSON text to print, or "" (nothing to say, or an error was logged).

    Never raises: whatever goes wrong inside is logged and answered with "".
    """
    project = default_cwd
    session: str | None = None
    try:
        hook = parse_hook_input(stdin, default_cwd)
        project, session = hook.cwd, hook.session_id
        answer = handler(hook)
        return _dumps(answer) if answer else ""
    except BaseException as exc:  # a hook must never break the agent
        log_hook_error(project, name, exc, session)
        return ""
