"""The reading side of the follow worker: runs in a thread, returns immutable snapshots.

``SessionFeed.read()`` does the blocking work (incremental transcript read
through ``ctx_tui.window.Session``, the memory view, config reloads) and is
called with ``asyncio.to_thread`` by the app's worker, never on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ctx_tui.errors import CtxError
from ctx_tui.paths import project_config_path, state_dir
from ctx_tui.ui.messages import Snapshot
from ctx_tui.usage_tail import TailUsage, read_usage_tail
from ctx_tui.window import Session
from ctx_tui.window_state import HANDOFF_THRESHOLD

if TYPE_CHECKING:  # the config and memory models load with the first whole read, after the first figure
    from ctx_tui.config import Config, Layout
    from ctx_tui.memory.view import MemoryView

#: From this size on, the usage figure is read from the file's end first and shown
#: while the whole file is read (tokenizing a 100 MB session's live window takes seconds).
FIRST_FIGURE_FROM_BYTES = 4 << 20


@dataclass(frozen=True, slots=True)
class ReadResult:
    snapshot: Snapshot | None  # None when nothing could be read yet
    problems: tuple[str, ...] = ()


class SessionFeed:
    """Follows one transcript plus the project's memory, config and handoff files."""

    def __init__(
        self, path: Path, project: Path, config: Config | None, clock: Callable[[], datetime] = datetime.now
    ) -> None:
        """``config`` None: the defaults (no config file exists), built on first use — by the
        follow worker, after the first figure, so that the first frame does not wait for the model."""
        # Absolute, so that they compare equal to the paths file events carry.
        self.path = path.absolute()
        self.project = project.absolute()
        self._config = config
        self._clock = clock
        self._session: Session | None = None
        self._last: Snapshot | None = None
        self._stalled = False  # the last read reported the transcript unreadable or missing

    @property
    def config(self) -> Config:
        if self._config is None:
            from ctx_tui.config import Config

            self._config = Config()
        return self._config

    def ui_choice(self) -> tuple[str | None, Layout]:
        """The theme and layout the user chose; without a config model yet, UiConfig's defaults."""
        if self._config is None:
            return None, "auto"
        return self._config.ui.theme, self._config.ui.layout

    def handoff_threshold(self) -> float:
        """``window.handoff_threshold``; without a config model yet, its default."""
        return HANDOFF_THRESHOLD if self._config is None else self._config.window.handoff_threshold

    # -- what to watch ------------------------------------------------------------------
    def memory_file(self) -> Path:
        return self.config.paths.memory_path(self.project)

    def handoff_dir(self) -> Path:
        return self.config.paths.handoff_path(self.project)

    def watched_files(self) -> set[Path]:
        return {self.path, self.memory_file(), project_config_path(self.project)}

    def watched_dirs(self) -> set[Path]:
        """Existing folders to watch (non-recursively); files are watched through their folder
        so that atomic replaces (temp file + rename) are seen."""
        sessions = state_dir(self.project) / "sessions"
        wanted = {f.parent for f in self.watched_files()} | {sessions, self.handoff_dir()}
        return {d for d in wanted if d.is_dir()}

    def is_relevant(self, path: Path) -> bool:
        """The followed files, session memory and handoff YAML; never temp or lock files."""
        if path in self.watched_files():
            return True
        folders = {state_dir(self.project) / "sessions", self.handoff_dir()}
        return path.parent in folders and path.suffix == ".yaml" and not path.name.startswith(".")

    # -- reading -------------------------------------------------------------------------
    def first_usage(self) -> TailUsage | None:
        """The usage figure from the end of a large transcript (ctx_tui.usage_tail); None for a
        small one (the whole read is as quick) or when it cannot be read (read() reports why)."""
        try:
            if self.path.stat().st_size < FIRST_FIGURE_FROM_BYTES:
                return None
            usage = read_usage_tail(self.path, self._config)  # None: the defaults, without the model
        except (OSError, CtxError, ValueError):
            return None
        return None if usage.unsupported else usage

    def read(self, changed: Iterable[Path] = ()) -> ReadResult:
        """Read what changed since the last call (everything on the first call).

        A call without changed paths (the watcher's periodic wake-up) that finds
        nothing appended returns the previous snapshot object as it is.
        """
        problems: list[str] = []
        changed = set(changed)
        if project_config_path(self.project) in changed:
            problems.extend(self._reload_config())
        try:
            if self._session is None:
                self._session = Session(self.path, self.config)
            update = self._session.poll()
            state = self._session.state()
        except (OSError, CtxError, ValueError) as exc:
            problems.append(f"cannot read {self.path.name}: {_reason(exc)}")
            return ReadResult(self._last, tuple(problems))
        if self._session.problem:
            problems.append(f"{self.path.name}: {self._session.problem}")
            self._stalled = True
            return ReadResult(self._last, tuple(problems))
        if not self._session.exists:
            problems.append(f"{self.path.name} is missing (waiting for it to come back)")
            self._stalled = True
            return ReadResult(self._last, tuple(problems))
        first = self._last is None
        # After a problem, a fresh snapshot replaces the problem shown even when nothing changed.
        touched = first or update.changed or bool(changed) or self._stalled
        self._stalled = False
        if not touched:
            return ReadResult(self._last, tuple(problems))  # nothing new: the same snapshot
        memory, note = self._memory(self._session)
        snapshot = Snapshot(
            state=state,
            memory=memory,
            memory_note=note,
            handoff_threshold=self.config.window.handoff_threshold,
            danger_zone=self.config.position.danger_zone,
            changed_at=self._clock(),
        )
        if update.skipped:
            problems.append(f"{update.skipped} unreadable line(s) skipped in {self.path.name}")
        self._last = snapshot
        return ReadResult(snapshot, tuple(problems))

    def _reload_config(self) -> list[str]:
        from ctx_tui.config import ConfigError, load_config

        try:
            config = load_config(self.project).config
        except ConfigError as exc:
            return [f"config not reloaded: {exc}"]
        if config != self.config:
            self._config = config
            self._session = None  # window sizes / thresholds may have changed: read again
            self._last = None
        return []

    def _memory(self, session: Session) -> tuple[MemoryView | None, str | None]:
        from ctx_tui.memory.view import build_memory_view  # see TYPE_CHECKING above

        try:
            return build_memory_view(self.project, session, self.config), None
        except (OSError, CtxError, ValueError) as exc:
            return None, f"memory unreadable: {_reason(exc)}"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return str(exc) or type(exc).__name__
