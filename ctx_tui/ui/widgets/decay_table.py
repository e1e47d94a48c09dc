"""The tracked items: the ones that need something first, a legend of the columns, the highlighted one in full.

Every item the memory model tracks is listed; the ones that need attention
(decayed, out of the context, or in the danger zone: their advice is not
"ok") come first and are what the title counts, so the title and the rows
agree. Narrow panels drop the low-value columns (risk, then rounds since)
before the item's text gets short.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Static

from ctx_tui.ui.safe import literal

if TYPE_CHECKING:  # the memory model loads with the first whole read, after the first figure
    from ctx_tui.memory.decay import ItemStatus


@dataclass(frozen=True, slots=True)
class Column:
    label: str
    key: str
    width: int
    meaning: str  # for the legend and the help screen


RISK = Column("risk", "risk", 4, "0–1, how likely the agent is to lose it (rounds since × low attention)")
TYPE = Column("type", "type", 11, "what kind of fact; red = high, yellow = medium importance")
SINCE = Column("since", "since", 5, "rounds since it was last mentioned")
WHERE = Column("where", "where", 8, "position in the window: ⚠ danger zone, out = dropped, new = not said yet")
ADVICE = Column("advice", "advice", 8, "restate / consider / move (restate to bring it to the end) / ok")
#: Columns in the order they are dropped when the panel is narrow (lowest value first).
DROP_ORDER = (RISK, SINCE)
MIN_CONTENT = 28

TITLE = "Tracked items"
LEGEND = ("⚠ needs action (listed first) · since: rounds unmentioned · "
          "where: ⚠ danger zone, out = dropped, new = unsaid · ? all")
EMPTY = ("No tracked items yet. Press n to register one; goals, “always/never” instructions and decisions "
         "in the transcript are picked up by themselves.")

#: Type names that do not fit the type column, shortened (the detail line says them in full).
_TYPE_SHORT = {"user_preference": "preference", "critical_info": "critical", "project_config": "config"}
_IMPORTANCE_STYLE = {"high": "bold red", "medium": "yellow", "low": "dim"}
_ADVICE_SHORT = {
    "restate now": "restate",
    "consider restating": "consider",
    "can ignore": "ignore",
    "restate to move it to the end": "move",
    "ok": "ok",
}


def needs_attention(item: ItemStatus) -> bool:
    """Decayed, out of the context, or placed where attention is lowest: its advice is not "ok"."""
    from ctx_tui.memory.decay import OK  # loaded by then: items come from the memory view

    return item.flagged or item.recommendation != OK


def ordered(items: Sequence[ItemStatus]) -> list[ItemStatus]:
    """The ones that need attention first, each group by risk (highest first)."""
    return sorted(items, key=lambda s: (not needs_attention(s), -s.risk))


def never_said(item: ItemStatus) -> bool:
    """Registered but not (yet) stated in the transcript: nothing has faded."""
    return item.last_seen_round is None and item.position is None


def where(item: ItemStatus) -> Text:
    if item.position is not None:
        zone = " ⚠" if item.in_danger_zone else ""
        return Text(f"{item.position:.0%}{zone}", justify="right", style="bold red" if zone else "")
    if never_said(item):
        return Text("new", justify="right", style="italic")
    return Text("out", justify="right", style="bold red")


def _after_content(columns: Sequence[Column]) -> Column:
    """The column the item's text goes before: rounds since when shown, else where."""
    return SINCE if SINCE in columns else WHERE


def title_for(items: Sequence[ItemStatus]) -> str:
    if not items:
        return TITLE
    flagged = sum(1 for item in items if needs_attention(item))
    return f"{TITLE} · {flagged} flagged" if flagged else f"{TITLE} · none flagged"


class DecayPanel(Vertical):
    """A DataTable of items (attention first), a legend, and the highlighted item in full."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.table: DataTable[Text] = DataTable(id="decay-table", cursor_type="row", zebra_stripes=True)
        self.legend = Static(LEGEND, id="decay-legend")
        self.detail = Static(id="decay-detail")
        self._items: dict[str, ItemStatus] = {}
        self._rows: list[ItemStatus] = []
        self._note: str | None = None
        self._layout: tuple[tuple[Column, ...], int] | None = None

    def compose(self) -> ComposeResult:
        yield self.table
        yield self.legend
        yield self.detail

    def on_mount(self) -> None:
        self.border_title = TITLE

    def columns_for(self, width: int) -> tuple[tuple[Column, ...], int]:
        """The columns that fit ``width`` (dropping the low-value ones first) and the content's width."""
        shown = [RISK, TYPE, SINCE, WHERE, ADVICE]

        def content(cols: list[Column]) -> int:
            return width - sum(c.width + 2 for c in cols) - 2 - 2  # cell padding, content padding, scrollbar

        for column in DROP_ORDER:
            if content(shown) >= MIN_CONTENT:
                break
            shown.remove(column)
        return tuple(shown), max(12, content(shown))

    def _ensure_columns(self, table: DataTable[Text]) -> None:
        layout = self.columns_for(self.content_region.width or 80)
        if layout == self._layout and table.columns:
            return
        self._layout = layout
        columns, content_width = layout
        table.clear(columns=True)
        # Labels as Text: a str label is read as Rich markup, which loads Rich's emoji names (~0.7 MiB held)
        for column in columns:
            if column is _after_content(columns):
                table.add_column(Text("item"), key="content", width=content_width)
            table.add_column(Text(column.label), key=column.key, width=column.width)

    def on_resize(self) -> None:
        if self._layout and self._layout != self.columns_for(self.content_region.width):
            self.show(self._rows, self._note)

    @property
    def selected(self) -> ItemStatus | None:
        """The highlighted item, for the restate / promote actions."""
        table = self.table
        if not self._items or table.cursor_row < 0 or table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        return self._items.get(key or "")

    def show(self, items: Sequence[ItemStatus], note: str | None) -> None:
        table = self.table
        selected = self.selected
        keep = selected.id if selected else None
        self._ensure_columns(table)
        table.clear()
        rows = ordered(items)
        self._rows, self._note = rows, note
        self._items = {item.id: item for item in rows}
        assert self._layout is not None
        columns, content_width = self._layout
        for item in rows:
            table.add_row(*self._cells(item, columns, content_width), key=item.id)
        self.border_title = title_for(rows)
        self.border_subtitle = f"{len(rows)} tracked" if rows else ""
        if keep in self._items:
            table.move_cursor(row=table.get_row_index(keep))
        self.set_class(not rows, "-empty")
        if not rows:
            self.detail.update(literal(f"{note} · n registers an item by hand" if note else EMPTY, "dim"))
        else:
            self._show_detail(self.selected)

    @staticmethod
    def _cells(item: ItemStatus, columns: Sequence[Column], content_width: int) -> list[Text]:
        importance = item.importance.value
        attention = needs_attention(item)
        cells = {
            RISK.key: Text("–" if never_said(item) else f"{item.risk:.2f}", justify="right"),
            TYPE.key: literal(_TYPE_SHORT.get(item.type.value, item.type.value), _IMPORTANCE_STYLE.get(importance, ""), one_line=True,
                              limit=TYPE.width),
            SINCE.key: Text(str(item.rounds_since_reference), justify="right"),
            WHERE.key: where(item),
            ADVICE.key: literal(_ADVICE_SHORT.get(item.recommendation, item.recommendation),
                                _IMPORTANCE_STYLE.get(importance, "") if attention else "dim",
                                one_line=True, limit=ADVICE.width),
        }
        content = literal(("⚠ " if attention else "") + item.content, "bold" if attention else "",
                          one_line=True, limit=content_width)
        out: list[Text] = []
        for column in columns:
            if column is _after_content(columns):
                out.append(content)
            out.append(cells[column.key])
        return out

    def _show_detail(self, item: ItemStatus | None) -> None:
        detail = self.detail
        if item is None:
            detail.update("")
            return
        seen = "never mentioned" if item.last_seen_round is None else f"last mentioned in round {item.last_seen_round}"
        if item.position is not None:
            place = f"at {item.position:.0%} of the window"
        else:
            place = "not said in the transcript yet" if never_said(item) else "out of the context"
        head = Text(f"{item.type.value} · {item.importance.value} importance · {seen} · {place} · "
                    f"{item.recommendation}: ", style="bold", end="")
        why = Text("\nlast reference: ", style="bold", end="")
        detail.update(Text.assemble(head, literal(item.content), why, literal(item.why)))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail(self._items.get(event.row_key.value or ""))
