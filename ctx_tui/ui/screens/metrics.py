"""The metrics screen (``m``): context per round and compactions plotted, decay per round, the audit counts.

The figures are :func:`ctx_tui.metrics.session_metrics` of the followed
session: the usage history and compactions come from the dashboard's latest
snapshot (nothing is read twice), the counts from the audit log, read in a
thread worker that posts a message. The screen refreshes every ``REFRESH_S``
seconds while it is open.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual_plotext import PlotextPlot

from ctx_tui.metrics import SessionMetrics, audit_rows, session_metrics
from ctx_tui.ui.safe import literal
from ctx_tui.ui.tcss import PICKER, tcss_path

if TYPE_CHECKING:
    from ctx_tui.window_state import WindowState

REFRESH_S = 5.0


class MetricsRead(Message):
    def __init__(self, metrics: SessionMetrics) -> None:
        super().__init__()
        self.metrics = metrics


def _session_id(state: WindowState) -> str:
    return state.meta.session_id or state.path.stem


class MetricsScreen(Screen[None]):
    CSS_PATH = tcss_path(PICKER)  # read when first shown (ctx_tui.ui.tcss)
    BINDINGS: ClassVar = [Binding("escape,q,m", "back", "Back", id="ctx.metrics.back")]

    def __init__(self, project: Path, handoff_threshold: float = 0.8) -> None:
        super().__init__()
        self.project = project
        self.handoff_threshold = handoff_threshold
        self.metrics: SessionMetrics | None = None
        self.title_bar = Static(id="metrics-title")
        self.context_plot = PlotextPlot(id="metrics-context", classes="metrics-plot")
        self.decay_plot = PlotextPlot(id="metrics-decay", classes="metrics-plot")
        self.counts = Static(id="metrics-counts", classes="metrics-panel")
        self.counts_table: Table | None = None  # what the counts panel shows

    def compose(self) -> ComposeResult:
        yield self.title_bar
        with VerticalScroll(id="metrics-body"):
            yield self.context_plot
            yield self.decay_plot
            yield self.counts
        yield Footer()

    def on_mount(self) -> None:
        self.context_plot.border_title = "Context per round"
        self.decay_plot.border_title = "Items newly decayed per round"
        self.counts.border_title = "From the audit log"
        self.title_bar.update(Text("Metrics: reading…", style="bold"))
        self.read_metrics()
        self.set_interval(REFRESH_S, self.read_metrics)

    def _state(self) -> WindowState | None:
        snapshot = getattr(self.app, "snapshot", None)
        return snapshot.state if snapshot is not None else None

    @work(thread=True, exclusive=True, group="metrics", name="read metrics")
    def read_metrics(self) -> None:
        state = self._state()
        if state is not None:
            self.post_message(MetricsRead(session_metrics(self.project, state, _session_id(state))))

    def on_metrics_read(self, message: MetricsRead) -> None:
        self.metrics = m = message.metrics
        self.title_bar.update(Text.assemble(
            ("Metrics", "bold"), " of session ", literal(m.session_id, one_line=True, limit=40),
            f" ({m.format}): {m.rounds} round(s), {len(m.compactions)} compaction(s), now {m.usage_pct:.1f}% "
            f"({m.usage_source})",
        ))
        self._plot_context(m)
        self._plot_decay(m)
        table = Table(box=None, show_header=False, expand=True, pad_edge=False)
        table.add_column(style="bold", no_wrap=True)
        table.add_column(ratio=1)
        for label, text in audit_rows(m.audit):
            table.add_row(label, literal(text))
        self.counts_table = table
        self.counts.update(table)

    def _plot_context(self, m: SessionMetrics) -> None:
        plt = self.context_plot.plt
        plt.clear_figure()
        points = m.context_by_round
        if not points:
            plt.title("no usage reported or estimated yet")
            self.context_plot.refresh()
            return
        rounds = [p.round for p in points]
        plt.plot(rounds, [p.tokens / 1000 for p in points], marker="braille", label="context (k tokens)")
        plt.hline(m.context_window * self.handoff_threshold / 1000, "orange")
        for c in m.compactions:
            if c.round is not None:
                plt.vline(c.round, "red")
        plt.ylim(0, max(m.context_window / 1000, max(p.tokens for p in points) / 1000) * 1.05)
        plt.xlabel("round · red: compaction · orange: handoff threshold")
        self.context_plot.refresh()

    def _plot_decay(self, m: SessionMetrics) -> None:
        plt = self.decay_plot.plt
        plt.clear_figure()
        by_round = m.audit.decayed_by_round
        if not by_round:
            plt.title("no item has decayed in this session (so far)")
        else:
            rounds = list(range(1, max(m.rounds, *by_round) + 1))  # every round: one bar is not the whole width
            plt.bar(rounds, [by_round.get(r, 0) for r in rounds], width=0.6)
            plt.xlabel("round (when the analysis saw it)")
        self.decay_plot.refresh()

    def action_back(self) -> None:
        self.dismiss(None)
