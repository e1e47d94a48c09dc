"""The help screen: every key, what it does, and where each panel's data comes from."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ctx_tui.ui.keys import DASHBOARD_KEYS
from ctx_tui.ui.widgets.decay_table import ADVICE, RISK, SINCE, TYPE, WHERE

DATA_SOURCES: tuple[tuple[str, str], ...] = (
    ("Context usage", "The transcript's reported usage (Claude: input + cache tokens of the last main-chain "
     "assistant message; Codex: last token_count event), else a tiktoken estimate; marked reported or estimated. "
     "It splits into the live window's transcript text (tiktoken; what c compresses) and the rest: system "
     "prompt, tool definitions and what the transcript does not record. The trend shows usage per round on "
     "the window's 0–100% scale; the dotted lines are the handoff threshold and the agent's auto-compact. "
     "A compaction figure above twice the window is flagged ⚠: it cannot be a context size."),
    ("Position heat-map", "Entries of the live window (since the last compaction) with token offsets scaled to the "
     "reported total; the danger zone comes from config position.danger_zone; markers are tracked items."),
    ("Tracked items", "Items registered (n) or extracted from the transcript (goals, always/never instructions, "
     "decisions), with rounds since their last mention; decay thresholds from config decay.*."),
    ("Memory tiers", "working = critical items in the live window; short-term = the transcript; medium-term = "
     ".ctx/sessions/<session>.yaml; long-term = MEMORY.md (config paths.memory_file)."),
    ("Pending promotions", "Items proposed for MEMORY.md, waiting in the session memory for a or x."),
)


#: What the Tracked items table and the heat-map show, column by column and symbol by symbol.
SYMBOLS: tuple[tuple[str, str], ...] = (
    *((column.label, column.meaning) for column in (RISK, TYPE, SINCE, WHERE, ADVICE)),
    ("item", "the fact itself (shortened; the line under the table shows the highlighted one in full)"),
    ("⚠", "needs action: decayed, out of the context, or in the danger zone (30–70% of the window by default, "
          "where attention is lowest); these rows come first and the title counts them"),
    ("out / new", "out: no longer in the live window (compacted away or never restated); new: registered "
                  "but not said in the transcript yet, so nothing has faded"),
    ("1 2 3 …", "heat-map markers: where each tracked item sits in the window, keyed to the list under it; "
                "red = high, yellow = medium importance"),
    ("+", "heat-map: two or more items share that cell"),
    ("░", "the danger zone; attention is U-shaped: highest at the start and the end of the window"),
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", id="ctx.help.close")]

    def compose(self) -> ComposeResult:
        keys = Table(box=None, show_header=False, expand=True, pad_edge=False)
        keys.add_column(style="bold reverse", no_wrap=True)
        keys.add_column(style="bold", no_wrap=True)
        keys.add_column(ratio=1)
        for spec in DASHBOARD_KEYS:
            keys.add_row(f" {spec.shown} ", spec.label, spec.help)
        keys.add_row(" ^p ", "Palette", "Every action (and Textual's own: themes, screenshot, ...) by name.")
        symbols = Table(box=None, show_header=False, expand=True, pad_edge=False)
        symbols.add_column(style="bold", no_wrap=True)
        symbols.add_column(ratio=1)
        for symbol, meaning in SYMBOLS:
            symbols.add_row(symbol, meaning)
        sources = Table(box=None, show_header=False, expand=True, pad_edge=False)
        sources.add_column(style="bold", no_wrap=True)
        sources.add_column(ratio=1)
        for panel, source in DATA_SOURCES:
            sources.add_row(panel, source)
        with VerticalScroll(id="help-body"):
            yield Static(Text("Keys", style="bold underline"))
            yield Static(keys)
            yield Static(Text("\nColumns and symbols", style="bold underline"))
            yield Static(symbols)
            yield Static(Text("\nWhere the data comes from", style="bold underline"))
            yield Static(sources)

    def on_mount(self) -> None:
        self.query_one("#help-body").border_title = "ctx-tui help (esc to close)"

    def action_dismiss(self) -> None:  # type: ignore[override]  # esc closes with no result
        self.dismiss(None)
