"""The position heat-map: where things sit in the live window and how much attention each place gets.

Row by row: a scale with the danger zone labelled; the attention gradient
(U-shaped, ``ctx_tui.memory.decay.attention``: most at the start and the end) with the danger
zone shaded; a marker for every tracked item at its position, keyed to the
legend below; what fills the window, by kind; the legends.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.geometry import Size
from textual.widget import Widget

from ctx_tui.memory.decay import ItemStatus, attention
from ctx_tui.transcripts.model import Kind
from ctx_tui.ui.safe import literal
from ctx_tui.window_model import WindowEntry

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
        "heatmap--cold",
        "heatmap--hot",
        "heatmap--danger",
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

    def _attention_row(self, width: int) -> Text:
        lo, hi = self._zone
        cold = self.get_component_styles("heatmap--cold").background
        hot = self.get_component_styles("heatmap--hot").background
        danger_fg = self.get_component_styles("heatmap--danger").color
        text = Text(no_wrap=True, end="")
        for col in range(width):
            pos = (col + 0.5) / width
            bg = cold.blend(hot, attention(pos)) if isinstance(cold, Color) else None
            in_zone = lo <= pos < hi
            style = Style(bgcolor=bg.rich_color if bg else None, color=danger_fg.rich_color if in_zone else None)
            text.append("░" if in_zone else " ", style=style)
        return text

    def _marker_row(self, width: int) -> Text:
        cells: list[tuple[str, str]] = [("─", "heatmap--label")] * width
        for key, item in zip(MARKER_KEYS, self._items):
            col = min(width - 1, int((item.position or 0.0) * width))
            cells[col] = ("+" if cells[col][0] != "─" else key, f"heatmap--{item.importance.value}")
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

    def _fill_legend(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        for (label, cls, _), share in zip(FILL_GROUPS, fill_shares(self._entries)):
            if not share and self._entries:
                continue  # a kind with nothing in the window (no summary before a compaction) takes no room
            text.append("█", style=self._component_style(cls))
            text.append(f" {label} {share:.0%} ")
        return text

    def _item_legend(self, width: int, lines: int) -> list[Text]:
        if lines <= 0:
            return []
        if not self._items:
            reason = self._note or "no tracked item in the live window"
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
        """With ``height: auto``: the bands (two rows each) plus one legend line per marked item."""
        return 7 + max(1, min(len(self._items), self.MAX_LEGEND))

    def render(self) -> Text:
        width = max(10, self.content_region.width or self.size.width)
        height = max(1, self.content_region.height or self.size.height)
        # Spare height (beyond the legend lines the items need) thickens the two bands.
        spare = height - 5 - max(1, len(self._items))
        attention_rows = 2 if spare >= 1 else 1
        fill_rows = 2 if spare >= 2 else 1
        rows = [self._scale_row(width)]
        rows += [self._attention_row(width)] * attention_rows
        rows += [self._marker_row(width)]
        rows += [self._fill_row(width)] * fill_rows
        rows += [self._fill_legend()]
        rows = rows[:height]
        rows += self._item_legend(width, height - len(rows))
        return Text("\n", end="").join(rows)
