"""The memory tiers (working, short-term, medium-term, long-term): counts, tokens, top items."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ctx_tui.ui.safe import literal

if TYPE_CHECKING:  # the memory model loads with the first whole read, after the first figure
    from ctx_tui.memory.tiers import TierSummary

TOP_ITEMS = 3

#: What each tier's token figure counts (tiktoken), so it is not read as context usage.
COUNTS = {
    "working": "latest rounds + items",
    "short-term": "whole transcript text",
    "medium-term": "session memory file",
    "long-term": "MEMORY.md, CLAUDE.md…",
}


#: Below this content width the top items are left out (the counts and what they count matter more).
TOP_ITEMS_FROM = 80


class TiersPanel(Static):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._shown: tuple[Sequence[TierSummary], str | None] = ((), None)
        self._with_top: bool | None = None

    def on_mount(self) -> None:
        self.border_title = "Memory tiers"

    def on_resize(self) -> None:
        if self._with_top is not None and self._with_top != (self.content_region.width >= TOP_ITEMS_FROM):
            self.show(*self._shown)

    def show(self, tiers: Sequence[TierSummary], note: str | None) -> None:
        self._shown = (tiers, note)
        self._with_top = with_top = (self.content_region.width or 80) >= TOP_ITEMS_FROM
        self.border_subtitle = "tokens: tiktoken count of what each tier holds"
        if not tiers:
            self.update(literal(note or "no memory data yet", "dim"))
            return
        table = Table(box=None, expand=True, pad_edge=False, show_edge=False)
        table.add_column("tier", style="bold", no_wrap=True, min_width=11)
        table.add_column("items", justify="right", no_wrap=True, min_width=5)
        table.add_column("tokens", justify="right", no_wrap=True, min_width=7)
        table.add_column("of", style="dim", no_wrap=True, overflow="ellipsis", ratio=1)
        if with_top:
            table.add_column("top items", ratio=2, no_wrap=True, overflow="ellipsis")
        for tier in tiers:
            top = Text(" · ", style="dim").join(literal(t, one_line=True, limit=60) for t in tier.top[:TOP_ITEMS])
            if tier.problem:
                top = literal(tier.problem, "red", one_line=True)
            counts: Text | str = COUNTS.get(tier.name, "")
            if tier.problem and not with_top:
                counts = top  # a source that cannot be read matters more than what the figure counts
            cells: list[Text | str] = [literal(tier.name), f"{tier.count:,}", f"{tier.tokens:,}", counts]
            table.add_row(*cells, *([top] if with_top else []))
        self.update(table)
