"""The position heat-map: where things sit in the live window and how much attention each place gets.

Row by row: a scale with the danger zone labelled; a marker for every tracked
item at its position, keyed to the legend below, on the danger zone's shading
(the attention curve is U-shaped, ``ctx_tui.memory.decay.attention``: the same for
every session, so it is drawn only where it says something — the band where it
is lowest — and explained in the help); what fills the window, by kind; the legends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

from ctx_tui.transcripts.model import Kind
from ctx_tui.ui.safe import literal
from ctx_tui.window_state import WindowEntry

if TYPE_CHECKING:  # the memory model loads with the first whole read, after the first figure
    from ctx_tui.memory.decay import ItemStatus

MARKER_KEYS = "123456789abcdefghijklmnopqrstuvwxyz"

#: What fills the window, in legend order: (label, component class, kinds).
FILL_GROUPS: tuple[tuple[str, str, frozenset[Kind]], ...] = (
    ("user", "heatmap--user", frozenset({Kind.USER})),
    ("assistant", "heatmap--assistant", frozenset({Kind.ASSISTANT})),
    ("tool output", "heatmap--tool", frozenset({Kind.TOOL_CALL, Kind.TOOL_RESULT})),
    ("thinking", "heatmap--thinking", frozenset({Kind.THINKING})),
    ("summary", "heatmap--summary", frozenset({Kind.SUMMARY})),
    ("system", "heatmap--system", frozenset({Kind.SYSTEM})),
)
_GROUP_OF = {kind: index for index, (_, _, kinds) in enumerate(FILL_GROUPS) for kind in kinds}


def fill_by_column(entries: Sequence[WindowEntry], total: int, width: int) -> list[int | None]:
    """For each of ``width`` columns, the fill group that holds most tokens of that slice."""
    if total <= 0 or not entries:
        return [None] * width
    columns: list[int | None] = []
    index = 0
    for col in range(width):
        lo, hi = col * total / width, (col + 1) * total / width
        weights: dict[int, float] = {}
        while index < len(entries) and entries[index].offset + entries[index].tokens <= lo:
            index += 1
        probe = index
        while probe < len(entries) and entries[probe].offset < hi:
            entry = entries[probe]
            overlap = min(hi, entry.offset + entry.tokens) - max(lo, entry.offset)
            if overlap > 0:
                group = _GROUP_OF.get(entry.entry.kind, len(FILL_GROUPS) - 1)
                weights[group] = weights.get(group, 0.0) + overlap
            probe += 1
        columns.append(max(weights, key=weights.__getitem__) if weights else None)
    return columns


def fill_shares(entries: Sequence[WindowEntry]) -> list[float]:
    """Share of the window's tokens per fill group."""
    sums = [0] * len(FILL_GROUPS)
    for entry in entries:
        sums[_GROUP_OF.get(entry.entry.kind, len(FILL_GROUPS) - 1)] += entry.tokens
    total = sum(sums)
    return [s / total if total else 0.0 for s in sums]


class HeatMap(Widget):
    """Renders the live window as rows of coloured cells (Rich Text); sized by CSS."""

    COMPONENT_CLASSES = {
        "heatmap--danger",
        "heatmap--danger-band",
        "heatmap--label",
        "heatmap--high",
        "heatmap--medium",
        "heatmap--low",
        *(cls for _, cls, _ in FILL_GROUPS),
    }

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._entries: Sequence[WindowEntry] = ()
        self._total = 0
        self._zone = (0.3, 0.7)
        self._items: Sequence[ItemStatus] = ()
        self._note: str | None = None

    def show(
        self,
        entries: Sequence[WindowEntry],
        total: int,
        danger_zone: tuple[float, float],
        items: Sequence[ItemStatus],
        note: str | None,
    ) -> None:
        self._entries = entries
        self._total = total
        self._zone = danger_zone
        self._items = [item for item in items if item.position is not None]
        self._note = note
        self.refresh(layout=True)

    def on_mount(self) -> None:
        self.border_title = "Position heat-map"

    # -- rows --------------------------------------------------------------------------
    def _scale_row(self, width: int) -> Text:
        lo, hi = self._zone
        a, b = int(lo * width), max(int(lo * width) + 1, int(hi * width))
        cells = [[" ", "heatmap--danger" if a <= col < b else "heatmap--label"] for col in range(width)]

        def place(word: str, at: int) -> None:
            for i, ch in enumerate(word[: max(0, width - at)]):
                cells[at + i][0] = ch

        label = f"danger zone {lo:.0%}–{hi:.0%}"
        if len(label) > b - a:
            label = f"{lo:.0%}–{hi:.0%}"[: b - a]
        place(label, a + max(0, (b - a - len(label)) // 2))
        if a >= 5:
            place("start", 0)
        if width - b >= 3:
            place("end", width - 3)
        text = Text(no_wrap=True, end="")
        for ch, cls in cells:
            text.append(ch, style=self._component_style(cls))
        return text

    def _marker_row(self, width: int) -> Text:
        lo, hi = self._zone
        empty = [("░", "heatmap--danger-band") if lo <= (col + 0.5) / width < hi else ("─", "heatmap--label")
                 for col in range(width)]
        cells = list(empty)
        for key, item in zip(MARKER_KEYS, self._items):
            col = min(width - 1, int((item.position or 0.0) * width))
            cells[col] = ("+" if cells[col] != empty[col] else key, f"heatmap--{item.importance.value}")
        text = Text(no_wrap=True, end="")
        for ch, cls in cells:
            text.append(ch, style=self._component_style(cls))
        return text

    def _fill_row(self, width: int) -> Text:
        text = Text(no_wrap=True, end="")
        for group in fill_by_column(self._entries, self._total, width):
            if group is None:
                text.append(" ")
            else:
                text.append("█", style=self._component_style(FILL_GROUPS[group][1]))
        return text

    def _fill_legend(self, width: int) -> list[Text]:
        """``█ user 12% █ assistant 30% ...``, wrapped onto a second line rather than cut."""
        lines = [Text(no_wrap=True, overflow="ellipsis", end="")]
        for (label, cls, _), share in zip(FILL_GROUPS, fill_shares(self._entries)):
            if not share and self._entries:
                continue  # a kind with nothing in the window (no summary before a compaction) takes no room
            part = f" {label} {share:.0%} "
            if lines[-1].cell_len and lines[-1].cell_len + 1 + len(part) > width:
                lines.append(Text(no_wrap=True, overflow="ellipsis", end=""))
            lines[-1].append("█", style=self._component_style(cls))
            lines[-1].append(part)
        return lines

    def _item_legend(self, width: int, lines: int) -> list[Text]:
        if lines <= 0:
            return []
        if not self._items:
            reason = self._note or "none in the window · n registers an item"
            return [literal(f"markers: {reason}", "dim", one_line=True, limit=width)]
        out: list[Text] = []
        for key, item in list(zip(MARKER_KEYS, self._items))[:lines]:
            line = Text(no_wrap=True, end="")
            line.append(f"{key} ", style=self._component_style(f"heatmap--{item.importance.value}"))
            zone = " ⚠" if item.in_danger_zone else ""
            head = f"{item.type.value} @{item.position:.0%}{zone} "
            line.append(head, style="bold")
            line.append_text(literal(item.content, one_line=True, limit=max(1, width - len(head) - 2)))
            out.append(line)
        return out

    def _component_style(self, name: str) -> Style:
        return self.get_component_rich_style(name)

    #: Most legend lines the widget asks for when its height is automatic.
    MAX_LEGEND = 12

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """With ``height: auto``: scale, markers, the fill band (two rows), its legend, one line per marked item."""
        return 4 + len(self._fill_legend(width)) + max(1, min(len(self._items), self.MAX_LEGEND))

    def render(self) -> Text:
        width = max(10, self.content_region.width or self.size.width)
        height = max(1, self.content_region.height or self.size.height)
        # Spare height (beyond the legend lines the items need) thickens the fill band.
        spare = height - 3 - len(self._fill_legend(width)) - max(1, len(self._items))
        fill_rows = max(1, min(4, 1 + spare))
        rows = [self._scale_row(width)]
        rows += [self._marker_row(width)]
        rows += [self._fill_row(width)] * fill_rows
        rows += self._fill_legend(width)
        rows = rows[:height]
        rows += self._item_legend(width, height - len(rows))
        return Text("\n", end="").join(rows)
