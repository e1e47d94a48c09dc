"""Find the newest agent session of a working directory.

* Claude Code: ``$CLAUDE_CONFIG_DIR`` (default ``~/.claude``) ``/projects/<slug>/*.jsonl``
  where the slug is the absolute cwd with every ``/`` and ``.`` replaced by
  ``-``; subagent files (``<session>/subagents/agent-*.jsonl``) are not sessions.
* Codex: ``$CODEX_HOME`` (default ``~/.codex``) ``/sessions/**/rollout-*.jsonl``
  whose first line (``session_meta``) names this cwd; only that line is read.

The newest by modification time wins; ``prefer`` (``"claude"`` / ``"codex"``)
limits the search to one agent. Nothing found is a :class:`CtxError` naming
the folders searched.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from ctx_tui.errors import CtxError
from ctx_tui.storage import open_regular
from ctx_tui.transcripts.follow import BOM

CLAUDE = "claude"
CODEX = "codex"
#: A session_meta line is a few KB, but may carry long base instructions.
_FIRST_LINE_LIMIT = 1 << 20


def claude_home() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def claude_slug(cwd: Path) -> str:
    """Claude Code's project folder name for ``cwd``: every ``/`` and ``.`` becomes ``-``."""
    return str(cwd).replace("/", "-").replace(".", "-")


def claude_project_dir(cwd: Path) -> Path:
    return claude_home() / "projects" / claude_slug(cwd)


def _claude_project_dirs(cwd: Path) -> list[Path]:
    """The project folder, and the name newer Claude Code versions use when it differs
    (every character other than a letter or digit becomes ``-``)."""
    strict = "".join(c if c.isascii() and c.isalnum() else "-" for c in str(cwd))
    return [claude_project_dir(cwd)] + ([claude_home() / "projects" / strict] if strict != claude_slug(cwd) else [])


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0


def claude_sessions(cwd: Path) -> list[Path]:
    """Claude Code session files of ``cwd`` (subagent files excluded)."""
    found: list[Path] = []
    for folder in _claude_project_dirs(cwd):
        try:
            found += [p for p in folder.glob("*.jsonl") if p.is_file() and not p.name.startswith("agent-")]
        except OSError:
            continue
    return found


def _first_line(path: Path) -> bytes:
    try:
        with open_regular(path) as fh:
            return fh.readline(_FIRST_LINE_LIMIT).removeprefix(BOM)
    except OSError:
        return b""


def codex_session_cwd(path: Path) -> str | None:
    """The cwd named by a rollout's ``session_meta`` first line, if any."""
    try:
        row = orjson.loads(_first_line(path))
    except orjson.JSONDecodeError:
        return None
    if isinstance(row, dict) and row.get("type") == "session_meta" and isinstance(row.get("payload"), dict):
        cwd = row["payload"].get("cwd")
        return cwd if isinstance(cwd, str) else None
    return None


def codex_sessions(cwd: Path) -> list[Path]:
    """Codex rollout files whose session started in ``cwd``."""
    root = codex_home() / "sessions"
    target = os.path.normpath(str(cwd))
    found = []
    try:
        candidates = list(root.rglob("rollout-*.jsonl"))
    except OSError:
        return []
    for path in candidates:
        named = codex_session_cwd(path)
        if named is not None and os.path.normpath(named) == target:
            found.append(path)
    return found


def find_session(cwd: Path, prefer: str | None = None) -> Path:
    """The newest session file of ``cwd`` (``prefer``: "claude", "codex" or None for both)."""
    cwd = Path(os.path.abspath(cwd))
    if prefer not in (None, CLAUDE, CODEX):
        raise CtxError(f"unknown agent {prefer!r}: use 'claude' or 'codex'")
    candidates: list[Path] = []
    looked: list[str] = []
    if prefer in (None, CLAUDE):
        candidates += claude_sessions(cwd)
        looked.append(f"{claude_project_dir(cwd)}/*.jsonl")
    if prefer in (None, CODEX):
        candidates += codex_sessions(cwd)
        looked.append(f"{codex_home() / 'sessions'}/**/rollout-*.jsonl (session_meta.cwd = {cwd})")
    if not candidates:
        raise CtxError("no session found for this directory; looked in " + " and ".join(looked) + "; pass a transcript PATH")
    return max(candidates, key=_mtime)
