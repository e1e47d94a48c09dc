"""The main screen: session bar, the five panels, footer; a loading view until the first read."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, LoadingIndicator, Static

from ctx_tui.ui.messages import Snapshot
from ctx_tui.ui.safe import literal
from ctx_tui.ui.widgets.decay_table import DecayPanel
from ctx_tui.ui.widgets.heatmap import HeatMap
from ctx_tui.ui.widgets.promotions import PromotionsPanel
from ctx_tui.ui.widgets.session_bar import SessionBar, display_path
from ctx_tui.ui.widgets.tiers import TiersPanel
from ctx_tui.ui.widgets.usage import UsagePanel

#: Below this width the panels stack in one scrolling column; from it on, a two-column grid.
WIDE_AT = 120


class DashboardScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_AT, "-wide")]

    def __init__(self, path: Path, project: Path) -> None:
        super().__init__()
        self._path = path
        self._project = project

    def compose(self) -> ComposeResult:
        yield SessionBar(self._path, self._project)
        with Vertical(id="loading"):
            yield LoadingIndicator()
            yield Static(literal(f"reading {display_path(self._path, self._project)}"), id="loading-text")
        with VerticalScroll(id="body"):
            yield UsagePanel(id="usage", classes="panel")
            yield HeatMap(id="heatmap", classes="panel")
            yield DecayPanel(id="decay", classes="panel")
            yield TiersPanel(id="tiers", classes="panel")
            yield PromotionsPanel(id="promotions", classes="panel")
        yield Footer()

    def show_loading(self, size_bytes: int) -> None:
        mb = size_bytes / 1_000_000
        text = f"reading {display_path(self._path, self._project)} ({mb:.1f} MB)…"
        self.query_one("#loading-text", Static).update(literal(text))

    def show_snapshot(self, snapshot: Snapshot, following: bool) -> None:
        self.query_one("#loading").display = False
        self.query_one("#body").display = True
        state = snapshot.state
        self.query_one(SessionBar).show(state.meta, snapshot.changed_at, following)
        self.query_one(UsagePanel).show(state, snapshot.handoff_threshold)
        view, note = snapshot.memory, snapshot.memory_note
        statuses = view.statuses if view else ()
        self.query_one(HeatMap).show(state.live, state.context_tokens, snapshot.danger_zone, statuses, note)
        self.query_one(DecayPanel).show(statuses, note)
        self.query_one(TiersPanel).show(view.tiers if view else (), note)
        self.query_one(PromotionsPanel).show(view.pending_promotions if view else (), note)
        heatmap = self.query_one(HeatMap)
        heatmap.border_subtitle = f"{len(state.live)} entries · {state.context_tokens:,} tokens"

    def show_problem(self, text: str) -> None:
        self.query_one(SessionBar).show_problem(text)
        if self.query_one("#loading").display:
            self.query_one("#loading-text", Static).update(Text.assemble(("✖ ", "bold red"), literal(text)))
            self.query_one(LoadingIndicator).display = False
