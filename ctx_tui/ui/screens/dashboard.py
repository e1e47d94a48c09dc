"""The main screen: session bar, the five panels, footer; a loading view until the first read.

The dashboard's keys are bound here, not on the App: a modal screen (a flow
form, the help) on top blocks them without guards. The screen is also the
:class:`~ctx_tui.ui.flows.FlowHost` its key actions hand to the flows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, LoadingIndicator, Static

from ctx_tui.paths import shown_path
from ctx_tui.ui import keys
from ctx_tui.ui.commands import DashboardCommands
from ctx_tui.ui.messages import Snapshot
from ctx_tui.ui.offthread import off_thread
from ctx_tui.ui.safe import literal
from ctx_tui.ui.widgets.decay_table import DecayPanel
from ctx_tui.ui.widgets.heatmap import HeatMap
from ctx_tui.ui.widgets.promotions import PromotionsPanel
from ctx_tui.ui.widgets.session_bar import SessionBar, display_path
from ctx_tui.ui.widgets.tiers import TiersPanel
from ctx_tui.ui.widgets.usage import UsagePanel

if TYPE_CHECKING:  # the config and memory models load with the first whole read, after the first figure
    from ctx_tui.config import Config, Layout
    from ctx_tui.memory.decay import ItemStatus
    from ctx_tui.usage_tail import TailUsage

#: Below WIDE_AT the panels stack in one scrolling column (usage, then the items); from it on, a
#: grid whose first row grows with the height; from XWIDE_AT the items sit beside the tiers.
WIDE_AT = 120
XWIDE_AT = 180
#: Below this width the footer drops the space between keys so that all of them fit at 120 columns.
COMPACT_FOOTER_BELOW = 140


T = TypeVar("T")


def _flows() -> ModuleType:
    """ctx_tui.ui.flows, imported on the first key that starts a flow: it pulls in compression,
    the handoff gate and promotions, which the dashboard's first screen does not need."""
    from ctx_tui.ui import flows

    return flows


class DashboardScreen(Screen[None]):
    BINDINGS: ClassVar = keys.bindings()
    COMMANDS: ClassVar = {DashboardCommands}

    def __init__(self, path: Path, project: Path, config: Callable[[], Config], layout: Layout) -> None:
        super().__init__()
        self._path = path
        self._project = project
        self._config = config
        self.layout_choice: Layout = layout
        self._snapshot: Snapshot | None = None
        # Kept as attributes (not queried): a snapshot that arrives while the app
        # shuts down updates detached widgets harmlessly instead of failing a query.
        self.session_bar = SessionBar(path, project)
        self.loading_view = Vertical(id="loading")
        self.loading_spinner = LoadingIndicator()
        self.loading_text = Static(literal(f"reading {display_path(path, project)}"), id="loading-text")
        self.panels = VerticalScroll(id="body")
        self.usage_panel = UsagePanel(id="usage", classes="panel")
        self.heat_map = HeatMap(id="heatmap", classes="panel")
        self.decay_panel = DecayPanel(id="decay", classes="panel")
        self.tiers_panel = TiersPanel(id="tiers", classes="panel")
        self.promotions_panel = PromotionsPanel(id="promotions", classes="panel")
        self.footer = Footer()
        self._filled: asyncio.Future[None] | None = None

    def compose(self) -> ComposeResult:
        yield self.session_bar
        with self.loading_view:
            yield self.loading_spinner
            yield self.loading_text
        yield self.panels  # filled by fill()

    async def fill(self) -> None:
        """Mount the five panels and the footer, once; returns when they are mounted.

        They cost several times the loading view (styles, the footer's keys), so the
        app calls this after the first figure is on screen, or with the first
        snapshot or problem, whichever comes first.
        """
        if self._filled is None:
            self._filled = asyncio.ensure_future(self._fill())
        await asyncio.shield(self._filled)

    async def _fill(self) -> None:
        await self.panels.mount_all(
            [self.usage_panel, self.heat_map, self.decay_panel, self.tiers_panel, self.promotions_panel]
        )
        await self.mount(self.footer)
        self._apply_layout()

    def on_mount(self) -> None:
        self._apply_layout()

    def on_resize(self) -> None:
        self._apply_layout()

    def _apply_layout(self) -> None:
        """The layout classes (-narrow, -wide, -xwide) by width (WIDE_AT, XWIDE_AT), unless the user chose
        one (``l``, ``ui.layout``)."""
        width = self.size.width
        if self.layout_choice == "stacked":
            shape = "-narrow"
        elif self.layout_choice == "grid" or width >= WIDE_AT:
            shape = "-xwide" if width >= XWIDE_AT else "-wide"
        else:
            shape = "-narrow"
        for name in ("-narrow", "-wide", "-xwide"):
            self.set_class(name == shape, name)
        self._arrange()
        # narrow: less space between keys, so more of them fit (? comes first and lists them all)
        if not self.footer.is_attached:
            return  # fill() mounts it, then applies this
        width = self.size.width
        self.footer.compact = width < COMPACT_FOOTER_BELOW
        if self.footer.show_command_palette != (width >= WIDE_AT):
            self.footer.show_command_palette = width >= WIDE_AT  # ^p is listed by ? as well
            self.footer.refresh(recompose=True)

    def _arrange(self) -> None:
        """Stacked, the items come right after the usage (what the keys act on, near the top);
        in the grid, the heat-map sits beside the usage."""
        if not self.panels.is_attached:
            return
        second = self.decay_panel if self.has_class("-narrow") else self.heat_map
        if self.panels.children and list(self.panels.children).index(second) != 1:
            self.panels.move_child(second, after=self.usage_panel)

    def show_loading(self, size_bytes: int) -> None:
        mb = size_bytes / 1_000_000
        self.loading_text.update(literal(f"reading {display_path(self._path, self._project)} ({mb:.1f} MB)…"))

    def show_first_usage(self, usage: TailUsage, handoff_threshold: float) -> None:
        """The usage figure, read from the transcript's end, above the spinner while the rest is read."""
        mark = "estimated" if usage.estimated else "reported"
        if usage.window_known:
            figure = f"{usage.usage_pct:.1f}% of {usage.context_window:,} tokens ({usage.context_tokens:,}, {mark})"
        else:
            figure = f"{usage.context_tokens:,} tokens ({mark}; window unknown)"
        past = usage.window_known and usage.context_tokens >= handoff_threshold * usage.context_window
        text = Text.assemble(("Context usage  ", "bold"), (figure, "bold red" if past else "bold"))
        text.append_text(literal(f"\nreading the rest of {display_path(self._path, self._project)}: live window, heat-map, memory…"))
        self.loading_text.update(text)

    def show_snapshot(self, snapshot: Snapshot, following: bool) -> None:
        first = self._snapshot is None
        self._snapshot = snapshot
        if self.loading_view.display:
            self.loading_view.display = False
            self.loading_spinner.remove()  # hidden, it would go on waking up 16 times a second
        self.panels.display = True
        state = snapshot.state
        self.session_bar.show(state.meta, snapshot.changed_at, following)
        self.usage_panel.show(state, snapshot.handoff_threshold)
        view, note = snapshot.memory, snapshot.memory_note
        statuses = view.statuses if view else ()
        self.heat_map.show(state.live, state.context_tokens, snapshot.danger_zone, statuses, note)
        self.heat_map.border_subtitle = f"{len(state.live)} entries · positions scaled to {state.context_tokens:,} in context"
        self.decay_panel.show(statuses, note)
        self.tiers_panel.show(view.tiers if view else (), note)
        self.promotions_panel.show(view.pending_promotions if view else (), note)
        if first:
            self._apply_layout()
            # the keys act on the highlighted item: arrows move it from the start (without scrolling
            # the usage figures away on a short terminal)
            self.call_after_refresh(self.decay_panel.table.focus, scroll_visible=False)

    def show_problem(self, text: str) -> None:
        self.session_bar.show_problem(text)
        if self.loading_view.display:
            self.loading_text.update(Text.assemble(("✖ ", "bold red"), literal(text)))
            self.loading_spinner.display = False

    # -- FlowHost: what the flows behind the keys need (ctx_tui.ui.flows) -----------------
    @property
    def project(self) -> Path:
        return self._project

    @property
    def transcript(self) -> Path:
        return self._path

    @property
    def config(self) -> Config:
        return self._config()

    @property
    def snapshot(self) -> Snapshot | None:
        """The snapshot on screen (None until the first read)."""
        return self._snapshot

    def selected_item(self) -> ItemStatus | None:
        return self.decay_panel.selected

    def open(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None) -> None:
        self.app.push_screen(screen, callback)

    def copy_to_clipboard(self, text: str) -> None:
        self.app.copy_to_clipboard(text)

    def run_core(self, title: str, job: Callable[[], T], done: Callable[[T], None]) -> None:
        off_thread(self, job, done,
                   lambda reason: self.notify(reason, title=title, severity="error", markup=False),
                   group="flows")

    # -- actions: one method per key (ctx_tui.ui.keys) --------------------------------------
    def action_compress(self) -> None:
        _flows().compress(self)

    def action_restate(self) -> None:
        _flows().restate(self)

    def action_promote(self) -> None:
        _flows().promote(self)

    def action_handoff(self) -> None:
        _flows().handoff(self)

    def action_search(self) -> None:
        _flows().search(self)

    def action_new_item(self) -> None:
        _flows().new_item(self)

    def action_approve(self) -> None:
        _flows().approve_first(self)

    def action_reject(self) -> None:
        _flows().reject_first(self)

    async def action_sessions(self) -> None:
        await self.app.run_action("sessions")  # the App switches the followed session

    async def action_metrics(self) -> None:
        await self.app.run_action("metrics")

    def action_help(self) -> None:
        from ctx_tui.ui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_layout(self) -> None:
        from ctx_tui.config import LAYOUTS

        self.layout_choice = LAYOUTS[(LAYOUTS.index(self.layout_choice) + 1) % len(LAYOUTS)]
        self._apply_layout()
        shown = {"auto": "by the terminal's width", "stacked": "one column", "grid": "a grid"}[self.layout_choice]
        self.save_ui_choice(f"Layout: {shown}")

    def save_ui_choice(self, title: str) -> None:
        """Keep the theme and the layout in the user config (``ui``) for the next run."""
        from ctx_tui.config_file import save_user_section

        values = {"theme": self.app.theme, "layout": self.layout_choice}
        self.run_core(title, lambda: save_user_section("ui", values),
                      lambda path: self.notify(f"Saved in {shown_path(path, self._project)}.", title=title,
                                               markup=False))

    def action_quit(self) -> None:
        self.app.exit()
