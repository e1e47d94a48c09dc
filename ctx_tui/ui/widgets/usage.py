"""The context-usage panel: big percentage, threshold-coloured bar, figures, trend, handoff banner."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Digits, Sparkline, Static

from ctx_tui.window_model import WindowState

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


def figures(state: WindowState) -> Text:
    """The three lines beside the big percentage: window and source, used and headroom, compactions."""
    src = "estimated" if state.estimated else "reported"
    text = Text(end="")
    if state.unsupported:
        text.append("Not a transcript ctx-tui can read\n", style="bold")
        text.append(state.unsupported)
        return text
    if state.window_known:
        text.append(f"% of a {state.context_window:,}-token window")
        if state.window_source == "Claude Code":
            text.append(" (reported by Claude Code)")
        text.append(" · ")
    else:
        text.append("window unknown", style="bold")
        text.append(" (set window.sizes for this model) · ")
    text.append(src, style="bold italic" if state.estimated else "bold")
    text.append(f"\n{state.context_tokens:,}", style="bold")
    if state.window_known:
        text.append(f" used · headroom {state.headroom_tokens:,} (auto-compact at {state.autocompact_threshold:.0%})")
    else:
        text.append(" used")
    n = len(state.compactions)
    text.append(f"\ncompactions {n}")
    if n:
        last = state.compactions[-1]
        detail = ", ".join(
            part for part in (last.trigger or "", f"{last.pre_tokens:,} before" if last.pre_tokens else "") if part
        )
        if detail:
            text.append(f" (last: {detail})")
    text.append(f" · round {state.rounds}", style="dim")
    return text


class UsagePanel(Vertical):
    """Context usage of the live window."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.pct = Digits("0", id="usage-pct")
        self.figures = Static(id="usage-figures")
        self.bar = UsageBar(id="usage-bar")
        self.trend = Sparkline([], id="usage-trend")
        self.banner = Static(id="handoff-banner")

    def compose(self) -> ComposeResult:
        with Horizontal(id="usage-top"):
            yield self.pct
            yield self.figures
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
        self.border_subtitle = f"trend: usage per round · handoff at {handoff_threshold:.0%} ┃"
        # A leading zero anchors the scale at 0, so bar heights compare to the peak, not to the lowest round.
        trend = [0.0, *(float(p.tokens) for p in state.history)] if state.history else [0.0, float(state.context_tokens)]
        self.trend.data = trend
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
