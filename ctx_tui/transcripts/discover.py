"""Find the newest agent session of a working directory.

* Claude Code: ``$CLAUDE_CONFIG_DIR`` (default ``~/.claude``) ``/projects/<slug>/*.jsonl``
  where the slug is the absolute cwd with every ``/`` and ``.`` replaced by
  ``-``; subagent files (``<session>/subagents/agent-*.jsonl``) are not sessions.
* Codex: ``$CODEX_HOME`` (default ``~/.codex``) ``/sessions/**/rollout-*.jsonl``
  whose first line (``session_meta``) names this cwd; only that line is read.
* Gemini CLI: ``$GEMINI_CLI_HOME`` (default the home folder) ``/.gemini/tmp/<project>/chats/session-*.json``
  or ``.jsonl``, where ``<project>`` is the SHA-256 of the cwd (older versions)
  or a folder whose ``.project_root`` file names the cwd (newer versions; also
  listed in ``.gemini/projects.json``). Sub-agent chats sit one folder deeper
  (``chats/<parent session>/``) and are not sessions.
* pi: ``$PI_CODING_AGENT_DIR`` (default ``~/.pi/agent``) ``/sessions/--<cwd>--/*.jsonl``,
  where ``<cwd>`` is the cwd without its leading slash and with every slash,
  backslash and colon replaced by ``-``.

The newest by modification time wins; ``prefer`` (``"claude"`` / ``"codex"`` /
``"gemini"`` / ``"pi"``) limits the search to one agent. Nothing found is a :class:`CtxError` naming
the folders searched.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import orjson

from ctx_tui.errors import CtxError
from ctx_tui.storage import open_regular
from ctx_tui.transcripts.follow import BOM

CLAUDE = "claude"
CODEX = "codex"
GEMINI = "gemini"
PI = "pi"
AGENTS = (CLAUDE, CODEX, GEMINI, PI)
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


#: How many of the newest rollouts, and how much of each one's end, a window look-up reads.
_WINDOW_ROLLOUTS = 40
_WINDOW_TAIL = 256 << 10
_WINDOW_RE = re.compile(rb'"model_context_window":(\d+)')
_MODEL_RE = re.compile(rb'"model":"([^"\\]+)"')
_reported_windows: dict[tuple[str, str], int | None] = {}


def codex_reported_window(model: str) -> int | None:
    """The latest ``model_context_window`` Codex reported for ``model`` in another rollout under CODEX_HOME.

    Reads the end of the newest rollouts (where the last ``token_count`` and
    ``turn_context`` sit); the answer is kept for the process.
    """
    root = codex_home() / "sessions"
    key = (str(root), model)
    if key in _reported_windows:
        return _reported_windows[key]
    found = None
    try:
        rollouts = sorted(root.rglob("rollout-*.jsonl"), key=_mtime, reverse=True)[:_WINDOW_ROLLOUTS]
    except OSError:
        rollouts = []
    for path in rollouts:
        try:
            with open(path, "rb") as fh:
                fh.seek(max(0, path.stat().st_size - _WINDOW_TAIL))
                tail = fh.read(_WINDOW_TAIL)
        except OSError:
            continue
        windows = _WINDOW_RE.findall(tail)
        models = _MODEL_RE.findall(tail)
        if windows and models and models[-1].decode(errors="replace") == model:
            found = int(windows[-1])
            break
    _reported_windows[key] = found
    return found


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


def gemini_home() -> Path:
    """Gemini CLI's folder: ``.gemini`` in ``$GEMINI_CLI_HOME``, which replaces the home folder for it."""
    return Path(os.environ.get("GEMINI_CLI_HOME") or Path.home()) / ".gemini"


def gemini_project_root(folder: Path) -> str | None:
    """The cwd a ``tmp/<project>`` folder belongs to, as its ``.project_root`` marker names it (newer versions)."""
    try:
        with open_regular(folder / ".project_root") as fh:
            named = fh.read(4096).decode("utf-8", errors="replace").strip()
    except OSError:
        return None
    return named or None


def gemini_project_hash(cwd: str) -> str:
    """The ``tmp/<hash>`` folder name older Gemini CLI versions give ``cwd``."""
    return hashlib.sha256(cwd.encode()).hexdigest()


def _gemini_project_dirs(cwd: Path) -> list[Path]:
    """Gemini CLI's folders for ``cwd``: ``tmp/<sha256 of the cwd>``, and any ``tmp/<name>`` whose ``.project_root`` names it."""
    root = gemini_home() / "tmp"
    found = [root / gemini_project_hash(str(cwd))]
    try:
        folders = [e for e in os.scandir(root) if e.is_dir()]
    except OSError:
        return found
    target = os.path.normpath(str(cwd))
    for entry in folders:
        named = gemini_project_root(Path(entry.path))
        if named and os.path.normpath(named) == target:
            found.append(Path(entry.path))
    return found


def gemini_chats(files: list[Path]) -> list[Path]:
    """The chats among ``files`` of one folder: a ``.json`` chat whose ``.jsonl`` is there too is left out.

    Gemini CLI resuming an older ``.json`` chat copies it into ``<same name>.jsonl``
    and goes on there; the ``.json`` stays behind, no longer written.
    """
    names = {p.name for p in files}
    return [p for p in files if not (p.suffix == ".json" and p.name + "l" in names)]


def gemini_sessions(cwd: Path) -> list[Path]:
    """Gemini CLI chat files of ``cwd``."""
    found: list[Path] = []
    for folder in _gemini_project_dirs(cwd):
        try:
            chats = [p for p in (folder / "chats").glob("session-*.json*") if p.suffix in (".json", ".jsonl") and p.is_file()]
        except OSError:
            continue
        found += gemini_chats(chats)
    return found


def pi_home() -> Path:
    named = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(named).expanduser() if named else Path.home() / ".pi" / "agent"


def pi_session_dir(cwd: Path) -> Path:
    """pi's folder for ``cwd`` (see the module doc)."""
    return pi_home() / "sessions" / ("--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", str(cwd))) + "--")


def pi_sessions(cwd: Path) -> list[Path]:
    """pi session files of ``cwd``."""
    try:
        return [p for p in pi_session_dir(cwd).glob("*.jsonl") if p.is_file()]
    except OSError:
        return []


def find_session(cwd: Path, prefer: str | None = None) -> Path:
    """The newest session file of ``cwd`` (``prefer``: "claude", "codex", "gemini", "pi" or None for all)."""
    cwd = Path(os.path.abspath(cwd))
    if prefer is not None and prefer not in AGENTS:
        raise CtxError(f"unknown agent {prefer!r}: use 'claude', 'codex', 'gemini' or 'pi'")
    candidates: list[Path] = []
    looked: list[str] = []
    if prefer in (None, CLAUDE):
        candidates += claude_sessions(cwd)
        looked.append(f"{claude_project_dir(cwd)}/*.jsonl")
    if prefer in (None, CODEX):
        candidates += codex_sessions(cwd)
        looked.append(f"{codex_home() / 'sessions'}/**/rollout-*.jsonl (session_meta.cwd = {cwd})")
    if prefer in (None, GEMINI):
        candidates += gemini_sessions(cwd)
        looked.append(f"{gemini_home() / 'tmp'}/<project>/chats/session-*.json[l]")
    if prefer in (None, PI):
        candidates += pi_sessions(cwd)
        looked.append(f"{pi_session_dir(cwd)}/*.jsonl")
    if not candidates:
        raise CtxError("no session found for this directory; looked in " + " and ".join(looked) + "; pass a transcript PATH")
    return max(candidates, key=_mtime)
