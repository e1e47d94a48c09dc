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

DATA_SOURCES: tuple[tuple[str, str], ...] = (
    ("Context usage", "The transcript's reported usage (Claude: input + cache tokens of the last main-chain "
     "assistant message; Codex: last token_count event), else a tiktoken estimate; marked reported or estimated."),
    ("Position heat-map", "Entries of the live window (since the last compaction) with token offsets scaled to the "
     "reported total; the danger zone comes from config position.danger_zone; markers are tracked items."),
    ("Decayed items", "Tracked items (registered or extracted from the transcript) with rounds since their last "
     "reference; decay thresholds from config decay.*; sorted by risk."),
    ("Memory tiers", "working = critical items in the live window; short-term = the transcript; medium-term = "
     ".ctx/sessions/<session>.yaml; long-term = MEMORY.md (config paths.memory_file)."),
    ("Pending promotions", "Items proposed for MEMORY.md, waiting in the session memory for a or x."),
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
        sources = Table(box=None, show_header=False, expand=True, pad_edge=False)
        sources.add_column(style="bold", no_wrap=True)
        sources.add_column(ratio=1)
        for panel, source in DATA_SOURCES:
            sources.add_row(panel, source)
        with VerticalScroll(id="help-body"):
            yield Static(Text("Keys", style="bold underline"))
            yield Static(keys)
            yield Static(Text("\nWhere the data comes from", style="bold underline"))
            yield Static(sources)

    def on_mount(self) -> None:
        self.query_one("#help-body").border_title = "ctx-tui help (esc to close)"

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss(None)
