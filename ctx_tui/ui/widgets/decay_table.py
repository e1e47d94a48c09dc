"""Tracked items sorted by risk, with the full text of the highlighted row under the table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ctx_tui.ui.rows import ItemRow
from ctx_tui.ui.safe import literal

CONTENT_WIDTH = 48

_RECOMMENDATION_STYLE = {"high": "bold red", "medium": "yellow", "low": "dim"}


class DecayPanel(Vertical):
    """A DataTable of items (risk order) and a detail line with the selected item's whole content."""

    def compose(self) -> ComposeResult:
        table: DataTable[Text] = DataTable(id="decay-table", cursor_type="row", zebra_stripes=True)
        table.add_column("risk", key="risk")
        table.add_column("imp", key="importance")
        table.add_column("type", key="type")
        table.add_column("content", key="content", width=CONTENT_WIDTH)
        table.add_column("since", key="since")
        table.add_column("pos", key="pos")
        table.add_column("recommendation", key="recommendation")
        yield table
        yield Static(id="decay-detail")

    def on_mount(self) -> None:
        self.border_title = "Decayed items"
        self._items: dict[str, ItemRow] = {}

    @property
    def selected(self) -> ItemRow | None:
        """The highlighted item, for the restate / promote actions."""
        table = self.query_one(DataTable)
        if not self._items or table.cursor_row < 0 or table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value
        return self._items.get(key or "")

    def show(self, items: Sequence[ItemRow], note: str | None) -> None:
        table = self.query_one(DataTable)
        keep = self.selected.id if self.selected else None
        table.clear()
        self._items = {item.id: item for item in items}
        for item in items:
            table.add_row(*self._cells(item), key=item.id)
        decayed = sum(1 for item in items if item.decayed)
        self.border_subtitle = f"{decayed} decayed / {len(items)} tracked" if items else ""
        if keep in self._items:
            table.move_cursor(row=table.get_row_index(keep))
        if not items:
            self.query_one("#decay-detail", Static).update(
                literal(note or "no tracked items yet: they come from the transcript and `ctx-tui register`", "dim")
            )
        else:
            self._show_detail(self.selected)

    @staticmethod
    def _cells(item: ItemRow) -> list[Text]:
        since = "—" if item.rounds_since is None else str(item.rounds_since)
        pos = "out" if item.position is None else f"{item.position:.0%}{' ⚠' if item.in_danger_zone else ''}"
        rec_style = _RECOMMENDATION_STYLE.get(item.importance, "") if item.decayed else "dim"
        return [
            Text(f"{item.risk:.2f}", justify="right"),
            Text(item.importance, style=_RECOMMENDATION_STYLE.get(item.importance, "")),
            literal(item.type, one_line=True),
            literal(item.content, one_line=True, limit=CONTENT_WIDTH),
            Text(since, justify="right"),
            Text(pos, justify="right", style="bold red" if item.in_danger_zone else ""),
            literal(item.recommendation, rec_style, one_line=True),
        ]

    def _show_detail(self, item: ItemRow | None) -> None:
        detail = self.query_one("#decay-detail", Static)
        if item is None:
            detail.update("")
            return
        head = Text(f"{item.type} · {item.importance} · {item.id}: ", style="bold", end="")
        detail.update(Text.assemble(head, literal(item.content)))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail(self._items.get(event.row_key.value or ""))
