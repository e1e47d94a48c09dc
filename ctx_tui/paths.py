"""Where a project's state lives: the project root, its ``.ctx/`` folder, the config files."""

from __future__ import annotations

import errno
import os

TYPE_CHECKING = False

if TYPE_CHECKING:
    from pathlib import Path

# No pathlib at import time (its import loads urllib.parse, ipaddress and
# fnmatch): the prompt hook checks its files with the ``*_file`` functions
# below, os.path strings; the ``*_path`` functions build the same paths from a
# Path (tests/test_startup_imports.py pins both).

STATE_DIR = ".ctx"
PROJECT_CONFIG = os.path.join(STATE_DIR, "config.yaml")
#: ``.ctx/sessions/``: one session memory file per session.
SESSIONS_DIR = "sessions"


def state_dir(project: Path) -> Path:
    """The project's ``.ctx/`` folder (not created here)."""
    return project / STATE_DIR


def _queue_parts(session_id: str) -> tuple[str, str, str]:
    return STATE_DIR, "restate", f"{safe_name(session_id)}.json"


def _memory_parts(session_id: str) -> tuple[str, str, str]:
    return STATE_DIR, SESSIONS_DIR, f"{safe_name(session_id)}.yaml"


def restate_queue_path(project: Path, session_id: str) -> Path:
    """``.ctx/restate/<session-id>.json``: the session's restatement queue (see actions.restate_queue)."""
    return project.joinpath(*_queue_parts(session_id))


def restate_queue_file(project: str | os.PathLike[str], session_id: str) -> str:
    """:func:`restate_queue_path` as a string: the prompt hook sees that nothing waits without
    importing the queue's code, or pathlib."""
    return os.path.join(project, *_queue_parts(session_id))


def session_memory_path(project: Path, session_id: str) -> Path:
    """``.ctx/sessions/<session-id>.yaml``: the session's memory (see memory.session_store)."""
    return project.joinpath(*_memory_parts(session_id))


def session_memory_file(project: str | os.PathLike[str], session_id: str) -> str:
    """:func:`session_memory_path` as a string: the ``SessionStart`` hook sees there is none
    without importing the model, or pathlib."""
    return os.path.join(project, *_memory_parts(session_id))


#: What ``Path.exists()`` reads as "no such file" (pathlib's ``_IGNORED_ERRNOS``).
_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def file_exists(path: str) -> bool:
    """``Path(path).exists()``, without pathlib: a missing file (or folder on the way) is False, other errors raise."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno in _MISSING:
            return False
        raise
    except ValueError:  # a NUL in the name
        return False
    return True


def safe_name(text: str, fallback: str = "session") -> str:
    """A file-name-safe form of ``text``: no separators, no ``..``, no control chars."""
    cleaned = "".join(c if (c.isalnum() or c in "-_.") else "-" for c in text)
    cleaned = cleaned.replace("..", "-").strip(".-")
    return cleaned[:80] or fallback


def shown_path(path: Path, project: Path | None) -> Path:
    """``path`` relative to ``project`` when it lies inside it, else as given (for messages)."""
    return path.relative_to(project) if project is not None and path.is_relative_to(project) else path


def user_config_file() -> str:
    """``$XDG_CONFIG_HOME/ctx-tui/config.yaml`` (default ``~/.config``), as a string."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "ctx-tui", "config.yaml")


def user_config_path() -> Path:
    """:func:`user_config_file` as a Path."""
    from pathlib import Path

    return Path(user_config_file())


def project_config_path(project: Path) -> Path:
    return project / PROJECT_CONFIG


def config_files(project: str | os.PathLike[str]) -> list[str]:
    """The config files that exist for ``project``, user file first, as strings (nothing is read).

    Lets a caller that only needs the defaults skip importing the config module
    (and ``dataclasses``, which loads ``inspect``) when there is no file to load.
    """
    candidates = (user_config_file(), os.path.join(project, PROJECT_CONFIG))
    return [path for path in candidates if os.path.lexists(path)]
