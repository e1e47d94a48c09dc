"""Promotions to long-term memory that wait for the user's approval (a / x)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from ctx_tui.ui.safe import literal

if TYPE_CHECKING:  # the memory model loads with the first whole read, after the first figure
    from ctx_tui.memory.session_store import Promotion


class PromotionsPanel(Static):
    def on_mount(self) -> None:
        self.border_title = "Pending promotions"

    def show(self, promotions: Sequence[Promotion], note: str | None) -> None:
        self.border_subtitle = f"{len(promotions)} waiting · a approve · x reject" if promotions else ""
        if not promotions:
            self.update(literal(note or "Nothing waits for approval: highlight a tracked item and press p to propose "
                                "it for MEMORY.md; a approves, x rejects.", "dim"))
            return
        lines = []
        for promo in promotions:
            line = Text(no_wrap=True, end="", overflow="ellipsis")
            line.append("▸ ", style="bold")
            line.append_text(literal(promo.type.value, "bold", one_line=True))
            line.append(": ")
            line.append_text(literal(promo.content, one_line=True))
            if promo.reason:
                line.append_text(literal(f"  ({promo.reason})", "dim", one_line=True))
            lines.append(line)
        self.update(Text("\n", end="").join(lines))
