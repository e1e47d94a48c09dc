"""Where a project's state lives: the project root and its ``.ctx/`` folder."""

from __future__ import annotations

from pathlib import Path

STATE_DIR = ".ctx"


def state_dir(project: Path) -> Path:
    """The project's ``.ctx/`` folder (not created here)."""
    return project / STATE_DIR


def safe_name(text: str, fallback: str = "session") -> str:
    """A file-name-safe form of ``text``: no separators, no ``..``, no control chars."""
    cleaned = "".join(c if (c.isalnum() or c in "-_.") else "-" for c in text)
    cleaned = cleaned.replace("..", "-").strip(".-")
    return cleaned[:80] or fallback


def shown_path(path: Path, project: Path | None) -> Path:
    """``path`` relative to ``project`` when it lies inside it, else as given (for messages)."""
    return path.relative_to(project) if project is not None and path.is_relative_to(project) else path
