"""Every agent session on the machine, newest first (the session picker).

* Claude Code: ``$CLAUDE_CONFIG_DIR`` (default ``~/.claude``) ``/projects/*/*.jsonl``
  (subagent files are not sessions);
* Codex: ``$CODEX_HOME`` (default ``~/.codex``) ``/sessions/**/rollout-*.jsonl``;
* Gemini CLI: ``$GEMINI_CLI_HOME`` (default ``~``) ``/.gemini/tmp/*/chats/session-*.json[l]``;
* pi: ``$PI_CODING_AGENT_DIR`` (default ``~/.pi/agent``) ``/sessions/*/*.jsonl``
  (the folders are those :mod:`ctx_tui.transcripts.discover` searches for one cwd).

For a Claude Code or Codex file only its tail is read
(:func:`ctx_tui.transcripts.tail.follow_tail`): the usage figure, the model,
the session id and its working directory; a :class:`Catalog` keeps what it
read per file, so listing again (the picker refreshes every few seconds) reads
only files that changed, and of those only their new bytes. A Gemini CLI or pi
file is read by the full reader (:func:`ctx_tui.usage_tail.read_usage_tail`:
the figure ``stats`` gives, the post-compaction estimate included) when it
changed: those chats are small (a Gemini ``.json`` chat is rewritten whole on
every message anyway), and the two formats' rules then live in one place.
So is a Claude Code or Codex file whose tail shows a compaction and no
report since (until the agent's next reply): the estimate then needs the
session's baseline, which only a whole read learns.
A Gemini chat does not name its cwd: its project is the folder's
``.project_root`` marker, else the cwd ``.gemini/projects.json`` gives the
folder, else the cwd whose SHA-256 names the folder among the projects of
that file, the other agents' sessions and the current directory.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from ctx_tui.model_windows import UNKNOWN_WINDOW
from ctx_tui.storage import check_regular, open_regular
from ctx_tui.transcripts.discover import (
    CLAUDE,
    CODEX,
    GEMINI,
    PI,
    claude_home,
    codex_home,
    gemini_chats,
    gemini_home,
    gemini_project_hash,
    gemini_project_root,
    pi_home,
)
from ctx_tui.transcripts.model import Format
from ctx_tui.transcripts.tail import FORMAT_VALUES, USAGE_WINDOWS_CAP, follow_tail
from ctx_tui.usercache import claude_code_report
from ctx_tui.window import window_for_model

#: A session written within this many seconds is live.
LIVE_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One session file as the picker lists it."""

    path: Path
    agent: str  # "claude", "codex", "gemini" or "pi"
    project: str | None  # the session's working directory
    session_id: str | None
    model: str | None
    context_tokens: int | None  # None: nothing reported or estimated yet
    context_window: int
    usage_pct: float | None
    estimated: bool
    window_source: str  # as ctx_tui.window_state.WindowSource
    modified: float  # last write, epoch seconds
    size: int  # bytes
    error: str | None = None  # why the figure could not be read

    def live(self, now: float | None = None) -> bool:
        return (time.time() if now is None else now) - self.modified < LIVE_SECONDS

    def as_dict(self, now: float | None = None) -> dict[str, Any]:
        data = asdict(self)
        data["path"] = str(self.path)
        data["live"] = self.live(now)
        return data


def _claude_files(root: Path) -> list[tuple[Path, str]]:
    found: list[tuple[Path, str]] = []
    try:
        folders = [e for e in os.scandir(root / "projects") if e.is_dir(follow_symlinks=False)]
    except OSError:
        return found
    for folder in folders:
        try:
            entries = list(os.scandir(folder.path))
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".jsonl") and not entry.name.startswith("agent-"):
                found.append((Path(entry.path), CLAUDE))
    return found


def _codex_files(root: Path) -> list[tuple[Path, str]]:
    found: list[tuple[Path, str]] = []
    for dirpath, dirnames, filenames in os.walk(root / "sessions"):
        dirnames.sort()
        found.extend((Path(dirpath) / name, CODEX) for name in filenames if name.startswith("rollout-") and name.endswith(".jsonl"))
    return found


def _folders(root: Path) -> list[str]:
    try:
        return sorted(e.path for e in os.scandir(root) if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _files_in(folder: str, prefix: str, suffixes: tuple[str, ...]) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(folder) if e.name.startswith(prefix) and e.name.endswith(suffixes)]
    except OSError:
        return []


def _gemini_files(root: Path) -> list[tuple[Path, str]]:
    """``tmp/*/chats/session-*.json[l]`` (sub-agent chats, one folder deeper, are not sessions)."""
    return [(p, GEMINI) for folder in _folders(root / "tmp")
            for p in gemini_chats(_files_in(os.path.join(folder, "chats"), "session-", (".json", ".jsonl")))]


def _pi_files(root: Path) -> list[tuple[Path, str]]:
    return [(p, PI) for folder in _folders(root / "sessions") for p in _files_in(folder, "", (".jsonl",))]


def session_files(agent: str | None = None) -> list[tuple[Path, str]]:
    """(path, agent) of every session file (``agent``: only "claude", "codex", "gemini" or "pi")."""
    files: list[tuple[Path, str]] = []
    if agent in (None, CLAUDE):
        files += _claude_files(claude_home())
    if agent in (None, CODEX):
        files += _codex_files(codex_home())
    if agent in (None, GEMINI):
        files += _gemini_files(gemini_home())
    if agent in (None, PI):
        files += _pi_files(pi_home())
    return files


def _gemini_projects(known: set[str]) -> dict[str, str]:
    """Gemini CLI's ``tmp`` folder name -> the cwd it belongs to, for folders without a ``.project_root``.

    ``.gemini/projects.json`` maps each project's cwd to its folder name (newer
    versions); older versions name the folder by the cwd's SHA-256, matched
    against the cwds of that file, of ``known`` (the other agents' sessions)
    and the current directory.
    """
    cwds = set(known)
    cwds.add(os.getcwd())
    named: dict[str, str] = {}
    try:
        with open_regular(gemini_home() / "projects.json") as fh:
            projects = orjson.loads(fh.read(1 << 22)).get("projects")
        if isinstance(projects, dict):
            named = {slug: cwd for cwd, slug in projects.items() if isinstance(cwd, str) and isinstance(slug, str)}
            cwds.update(named.values())
    except (OSError, orjson.JSONDecodeError, AttributeError):
        pass
    return {gemini_project_hash(cwd): cwd for cwd in cwds} | named


class Catalog:
    """Lists sessions, remembering what it read of each file between calls."""

    def __init__(self, sizes: Mapping[str, int] | None = None) -> None:
        self.sizes = dict(sizes or {})  # the config's window.sizes
        self._tails: dict[Path, dict[str, Any]] = {}
        #: Gemini CLI and pi files: what a whole read gave, and the file identity it was read at.
        self._whole: dict[Path, tuple[tuple[int, int, int, int], SessionInfo]] = {}

    def list(self, agent: str | None = None) -> list[SessionInfo]:
        """Every session, newest first; files that vanish meanwhile are left out."""
        infos: list[SessionInfo] = []
        seen: set[Path] = set()
        for path, kind in session_files(agent):
            info = self._read(path, kind) if kind in (CLAUDE, CODEX) else self._read_whole(path, kind)
            if info is not None:
                infos.append(info)
                seen.add(path)
        for gone in self._tails.keys() - seen:
            del self._tails[gone]
        for gone in self._whole.keys() - seen:
            del self._whole[gone]
        if any(i.agent == GEMINI and i.project is None for i in infos):
            projects = _gemini_projects({i.project for i in infos if i.project and i.agent != GEMINI})
            infos = [replace(i, project=projects.get(i.path.parent.parent.name)) if i.agent == GEMINI and i.project is None
                     else i for i in infos]
        infos.sort(key=lambda i: i.modified, reverse=True)
        return infos

    def _read_whole(self, path: Path, agent: str) -> SessionInfo | None:
        """A session read by its full reader when it changed (see the module doc): Gemini CLI and pi
        always, Claude Code and Codex between a compaction and the next report."""
        try:
            st = path.stat()
        except OSError:
            return None
        ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        cached = self._whole.get(path)
        if cached is not None and cached[0] == ident:
            return cached[1]
        from ctx_tui.usage_tail import read_usage_tail  # the full readers: only when such a file changed

        project = gemini_project_root(path.parent.parent) if agent == GEMINI else None
        try:
            check_regular(path)
            usage = read_usage_tail(path)
        except OSError as exc:
            self._whole.pop(path, None)
            return SessionInfo(path, agent, project, None, None, None, UNKNOWN_WINDOW, None, False, "model table",
                               st.st_mtime, st.st_size, exc.strerror or str(exc))
        meta = usage.meta
        window, source = usage.context_window, usage.window_source
        if meta.model and meta.model in self.sizes:
            window, source = self.sizes[meta.model], "config"
        empty = usage.context_tokens == 0 and usage.estimated
        tokens = None if empty or usage.unsupported else usage.context_tokens
        info = SessionInfo(
            path=path,
            agent=agent,
            project=meta.cwd or project,
            session_id=meta.session_id,
            model=meta.model,
            context_tokens=tokens,
            context_window=window,
            usage_pct=round(100.0 * tokens / window, 2) if tokens is not None and window else None,
            estimated=tokens is not None and usage.estimated,
            window_source=source,
            modified=st.st_mtime,
            size=st.st_size,
            error=usage.unsupported,
        )
        self._whole[path] = (ident, info)
        return info

    def _read(self, path: Path, agent: str) -> SessionInfo | None:
        try:
            st = path.stat()
        except OSError:
            return None
        try:
            scan, self._tails[path] = follow_tail(str(path), self._tails.get(path))
        except OSError as exc:
            self._tails.pop(path, None)
            return SessionInfo(path, agent, None, None, None, None, UNKNOWN_WINDOW, None, False, "model table",
                               st.st_mtime, st.st_size, exc.strerror or str(exc))
        if scan.compacted:  # nothing reported since a compaction: the dashboard's estimate, not the scan's text / 4
            return self._read_whole(path, agent)
        session_id = scan.session_id or (path.stem if agent == CLAUDE else None)
        report = claude_code_report(session_id) if agent == CLAUDE else None
        if report is not None:
            window, source = report["context_window_size"], "Claude Code"
        elif scan.model and scan.model in self.sizes:
            window, source = self.sizes[scan.model], "config"
        elif scan.window:
            window, source = scan.window, "transcript"
        else:
            fmt = Format(FORMAT_VALUES[agent])
            window, source = window_for_model(scan.model, None, None, fmt, scan.peak), "model table"
        decided = scan.usage_seen or scan.compacted
        tokens = scan.tokens if decided else None
        if tokens is not None and window and tokens > USAGE_WINDOWS_CAP * window:  # implausible, as stats judges it
            tokens = None
        pct = round(100.0 * tokens / window, 2) if tokens is not None and window else None
        return SessionInfo(
            path=path,
            agent=agent,
            project=scan.cwd,
            session_id=session_id,
            model=scan.model,
            context_tokens=tokens,
            context_window=window,
            usage_pct=pct,
            estimated=decided and scan.estimated,
            window_source=source,
            modified=st.st_mtime,
            size=st.st_size,
        )


def ago(modified: float, now: float | None = None) -> str:
    """How long ago, shortly: ``now``, ``42s``, ``5m``, ``3h``, ``2d``."""
    seconds = max(0.0, (time.time() if now is None else now) - modified)
    if seconds < 5:
        return "now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def human_size(n: int) -> str:
    """``812 B``, ``3.4 KB``, ``2.6 MB``, ``1.2 GB``."""
    value = float(n)
    for unit in ("B", "KB", "MB"):
        if value < 1000:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def list_sessions(agent: str | None = None, sizes: Mapping[str, int] | None = None) -> list[SessionInfo]:
    """Every session on the machine, newest first (one-shot: see :class:`Catalog` to list again cheaply)."""
    return Catalog(sizes).list(agent)
