"""Where a project's state lives: the project root, its ``.ctx/`` folder, the config files."""

from __future__ import annotations

import os
from pathlib import Path

STATE_DIR = ".ctx"
PROJECT_CONFIG = Path(STATE_DIR) / "config.yaml"
#: ``.ctx/sessions/``: one session memory file per session.
SESSIONS_DIR = "sessions"


def state_dir(project: Path) -> Path:
    """The project's ``.ctx/`` folder (not created here)."""
    return project / STATE_DIR


def restate_queue_path(project: Path, session_id: str) -> Path:
    """``.ctx/restate/<session-id>.json``: the session's restatement queue (see actions.restate_queue).

    Here so that the prompt hook can see that nothing waits without importing the queue's code.
    """
    return state_dir(project) / "restate" / f"{safe_name(session_id)}.json"


def session_memory_path(project: Path, session_id: str) -> Path:
    """``.ctx/sessions/<session-id>.yaml``: the session's memory (see memory.session_store).

    Here so that the ``SessionStart`` hook can see there is none without importing the model.
    """
    return state_dir(project) / SESSIONS_DIR / f"{safe_name(session_id)}.yaml"


def safe_name(text: str, fallback: str = "session") -> str:
    """A file-name-safe form of ``text``: no separators, no ``..``, no control chars."""
    cleaned = "".join(c if (c.isalnum() or c in "-_.") else "-" for c in text)
    cleaned = cleaned.replace("..", "-").strip(".-")
    return cleaned[:80] or fallback


def shown_path(path: Path, project: Path | None) -> Path:
    """``path`` relative to ``project`` when it lies inside it, else as given (for messages)."""
    return path.relative_to(project) if project is not None and path.is_relative_to(project) else path


def user_config_path() -> Path:
    """``$XDG_CONFIG_HOME/ctx-tui/config.yaml`` (default ``~/.config``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ctx-tui" / "config.yaml"


def project_config_path(project: Path) -> Path:
    return project / PROJECT_CONFIG


def config_files(project: Path) -> list[Path]:
    """The config files that exist for ``project``, user file first (nothing is read).

    Lets a caller that only needs the defaults skip importing the config module
    (and ``dataclasses``, which loads ``inspect``) when there is no file to load.
    """
    return [path for path in (user_config_path(), project_config_path(project)) if os.path.lexists(path)]
