"""Tracked items sorted by risk, with the full text of the highlighted row under the table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ctx_tui.memory.decay import ItemStatus
from ctx_tui.ui.safe import literal

#: Columns other than the content: (label, key, width); the content takes what is left.
FIXED_COLUMNS = (("risk", "risk", 4), ("imp", "importance", 4), ("type", "type", 10))
TAIL_COLUMNS = (("since", "since", 5), ("pos", "pos", 5), ("advice", "recommendation", 12))
MIN_CONTENT = 16

_RECOMMENDATION_STYLE = {"high": "bold red", "medium": "yellow", "low": "dim"}
_IMPORTANCE_SHORT = {"high": "high", "medium": "med", "low": "low"}
#: The advice column is narrow; the detail line under the table says it in full.
_ADVICE_SHORT = {"restate to move it to the end": "move to end", "consider restating": "consider"}


class DecayPanel(Vertical):
    """A DataTable of items (risk order) and a detail line with the selected item's whole content."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.table: DataTable[Text] = DataTable(id="decay-table", cursor_type="row", zebra_stripes=True)
        self.detail = Static(id="decay-detail")
        self._items: dict[str, ItemStatus] = {}
        self._rows: list[ItemStatus] = []
        self._note: str | None = None
        self._content_width = 0

    def compose(self) -> ComposeResult:
        yield self.table
        yield self.detail

    def on_mount(self) -> None:
        self.border_title = "Decayed items"

    def _content_width_for(self, width: int) -> int:
        fixed = sum(w + 2 for _, _, w in FIXED_COLUMNS + TAIL_COLUMNS) + 2  # cell padding, scrollbar
        return max(MIN_CONTENT, width - fixed - 2)

    def _ensure_columns(self, table: DataTable[Text]) -> None:
        width = self._content_width_for(self.content_region.width or 80)
        if width == self._content_width and table.columns:
            return
        self._content_width = width
        table.clear(columns=True)
        for label, key, w in FIXED_COLUMNS:
            table.add_column(label, key=key, width=w)
        table.add_column("content", key="content", width=width)
        for label, key, w in TAIL_COLUMNS:
            table.add_column(label, key=key, width=w)

    def on_resize(self) -> None:
        if self._content_width and self._content_width != self._content_width_for(self.content_region.width):
            self.show(self._rows, self._note)

    @property
    def selected(self) -> ItemStatus | None:
        """The highlighted item, for the restate / promote actions."""
        table = self.table
        if not self._items or table.cursor_row < 0 or table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value
        return self._items.get(key or "")

    def show(self, items: Sequence[ItemStatus], note: str | None) -> None:
        table = self.table
        selected = self.selected
        keep = selected.id if selected else None
        self._ensure_columns(table)
        table.clear()
        self._rows, self._note = list(items), note
        self._items = {item.id: item for item in items}
        for item in items:
            table.add_row(*self._cells(item, self._content_width), key=item.id)
        flagged = sum(1 for item in items if item.flagged)
        self.border_subtitle = f"{flagged} flagged / {len(items)} tracked" if items else ""
        if keep in self._items:
            table.move_cursor(row=table.get_row_index(keep))
        if not items:
            self.detail.update(
                literal(note or "no tracked items yet: they come from the transcript and `ctx-tui register`", "dim")
            )
        else:
            self._show_detail(self.selected)

    @staticmethod
    def _cells(item: ItemStatus, content_width: int) -> list[Text]:
        importance = item.importance.value
        pos = "out" if item.position is None else f"{item.position:.0%}{' ⚠' if item.in_danger_zone else ''}"
        rec_style = _RECOMMENDATION_STYLE.get(importance, "") if item.flagged else "dim"
        return [
            Text(f"{item.risk:.2f}", justify="right"),
            Text(_IMPORTANCE_SHORT.get(importance, importance), style=_RECOMMENDATION_STYLE.get(importance, "")),
            literal(item.type.value, one_line=True, limit=10),
            literal(item.content, one_line=True, limit=content_width),
            Text(str(item.rounds_since_reference), justify="right"),
            Text(pos, justify="right", style="bold red" if item.in_danger_zone or item.position is None else ""),
            literal(_ADVICE_SHORT.get(item.recommendation, item.recommendation), rec_style, one_line=True, limit=12),
        ]

    def _show_detail(self, item: ItemStatus | None) -> None:
        detail = self.detail
        if item is None:
            detail.update("")
            return
        seen = "never mentioned" if item.last_seen_round is None else f"last seen in round {item.last_seen_round}"
        where = "out of the context" if item.position is None else f"at {item.position:.0%} of the window"
        head = Text(f"{item.type.value} · {item.importance.value} · {seen} · {where} · {item.recommendation}: ", style="bold", end="")
        why = Text("\nlast reference: ", style="bold", end="")
        detail.update(Text.assemble(head, literal(item.content), why, literal(item.why)))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail(self._items.get(event.row_key.value or ""))
