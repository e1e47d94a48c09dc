"""Wiring ctx-tui into Claude Code's ``settings.json``: the hooks and the status line.

Every install goes through :func:`merge_into_settings`: under a lock, read the
file, merge, write it atomically only when something changed. The merges keep
every other key and every other hook of the file: they only add (or, when the
ctx-tui executable moved, update) ctx-tui's own entries. An install is
idempotent: a second one changes nothing, not even a byte. An existing file
that is not valid JSON is never overwritten: the install stops with a message.

* :func:`install_hooks`: the three hook commands (``ctx-tui hook install``);
* :func:`install_statusline`: the ``statusLine`` command (``ctx-tui statusline
  install``); a status line that is not ctx-tui's is replaced only with
  ``force``.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ctx_tui.errors import CtxError
from ctx_tui.paths import state_dir
from ctx_tui.storage import locked, read_regular, write_atomic
from ctx_tui.usercache import cache_dir

SETTINGS_FILE = Path(".claude") / "settings.json"
LOCAL_SETTINGS_FILE = Path(".claude") / "settings.local.json"


@dataclass(frozen=True, slots=True)
class HookSpec:
    event: str  # Claude Code's event name
    subcommand: str  # ``ctx-tui hook <subcommand>``
    matcher: str | None  # None: the group has no matcher (the event takes none)
    timeout: int  # seconds Claude Code waits before cancelling the command


HOOKS: tuple[HookSpec, ...] = (
    HookSpec("UserPromptSubmit", "user-prompt-submit", None, 10),
    HookSpec("SessionStart", "session-start", "compact", 10),
    HookSpec("PreCompact", "pre-compact", None, 30),
)


@dataclass(frozen=True, slots=True)
class InstallResult:
    path: Path
    changed: bool  # False: everything was already in place (the file is untouched)
    added: list[str] = field(default_factory=list)  # events newly wired
    updated: list[str] = field(default_factory=list)  # events whose command was rewritten
    settings: dict[str, Any] = field(default_factory=dict)  # the file's content after the merge


#: The Python code Claude Code runs: ctx_tui's main on the arguments after it (``sys.argv`` is
#: ``['-c', 'hook', 'user-prompt-submit']``). Not the ``ctx-tui`` console script: pip's template
#: starts with ``import re`` (~1.4x a bare Python start, on every prompt); nor ``-m ctx_tui``
#: (runpy imports importlib.util and contextlib). docs/performance.md has the figures.
ENTRY_CODE = "import sys;from ctx_tui.cli import main;sys.exit(main())"


def ctx_tui_command() -> str:
    """How Claude Code should start this ctx-tui, robust to PATH, the current directory and spaces.

    This interpreter (a venv's python keeps its packages) with ``-P -c``
    :data:`ENTRY_CODE`: ``-P`` keeps the folder Claude Code runs the command in
    off ``sys.path``, so a project's own ``json.py`` or ``enum.py`` is never
    imported in place of the standard module. Claude Code runs the command
    through a shell: every part is quoted for it.
    """
    return f"{shlex.quote(os.path.abspath(sys.executable))} -P -c {shlex.quote(ENTRY_CODE)}"


def hook_command(spec: HookSpec, base: str | None = None) -> str:
    return f"{base or ctx_tui_command()} hook {spec.subcommand}"


def settings_block(base: str | None = None) -> dict[str, Any]:
    """The ``{"hooks": {...}}`` block that wires the three hooks."""
    hooks: dict[str, Any] = {}
    for spec in HOOKS:
        group: dict[str, Any] = {}
        if spec.matcher is not None:
            group["matcher"] = spec.matcher
        group["hooks"] = [{"type": "command", "command": hook_command(spec, base), "timeout": spec.timeout}]
        hooks[spec.event] = [group]
    return {"hooks": hooks}


def _is_ours(command: Any, spec: HookSpec) -> bool:
    """Whether a hook command is a ctx-tui ``hook <subcommand>``, whatever path it starts from.

    Both forms: ``python -c ENTRY_CODE hook ...`` (ENTRY_CODE names ctx_tui.cli) and the
    console script's path (``.../ctx-tui hook ...``) that earlier versions wrote; the next
    install rewrites the latter.
    """
    if not isinstance(command, str):
        return False
    words = command.split()
    return (
        len(words) >= 3
        and words[-2:] == ["hook", spec.subcommand]
        and any("ctx-tui" in w or "ctx_tui" in w for w in words[:-2])
    )


def _hook_entries(groups: Any) -> list[dict[str, Any]]:
    """Every hook entry (``{"type": "command", ...}``) of an event's matcher groups, any matcher."""
    entries: list[dict[str, Any]] = []
    for group in groups if isinstance(groups, list) else []:
        hooks = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(hooks, list):
            entries.extend(h for h in hooks if isinstance(h, dict))
    return entries


def _read_settings(path: Path) -> dict[str, Any]:
    try:
        raw = read_regular(path).decode("utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise CtxError(f"{path}: cannot read ({exc}); nothing was changed") from None
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise CtxError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix it or wire the hooks by hand (see `ctx-tui hook install --print`); nothing was changed"
        ) from None
    except RecursionError:
        raise CtxError(f"{path}: nested too deeply to read; nothing was changed") from None
    except ValueError:  # the only other failure of json.loads: an integer too long to convert
        raise CtxError(f"{path}: holds a number of more than {sys.get_int_max_str_digits():,} digits; nothing was changed") from None
    if not isinstance(data, dict):
        raise CtxError(f"{path}: the top level must be a JSON object; nothing was changed")
    return data


def merge_settings(
    settings: dict[str, Any], base: str | None = None
) -> tuple[dict[str, Any], list[str], list[str]]:
    """``settings`` with ctx-tui's hooks merged in; returns (merged, added, updated).

    ``settings`` itself is not modified. A hook of ours already present under any
    matcher counts as installed (a user's own matcher is respected). A wrongly
    shaped ``hooks`` section is an error, never silently replaced.
    """
    merged = copy.deepcopy(settings)
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise CtxError("settings.json: 'hooks' must be a JSON object; nothing was changed")
    added: list[str] = []
    updated: list[str] = []
    for spec in HOOKS:
        wanted = hook_command(spec, base)
        groups = hooks.setdefault(spec.event, [])
        if not isinstance(groups, list):
            raise CtxError(f"settings.json: 'hooks.{spec.event}' must be a list; nothing was changed")
        found = False
        for hook in _hook_entries(groups):
            if _is_ours(hook.get("command"), spec):
                found = True
                if hook["command"] != wanted:
                    hook["command"] = wanted
                    updated.append(spec.event)
        if not found:
            groups.append(settings_block(base)["hooks"][spec.event][0])
            added.append(spec.event)
    return merged, added, updated


def merge_into_settings(path: Path, lock: Path, merge: Callable[[dict[str, Any]], dict[str, Any]]) -> tuple[dict[str, Any], bool]:
    """Read ``path`` (a missing file is ``{}``), apply ``merge``, write the result if it differs.

    Holds the cross-process lock ``lock`` throughout; returns (merged, changed).
    ``merge`` must not modify its argument and raises CtxError to stop (nothing
    is written then).
    """
    try:
        with locked(lock):
            current = _read_settings(path)
            merged = merge(current)
            changed = merged != current
            if changed:
                write_atomic(path, _settings_text(merged))
    except OSError as exc:
        where = exc.filename or path
        raise CtxError(f"{where}: cannot write ({exc.strerror or exc}); {path} was not changed") from None
    return merged, changed


def settings_target(project: Path, user: bool = False) -> tuple[Path, Path]:
    """(the settings file, the lock guarding it): the project's ``.claude/settings.json`` or the user's."""
    if user:
        return _user_settings(), Path(cache_dir()) / "claude-user-settings.json"
    return project / SETTINGS_FILE, state_dir(project) / "claude-settings.json"


def install_hooks(project: Path, base: str | None = None) -> InstallResult:
    """Merge the hooks into ``<project>/.claude/settings.json`` (created if missing)."""
    path, lock = settings_target(project)
    found: dict[str, list[str]] = {}

    def merge(current: dict[str, Any]) -> dict[str, Any]:
        merged, found["added"], found["updated"] = merge_settings(current, base)
        return merged

    merged, changed = merge_into_settings(path, lock, merge)
    return InstallResult(path, changed, found["added"], found["updated"], merged)


# -- the status line ------------------------------------------------------------------------
StatuslineAction = Literal["added", "updated", "replaced", "unchanged"]


@dataclass(frozen=True, slots=True)
class StatuslineResult:
    path: Path
    action: StatuslineAction
    previous: Any  # the statusLine that was there before (None when there was none)
    settings: dict[str, Any]


def statusline_command(base: str | None = None) -> str:
    return f"{base or ctx_tui_command()} statusline"


def statusline_block(base: str | None = None) -> dict[str, Any]:
    """The ``{"statusLine": {...}}`` block Claude Code reads."""
    return {"statusLine": {"type": "command", "command": statusline_command(base), "padding": 0}}


def _is_our_statusline(entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    words = entry["command"].split()
    return len(words) >= 2 and words[-1] == "statusline" and any("ctx-tui" in w or "ctx_tui" in w for w in words[:-1])


def merge_statusline(
    settings: dict[str, Any], base: str | None = None, force: bool = False
) -> tuple[dict[str, Any], StatuslineAction]:
    """``settings`` with ctx-tui's status line; ``settings`` itself is not modified.

    Ours already there: its command is brought up to date (its other keys, such
    as ``padding``, kept). Someone else's: a CtxError unless ``force``.
    """
    merged = copy.deepcopy(settings)
    wanted = statusline_block(base)["statusLine"]
    current = merged.get("statusLine")
    if current is None:
        merged["statusLine"] = wanted
        return merged, "added"
    if _is_our_statusline(current):
        if current.get("command") == wanted["command"] and current.get("type") == "command":
            return merged, "unchanged"
        merged["statusLine"] = {**current, "type": "command", "command": wanted["command"]}
        return merged, "updated"
    if not force:
        shown = current.get("command") if isinstance(current, dict) else current
        raise CtxError(
            f"settings.json already has a status line ({json.dumps(shown, ensure_ascii=False)[:120]}); "
            "`--force` replaces it; nothing was changed"
        )
    merged["statusLine"] = wanted
    return merged, "replaced"


def install_statusline(project: Path, *, user: bool = False, force: bool = False, base: str | None = None) -> StatuslineResult:
    """Merge the status line into the project's (or with ``user`` the user's) Claude Code settings."""
    path, lock = settings_target(project, user)
    seen: dict[str, Any] = {}

    def merge(current: dict[str, Any]) -> dict[str, Any]:
        seen["previous"] = copy.deepcopy(current.get("statusLine"))
        merged, seen["action"] = merge_statusline(current, base, force)
        return merged

    merged, _ = merge_into_settings(path, lock, merge)
    return StatuslineResult(path, seen["action"], seen["previous"], merged)


def _settings_text(settings: dict[str, Any]) -> str:
    """The settings as JSON text; strings that cannot be UTF-8 (a lone surrogate) stay ``\\u`` escapes."""
    text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(settings, indent=2) + "\n"
    return text


def _user_settings() -> Path:
    base = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    return Path(base) / "settings.json"


def is_hook_installed(project: Path) -> bool:
    """Whether Claude Code will run ``ctx-tui hook user-prompt-submit`` in this project.

    Looks at the project's ``.claude/settings.json`` and ``settings.local.json``
    and the user's settings; an unreadable file counts as not wiring it.
    """
    spec = HOOKS[0]
    for path in (project / SETTINGS_FILE, project / LOCAL_SETTINGS_FILE, _user_settings()):
        try:
            data = _read_settings(path)
        except CtxError:
            continue
        hooks = data.get("hooks")
        groups = hooks.get(spec.event) if isinstance(hooks, dict) else None
        if any(_is_ours(h.get("command"), spec) for h in _hook_entries(groups)):
            return True
    return False
