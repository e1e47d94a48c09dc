"""What every Claude Code hook shares: reading its stdin, and failing without harm.

Claude Code starts a hook command with a JSON object on stdin (``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name`` and per-event fields such as
``source`` for SessionStart or ``trigger`` for PreCompact). A hook must never
break the agent: :func:`run_hook` turns any error into a line of
``.ctx/hook-errors.log`` (or, when ``.ctx/`` cannot be written, the user's
``$XDG_STATE_HOME/ctx-tui/hook-errors.log``) and an empty answer.

Claude Code holds the user's prompt until the hook answers, so a hook also
runs against a clock: :func:`time_budget` interrupts it after
``HOOK_BUDGET_S`` (a huge session memory, a stuck lock, a slow disk) and it
answers nothing. A handler calls :func:`disarm` at its commit point (just
before it empties the restatement queue) so that what it took is always printed.
The answer is ASCII JSON: no raw C1 or invisible character reaches the agent's terminal.
"""

from __future__ import annotations

import os

from ctx_tui import json_light
from ctx_tui.paths import state_dir

TYPE_CHECKING = False  # typing is not imported at run time (see below)

if TYPE_CHECKING:
    import signal as _signal  # the same functions, typed
else:
    import _signal  # the C module signal wraps: signal.py builds its enums at import (imports enum)

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    Handler = Callable[["HookInput"], "dict[str, Any] | None"]

# The hook's stdin, its answer and an error line are a few hundred bytes:
# json_light reads and writes them with the standard json module's C code,
# without json's import of re (and enum); importing orjson (which imports
# uuid, platform, dataclasses, inspect) would cost the prompt hook ~15 ms each
# time. The time budget arms SIGALRM through _signal, not signal (its
# Signals, Handlers and Sigmasks enums import enum). Nor does this module
# import pathlib (with urllib.parse, ipaddress, fnmatch), typing or
# contextlib: the prompt hook's common answer (nothing waits) needs none of
# them, and they were half of its start-up beyond Python's own
# (bench/bench_hooks.py; tests/test_startup_imports.py pins the modules).

HOOK_ERROR_LOG = "hook-errors.log"
#: Seconds a hook may work before its commit point (Python's start-up comes on top; the whole
#: hook stays under 2 s).
HOOK_BUDGET_S = 1.2
#: A log this large is moved to ``hook-errors.log.1`` before the next line.
MAX_LOG_BYTES = 1_000_000


class HookInputError(ValueError):
    """The hook's stdin is not what Claude Code sends."""


class HookTimeout(Exception):
    """The hook used up its time budget before its commit point."""


def _expired(signum: int, frame: Any) -> None:
    raise HookTimeout(f"no answer within {HOOK_BUDGET_S} s; the hook gave up (nothing was taken from the queue)")


class time_budget:  # noqa: N801 (used as a function: ``with time_budget(seconds):``)
    """Raise :class:`HookTimeout` in the body after ``seconds`` (SIGALRM; in the main thread only).

    A class rather than a ``contextlib.contextmanager``: the prompt hook does not import contextlib.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.previous: Any = None

    def __enter__(self) -> None:
        if self.seconds is None or not hasattr(_signal, "setitimer"):
            return
        try:
            self.previous = _signal.signal(_signal.SIGALRM, _expired)
        except ValueError:  # not the main thread: no budget
            return
        if self.previous is not None:  # None: a handler not set from Python, which could not be restored
            _signal.setitimer(_signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc_info: object) -> None:
        if self.previous is not None:
            _signal.setitimer(_signal.ITIMER_REAL, 0)
            _signal.signal(_signal.SIGALRM, self.previous)


def disarm() -> None:
    """Stop the running :func:`time_budget`: past this point the hook finishes what it took."""
    if hasattr(_signal, "setitimer"):
        try:
            _signal.setitimer(_signal.ITIMER_REAL, 0)
        except ValueError:
            pass


class HookInput:
    """The hook's stdin, parsed.

    The project folder and the transcript are kept as the strings found (os.path
    joins them) and made :class:`~pathlib.Path` objects when first asked for:
    the prompt hook's common answer needs no pathlib. A plain class: a
    NamedTuple imports typing, ``dataclasses`` imports inspect.
    """

    __slots__ = ("session_id", "folder", "transcript", "event", "raw", "source", "trigger", "custom_instructions")

    def __init__(
        self,
        session_id: str,
        folder: str,
        transcript: str | None,
        event: str | None,
        raw: dict[str, Any],
        source: str | None = None,
        trigger: str | None = None,
        custom_instructions: str | None = None,
    ) -> None:
        self.session_id = session_id
        self.folder = folder  # the project: every state file of the hook lives in its .ctx/
        self.transcript = transcript  # transcript_path as sent, ``~`` expanded
        self.event = event  # hook_event_name as sent
        self.raw = raw  # the whole object as sent
        self.source = source  # SessionStart: startup | resume | clear | compact
        self.trigger = trigger  # PreCompact: manual | auto
        self.custom_instructions = custom_instructions  # PreCompact: what the user passed to /compact

    @property
    def cwd(self) -> Path:
        """The project folder."""
        from pathlib import Path

        return Path(self.folder)

    @property
    def transcript_path(self) -> Path | None:
        from pathlib import Path

        return None if self.transcript is None else Path(self.transcript)


def _opt_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


def parse_hook_input(data: bytes, default_cwd: str | os.PathLike[str]) -> HookInput:
    """The hook's stdin as a :class:`HookInput`; :class:`HookInputError` when malformed."""
    try:
        obj = json_light.loads(data)
    except ValueError as exc:  # not JSON, or not UTF-8
        raise HookInputError(f"stdin is not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise HookInputError("stdin is not a JSON object")
    session_id = _opt_str(obj, "session_id")
    if session_id is None:
        raise HookInputError("stdin has no session_id")
    cwd_text = _opt_str(obj, "cwd")
    cwd = os.path.join(default_cwd, cwd_text or "")  # an absolute cwd replaces the default
    if not os.path.isdir(cwd):  # never create a .ctx/ somewhere that is not a project
        from pathlib import Path

        raise HookInputError(f"cwd is not a folder: {Path(cwd)}")
    transcript = _opt_str(obj, "transcript_path")
    return HookInput(
        session_id=session_id,
        folder=cwd,
        transcript=os.path.expanduser(transcript) if transcript else None,
        event=_opt_str(obj, "hook_event_name"),
        source=_opt_str(obj, "source"),
        trigger=_opt_str(obj, "trigger"),
        custom_instructions=_opt_str(obj, "custom_instructions"),
        raw=obj,
    )


def _dumps(obj: Any) -> str:
    """Compact JSON, non-ASCII kept as is (as orjson writes it)."""
    return json_light.dumps(obj, ensure_ascii=False)


def user_state_dir() -> Path:
    from pathlib import Path

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


def log_hook_error(
    project: str | os.PathLike[str], hook: str, exc: BaseException, session: str | None = None
) -> Path | None:
    """Write the error to the project's hook log, else the user's; the log written, or None."""
    import traceback
    from datetime import datetime, timezone
    from pathlib import Path

    project = Path(project)

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


def run_hook(
    name: str, handler: Handler, stdin: bytes, default_cwd: str | os.PathLike[str], budget: float | None = None
) -> str:
    """Run one hook; the JSON text to print, or "" (nothing to say, or an error was logged).

    Never raises: whatever goes wrong inside is logged and answered with "".
    With ``budget`` the handler runs under :func:`time_budget`.
    """
    project: str | os.PathLike[str] = default_cwd
    session: str | None = None
    try:
        with time_budget(budget):
            hook = parse_hook_input(stdin, default_cwd)
            project, session = hook.folder, hook.session_id
            answer = handler(hook)
        return json_light.dumps(answer) if answer else ""  # ASCII: \\u escapes
    except BaseException as exc:  # a hook must never break the agent
        log_hook_error(project, name, exc, session)
        return ""
