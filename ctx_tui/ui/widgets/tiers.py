"""The memory tiers (working, short-term, medium-term, long-term): counts, tokens, top items."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ctx_tui.memory.tiers import TierSummary
from ctx_tui.ui.safe import literal

TOP_ITEMS = 3


class TiersPanel(Static):
    def on_mount(self) -> None:
        self.border_title = "Memory tiers"

    def show(self, tiers: Sequence[TierSummary], note: str | None) -> None:
        if not tiers:
            self.update(literal(note or "no memory data yet", "dim"))
            return
        table = Table(box=None, expand=True, pad_edge=False, show_edge=False)
        table.add_column("tier", style="bold", no_wrap=True)
        table.add_column("items", justify="right", no_wrap=True)
        table.add_column("tokens", justify="right", no_wrap=True)
        table.add_column("top items", ratio=1, no_wrap=True, overflow="ellipsis")
        for tier in tiers:
            top = Text(" · ", style="dim").join(literal(t, one_line=True, limit=60) for t in tier.top[:TOP_ITEMS])
            if tier.problem:
                top = literal(tier.problem, "red", one_line=True)
            table.add_row(literal(tier.name), f"{tier.count:,}", f"{tier.tokens:,}", top)
        self.update(table)
