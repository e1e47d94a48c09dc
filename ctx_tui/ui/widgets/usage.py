"""The context-usage panel: big percentage, threshold-coloured bar, figures that say what they count,
a trend on the window's 0–100% scale with the thresholds drawn, handoff banner."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Digits, Static

from ctx_tui.ui.accounting import compaction_text, context_source, live_text_tokens, overhead_tokens
from ctx_tui.window_state import WindowState

WARN_AT = 0.60  # below: calm; from here to the handoff threshold: warning; above: alert


def level(fraction: float, handoff_threshold: float) -> str:
    """"calm", "warn" or "alert" for a usage fraction."""
    if fraction >= handoff_threshold:
        return "alert"
    if fraction >= min(WARN_AT, handoff_threshold):
        return "warn"
    return "calm"


class UsageBar(Widget):
    """A one-line bar: filled part coloured by level (CSS class), a tick at the handoff threshold."""

    DEFAULT_CSS = "UsageBar { height: 1; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._fraction = 0.0
        self._threshold = 0.8

    def set_value(self, fraction: float, threshold: float) -> None:
        self._fraction = max(0.0, min(1.0, fraction))
        self._threshold = threshold
        self.refresh()

    def render(self) -> Text:
        width = max(1, self.size.width)
        filled = round(self._fraction * width)
        tick = min(width - 1, int(self._threshold * width))
        text = Text(no_wrap=True, end="")
        for col in range(width):
            if col < filled:
                text.append("█")
            elif col == tick:
                text.append("┃", style="bold")
            else:
                text.append("░", style="dim")
        return text


class UsageTrend(Widget):
    """Usage per round as bars on a fixed 0–100% scale of the window, with the handoff and
    auto-compact thresholds drawn as lines and labelled on the left axis.

    Bars are coloured by level (calm / warn / alert, like the big figure). With more
    rounds than columns a column shows the highest round of its slice; with fewer,
    the rounds share the width.
    """

    COMPONENT_CLASSES = {"usagetrend--calm", "usagetrend--warn", "usagetrend--alert", "usagetrend--handoff",
                         "usagetrend--compact", "usagetrend--axis"}
    DEFAULT_CSS = """
    UsageTrend { height: 3; }
    UsageTrend > .usagetrend--calm { color: $success; }
    UsageTrend > .usagetrend--warn { color: $warning; }
    UsageTrend > .usagetrend--alert { color: $error; }
    UsageTrend > .usagetrend--handoff { color: $warning; }
    UsageTrend > .usagetrend--compact { color: $error; }
    UsageTrend > .usagetrend--axis { color: $text-muted; }
    """
    #: Left axis: "100%" plus a space.
    GUTTER = 5
    _EIGHTHS = " ▁▂▃▄▅▆▇█"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._fractions: list[float] = []
        self._handoff = 0.8
        self._compact = 0.92

    def show(self, fractions: list[float], handoff: float, compact: float) -> None:
        self._fractions = [max(0.0, min(1.0, f)) for f in fractions]
        self._handoff, self._compact = handoff, compact
        self.refresh()

    def columns(self, width: int) -> list[float | None]:
        """The value drawn in each of ``width`` columns (None: no round there)."""
        data = self._fractions
        if not data or width <= 0:
            return [None] * max(0, width)
        n = len(data)
        if n <= width:  # each round as wide as the chart allows: round c * n // width
            out: list[float | None] = [data[c * n // width] for c in range(width)]
        else:  # several rounds per column: the highest of its slice
            out = [max(data[c * n // width:max(c * n // width + 1, (c + 1) * n // width)]) for c in range(width)]
        return out + [None] * (width - len(out))

    def _row_of(self, fraction: float, height: int) -> int:
        """The row (0 = top) whose band holds ``fraction`` of the window."""
        return max(0, min(height - 1, height - 1 - int(fraction * height)))

    def render(self) -> Text:
        width, height = self.size.width, max(1, self.size.height)
        chart = max(1, width - self.GUTTER)
        values = self.columns(chart)
        style = self.get_component_rich_style
        lines_at: dict[int, str] = {}
        labels: dict[int, tuple[str, str]] = {}
        if height >= 3:
            for fraction, cls in ((self._handoff, "usagetrend--handoff"), (self._compact, "usagetrend--compact")):
                row = self._row_of(fraction, height)
                lines_at.setdefault(row, cls)
                labels.setdefault(row, (f"{fraction:.0%}", cls))
            labels.setdefault(0, ("100%", "usagetrend--axis"))
            labels.setdefault(height - 1, ("0%", "usagetrend--axis"))
        rows = []
        for row in range(height):
            text = Text(no_wrap=True, end="")
            label, cls = labels.get(row, ("", "usagetrend--axis"))
            if height < 3 and row == height - 1:
                label = "0–100"[: self.GUTTER - 1]
            text.append(f"{label:>{self.GUTTER - 1}} ", style=style(cls))
            floor = (height - 1 - row) / height  # the share of the window at this row's bottom
            for value in values:
                if value is None:
                    filled = 0
                else:
                    filled = max(0, min(8, round((value - floor) * height * 8)))
                    if value > 0 and row == height - 1:
                        filled = max(1, filled)  # a round with any usage shows
                if filled:
                    lvl = level(value or 0.0, self._handoff)
                    text.append(self._EIGHTHS[filled], style=style(f"usagetrend--{lvl}"))
                elif row in lines_at:
                    text.append("┄", style=style(lines_at[row]))
                else:
                    text.append(" ")
            rows.append(text)
        return Text("\n", end="").join(rows)


def figures(state: WindowState) -> Text:
    """The three lines beside the big percentage: the window, the figure and who counted it, the headroom."""
    text = Text(end="")
    if state.unsupported:
        text.append("Not a transcript ctx-tui can read\n", style="bold")
        text.append(state.unsupported)
        return text
    if state.window_known:
        text.append(f"% of the {state.context_window:,}-token window")
        if state.window_source == "Claude Code":
            text.append(" (reported by Claude Code)")
    else:
        text.append("window unknown", style="bold")
        text.append(" (set window.sizes for this model)")
    text.append(f"\n{state.context_tokens:,}", style="bold")
    text.append(" in context · ")
    text.append(context_source(state), style="bold italic" if state.estimated else "bold")
    if state.window_known:
        text.append(f"\n{state.headroom_tokens:,}", style="bold")
        text.append(f" left before auto-compact at {state.autocompact_threshold:.0%}")
    return text


def accounting(state: WindowState) -> Text:
    """Under the figures: what the context holds (the same split the other panels use), the compactions."""
    text = Text(end="")
    if state.unsupported:
        return text
    if not state.estimated and state.live:
        text.append("= ")
        text.append(f"{live_text_tokens(state):,}", style="bold")
        text.append(" transcript text of the live window + ")
        text.append(f"{overhead_tokens(state):,}", style="bold")
        text.append(" system prompt, tools and other\n")
    n = len(state.compactions)
    text.append(f"compactions: {n}" if n else "no compaction yet")
    if n:
        detail = compaction_text(state.compactions[-1], state.context_window if state.window_known else 0)
        if detail:
            text.append(" (last: ")
            text.append_text(detail)
            text.append(")")
    text.append(f" · round {state.rounds}", style="dim")
    return text


class UsagePanel(Vertical):
    """Context usage of the live window."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.pct = Digits("0", id="usage-pct")
        self.figures = Static(id="usage-figures")
        self.accounting = Static(id="usage-accounting")
        self.bar = UsageBar(id="usage-bar")
        self.trend = UsageTrend(id="usage-trend")
        self.banner = Static(id="handoff-banner")

    def compose(self) -> ComposeResult:
        with Horizontal(id="usage-top"):
            yield self.pct
            yield self.figures
        yield self.accounting
        yield self.bar
        yield self.trend
        yield self.banner

    def on_mount(self) -> None:
        self.border_title = "Context usage"

    def show(self, state: WindowState, handoff_threshold: float) -> None:
        fraction = state.usage_pct / 100.0
        lvl = level(fraction, handoff_threshold)
        for name in ("calm", "warn", "alert"):
            self.set_class(name == lvl, f"-{name}")
        self.pct.update(f"{state.usage_pct:.1f}" if state.window_known and not state.unsupported else "--")
        self.bar.set_value(fraction, handoff_threshold)
        self.figures.update(figures(state))
        self.accounting.update(accounting(state))
        window = state.context_window if state.window_known and not state.unsupported else 0
        # on the window's scale; with no known window there is no scale to draw on
        points = ([p.tokens / window for p in state.history] or [fraction]) if window else []
        self.trend.show(points, handoff_threshold, state.autocompact_threshold)
        first = state.history[0].round if state.history else state.rounds
        self.border_subtitle = (f"per round {first}–{state.rounds} · ┄ handoff {handoff_threshold:.0%} "
                                f"· ┄ compact {state.autocompact_threshold:.0%}")
        banner = self.banner
        over = fraction >= handoff_threshold
        banner.display = over
        if over:
            banner.update(
                Text.assemble(
                    ("Handoff suggested: ", "bold"),
                    f"context at {state.usage_pct:.0f}% (threshold {handoff_threshold:.0%}). Press ",
                    ("h", "bold underline"),
                    " to write a handoff for the next session.",
                )
            )
