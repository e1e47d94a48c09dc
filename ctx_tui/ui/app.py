"""The dashboard app: owns the latest snapshot and runs the follow worker; the keys live on ``DashboardScreen``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import App
from textual.reactive import reactive

from ctx_tui.heap import release_free_heap
from ctx_tui.paths import state_dir
from ctx_tui.ui.events import notices
from ctx_tui.ui.feed import ReadResult, SessionFeed
from ctx_tui.ui.messages import Loading, Snapshot, SnapshotReady, SourceProblem, UsageKnown
from ctx_tui.ui.offthread import reason
from ctx_tui.ui.safe import clean, clipboard_text
from ctx_tui.ui.tcss import tcss_path
from ctx_tui.ui.screens.dashboard import DashboardScreen

if TYPE_CHECKING:  # the config model and the screens of their own load when first used, after the first figure
    from ctx_tui.config import Config
    from ctx_tui.catalog import SessionInfo

#: watchfiles batching: wait this long for a burst to settle, checking every STEP_MS
#: (watchfiles' own default step: the watcher takes the GIL at each step, idle or not).
DEBOUNCE_MS = 60
STEP_MS = 50
#: At rest (no change since the last quiet wake-up) the watcher checks every IDLE_STEP_MS:
#: the first change of a burst shows within 2 x IDLE_STEP_MS, the rest of it at STEP_MS.
IDLE_STEP_MS = 250
#: When the system's file notifications fail, the watcher polls at this interval instead.
POLL_MS = 200
#: A busy watch (the first, and one started by changes at rest) wakes up after CATCH_UP_MS
#: without a change and reads what was appended between the previous read and the start of
#: the watch; then the watch restarts at rest (IDLE_STEP_MS, IDLE_WAKE_MS), so that a
#: dashboard at rest wakes up rarely.
CATCH_UP_MS = 500
IDLE_WAKE_MS = 5000


def stylesheet() -> str:
    """The app's TCSS (``app.tcss`` of the installed package ``ctx_tui.styles``); the other screens name their own
    (ctx_tui.ui.tcss)."""
    return tcss_path("app.tcss").read_text(encoding="utf-8")


class DashboardApp(App[None]):
    TITLE = "ctx-tui"
    CSS: ClassVar[str] = stylesheet()

    snapshot: reactive[Snapshot | None] = reactive(None, init=False, always_update=True)

    def __init__(
        self,
        path: Path,
        project: Path,
        config: Config | None,
        *,
        follow: bool = True,
        clock: Callable[[], datetime] = datetime.now,
        notice: str | None = None,
    ) -> None:
        super().__init__()
        self._startup_notice = notice
        self.path = path
        self.project = project
        self.follow = follow
        self._clock = clock
        self.feed = SessionFeed(path, project, config, clock)
        self._last_problem: str | None = None
        self._posted: Snapshot | None = None  # the worker's last posted snapshot (worker side only)

    # -- the output boundary of the app's own channels ---------------------------------------
    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None, markup: bool = True) -> None:
        """Every toast (the app's, a screen's or a widget's) shows control characters as visible stand-ins."""
        super().notify(clean(message), title=clean(title, one_line=True), severity=severity, timeout=timeout, markup=markup)

    def copy_to_clipboard(self, text: str) -> None:
        """Every clipboard payload loses escapes, controls and invisible characters (``clipboard_text``)."""
        super().copy_to_clipboard(clipboard_text(text))

    async def on_mount(self) -> None:
        theme, layout = self.feed.ui_choice()
        self.dashboard = DashboardScreen(self.path, self.project, lambda: self.feed.config, layout)
        # The worker's thread starts reading while the screen mounts; its messages wait for this handler.
        self.follow_session()
        await self.push_screen(self.dashboard)  # its widgets exist before the first message
        if theme and theme in self.available_themes:
            self.theme = theme
        # from now on a theme picked in the palette is kept for the next run
        self.theme_changed_signal.subscribe(self, lambda _theme: self.dashboard.save_ui_choice("Theme"))
        if self._startup_notice:
            self.notify(self._startup_notice, title="Demo session", timeout=15, markup=False)

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Save an SVG of the screen (palette → Screenshot) into the project's ``.ctx/screenshots/``, created
        if needed, and say where: Textual's default folder (Downloads) often does not exist."""
        folder = Path(path) if path else state_dir(self.project) / "screenshots"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            saved = self.save_screenshot(filename, str(folder), time_format)
        except OSError as exc:
            self.notify(f"Screenshot not saved: {reason(exc)}", title="Screenshot", severity="error", markup=False)
            return None
        self.notify(f"Saved to {saved}", title="Screenshot", markup=False, timeout=10)
        return saved

    # -- the follow worker (never touches widgets) ---------------------------------------
    @work(exclusive=True, group="follow", name="follow session")
    async def follow_session(self) -> None:
        feed = self.feed
        size = feed.path.stat().st_size if feed.path.is_file() else 0
        self.post_message(Loading(size))
        usage = await asyncio.to_thread(feed.first_usage)  # the figure first, from the file's end
        if usage is not None:
            self.post_message(UsageKnown(usage, feed.handoff_threshold()))
        self._post(await asyncio.to_thread(feed.read), feed)
        if not self.follow:
            return
        import watchfiles  # (and anyio): after the first snapshot, the figure does not wait for them

        polling = False
        busy = True  # catching up, or changes came: short steps, an early wake-up; else at rest
        while self.follow:
            dirs = feed.watched_dirs()
            if not dirs:
                self.post_message(SourceProblem(f"nothing to watch: {feed.path.parent} does not exist"))
                return
            try:
                async for changes in watchfiles.awatch(
                    *dirs,
                    watch_filter=lambda _change, p: feed.is_relevant(Path(p)),
                    debounce=DEBOUNCE_MS,
                    step=STEP_MS if busy else IDLE_STEP_MS,
                    recursive=False,
                    force_polling=polling,
                    poll_delay_ms=POLL_MS,
                    rust_timeout=CATCH_UP_MS if busy else IDLE_WAKE_MS,
                    yield_on_timeout=True,
                ):
                    if not changes and not busy:
                        continue  # a quiet period
                    # A busy watch's quiet wake-up reads too: what was appended while the watcher started.
                    self._post(await asyncio.to_thread(feed.read, {Path(p) for _, p in changes}), feed)
                    if feed.watched_dirs() != dirs:
                        break  # a watched folder appeared or vanished: watch the new set
                    if busy != bool(changes):
                        busy = not busy
                        break  # quiet again (watch waking up rarely) or changes at rest (watch closely)
            except (OSError, RuntimeError) as exc:  # e.g. the inotify watch limit is reached
                if polling:
                    self.post_message(SourceProblem(f"cannot watch the files any more: {exc}"))
                    return
                polling = True
                self.post_message(SourceProblem(f"file notifications failed ({exc}); polling every {POLL_MS} ms"))

    def _post(self, result: ReadResult, source: SessionFeed | None = None) -> None:
        for problem in result.problems:
            self.post_message(SourceProblem(problem))
        if result.snapshot is not None and result.snapshot is not self._posted:
            self._posted = result.snapshot
            self.post_message(SnapshotReady(result.snapshot, source))

    # -- state ------------------------------------------------------------------------
    def on_loading(self, message: Loading) -> None:
        self.dashboard.show_loading(message.size_bytes)

    def on_usage_known(self, message: UsageKnown) -> None:
        if self.snapshot is None:  # the whole read has not overtaken it
            self.dashboard.show_first_usage(message.usage, message.handoff_threshold)
        self.call_after_refresh(self.dashboard.fill)  # the panels after the figure is on screen

    async def on_snapshot_ready(self, message: SnapshotReady) -> None:
        if message.source is not None and message.source is not self.feed:
            return  # read for the session followed before a switch
        await self.dashboard.fill()
        if message.source is not None and message.source is not self.feed:
            return  # the session was switched while the panels were mounted
        first = self.snapshot is None
        self.snapshot = message.snapshot
        if first:  # the session's whole read is on screen: the C heap's pages freed meanwhile go back (ctx_tui.heap)
            self.call_after_refresh(release_free_heap)

    def watch_snapshot(self, old: Snapshot | None, new: Snapshot | None) -> None:
        if new is None:
            return
        for notice in notices(old, new):
            self.notify(notice.text, title=notice.title, severity=notice.severity, markup=False)
        self._last_problem = None
        self.dashboard.show_snapshot(new, self.follow)

    async def on_source_problem(self, message: SourceProblem) -> None:
        await self.dashboard.fill()  # the footer's keys beside the problem
        if message.text != self._last_problem:
            self.notify(message.text, title="Unreadable", severity="error", markup=False)
        self._last_problem = message.text
        self.dashboard.show_problem(message.text)

    # -- screens of their own (the flows' keys are on DashboardScreen) -------------
    def action_metrics(self) -> None:
        from ctx_tui.ui.screens.metrics import MetricsScreen

        if not isinstance(self.screen, MetricsScreen):
            self.push_screen(MetricsScreen(self.project, self.feed.config.window.handoff_threshold))

    def action_sessions(self) -> None:
        from ctx_tui.ui.screens.sessions import SessionsScreen

        if not isinstance(self.screen, SessionsScreen):
            self.push_screen(SessionsScreen(self.feed.path, self.feed.config.window.sizes), self._open_chosen)

    async def _open_chosen(self, chosen: SessionInfo | None) -> None:
        if chosen is not None and chosen.path.absolute() != self.feed.path:
            project = Path(chosen.project) if chosen.project and Path(chosen.project).is_dir() else self.project
            await self.open_session(chosen.path, project)

    async def open_session(self, path: Path, project: Path) -> None:
        """Follow another session from now on, without restarting (the session picker's Enter).

        The project (its ``.ctx/`` memory, config and handoffs) becomes the
        session's own working directory when it exists on this machine.
        """
        from ctx_tui.config import Config, ConfigError, load_config

        try:
            config = load_config(project).config
        except ConfigError as exc:
            self.notify(f"{exc}; using the defaults", title="Config", severity="warning", markup=False)
            config = Config()
        self.path, self.project = path, project
        self.feed = SessionFeed(path, project, config, self._clock)
        self._posted = None
        self._last_problem = None
        self.snapshot = None  # no action may reach the previous session's items
        self.dashboard = DashboardScreen(path, project, lambda: self.feed.config, config.ui.layout)
        await self.switch_screen(self.dashboard)
        self.follow_session()
        self.notify(f"following {path.name} ({project})", title="Session", markup=False)
